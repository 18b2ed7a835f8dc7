"""Compare a learner's value with a reference value and say *how* they differ.

A check is only useful when its message tells the learner what to fix, so every
comparison returns either ``None`` (the values agree) or one short sentence such as
``expected shape (4, 3), got (3, 4)``. Nothing here raises: odd values (None, lists,
NumPy arrays, tensors on another device) become a message, never a traceback.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch


def describe(value: Any) -> str:
    """A short description of a value: type, and shape/dtype/device for arrays."""
    try:
        if isinstance(value, torch.Tensor):
            return f"tensor of shape {tuple(value.shape)}, {value.dtype}, on {value.device}"
        if isinstance(value, np.ndarray):
            return f"NumPy array of shape {value.shape}, dtype {value.dtype}"
        if value is None:
            return "None"
        if isinstance(value, (list, tuple)):
            return f"{type(value).__name__} of length {len(value)}"
        if isinstance(value, (bool, int, float, complex, str, torch.dtype, torch.device)):
            text = repr(value)
            return text if len(text) <= 40 else text[:37] + "..."
        return type(value).__name__
    except Exception:  # a broken __repr__ must not break a check
        return type(value).__name__


def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.6g}"
    return repr(x)


def _fmt_got(x: Any, limit: int = 160) -> str:
    """The answer's value, cut to ``limit`` characters: a long string (the repr of an object that
    holds a traceback or a file path, say) would otherwise fill the check's one line."""
    text = _fmt(x)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _compare_tensors(
    got: torch.Tensor, exp: torch.Tensor, rtol: float, atol: float, check_dtype: bool, where: str
) -> str | None:
    if got.device != exp.device:
        return f"{where}expected a tensor on {exp.device}, got one on {got.device}"
    if tuple(got.shape) != tuple(exp.shape):
        return f"{where}expected shape {tuple(exp.shape)}, got {tuple(got.shape)}"
    if check_dtype and got.dtype != exp.dtype:
        return f"{where}expected dtype {exp.dtype}, got {got.dtype}"
    if exp.device.type == "meta":  # a meta tensor has a shape and dtype but no values
        return None
    if got.layout != torch.strided or exp.layout != torch.strided:
        got, exp = got.to_dense(), exp.to_dense()
    g, e = got.detach(), exp.detach()
    if g.dtype != e.dtype:  # dtype not checked: compare in the wider type
        common = torch.promote_types(g.dtype, e.dtype)
        g, e = g.to(common), e.to(common)
    if g.numel() == 0:
        return None
    if g.is_floating_point() or g.is_complex():
        close = torch.isclose(g, e, rtol=rtol, atol=atol, equal_nan=True)
    else:
        close = g == e
    if bool(close.all()):
        return None
    bad = (~close).nonzero()
    first = tuple(int(i) for i in bad[0])
    gv, ev = g[first].item(), e[first].item()
    msg = (
        f"{where}values differ at {bad.shape[0]} of {g.numel()} positions; "
        f"first at index {first if len(first) != 1 else first[0]}: expected {_fmt(ev)}, got {_fmt(gv)}"
    )
    if g.is_floating_point():
        diff = (g.double() - e.double()).abs()
        nan_got = int((torch.isnan(g) & ~torch.isnan(e)).sum())
        finite = diff[~torch.isnan(diff)]
        if nan_got:
            msg += f" ({nan_got} nan value{'s' if nan_got != 1 else ''} where numbers were expected)"
        elif finite.numel():
            msg += f" (largest difference {finite.max().item():.3g})"
    return msg


def compare(
    got: Any, expected: Any, *, rtol: float = 1e-5, atol: float = 1e-6, check_dtype: bool = True, where: str = ""
) -> str | None:
    """Return ``None`` when ``got`` matches ``expected``, else a one-line reason.

    Tensors are compared by device, shape, dtype (unless ``check_dtype=False``),
    then values (``isclose`` for floats, equality otherwise). NumPy arrays, numbers,
    tuples/lists, dicts, dtypes and strings are compared structurally.
    """
    try:
        return _compare(got, expected, rtol, atol, check_dtype, where)
    except Exception as exc:  # pragma: no cover - last line of defence
        return f"{where}could not compare {describe(got)} with {describe(expected)} ({type(exc).__name__}: {exc})"


def _same_kind_of_value(got: Any, exp: Any) -> bool:
    """A string or boolean of another Python type that holds the same kind of value: a
    ``numpy.str_`` (a ``str`` subclass) for a ``str``, a ``numpy.bool_`` for a ``bool``."""
    if isinstance(exp, bool):
        return isinstance(got, np.bool_)
    return isinstance(got, str) and type(got) is not str


