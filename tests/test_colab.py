"""The setup cell every notebook opens with (torchcourse.authoring.colab): locally it installs nothing;
on Colab it clones the course and installs torchcourse from it, or says in one line what is missing.

The Colab branch runs for real in a subprocess with a stand-in ``google.colab`` module: git
clones this repository (committed state) into a temporary folder, and the pip command is
recorded instead of run, so the course's venv is not touched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jupytext
import pytest

from torchcourse.authoring import colab
from torchcourse.authoring.build import sources
from torchcourse.authoring.course import ROOT
from torchcourse.authoring.navigation import module_of
from torchcourse.preflight import EXPECTED_TORCH, MINIMUM_TORCH, NEWEST_TESTED_TORCH

# Runs the cell given as argv[1]; argv[2] is "local" or "colab"; argv[3], when given, is the
# torch version the cell is made to see. Prints one JSON line.
RUNNER = r"""
import json, os, subprocess, sys, types

mode, cell = sys.argv[2], open(sys.argv[1]).read()
import torch  # imported first: a CUDA build's own import may start a process, which is not the cell's doing
if len(sys.argv) > 3:
    torch.__version__ = sys.argv[3]
calls, probes = [], []
real_run = subprocess.run

def run(cmd, *args, **kwargs):
    if list(cmd)[-1:] in (["--version"], ["/help"]):
        # check_torch asks whether a C++ compiler answers (torchcourse.compiletools.find_compiler):
        # recorded apart, answered as a compiler would, and never an install
        probes.append(list(cmd))
        return subprocess.CompletedProcess(cmd, 0, stdout="c++ (stand-in)", stderr="")
    calls.append(list(cmd))
    if mode == "local":
        raise AssertionError(f"the local branch ran a command: {cmd}")
    if cmd[0] == "git":
        return real_run(cmd, *args, **kwargs)
    return subprocess.CompletedProcess(cmd, 0)  # pip: recorded, not run

def forbidden(*args, **kwargs):
    raise AssertionError("the setup cell must not start processes this way")

subprocess.run = run
subprocess.call = subprocess.check_call = os.system = forbidden
if mode == "local":
    subprocess.Popen = forbidden  # (subprocess.run needs it in the Colab branch, for git)
if mode == "colab":
    sys.modules["google"] = types.ModuleType("google")
    sys.modules["google.colab"] = types.ModuleType("google.colab")
path_before, cwd_before = list(sys.path), os.getcwd()
error = None
try:
    exec(compile(cell, "setup-cell", "exec"), {"__name__": "__main__"})
except Exception as exc:
    error = f"{type(exc).__name__}: {exc}"
result = {"calls": calls, "probes": probes, "error": error, "path_changed": sys.path != path_before,
          "cwd_changed": os.getcwd() != cwd_before, "pip_imported": "pip" in sys.modules}
if mode == "colab" and error is None:
    import torchcourse
    result["torchcourse"] = torchcourse.__file__
    result["iris_exists"] = torchcourse.data_path("iris.csv").exists()
