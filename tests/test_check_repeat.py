"""The same verdict on every run, for every module whose checks neither compile nor build (``tests/repeat.py``
says how; 09-13 and 17 are in ``test_check_repeat_compile.py`` and ``test_check_repeat_17.py``)."""

from __future__ import annotations

import pytest

from tests.repeat import exercises, same_verdict_on_every_run

EXERCISES = exercises("rest")


@pytest.mark.parametrize("ex", EXERCISES, ids=[ex.id for ex in EXERCISES])
def test_same_verdict_on_every_run(ex):
    same_verdict_on_every_run(ex)
