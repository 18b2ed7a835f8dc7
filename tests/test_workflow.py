"""The hosted-CI workflow is valid YAML and runs the same command as .ci/run."""

from __future__ import annotations

import yaml

from torchcourse.course import ROOT


def test_workflow_runs_the_same_suite_as_ci_run():
    wf = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    steps = wf["jobs"]["test"]["steps"]
    runs = [s.get("run", "") for s in steps]
    assert "bash .ci/run" in runs
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    assert any("cache" in s.get("uses", "") for s in steps) and any(
        "upload-artifact" in s.get("uses", "") for s in steps
    )
    assert "3.11" in wf["jobs"]["test"]["container"]
