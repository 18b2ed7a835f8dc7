"""Predict, then run: a learner writes down what a cell will show before it runs.

A misconception surfaces only when an expectation meets a measurement. So a lesson asks
for a prediction in one cell and grades it in the cell that measures, against the value
measured *in this run* (this machine, this torch), never against a stored constant:

    predict("10.p1", None)          # the learner replaces None with a guess, e.g. 2
    ...                             # the cell that measures n_graphs
    reveal("10.p1", n_graphs, why="a new dtype is a new guard, so Dynamo compiles again")

Unanswered (None, or the predict cell never ran) the reveal says "not answered yet" and
still shows the measured value and the why, so the stored notebooks read well and pass
nbval. Each verdict is recorded for :func:`torchcourse.progress` (locally only).
"""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

import torchcourse.claims as claims

RIGHT, WRONG, TODO = "✓", "✗", "…"
PREDICTION_ID = re.compile(r"^\d\d\.p\d+$")

# The learner's latest prediction per id, in this kernel (None: not answered).
_predictions: dict[str, Any] = {}


def _check_id(pid: Any) -> str:
    if not isinstance(pid, str) or not PREDICTION_ID.match(pid):
        raise ValueError(f"a prediction id looks like '10.p1', got {pid!r}")
    return pid


def predict(pid: str, value: Any) -> None:
    """Record the learner's prediction ``value`` for question ``pid`` (None: not answered yet).

    Written before the measuring cell runs, so the guess cannot be adjusted to the result.
    """
    _check_id(pid)
    _predictions[pid] = value
    if value is None:
        print(f"{TODO} {pid} not answered yet: replace None with your prediction, then run on")
    else:
        print(f"{pid}: your prediction is recorded: {value!r}")


def _plain(value: Any) -> Any:
    """A measured or predicted value as plain Python: 0-d tensors and NumPy scalars become
    numbers, dtypes and exceptions their names, so a learner can write ``torch.int64`` or
    ``"int64"`` and ``ZeroDivisionError`` or ``"ZeroDivisionError"``."""
    if isinstance(value, BaseException) or (isinstance(value, type) and issubclass(value, BaseException)):
        return (value if isinstance(value, type) else type(value)).__name__
    item = getattr(value, "item", None)
    if callable(item) and getattr(value, "ndim", None) == 0:
        try:
            return item()
        except Exception:
            return value
    if type(value).__module__ == "torch" and type(value).__name__ == "dtype":
        return str(value)
    return value


def _norm_text(value: Any) -> str:
    """Strings compare case- and space-insensitively; "torch.int64" equals "int64"."""
    text = re.sub(r"\s+", "", str(value)).lower()
    return text.removeprefix("torch.")


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and _norm_text(value) in ("true", "yes", "false", "no"):
        return _norm_text(value) in ("true", "yes")
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def grade(prediction: Any, actual: Any, *, within: float | None = None, choices: Sequence[Any] | None = None) -> str:
    """The verdict of ``prediction`` against the measured ``actual``: "right", "wrong",
    "unanswered" or "invalid" (not one of ``choices``, or not a positive number for ``within``).

    A function of its arguments only, so a test can change the measured value and watch the
    verdict flip."""
    if prediction is None:
        return "unanswered"
    p, a = _plain(prediction), _plain(actual)
    if choices is not None:
        allowed = {_norm_text(_plain(c)) for c in choices}
        if _norm_text(p) not in allowed:
            return "invalid"
        return "right" if _norm_text(p) == _norm_text(a) else "wrong"
    if within is not None:
        pn, an = _number(p), _number(a)
        if pn is None or pn <= 0 or not math.isfinite(pn):
            return "invalid"
        if an is None or an <= 0 or not math.isfinite(an):
            return "wrong"
        return "right" if max(pn / an, an / pn) <= within else "wrong"
    if isinstance(a, bool):
        b = _as_bool(p)
        return "invalid" if b is None else ("right" if b == a else "wrong")
    if isinstance(a, (int, float)):
        pn = _number(p)
        if pn is None:
            return "invalid"
        if isinstance(a, int):
            return "right" if pn == a else "wrong"
        return "right" if math.isclose(pn, a, rel_tol=1e-6, abs_tol=1e-12) else "wrong"
    if isinstance(a, str) or isinstance(p, str):
        return "right" if _norm_text(p) == _norm_text(a) else "wrong"
    try:
        return "right" if bool(p == a) else "wrong"
    except Exception:
        return "wrong"


def _show(value: Any, within: float | None) -> str:
    v = _plain(value)
    if within is not None and isinstance(v, float):
        return f"{v:.3g}"
    return repr(v) if isinstance(v, str) else str(v)


def reveal(
    pid: str,
    actual: Any,
    *,
    why: str,
    within: float | None = None,
    choices: Sequence[Any] | None = None,
) -> None:
    """Grade the prediction for ``pid`` against ``actual``, the value measured in this run, and
    print one verdict line and the why.

    Equality for ints, bools and strings (strings case- and space-insensitive); ``choices``
    lists the allowed answers; ``within=2.0`` accepts a positive number within a factor of 2
    (ratios, timings). A measured value outside ``choices`` is a lesson bug: it raises in the
    course's strict mode and is shown as it is otherwise.
    """
    _check_id(pid)
    if not isinstance(why, str) or not why.strip():
        raise TypeError("reveal() needs why=: one or two sentences on why this is the answer")
    if choices is not None and _norm_text(_plain(actual)) not in {_norm_text(_plain(c)) for c in choices}:
        if claims.strict():
            raise ValueError(f"{pid}: the measured value {actual!r} is not one of the choices {tuple(choices)!r}")
    prediction = _predictions.get(pid)
    verdict = grade(prediction, actual, within=within, choices=choices)
    measured = _show(actual, within)
    if verdict == "unanswered":
        line = f"{TODO} {pid} not answered yet. This run measured: {measured}"
    elif verdict == "right":
        line = f"{RIGHT} {pid} right: you predicted {_show(prediction, within)}, this run measured {measured}"
    elif verdict == "wrong":
        line = f"{WRONG} {pid} not this time: you predicted {_show(prediction, within)}, this run measured {measured}"
    else:
        expected = (
            "one of " + ", ".join(_show(c, None) for c in choices)
            if choices is not None
            else ("a positive number" if within is not None else "a value like the measured one")
        )
        line = f"{WRONG} {pid}: your prediction {prediction!r} is not {expected}; this run measured {measured}"
    if within is not None and verdict in ("right", "wrong"):
        line += f" (within a factor of {within:g} counts as right)"
    print(line)
    print(f"  Why: {' '.join(why.split())}")
    _record(pid, verdict)


def _record(pid: str, verdict: str) -> None:
    """Keep the latest verdict for progress(); never let bookkeeping break a lesson."""
    try:
        from torchcourse.progress import record

        record("predictions", pid, "wrong" if verdict == "invalid" else verdict)
    except Exception:
        pass
