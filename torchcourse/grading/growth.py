"""What an answer does, counted, so that a loop is seen by its behaviour and not by its spelling.

A Python loop over the data is work that grows with the input. Whatever spells it (``for``,
``while``, a comprehension, ``map``, ``filter``, ``sum`` over a generator, recursion, a helper
function, a loop that ``torch.compile`` would unroll), running the same answer on the same data
repeated 1, 2 and 4 times makes at least one of these counts grow:

* the aten operations it dispatches (a :class:`~torch.utils._python_dispatch.TorchDispatchMode`
  sees every one, also those issued from inside a library function);
* the lines of its own Python that run (``sys.settrace``; lines inside torch, NumPy, the standard
  library and this package are not counted, the learner's helpers and lambdas are);
* the numbers it moves into Python (``tolist`` counts its elements, ``item``/``float``/``int`` one),
  which catches ``sum(t.tolist())``: a loop run by a C builtin, invisible to the other two.

A vectorised answer does the same constant work at every size. ``torch.compile``'d answers are run
with ``set_stance("force_eager")`` so that what they would unroll is counted too.
"""

from __future__ import annotations

import collections
import contextlib
import os
import sys
import sysconfig
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence

import torch
from torch.utils._python_dispatch import TorchDispatchMode


def _dir_of(module: str) -> str | None:
    mod = sys.modules.get(module)
    path = getattr(mod, "__file__", None)
    return os.path.dirname(os.path.abspath(path)) + os.sep if path else None


def _library_dirs() -> tuple[str, ...]:
    dirs = {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["platstdlib"]}
    for module in ("torch", "numpy", "torchcourse", "functorch", "sympy", "typing_extensions"):
        d = _dir_of(module)
        if d:
            dirs.add(d)
    return tuple(os.path.abspath(d) + os.sep for d in dirs if d)


_LIBRARY_DIRS: tuple[str, ...] | None = None
# Python scalars made from one tensor element each
_TO_PYTHON_ONE = {"item", "__float__", "__int__", "__bool__", "__index__", "__complex__"}


@dataclass
class Work:
    """What one call did."""

    ops: collections.Counter = field(default_factory=collections.Counter)  # aten op -> times dispatched
    lines: int = 0  # lines of the answer's own Python run
    to_python: int = 0  # tensor elements turned into Python numbers

    @property
    def total(self) -> int:
        return sum(self.ops.values()) + self.lines + self.to_python


def _is_library(filename: str) -> bool:
    global _LIBRARY_DIRS
    if _LIBRARY_DIRS is None:
        _LIBRARY_DIRS = _library_dirs()
    if filename.startswith("<frozen") or filename.startswith("<built-in"):
        return True
    return os.path.abspath(filename).startswith(_LIBRARY_DIRS) if os.sep in filename else False


class _Ops(TorchDispatchMode):
    def __init__(self, work: Work) -> None:
        super().__init__()
        self.work = work

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.work.ops[f"aten::{func.overloadpacket.__name__}"] += 1
        return func(*args, **(kwargs or {}))


class _ToPython(torch.overrides.TorchFunctionMode):
    def __init__(self, work: Work) -> None:
        super().__init__()
        self.work = work

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name == "tolist" and args and isinstance(args[0], torch.Tensor):
            self.work.to_python += args[0].numel()
        elif name in _TO_PYTHON_ONE:
            self.work.to_python += 1
        return func(*args, **(kwargs or {}))


@contextlib.contextmanager
def plain_cond(count: Callable[[], None]) -> Iterator[None]:
    """While recording under our own function and dispatch modes, ``torch.cond`` runs with those
    two modes popped (and ``count()`` called once): cond traces its branches with dynamo, which
    fails under a mode and leaves dynamo's cache for cond broken for the learner's next call."""
    from torch.utils import _python_dispatch

    original = torch.cond

    def cond(*args: Any, **kwargs: Any) -> Any:
        count()
        with torch.overrides._pop_mode_temporarily(), _python_dispatch._pop_mode_temporarily():
            return original(*args, **kwargs)

    torch.cond = cond
    try:
        yield
    finally:
        torch.cond = original


def work_done(fn: Callable[..., Any], args: tuple) -> Work:
    """Run ``fn(*args)`` once and count what it did (see the module's docstring). Raises what ``fn`` raises."""
    work = Work()

    def tracer(frame, event, arg):
        if _is_library(frame.f_code.co_filename):
            return None
        if event == "line":
            work.lines += 1
        return tracer

    old = sys.gettrace()

    def cond_seen() -> None:
        work.ops["torch.cond"] += 1

    with torch.compiler.set_stance("force_eager"), _ToPython(work), _Ops(work), plain_cond(cond_seen):
        sys.settrace(tracer)
        try:
            fn(*args)
        finally:
            sys.settrace(old)
    return work


