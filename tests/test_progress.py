"""Progress: where verdicts are kept, a learner's table in a fresh kernel, a room's merge."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import torchcourse.progress as progress_store
from torchcourse.progress_report import catalogue, format_room, learner_table, main, read_room, room_table

ROOT = Path(__file__).resolve().parent.parent


def test_location_is_off_memory_or_a_file(monkeypatch, tmp_path):
    monkeypatch.setenv("TORCHCOURSE_PROGRESS", "0")
    assert progress_store.location() is None
    monkeypatch.setenv("TORCHCOURSE_PROGRESS", str(tmp_path / "p.json"))
    assert progress_store.location() == tmp_path / "p.json"
    monkeypatch.delenv("TORCHCOURSE_PROGRESS")
    # under the suite (strict claims) nothing goes to the home folder: stored outputs never depend on it
    assert progress_store.location() == "memory"
    monkeypatch.setenv("TORCHCOURSE_STRICT_CLAIMS", "0")
    monkeypatch.delenv("TORCHCOURSE_BUILD", raising=False)
    assert progress_store.location() == "memory"  # a learner-mode kernel started by a test
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    assert progress_store.location() == Path.home() / ".torchcourse" / "progress.json"


def test_off_records_nothing(monkeypatch, tmp_path):
    monkeypatch.setenv("TORCHCOURSE_PROGRESS", "off")
    progress_store.record("exercises", "00.1", "pass")
    assert progress_store.current()["exercises"] == {}


def test_writes_are_atomic_and_a_corrupt_file_is_set_aside(monkeypatch, tmp_path):
    path = tmp_path / "sub" / "p.json"
    monkeypatch.setenv("TORCHCOURSE_PROGRESS", str(path))
    progress_store.record("exercises", "00.1", "fail")
    progress_store.record("exercises", "00.1", "pass")  # the latest verdict wins
    assert json.loads(path.read_text())["exercises"]["00.1"]["verdict"] == "pass"
    path.write_text('{"exercises": {"00.1": ')  # a kernel killed mid-write by another tool
    progress_store.record("predictions", "00.p1", "right")
    assert (tmp_path / "sub" / "p.json.corrupt").exists()
    assert progress_store.load(path)["predictions"]["00.p1"]["verdict"] == "right"
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(".progress-")] == []  # no temp left


def test_an_unwritable_place_never_breaks_a_lesson(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(progress_store, "_warned", False)  # said once per process: an earlier call may have said it
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("TORCHCOURSE_PROGRESS", str(tmp_path / "file" / "p.json"))  # a file as a folder
    progress_store.record("exercises", "00.1", "pass")
    assert "progress not saved" in capsys.readouterr().err


def test_learner_table_counts_against_the_registered_totals():
    cat = catalogue()
    assert cat["exercises"]["00"] == [f"00.{k}" for k in range(1, 8)]
    data = {
        "exercises": {"00.1": {"verdict": "pass"}, "00.2": {"verdict": "fail"}, "00.3": {"verdict": "todo"}},
        "predictions": {"00.p1": {"verdict": "right"}, "00.p2": {"verdict": "unanswered"}},
    }
    row = next(r for r in learner_table(data, cat) if r["module"] == "00")
    assert row["exercises"] == {"total": 7, "pass": 1, "fail": 1, "open": 5}
    assert row["predictions"]["right"] == 1 and row["predictions"]["wrong"] == 0


def test_progress_in_a_fresh_kernel(tmp_path):
    """Checks and a reveal in a new process, then ``progress()`` reads them back from the file, and
    the merge command reads it as a room of one (one process: each start imports torch)."""
    script = """
from torchcourse import check, predict, progress, reveal
from torchcourse.grading.exercises._solutions import solution

def stub(*args):
    raise NotImplementedError

check("00.1", solution("00", "column_of"))
check("00.2", lambda t: None)
check("00.3", stub)
predict("00.p1", 2)
reveal("00.p1", 1 + 1, why="measured")
progress()

# the instructor's command, as `python -m torchcourse.progress merge FILE --out DIR` runs it
import runpy, sys, warnings
sys.argv = ["torchcourse.progress", "merge", sys.argv[1], "--out", sys.argv[2]]
warnings.simplefilter("ignore", RuntimeWarning)  # runpy: the module is imported already in this process
try:
    runpy.run_module("torchcourse.progress", run_name="__main__")
except SystemExit as exc:
    assert exc.code == 0, exc.code
"""
    env = {**os.environ, "TORCHCOURSE_PROGRESS": str(tmp_path / "p.json"), "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"}
    env.pop("TORCHCOURSE_STRICT_CLAIMS", None)
    cmd = [sys.executable, "-c", script, str(tmp_path / "p.json"), str(tmp_path)]
    out = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    row = next(ln for ln in out.stdout.splitlines() if ln.startswith("00 "))
    n_pred = len(set(catalogue()["predictions"].get("00", [])) | {"00.p1"})
    # solved, not yet right, not tried, of 7; predictions right, wrong, unanswered, of all
    assert row.split() == ["00", "1", "1", "5", "7", "1", "0", str(n_pred - 1), str(n_pred)], row
    assert f"in {tmp_path / 'p.json'}" in out.stdout
    assert "1 learner(s)" in out.stdout and (tmp_path / "room-progress.png").exists()


def _learner(tmp: Path, name: str, exercises: dict, preds: dict) -> Path:
    path = tmp / name / ".torchcourse" / "progress.json"
    path.parent.mkdir(parents=True)
    data = {
        "version": 1,
        "exercises": {k: {"verdict": v, "time": "t"} for k, v in exercises.items()},
        "predictions": {k: {"verdict": v, "time": "t"} for k, v in preds.items()},
    }
    path.write_text(json.dumps(data))
    return path


def test_merge_a_room(tmp_path, capsys):
    _learner(tmp_path, "ana", {"00.1": "pass", "00.2": "fail"}, {"00.p1": "right"})
    _learner(tmp_path, "ben", {"00.1": "pass", "00.2": "pass"}, {"00.p1": "wrong"})
    _learner(tmp_path, "cho", {"00.1": "fail", "01.1": "todo"}, {})
    (tmp_path / "notes.json").write_text('{"not": "progress"}')
    (tmp_path / "broken.json").write_text("{")
    learners, skipped = read_room([*sorted(tmp_path.rglob("*.json"))])
    assert len(learners) == 3 and {p.name for p in skipped} == {"notes.json", "broken.json"}
    rows = {r[0]: r[1:] for r in room_table(learners)}
    assert rows["00.1"] == (2, 1, 0) and rows["00.2"] == (1, 1, 1) and rows["01.1"] == (0, 0, 3)
    assert rows["00.p1"] == (1, 1, 1)
    assert "00.2    1   1   1  █▒·" in format_room(room_table(learners), 3)
    out = tmp_path / "out"
    assert main(["merge", str(tmp_path), "--out", str(out)]) == 0
    assert (out / "room-progress.png").stat().st_size > 10_000
    assert "3 learner(s)" in capsys.readouterr().out


@pytest.mark.parametrize("empty", ["", "nothing"])
def test_merge_without_files_says_so(tmp_path, empty, capsys):
    assert main(["merge", str(tmp_path / empty)]) == 1
