"""Claims: a lesson's sentence about this run, asserted in the cell that measures it.

Prose is typed once, outputs are regenerated on every build and every learner's run. A
sentence such as "the compiled function is faster" or "one graph, no recompiles" is true
only while the measurement under it supports it. :func:`claim` ties the two together:

    claim(t_compiled < t_eager, "the compiled function is faster than eager")

When the condition holds, it prints one quiet line (so the reader sees which statement this
run has just checked); when it does not, it raises :class:`ClaimError` quoting the
statement and the evidence, and the build and nbval fail on that cell instead of storing a
sentence the output contradicts.

Write claims with margins any machine meets (faster, more than 10x, under a second with a
warm cache), never a figure copied from one run.
"""

from __future__ import annotations

from typing import Any

PREFIX = "checked:"


class ClaimError(AssertionError):
    """A lesson's statement that this run's evidence does not support."""


def claim(condition: Any, statement: str, evidence: str = "", *, show: bool = True) -> None:
    """Assert that this run supports ``statement``.

    ``condition`` is anything with a truth value (a bool, a 0-d boolean tensor); ``evidence``
    is an optional string of the measured numbers, quoted in the error. With ``show=False``
    nothing is printed when the claim holds (for a claim inside a loop, say).
    """
    if not isinstance(statement, str) or not statement.strip():
        raise TypeError("claim() needs the statement it checks, as a non-empty string")
    try:
        ok = bool(condition)
    except Exception as exc:  # an ambiguous tensor, say: a bug in the lesson, say so plainly
        raise ClaimError(f"cannot decide the claim {statement!r}: {type(exc).__name__}: {exc}") from exc
    if not ok:
        detail = f" Evidence: {evidence}." if evidence else ""
        raise ClaimError(
            f"The lesson says {statement!r}, but this run does not support it.{detail} "
            "Re-run the cell (a timing can be disturbed by other work on the machine); if it "
            "fails again, the lesson's sentence no longer holds for this machine or torch version."
        )
    if show:
        print(f"{PREFIX} {statement}")
