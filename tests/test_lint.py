"""The lint hooks: the tree is clean, and a planted error is caught (make lint runs the same ruff)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from torchcourse.authoring.course import ROOT

RUFF = [sys.executable, "-m", "ruff"]


def test_the_tree_passes_ruff():
    lint = subprocess.run([*RUFF, "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout[-3000:]
    fmt = subprocess.run(
        [*RUFF, "format", "--check", "torchcourse", "tests", "notebooks", "solutions", "exercises"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert fmt.returncode == 0, fmt.stdout[-3000:]


def test_generated_sources_come_out_formatted(tmp_path: Path):
    """The build writes the notebook sources (navigation, setup cell, exercises): what it writes
    must already satisfy ruff format, or every build would fail `make lint`."""
    from torchcourse.authoring.build import generated_exercises
    from torchcourse.authoring.navigation import apply

    for i, (path, text) in enumerate(generated_exercises().items()):
        (tmp_path / f"ex{i}_{path.name}").write_text(text)
    lesson = tmp_path / "notebooks" / "03_strides.py"
    lesson.parent.mkdir()
    lesson.write_text((ROOT / "notebooks" / "03_strides.py").read_text())
    apply(lesson)
    fmt = subprocess.run(
        [*RUFF, "format", "--check", "--config", str(ROOT / "pyproject.toml"), str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert fmt.returncode == 0, fmt.stdout[-3000:]


def test_a_planted_format_error_is_caught(tmp_path: Path):
    planted = tmp_path / "notebooks" / "99_planted.py"
    planted.parent.mkdir()
    planted.write_text("# %%\nx = {'a':1}\n")
    result = subprocess.run(
        [*RUFF, "format", "--check", "--config", str(ROOT / "pyproject.toml"), str(planted)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1 and "99_planted.py" in result.stdout


def test_a_planted_lint_error_is_caught(tmp_path: Path):
    planted = tmp_path / "torchcourse" / "planted.py"
    planted.parent.mkdir()
    planted.write_text("import os\n\n\ndef f():\n    return undefined_name\n")
    result = subprocess.run(
        [*RUFF, "check", "--config", str(ROOT / "pyproject.toml"), str(planted)], capture_output=True, text=True
    )
    assert result.returncode == 1
    assert "F401" in result.stdout and "F821" in result.stdout


def test_pre_commit_config_runs_ruff_and_the_build_check():
    config = (ROOT / ".pre-commit-config.yaml").read_text()
    assert "ruff check" in config and "ruff format" in config and "torchcourse.authoring.build --check" in config
    assert "nbstripout" not in config.split("nbstripout is deliberately absent")[-1]
    (test_rule,) = re.findall(r"^test:(.*)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert "lint" in test_rule.split()
