"""Predict, then run: the grading of ``reveal`` and the predictions of every lesson.

The unit tests show that a verdict follows the value measured in the run (change the measured
value and the verdict flips), never a stored constant. The course-wide test reads each lesson's
source and its stored notebook: at least three ``predict("NN.pK", None)`` cells, each revealed
later from a measured value (not a literal), ids in order, and stored unanswered.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
import torch

from torchcourse import predictions
from torchcourse.predictions import grade, predict, reveal

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.py"))
MIN_PREDICTIONS = 3


@pytest.fixture(autouse=True)
def _fresh_predictions():
    predictions._predictions.clear()
    yield
    predictions._predictions.clear()


def _verdict(capsys, pid: str, guess, actual, **kw) -> str:
    predict(pid, guess)
    reveal(pid, actual, why="because.", **kw)
    return capsys.readouterr().out.splitlines()[-2]


def test_right_and_wrong_follow_the_measured_value(capsys):
    assert _verdict(capsys, "10.p1", 2, 2).startswith("✓ 10.p1 right")
    # the same prediction, a different measurement: the verdict flips
    assert _verdict(capsys, "10.p1", 2, 3).startswith("✗ 10.p1 not this time: you predicted 2, this run measured 3")
    assert _verdict(capsys, "10.p1", 2, torch.tensor(2)).startswith("✓")  # a 0-d tensor is its number


def test_predict_prints_one_line(capsys):
    predict("03.p2", None)
    predict("03.p2", "view")
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "… 03.p2 not answered yet: replace None with your prediction, then run on",
        "03.p2: your prediction is recorded: 'view'",
    ]


def test_unanswered_shows_measured_value_and_why(capsys):
    predict("04.p1", None)
    reveal("04.p1", torch.int64, why="sum  widens\n small ints.")
    assert capsys.readouterr().out.splitlines() == [
        "… 04.p1 not answered yet: replace None with your prediction, then run on",
        "… 04.p1 not answered yet. This run measured: 'torch.int64'",
        "  Why: sum widens small ints.",
    ]
    reveal("04.p9", 1, why="never predicted: a skipped predict cell reads as unanswered")
    assert "… 04.p9 not answered yet" in capsys.readouterr().out


def test_strings_are_normalised_and_dtypes_read_as_names():
    assert grade(" VIEW ", "view") == "right"
    assert grade("Copy", "view") == "wrong"
    assert grade("torch.int64", torch.int64) == grade("int64", torch.int64) == grade(torch.int64, "int64") == "right"
    assert grade(ZeroDivisionError, ZeroDivisionError("x")) == "right"


def test_choices():
    kw = {"choices": ("int8", "int16", "int64")}
    assert grade("int64", torch.int64, **kw) == "right"
    assert grade("INT16", torch.int64, **kw) == "wrong"
    assert grade("float32", torch.int64, **kw) == "invalid"  # not one of the choices: said so


def test_choices_a_measured_value_outside_them_is_a_lesson_bug(capsys, monkeypatch):
    monkeypatch.setenv("TORCHCOURSE_STRICT_CLAIMS", "1")
    with pytest.raises(ValueError, match="not one of the choices"):
        reveal("04.p2", "float16", why="w", choices=("int8", "int64"))


def test_within_a_factor():
    assert grade(3, 5.0, within=2.0) == "right"
    assert grade(3, 6.0, within=2.0) == "right"  # the bound counts
    assert grade(3, 6.1, within=2.0) == "wrong"
    assert grade(10, 6.1, within=2.0) == "right"
    assert grade(0, 6.1, within=2.0) == "invalid" and grade(-1, 6.1, within=2.0) == "invalid"
    assert grade(3, 0.0, within=2.0) == "wrong"


def test_bools_ints_and_odd_predictions():
    assert grade(True, True) == "right" and grade(False, True) == "wrong" and grade("yes", True) == "right"
    assert grade(1, True) == "invalid"  # 1 is not a bool answer
    assert grade(3.0, 3) == "right" and grade("3", 3) == "right" and grade("three", 3) == "invalid"
    assert grade(None, 3) == "unanswered"
    assert grade([1, 2], torch.tensor([1, 2])) == "wrong"  # never raises on an ambiguous comparison


def test_reveal_records_the_verdict(capsys, monkeypatch, tmp_path):
    from torchcourse.progress import load

    monkeypatch.setenv("TORCHCOURSE_PROGRESS", str(tmp_path / "p.json"))
    _verdict(capsys, "05.p1", 2, 2)
    _verdict(capsys, "05.p2", 2, 5)
    predictions._predictions.clear()
    reveal("05.p3", 1, why="w")
    got = {k: v["verdict"] for k, v in load(tmp_path / "p.json")["predictions"].items()}
    assert got == {"05.p1": "right", "05.p2": "wrong", "05.p3": "unanswered"}


def test_bad_calls_raise_for_the_author():
    with pytest.raises(ValueError):
        predict("10.1", None)  # an exercise id, not a prediction id
    with pytest.raises(TypeError):
        reveal("10.p1", 1, why="")


# ---- every lesson -------------------------------------------------------------------------


def _calls(tree: ast.AST, name: str) -> list[ast.Call]:
    return sorted(
        (n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == name),
        key=lambda n: (n.lineno, n.col_offset),
    )


def _is_literal(node: ast.AST) -> bool:
    try:
        ast.literal_eval(node)
    except ValueError:
        return False
    return True


def _stored_text(ipynb: Path) -> list[tuple[str, str]]:
    """(source, printed output) of each code cell of the stored notebook."""
    cells = json.loads(ipynb.read_text(encoding="utf-8"))["cells"]
    out = []
    for c in cells:
        if c["cell_type"] == "code":
            text = "".join("".join(o.get("text", "")) for o in c.get("outputs", []) if o.get("output_type") == "stream")
            out.append(("".join(c["source"]), text))
    return out


@pytest.mark.parametrize("lesson", LESSONS, ids=[p.name[:2] for p in LESSONS])
def test_lesson_predicts_then_reveals(lesson: Path):
    nn = lesson.name[:2]
    tree = ast.parse(lesson.read_text(encoding="utf-8"))
    preds = [(c.args[0].value, c) for c in _calls(tree, "predict") if c.args and isinstance(c.args[0], ast.Constant)]
    reveals = {c.args[0].value: c for c in _calls(tree, "reveal") if c.args and isinstance(c.args[0], ast.Constant)}
    ids = [pid for pid, _ in preds]
    assert len(ids) >= MIN_PREDICTIONS, f"lesson {nn} has {len(ids)} predict(...) cells, needs {MIN_PREDICTIONS}"
    assert ids == [f"{nn}.p{k}" for k in range(1, len(ids) + 1)], f"lesson {nn}: ids not NN.p1, NN.p2, ... in order"
    for pid, call in preds:
        assert len(call.args) == 2 and isinstance(call.args[1], ast.Constant) and call.args[1].value is None, (
            f"{pid}: the lesson stores predict({pid!r}, None), the learner fills it in"
        )
        rev = reveals.get(pid)
        assert rev is not None and rev.lineno > call.lineno, f"{pid}: no reveal({pid!r}, ...) after its predict"
        assert len(rev.args) >= 2 and not _is_literal(rev.args[1]), f"{pid}: reveal must grade a measured value"
        assert any(k.arg == "why" for k in rev.keywords), f"{pid}: reveal needs why="
    assert set(reveals) <= set(ids), f"lesson {nn}: reveal without predict: {sorted(set(reveals) - set(ids))}"
    cells = _stored_text(lesson.with_suffix(".ipynb"))
    for pid in ids:
        pred_out = [o for s, o in cells if re.search(rf"""predict\(\s*["']{re.escape(pid)}["']""", s)]
        rev_out = [o for s, o in cells if re.search(rf"""reveal\(\s*["']{re.escape(pid)}["']""", s)]
        assert pred_out and f"… {pid} not answered yet" in pred_out[0], (
            f"{pid}: stored predict output is not unanswered"
        )
        assert rev_out and f"… {pid} not answered yet" in rev_out[0], f"{pid}: stored reveal output is not unanswered"
