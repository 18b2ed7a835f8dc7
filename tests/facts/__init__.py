"""Facts the lessons state about torch, one executable assertion each.

A lesson sentence that says what an API does (view or copy, result dtype, which op runs, what
specialises or recompiles, what raises) is backed here. Each module ``lNN.py`` registers its
lesson's facts with :func:`fact`::

    @fact("16", "zero-dim-index-is-a-view",
          "indexing with a 0-d integer tensor returns a view")
    def _():
        x = torch.arange(5.0)
        assert x[torch.tensor(2)]._base is x

``sentence`` is quoted from the lesson's ``.py`` (markdown or code comment), word for word up to
whitespace and Markdown emphasis, so a fact that stops holding on a new torch names the sentence
to revise, and a sentence that is rewritten must bring its fact along. ``tests/test_facts.py``
runs every fact (also under ``make drift``) and checks each quote against its lesson.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Fact:
    lesson: str  # "16"
    slug: str  # "zero-dim-index-is-a-view"
    sentence: str  # quoted from the lesson
    run: Callable[[], None]  # raises AssertionError when the fact does not hold
    # A fact that backs a cause ("X is slow because Y", "it recompiles because Z") names the nearest
    # rival explanation, and its assertion is chosen so that it would fail were the rival the cause.
    rival: str | None = None
    # A fact that expects an upstream bug (torch behaves wrongly, the lesson warns about it): where
    # upstream tracks it and what to revisit in the lesson the day torch fixes it (the fact then fails).
    upstream: str | None = None

    @property
    def id(self) -> str:
        return f"{self.lesson}-{self.slug}"


FACTS: list[Fact] = []


def fact(
    lesson: str,
    slug: str,
    sentence: str,
    since: tuple[int, int] | None = None,
    *,
    rival: str | None = None,
    upstream: str | None = None,
) -> Callable[[Callable[[], None]], Callable[[], None]]:
    """Register the decorated function as the test of ``sentence`` in lesson ``lesson``.

    ``since=(2, 13)``: the sentence describes torch's code as of that release (the course's pin),
    which older releases implement otherwise; on an older torch (``make drift``) the fact is
    skipped with that reason instead of failing.

    ``rival="..."``: the sentence gives a cause; this names the nearest other explanation, which the
    assertion rules out (it would come out differently were the rival true). ``upstream="..."``: the
    fact expects an upstream bug; say where it is tracked and what to revisit once torch fixes it: the
    fact's failure message then carries this text."""

    def register(fn: Callable[[], None]) -> Callable[[], None]:
        run = fn
        if upstream is not None:
            inner = fn

            def run() -> None:
                try:
                    inner()
                except AssertionError as exc:
                    raise AssertionError(
                        f"this fact expects an upstream bug that no longer shows: {upstream} ({exc})"
                    ) from exc

        if since is not None:
            checked = run

            def run() -> None:
                import pytest
                import torch

                from torchcourse.preflight import version_tuple

                if version_tuple(torch.__version__)[:2] < since:
                    pytest.skip(f"describes torch {since[0]}.{since[1]} and later; torch {torch.__version__} differs")
                checked()

        FACTS.append(Fact(lesson, slug, sentence, run, rival, upstream))
        return fn

    return register


def dispatched_ops():
    """A dispatch mode that records the name of every aten op run under it (``with mode as m: ...;
    m.ops``), shared by the facts that count what a Python loop dispatches (lessons 01 and 05)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Ops(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(func.overloadpacket.__name__)
            return func(*args, **(kwargs or {}))

    return Ops()
