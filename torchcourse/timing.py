"""Honest timing: warm up, repeat, synchronise the GPU, report min and median.

One helper for every lesson and the benchmark, so each number in the course is
measured the same way. ``measure`` returns a :class:`Timing`; its ``str`` is a short
human line (``min 1.23 ms, median 1.30 ms over 20 runs``). ``copy_bandwidth`` is the
memory limit to set beside achieved GB/s. Thread counts are part of a timing:
``numpy_blas_threads`` reads the count NumPy's BLAS really uses, and ``in_fresh_process``
runs a function where every thread pool was sized before any library loaded.

A run whose median is more than ``DISTURBED_RATIO`` times its min was disturbed (another
process took the CPU): its ``str`` says so with ``DISTURBED_MARK``, ``measure`` and
``interleaved`` say so on stderr, and a notebook executed by the course's build raises
:class:`DisturbedTiming` rather than store it (``TORCHCOURSE_ALLOW_DISTURBED=1`` stores it
anyway, for drafts; under pytest nothing raises: a busy CI machine is expected).
"""

from __future__ import annotations

import ctypes
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any, Callable

import torch

from torchcourse.device import synchronize

# Median / min above which a run counts as disturbed. Chosen from the lessons' own timings (int8/int16/
# NumPy row sums, a 1e6 sum, a 500x500 solve, a 64 MiB copy and clone, a 250x250 matmul; budget 0.05 s,
# 7 repeats): stored quiet runs stay at or under 1.3 (1 and 2 threads); on a 2-core machine shared with
# other jobs, 1 thread gave 1.05-1.83 and 2 threads 1.07-2.46 with bursts of 3.4-25 (lesson 04's int8 sum: 28.7).
DISTURBED_RATIO = 2.5
DISTURBED_MARK = "⚠ disturbed run"
ALLOW_DISTURBED_ENV = "TORCHCOURSE_ALLOW_DISTURBED"


class DisturbedTiming(RuntimeError):
    """A timing whose median is far above its min, in a build that must not store it."""


def disturbed(times: list[float]) -> bool:
    """True when the median of ``times`` is more than ``DISTURBED_RATIO`` times their min."""
    return len(times) > 1 and statistics.median(times) > DISTURBED_RATIO * min(times)


def _refuse_disturbed() -> bool:
    """Raise in the course's build (``TORCHCOURSE_BUILD=1``), unless drafts are allowed or a
    test runs it (pytest >= 8.2 sets ``PYTEST_VERSION``; kernels and subprocesses inherit it)."""
    if os.environ.get("TORCHCOURSE_BUILD") != "1" or os.environ.get(ALLOW_DISTURBED_ENV) == "1":
        return False
    return "PYTEST_VERSION" not in os.environ and "PYTEST_CURRENT_TEST" not in os.environ


def check_disturbed(times: list[float], what: str = "a timing") -> None:
    """Say on stderr that ``times`` were disturbed; in the build, raise :class:`DisturbedTiming`."""
    if disturbed(times):
        ratio, low, mid = statistics.median(times) / min(times), min(times), statistics.median(times)
        _say(f"{what} has its median {ratio:.1f}x its min (min {format_seconds(low)}, median {format_seconds(mid)})")


def check_consistent(consistent: Any, what: str, evidence: str = "") -> bool:
    """Flag a run whose timings break a relation that holds by construction of the work (a 500x500
    product does 8x the work of a 250x250 one, so it cannot take the same time): such a run was
    disturbed (threads of a small product waiting at a barrier for a descheduled sibling stretch
    every call). As :func:`check_disturbed`: the build raises, elsewhere stderr says so; False."""
    if not consistent:
        _say(f"{what} does not hold in this run ({evidence})")
    return bool(consistent)


def _say(what: str) -> None:
    message = f"{DISTURBED_MARK}: {what}: other work took the CPU; run the cell again"
    if _refuse_disturbed():
        raise DisturbedTiming(
            message + f". The build does not store a disturbed timing: rebuild on a quiet machine "
            f"(or set {ALLOW_DISTURBED_ENV}=1 for a draft)."
        )
    print(message, file=sys.stderr)


