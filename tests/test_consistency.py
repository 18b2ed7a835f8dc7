"""Consistency of the course as files: what nbval alone cannot catch.

nbval compares outputs of cells that have stored outputs; it cannot see a notebook
that was never executed, a .py edited without a rebuild, an exercise file edited by
hand, or a check missing from a notebook. These tests do.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from torchcourse.authoring import build
from torchcourse.authoring.course import MODULES, ROOT, markdown_table, readme_table, written_modules
from torchcourse.grading.checks import CHECK_LINE, FAIL, PASS, REGISTRY, TODO
from torchcourse.preflight import EXPECTED_TORCH

FOLDERS = ("notebooks", "solutions", "exercises")
SOURCES = [p for folder in FOLDERS for p in sorted((ROOT / folder).glob("*.py"))]
NOTEBOOKS = [p for folder in FOLDERS for p in sorted((ROOT / folder).glob("*.ipynb"))]


def rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def test_there_are_notebooks():
    assert len(SOURCES) >= 3 and NOTEBOOKS


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=rel)
def test_every_ipynb_has_its_py(nb):
    assert nb.with_suffix(".py").exists(), f"{rel(nb)} has no paired .py source"


@pytest.mark.parametrize("py", SOURCES, ids=rel)
def test_ipynb_is_fresh_and_executed(py):
    reason = build.staleness(py)
    assert reason is None, f"{rel(py)}: {reason}; rebuild with `make notebooks`"


def test_exercises_regenerate_from_solutions_without_a_diff():
    for path, text in build.generated_exercises().items():
        assert path.exists(), f"{rel(path)} missing; run `make notebooks`"
        assert path.read_text(encoding="utf-8") == text, f"{rel(path)} was edited by hand or is stale"
    solutions = {p.name for p in (ROOT / "solutions").glob("*.py")}
    exercises = {p.name for p in (ROOT / "exercises").glob("*.py")}
    assert solutions == exercises


def test_build_check_mode_reports_fresh():
    proc = subprocess.run(
        [sys.executable, "-m", "torchcourse.authoring.build", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_modules_on_disk_follow_the_course_index():
    stems = {m.stem for m in MODULES}
    for folder in FOLDERS:
        for py in (ROOT / folder).glob("*.py"):
            assert py.stem in stems, f"{rel(py)} is not a module of torchcourse/authoring/course.py"
    for m in MODULES:
        if m.written:
            for folder in ("solutions", "exercises"):
                assert m.path(folder, ".py").exists(), f"module {m.number} has a lesson but no {folder}/ notebook"


def _check_lines(nb: Path) -> list[tuple[str, str]]:
    cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
    text = "".join("".join(o.get("text", "")) for c in cells if c["cell_type"] == "code" for o in c.get("outputs", []))
    return CHECK_LINE.findall(text)


@pytest.mark.parametrize("module", [m for m in MODULES if m.path("solutions", ".py").exists()], ids=lambda m: m.number)
def test_checks_pass_in_solutions_and_wait_in_exercises(module):
    registered = [ex.id for ex in REGISTRY.module_exercises(module.number)]
    assert len(registered) >= 6, f"module {module.number}: {len(registered)} exercises, the course wants 6 or more"
    solved = _check_lines(module.path("solutions"))
    waiting = _check_lines(module.path("exercises"))
    assert [i for mark, i in solved if mark == FAIL] == [], f"failing checks in solutions/{module.stem}"
    assert [i for mark, i in solved if mark == PASS] == registered, "each exercise checked once, in order, with ✓"
    assert [i for mark, i in waiting if mark == TODO] == registered, "each exercise shows 'not attempted' in exercises/"
    assert len(solved) == len(waiting) == len(registered)


def test_pytest_collects_every_notebook_on_disk():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "--nbval",
            "--nbval-current-env",
            *FOLDERS,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    collected = {line.split("::")[0] for line in proc.stdout.splitlines() if ".ipynb::" in line}
    assert collected == {rel(nb) for nb in NOTEBOOKS}, proc.stdout[-2000:] + proc.stderr[-2000:]


def _recorded_checksums() -> dict[str, str]:
    readme = (ROOT / "data" / "README.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^\|\s*`([^`]+)`\s*\|.*\|\s*`?([0-9a-f]{64})`?\s*\|\s*$", readme, re.MULTILINE))


def test_data_files_match_their_recorded_sha256():
    recorded = _recorded_checksums()
    on_disk = {p.name for p in (ROOT / "data").iterdir() if p.is_file() and p.name != "README.md"}
    assert set(recorded) == on_disk, "data/README.md must list every data file (and only those) with its sha256"
    for name, digest in recorded.items():
        actual = hashlib.sha256((ROOT / "data" / name).read_bytes()).hexdigest()
        assert actual == digest, f"data/{name}: sha256 {actual}, README records {digest}"


def _pins(text: str) -> dict[str, str]:
    return dict(re.findall(r"^\s*(?:-\s+)?([A-Za-z0-9_.\-]+)==([^\s#]+)\s*$", text, re.MULTILINE))


def test_requirements_and_environment_pin_the_same_versions():
    req = _pins((ROOT / "requirements.txt").read_text())
    env = _pins((ROOT / "environment.yml").read_text())
    assert req == env
    # the preflight and the setup cell compare the running torch with this one constant
    assert req["torch"] == EXPECTED_TORCH


def test_every_lesson_states_its_time():
    for m in written_modules():
        assert m.minutes, f"notebooks/{m.stem}.py needs a line '**Time.** N min teaching, M min exercises.'"


def test_readme_module_table_is_current():
    assert readme_table().strip() == markdown_table().strip(), (
        "README's module table is stale: run `.venv/bin/python -m torchcourse.authoring.course --write-readme`"
    )


def test_instructor_guide_is_generated_from_the_current_lessons():
    from torchcourse.authoring import guide

    assert guide.GUIDE.exists(), "run `.venv/bin/python -m torchcourse.authoring.guide`"
    assert guide.GUIDE.read_text(encoding="utf-8") == guide.render(), (
        "docs/INSTRUCTORS.md is stale: run `.venv/bin/python -m torchcourse.authoring.guide`"
    )
    for m in written_modules():
        facts = guide.lesson_facts(m)
        assert facts.objectives and facts.key_points, f"notebooks/{m.stem}.py: objectives or key points not found"
