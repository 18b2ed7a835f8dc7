"""Checks of the Python type a text names exactly ("as a Python int", "a tuple", "a list").

The comparison with the reference judges values; it accepts a one-element tensor where a number
is expected and a list where a tuple is. Where the text names the type, these ``extra`` checks
hold the answer to it. A NumPy scalar equal by value (``numpy.int64`` for an int, ``numpy.float64``
for a float) is accepted by design, as everywhere in the course; a tensor is not a Python number.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from torchcourse.grading.compare import describe

Extra = Callable[[tuple, Any], "str | None"]


def is_int(value: Any) -> bool:
    """A Python int or a NumPy integer, not a bool (a bool is not a count)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_float(value: Any) -> bool:
    """A Python float or a NumPy floating-point scalar."""
    return isinstance(value, (float, np.floating))


def python_int(what: str = "the result") -> Extra:
    """``extra``: the result is a Python int (the text says "as a Python `int`")."""

    def extra(args: tuple, got: Any) -> str | None:
        if not is_int(got):
            return f"{what} has the right value, but it is a {describe(got)}: return a Python int (int(...) or .item())"
        return None

    return extra


def python_float(what: str = "the result") -> Extra:
    """``extra``: the result is a Python float (the text says "as a Python float")."""

    def extra(args: tuple, got: Any) -> str | None:
        if not is_float(got):
            return f"{what} has the right value, but it is a {describe(got)}: return a Python float (float(...))"
        return None

    return extra


def container(kind: type, what: str = "the result") -> Extra:
    """``extra``: the result is a ``kind`` (tuple or list), as the text names it."""

    def extra(args: tuple, got: Any) -> str | None:
        if not isinstance(got, kind):
            return f"{what} has the right values, but it is a {describe(got)}: the task asks for a {kind.__name__}"
        return None

    return extra


def all_of(*extras: Extra) -> Extra:
    """One ``extra`` that runs several in order and reports the first complaint."""

    def extra(args: tuple, got: Any) -> str | None:
        for check in extras:
            msg = check(args, got)
            if msg:
                return msg
        return None

    return extra
