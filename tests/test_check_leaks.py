"""Whatever an answer does, the learner sees one ✗ line about what their function did: never a
line of the reference (``solutions/*.py``) or of the check (``torchcourse/grading/**``), never a
traceback, and the process is left as it was. The answers here break things on purpose: they change
every argument they are given (tensors, modules, programs, lists), replace torch functions,
specialise a shared program's symbolic sizes, raise exceptions that cannot be printed or that quote
code, and return objects whose ``__eq__``, ``__repr__`` and ``__bool__`` raise."""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path

import pytest
import torch

from tests.repeat import compiled_before
from tests.test_checks import EXERCISES, IDS
from torchcourse.grading.cases import snapshot
from torchcourse.grading.checks import FAIL, REGISTRY, check, evaluate
from torchcourse.grading.isolation import Isolated, differences, process_state

ROOT = Path(__file__).resolve().parents[1]


def _source_lines() -> set[str]:
    lines = set()
    for path in [*ROOT.glob("solutions/*.py"), *ROOT.glob("torchcourse/grading/**/*.py")]:
        for line in path.read_text(encoding="utf-8").splitlines():
            line = line.strip()
            if len(line) >= 16 and not line.startswith("#"):  # markdown cells are the exercise text itself
                lines.add(line)
    return lines


SOURCE = _source_lines()


def _break(value, depth=0):
    """Change ``value`` in place as far as it can be changed."""
    if depth > 2:
        return
    if isinstance(value, torch.Tensor):
        with torch.no_grad():
            if value.numel() and value.device.type != "meta":
                try:
                    value.view(-1)[0] = 7  # the underlying memory too, for a view
                except Exception:  # noqa: BLE001 - a dtype or layout that refuses: try another way
                    value.data = torch.zeros(1)
    elif isinstance(value, torch.nn.Module):
        for p in value.parameters():
            _break(p, depth + 1)
        for b in value.buffers():
            _break(b, depth + 1)
        value.train(not value.training)
        value.forward = lambda *a, **k: 1 / 0
    elif isinstance(value, torch.export.ExportedProgram):
        for node in value.graph.nodes:  # int() on every symbolic size specialises the program's shape env
            val = node.meta.get("val")
            for s in getattr(val, "shape", ()):
                if isinstance(s, torch.SymInt):
                    int(s)
    elif isinstance(value, list):
        for v in value:
            _break(v, depth + 1)
        value.append(None)
    elif isinstance(value, dict):
        value.clear()
    elif isinstance(value, tuple):
        for v in value:
            _break(v, depth + 1)


def changes_everything(*args):
    for a in args:
        _break(a)
    return args[0] if args else None


def replaces_torch(*args):
    def broken(*a, **k):
        raise RuntimeError("replaced")

    for name in ("sum", "add", "matmul", "compile", "zeros", "empty", "tensor", "stack", "cat", "where"):
        setattr(torch, name, broken)
    torch.Tensor.sum = broken
    torch.nn.functional.relu = broken
    return torch.ones(2)


class Unprintable(Exception):
    def __str__(self):
        raise ValueError("no")


def raises_unprintable(*args):
    raise Unprintable


def raises_quoting_code(*args):
    line = next(iter(sorted(SOURCE)))
    raise RuntimeError(f'boom\n\nfrom user code:\n  File "{ROOT}/solutions/x.py", line 1, in f\n    {line}')


class Hostile:
    def __eq__(self, other):
        raise RuntimeError("eq")

    def __repr__(self):
        raise RuntimeError("repr")

    def __bool__(self):
        raise RuntimeError("bool")

    def __len__(self):
        raise RuntimeError("len")

    def __iter__(self):
        raise RuntimeError("iter")

    def __getattr__(self, name):
        raise RuntimeError(name)

    __hash__ = None


def returns_hostile(*args):
    return Hostile()