def _compare(got: Any, exp: Any, rtol: float, atol: float, check_dtype: bool, where: str) -> str | None:
    if isinstance(exp, torch.Tensor):
        if isinstance(got, torch.Tensor):
            return _compare_tensors(got, exp, rtol, atol, check_dtype, where)
        hint = ""
        if got is None:
            hint = " (did you forget `return`?)"
        elif isinstance(got, np.ndarray):
            hint = " (convert it with torch.from_numpy)"
        elif isinstance(got, (list, tuple)):
            hint = " (build a tensor, e.g. with torch.tensor or torch.stack)"
        return f"{where}expected a {describe(exp)}, got {describe(got)}{hint}"
    if isinstance(exp, np.ndarray):
        if not isinstance(got, np.ndarray):
            hint = " (call .numpy() on a CPU tensor)" if isinstance(got, torch.Tensor) else ""
            return f"{where}expected a {describe(exp)}, got {describe(got)}{hint}"
        return _compare_tensors(
            torch.from_numpy(np.ascontiguousarray(got)),
            torch.from_numpy(np.ascontiguousarray(exp)),
            rtol,
            atol,
            check_dtype,
            where,
        )
    if isinstance(exp, (bool, str)) and _same_kind_of_value(got, exp):
        got = type(exp)(got)  # NumPy's str_ and bool_ are the same values as str and bool
    if isinstance(exp, bool) or isinstance(exp, (torch.dtype, torch.device, str)) or exp is None:
        if type(got) is not type(exp) or got != exp:
            return f"{where}expected {_fmt(exp)}, got {describe(got) if type(got) is not type(exp) else _fmt_got(got)}"
        return None
    if isinstance(exp, int):
        if isinstance(got, torch.Tensor) and got.numel() == 1 and not got.is_floating_point():
            got = got.item()
        if not isinstance(got, (int, np.integer)) or isinstance(got, bool):
            return f"{where}expected the int {exp}, got {describe(got)}"
        return None if int(got) == exp else f"{where}expected {exp}, got {int(got)}"
    if isinstance(exp, float):
        if isinstance(got, torch.Tensor) and got.numel() == 1:
            got = got.item()
        if not isinstance(got, (int, float, np.floating, np.integer)) or isinstance(got, bool):
            return f"{where}expected a number close to {_fmt(exp)}, got {describe(got)}"
        g = float(got)
        if math.isnan(exp) and math.isnan(g):
            return None
        if math.isclose(g, exp, rel_tol=rtol, abs_tol=atol):
            return None
        return f"{where}expected {_fmt(exp)}, got {_fmt(g)}"
    if isinstance(exp, (tuple, list)):  # torch.Size is a tuple
        if not isinstance(got, (tuple, list)):
            return f"{where}expected a {describe(exp)}, got {describe(got)}"
        if len(got) != len(exp):
            return f"{where}expected {len(exp)} items, got {len(got)}"
        for i, (g, e) in enumerate(zip(got, exp)):
            msg = _compare(g, e, rtol, atol, check_dtype, f"{where}item {i}: ")
            if msg:
                return msg
        return None
    if isinstance(exp, dict):
        if not isinstance(got, dict):
            return f"{where}expected a dict, got {describe(got)}"
        if set(got) != set(exp):
            missing, extra = sorted(map(str, set(exp) - set(got))), sorted(map(str, set(got) - set(exp)))
            parts = ([f"missing keys {missing}"] if missing else []) + ([f"unexpected keys {extra}"] if extra else [])
            return f"{where}" + ", ".join(parts)
        for k in exp:
            msg = _compare(got[k], exp[k], rtol, atol, check_dtype, f"{where}key {k!r}: ")
            if msg:
                return msg
        return None
    return None if got == exp else f"{where}expected {describe(exp)}, got {describe(got)}"


def _byte_range(t: torch.Tensor) -> tuple[int, int]:
    """The half-open range of addresses ``[first, last + 1)`` that ``t``'s elements occupy."""
    low = high = 0
    for size, stride in zip(t.shape, t.stride()):
        span = (size - 1) * stride
        low, high = low + min(0, span), high + max(0, span)
    start = t.data_ptr()
    return start + low * t.element_size(), start + (high + 1) * t.element_size()


def shares_memory(a: Any, b: Any) -> bool:
    """True when two tensors use overlapping bytes of memory.

    Judged by the address ranges the elements span, not by storage start pointers: a view
    built through NumPy (``torch.from_numpy(t.numpy()[:, -1])``) has its own storage object
    but the same bytes, and two chunks of one storage that do not overlap share nothing.
    (A range test: two interleaved strided views, such as ``t[::2]`` and ``t[1::2]``, count
    as overlapping.)
    """
    if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
        return False
    if a.device != b.device or a.device.type == "meta":
        return False
    try:
        if a.numel() == 0 or b.numel() == 0:
            return False
        (a0, a1), (b0, b1) = _byte_range(a), _byte_range(b)
    except Exception:
        return False
    return a0 < b1 and b0 < a1
