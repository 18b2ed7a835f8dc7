"""Constraint rules: the part of a check that grades *how* an answer works, not only its values.

An exercise that says "return a view", "no autograd history", "without the int64 copy",
"never build a temporary longer than chunk", "one graph with torch.cond" or "no Python loop"
lists one :class:`Rule` per constraint in ``Exercise(rules=[...])``. Each rule judges one
input case and returns ``None`` (kept) or one line that names the constraint and says what to
change. Rules never raise: anything odd about the answer is the comparison's to report.

Rules that need to watch the answer run (memory, calls, compiled graphs) call it again on a
fresh copy of the case's inputs, so what they see is not disturbed by the first call.
"""

from __future__ import annotations

import inspect
import types
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from torchcourse.grading.compare import shares_memory
from torchcourse.grading.families import FAMILIES
from torchcourse.grading.growth import directions, growth, plain_cond, tiled


@dataclass
class Case:
    """What a rule may look at for one input case."""

    fn: Callable[..., Any]  # the learner's function
    args: tuple  # the arguments the learner's function was called with (after the call)
    got: Any  # what it returned
    fresh: Callable[[], tuple]  # a new, independent copy of the case's inputs, for a second run
    reference: Callable[..., Any] | None = None  # the exercise's reference answer, for rules that need it


class Rule:
    """One stated constraint. ``early`` rules run before the values are compared."""

    name = "rule"
    early = False
    every_case = True  # False: judged on the first (smallest) case only, e.g. a compile

    def judge(self, case: Case) -> str | None:  # pragma: no cover - interface
        raise NotImplementedError


def _tensors(value: Any) -> Iterable[torch.Tensor]:
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _tensors(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _tensors(v)


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


# ------------------------------------------------------------------ calls


class _Recorder(torch.overrides.TorchFunctionMode):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.calls.append(getattr(func, "__name__", str(func)))
        return func(*args, **(kwargs or {}))


class _AtenRecorder(TorchDispatchMode):
    def __init__(self, calls: list[str]) -> None:
        super().__init__()
        self.calls = calls

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls.append(f"aten::{func.overloadpacket.__name__}")
        return func(*args, **(kwargs or {}))


def recorded_calls(fn: Callable[..., Any], args: tuple) -> list[str]:
    """Names of the torch functions and tensor methods ``fn(*args)`` calls (a TorchFunctionMode),
    and of the aten operations they dispatch, as ``aten::name`` (a TorchDispatchMode)."""
    with _Recorder() as rec, _AtenRecorder(rec.calls), plain_cond(lambda: rec.calls.append("cond")):
        fn(*args)
    return rec.calls


def _spelled(names: Iterable[str]) -> str:
    shown = sorted(n for n in names if not n.startswith("aten::"))[:6]
    return ", ".join(shown) + (", ..." if len(shown) == 6 else "")


@dataclass
class Calls(Rule):
    """The answer calls every name in ``require``, at least one name of each family in
    ``require_any`` (a family of :data:`FAMILIES`, or a set of names), and nothing in ``forbid``
    (names or family names: ``forbid=("inverse",)`` forbids every inverse)."""

    require: tuple[str, ...] = ()
    forbid: tuple[str, ...] = ()
    why: str = ""
    require_any: tuple[str, ...] = ()
    name = "calls"

    def judge(self, case: Case) -> str | None:
        try:
            calls = set(recorded_calls(case.fn, case.fresh()))
        except Exception:  # noqa: BLE001
            return None
        for name in self.require:
            if name not in calls and f"aten::{name}" not in calls:
                return f"your function never calls {name}; {self.why or 'the task asks for it'}"
        for fam in self.require_any:
            if not calls & FAMILIES.get(fam, frozenset()):
                why = self.why or "the task asks for it"
                return f"your function never calls any {fam} ({_spelled(FAMILIES[fam])}); {why}"
        for name in self.forbid:
            names = FAMILIES.get(name, frozenset({name}))
            hit = sorted(calls & names)
            if hit:
                what = hit[0] if name not in FAMILIES else f"{hit[0]} (a {name})"
                return f"your function calls {what}; {self.why or 'the task forbids it'}"
        return None


# ------------------------------------------------------------------ compiled graphs


@dataclass
class GraphFacts:
    graphs: int = 0  # graphs compiled over all calls
    breaks: int = 0  # graph breaks
    recompiles: int = 0  # graphs compiled after the first call
    ops: list[str] = field(default_factory=list)  # every call_function target, subgraphs included
    error: str | None = None  # what compiling raised (e.g. fullgraph=True at a break)


def _fresh_code(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with its own code object: dynamo caches per code object, so every count starts at zero."""
    if isinstance(fn, types.FunctionType):
        return types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    return fn


def graph_facts(fn: Callable[..., Any], calls: list[tuple], fullgraph: bool = False) -> GraphFacts:
    """Compile ``fn`` with a counting backend (no code generation) and call it on each args tuple."""
    from torch._dynamo.utils import counters

    from torchcourse.compiletools import captured_logs

    facts = GraphFacts()
    graphs: list[torch.fx.GraphModule] = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(_fresh_code(inspect.unwrap(fn)), backend=backend, fullgraph=fullgraph)
    breaks_before = sum(counters["graph_break"].values())
    try:
        with captured_logs():
            for i, args in enumerate(calls):
                compiled(*args)
                if i == 0:
                    first = len(graphs)
    except Exception as exc:  # noqa: BLE001 - reported as a fact
        facts.error = f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"
        first = len(graphs)
    facts.graphs = len(graphs)
    facts.recompiles = len(graphs) - first
    facts.breaks = sum(counters["graph_break"].values()) - breaks_before
    for gm in graphs:
        for mod in gm.modules():
            if isinstance(mod, torch.fx.GraphModule):
                facts.ops += [
                    getattr(n.target, "__name__", str(n.target)) for n in mod.graph.nodes if n.op == "call_function"
                ]
    return facts


@dataclass
class Graph(Rule):
    """Facts about the compiled graph of the answer: one graph (no break), and ops it must contain."""

    max_graphs: int | None = 1
    contains: tuple[str, ...] = ()
    how: str = ""
    name = "compiled graph"
    every_case = False

    def judge(self, case: Case) -> str | None:
        facts = graph_facts(case.fn, [case.fresh()], fullgraph=self.max_graphs == 1)
        if facts.error:
            return (
                f"your function does not compile into one graph ({facts.error}); "
                "remove the Python branch on tensor values"
            )
        if self.max_graphs is not None and facts.graphs > self.max_graphs:
            return f"your function compiles into {facts.graphs} graphs ({facts.breaks} graph breaks); make it one graph"
        for op in self.contains:
            if op not in facts.ops:
                return f"the compiled graph has no {op}; {self.how or f'use {op}'}"
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