def changes_settings(*args):
    """Global settings changed and never put back, a mode entered and never left."""
    import warnings

    import numpy as np

    torch.device("meta").__enter__()
    torch.set_grad_enabled(False)
    torch.set_default_dtype(torch.float64)
    torch.set_num_threads(max(1, torch.get_num_threads() + 1))
    torch.manual_seed(0)
    np.random.seed(0)
    warnings.simplefilter("error")
    os.environ["TORCHCOURSE_LEAK_TEST"] = "1"
    torch.set_printoptions(precision=1)
    torch.use_deterministic_algorithms(True, warn_only=True)
    return None


ANSWERS = [
    changes_everything,
    replaces_torch,
    raises_unprintable,
    raises_quoting_code,
    returns_hostile,
    changes_settings,
]


@pytest.mark.parametrize("ex", EXERCISES, ids=IDS)
def test_no_traceback_and_no_source_whatever_the_answer_does(ex, capsys):
    # every answer on every exercise, those that compile, export or build with AOTInductor too (all of
    # them: 76 s for this file and the twice-in-one-kernel test at -n 2)
    answers = ANSWERS
    for answer in answers:
        compiled_before()  # the kernel holds the learner's compiled code, whatever ran before in this worker
        before = process_state()
        check(ex.id, answer)
        out = capsys.readouterr().out
        assert out.count("\n") == 1 and out.startswith(f"{FAIL} {ex.id} "), f"{answer.__name__}: {out}"
        shown = [line for line in SOURCE if line in out]
        assert not shown, f"{ex.id} {answer.__name__} shows source {shown}: {out}"
        assert "Traceback" not in out and 'File "' not in out, out
        changed = differences(before, process_state())
        assert not changed, f"{ex.id} {answer.__name__} left the process changed: {changed}"


def test_the_shared_program_of_17_2_is_not_shared():
    """17.2's answer that calls int() on the batch symbol gets a ✗ about its result; the reference,
    run after it, still passes (it used to raise KeyError inside the worked answer)."""
    ex = REGISTRY.get("17.2")

    def specialises(program):
        node = [n for n in program.graph.nodes if n.op == "placeholder"][-1]
        n = int(node.meta["val"].shape[0])
        return n, n

    status, message = evaluate(ex, specialises)
    assert status == FAIL and "expected" in message, message
    assert evaluate(ex, ex.reference)[0] == "✓"


def forever(*args):
    while True:
        time.sleep(10)


def swallows_and_waits(*args):
    while True:
        try:
            time.sleep(10)
        except Exception:  # noqa: BLE001 - a learner's catch-all does not keep the limit away
            pass


# An answer defined where its code has no file: `python -c`, exec, a terminal IPython's
# "<ipython-input-...>" (the limit once skipped such frames as generated code and never fired).
_namespace: dict = {"time": time}
exec(
    compile("def forever_without_a_file(*args):\n    while True:\n        time.sleep(10)\n", "<string>", "exec"),
    _namespace,
)  # noqa: S102


def forever_compiled(*args):
    """Loops inside a compiled function: dynamo's wrapper that runs compiled code is on the stack (the
    limit once took any frame of torch/_dynamo for a compile under way and never fired)."""

    def spin(x):
        while True:
            time.sleep(10)
            x = x + 1

    return torch.compile(spin, backend="eager")(torch.zeros(1))


@pytest.mark.parametrize(
    "answer", [forever, swallows_and_waits, _namespace["forever_without_a_file"], forever_compiled]
)
def test_an_answer_that_never_returns_is_stopped(answer):
    import signal

    ex = REGISTRY.get("01.1")
    handler = signal.getsignal(signal.SIGALRM)
    start = time.monotonic()
    status, message = evaluate(ex, answer, time_limit=1.0)
    assert status == FAIL and "still running after 1 s" in message, message
    assert time.monotonic() - start < 20
    assert signal.getsignal(signal.SIGALRM) is handler and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert evaluate(ex, ex.reference, time_limit=1.0)[0] == "✓"  # the next check is unaffected


