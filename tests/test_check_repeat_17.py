"""The same verdict on every run, for module 17, whose checks export, build with AOTInductor and start
fresh processes (``tests/repeat.py``)."""

from __future__ import annotations

import pytest

from tests.repeat import exercises, same_verdict_on_every_run

EXERCISES = exercises("17")


@pytest.mark.parametrize("ex", EXERCISES, ids=[ex.id for ex in EXERCISES])
def test_same_verdict_on_every_run(ex):
    same_verdict_on_every_run(ex)
