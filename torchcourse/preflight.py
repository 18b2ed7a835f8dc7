"""Preflight: which parts of the course can this machine run, and how fast is it?

    python -m torchcourse.preflight

Reports Python and torch versions, the devices found, the C++ compiler inductor will use and
whether ``torch.compile`` really works with it (it compiles and runs a tiny function in a fresh
process with an empty cache, under a time limit), whether torch.distributed's ``gloo`` back end
runs between local processes, free memory and a measured copy bandwidth. Each missing piece
comes with one sentence on what to do, and the last line is a verdict per part of the course,
derived from what each module needs (``needs`` and ``partly`` in
``torchcourse/authoring/course.py``), e.g. ``Verdict: ready for 00-08, 15-16; partly for 14 (a
section needs a C++ compiler); not ready for 09-13, 17: no working C++ compiler``.

Exit codes: :data:`EXIT_READY` (0) ready for every module; :data:`EXIT_PARTLY` (2) ready for
some modules only (the verdict names them); :data:`EXIT_NOT_READY` (1) the course cannot run
at all (Python too old, torch missing, or torch older than :data:`MINIMUM_TORCH`).

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
import sys
from dataclasses import dataclass
from typing import TextIO

REQUIRED_PYTHON = (3, 11)
EXPECTED_TORCH = "2.13.0"  # the stored outputs are made with this release
MINIMUM_TORCH = "2.10.0"  # the oldest release on which `make drift` passes
NEWEST_TESTED_TORCH = "2.15.0"  # the newest release `make drift` was run with
EXIT_READY, EXIT_NOT_READY, EXIT_PARTLY = 0, 1, 2  # `python -m torchcourse.preflight`'s exit codes

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
    Where inductor finds no C++ compiler, it also turns on
    :func:`torchcourse.compiletools.fall_back_without_compiler`, so the compile lessons go on
    with graph capture. Returns the verdict (see :func:`torch_verdict`)."""
    real_torch = torch_module is None
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
    if real_torch:  # no C++ compiler: torch.compile goes on with aot_eager, and says so once
        from torchcourse.compiletools import fall_back_without_compiler

        fall_back_without_compiler()
    return verdict


@dataclass
class Item:
    name: str
    ok: bool
    detail: str
    advice: str = ""
    fatal: bool = False
    need: str = ""  # the module need ("compiler", "gloo") this item decides, see course.Module.needs

    def line(self) -> str:
        mark = "✓" if self.ok else ("✗" if self.fatal else "!")
        text = f"{mark} {self.name:<14} {self.detail}"
        if not self.ok and self.advice:
            text += f"\n  {'':<14} → {self.advice}"
        return text


# What each module needs beyond Python and torch (course.Module.needs and .partly read it here):
# "compiler", a C++ compiler for torch.compile on the CPU; "gloo", torch.distributed between local
# processes; "partly:" marks a need of one section only (the rest of the module runs without it).
MODULE_NEEDS: dict[str, tuple[str, ...]] = {f"{n:02d}": () for n in range(18)} | {
    **{n: ("compiler",) for n in ("09", "10", "11", "12", "13", "17")},
    "14": ("partly:compiler",),
    "15": ("gloo",),
}
NEED_WORDS = {"compiler": "no working C++ compiler", "gloo": "torch.distributed (gloo) does not run"}


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


def compiler_item() -> Item:
    """The C++ compiler line: see :func:`torchcourse.compiletools.compiler_report`."""
    from torchcourse.compiletools import compiler_report

    return Item("C++ compiler", *compiler_report(), need="compiler")


