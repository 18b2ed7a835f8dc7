"""The fast test layer on every other supported Python found on this machine.

`make test` runs the whole suite on one Python (the one `.venv` was made with); this script then
runs the layer of the suite that depends on the interpreter rather than on stored outputs (the
tested facts, every check with its reference and wrong answers, the module tests, the layout and
evidence tests) on each other supported Python it finds, each in a venv of its own
(`.venv-3.12`, ...; git-ignored, reused while the pins are unchanged). A Python that is not
installed is skipped and named, never silently. Without this, a behaviour of one Python's
standard library (pathlib subclassing changed in 3.12) broke a check on 3.12 and 3.13 while the
suite stayed green on 3.11.

    python scripts/other_pythons.py                 # every other supported Python found
    python scripts/other_pythons.py --only 3.13     # just these
    OTHER_PYTHONS=none make test                    # skip the layer (the Makefile passes it on)

Exit status: 0 when every Python found passed, 1 when one failed. Standard library only: it runs
before anything is installed.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUPPORTED = ("3.11", "3.12", "3.13")
# The layer that depends on the interpreter: facts, checks (every reference and wrong answer, odd
# answers), the module tests, layout and evidence. The notebooks themselves (nbval)
# run on the default Python only: their outputs do not depend on the interpreter's version.
FAST_LAYER = (
    "tests/test_facts.py",
    "tests/test_checks.py",
    # Every check's message on odd and breaking answers (tracebacks and exception texts differ between
    # Pythons), and every reference and wrong answer through its check once (the repeat test with
    # TORCHCOURSE_CHECK_ROUNDS=1, set in run_layer: the 12 rounds judge what a check leaves in the
    # process, not the interpreter, and run on the default Python; with them the layer on 3.13 took
    # 20 min on a busy machine). The twice-in-one-kernel test runs on the default Python only.
    "tests/test_check_leaks.py",
    "tests/test_check_repeat*.py",
    "tests/test_constraints.py",
    "tests/test_stated_constraints.py",
    "tests/test_generated_cases.py",
    "tests/test_one_source.py",
    "tests/test_core_skill_exercises.py",
    "tests/test_indexing_exercises.py",
    "tests/test_depth_*.py",
    "tests/test_module17.py",
    "tests/test_layout.py",
    "tests/test_evidence.py",
    "tests/test_predictions.py",
    "tests/test_progress.py",
)
# What the layer imports, pinned in the requirements files (no Jupyter server, site or browser).
PACKAGES = (
    "torch",
    "numpy",
    "matplotlib",
    "pillow",
    "ipykernel",
    "jupytext",
    "nbclient",
    "nbval",
    "pytest",
    "pytest-xdist",
    "psutil",
)


def pins() -> dict[str, str]:
    """name -> 'name==version' for the layer's packages, read from requirements*.txt."""
    found: dict[str, str] = {}
    for path in sorted(ROOT.glob("requirements*.txt")):
        for line in path.read_text().splitlines():
            match = re.match(r"^([A-Za-z0-9_.-]+)==(\S+)", line.strip())
            if match and match.group(1).lower() in PACKAGES:
                found[match.group(1).lower()] = f"{match.group(1)}=={match.group(2)}"
    missing = sorted(set(PACKAGES) - set(found))
    if missing:
        raise SystemExit(f"other_pythons: no exact pin for {', '.join(missing)} in requirements*.txt")
    return found


