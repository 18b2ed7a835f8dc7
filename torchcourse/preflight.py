"""Preflight: can this machine run the course, and how fast is it?

    python -m torchcourse.preflight

Reports Python and torch versions, the devices found, whether ``torch.compile`` works
here (by compiling a tiny function), free memory and a measured copy bandwidth. Each
missing piece comes with one sentence on what to do. The exit code is non-zero only
when the course cannot run at all: Python too old, torch missing, or torch older than
:data:`MINIMUM_TORCH`.

Supported torch: the stored outputs are made with :data:`EXPECTED_TORCH`; every release from
:data:`MINIMUM_TORCH` to :data:`NEWEST_TESTED_TORCH` runs the whole course (``make drift``
checks it: every cell runs, and only cells tagged ``version-specific`` may print differently).
:func:`check_torch` says so on stderr, from the preflight and from every notebook's setup cell,
so the stored outputs stay the same whatever torch made them.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import sys
import time
from dataclasses import dataclass
from typing import TextIO

REQUIRED_PYTHON = (3, 11)
EXPECTED_TORCH = "2.13.0"  # the stored outputs are made with this release
MINIMUM_TORCH = "2.10.0"  # the oldest release on which `make drift` passes
NEWEST_TESTED_TORCH = "2.15.0"  # the newest release `make drift` was run with

# What the course calls that older releases may lack, and where: named when torch is too old.
FEATURES = (
    ("torch.cond", "module 11, graph breaks"),
    ("torch.func.hessian", "module 14, autograd as a calculus engine"),
    ("torch.compiler.reset", "the compile lessons, 09-12"),
    ("torch.distributed.tensor", "module 15 (distributed tensors)"),
)


class UnsupportedTorch(RuntimeError):
    """The running torch is older than :data:`MINIMUM_TORCH`: the course does not run on it."""


def version_tuple(version: str) -> tuple[int, int, int]:
    """``"2.15.0+cu130"`` or ``"2.16.0.dev20260101"`` -> ``(2, 15, 0)``: local and dev tags
    do not change which release the code comes from."""
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", version)
    if not m:
        raise ValueError(f"not a torch version: {version!r}")
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def missing_features(torch_module=None) -> list[str]:
    """The entries of :data:`FEATURES` this torch lacks, as "name (used by ...)"."""
    import importlib

    if torch_module is None:
        import torch as torch_module
    missing = []
    for dotted, used_by in FEATURES:
        parts = dotted.split(".")[1:]
        obj, ok = torch_module, True
        for i, part in enumerate(parts):
            if not hasattr(obj, part):
                try:  # a submodule not imported yet
                    obj = importlib.import_module(".".join(["torch", *parts[: i + 1]]))
                    continue
                except ImportError:
                    ok = False
                    break
            obj = getattr(obj, part)
        if not ok:
            missing.append(f"{dotted} (used by {used_by})")
    return missing


def torch_verdict(version: str) -> tuple[str, str]:
    """How torch ``version`` relates to the course: ``("pinned" | "supported" | "newer" |
    "too-old", one-sentence explanation)``. The sentence is what a learner reads."""
    v, pin = version_tuple(version), version_tuple(EXPECTED_TORCH)
    lo, hi = version_tuple(MINIMUM_TORCH), version_tuple(NEWEST_TESTED_TORCH)
    made = f"the stored outputs were made with torch {EXPECTED_TORCH}"
    if v == pin:
        return "pinned", f"torch {version}: {made}, so your outputs should match them"
    if v < lo:
        return "too-old", (
            f"torch {version} is older than {MINIMUM_TORCH}, the oldest release this course supports "
            f"(tested: {MINIMUM_TORCH} to {NEWEST_TESTED_TORCH})"
        )
    if v <= hi:
        return "supported", (
            f"torch {version} is within the course's supported range ({MINIMUM_TORCH} to "
            f"{NEWEST_TESTED_TORCH}): every cell runs, but {made}, and some printed outputs "
            "(torch's log and error wording) may differ from them"
        )
    return "newer", (
        f"torch {version} is newer than {NEWEST_TESTED_TORCH}, the newest release the course was tested with "
        f"(supported: {MINIMUM_TORCH} to {NEWEST_TESTED_TORCH}); {made}: most cells should run, and some "
        "printed outputs may differ"
    )


def check_torch(stream: TextIO | None = None, torch_module=None) -> str:
    """Say on ``stream`` (stderr by default) when the running torch is not the pinned one, and
    whether it is in the supported range; raise :class:`UnsupportedTorch`, naming what the
    course needs that is missing, when it is older than :data:`MINIMUM_TORCH`.

    Called by every notebook's setup cell (locally and on Colab) and by the preflight. It writes
    to stderr, never stdout, so the stored outputs do not depend on which torch made them.
    Returns the verdict (see :func:`torch_verdict`)."""
    if torch_module is None:
        import torch as torch_module
    verdict, sentence = torch_verdict(torch_module.__version__)
    out = stream if stream is not None else sys.stderr
    if verdict == "too-old":
        missing = missing_features(torch_module)
        lacks = (
            "it lacks " + "; ".join(missing)
            if missing
            else "its torch.compile logs and APIs differ from what the lessons read"
        )
        raise UnsupportedTorch(
            f"{sentence}: {lacks}. Install the course's torch: pip install torch=={EXPECTED_TORCH} "
            "(README, 'Install'), or open the course on Colab."
        )
    if verdict != "pinned":
        print(f"Note: {sentence}.", file=out)
    return verdict


@dataclass
class Item:
    name: str
    ok: bool
    detail: str
    advice: str = ""
    fatal: bool = False

    def line(self) -> str:
        mark = "✓" if self.ok else ("✗" if self.fatal else "!")
        text = f"{mark} {self.name:<14} {self.detail}"
        if not self.ok and self.advice:
            text += f"\n  {'':<14} → {self.advice}"
        return text


def _free_memory_gib() -> float | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 2**20
    except OSError:
        pass
    try:
        pages, size = os.sysconf("SC_AVPHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
        return pages * size / 2**30
    except (ValueError, OSError, AttributeError):
        return None


def _check_compile(device: str) -> tuple[bool, str]:
    import torch

    torch.compiler.reset()

    def tiny(x):
        return (x * 2 + 1).relu().sum()

    x = torch.arange(8.0, device=device)
    try:
        start = time.perf_counter()
        got = torch.compile(tiny)(x)
        seconds = time.perf_counter() - start
        if not torch.allclose(got, tiny(x)):
            return False, "compiled result differs from eager"
        return True, f"compiled and ran a tiny function in {seconds:.1f} s"
    except Exception as exc:  # report, never crash the preflight
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return False, f"{type(exc).__name__}: {first[:160]}"
    finally:
        torch.compiler.reset()


def run(compile_check: bool = True, bandwidth: bool = True) -> list[Item]:
    """Collect the preflight items (used by the CLI and by module 00)."""
    items = []
    py_ok = sys.version_info[:2] >= REQUIRED_PYTHON
    items.append(
        Item(
            "Python",
            py_ok,
            platform.python_version(),
            f"install Python {REQUIRED_PYTHON[0]}.{REQUIRED_PYTHON[1]} or newer",
            fatal=not py_ok,
        )
    )
    try:
        import torch
    except ImportError:
        items.append(
            Item("torch", False, "not installed", "run `make lab` (or pip install -r requirements.txt)", fatal=True)
        )
        return items
    verdict, sentence = torch_verdict(torch.__version__)
    missing = missing_features(torch) if verdict == "too-old" else []
    items.append(
        Item(
            "torch",
            verdict == "pinned",
            torch.__version__,
            f"{sentence}"
            + (f"; it lacks {'; '.join(missing)}" if missing else "")
            + (f"; install torch {EXPECTED_TORCH} (README, 'Install')" if verdict == "too-old" else ""),
            fatal=verdict == "too-old",
        )
    )
    items.append(Item("CPU", True, f"{os.cpu_count()} cores, torch uses {torch.get_num_threads()} threads"))
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            p = torch.cuda.get_device_properties(i)
            items.append(
                Item(
                    f"CUDA {i}",
                    True,
                    f"{p.name}, {p.total_memory / 2**30:.1f} GiB, compute capability {p.major}.{p.minor}",
                )
            )
    else:
        items.append(
            Item(
                "CUDA",
                False,
                "no CUDA GPU found",
                "fine for the course: GPU cells say what they skip; use a GPU machine or Colab to run them",
            )
        )
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        items.append(Item("MPS", True, "Apple GPU available"))
    free = _free_memory_gib()
    if free is not None:
        items.append(
            Item(
                "memory", free >= 4, f"{free:.1f} GiB available", "close other programs: some lessons allocate 1-2 GiB"
            )
        )
    compiler = shutil.which(os.environ.get("CXX", "g++")) or shutil.which("c++") or shutil.which("clang++")
    items.append(
        Item(
            "C++ compiler",
            compiler is not None,
            compiler or "none found",
            "torch.compile on the CPU needs one: install g++ (Linux), Xcode command-line tools (macOS) or MSVC",
        )
    )
    if torch.cuda.is_available():
        try:
            import triton  # noqa: F401

            items.append(Item("Triton", True, f"version {triton.__version__}"))
        except ImportError:
            items.append(
                Item("Triton", False, "not installed", "torch.compile on CUDA needs Triton: pip install triton")
            )
    if compile_check:
        ok, detail = _check_compile("cpu")
        items.append(
            Item("compile (cpu)", ok, detail, "the compile lessons (09-13) need this; the other modules run without it")
        )
        if torch.cuda.is_available():
            ok, detail = _check_compile("cuda")
            items.append(Item("compile (cuda)", ok, detail, "check the Triton install matches torch"))
    if bandwidth:
        from torchcourse.timing import copy_bandwidth

        gbs = copy_bandwidth(128 * 2**20)
        items.append(Item("bandwidth", True, f"CPU copy: {gbs:.1f} GB/s (read + write, 128 MiB buffers)"))
        if torch.cuda.is_available():
            items.append(Item("bandwidth", True, f"GPU copy: {copy_bandwidth(512 * 2**20, 'cuda'):.0f} GB/s"))
    return items


def report(items: list[Item]) -> str:
    """The preflight as text, ending with a one-line verdict."""
    lines = [item.line() for item in items]
    fatal = [i for i in items if i.fatal and not i.ok]
    warnings = [i for i in items if not i.ok and not i.fatal]
    if fatal:
        lines.append("Verdict: the course cannot run here yet; fix the ✗ lines above.")
    elif warnings:
        lines.append(f"Verdict: ready, with {len(warnings)} note(s) (!) above.")
    else:
        lines.append("Verdict: ready, everything the course uses works here.")
    return "\n".join(lines)


def main() -> int:
    items = run()
    try:  # the same note the setup cells give, on stderr
        check_torch()
    except UnsupportedTorch:
        pass  # the ✗ line below says it
    except ImportError:
        pass
    print(report(items))
    return 1 if any(i.fatal and not i.ok for i in items) else 0


if __name__ == "__main__":
    raise SystemExit(main())
