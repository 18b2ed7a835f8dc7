"""One source per answer: the reference each check compares against is the worked answer the
learner reads in ``solutions/NN_slug.py``, loaded from that file (``exercises/_solutions.py``),
not a second copy in ``torchcourse/grading/exercises/mNN.py`` that could drift from it."""

from __future__ import annotations

import pytest

from torchcourse.authoring.course import MODULES, ROOT
from torchcourse.grading.checks import REGISTRY
from torchcourse.grading.exercises._solutions import definitions, solution

# References that wrap the solution rather than being it, and why.
WRAPPERS = {
    # dynamo remembers the sizes a function has seen until torch.compiler.reset(): the reference
    # calls the solution's count_compiles between two resets so that the learner's run starts
    # from the state a fresh notebook has
    "10.2": "count_compiles",
    # dynamo would find the learner's function compiled already (no compile, nothing to save) and
    # the artefact manager keeps all this process compiled: the reference starts both afresh
    "17.5": "ship_cache",
    # an AOTInductor build takes tens of seconds: the reference builds each program's package once
    # with the solution's deploy and copies it into later directories
    "17.6": "deploy",
}

EXERCISES = [ex for m in MODULES for ex in REGISTRY.module_exercises(m.number)]


def test_the_course_has_at_least_130_checked_exercises():
    assert len(EXERCISES) >= 130, len(EXERCISES)


@pytest.mark.parametrize("ex", EXERCISES, ids=lambda ex: ex.id)
def test_the_reference_is_the_solution_the_learner_reads(ex):
    module = ex.id.split(".")[0]
    (path,) = (ROOT / "solutions").glob(f"{module}_*.py")
    if ex.id in WRAPPERS:
        name = WRAPPERS[ex.id]
        assert solution(module, name).__code__.co_filename == str(path)
        assert name in ex.reference.__code__.co_names
        return
    code = getattr(ex.reference, "__code__", None)
    assert code is not None and code.co_filename == str(path), (
        f"{ex.id}: the reference {getattr(ex.reference, '__qualname__', ex.reference)!r} is defined in "
        f"{code.co_filename if code else '?'}, not taken from {path.relative_to(ROOT)}: "
        f'write `{getattr(ex.reference, "__name__", "name")} = solution("{module}", ...)` in its mNN.py'
    )
    assert definitions(module)[ex.reference.__name__] is ex.reference


def test_a_missing_solution_is_named():
    with pytest.raises(LookupError, match="defines no 'no_such_answer'"):
        solution("02", "no_such_answer")


def test_only_definitions_run_no_check_call_and_no_demo(capsys):
    namespace = definitions("16")
    assert "check" in namespace  # imported
    assert capsys.readouterr().out == "", "loading the solutions printed something: a check or a demo ran"