@dataclass
class Timing:
    """Seconds per call: every repeat kept, min and median derived."""

    times: list[float]
    number: int  # calls per repeat

    @property
    def min(self) -> float:
        return min(self.times)

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def disturbed(self) -> bool:
        return disturbed(self.times)

    def __str__(self) -> str:
        text = f"min {format_seconds(self.min)}, median {format_seconds(self.median)} over {len(self.times)} runs"
        if self.disturbed:
            text += f" ({DISTURBED_MARK}: median {self.median / self.min:.1f}x the min)"
        return text


def format_seconds(seconds: float) -> str:
    """1.5e-05 -> '15.0 µs'; 2.5 -> '2.50 s'."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            value = seconds / scale
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{seconds} s"  # pragma: no cover


def format_ratio(ratio: float) -> str:
    """A ratio with the digits it needs: 12.3 -> '12x', 1.234 -> '1.2x', 0.034 -> '0.034x'.

    One decimal is enough above 0.1; below it, two significant digits, so a ratio never prints
    as '0.0x' (which reads as "free")."""
    if ratio >= 10:
        return f"{ratio:,.0f}x"
    if ratio >= 0.095:
        return f"{ratio:.1f}x"
    return f"{ratio:.2g}x"


def measure(
    fn: Callable[[], Any],
    *,
    repeat: int = 7,
    number: int | None = None,
    warmup: int = 1,
    device: torch.device | str | None = "cpu",
    budget: float = 0.2,
) -> Timing:
    """Time ``fn()``: ``warmup`` untimed calls, then ``repeat`` timed repeats.

    Each repeat runs ``fn`` ``number`` times (chosen so one repeat lasts about
    ``budget`` seconds when not given) and records seconds per call. The device is
    synchronised before the clock starts and before it stops.
    """
    for _ in range(warmup):
        fn()
    synchronize(device)
    if number is None:
        start = time.perf_counter()
        fn()
        synchronize(device)
        once = max(time.perf_counter() - start, 1e-7)
        number = max(1, min(10_000, int(budget / once)))
    times = []
    for _ in range(repeat):
        synchronize(device)
        start = time.perf_counter()
        for _ in range(number):
            fn()
        synchronize(device)
        times.append((time.perf_counter() - start) / number)
    check_disturbed(times, f"measure({getattr(fn, '__qualname__', 'fn')})")
    return Timing(times, number)


def time_once(fn: Callable[[], Any], device: torch.device | str | None = "cpu") -> tuple[Any, float]:
    """Run ``fn()`` once and return ``(result, seconds)``: for one-off costs such as a first compile."""
    synchronize(device)
    start = time.perf_counter()
    result = fn()
    synchronize(device)
    return result, time.perf_counter() - start


def copy_bandwidth(nbytes: int = 256 * 2**20, device: torch.device | str = "cpu", repeat: int = 5) -> float:
    """Measured copy bandwidth in GB/s (bytes read + bytes written, 1 GB = 1e9 B).

    The practical memory limit to set beside any memory-bound kernel's achieved GB/s. It
    times ``dst.copy_(src)`` into a buffer allocated and written once beforehand: a
    ``clone()`` would also time the allocation and, on the CPU, the operating system's
    first-touch page faults, and report a fraction of the real bandwidth.
    """
    src = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
    dst = torch.zeros_like(src)  # allocated and touched now, not inside the timed copies
    t = measure(lambda: dst.copy_(src), repeat=repeat, number=1, warmup=2, device=device)
    return 2 * src.numel() * 4 / t.min / 1e9


def read_bandwidth(nbytes: int = 256 * 2**20, device: torch.device | str = "cpu", repeat: int = 5) -> float:
    """Measured read bandwidth in GB/s: a large ``sum`` reads ``nbytes`` and writes one number.

    The limit for a kernel that mostly reads (a reduction, a comparison that writes a narrow
    result). It can exceed :func:`copy_bandwidth`: a copy's stores also cost a write-allocate
    read on most CPUs, which this kernel does not pay.
    """
    src = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
    t = measure(src.sum, repeat=repeat, number=1, warmup=2, device=device)
    return src.numel() * 4 / t.min / 1e9


def write_bandwidth(nbytes: int = 256 * 2**20, device: torch.device | str = "cpu", repeat: int = 5) -> float:
    """Measured write bandwidth in GB/s: ``fill_`` of a buffer allocated and touched beforehand.

    The limit for a kernel whose traffic is mostly stores (a fill, a factory, a wide output
    from a narrow input).
    """
    dst = torch.zeros(nbytes // 4, dtype=torch.float32, device=device)
    t = measure(lambda: dst.fill_(1.0), repeat=repeat, number=1, warmup=2, device=device)
    return dst.numel() * 4 / t.min / 1e9


@dataclass
class Limits:
    """The memory limits of this machine, measured in one run (GB/s, 1 GB = 1e9 B)."""

    read_GBps: float
    write_GBps: float
    copy_GBps: float  # bytes read + bytes written by dst.copy_(src)

    def for_traffic(self, bytes_read: int, bytes_written: int) -> tuple[str, float]:
        """The limit that matches a kernel's traffic: ``("read", GB/s)`` when it mostly reads
        (writes under a tenth of its reads), ``("write", ...)`` when it mostly writes, else
        ``("copy", ...)``."""
        if bytes_written * 10 <= bytes_read:
            return "read", self.read_GBps
        if bytes_read * 10 <= bytes_written:
            return "write", self.write_GBps
        return "copy", self.copy_GBps


def memory_limits(nbytes: int = 256 * 2**20, device: torch.device | str = "cpu", repeat: int = 5) -> Limits:
    """Read, write and copy bandwidth of ``nbytes`` buffers, measured back to back."""
    return Limits(
        read_bandwidth(nbytes, device, repeat),
        write_bandwidth(nbytes, device, repeat),
        copy_bandwidth(nbytes, device, repeat),
    )


# Environment variables that size the thread pools of torch (OpenMP, MKL) and of NumPy's
# BLAS (OpenBLAS on pip's NumPy for Linux and Windows, Apple's Accelerate on macOS).
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def page_faults(fn: Callable[[], Any]) -> int | None:
    """Minor page faults of one call of ``fn``, as the operating system counts them
    (``resource.getrusage``: Linux and macOS; None where that module is missing). A fresh output
    above glibc's mmap threshold faults in every 4 KiB page on each call; a reused one none."""
    try:
        import resource  # Unix only
    except ImportError:
        return None
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    fn()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def numpy_blas_threads() -> int | None:
    """Threads NumPy's BLAS will use in this process, read from the library itself.

    OpenBLAS and MKL read their thread count when they are loaded, so setting
    ``OPENBLAS_NUM_THREADS`` after ``import numpy`` (or ``import torch``, which imports
    NumPy) changes nothing: this asks the loaded library what is really in effect. Linux
    only (it finds the library in ``/proc/self/maps``); None where it cannot tell.
    """
    import numpy  # noqa: F401  (make sure NumPy, and so its BLAS, is loaded)

    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "blas" in line.lower() or "mkl_rt" in line}
    except OSError:
        return None
    getters = (
        "scipy_openblas_get_num_threads64_",
        "scipy_openblas_get_num_threads",
        "openblas_get_num_threads64_",
        "openblas_get_num_threads",
        "MKL_Get_Max_Threads",
    )
    for path in sorted(paths):
        if not path.startswith("/") or not any(key in path.lower() for key in ("numpy", "openblas", "mkl")):
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in getters:
            getter = getattr(lib, name, None)
            if getter is not None:
                getter.restype = ctypes.c_int
                return int(getter())
    return None


