"""The course's own adversary: every reference answer mutated, every mutant judged by its check.

A mutant is the reference with one plausible mistake (``tests/mutants.py``). The check must
reject it, unless it is equivalent on the cases (exactly the reference's values on every case
and on a perturbed copy of each, and not a mistake the exercise's rules exist to catch). The
score, killed / (mutants - equivalent), must be at least 95% in every module, and every
survivor is listed with its exercise, line and change, so a failing run says which case or
rule to add.

Modules whose every check compiles a graph or launches processes (09-12, 15) are mutated too,
with fewer mutants per exercise (the first few sites of each kind), to keep ``make test`` short.
"""

from __future__ import annotations

import collections

import pytest

from tests.mutants import mutants, verdict
from torchcourse.grading.checks import REGISTRY

MODULES = [f"{i:02d}" for i in range(18)]
SLOW = {"09", "10", "11", "12", "15", "17"}  # checks that compile or launch processes
SLOW_LIMIT = 4  # mutants per exercise there
SCORE = 0.95


def _rule_names(ex) -> set[str]:
    names = {type(r).__name__ for r in ex.rules}
    if getattr(ex, "alias", None) == "copy":
        names.add("IsCopy")
    return names


def _run(module: str) -> tuple[collections.Counter, list[str]]:
    counts: collections.Counter = collections.Counter()
    survivors: list[str] = []
    for ex in REGISTRY.module_exercises(module):
        found = mutants(ex.reference, _rule_names(ex))
        if module in SLOW:
            found = found[:SLOW_LIMIT] + [m for m in found[SLOW_LIMIT:] if m.behavioural]
        for m in found:
            v = verdict(ex, m)
            counts[v] += 1
            if v == "survived":
                survivors.append(f"{ex.id} {m.label}")
    return counts, survivors


@pytest.mark.parametrize("module", MODULES)
def test_every_mutant_of_the_references_is_rejected(module):
    counts, survivors = _run(module)
    judged = counts["killed"] + counts["survived"]
    assert judged, f"module {module}: no mutant could be made of its references"
    score = counts["killed"] / judged
    assert score >= SCORE and not [s for s in survivors if "map" in s], (
        f"module {module}: mutation score {score:.0%} ({counts['killed']} killed, {counts['survived']} survived, "
        f"{counts['equivalent']} equivalent on the cases); survivors:\n  " + "\n  ".join(survivors)
    )
