"""Module 10's rules: "measure, do not guess" (10.3, 10.5) and "exactly n graphs" (10.7), each judged
by running the answer again from a fresh dynamo state and counting the graphs it compiles."""

from __future__ import annotations

import types

import torch

from torchcourse.grading.rules import Case, Rule


def _fresh(fn):
    """A copy of ``fn`` with its own code object, hence an empty dynamo cache."""
    return types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def _counter():
    from torch._dynamo.testing import CompileCounter

    return CompileCounter()


def _graphs_compiled() -> int:
    """Graphs dynamo has compiled in this process, with any backend (torch.compiler.reset() keeps the count)."""
    from torch._dynamo.utils import counters

    return counters["stats"]["unique_graphs"]


def _graphs_while(fn, args) -> int | None:
    """The graphs dynamo compiles while ``fn(*args)`` runs, or None when it raises (the first
    run already reported the answer's own errors)."""
    before = _graphs_compiled()
    try:
        fn(*args)
    except Exception:  # noqa: BLE001
        return None
    return _graphs_compiled() - before


class Measures(Rule):
    """ "Measure, do not guess", judged by behaviour: the answer runs again from a fresh dynamo state
    (``torch.compiler.reset()``) while the graphs dynamo compiles are counted, with any backend.
    An answer that measures compiles at least the graphs it reports; one that works the counts
    out from the rules compiles none. ``start_limit``: the recompile limit is set to this value
    (not the default) before the run, and must be that value after it ("leave the setting as you
    found it")."""

    name = "measured"

    def __init__(self, reported, start_limit: int | None = None) -> None:
        self.reported = reported  # (the answer's result) -> the graphs its measurement compiled
        self.start_limit = start_limit

    def judge(self, case: Case) -> str | None:
        try:
            claimed = int(self.reported(case.got))
        except Exception:  # noqa: BLE001 - the comparison already judged the result
            return None
        found = torch._dynamo.config.recompile_limit
        args = case.fresh()
        torch.compiler.reset()
        if self.start_limit is not None:
            torch._dynamo.config.recompile_limit = self.start_limit
        try:
            compiled = _graphs_while(case.fn, args)
        finally:
            after = torch._dynamo.config.recompile_limit
            torch._dynamo.config.recompile_limit = found
            torch.compiler.reset()
        if compiled is None:
            return None
        if self.start_limit is not None and after != self.start_limit:
            return (
                f"torch._dynamo.config.recompile_limit was {self.start_limit} before your function ran and "
                f"{after} after it; leave it as you found it: change it only inside "
                "`with torch._dynamo.config.patch(...)`, not by setting a value back"
            )
        if 0 <= compiled < claimed:
            return (
                f"your function reports {claimed} compiled graph{'s' if claimed != 1 else ''}, but compiled "
                f"{compiled} while it ran; measure: compile the function, call it, and count the graphs "
                "(do not work the counts out from the rules)"
            )
        return None


class GraphsCompiled(Rule):
    """ "Exactly ``expected`` graph(s)", judged by behaviour: the answer runs again on fresh inputs from a
    fresh dynamo state (``torch.compiler.reset()``) while the graphs dynamo compiles, with any backend,
    are counted. ``sizes``: (args) -> a description of the inputs, for the message."""

    name = "graphs compiled"

    def __init__(self, expected: int, sizes) -> None:
        self.expected = expected
        self.sizes = sizes

    def judge(self, case: Case) -> str | None:
        args = case.fresh()
        torch.compiler.reset()
        try:
            compiled = _graphs_while(case.fn, args)
        finally:
            torch.compiler.reset()
        if compiled is None:
            return None
        if compiled == 0:
            return "your function compiled no graph: compile fn with torch.compile and call the compiled function"
        if compiled != self.expected:
            return (
                f"your function compiled {compiled} graphs for {self.sizes(args)}; the goal is "
                f"{self.expected} graph{'s' if self.expected != 1 else ''} for all of them"
            )
        return None
