"""The inputs of a check: sizes (smallest case first), how a failing input is shown, the
generated variants of an exercise's own cases (column-major, a first dimension of 1 or 0,
each only inside the domain the text states), independent copies, and whether an input was
changed in place. Nothing here knows about a learner's answer or calls back into the checker."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Callable

import numpy as np
import torch

from torchcourse.grading.compare import compare, describe

if TYPE_CHECKING:  # the declaration type only; checks imports this module
    from torchcourse.grading.checks import Exercise


def _show(value: Any) -> str:
    """A value as a learner wants to see it in a failing input: the numbers when there are few."""
    if isinstance(value, torch.Tensor) and value.device.type != "meta" and 0 < value.numel() <= 6:
        try:
            numbers = value.detach().cpu().flatten().tolist()
            return f"{describe(value)}, values {[round(v, 4) if isinstance(v, float) else v for v in numbers]}"
        except Exception:
            return describe(value)
    text = describe(value)
    if isinstance(value, torch.Tensor) and value.dim() >= 2 and not value.is_contiguous():
        text += ", non-contiguous"
    if isinstance(value, np.ndarray):
        text += ", negative strides (a reversed view)" if any(st < 0 for st in value.strides) else ""
        endian = {">": "big", "<": "little"}.get(value.dtype.str[0], "foreign")
        text += f", {endian}-endian (not the machine's byte order)" if not value.dtype.isnative else ""
    return text


def case_text(i: int, args: tuple) -> str:
    if not args:
        return ""
    shown = ", ".join(_show(a) for a in args[:3])
    return f" (input #{i + 1}: {shown})"


def size(args: tuple) -> int:
    """How big a case is, so that the first failing case reported is the smallest."""

    def size(v: Any) -> int:
        if isinstance(v, torch.Tensor):
            return v.numel()
        if isinstance(v, (list, tuple)):
            return sum(size(x) for x in v)
        if isinstance(v, dict):
            return sum(size(x) for x in v.values())
        return 0

    return size(args)


# Modules whose checks compile or launch processes on every case: no generated cases there.
_NO_GENERATED = {"09", "10", "11", "12", "15"}


def _column_major(v: Any) -> Any:
    if isinstance(v, torch.Tensor) and v.dim() >= 2 and v.layout == torch.strided and min(v.shape[-2:]) > 1:
        w = v.detach().mT.contiguous().mT
        return w.requires_grad_(v.requires_grad) if v.is_leaf and v.requires_grad else w
    return v


def _first_rows(n: int) -> Callable[[Any], Any]:
    def cut(v: Any) -> Any:
        if isinstance(v, torch.Tensor) and v.dim() >= 1 and v.shape[0] > n and v.layout == torch.strided:
            w = v.detach()[:n].clone()
            return w.requires_grad_(v.requires_grad) if v.is_leaf and v.requires_grad else w
        return v

    return cut


_VARIANTS = (
    (_column_major, "the same values, non-contiguous (column-major)"),
    (_first_rows(1), "a first dimension of size 1"),
    (_first_rows(0), "a first dimension of size 0"),
)


def generated_cases(ex: Exercise, cases: list[tuple]) -> list[tuple[tuple, str]]:
    """Adversarial variants of the smallest case that has a tensor: each a (args, label) pair.
    A variant that changes nothing is left out."""
    if not ex.generated or ex.id.split(".")[0] in _NO_GENERATED:
        return []
    base = next((c for c in cases if any(isinstance(a, torch.Tensor) for a in c)), None)
    if base is None:
        return []
    empty_covered = any(isinstance(a, torch.Tensor) and a.numel() == 0 for c in cases for a in c)
    out = []
    for change, label in _VARIANTS:
        if "size 0" in label and not empty_covered:
            continue  # the text never asks for empty input: do not test it
        try:
            args = tuple(change(a) for a in base)
            inside = ex.domain is None or bool(ex.domain(*args))
        except Exception:
            continue
        if inside and any(a is not b for a, b in zip(args, base)):
            out.append((args, label))
    return out


def snapshot(args: tuple) -> tuple:
    """An independent copy of the arguments that keeps sharing *between* them (views stay views)."""
    try:
        return copy.deepcopy(args, _reversed_arrays(args, {}))
    except Exception:  # e.g. non-leaf tensors that require grad
        return tuple(a.detach().clone() if isinstance(a, torch.Tensor) else copy.deepcopy(a) for a in args)


def _reversed_arrays(value: Any, memo: dict) -> dict:
    """A deepcopy memo holding a copy of each NumPy array with a negative stride that keeps those strides
    negative: NumPy's own deepcopy makes them positive, so an answer would never see the ``a[::-1]`` the
    text covers (``torch.from_numpy`` refuses it)."""
    if isinstance(value, (list, tuple)):
        for v in value:
            _reversed_arrays(v, memo)
    elif isinstance(value, dict):
        for v in value.values():
            _reversed_arrays(v, memo)
    elif isinstance(value, np.ndarray) and any(s < 0 for s in value.strides):
        flip = tuple(slice(None, None, -1) if s < 0 else slice(None) for s in value.strides)
        memo[id(value)] = value[flip].copy(order="K")[flip]
        memo.setdefault(id(memo), []).append(value)  # as deepcopy does: the original outlives the memo
    return memo


def _plain_data(v: Any) -> bool:
    """Tensors, numbers, strings and containers of them: values whose change a check can see."""
    if isinstance(v, (torch.Tensor, int, float, complex, str, bytes, type(None))):
        return True
    if isinstance(v, (list, tuple)):
        return all(_plain_data(x) for x in v)
    if isinstance(v, dict):
        return all(_plain_data(x) for x in v.values())
    return False


def changed(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor):
        return compare(a, b, rtol=0, atol=0) is not None
    if isinstance(a, (list, tuple, dict)) and _plain_data(b):
        return compare(a, b, rtol=0, atol=0) is not None
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):  # a NumPy input (04.1) must stay as it was
        if a.dtype != b.dtype or a.shape != b.shape:
            return True
        return not np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    return False
