"""Claims: a lesson's sentence about this run, asserted in the cell that measures it.

Prose is typed once, outputs are regenerated on every build and every learner's run. A
sentence such as "the compiled function is faster" or "one graph, no recompiles" is true
only while the measurement under it supports it. :func:`claim` ties the two together:

    claim(t_compiled < t_eager, "the compiled function is faster than eager")

When the condition holds, it prints one quiet line (so the reader sees which statement this
run has just checked); when it does not, it raises :class:`ClaimError` quoting the
statement and the evidence, and the build and nbval fail on that cell instead of storing a
sentence the output contradicts.

Two modes. *Strict* (the build, ``make test``, CI: ``TORCHCOURSE_STRICT_CLAIMS=1``, which the
Makefile exports, the test suite sets and the build passes to every notebook): a false claim
raises. *Learner* (anything else, e.g. "Run all" in JupyterLab on a laptop): a false claim
prints a visible note that quotes the statement and the evidence, says the machine differs
from the one the outputs were made on, and the notebook goes on.

Write claims with margins any machine meets (faster, more than 10x, under a second with a
warm cache), never a figure copied from one run.
"""

from __future__ import annotations

import os
from typing import Any

PREFIX = "checked:"
NOTE_PREFIX = "note: this run does not support"
STRICT_ENV = "TORCHCOURSE_STRICT_CLAIMS"


def strict() -> bool:
    """True when a false claim must raise: ``TORCHCOURSE_STRICT_CLAIMS`` set to anything but
    ``""``/``0``/``false``/``no``, or a notebook executed by the course's build."""
    value = os.environ.get(STRICT_ENV, "").strip().lower()
    if value:
        return value not in ("0", "false", "no")
    return os.environ.get("TORCHCOURSE_BUILD") == "1"


class ClaimError(AssertionError):
    """A lesson's statement that this run's evidence does not support."""


def claim(
    condition: Any, statement: str, evidence: str = "", *, show: bool = True, needs_compiler: bool = False
) -> None:
    """Assert that this run supports ``statement`` (raise in strict mode, print a note otherwise).

    ``condition`` is anything with a truth value (a bool, a 0-d boolean tensor); ``evidence``
    is an optional string of the measured numbers, quoted in the error. With ``show=False``
    nothing is printed when the claim holds (for a claim inside a loop, say).

    ``needs_compiler=True`` marks a statement about what only inductor makes (its generated
    code, its speed, its cache). Where torch.compile runs without a C++ compiler (with
    ``aot_eager``: ``compiletools.fall_back_without_compiler``) such a statement cannot hold and
    is not judged: one line says it was skipped, in every mode. With a compiler it changes nothing.
    """
    if not isinstance(statement, str) or not statement.strip():
        raise TypeError("claim() needs the statement it checks, as a non-empty string")
    if needs_compiler:
        from torchcourse.compiletools import SKIPPED, fallback_active, say_once

        if fallback_active():
            say_once()
            print(f"{SKIPPED} the statement {statement!r}, which is about inductor's generated code")
            return
    try:
        ok = bool(condition)
    except Exception as exc:  # an ambiguous tensor, say: a bug in the lesson, say so plainly
        raise ClaimError(f"cannot decide the claim {statement!r}: {type(exc).__name__}: {exc}") from exc
    if not ok:
        detail = f" Evidence: {evidence}." if evidence else ""
        if not strict():
            print(
                f"{NOTE_PREFIX} the lesson's statement {statement!r}.{detail}\n"
                "    Your machine (its CPU, its load, its torch or Python) differs from the one these "
                "outputs were made on; the numbers above are yours, and the lesson goes on. If a "
                "re-run of this cell agrees, the sentence does not hold here: the numbers are the lesson."
            )
            return
        raise ClaimError(
            f"The lesson says {statement!r}, but this run does not support it.{detail} "
            "Re-run the cell (a timing can be disturbed by other work on the machine); if it "
            "fails again, the lesson's sentence no longer holds for this machine or torch version."
        )
    if show:
        print(f"{PREFIX} {statement}")
