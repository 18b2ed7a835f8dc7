"""Byte counts as the exercise texts ask for them: "the bytes", a whole number, whatever its type.

A text that asks for "the number of bytes" (09.2, 12.1) and not for "an int" is answered by
``28000.0`` as well as by ``28000``: the value is what it asks for. A value that is not that
whole number, or not a number at all (a bool, a string, a list), is still wrong.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from torchcourse.grading.compare import describe


def _number(value: Any) -> float | None:
    """The value of a real number of any type (int, float, NumPy scalar, one-element tensor), else None."""
    if isinstance(value, torch.Tensor):
        if value.numel() != 1 or value.dtype == torch.bool or value.is_complex():
            return None
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return None
    return value


def byte_count_message(got: Any, expected: int, where: str = "") -> str | None:
    """None when ``got`` is the byte count ``expected`` (an int, or a float with that whole value)."""
    value = _number(got)
    if value is None:
        return f"{where}expected a number of bytes ({expected}), got {describe(got)}"
    if value != expected:
        return f"{where}expected {expected} bytes, got {value}"
    return None


def byte_counts_message(got: Any, expected: tuple | list) -> str | None:
    """None when ``got`` is a tuple or list of the byte counts ``expected``, item by item."""
    if not isinstance(got, (tuple, list)):
        return f"expected a {type(expected).__name__} of {len(expected)} byte counts, got {describe(got)}"
    if len(got) != len(expected):
        return f"expected {len(expected)} byte counts, got {len(got)}"
    for i, (g, e) in enumerate(zip(got, expected)):
        msg = byte_count_message(g, e, f"item {i}: ")
        if msg:
            return msg
    return None
