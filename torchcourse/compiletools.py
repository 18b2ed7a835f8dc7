"""torch.compile helpers for the compile lessons: capture TORCH_LOGS output, count compiles.

``TORCH_LOGS``-style logs go to stderr, which notebooks should keep quiet and nbval does
not compare. :func:`captured_logs` switches logs on for a block and collects the lines,
so a lesson can show the part that teaches (a recompile reason, generated code).
"""

from __future__ import annotations

import io
import logging
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

import torch
import torch._logging

# torch's log lines start with a glog prefix: "V1122 14:30:01.123456 4242 torch/_dynamo/guards.py:3112] [0/1] "
_PREFIX = re.compile(r"^[VIWEDC]\d{4} \d\d:\d\d:\d\d\.\d+ \d+ \S+:\d+\] (\[[^\]]*\] )*")


@dataclass
class Captured:
    """Lines logged inside a :func:`captured_logs` block, glog prefixes removed."""

    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def grep(self, pattern: str) -> list[str]:
        """Lines matching a regular expression."""
        rx = re.compile(pattern)
        return [line for line in self.lines if rx.search(line)]


def _torch_stream_handlers() -> list[logging.StreamHandler]:
    handlers = []
    names = [n for n in logging.root.manager.loggerDict if n == "torch" or n.startswith("torch.")]
    for name in names:
        logger = logging.getLogger(name)
        for h in logger.handlers:
            if isinstance(h, logging.StreamHandler) and h.stream in (sys.stderr, sys.__stderr__):
                handlers.append(h)
    return handlers


@contextmanager
def captured_logs(**settings: bool) -> Iterator[Captured]:
    """Enable torch logs (``recompiles=True``, ``output_code=True``, ``graph_breaks=True``, ...)
    for the block and collect their lines instead of printing them to stderr.

    Example::

        with captured_logs(recompiles=True) as logs:
            f(torch.ones(3, dtype=torch.float64))
        print(logs.grep("triggered by"))
    """
    buffer = io.StringIO()
    captured = Captured()
    torch._logging.set_logs(**settings)
    handlers = _torch_stream_handlers()
    old = [h.setStream(buffer) for h in handlers]
    try:
        yield captured
    finally:
        for h, stream in zip(handlers, old):
            h.setStream(stream)
        torch._logging.set_logs()  # back to the defaults
        captured.lines[:] = [_PREFIX.sub("", line) for line in buffer.getvalue().splitlines()]


def compile_counter():
    """A fresh ``torch._dynamo.testing.CompileCounter`` backend: ``.frame_count`` counts graphs
    compiled (each compile and recompile), ``.op_count`` the operations in them. It does not
    generate code, so counting is cheap; use it as ``torch.compile(fn, backend=counter)``."""
    from torch._dynamo.testing import CompileCounter

    return CompileCounter()


def compile_stats() -> dict[str, int]:
    """Counters dynamo keeps for the whole process: graphs compiled ("unique_graphs", each
    compile and recompile) and graph breaks. Zero them with :func:`reset`.

    In torch 2.13 ``counters["graph_break"]`` counts some breaks (a ``print``) but not others
    (a data-dependent ``if`` is recorded under ``counters["unimplemented"]``), so
    ``graph_breaks`` can undercount: to count breaks, count graphs (``torch._dynamo.explain``
    or a :func:`compile_counter` backend) instead."""
    from torch._dynamo.utils import counters

    return {
        "unique_graphs": int(counters["stats"]["unique_graphs"]),
        "graph_breaks": int(sum(counters["graph_break"].values())),
    }


def reset() -> None:
    """Forget every compiled graph and zero the counters: call between experiments."""
    from torch._dynamo.utils import counters

    torch.compiler.reset()
    counters.clear()
