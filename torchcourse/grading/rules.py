"""Constraint rules: the part of a check that grades *how* an answer works, not only its values.

An exercise that says "return a view", "no autograd history", "without the int64 copy",
"never build a temporary longer than chunk", "one graph with torch.cond" or "no Python loop"
lists one :class:`Rule` per constraint in ``Exercise(rules=[...])``. Each rule judges one
input case and returns ``None`` (kept) or one line that names the constraint and says what to
change. Rules never raise: anything odd about the answer is the comparison's to report.

This module is the catalogue an exercise declaration imports from: the result and memory rules
live here, the call rules in ``calls.py``, the compiled-graph rules in ``graphs.py``, the loop
rule's measurements in ``growth.py``; the base classes in ``base.py``.

Rules that need to watch the answer run (memory, calls, compiled graphs) call it again on a
fresh copy of the case's inputs, so what they see is not disturbed by the first call.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Callable

import torch

from torchcourse.grading.base import Case, Rule, _tensors
from torchcourse.grading.calls import Calls, recorded_calls
from torchcourse.grading.compare import shares_memory
from torchcourse.grading.graphs import Graph, GraphFacts, graph_facts
from torchcourse.grading.growth import directions, growth, tiled

__all__ = [  # the catalogue: every rule an exercise declaration may list, and the helpers they share
    "Calls",
    "Case",
    "Graph",
    "GraphFacts",
    "Holds",
    "IsCopy",
    "IsView",
    "MemoryLimit",
    "NewObject",
    "NoGradHistory",
    "NoLoop",
    "Rule",
    "allocations",
    "below_bytes_per_element",
    "graph_facts",
    "peak_bytes",
    "recorded_calls",
]

# ------------------------------------------------------------------ results: view, copy, grad, identity


@dataclass
class Holds(Rule):
    """A stated property of the result on every case: ``test(args, got)`` returns the message
    when the property fails (a Python int was asked for, the output is the argument given,
    ...), or None. Judged after the comparison, like every rule that is not ``early``."""

    test: Callable[[tuple, Any], str | None]
    name = "a stated property"

    def judge(self, case: Case) -> str | None:
        return self.test(case.args, case.got)


@dataclass
class IsView(Rule):
    """The result shares bytes with argument ``arg`` (judged by memory overlap, so a view
    built through NumPy counts, and an empty result has nothing to share)."""

    arg: int = 0
    name = "a view"

    def judge(self, case: Case) -> str | None:
        got, src = case.got, case.args[self.arg]
        if not isinstance(got, torch.Tensor) or got.numel() == 0:
            return None
        if not shares_memory(got, src):
            return "the values are right but the result is a copy; return a view that shares the input's memory"
        return None


@dataclass
class IsCopy(Rule):
    """The result shares no byte with argument ``arg``."""

    arg: int = 0
    name = "a copy"

    def judge(self, case: Case) -> str | None:
        if any(shares_memory(t, case.args[self.arg]) for t in _tensors(case.got)):
            return "the result shares memory with the input (a view): writing to it would change the input; copy it"
        return None


class NoGradHistory(Rule):
    """No tensor in the result requires grad or carries a ``grad_fn``."""

    name = "no autograd history"

    def judge(self, case: Case) -> str | None:
        for t in _tensors(case.got):
            if t.requires_grad or t.grad_fn is not None:
                return (
                    "the result carries autograd history (requires_grad=True on this input); detach() it so it has none"
                )
        return None


@dataclass
class NewObject(Rule):
    """The result is a new object, not argument ``arg`` handed back."""

    arg: int = 0
    what: str = "object"
    name = "a new object"
    early = True

    def judge(self, case: Case) -> str | None:
        if case.got is case.args[self.arg]:
            return (
                f"you returned the {self.what} you were given; build and return a new {self.what}, "
                "leave the argument alone"
            )
        return None


# ------------------------------------------------------------------ memory


def allocations(fn: Callable[[], object]) -> list[int]:
    """The CPU allocator's events while ``fn()`` runs, in order: +bytes allocated, -bytes freed.

    Read from torch.profiler's event tree (the profiler sees every allocation torch makes,
    including the temporaries inside one operation, such as the int64 copy inside an int8 sum).
    """
    from torchcourse.profiling import profile_memory

    prof = profile_memory(fn)
    found: list[tuple[int, int]] = []
    stack = list(prof.profiler.kineto_results.experimental_event_tree())
    while stack:
        node = stack.pop()
        if node.tag == torch._C._profiler._EventType.Allocation:
            found.append((node.start_time_ns, int(node.extra_fields.alloc_size)))
        stack.extend(node.children)
    return [size for _, size in sorted(found)]


def peak_bytes(events: list[int]) -> int:
    """Most bytes live at once (counting only what was allocated during the run)."""
    live = peak = 0
    for size in events:
        live += size
        peak = max(peak, live)
    return peak


@dataclass
class MemoryLimit(Rule):
    """Bytes allocated while the answer runs stay within ``limit(args)``.

    ``measure="peak"``: most bytes live at once; ``"largest"``: the largest single block
    (a temporary of a given length). ``message`` is formatted with ``{measured}``, ``{limit}``.
    """

    limit: Callable[[tuple], int | None]
    message: str
    measure: str = "peak"
    name = "memory"

    def judge(self, case: Case) -> str | None:
        limit = self.limit(case.args)
        if limit is None:
            return None
        args = case.fresh()
        try:
            events = allocations(lambda: case.fn(*args))
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        measured = peak_bytes(events) if self.measure == "peak" else max([e for e in events if e > 0], default=0)
        if measured > limit:
            return self.message.format(measured=f"{measured:,}", limit=f"{limit:,}")
        return None


# ------------------------------------------------------------------ loops, by behaviour


@dataclass
class NoLoop(Rule):
    """No Python loop over the data, judged by behaviour (:mod:`torchcourse.grading.growth`): the answer
    runs on the case's data repeated 1, 2 and 4 times, and the ops it dispatches, the lines of its
    own Python and the numbers it moves into Python must not grow.

    The case grows in every direction it has (:func:`torchcourse.grading.growth.directions`): along each
    dimension of its tensors and by its int arguments (a number of classes or segments), so a loop
    over rows, columns, classes or values is seen. ``grow(args, k)`` replaces them with one
    exercise-specific growth, and ``which`` limits the tiling to some arguments. A growth is used
    only where the reference accepts the grown inputs and does constant work on them, so a case
    the growth makes invalid (a permutation, a square matrix) is skipped rather than misjudged.
    """

    which: tuple[int, ...] | None = None
    grow: Callable[[tuple, int], tuple] | None = None
    name = "no Python loop"

    def _directions(self, args: tuple) -> list[tuple[str, Callable[[tuple, int], tuple]]]:
        if self.grow is not None:
            return [("rows", self.grow)]
        if self.which is not None:
            return [("rows", lambda a, k: tiled(a, k, self.which))]
        return directions(args)

    def judge(self, case: Case) -> str | None:
        if not any(isinstance(a, torch.Tensor) and a.numel() for a in case.args):
            return None
        for unit, grow in self._directions(case.args):
            grew = self._grew(case, unit, grow)
            if grew:
                break
        else:
            return None
        if grew:
            return (
                f"your function loops over the data: {grew} (a vectorised answer does the same work at "
                "every size); the task asks for no Python loop (for, map, filter, a comprehension, "
                "recursion or a helper that loops): use tensor operations on the whole input"
            )
        return None

    @staticmethod
    def _grew(case: Case, unit: str, grow: Callable[[tuple, int], tuple]) -> str | None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if case.reference is not None:
                try:
                    if growth(case.reference, case.fresh, grow, unit=unit).grew():
                        return None  # this growth changes more than the amount of data: not a fair test
                except Exception:  # noqa: BLE001 - the grown inputs are outside the task's domain
                    return None
            try:
                return growth(case.fn, case.fresh, grow, unit=unit).grew()
            except Exception:  # noqa: BLE001 - the values were judged already; an error here is not a loop
                return None


def below_bytes_per_element(bytes_per_element: int, message: str, arg: int = 0, min_numel: int = 64) -> MemoryLimit:
    """Peak memory stays below ``bytes_per_element`` times the elements of argument ``arg``:
    e.g. 8 for "no int64 copy of the input". Inputs under ``min_numel`` elements are too small
    for the count to mean anything (the result itself may be as large)."""

    def limit(args: tuple) -> int | None:
        t = args[arg]
        if not isinstance(t, torch.Tensor) or t.numel() < min_numel:
            return None
        return bytes_per_element * t.numel() - 1

    return MemoryLimit(limit=limit, message=message)
