"""An empty inductor cache for a fresh process, without paying inductor's CPU probes again.

The first C++ compile in an empty ``TORCHINDUCTOR_CACHE_DIR`` makes inductor choose the CPU's vector
instruction set (``torch._inductor.cpu_vec_isa.pick_vec_isa``): it builds a small test program for
each instruction set the CPU reports and loads it in a child process, and keeps the builds in that
cache directory. On the course's 2-core test machine that costs 10-13 s, more than the rest of such
a process. A check or a fact that starts a fresh process with an empty cache, to count what that
process finds in the FX graph cache (17.5's check, lesson 17's facts), paid it on every run.

:func:`empty_cache_dir` makes that directory with those test programs already in it, copied from a
seed built once per machine, user and torch version. The seed holds nothing else: no FX graph,
AOTAutograd or kernel entries (:func:`_seed` replaces one that holds anything else), so what the
fresh process hits and misses is what it would have been without the seed. Where the seed cannot be
built, the directory is simply empty, as before.

The seed sits in the temporary folder of the user who runs the learner's code, so that code can
damage it (an adversary's answer overwrote its programs, and every later 17.5 check failed): a caller
whose fresh process fails calls :func:`discard_seed` and runs it again on a truly empty directory.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

_PICK = "from torch._inductor import cpu_vec_isa; cpu_vec_isa.pick_vec_isa()"
# What a seed may hold: inductor's hash-named folders of the instruction-set test programs, and its
# folder of lock files.
_SEED_SUFFIXES = {".cpp", ".so", ".o"}


def _seed_path() -> Path:
    uid = os.getuid() if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir(), f"torchcourse-isa-seed-{uid}-{torch.__version__}")


def _only_isa_probes(folder: Path) -> bool:
    for p in folder.iterdir():
        if p.name == "locks" and p.is_dir() and all(f.suffix == ".lock" for f in p.iterdir()):
            continue
        if not (p.is_dir() and len(p.name) == 2 and all(f.suffix in _SEED_SUFFIXES for f in p.iterdir())):
            return False
    return True


def _seed() -> Path | None:
    """The seed folder, built on first use (in a fresh Python, about 13 s here); None where that fails."""
    final = _seed_path()
    if final.is_dir():
        if _only_isa_probes(final):
            return final
        discard_seed()  # something else was put there: build it again
    try:
        building = Path(tempfile.mkdtemp(prefix=final.name + "-building-", dir=final.parent))
    except OSError:
        return None
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(building))
    try:
        done = subprocess.run([sys.executable, "-c", _PICK], env=env, capture_output=True, timeout=300)
    except (OSError, subprocess.SubprocessError):
        done = None
    if done is None or done.returncode != 0 or not _only_isa_probes(building):
        shutil.rmtree(building, ignore_errors=True)
        return None
    try:
        building.rename(final)  # atomic: a second process building at the same time keeps the first
    except OSError:
        shutil.rmtree(building, ignore_errors=True)
    return final if final.is_dir() and _only_isa_probes(final) else None


def discard_seed() -> None:
    """Delete the seed (the next :func:`empty_cache_dir` builds it again)."""
    shutil.rmtree(_seed_path(), ignore_errors=True)


def empty_cache_dir(path: str | os.PathLike, seeded: bool = True) -> Path:
    """Make ``path`` (which must not exist) an inductor cache directory that holds only the CPU
    instruction-set test programs, or nothing where no seed could be built or ``seeded`` is False."""
    path = Path(path)
    seed = _seed() if seeded else None
    if seed is not None:
        try:
            shutil.copytree(seed, path)
            return path
        except (OSError, shutil.Error):  # discarded by another process while we copied it
            shutil.rmtree(path, ignore_errors=True)
    path.mkdir()
    return path