def tiled(args: tuple, k: int, which: Sequence[int] | None = None, dim: int = 0) -> tuple:
    """``args`` with each tensor argument (or those at positions ``which``) repeated ``k`` times
    along dimension ``dim`` (where it has one): the same data, ``k`` times as much of it."""
    out = []
    for i, a in enumerate(args):
        if (
            isinstance(a, torch.Tensor)
            and a.layout == torch.strided
            and a.dim() > dim
            and a.shape[dim] >= 1
            and (which is None or i in which)
        ):
            reps = [1] * a.dim()
            reps[dim] = k
            t = a.detach().repeat(*reps)
            out.append(t.requires_grad_(a.requires_grad) if a.is_floating_point() or a.is_complex() else t)
        else:
            out.append(a)
    return tuple(out)


def ints_scaled(args: tuple, k: int) -> tuple:
    """``args`` with every positive int argument multiplied by ``k`` (a number of classes,
    segments or steps grows), the tensors unchanged."""
    return tuple(a * k if isinstance(a, int) and not isinstance(a, bool) and a > 0 else a for a in args)


def directions(args: tuple) -> list[tuple[str, Callable[[tuple, int], tuple]]]:
    """The ways the same case can grow: along each dimension of its tensors, and its int sizes."""
    dims = max((a.dim() for a in args if isinstance(a, torch.Tensor)), default=0)
    out: list[tuple[str, Callable[[tuple, int], tuple]]] = [
        ("rows" if d == 0 else "columns" if d == 1 else f"entries along dim {d}", lambda a, k, d=d: tiled(a, k, dim=d))
        for d in range(dims)
    ]
    if any(isinstance(a, int) and not isinstance(a, bool) and a > 0 for a in args):
        out.append(("int", ints_scaled))
    return out


@dataclass
class Growth:
    """The work an answer did at each scale, and the first count that grew at every step."""

    scales: list[int]
    sizes: list[int]  # the first grown argument's first dimension at each scale
    work: list[Work]
    unit: str = "rows"  # what grew: "rows", "columns", ...

    def grew(self) -> str | None:
        """A sentence naming what grew with the input, or None when nothing did."""
        totals = [w.total for w in self.work]
        if not all(b > a for a, b in zip(totals, totals[1:])):
            return None
        sizes = ", ".join(map(str, self.sizes))
        on = (
            f"with its int arguments {sizes} times as large"
            if self.unit == "int"
            else f"on inputs of {sizes} {self.unit}"
        )
        growing = [
            op for op in self.work[-1].ops if all(b.ops[op] > a.ops[op] for a, b in zip(self.work, self.work[1:]))
        ]
        if growing:
            op = max(growing, key=lambda o: self.work[-1].ops[o])
            counts = ", ".join(str(w.ops[op]) for w in self.work)
            return f"{op} ran {counts} times {on}"
        if all(b.lines > a.lines for a, b in zip(self.work, self.work[1:])):
            counts = ", ".join(str(w.lines) for w in self.work)
            return f"your own Python ran {counts} lines {on}"
        if all(b.to_python > a.to_python for a, b in zip(self.work, self.work[1:])):
            counts = ", ".join(str(w.to_python) for w in self.work)
            return f"{counts} tensor elements became Python numbers (tolist/item) {on}"
        counts = ", ".join(map(str, totals))
        return f"your function did {counts} steps (ops dispatched + Python lines) {on}"


def _grown_sizes(grown: list[tuple]) -> list[int]:
    """At each scale, the size of the first dimension that grew (of the first argument that grew)."""
    first, last = grown[0], grown[-1]
    for i, b in enumerate(last):
        a = first[i]
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape != b.shape and a.dim() == b.dim():
            d = next(d for d in range(b.dim()) if a.shape[d] != b.shape[d])
            return [args[i].shape[d] for args in grown]
    tensors = [i for i, b in enumerate(last) if isinstance(b, torch.Tensor) and b.dim() >= 1]
    return [args[tensors[0]].shape[0] for args in grown] if tensors else [0] * len(grown)


def growth(
    fn: Callable[..., Any],
    fresh: Callable[[], tuple],
    grow: Callable[[tuple, int], tuple],
    scales: Sequence[int] = (1, 2, 4),
    unit: str = "rows",
) -> Growth:
    """Run ``fn`` on ``grow(fresh(), k)`` for each scale ``k`` and count its work. Raises what ``fn`` raises."""
    grown = [grow(fresh(), k) for k in scales]
    fn(*grow(fresh(), scales[0]))  # warm-up: first calls fill caches (imports, dispatch tables)
    works = [work_done(fn, args) for args in grown]
    sizes = list(scales) if unit == "int" else _grown_sizes(grown)
    return Growth(list(scales), sizes, works, unit)
