"""The check machinery: every exercise accepts its reference and rejects its typical wrong answers
on every run of many in one process, reports a stub as not attempted, and survives odd answers
without raising."""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np
import pytest
import torch

import torchcourse.grading.exercises
from torchcourse.grading.checks import CHECK_LINE, FAIL, PASS, TODO, Exercise, check, evaluate, hint
from torchcourse.grading.compare import compare, shares_memory


def all_exercises() -> list[Exercise]:
    found = []
    for info in pkgutil.iter_modules(torchcourse.grading.exercises.__path__):
        if info.name.startswith("m") and info.name[1:].isdigit():
            found += importlib.import_module(f"torchcourse.grading.exercises.{info.name}").EXERCISES
    return found


EXERCISES = all_exercises()
IDS = [ex.id for ex in EXERCISES]


def test_exercise_ids_are_unique_and_well_formed():
    assert len(IDS) == len(set(IDS))
    for ex in EXERCISES:
        assert CHECK_LINE.match(f"✓ {ex.id} "), ex.id
        assert ex.hints, f"{ex.id} has no hint"


@pytest.mark.parametrize("ex", EXERCISES, ids=IDS)
def test_stub_is_not_attempted(ex):
    def stub(*args):
        raise NotImplementedError

    assert evaluate(ex, stub)[0] == TODO


def _odd_answers(ex: Exercise):
    """Answers a learner might really write, each of which must give ✗ and no traceback."""

    def returns_none(*args):
        return None

    def returns_list(*args):
        return [1, 2, 3]

    def raises(*args):
        raise ValueError("boom")

    def exits(*args):
        raise SystemExit(3)

    def torch_not_implemented(*args):  # e.g. copying out of a meta tensor: an error, not a stub
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")

    def as_numpy(*args):
        out = ex.reference(*args)
        return out.numpy() if isinstance(out, torch.Tensor) and out.device.type == "cpu" else np.zeros(3)

    def on_meta(*args):
        out = ex.reference(*args)
        return (
            out.to("meta")
            if isinstance(out, torch.Tensor) and out.device.type != "meta"
            else torch.empty(3, device="meta")
        )

    def other_dtype(*args):
        out = ex.reference(*args)
        if isinstance(out, torch.Tensor):
            return out.to(torch.float16 if out.dtype != torch.float16 else torch.float32)
        return "not a tensor"

    return {
        "None": returns_none,
        "list": returns_list,
        "raises": raises,
        "SystemExit": exits,
        "NotImplementedError with a message": torch_not_implemented,
        "numpy": as_numpy,
        "meta device": on_meta,
        "other dtype": other_dtype,
        "the function itself": None,
    }


@pytest.mark.parametrize("ex", EXERCISES, ids=IDS)
def test_odd_answers_give_a_cross_not_a_traceback(ex, capsys):
    for name, answer in _odd_answers(ex).items():
        if name == "other dtype" and not ex.check_dtype:
            continue
        status, message = evaluate(ex, answer)
        assert status == FAIL, f"{ex.id}: odd answer '{name}' gave {status} {message}"
        check(ex.id, answer)
        out = capsys.readouterr().out
        assert out.count("\n") == 1 and out.startswith(f"{FAIL} {ex.id} "), out


@pytest.mark.parametrize("ex", [e for e in EXERCISES if not e.inplace], ids=[e.id for e in EXERCISES if not e.inplace])
def test_changing_the_input_in_place_is_caught(ex):
    if not any(
        isinstance(a, torch.Tensor) and a.numel() and a.device.type != "meta" for args in ex.cases() for a in args
    ):
        pytest.skip(f"{ex.id} takes no tensor argument to mutate")

    def changeable(a):
        return isinstance(a, torch.Tensor) and a.numel() and a.device.type != "meta"

    def mutating(*args):  # written without a loop, so that a "no loop" rule does not answer first
        out = ex.reference(*map(lambda a: a.clone() if isinstance(a, torch.Tensor) else a, args))
        target = next(filter(changeable, args), None)
        if target is not None:
            with torch.no_grad():  # a leaf that requires grad can still be changed in place
                target.logical_not_() if target.dtype == torch.bool else target.add_(1)
        return out

    status, message = evaluate(ex, mutating)
    assert status == FAIL and "in place" in message, f"{ex.id}: {status} {message}"


def test_check_prints_exactly_one_line_per_outcome(capsys):
    check("00.1", lambda n: torch.arange(n, dtype=torch.float32).reshape(n, 1))
    check("00.1", lambda n: torch.arange(n, dtype=torch.float32))
    check("99.9", print)
    lines = capsys.readouterr().out.splitlines()
    assert [line[0] for line in lines] == [PASS, FAIL, FAIL]
    assert "expected shape (1, 1), got (1,)" in lines[1]
    assert "no such exercise" in lines[2]


def test_learner_output_does_not_leak_into_later_cases(capsys):
    # a learner's print() is theirs; the check still ends with its own single verdict line
    def noisy(n):
        print("debug", n)
        return torch.arange(n, dtype=torch.float32).reshape(n, 1)

    check("00.1", noisy)
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith(f"{PASS} 00.1")


def test_hints_come_one_at_a_time(capsys):
    ex = next(e for e in EXERCISES if e.id == "00.2")
    for _ in range(len(ex.hints) + 1):
        hint("00.2")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"Hint 1 of {len(ex.hints)} for 00.2")
    assert lines[len(ex.hints) - 1].startswith(f"Hint {len(ex.hints)} of")
    assert lines[-1].startswith("No more hints for 00.2")
    hint("00.2", all=True)
    assert len(capsys.readouterr().out.splitlines()) == len(ex.hints)


@pytest.mark.parametrize(
    "got, expected, fragment",
    [
        (torch.zeros(3, 4), torch.zeros(4, 3), "expected shape (4, 3), got (3, 4)"),
        (torch.zeros(3, dtype=torch.float64), torch.zeros(3), "expected dtype torch.float32, got torch.float64"),
        (torch.tensor([1.0, 2.5]), torch.tensor([1.0, 2.0]), "first at index 1: expected 2, got 2.5"),
        (None, torch.zeros(2), "got None (did you forget `return`?)"),
        (np.zeros(2), torch.zeros(2), "got NumPy array"),
        ([0.0, 0.0], torch.zeros(2), "got list of length 2"),
        (torch.zeros(2, device="meta"), torch.zeros(2), "expected a tensor on cpu, got one on meta"),
        (3.5, 3.0, "expected 3, got 3.5"),
        (torch.tensor([1.0, float("nan")]), torch.tensor([1.0, 2.0]), "1 nan value where numbers were expected"),
        ((1, 2), (1, 2, 3), "expected 3 items, got 2"),
        ({"a": 1}, {"a": 1, "b": 2}, "missing keys ['b']"),
        (True, 1, "expected the int 1, got True"),
    ],
)
def test_compare_names_the_difference(got, expected, fragment):
    message = compare(got, expected)
    assert message is not None and fragment in message, message


def test_compare_accepts_equal_values():
    assert compare(torch.arange(4.0), torch.arange(4.0)) is None
    assert compare(torch.tensor([float("nan")]), torch.tensor([float("nan")])) is None
    assert compare(torch.Size([2, 3]), (2, 3)) is None
    assert compare(torch.tensor(3), 3) is None
    assert compare(np.arange(3), np.arange(3)) is None


def test_shares_memory_tells_views_from_copies():
    t = torch.arange(6.0).reshape(2, 3)
    assert shares_memory(t[1], t) and shares_memory(t.T, t)
    assert not shares_memory(t.clone(), t)
    assert not shares_memory(t, np.arange(3))
