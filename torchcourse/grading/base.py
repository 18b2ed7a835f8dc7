"""What every rule is: a :class:`Rule` judges one :class:`Case` (the learner's function, the
arguments it was called with, what it returned, and a fresh copy of the inputs for a second run)
and returns ``None`` or one line. The rules themselves are listed in ``rules.py``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

import torch


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
