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

    def require(self, pattern: str, what: str = "") -> list[str]:
        """Lines matching ``pattern``; raise :class:`NothingCaptured` when there are none.

        Use it wherever a cell prints a fact read from the logs: an empty list would print a
        wrong fact ("0 kernels") instead of saying that the logs were not captured."""
        found = self.grep(pattern)
        if not found:
            raise NothingCaptured(
                f"no captured log line matches {pattern!r}"
                + (f" ({what})" if what else "")
                + f"; {len(self.lines)} line(s) were captured. This torch may word its logs "
                "differently, or its log handlers were not captured."
            )
        return found


class NothingCaptured(RuntimeError):
    """A cell expected torch to log something inside :func:`captured_logs` and it did not."""


def _writes_to_stderr(handler: logging.Handler) -> bool:
    """Whether ``handler`` writes to the process's stderr, whatever its class.

    torch 2.13 logs through plain ``logging.StreamHandler`` objects; torch 2.15 through its own
    ``logging.Handler`` subclass whose stream follows the current ``sys.stderr``. What they
    share is the stream they write to, so that is what decides."""
    try:
        stream = getattr(handler, "stream", None)
    except Exception:
        return False
    return stream is not None and stream in (sys.stderr, sys.__stderr__)


def _torch_loggers() -> list[logging.Logger]:
    names = [n for n in logging.root.manager.loggerDict if n == "torch" or n.startswith("torch.")]
    return [logging.getLogger(n) for n in sorted(names)]


def _swap_stderr_handlers(buffer: io.StringIO) -> list[tuple[logging.Logger, int, logging.Handler]]:
    """Replace every torch handler that writes to stderr by one that writes to ``buffer`` with
    the same formatter, level and filters; return what to put back."""
    swapped = []
    for logger in _torch_loggers():
        for i, h in enumerate(list(logger.handlers)):
            if _writes_to_stderr(h):
                twin = logging.StreamHandler(buffer)
                twin.setLevel(h.level)
                twin.setFormatter(h.formatter)
                for f in h.filters:
                    twin.addFilter(f)
                logger.handlers[i] = twin
                swapped.append((logger, i, h))
    return swapped


@contextmanager
def captured_logs(**settings: bool) -> Iterator[Captured]:
    """Enable torch logs (``recompiles=True``, ``output_code=True``, ``graph_breaks=True``, ...)
    for the block and collect their lines instead of printing them to stderr.

    Torch's handlers are chosen by the stream they write to (stderr), not by their class, and
    replaced for the block by handlers on a buffer that keep their formatter, level and filters;
    Python-level writes to ``sys.stderr`` inside the block (dynamo's warnings) land in the
    buffer too. A cell that reads a fact from the logs uses :meth:`Captured.require`, which
    fails loudly when nothing was captured.

    Example::

        with captured_logs(recompiles=True) as logs:
            f(torch.ones(3, dtype=torch.float64))
        print(logs.require("triggered by", "the recompile reason"))
    """
    buffer = io.StringIO()
    captured = Captured()
    real_stderr = sys.stderr
    swapped: list[tuple[logging.Logger, int, logging.Handler]] = []
    try:
        torch._logging.set_logs(**settings)
        swapped = _swap_stderr_handlers(buffer)
        sys.stderr = buffer  # handlers that follow the current sys.stderr, and warnings, land here
        yield captured
    finally:
        sys.stderr = real_stderr
        for logger, i, h in reversed(swapped):
            if i < len(logger.handlers):
                logger.handlers[i] = h
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
