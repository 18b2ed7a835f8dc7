"""Every API behaviour a lesson states as a fact, asserted on the installed torch.

One test per sentence (``test_fact[16-zero-dim-index-is-a-view]``), gathered from
``tests/facts/lNN.py``. On the pinned torch they must all pass; under ``make drift`` a failure
names the lesson sentence that a new release has made false. A second test checks that every
quoted sentence still stands in its lesson, and a third that each lesson has at least five.
"""

from __future__ import annotations

import collections
import importlib
import pkgutil
import re
from pathlib import Path

import pytest

from tests import facts as facts_pkg
from tests.facts import FACTS

ROOT = Path(__file__).resolve().parent.parent
for _info in sorted(pkgutil.iter_modules(facts_pkg.__path__), key=lambda m: m.name):
    importlib.import_module(f"tests.facts.{_info.name}")

MIN_PER_LESSON = 5


def _lesson_text(lesson: str) -> str:
    """The lesson's source as prose: comment markers dropped, emphasis and whitespace flattened."""
    (path,) = sorted((ROOT / "notebooks").glob(f"{lesson}_*.py"))
    lines = [re.sub(r"^\s*# ?", "", line) for line in path.read_text().splitlines()]
    return _flat(" ".join(lines))


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[*_`]", "", text)).strip()


@pytest.mark.parametrize("f", FACTS, ids=[f.id for f in FACTS])
def test_fact(f):
    f.run()


@pytest.mark.parametrize("f", FACTS, ids=[f.id for f in FACTS])
def test_fact_quotes_its_lesson(f):
    assert _flat(f.sentence) in _lesson_text(f.lesson), (
        f"fact {f.id} quotes {f.sentence!r}, which lesson {f.lesson} no longer says: update the quote or the fact"
    )


def test_fact_ids_are_unique():
    ids = collections.Counter(f.id for f in FACTS)
    assert not [i for i, n in ids.items() if n > 1]


def test_every_lesson_has_facts():
    lessons = sorted(p.name[:2] for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
    counts = collections.Counter(f.lesson for f in FACTS)
    short = {lesson: counts[lesson] for lesson in lessons if counts[lesson] < MIN_PER_LESSON}
    assert not short, f"lessons with fewer than {MIN_PER_LESSON} tested facts: {short}"
