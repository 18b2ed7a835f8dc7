"""Preflight: can this machine run the course, and how fast is it?

    python -m torchcourse.preflight

Reports Python and torch versions, the devices found, whether ``torch.compile`` works
here (by compiling a tiny function), free memory and a measured copy bandwidth. Each
missing piece comes with one sentence on what to do. The exit code is non-zero only
when the course cannot run at all (torch missing or too old, or Python too old).
"""

from __future__ import annotations

import os
import platform
import shutil
import sys
import time
from dataclasses import dataclass

REQUIRED_PYTHON = (3, 10)
EXPECTED_TORCH = "2.13.0"


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
    version = torch.__version__.split("+")[0]
    items.append(
        Item(
            "torch",
            version == EXPECTED_TORCH,
            torch.__version__,
            f"the stored outputs were made with torch {EXPECTED_TORCH}; other versions may print differently",
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
        from .timing import copy_bandwidth

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
    print(report(items))
    return 1 if any(i.fatal and not i.ok for i in items) else 0


if __name__ == "__main__":
    raise SystemExit(main())