# Checks whose answers do not compile (their rules may trace an answer with dynamo or export it: seconds):
# a sleeping answer there once waited 120 s per input, 6 to 12 minutes, as if it compiled.
@pytest.mark.parametrize("exercise_id", ["09.8", "12.9", "13.4", "15.3", "17.2"])
def test_a_sleeping_answer_where_nothing_compiles_gets_the_smaller_budget(exercise_id, monkeypatch):
    from torchcourse.grading import timelimit

    ex = REGISTRY.get(exercise_id)
    assert not ex.compiles
    monkeypatch.setattr(timelimit, "SECONDS_PER_CASE", 0.2)  # both scaled down from 20 s and 120 s
    monkeypatch.setattr(timelimit, "SECONDS_PER_COMPILING_CASE", 1.2)
    start = time.monotonic()
    status, message = evaluate(ex, forever)
    took = time.monotonic() - start
    seconds = float(message.split("still running after ")[1].split(" s")[0]) if "still running" in message else None
    assert status == FAIL and seconds is not None, message
    n_inputs = round(seconds / 0.2)
    assert n_inputs >= len(ex.cases()) and seconds == pytest.approx(0.2 * n_inputs, rel=1e-2), message
    assert took < 0.2 * n_inputs + 15, f"stopped after {took:.1f} s"  # not 1.2 s per input
    assert evaluate(ex, ex.reference)[0] == "✓"


def test_a_sleeping_answer_where_the_answer_compiles_gets_the_larger_budget(monkeypatch):
    from torchcourse.grading import timelimit

    ex = REGISTRY.get("10.2")
    assert ex.compiles
    monkeypatch.setattr(timelimit, "SECONDS_PER_CASE", 0.2)
    monkeypatch.setattr(timelimit, "SECONDS_PER_COMPILING_CASE", 1.2)
    status, message = evaluate(ex, forever)
    assert status == FAIL and f"still running after {1.2 * len(ex.cases()):.3g} s" in message, message


_TORCH = os.path.dirname(torch.__file__)
_STDLIB = os.path.dirname(os.__file__)
# The Python functions through which a compile, an export, an AOTInductor build or load, or a new
# process begins: (the file, or the folder its file is in; the function's name).
_ENTRY_POINTS = {
    (os.path.join(_TORCH, "_dynamo", "convert_frame.py"), "_compile"),  # every dynamo compile, explain, strict export
    (os.path.join(_TORCH, "export", "_trace.py"), "_export"),  # every export
    (os.path.join(_TORCH, "export", "_trace.py"), "_export_for_training"),
    (os.path.join(_TORCH, "_inductor", "compile_fx.py"), "compile_fx"),  # inductor and AOTInductor
    (os.path.join(_TORCH, "_inductor", "compile_fx.py"), "compile_fx_inner"),
    (os.path.join(_TORCH, "_inductor", "compile_fx.py"), "compile_fx_aot"),
    (os.path.join(_TORCH, "_inductor", "package", "package.py"), "load_package"),  # 17.6 reuses its build
    (os.path.join(_STDLIB, "subprocess.py"), "_execute_child"),  # every subprocess.Popen
    (os.path.join(_STDLIB, "multiprocessing"), "_launch"),  # every multiprocessing start method
}


def _an_entry_point(code) -> bool:
    return (code.co_filename, code.co_name) in _ENTRY_POINTS or (
        os.path.dirname(code.co_filename),
        code.co_name,
    ) in _ENTRY_POINTS


