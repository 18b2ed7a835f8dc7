#!/usr/bin/env python3
"""The course's one install script: `make lab` and `make test`, the container (container/Dockerfile),
Binder (binder/postBuild) and the room's hub (hub/) all install through it, so CI tests the
steps a learner's machine runs.

    python3 scripts/install.py                 # .venv: what a learner runs (requirements.txt + torchcourse)
    python3 scripts/install.py --dev           # and the test, lint and browser tools (requirements-dev.txt)
    python3 scripts/install.py --here          # into the running Python (Binder, a container's venv)
    python3 scripts/install.py --plan          # say what it would do and download, install nothing

torch: the CPU build (no CUDA libraries, about 2.5 GB less) where no NVIDIA driver is present,
from PyTorch's CPU wheel index; where that index cannot be reached within a few seconds, pip's
own choice (PyPI, or a local wheel directory pip is configured with) and a note saying so.
``--torch cpu`` or ``--torch pypi`` (or TORCH_INDEX=cpu / pypi) overrides the guess.

Standard library only, Python 3.8 or newer, on Linux, macOS and Windows. Nothing is installed
outside the target environment; pip shows its progress (no --quiet on the big steps).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PROBE_TIMEOUT_S = 4.0  # a reachable index answers in well under a second
MIN_PYTHON = (3, 11)

# Rough download sizes in MB (wheels for Python 3.11 on Linux x86-64; macOS and Windows are
# similar), measured on a fresh venv by tests/test_install.py's companion measurement
# (docs/SETUP.md, "What the install downloads"). Only used to tell the learner before starting.
DOWNLOAD_MB = {
    "torch-cpu": 190,  # the CPU build
    "torch-cuda": 2900,  # torch with its CUDA libraries (nvidia-* wheels)
    "learner": 105,  # requirements.txt without torch: NumPy, matplotlib, JupyterLab and what they need
    "dev": 75,  # requirements-dev.txt: pytest, nbval, Playwright (its driver), ruff, pre-commit
}


def say(msg: str) -> None:
    print(f"[install] {msg}", flush=True)


def pins(path: Path) -> dict[str, str]:
    """``name==version`` lines of a requirements file (comments and blank lines skipped)."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            name, version = line.split("==", 1)
            out[name.strip().lower()] = version.strip()
    return out


def nvidia_driver_present() -> bool:
    """An NVIDIA driver on this machine: Linux's /proc/driver/nvidia or an nvidia-smi on PATH
    (Windows installs nvidia-smi with the driver). macOS has none."""
    if platform.system() == "Darwin":
        return False
    return Path("/proc/driver/nvidia").exists() or shutil.which("nvidia-smi") is not None


def reachable(url: str, timeout: float = PROBE_TIMEOUT_S) -> bool:
    """Whether a TCP connection to the index's host opens within ``timeout`` seconds (a name that
    does not resolve fails at once). A proxy set in the environment is trusted to reach it."""
    if os.environ.get("HTTPS_PROXY") or os.environ.get("https_proxy"):
        return True
    host = urlparse(url).hostname or ""
    try:
        with socket.create_connection((host, 443), timeout=timeout):
            return True
    except OSError:
        return False


def torch_route(choice: str) -> str:
    """'cpu' (PyTorch's CPU index) or 'pypi' (pip's own choice of build)."""
    if choice in ("cpu", "pypi"):
        return choice
    if platform.system() != "Linux":
        return "pypi"  # macOS and Windows: PyPI's torch is already the CPU (or MPS) build
    return "pypi" if nvidia_driver_present() else "cpu"


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def installed_version(python: Path, name: str) -> str | None:
    code = f"import importlib.metadata as m\ntry: print(m.version({name!r}))\nexcept Exception: pass"
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True).stdout.strip()
    return out or None


def run(cmd: list[str], step: str) -> int:
    say(f"{step}: {' '.join(cmd)}")
    start = time.monotonic()
    rc = subprocess.call(cmd)
    say(f"{step}: {'done' if rc == 0 else f'failed (exit {rc})'} in {time.monotonic() - start:.0f} s")
    return rc