def version_of(python: str) -> str | None:
    """'3.12' for an interpreter that runs, None for one that does not (a pyenv shim for a
    version that is not selected prints an error and exits non-zero)."""
    try:
        out = subprocess.run(
            [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def find(version: str) -> str | None:
    """An interpreter of ``version``: pythonX.Y on PATH, then pyenv's versions folder."""
    candidates = [shutil.which(f"python{version}")]
    pyenv_root = os.environ.get("PYENV_ROOT") or str(Path.home() / ".pyenv")
    candidates += sorted(glob.glob(f"{pyenv_root}/versions/{version}.*/bin/python{version}"), reverse=True)
    for candidate in candidates:
        if candidate and version_of(candidate) == version:
            return candidate
    return None


def ensure_venv(version: str, python: str) -> Path:
    """``.venv-X.Y`` with the layer's pins and the course package (editable), made once and
    remade when the pins change."""
    venv = ROOT / f".venv-{version}"
    py = venv / "bin" / "python"
    wanted = pins()
    digest = hashlib.sha256(" ".join(sorted(wanted.values())).encode()).hexdigest()[:16]
    stamp = venv / ".installed-fast-layer"
    if py.exists() and stamp.exists() and stamp.read_text().strip() == digest:
        return py
    print(f"Python {version}: installing the fast layer's packages into {venv.name} (torch alone is about", flush=True)
    print("  200 MB as a CPU build and about 3 GB as a CUDA build, which pip takes on Linux by default)", flush=True)
    if py.exists() and subprocess.run([str(py), "-m", "pip", "--version"], capture_output=True).returncode:
        shutil.rmtree(venv)  # its creation was cut short: a python without pip
    if not py.exists():
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
    pip = [str(py), "-m", "pip", "install", "--disable-pip-version-check", "--progress-bar", "off", "-q"]
    torch_args = os.environ.get("PIP_TORCH_ARGS", "").split()
    subprocess.run([*pip, wanted["torch"], *torch_args], check=True)
    subprocess.run([*pip, *(v for k, v in wanted.items() if k != "torch")], check=True)
    subprocess.run([*pip, "--no-deps", "-e", str(ROOT)], check=True, stdout=subprocess.DEVNULL)
    stamp.write_text(digest + "\n")
    return py


def run_layer(version: str, py: Path, workers: str) -> tuple[bool, str]:
    paths = sorted({p for pattern in FAST_LAYER for p in glob.glob(str(ROOT / pattern))})
    command = [str(py), "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", workers, "--dist", "loadfile", *paths]
    print(f"Python {version}: {len(paths)} test files of the fast layer", flush=True)
    start = time.perf_counter()
    env = dict(os.environ, TORCHCOURSE_CHECK_ROUNDS="1")  # each answer once (see FAST_LAYER)
    proc = subprocess.run(command, cwd=ROOT, text=True, capture_output=True, env=env)
    seconds = time.perf_counter() - start
    tail = [line for line in proc.stdout.splitlines() if line.strip()]
    closing = tail[-1].strip("= ") if tail else "no output"
    if proc.returncode != 0:
        print(proc.stdout[-20000:], proc.stderr[-4000:], sep="\n")
    return proc.returncode == 0, f"{closing} ({seconds:.0f} s)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="these versions only (e.g. 3.13)")
    parser.add_argument("--workers", default=os.environ.get("OTHER_PYTHONS_WORKERS", "2"))
    args = parser.parse_args(argv)
    default_py = ROOT / ".venv" / "bin" / "python"
    default = version_of(str(default_py)) if default_py.exists() else f"{sys.version_info[0]}.{sys.version_info[1]}"
    wanted = args.only or [v for v in SUPPORTED if v != default]
    report, failed = [], False
    for version in wanted:
        if version not in SUPPORTED:
            report.append(f"Python {version}: not supported by the course ({', '.join(SUPPORTED)} are)")
            continue
        python = find(version)
        if python is None:
            report.append(f"Python {version}: skipped, not installed (no python{version} on PATH or in pyenv)")
            continue
        try:
            py = ensure_venv(version, python)
        except subprocess.CalledProcessError as exc:
            report.append(f"Python {version}: FAILED to install ({exc})")
            failed = True
            continue
        ok, summary = run_layer(version, py, args.workers)
        failed |= not ok
        report.append(f"Python {version}: fast layer {'passed' if ok else 'FAILED'}: {summary}")
    print(f"\nThe suite ran in full on Python {default}; the fast layer on the others:")
    for line in report:
        print("  " + line)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