def _compiles_or_starts_processes(fn, args) -> bool:
    """Whether ``fn(*args)`` compiles, exports, builds or loads an AOTInductor package, or starts a process:
    every Python call the main thread makes is seen (``sys.setprofile``) and held against the entry points.

    A thread sampling the main thread's frames every millisecond missed 17.6's reference on Python 3.12
    and 3.13 in CI: loading the package it had built earlier in that process was over between samples.
    Matching whole files was too wide once every call is seen: ``torch.compile(fn)`` builds dynamo's
    callbacks from convert_frame.py without compiling anything (12.8's reference)."""
    import sys

    seen: list[str] = []

    def profile(frame, event, arg):
        if event == "call" and _an_entry_point(frame.f_code):
            seen.append(frame.f_code.co_name)
            sys.setprofile(None)  # one is enough; the rest of the compile runs at full speed

    old = sys.getprofile()
    sys.setprofile(profile)
    try:
        with Isolated():
            fn(*args)
    finally:
        sys.setprofile(old)
    return bool(seen)


def test_the_compile_detector_sees_every_entry_and_nothing_else():
    """A process started and over within a millisecond is seen (a sampler missed such short events in
    CI); wrapping a function with torch.compile, which compiles nothing until it is called, is not."""
    import subprocess
    import sys

    assert _compiles_or_starts_processes(lambda: subprocess.run([sys.executable, "-c", "pass"]), ())
    assert not _compiles_or_starts_processes(lambda: torch.compile(lambda x: x + 1, backend="eager"), ())
    assert _compiles_or_starts_processes(lambda: torch.compile(lambda x: x + 1, backend="eager")(torch.ones(2)), ())
    assert not _compiles_or_starts_processes(lambda: torch.ones(2) + 1, ())


@pytest.mark.parametrize("ex", EXERCISES, ids=IDS)
def test_compiles_is_declared_where_the_reference_compiles(ex):
    """The time limit gives an input 120 s where the answer compiles (``Exercise.compiles``), 20 s elsewhere:
    the declaration must say what the reference does on the exercise's first input."""
    observed = _compiles_or_starts_processes(ex.reference, snapshot(ex.cases()[0]))
    assert ex.compiles == observed, f"{ex.id}: the reference {'compiles' if observed else 'does not compile'}"


def test_the_time_limit_never_fires_in_the_reference():
    """A budget far too small for the check: the timer fires while the check's own code or the
    reference runs, waits, and the check passes. The answer is the reference behind
    ``functools.partial``, which has no Python frame of its own: an answer written as a function that
    calls the reference has one, and the timer rightly stops it whenever it fires in that frame's
    few bytecodes (1 failure in a full fresh-clone run on 3.12, the same race as 10.2's below)."""
    ex = REGISTRY.get("00.1")
    hands_over = functools.partial(ex.reference)
    assert not hasattr(hands_over, "__code__")  # no frame of the learner's: every frame is the check's
    assert evaluate(ex, hands_over, time_limit=1e-4)[0] == "✓"


def test_the_time_limit_never_fires_in_a_compiling_reference():
    """10.2 compiles (dynamo, a counting backend) both in the course's answer and in the reference: with a
    budget far too small, the timer fires while they compile and run, waits each time, and the check passes.
    The answer hands over to the course's answer at once. Handing the reference itself in as the answer
    made its frames the learner's, and the timer then rightly stopped it whenever it fired inside the
    reference's own ``torch.compiler.reset()`` (1 failure in a full fresh-clone run; with the timer every 2 ms,
    0 to 4 firings of about 550 per run landed there, none once the answer hands over). The answer is
    ``functools.partial(count_compiles)``: a function calling it would leave a frame of its own, the learner's."""
    from torchcourse.grading.exercises.m10 import count_compiles

    ex = REGISTRY.get("10.2")

    hands_over = functools.partial(count_compiles)  # no frame of its own (see the test above)
    assert evaluate(ex, hands_over, time_limit=1e-3)[0] == "✓"


