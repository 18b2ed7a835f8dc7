"""CONTRIBUTING.md's "Adding a module, end to end", followed step by step in a temporary copy of
the course: register a throwaway module 18, write its solutions, checks and lesson, build it with
the Makefile's own target, then run the course's consistency, check, lint and nbval tests on the
result. If CONTRIBUTING leaves a step out, or a step stops working, this test fails.

The copy uses this checkout's .venv (through a symlink) and imports its own ``torchcourse``
(PYTHONPATH), so nothing outside the temporary folder changes. ``make -o .venv/.installed``
keeps make from reinstalling the package into the shared venv.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from torchcourse.authoring.course import ROOT

SLUG = "18_scaffold_check"

SOLUTIONS = """
# %% [markdown]
# # 18 · Scaffold check: exercises
#
# Exercises for the lesson [18 · Scaffold check](../notebooks/18_scaffold_check.ipynb).

# %%
import torch

from torchcourse import check, hint

# %% [markdown]
# ### 18.1 · Row sums (warm-up)
#
# Write `row_sums(t)` that returns the sum of each row of the 2-D tensor `t`.


# %%
def row_sums(t):
    ### BEGIN SOLUTION
    return t.sum(dim=1)
    ### END SOLUTION


check("18.1", row_sums)

# %% [markdown]
# ### 18.2 · Column maxima
#
# Write `column_max(t)` that returns the largest value of each column.


# %%
def column_max(t):
    ### BEGIN SOLUTION
    return t.amax(dim=0)
    ### END SOLUTION


check("18.2", column_max)

# %% [markdown]
# ### 18.3 · Centre the columns
#
# Write `centre(t)` that subtracts each column's mean from that column.


# %%
def centre(t):
    ### BEGIN SOLUTION
    return t - t.mean(dim=0)
    ### END SOLUTION


check("18.3", centre)

# %% [markdown]
# ### 18.4 · Unit rows
#
# Write `unit_rows(t)` that divides each row by its Euclidean norm.


# %%
def unit_rows(t):
    ### BEGIN SOLUTION
    return t / torch.linalg.vector_norm(t, dim=1, keepdim=True)
    ### END SOLUTION


check("18.4", unit_rows)

# %% [markdown]
# ### 18.5 · Count the positives
#
# Write `count_positive(t)` that returns how many entries are above zero, as a Python int.


# %%
def count_positive(t):
    ### BEGIN SOLUTION
    return int((t > 0).sum())
    ### END SOLUTION


check("18.5", count_positive)

# %% [markdown]
# ### 18.6 · Clip to [-1, 1] (stretch)
#
# Write `clip_unit(t)` that limits every entry to the interval [-1, 1].


# %%
def clip_unit(t):
    ### BEGIN SOLUTION
    return t.clamp(-1, 1)
    ### END SOLUTION


check("18.6", clip_unit)
"""

CHECKS = '''"""Module 18 "Scaffold check": a throwaway module written by tests/test_scaffold.py."""

from __future__ import annotations

import torch

from ..checks import Exercise
from ._inputs import randn
from ._solutions import solution


def _cases():
    return [(randn(3, 4, seed=0),), (randn(5, 2, seed=1),), (randn(1, 6, seed=2),)]


def _ex(number, title, reference, hints, wrong):
    return Exercise(f"18.{number}", title, reference, cases=_cases, hints=hints, wrong=wrong)


EXERCISES = [
    _ex(1, "Row sums", solution("18", "row_sums"), ["Sum along dim=1.", "t.sum(dim=1)"],
        [lambda t: t.sum(dim=0), lambda t: t.sum()]),
    _ex(2, "Column maxima", solution("18", "column_max"), ["A column runs along dim 0.", "t.amax(dim=0)"],
        [lambda t: t.amax(dim=1), lambda t: t.max()]),
    _ex(3, "Centre the columns", solution("18", "centre"), ["Mean over dim 0.", "Broadcast the subtraction."],
        [lambda t: t - t.mean(), lambda t: t - t.mean(dim=1, keepdim=True)]),
    _ex(4, "Unit rows", solution("18", "unit_rows"),
        ["torch.linalg.vector_norm with dim=1.", "keepdim=True lets it broadcast."],
        [lambda t: t / torch.linalg.vector_norm(t), lambda t: t / torch.linalg.vector_norm(t, dim=0)]),
    _ex(5, "Count the positives", solution("18", "count_positive"), ["t > 0 is a boolean mask.", "int() of its sum."],
        [lambda t: int((t >= 0).sum()) + 1, lambda t: int((t < 0).sum())]),
    _ex(6, "Clip to [-1, 1]", solution("18", "clip_unit"), ["torch.clamp", "min=-1, max=1"],
        [lambda t: t.clamp(0, 1), lambda t: t.clamp(min=-1)]),
]
'''

LESSON = """
# %% [markdown]
# # 18 · Scaffold check
#
# A throwaway module that proves CONTRIBUTING.md's steps work.
#
# **Objectives.** After this notebook you can:
# 1. reduce a 2-D tensor along either dimension;
# 2. tell `dim=0` from `dim=1`.
#
# **Prerequisites.** Module 05.
#
# **Time.** 10 min teaching, 10 min exercises.

# %%
import matplotlib.pyplot as plt
import torch

t = torch.arange(12.0).view(3, 4)
print("row sums:", t.sum(dim=1).tolist(), "| column sums:", t.sum(dim=0).tolist())

