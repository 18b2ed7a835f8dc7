"""The course on another torch: the version-tolerant mode, the drift report, the torch check.

* In drift mode a cell tagged ``version-specific`` is executed but not compared, while every
  other cell is still compared; on the pinned torch (strict mode) the tagged cell is compared
  too, so tolerance never weakens the pinned run. Proven with nbval on a two-cell notebook
  whose stored outputs differ from what the cells print.
* The drift report counts cells run, compared, differing and raising per notebook and fails
  on an empty run.
* ``check_torch`` is silent on the pinned torch, notes another release on stderr (never
  stdout) with the supported range, and stops below the minimum naming what is missing.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import types

import nbformat
import pytest

from torchcourse import preflight
from torchcourse.authoring import drift
from torchcourse.authoring.course import ROOT


def _notebook(tmp_path):
    """Two executed cells whose stored outputs are not what they print: one tagged
    version-specific, one not."""
    nb = nbformat.v4.new_notebook()
    tagged = nbformat.v4.new_code_cell('print("printed by this torch")', execution_count=1)
    tagged.metadata["tags"] = [drift.VERSION_SPECIFIC]
    tagged.outputs = [nbformat.v4.new_output("stream", name="stdout", text="printed by another torch\n")]
    plain = nbformat.v4.new_code_cell('print("same everywhere")', execution_count=2)
    plain.outputs = [nbformat.v4.new_output("stream", name="stdout", text="same everywhere\n")]
    nb.cells = [tagged, plain]
    path = tmp_path / "vs.ipynb"
    nbformat.write(nb, path)
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    return path


def _nbval(tmp_path, mode: str, record=None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHCOURSE_DRIFT")}
    env[drift.ENV_FORCE] = mode
    if record:
        env[drift.ENV_RECORD] = str(record)
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--nbval", "--nbval-current-env"]
    cmd += ["--rootdir", str(tmp_path), "--nbval-sanitize-with", str(ROOT / "tests" / "sanitize.cfg"), "vs.ipynb"]
    return subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)


def test_a_version_specific_cell_is_compared_on_the_pinned_torch_and_only_run_on_another(tmp_path):
    _notebook(tmp_path)
    strict = _nbval(tmp_path, "0")
    assert strict.returncode == 1 and "1 failed, 1 passed" in strict.stdout, strict.stdout[-2000:]
    assert "printed by another torch" in strict.stdout  # the diff of the tagged cell
    record = tmp_path / "record.jsonl"
    tolerant = _nbval(tmp_path, "1", record)
    assert tolerant.returncode == 0, tolerant.stdout[-2000:]
    assert "2 cells executed, 1 of them compared" in tolerant.stdout, tolerant.stdout[-1500:]
    books, _, _ = drift.summarise([json.loads(ln) for ln in record.read_text().splitlines()])
    (nb,) = books.values()
    assert (nb.run, nb.compared, nb.differ, nb.raised) == (2, 1, [], [])


def test_in_drift_mode_an_untagged_cell_that_differs_still_fails(tmp_path):
    path = _notebook(tmp_path)
    nb = nbformat.read(path, as_version=4)
    nb.cells[1].outputs[0]["text"] = "something else\n"
    nbformat.write(nb, path)
    record = tmp_path / "record.jsonl"
    run = _nbval(tmp_path, "1", record)
    assert run.returncode == 1
    report = drift.markdown([json.loads(ln) for ln in record.read_text().splitlines()], "9.9.9", 1, tmp_path)
    assert "**Verdict: FAIL**" in report and "| vs.ipynb | 2 | 1 | 1 | 0 |" in report, report
    assert 'print("same everywhere")' in report, "the differing cell is named by its first line"


def _record(nodeid, when="call", outcome="passed", compared=True, longrepr=""):
    return json.loads(drift.record_line(nodeid, when, outcome, compared, longrepr))


def test_the_report_counts_raising_cells_and_unit_tests_and_an_empty_run_fails(tmp_path):
    records = [
        _record("notebooks/a.ipynb::Cell 0"),
        _record("notebooks/a.ipynb::Cell 1", outcome="failed", longrepr="ValueError: substring not found"),
        _record("notebooks/a.ipynb::Cell 2", compared=False),
        _record("tests/test_x.py::test_ok", compared=None),
        _record("tests/test_x.py::test_bad", outcome="failed", compared=None, longrepr="AssertionError"),
    ]
    report = drift.markdown(records, "9.9.9", 1, tmp_path)
    assert "| notebooks/a.ipynb | 3 | 2 | 0 | 1 |" in report
    assert "ValueError: substring not found" in report
    assert "1 failed, 1 passed" in report and "`tests/test_x.py::test_bad (call)`" in report
    assert "**Verdict: FAIL**" in report
    assert "**Verdict: FAIL**" in drift.markdown([], "9.9.9", 5, tmp_path), "an empty run proves nothing"
    clean = drift.markdown(records[:1] + records[2:4], "9.9.9", 0, tmp_path)
    assert "**Verdict: pass**" in clean


def test_drift_mode_is_on_exactly_when_torch_is_not_the_pinned_one(monkeypatch):
    monkeypatch.delenv(drift.ENV_FORCE, raising=False)
    monkeypatch.setattr(drift, "running_torch", lambda: preflight.EXPECTED_TORCH + "+cpu")
    assert not drift.drift_mode()
    monkeypatch.setattr(drift, "running_torch", lambda: "2.15.0")
    assert drift.drift_mode()
    monkeypatch.setenv(drift.ENV_FORCE, "0")
    assert not drift.drift_mode()


def _fake_torch(version):
    return types.SimpleNamespace(__version__=version)


def test_check_torch_is_silent_on_the_pin_and_notes_another_release_on_stderr_only(capsys):
    err = io.StringIO()
    assert preflight.check_torch(err, _fake_torch(preflight.EXPECTED_TORCH + "+cpu")) == "pinned"
    assert err.getvalue() == ""
    assert preflight.check_torch(err, _fake_torch(preflight.NEWEST_TESTED_TORCH)) == "supported"
    note = err.getvalue()
    assert preflight.MINIMUM_TORCH in note and preflight.EXPECTED_TORCH in note and "supported range" in note
    assert preflight.check_torch(None, _fake_torch("99.0.0")) == "newer"
    out, stderr = capsys.readouterr()
    assert out == "" and "newer than" in stderr, "the note goes to stderr: stored stdout stays the same"


def test_below_the_minimum_check_torch_stops_and_names_what_is_missing():
    old = types.SimpleNamespace(__version__="2.0.1")  # no cond, no torch.func, no compiler.reset
    with pytest.raises(preflight.UnsupportedTorch) as info:
        preflight.check_torch(io.StringIO(), old)
    message = str(info.value)
    assert "older than " + preflight.MINIMUM_TORCH in message
    assert "torch.cond (used by module 11" in message
    assert f"pip install torch=={preflight.EXPECTED_TORCH}" in message