def test_a_compile_under_the_answer_is_never_taken_for_the_answer_running():
    """What the handler decides, asked at fixed points rather than wherever a timer happens to fire: in the
    answer's own frame, the answer is running; in a backend the answer gave dynamo (a frame of the answer's
    file, so the learner's) it is not, because dynamo's compile is on the stack; in inductor's inner compile,
    called straight from the answer (no dynamo), it is not either. Without the compile entry points in
    ``timelimit._COMPILING`` the last two would be the answer's, and a first compile would be cut in half."""
    import sys

    from torch._inductor.compile_fx import compile_fx, compile_fx_inner

    from torchcourse.grading.timelimit import TimeLimit

    decided: dict[str, bool] = {}

    def g(x):
        return torch.sin(x) + 1

    def backend(gm, example_inputs):
        decided["in dynamo's compile"] = limit._learner_is_running(sys._getframe())
        return gm.forward

    def inner(*args, **kwargs):
        decided["in inductor's compile"] = limit._learner_is_running(sys._getframe())
        return compile_fx_inner(*args, **kwargs)

    def answer(x):
        decided["in the answer"] = limit._learner_is_running(sys._getframe())
        torch.compile(g, backend=backend)(x)
        return compile_fx(torch.fx.symbolic_trace(g), [x], inner_compile=inner)

    limit = TimeLimit({answer.__code__})
    with Isolated():
        answer(torch.ones(8))
    assert decided == {"in the answer": True, "in dynamo's compile": False, "in inductor's compile": False}


def test_a_setting_updated_in_place_is_seen_and_put_back():
    """AOTInductor writes its device metadata into ``inductor.config.aot_inductor.metadata`` in place.
    torch's cached config dict (and ``save_config()``) keep the old value while the FX graph cache key
    reads the new one, so 17.5 after 17.6 in one process gave a right answer a miss in CI. A check must
    see such a change (the leak test compares these pictures) and put the value back."""
    import torch._inductor.config as inductor_config

    from torchcourse.grading.isolation import Isolated

    was = dict(inductor_config.aot_inductor.metadata)
    before = process_state()
    with Isolated():
        inductor_config.aot_inductor.metadata["AOTI_TEST_KEY"] = "x"  # as aoti_compile_and_package does
        assert differences(before, process_state()) == ["torch._inductor.config"]
    assert inductor_config.aot_inductor.metadata == was
    assert not differences(before, process_state())


def test_dynamo_entries_left_behind_are_a_difference_and_dropped_ones_are_not():
    """What a check compiles and keeps counts towards dynamo's recompile limit at its next run (11.7's
    9th run once lost its graph), so new entries are a difference; a check that starts from
    ``torch.compiler.reset()`` drops the learner's entries, which changes no verdict and is not one."""

    def kept(x):
        return x.cos() * 2

    compiled_before()
    before = process_state()
    torch.compile(kept, backend="eager")(torch.ones(2))
    assert "dynamo caches" in differences(before, process_state())
    torch._dynamo.reset_code(kept.__code__)
    assert "dynamo caches" not in differences(before, process_state())
    torch.compiler.reset()
    assert "dynamo caches" not in differences(before, process_state())


def test_a_check_that_swaps_an_entry_for_its_own_leaves_a_difference_and_is_forgotten():
    """A fresh reviewer's case: the learner compiled ``f`` for float32; a check resets and compiles
    ``f`` for float64. The entry count is 1 before and after, yet the float64 entry is the check's:
    entries are compared by identity, so it is a difference, and ``Isolated`` drops it."""
    from torchcourse.grading.isolation import _dynamo_codes

    def f(x):
        return x * 3

    compiled = torch.compile(f, backend="eager")
    compiled(torch.ones(2))
    before = process_state()
    with Isolated():
        torch.compiler.reset()
        compiled(torch.ones(2, dtype=torch.float64))
        assert "dynamo caches" in differences(before, process_state())
    assert "dynamo caches" not in differences(before, process_state())
    assert not _dynamo_codes().get(id(f.__code__), (None, ()))[1]  # the check's entry is gone
