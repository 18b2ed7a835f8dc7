"""torchcourse.compiletools.captured_logs: the compile lessons print facts read from torch's
logs (a recompile reason, a guard, a graph-break reason, generated kernels), so the capture
must work on every supported torch, inside a Jupyter kernel too, and a cell that captures
nothing must fail instead of printing an empty fact.

Cheap on purpose: the eager backend for the dynamo logs (no code generation), one inductor
compile for ``output_code``, one small kernel for the notebook test.
"""

from __future__ import annotations

import io
import logging
import sys

import nbformat
import pytest
import torch
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from torchcourse.compiletools import Captured, NothingCaptured, captured_logs, reset


def _torch_handlers() -> dict[str, list[logging.Handler]]:
    return {
        name: list(logging.getLogger(name).handlers)
        for name in logging.root.manager.loggerDict
        if name == "torch" or name.startswith("torch.")
    }


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    reset()
    yield
    reset()


def test_a_recompile_reason_is_captured_and_stderr_stays_quiet(capfd):
    def double(x):
        return x * 2

    f = torch.compile(double, backend="eager")
    f(torch.ones(3))
    stderr_before = sys.stderr
    with captured_logs(recompiles=True) as logs:
        f(torch.ones(3, dtype=torch.float64))
    reason = logs.require(r"dtype mismatch|expected Float", "the recompile reason")
    assert "Double" in reason[0] or "float64" in reason[0], reason
    assert logs.require("triggered by|Recompiling", "the recompile header")
    assert not any(line.startswith(("V", "I", "W")) and "] " in line[:60] for line in logs.lines), (
        "glog prefixes are removed"
    )
    # nothing spilled to the process's stderr, and everything is put back
    assert "triggered by" not in capfd.readouterr().err
    assert sys.stderr is stderr_before
    # pytest's own LogCaptureHandlers write to a StringIO too: they are not the course's
    buffers = [
        h
        for hs in _torch_handlers().values()
        for h in hs
        if isinstance(getattr(h, "stream", None), io.StringIO) and type(h).__name__ != "LogCaptureHandler"
    ]
    assert not buffers, "a handler still writes to the capture buffer"


def test_a_guard_is_captured():
    def add_one(x):
        return x + 1

    with captured_logs(guards=True) as logs:
        torch.compile(add_one, backend="eager")(torch.ones(4))
    (guard,) = logs.require("TENSOR_MATCH", "the tensor guard")[:1]
    assert "L['x']" in guard and "torch.float32" in guard


def test_a_graph_break_reason_is_captured():
    def noisy(x):
        y = x * 2
        print("side effect")
        return y + 1

    with captured_logs(graph_breaks=True) as logs:
        torch.compile(noisy, backend="eager")(torch.ones(2))
    breaks = logs.require("Graph break", "the graph-break reason")
    assert any("print" in line or "builtin" in line for line in logs.lines), logs.text[-2000:]
    assert breaks


def test_an_output_code_kernel_is_captured():
    """One inductor compile (the cache is off so that the code is generated and logged)."""
    from torch._inductor import config

    def fused(x):
        return (x * 2 + 1).relu()

    with config.patch(fx_graph_cache=False), captured_logs(output_code=True) as logs:
        got = torch.compile(fused)(torch.arange(-4.0, 4.0))
    assert torch.equal(got, fused(torch.arange(-4.0, 4.0)))
    assert logs.require(r'extern "C"', "the C++ kernel")
    assert logs.require(r"def call\(", "the wrapper that calls the kernel")


def test_require_names_what_was_missing():
    logs = Captured(["Recompiling function f", "something else"])
    assert logs.require("Recompiling") == ["Recompiling function f"]
    with pytest.raises(NothingCaptured, match=r"'TENSOR_MATCH' \(the tensor guard\); 2 line\(s\) were captured"):
        logs.require("TENSOR_MATCH", "the tensor guard")


def test_in_a_notebook_logs_are_captured_and_an_empty_capture_fails():
    """In a Jupyter kernel sys.stderr is ipykernel's stream, where torch 2.15's handler writes:
    the capture must work there, keep torch's text off the cell's stderr, and a cell that reads
    a fact from logs that captured nothing must raise NothingCaptured (not print "0")."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "import torch\n"
            "from torchcourse.compiletools import captured_logs\n"
            "def noisy(x):\n"
            "    print('side effect')\n"
            "    return x + 1\n"
            "with captured_logs(graph_breaks=True) as logs:\n"
            "    torch.compile(noisy, backend='eager')(torch.ones(2))\n"
            "print('breaks logged:', len(logs.require('Graph break', 'the graph-break reason')) > 0)"
        ),
        nbformat.v4.new_code_cell(
            "with captured_logs(recompiles=True) as logs:\n"
            "    pass  # nothing recompiles: nothing is logged\n"
            "print('recompile reason:', logs.require('triggered by', 'the recompile reason'))"
        ),
    ]
    client = NotebookClient(nb, timeout=120, kernel_name="python3")
    with pytest.raises(CellExecutionError) as err:
        client.execute()
    first, second = nb.cells[0].outputs, nb.cells[1].outputs
    stdout = "".join(o.get("text", "") for o in first if o.get("name") == "stdout")
    stderr = "".join(o.get("text", "") for o in first if o.get("name") == "stderr")
    assert "breaks logged: True" in stdout
    assert "Graph break" not in stderr, "torch's log lines reached the learner's stderr"
    assert [o.get("ename") for o in second if o["output_type"] == "error"] == ["NothingCaptured"]
    assert "the recompile reason" in str(err.value)
    assert not [o for o in second if o.get("name") == "stdout"], "no empty fact printed"


def test_a_handler_of_any_class_that_writes_to_stderr_is_captured(capfd):
    """torch 2.15 logs through its own Handler subclass, not logging.StreamHandler: handlers are
    chosen by the stream they write to. A class-based choice (the old one) misses this one: it
    holds the real stderr from before the block, so redirecting sys.stderr does not catch it."""

    class OwnHandler(logging.Handler):
        def __init__(self):
            super().__init__()
            self.stream = sys.stderr

        def emit(self, record):
            self.stream.write(self.format(record) + "\n")

    logger = logging.getLogger("torch._dynamo.course_test")
    handler, propagate = OwnHandler(), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False  # only this handler sees the record
    try:
        with captured_logs() as logs:
            logger.warning("a line from a handler of its own class")
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
    assert logs.require("a handler of its own class", "the line")
    assert "a handler of its own class" not in capfd.readouterr().err
