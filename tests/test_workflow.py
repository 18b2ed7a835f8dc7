"""The hosted-CI workflow is valid YAML and runs the same command as .ci/run."""

from __future__ import annotations

import yaml

from torchcourse.authoring.course import ROOT


def test_workflow_runs_the_same_suite_as_ci_run():
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    steps = wf["jobs"]["test"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert "bash .ci/run" in runs
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    assert any("cache" in s.get("uses", "") for s in steps) and any(
        "upload-artifact" in s.get("uses", "") for s in steps
    )
    job = wf["jobs"]["test"]
    assert job["strategy"]["matrix"]["python"] == ["3.11", "3.12", "3.13"], "every Python the README names"
    assert "${{ matrix.python }}" in job["container"]


def test_a_scheduled_job_runs_the_drift_suite_on_the_newest_torch_and_uploads_its_report():
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    triggers = wf[True]  # YAML 1.1 reads the key `on` as True
    assert triggers["schedule"], "no scheduled trigger"
    drift = wf["jobs"]["drift"]
    assert "schedule" in drift["if"]
    runs = " ".join(s.get("run", "") for s in drift["steps"])
    assert "make drift TORCH=" in runs and "TORCH_INDEX=cpu" in runs
    assert "pip index versions torch" in runs, "the newest release is looked up, not hard-coded"
    uploads = [s for s in drift["steps"] if "upload-artifact" in s.get("uses", "")]
    assert uploads and "results/drift-" in uploads[0]["with"]["path"]
    assert wf["jobs"]["test"]["env"]["TORCH_INDEX"] == "cpu", "hosted CI installs the CPU build"
