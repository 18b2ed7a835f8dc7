"""The one install script (scripts/install.py) and the learner's copy (scripts/workcopy.py): what
`make lab` installs (the learner's packages only), what `make test` adds, torch's build, and that
Binder, the container and the hub install through the same script. Nothing here installs anything:
the script's steps run for real under `make lab` and `make test`; the container and Binder cannot
be built on this machine (no container engine), so their recipes are checked statically.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from torchcourse.authoring.course import ROOT


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


install = _load("install")
workcopy = _load("workcopy")

LEARNER = {"torch", "numpy", "matplotlib", "pillow", "jupyterlab", "ipykernel", "jupytext", "psutil", "tlparse"}
TOOLS = {"nbclient", "nbval", "pytest", "pytest-xdist", "playwright", "ruff", "pre-commit"}


def test_make_lab_installs_only_what_a_learner_runs():
    learner = install.pins(ROOT / "requirements.txt")
    dev = install.pins(ROOT / "requirements-dev.txt")
    assert set(learner) == LEARNER
    assert set(dev) == TOOLS and not set(dev) & set(learner)
    for path in ("requirements.txt", "requirements-dev.txt"):
        lines = [x for x in (ROOT / path).read_text().splitlines() if x.strip() and not x.startswith("#")]
        assert all(re.fullmatch(r"[A-Za-z0-9_.\-]+==\S+", x) for x in lines), f"{path}: exact pins only"


def test_the_download_table_names_every_route():
    assert set(install.DOWNLOAD_MB) == {"torch-cpu", "torch-cuda", "learner", "dev"}


@pytest.mark.parametrize(
    "system, driver, choice, route",
    [
        ("Linux", False, "auto", "cpu"),  # a laptop without an NVIDIA driver: no CUDA libraries
        ("Linux", True, "auto", "pypi"),  # a GPU machine: PyPI's CUDA build
        ("Darwin", False, "auto", "pypi"),  # PyPI's torch is the CPU/MPS build there
        ("Windows", False, "auto", "pypi"),
        ("Linux", True, "cpu", "cpu"),
        ("Linux", False, "pypi", "pypi"),
    ],
)
def test_torch_build_follows_the_driver(monkeypatch, system, driver, choice, route):
    monkeypatch.setattr(install.platform, "system", lambda: system)
    monkeypatch.setattr(install, "nvidia_driver_present", lambda: driver)
    assert install.torch_route(choice) == route


def test_an_unreachable_index_is_given_up_at_once():
    start = time.monotonic()
    assert not install.reachable("https://index.invalid/whl/cpu", timeout=4)
    assert time.monotonic() - start < 5


def test_the_plan_says_what_it_will_download(tmp_path):
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "install.py"), "--venv", str(tmp_path / "v"), "--plan"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert re.search(r"about \d+ MB to download", out.stdout), out.stdout
    assert "to be created" in out.stdout and "torch 2.13.0" in out.stdout
    assert not (tmp_path / "v").exists(), "--plan installs nothing"


def _dry_run(target: str) -> str:
    out = subprocess.run(["make", "-n", "-B", "--no-print-directory", target], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_make_lab_and_make_test_run_the_script_lab_without_the_tools():
    lab, test = _dry_run("lab"), _dry_run("test")
    assert "scripts/install.py --venv .venv" in lab and "--dev" not in lab
    assert "scripts/workcopy.py" in lab and "--ServerApp.root_dir=" in lab and "/work" in lab
    assert "scripts/install.py --venv .venv" in test and "--dev" in test
    assert "--quiet -r" not in lab + test, "pip shows its progress on the big steps"


def test_binder_installs_with_the_script_after_the_copy():
    post = (ROOT / "binder" / "postBuild").read_text()
    assert "scripts/install.py --here" in post and "scripts/workcopy.py" in post
    assert (ROOT / "binder" / "postBuild").stat().st_mode & 0o111, "postBuild must be executable"
    assert (ROOT / "binder" / "runtime.txt").read_text().strip().startswith("python-3.")
    # repo2docker reads only binder/ when it exists: no second environment there
    assert not {"environment.yml", "requirements.txt"} & {p.name for p in (ROOT / "binder").iterdir()}


def test_environment_yml_installs_nothing_from_the_repository():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert not [x for x in pip if x.startswith("-e") or x in (".", "./")], (
        "Binder builds the environment before the copy"
    )


def test_the_container_recipe_runs_the_script_and_copies_what_exists():
    text = (ROOT / "container" / "Dockerfile").read_text()
    lines = re.sub(r"\\\n", " ", text).splitlines()
    runs = [x for x in lines if x.startswith("RUN ")]
    assert any("scripts/install.py" in r for r in runs)
    assert not any(re.search(r"pip3? install", r) for r in runs), "installs go through scripts/install.py only"
    for line in lines:
        if line.startswith("COPY "):
            sources = [s for s in line.split()[1:-1] if not s.startswith("--")]
            for s in sources:
                assert (ROOT / s).exists(), f"COPY {s}: no such file"
    assert lines[0].startswith("#") and any(x.startswith("FROM python:3.11") for x in lines)


def test_the_hub_installs_with_the_script_into_its_own_venv():
    make = _dry_run("hub-install")
    assert "scripts/install.py --venv .hub/venv --also hub/requirements.txt" in make
    assert "/root/" not in make.split("scripts/install.py --venv .hub/venv")[0].splitlines()[-1], (
        "learners cannot run it"
    )
    assert "configurable-http-proxy@" in make
    assert "/.hub/" in (ROOT / ".gitignore").read_text() and "/work/" in (ROOT / ".gitignore").read_text()


def _course(root: Path, text: str) -> None:
    for folder in ("notebooks", "exercises", "solutions"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "01_x.ipynb").write_text(f"{folder} {text}")


def test_the_learners_copy_never_overwrites_their_work(tmp_path):
    course, work = tmp_path / "course", tmp_path / "work"
    _course(course, "v1")
    first = workcopy.sync(work, course)
    assert len(first["new"]) == 3 and (work / "exercises" / "01_x.ipynb").read_text() == "exercises v1"
    (work / "exercises" / "01_x.ipynb").write_text("my answers")  # the learner works
    assert workcopy.sync(work, course)["kept"] == [], "nothing new in the course: nothing to say"
    _course(course, "v2")  # git pull brings a new version of every file
    (course / "notebooks" / "02_y.ipynb").write_text("new lesson")
    second = workcopy.sync(work, course)
    assert (work / "exercises" / "01_x.ipynb").read_text() == "my answers"
    assert (work / "exercises" / "01_x.new.ipynb").read_text() == "exercises v2"
    assert second["kept"] == ["exercises/01_x.ipynb"]
    assert (work / "notebooks" / "01_x.ipynb").read_text() == "notebooks v2", "an untouched lesson is refreshed"
    assert (work / "notebooks" / "02_y.ipynb").read_text() == "new lesson"


def test_the_learners_notebooks_are_not_paired_with_a_py(tmp_path):
    """Saving a notebook in work/ must not write a .py twin: the copy drops jupytext's pairing."""
    workcopy.sync(tmp_path / "work")
    nb = json.loads((tmp_path / "work" / "exercises" / "03_strides.ipynb").read_text(encoding="utf-8"))
    assert "formats" not in nb["metadata"].get("jupytext", {})
    assert nb["cells"] and nb["metadata"]["kernelspec"]


def test_work_is_not_tracked():
    out = subprocess.run(["git", "check-ignore", "-q", "work/notebooks/00_start_here.ipynb"], cwd=ROOT)
    assert out.returncode == 0, "work/ must be git-ignored"


def test_a_venv_cut_short_is_made_again(tmp_path):
    """A venv interrupted while being created has a python and no pip: the script makes it again
    (seen here: a `make test` stopped during the install failed at every later run)."""
    import venv

    spec = importlib.util.spec_from_file_location("install", ROOT / "scripts" / "install.py")
    install = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(install)
    venv.create(tmp_path / "cut", with_pip=False)
    assert install.half_made(tmp_path / "cut" / "bin" / "python")
    assert not install.half_made(Path(sys.executable))
    assert not install.half_made(tmp_path / "absent" / "bin" / "python")
