"""Which torch functions and aten operations an answer calls: the recorders and the
:class:`Calls` rule (required and forbidden names or whole families from ``families.py``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from torchcourse.grading.base import Case, Rule
from torchcourse.grading.families import FAMILIES
from torchcourse.grading.growth import plain_cond

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


def aten_ops(fn: Callable[..., Any], args: tuple) -> int:
    """How many aten operations ``fn(*args)`` dispatches through Python (a TorchDispatchMode): a
    program run by Python dispatches each of its operations; compiled code that runs outside
    Python (an AOTInductor package) and reading a program's metadata dispatch none."""
    calls: list[str] = []
    with _AtenRecorder(calls):
        fn(*args)
    return len(calls)


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