print("RESULT " + json.dumps(result))
"""


def run_cell(
    tmp_path: Path, cell: str, mode: str, env: dict[str, str], torch_version: str | None = None
) -> tuple[dict, str]:
    result, printed, _ = run_cell_stderr(tmp_path, cell, mode, env, torch_version)
    return result, printed


def run_cell_stderr(
    tmp_path: Path, cell: str, mode: str, env: dict[str, str], torch_version: str | None = None
) -> tuple[dict, str, str]:
    """Like :func:`run_cell`, and also what the cell wrote to stderr."""
    (tmp_path / "cell.py").write_text(cell)
    (tmp_path / "runner.py").write_text(RUNNER)
    base = {k: v for k, v in os.environ.items() if not k.startswith("TORCHCOURSE_")}
    fake = [torch_version] if torch_version else []
    proc = subprocess.run(
        [sys.executable, str(tmp_path / "runner.py"), str(tmp_path / "cell.py"), mode, *fake],
        cwd=tmp_path,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, proc.stdout[-2000:] + proc.stderr[-2000:]
    printed = "\n".join(line for line in proc.stdout.splitlines() if not line.startswith("RESULT "))
    return json.loads(lines[0][len("RESULT ") :]), printed, proc.stderr


@pytest.mark.parametrize("py", sources(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_notebook_opens_with_its_setup_cell(py: Path):
    nb = jupytext.read(py)
    tagged = [i for i, c in enumerate(nb.cells) if colab.TAG in c.metadata.get("tags", [])]
    assert tagged == [1], f"{py.name}: the setup cell must be the first code cell, right after the header"
    assert nb.cells[1].source == colab.source(module_of(py))
    assert nb.cells[1].metadata == colab.metadata(), "tagged, and collapsed in JupyterLab"


def test_the_cells_name_the_runtime_and_the_pin():
    m07 = module_of(ROOT / "notebooks" / "07_gpu_offload.py")
    m03 = module_of(ROOT / "notebooks" / "03_strides.py")
    assert "T4 GPU" in colab.source(m07) and "torch.cuda.is_available()" in colab.source(m07)
    assert "CPU is enough" in colab.source(m03) and "cuda" not in colab.source(m03)
    assert EXPECTED_TORCH in colab.source(m03)
    # the torch check runs after the if/else, so in both branches, and prints nothing on stdout
    assert colab.source(m03).rstrip().endswith("check_torch()")
    assert colab.source(m03).index("else:") < colab.source(m03).index("check_torch()")


@pytest.mark.parametrize("mode", ["local", "colab"])
def test_another_torch_is_noted_on_stderr_only(tmp_path: Path, mode: str):
    """On the pinned torch the cell is silent on stderr; on another supported release it says so
    on stderr, with the range, and its stdout is the same as on the pinned torch."""
    cell = colab.source(module_of(ROOT / "notebooks" / "03_strides.py"))
    env = {"TORCHCOURSE_HOME": str(ROOT), "TORCHCOURSE_REPO": ROOT.as_uri()}  # Colab: already cloned
    pinned, out_pinned, err_pinned = run_cell_stderr(tmp_path, cell, mode, env, torch_version=EXPECTED_TORCH)
    other, out_other, err_other = run_cell_stderr(tmp_path, cell, mode, env, torch_version=NEWEST_TESTED_TORCH)
    assert pinned["error"] is None and other["error"] is None, (pinned, other)
    assert pinned["calls"] == other["calls"] == []
    assert out_pinned == out_other
    assert "Note:" not in err_pinned
    note = [line for line in err_other.splitlines() if line.startswith("Note:")]
    assert len(note) == 1, err_other
    assert f"torch {NEWEST_TESTED_TORCH}" in note[0] and f"made with torch {EXPECTED_TORCH}" in note[0]
    assert f"supported range ({MINIMUM_TORCH} to {NEWEST_TESTED_TORCH})" in note[0]


def test_a_torch_below_the_minimum_stops_the_cell_with_a_clear_error(tmp_path: Path):
    cell = colab.source(module_of(ROOT / "notebooks" / "03_strides.py"))
    result, printed = run_cell(tmp_path, cell, "local", {}, torch_version="2.1.0")
    assert printed == colab.LOCAL_MESSAGE
    assert result["error"].startswith("UnsupportedTorch: torch 2.1.0 is older than " + MINIMUM_TORCH)
    assert f"pip install torch=={EXPECTED_TORCH}" in result["error"]


def test_local_run_installs_nothing(tmp_path: Path):
    result, printed = run_cell(tmp_path, colab.source(module_of(ROOT / "notebooks" / "07_gpu_offload.py")), "local", {})
    assert all(p[-1] in ("--version", "/help") for p in result.pop("probes")), "only the compiler's version"
    assert result == {
        "calls": [],
        "error": None,
        "path_changed": False,
        "cwd_changed": False,
        "pip_imported": False,
    }
    assert printed == colab.LOCAL_MESSAGE


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs git and a clone")
def test_colab_run_clones_and_installs_the_course(tmp_path: Path):
    home = tmp_path / "course"
    cell = colab.source(module_of(ROOT / "notebooks" / "03_strides.py"))
    result, printed = run_cell(
        tmp_path, cell, "colab", {"TORCHCOURSE_HOME": str(home), "TORCHCOURSE_REPO": ROOT.as_uri()}
    )
    assert result["error"] is None, result
    git, pip = result["calls"]
    assert git[:2] == ["git", "clone"] and git[-2:] == [ROOT.as_uri(), str(home)]
    assert pip[1:] == ["-m", "pip", "install", "--quiet", "--no-deps", "-e", str(home)]
    assert Path(result["torchcourse"]).is_relative_to(home), "the clone's torchcourse must be the one imported"
    assert result["iris_exists"] and (home / "notebooks" / "03_strides.ipynb").exists()
    assert printed.startswith(f"Colab: the course is in {home}")
    # run again in the same session: nothing is cloned or installed twice
    again, _ = run_cell(tmp_path, cell, "colab", {"TORCHCOURSE_HOME": str(home), "TORCHCOURSE_REPO": ROOT.as_uri()})
    assert again["error"] is None and again["calls"] == []


def test_colab_without_a_repository_says_in_one_line_what_is_missing(tmp_path: Path):
    """No address: one line naming what is missing and what to do, no traceback, nothing run."""
    cell = colab.source(module_of(ROOT / "notebooks" / "03_strides.py"))
    cell = cell.replace(f'"TORCHCOURSE_REPO", "{colab.repository_url()}"', '"TORCHCOURSE_REPO", ""')
    result, printed = run_cell(tmp_path, cell, "colab", {"TORCHCOURSE_HOME": str(tmp_path / "missing")})
    assert result["calls"] == [] and result["error"] is None and not result["path_changed"]
    assert len(printed.splitlines()) == 1, printed
    assert printed.startswith("Missing: the course's git address") and "TORCHCOURSE_REPO" in printed


def test_colab_with_an_address_that_fails_says_so_in_one_line(tmp_path: Path):
    """A wrong address or no network: one line with git's reason; no half-made clone is left, so
    running the cell again (after fixing the address) starts afresh."""
    home = tmp_path / "course"
    cell = colab.source(module_of(ROOT / "notebooks" / "03_strides.py"))
    env = {"TORCHCOURSE_HOME": str(home), "TORCHCOURSE_REPO": (tmp_path / "no-such-repo").as_uri()}
    result, printed = run_cell(tmp_path, cell, "colab", env)
    assert result["error"] is None and [c[0] for c in result["calls"]] == ["git"], result
    assert len(printed.splitlines()) == 1 and printed.startswith("Missing: the course, not fetched from "), printed
    assert "(git: " in printed and not home.exists()


def test_the_address_is_the_one_constant_to_set(tmp_path: Path):
    """Once pyproject.toml names the repository, the cell clones it with no step by hand."""
    text = (ROOT / "pyproject.toml").read_text()
    if not colab.repository_url(text):
        text = text.replace(
            "[tool.setuptools", f'[project.urls]\nRepository = "{ROOT.as_uri()}"\n\n[tool.setuptools', 1
        )
    url = colab.repository_url(text)
    cell = colab.source(module_of(ROOT / "notebooks" / "03_strides.py"))
    cell = cell.replace(f'"TORCHCOURSE_REPO", "{colab.repository_url()}"', f'"TORCHCOURSE_REPO", "{url}"')
    if shutil.which("git") is None or not url.startswith("file:"):
        assert f'"TORCHCOURSE_REPO", "{url}"' in cell
        return
    result, printed = run_cell(tmp_path, cell, "colab", {"TORCHCOURSE_HOME": str(tmp_path / "c")})
    assert result["error"] is None and printed.startswith("Colab: the course is in"), printed


def test_repository_url_is_read_from_pyproject():
    text = '[project]\nname = "x"\n\n[project.urls]\nHomepage = "https://a.example"\nRepository = "https://b.example/c.git"\n'
    assert colab.repository_url(text) == "https://b.example/c.git"
    assert colab.repository_url('[project]\nname = "x"\n') == ""
    assert f'"TORCHCOURSE_REPO", "{colab.repository_url()}"' in colab.source(
        module_of(ROOT / "notebooks" / "03_strides.py")
    )