def run(compile_check: bool = True, bandwidth: bool = True, gloo_check: bool = True) -> list[Item]:
    """Collect the preflight items (used by the CLI and by module 00). Without ``compile_check``
    the compiler need is judged from the compiler found alone."""
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
    compiler = compiler_item()
    items.append(compiler)
    if torch.cuda.is_available():
        try:
            import triton  # noqa: F401

            items.append(Item("Triton", True, f"version {triton.__version__}"))
        except ImportError:
            items.append(
                Item("Triton", False, "not installed", "torch.compile on CUDA needs Triton: pip install triton")
            )
    if compile_check:
        from torchcourse import compiletools

        if compiler.ok:
            probe = compiletools.check_compile("cpu")
            seconds = f" in {probe['seconds']:.1f} s (cold cache)" if probe.get("seconds") is not None else ""
            detail = f"compiled and ran a tiny function{seconds}" if probe["ok"] else probe["error"]
        else:
            probe, detail = {"ok": False}, "skipped: no C++ compiler"
        items.append(
            Item(
                "compile (cpu)",
                probe["ok"],
                detail,
                "the compile lessons need this (see the verdict); the other modules run without it",
                need="compiler",
            )
        )
        if torch.cuda.is_available():
            probe = compiletools.check_compile("cuda")
            items.append(
                Item(
                    "compile (cuda)",
                    probe["ok"],
                    "works" if probe["ok"] else probe["error"],
                    "check that Triton matches torch",
                )
            )
    if gloo_check:
        available = torch.distributed.is_available()
        from torchcourse.distributed import check_gloo

        probe = check_gloo() if available else {"ok": False, "error": "this torch was built without torch.distributed"}
        items.append(
            Item(
                "distributed",
                probe["ok"],
                "gloo runs between local processes" if probe["ok"] else probe["error"],
                "module 15 needs it: allow Python to open local (127.0.0.1) network ports",
                need="gloo",
            )
        )
    if bandwidth:
        from torchcourse.timing import copy_bandwidth

        gbs = copy_bandwidth(128 * 2**20)
        items.append(Item("bandwidth", True, f"CPU copy: {gbs:.1f} GB/s (read + write, 128 MiB buffers)"))
        if torch.cuda.is_available():
            items.append(Item("bandwidth", True, f"GPU copy: {copy_bandwidth(512 * 2**20, 'cuda'):.0f} GB/s"))
    return items


def _ranges(numbers: list[str]) -> str:
    """["00", "01", "02", "05"] -> "00-02, 05"."""
    runs: list[list[int]] = []
    for n in sorted(int(x) for x in numbers):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]:02d}" if len(r) == 1 else f"{r[0]:02d}-{r[-1]:02d}" for r in runs)


def readiness(items: list[Item]) -> dict[str, list[str]]:
    """Module numbers by outcome, ``{"ready": [...], "partly": [...], "not": [...]}``: a module is
    not ready when a need of its whole lesson failed, partly ready when a need of one section
    failed. Fatal items make every module not ready."""
    if any(i.fatal and not i.ok for i in items):
        return {"ready": [], "partly": [], "not": list(MODULE_NEEDS)}
    missing = {i.need for i in items if i.need and not i.ok}
    out: dict[str, list[str]] = {"ready": [], "partly": [], "not": []}
    for number, needs in MODULE_NEEDS.items():
        whole = {n for n in needs if not n.startswith("partly:")}
        part = {n.removeprefix("partly:") for n in needs} - whole
        out["not" if missing & whole else "partly" if missing & part else "ready"].append(number)
    return out


def verdict(items: list[Item]) -> str:
    """The last line of the report: what this machine can run, per part of the course."""
    if any(i.fatal and not i.ok for i in items):
        return "Verdict: not ready: the course cannot run here yet; fix the ✗ lines above."
    parts = readiness(items)
    missing = [i.need for i in items if i.need and not i.ok]
    why = "; ".join(dict.fromkeys(NEED_WORDS[n] for n in missing))
    notes = len([i for i in items if not i.ok and not i.need])
    tail = f" ({notes} note(s), marked !, above)" if notes else ""
    if not parts["partly"] and not parts["not"]:
        return f"Verdict: ready for every module ({_ranges(parts['ready'])}){tail}."
    text = f"Verdict: ready for {_ranges(parts['ready'])}"
    if parts["partly"]:
        text += f"; partly for {_ranges(parts['partly'])} (a section needs what is missing)"
    if parts["not"]:
        text += f"; not ready for {_ranges(parts['not'])}"
    return f"{text}: {why}{tail}."


def exit_code(items: list[Item]) -> int:
    """:data:`EXIT_READY`, :data:`EXIT_PARTLY` or :data:`EXIT_NOT_READY` for these items."""
    parts = readiness(items)
    if not parts["ready"] and not parts["partly"]:
        return EXIT_NOT_READY
    return EXIT_READY if not parts["partly"] and not parts["not"] else EXIT_PARTLY


def report(items: list[Item]) -> str:
    """The preflight as text, ending with the one-line verdict."""
    return "\n".join([*(item.line() for item in items), verdict(items)])


def main() -> int:
    items = run()
    try:  # the same note the setup cells give, on stderr
        check_torch()
    except UnsupportedTorch:
        pass  # the ✗ line below says it
    except ImportError:
        pass
    print(report(items))
    return exit_code(items)


if __name__ == "__main__":
    raise SystemExit(main())
