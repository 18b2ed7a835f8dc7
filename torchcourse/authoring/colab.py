"""The setup cell, generated: the first code cell of every notebook.

On the learner's own machine (or Binder, or CI) the cell installs nothing and says so. On
Google Colab, where only the notebook is opened, it clones the course repository, installs
``torchcourse`` from it (editable, without dependencies: Colab already has torch, NumPy and
matplotlib) and puts it on the running kernel's path, so ``import torchcourse`` and
``data_path`` work as they do locally (the course's code uses no path relative to the current
folder). It also says which Colab
runtime the module wants. On both, it calls :func:`torchcourse.preflight.check_torch`, which
writes a note to stderr when the running torch is not the one the stored outputs were made with
(and whether it is in the supported range), and stops with an error naming what is missing when
torch is older than the minimum: stdout, which the stored outputs keep, is the same on any torch.

Where the repository is: ``[project.urls] Repository`` in ``pyproject.toml``, the one constant
to set once the course has a public address, written into every cell by the build (which then
only copies the new cell into the stored notebooks: its local output does not change, so nothing
is executed); the environment variable ``TORCHCOURSE_REPO`` overrides it (a fork, a branch, a
local mirror). Until the entry is there, or when the clone or the install fails, the cell prints
one line saying what is missing and how to go on, instead of raising, and skips the rest.

``TORCHCOURSE_HOME`` (default ``/content/pytorch-course``) is where the clone goes; the tests
use it to run the Colab branch in a temporary folder.

:func:`torchcourse.authoring.navigation.apply` puts the cell (tag ``course-setup``) right after the
navigation header of every source on each build, and ``build --check`` reports a stale one.
"""

from __future__ import annotations

import re

from torchcourse.authoring.course import ROOT, Module
from torchcourse.preflight import EXPECTED_TORCH

TAG = "course-setup"
DEFAULT_HOME = "/content/pytorch-course"
LOCAL_MESSAGE = "Local run: nothing to install."

RUNTIME = {  # the setup cell's "Colab runtime:" comment
    "cpu": "CPU is enough for this module",
    "gpu": "GPU (Runtime > Change runtime type > T4 GPU); on a CPU the GPU cells are skipped",
    "gpu-optional": "CPU is enough; a GPU (Runtime > Change runtime type > T4 GPU) also runs the GPU cells",
}


def repository_url(pyproject: str | None = None) -> str:
    """``[project.urls] Repository`` from pyproject.toml (or the text given), or "" when the
    course names none."""
    text = pyproject if pyproject is not None else (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    section = re.search(r"^\[project\.urls\]\s*\n(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL)
    if not section:
        return ""
    m = re.search(r'^Repository\s*=\s*"([^"]*)"', section.group(1), re.MULTILINE)
    return m.group(1) if m else ""


TEMPLATE = """\
# Course setup. On your own machine this cell installs nothing. On Google Colab it fetches
# the course and installs its helper package, torchcourse, once per session.
# Colab runtime: {runtime}.
import sys

course_ready = True
if "google.colab" in sys.modules:
    import os
    import shutil
    import subprocess

    home = os.environ.get("TORCHCOURSE_HOME", "{home}")
    repo = os.environ.get("TORCHCOURSE_REPO", "{repo}")
    if not os.path.isdir(home):
        if not repo:
            course_ready = False
            print(
                "Missing: the course's git address. Run os.environ['TORCHCOURSE_REPO'] = "
                "'<the course git URL>' in a cell, then this cell again."
            )
        else:
            git = ["git", "clone", "--quiet", "--depth", "1", repo, home]
            pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "-e", home]
            for step in (git, pip):
                done = subprocess.run(step, capture_output=True, text=True)
                if done.returncode:
                    course_ready = False
                    shutil.rmtree(home, ignore_errors=True)
                    why = (done.stderr.strip().splitlines() or ["no message"])[-1]
                    print(f"Missing: the course, not fetched from {{repo}} ({{step[0]}}: {{why}}). Run this cell again.")
                    break
    if course_ready:
        sys.path.insert(0, home)
        print("Colab: the course is in", home)
{gpu_check}else:
    print("{local}")
if course_ready:
    # A note on stderr when this torch is not {pin} (the one the stored outputs were made with),
    # saying whether it is supported; an error naming what is missing when it is too old.
    from torchcourse.preflight import check_torch

    _ = check_torch()"""

GPU_CHECK = """\
    import torch

    if not torch.cuda.is_available():
        print("No GPU in this runtime: Runtime > Change runtime type > T4 GPU, then run this cell again.")
"""


def metadata() -> dict:
    """The cell's metadata: its tag, and its input collapsed in JupyterLab (the learner sees
    the one line it prints, and can expand the code)."""
    return {"tags": [TAG], "jupyter": {"source_hidden": True}}


def source(m: Module) -> str:
    """The setup cell's code for module ``m``: the same in its lesson, exercises and solutions."""
    return TEMPLATE.format(
        runtime=RUNTIME[m.runtime],
        home=DEFAULT_HOME,
        repo=repository_url(),
        pin=EXPECTED_TORCH,
        gpu_check=GPU_CHECK if m.runtime == "gpu" else "",
        local=LOCAL_MESSAGE,
    )