def half_made(python: Path) -> bool:
    """A venv whose creation was cut short (Ctrl-C during `make lab`) has a python but no pip; made
    again rather than failing at every later run with "No module named pip"."""
    return (
        python.exists() and subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True).returncode != 0
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--venv", type=Path, default=ROOT / ".venv", help="the venv to create or complete (default .venv)"
    )
    where.add_argument("--here", action="store_true", help="install into the Python running this script")
    parser.add_argument("--dev", action="store_true", help="add requirements-dev.txt (make test, make lint)")
    parser.add_argument(
        "--torch",
        choices=("auto", "cpu", "pypi"),
        default=os.environ.get("TORCH_INDEX") or "auto",
        help="torch's build: auto (CPU unless an NVIDIA driver is present), cpu, pypi (default: $TORCH_INDEX or auto)",
    )
    parser.add_argument(
        "--also",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="another requirements file (the hub: hub/requirements.txt)",
    )
    parser.add_argument("--no-course", action="store_true", help="only the pinned packages, not torchcourse itself")
    parser.add_argument("--plan", action="store_true", help="say what would be done and downloaded; install nothing")
    args = parser.parse_args(argv)
    if args.torch == "default":
        args.torch = "pypi"

    if sys.version_info < MIN_PYTHON:
        say(f"This course needs Python 3.11 or newer (3.11-3.13 are tested); this is {platform.python_version()}.")
        return 1

    python = Path(sys.executable) if args.here else venv_python(args.venv.absolute())
    learner, dev = pins(ROOT / "requirements.txt"), pins(ROOT / "requirements-dev.txt")
    torch_pin = learner["torch"]
    route = torch_route(args.torch)
    why = {
        "cpu": "no NVIDIA driver found" if args.torch == "auto" else "asked for",
        "pypi": "an NVIDIA driver is present"
        if args.torch == "auto" and platform.system() == "Linux"
        else ("asked for" if args.torch == "pypi" else f"PyPI's build is the CPU one on {platform.system()}"),
    }[route]

    have_torch = installed_version(python, "torch") if python.exists() else None
    need_torch = not (have_torch and have_torch.split("+")[0] == torch_pin)
    mb = DOWNLOAD_MB["learner"] + (DOWNLOAD_MB["dev"] if args.dev else 0)
    if need_torch:
        linux_cuda = route == "pypi" and platform.system() == "Linux" and platform.machine() == "x86_64"
        mb += DOWNLOAD_MB["torch-cuda" if linux_cuda else "torch-cpu"]
    target = "this Python" if args.here else str(args.venv)
    say(f"target: {target} ({'exists' if python.exists() else 'to be created'}), Python {platform.python_version()}")
    say(
        f"torch {torch_pin}: "
        + (f"{have_torch} already installed" if not need_torch else f"{route} build ({why})")
        + f"; {'with' if args.dev else 'without'} the test tools"
    )
    say(f"about {mb} MB to download at most (less where pip's cache already has them); this takes a few minutes")
    if args.plan:
        return 0

    pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "on"]
    if not args.here and half_made(python):
        say(f"{args.venv} has no working pip (its creation was interrupted?): making it again")
        shutil.rmtree(args.venv)
    if not python.exists():
        if run([sys.executable, "-m", "venv", str(args.venv)], "create the venv"):
            return 1
        if run(pip[:4] + ["--upgrade", "--quiet", "pip"], "upgrade the new venv's pip"):
            return 1

    if need_torch:
        rc = 1
        if route == "cpu":
            if reachable(CPU_INDEX):
                rc = run(
                    pip + ["--timeout", "30", "--retries", "1", f"torch=={torch_pin}", "--index-url", CPU_INDEX],
                    f"torch {torch_pin} (CPU build)",
                )
                if rc:
                    say("PyTorch's CPU index failed; falling back to pip's own choice")
            else:
                say(
                    f"note: PyTorch's CPU index ({CPU_INDEX}) is unreachable from here; "
                    "falling back to pip's own choice (on Linux x86-64 without a local wheel: the CUDA build, ~2.9 GB)"
                )
        if rc:
            if run(pip + [f"torch=={torch_pin}"], f"torch {torch_pin}"):
                return 1
    if run(pip + ["-r", str(ROOT / "requirements.txt")], "the learner's packages (requirements.txt)"):
        return 1
    if args.dev and run(pip + ["-r", str(ROOT / "requirements-dev.txt")], "the test tools (requirements-dev.txt)"):
        return 1
    for extra in args.also:
        if run(pip + ["-r", str(extra)], f"also {extra}"):
            return 1
    if not args.no_course:
        if run(pip + ["--quiet", "--no-deps", "-e", str(ROOT)], "the course package (torchcourse, editable)"):
            return 1
    say(f"ready: {len(learner) + (len(dev) if args.dev else 0)} pinned packages in {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