# %%
fig, ax = plt.subplots(figsize=(4, 2))
ax.bar(range(4), t.sum(dim=0))
ax.set(xlabel="column", ylabel="sum", title="Column sums")
plt.show()

# %% [markdown]
# ## Common mistakes
#
# **Reducing along a dimension that does not exist.**

# %% tags=["raises-exception"]
t.sum(dim=2)

# %% [markdown]
# ## Key points
#
# * `dim=0` reduces down the columns, `dim=1` along the rows.
"""


def sh(cmd: list[str], cwd: Path, env: dict[str, str], timeout: int = 600) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


def copy_course(dest: Path) -> None:
    """The files a clean clone has (git's tracked files, as they are in the working tree)."""
    if (ROOT / ".git").exists() and shutil.which("git"):
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        names = [n for n in listed.decode().split("\0") if n]
    else:  # an unpacked archive: everything but what is built or installed
        skip = {".venv", ".drift", "build", "site", "results", ".pytest_cache", "__pycache__"}
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.parts)]
    for name in names:
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)


@pytest.mark.skipif(not (ROOT / ".venv" / "bin" / "python").exists(), reason="needs the course's .venv (make test)")
@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_a_module_added_by_following_contributing_passes_the_tests(tmp_path: Path):
    course = tmp_path / "course"
    copy_course(course)
    (course / ".venv").symlink_to(ROOT / ".venv")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TORCHCOURSE_"))}
    env["PYTHONPATH"] = str(course)
    py = str(course / ".venv" / "bin" / "python")

    # 1. Register it in torchcourse/authoring/course.py (MODULES).
    course_py = course / "torchcourse" / "authoring" / "course.py"
    text = course_py.read_text()
    registered = text.replace(
        "\n]\n\n\ndef by_number",
        '\n    Module("18", "scaffold_check", "Scaffold check", "a throwaway module from tests/test_scaffold.py"),\n]'
        "\n\n\ndef by_number",
        1,
    )
    assert registered != text, "MODULES must end with ']' before by_number, as CONTRIBUTING's step 1 assumes"
    course_py.write_text(registered)

    # 2. Solutions (copying the header of solutions/00_start_here.py) and 3. the checks.
    header = re.match(r"# ---\n.*?\n# ---\n", (ROOT / "solutions" / "00_start_here.py").read_text(), re.DOTALL)
    assert header, "solutions/00_start_here.py must start with a jupytext header"
    (course / "solutions" / f"{SLUG}.py").write_text(header.group(0) + SOLUTIONS)
    (course / "torchcourse" / "grading" / "exercises" / "m18.py").write_text(CHECKS)

    # 4. The lesson.
    (course / "notebooks" / f"{SLUG}.py").write_text(header.group(0) + LESSON)

    # 5. Build: format, make notebooks, module 00, README table, instructor guide.
    sh([py, "-m", "ruff", "format", "notebooks", "solutions", "torchcourse"], course, env)  # as CONTRIBUTING says
    built = sh(["make", "-o", ".venv/.installed", "notebooks"], course, env)
    executed = re.findall(r"^executed (\S+)", built, re.MULTILINE)
    assert sorted(executed) == sorted(f"{d}/{SLUG}.py" for d in ("notebooks", "solutions", "exercises")), built
    assert "markdown refreshed in notebooks/17_compile_once.ipynb" in built, built
    sh(["make", "-o", ".venv/.installed", "notebooks", "BUILD_ARGS=notebooks/00_start_here.py"], course, env)
    sh([py, "-m", "torchcourse.authoring.course", "--write-readme"], course, env)
    sh([py, "-m", "torchcourse.authoring.guide"], course, env)
    assert "| 18 | Scaffold check |" in (course / "README.md").read_text()

    # 6. What make test requires: lint, consistency, the checks, and nbval on the new notebooks,
    # on module 00 (rebuilt) and on a notebook whose navigation was refreshed without execution.
    sh([py, "-m", "ruff", "check", "."], course, env)
    sh(
        [py, "-m", "ruff", "format", "--check", "torchcourse", "tests", "notebooks", "solutions", "exercises"],
        course,
        env,
    )
    pytest_cmd = [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x"]
    # test_checks.py for module 18's exercises only: the other modules' run in the suite itself
    # (the whole file again here took about three minutes of make test's time).
    sh([*pytest_cmd, "tests/test_consistency.py", "tests/test_one_source.py"], course, env, timeout=900)
    checked = sh([*pytest_cmd, "tests/test_checks.py", "-k", "18"], course, env, timeout=900)
    passed = re.search(r"(\d+) passed", checked)
    assert passed and int(passed.group(1)) >= 6 and "failed" not in checked, checked[-2000:]  # six exercises
    notebooks = [f"{d}/{SLUG}.ipynb" for d in ("notebooks", "solutions", "exercises")]
    nbval = ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", "tests/sanitize.cfg"]
    out = sh(
        [*pytest_cmd, *nbval, *notebooks, "notebooks/00_start_here.ipynb", "notebooks/01_data_to_tensors.ipynb"],
        course,
        env,
    )
    assert re.search(r"\d+ passed", out) and "failed" not in out, out[-2000:]
    exercises_nb = (course / "exercises" / f"{SLUG}.ipynb").read_text()
    assert exercises_nb.count("not attempted yet") == 6 and "Module 18 of 00–18" in exercises_nb
    assert f"next: [18 · Scaffold check]({SLUG}.ipynb)" in (course / "notebooks" / "17_compile_once.ipynb").read_text()
