"""The same verdict on every run (shared by ``tests/test_check_repeat*.py``): a learner runs a check
cell again and again in one kernel, so each exercise's reference and each of its typical wrong answers
go through the check many times in one process, interleaved, and every run must give the first run's
verdict and leave the process as it found it.

Each answer runs ``ROUNDS`` times (12; ``TORCHCOURSE_CHECK_ROUNDS`` sets another number, e.g. 20, or 1
on the other Pythons' fast layer), in rounds: reference, wrong 1, wrong 2, ..., reference, ... Each
run must give the first run's verdict (the first round: the reference passes, every wrong answer is
rejected) and leave the process state (``isolation.process_state``: dynamo's cache entries and
counters, config, default dtype, RNG, grad mode, threads, flags, warning filters, environment) as it
found it, so what a run leaves behind shows at the run that left it, and what it leaves that the state
does not name shows as a changed verdict within 12 runs (11.7's check once kept dynamo's cache entries
and met its recompile limit at the 9th run).

The exercises are split over three files by cost, so that pytest-xdist's ``--dist loadfile`` puts
them on both workers: modules 09-13 (checks that compile: 1-3 s a run) and 17 (AOTInductor builds and
fresh processes: 17.5 and 17.6 take 6-9 s a run) each have a file of their own."""

from __future__ import annotations

import os
import re

import torch

from tests.test_checks import EXERCISES
from torchcourse.grading.checks import FAIL, PASS, evaluate
from torchcourse.grading.isolation import differences, process_state

ROUNDS = int(os.environ.get("TORCHCOURSE_CHECK_ROUNDS") or 12)
COMPILING = {"09", "10", "11", "12", "13"}


def exercises(modules: str) -> list:
    """'compiling' (09-13), '17', or 'rest' (every other module)."""
    part = lambda ex: ex.id.split(".")[0]  # noqa: E731
    if modules == "compiling":
        return [ex for ex in EXERCISES if part(ex) in COMPILING]
    if modules == "17":
        return [ex for ex in EXERCISES if part(ex) == "17"]
    return [ex for ex in EXERCISES if part(ex) not in COMPILING | {"17"}]


def same_verdict_on_every_run(ex, rounds: int = ROUNDS) -> None:
    assert len(ex.wrong) >= 2, f"{ex.id}: list at least two typical wrong answers"
    answers = [("the reference", ex.reference)] + [(f"wrong answer #{i + 1}", w) for i, w in enumerate(ex.wrong)]
    first: dict[str, tuple[str, str]] = {}
    compiled_before()
    before = process_state()
    for round_ in range(rounds):
        for name, answer in answers:
            verdict = evaluate(ex, answer)
            after = process_state()
            changed = differences(before, after)
            before = after
            assert not changed, f"{ex.id}: {name} (run {round_ + 1}) left the process changed: {changed}"
            if round_ == 0:
                first[name] = verdict
                want = PASS if answer is ex.reference else FAIL
                assert verdict[0] == want, f"{ex.id}: {name} gave {verdict}"
            else:
                assert same(verdict, first[name]), f"{ex.id}: {name}, run {round_ + 1}: {verdict} after {first[name]}"


def _learners_function(x):
    return x.sin() + 1


def compiled_before() -> None:
    """The kernel holds code the learner compiled before the check (as a notebook's earlier cells
    leave it), whatever the tests before this one did: CI's Python 3.13 run met 09.10 after another
    file's compiles in its worker and saw the check drop them (a ``torch.compiler.reset()``), where
    the other Pythons' workers held none. Every run now starts so; a check may drop these entries
    (``isolation._left_behind``) but must leave no new ones."""
    torch.compile(_learners_function, backend="eager")(torch.ones(3))  # compiles only where a check dropped it


_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:e[-+]?\d+)?")
_TEMP_DIR = re.compile(r"torchcourse-[\w.-]+")  # 17.6's case folders: tempfile.mkdtemp(prefix="torchcourse-17-6-")


def same(verdict: tuple[str, str], first: tuple[str, str]) -> bool:
    """The same mark and the same message up to its numbers and temporary folders: 05.9's messages
    quote times measured in the run, 11.7 hands each run a new operator name (course_ex::bins_<n>) on
    purpose, and 17.6's name the run's own case folder (a new random name each run; the 12-round run
    met it at the second run)."""
    norm = lambda text: _NUMBER.sub("N", _TEMP_DIR.sub("torchcourse-DIR", text))  # noqa: E731
    return verdict[0] == first[0] and norm(verdict[1]) == norm(first[1])