@dataclass
class FreshRun:
    """What :func:`in_fresh_process` brings back: the value and the threads really used."""

    value: Any
    torch_threads: int
    numpy_blas_threads: int | None


_CHILD = """
import importlib, pickle, sys
import torch
from torchcourse.timing import FreshRun, numpy_blas_threads
with open(sys.argv[1], "rb") as f:
    module, qualname, threads, args, kwargs = pickle.load(f)
torch.set_num_threads(threads)
fn = importlib.import_module(module)
for part in qualname.split("."):
    fn = getattr(fn, part)
run = FreshRun(fn(*args, **kwargs), torch.get_num_threads(), numpy_blas_threads())
with open(sys.argv[1], "wb") as f:
    pickle.dump(run, f)
"""


def in_fresh_process(fn: Callable[..., Any], *args: Any, threads: int = 1, **kwargs: Any) -> FreshRun:
    """Call ``fn(*args, **kwargs)`` in a new Python process whose thread pools hold ``threads``.

    Thread-count variables are read once, when a library loads. In a running notebook NumPy
    is already loaded, so the only sure way to time NumPy on one thread is a process that
    starts with the variables set. ``fn`` must be importable (a module-level function) and
    its arguments and result picklable. Returns a :class:`FreshRun` that also says how many
    threads torch and NumPy's BLAS actually used there.
    """
    env = dict(os.environ)
    env.update({name: str(threads) for name in THREAD_VARIABLES})
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)  # import torchcourse as here
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "call.pickle")
        with open(path, "wb") as f:
            pickle.dump((fn.__module__, fn.__qualname__, threads, args, kwargs), f)
        proc = subprocess.run([sys.executable, "-c", _CHILD, path], env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{fn.__qualname__} failed in a fresh process:\n{proc.stderr[-2000:]}")
        for line in proc.stderr.splitlines():  # a disturbed timing in the child is said here too
            if DISTURBED_MARK in line:
                print(line, file=sys.stderr)
        with open(path, "rb") as f:
            return pickle.load(f)


def interleaved(
    fns: list[Callable[[], Any]],
    number: int = 1,
    rounds: int = 7,
    device: Any = "cpu",
    threads: int | None = None,
    varies: tuple[int, ...] = (),
    clock: Callable[[], float] = time.perf_counter,
) -> list[float]:
    """Best seconds per call of each function, the functions taking turns round after round.

    For a claim that compares functions ("A is faster than B"): timed one after the other, a
    busy moment on the machine can slow only one of them and reorder the results; taking
    turns, every function sees the same load. ``threads`` sets torch's thread count for the
    timing (and puts it back): on a busy machine multi-threaded kernels slow down erratically,
    one thread each compares the work itself. One warm-up call each first.

    ``varies``: the positions of functions whose own time varies from call to call (a clone that
    faults fresh pages in some calls and reuses freed memory in others): their spread is what is
    measured, not a disturbance, so it is not refused; the others are still checked. ``clock=time.thread_time``
    (``threads=1``, CPU) counts this thread's CPU seconds, which leave out a busy machine's pauses."""
    if clock is time.thread_time and (threads != 1 or str(device) != "cpu"):
        raise ValueError("clock=time.thread_time measures the work only with threads=1 on the CPU")
    before = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        return _interleaved(fns, number, rounds, device, varies, clock)
    finally:
        torch.set_num_threads(before)


def _interleaved(
    fns: list[Callable[[], Any]], number, rounds, device, varies=(), clock=time.perf_counter
) -> list[float]:
    for fn in fns:
        fn()
    synchronize(device)
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(rounds):
        for k, fn in enumerate(fns):
            start = clock()
            for _ in range(number):
                fn()
            synchronize(device)
            times[k].append((clock() - start) / number)
    for k, fn_times in enumerate(times):
        if k not in varies:
            check_disturbed(fn_times, f"interleaved function {k}")
    return [min(fn_times) for fn_times in times]
