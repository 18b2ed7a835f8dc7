"""The machine a benchmark ran on (CPU model, cores, threads, versions, a GPU if any): the
header of every report, the course's own (runner) and the side-by-side one (sidebyside);
and what the side-by-side one holds its rows against and runs under: the limit kernels, the
rate of sin and cos, the largest cache, the CPUs the process is pinned to."""

from __future__ import annotations

import math
import os
import platform
import time
from typing import Any, Callable

import torch

from torchcourse.device import describe_device
from torchcourse.timing import Limits


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), cpu)
    except OSError:
        pass
    info = {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    if torch.cuda.is_available():
        info["gpu"] = describe_device("cuda")
    return info


def pin_threads(threads: int) -> list[int] | None:
    """Keep this process, every thread it has and every thread it will start, on ``threads`` CPUs.

    A thread count alone does not hold every tool to it: XLA's CPU runtime (jax 0.10) runs its
    loops on a thread pool sized by the CPUs it may use, and ``XLA_FLAGS`` has no flag that caps it
    (``--xla_cpu_multi_thread_eigen=false`` covers Eigen's operations only). CPU affinity does; threads inherit
    it from the thread that starts them. Returns the CPUs, or None where the OS has no
    ``sched_setaffinity`` (macOS, Windows): there the cores-used column tells."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))[:threads]
    set_affinity(cpus)
    return cpus


def set_affinity(cpus) -> None:
    """Put every thread of this process on ``cpus`` (Linux; :func:`pin_threads` and its undoing)."""
    try:
        tasks = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        tasks = [0]
    for tid in tasks:
        try:
            os.sched_setaffinity(tid, cpus)
        except OSError:  # a thread that ended meanwhile
            pass


def last_level_cache_bytes(default: int = 256 * 2**20) -> int:
    """Size of the largest CPU cache this OS reports (Linux's sysfs; ``default`` elsewhere)."""
    base = "/sys/devices/system/cpu/cpu0/cache"
    best = 0
    try:
        indexes = [i for i in os.listdir(base) if i.startswith("index")]
    except OSError:
        indexes = []
    for index in indexes:
        try:
            with open(os.path.join(base, index, "size")) as fh:
                text = fh.read().strip()
            scale = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
            best = max(best, int(text.rstrip("KMG")) * scale)
        except (OSError, ValueError):
            continue
    return best or default


def limits_for(bytes_read: int, bytes_written: int) -> tuple[dict[str, Callable[[], Any]], dict[str, int]]:
    """The limit kernels of one workload (a sum, a fill, a copy: ``timing.read_bandwidth`` and its
    siblings) on buffers of the workload's own footprint, so that they run from the same level of
    the memory hierarchy as the workload does (on a CPU whose last-level cache holds 96 MB, a
    256 MiB limit kernel runs from DRAM while fitness 2 runs from the cache). They take their turns
    in every round beside the variants, so they see the same load."""
    rd = max(bytes_read, 2**20) // 4
    wr = max(bytes_written, 2**20) // 4
    cp = max((bytes_read + bytes_written) // 2, 2**20) // 4
    src, dst, a, b = torch.ones(rd), torch.zeros(wr), torch.ones(cp), torch.zeros(cp)
    kernels = {"read": src.sum, "write": lambda: dst.fill_(1.0), "copy": lambda: b.copy_(a)}
    return kernels, {"read": 4 * rd, "write": 4 * wr, "copy": 8 * cp}


def trig_rate(threads: int, n: int = 16_384, repeat: int = 200) -> float:
    """Points a second at which a compiled torch loop evaluates ``sin x`` and ``cos y`` on float64
    columns small enough to stay in the L2 cache: fitness 3's compute limit (its two
    transcendental calls a point; ``cos y`` serves both the cost and a constraint)."""
    x, y = torch.rand(n, dtype=torch.float64) * 4 - 1, torch.rand(n, dtype=torch.float64) * 4 - 1
    o = torch.empty(n, dtype=torch.float64)
    k = torch.compile(lambda x, y, o: o.copy_(torch.sin(x) + torch.cos(y)))
    k(x, y, o)
    best = math.inf
    for _ in range(7):
        t = time.perf_counter()
        for _ in range(repeat):
            k(x, y, o)
        best = min(best, (time.perf_counter() - t) / repeat)
    return n / best


def held_against(r: dict[str, Any], lim: dict[str, float]) -> None:
    """Set the row's limit and % of it: the least time its traffic takes at the matching measured
    bandwidth, or for fitness 3, where longer, at the measured sin + cos rate; over its time."""
    mem = Limits(lim["read_GBps"], lim["write_GBps"], lim["copy_GBps"])
    limit, gbps = mem.for_traffic(r["bytes_read"], r["bytes_written"])
    nbytes = r["bytes_read"] + r["bytes_written"]
    bound, r["limit"] = nbytes / (gbps * 1e9), limit
    if r["group"] == "ga fitness 3" and r["points"] / lim["trig_points_per_s"] > bound:
        bound, r["limit"] = r["points"] / lim["trig_points_per_s"], "sin+cos rate"
    r["GBps"], r["pct_of_limit"] = nbytes / r["min_s"] / 1e9, 100 * bound / r["min_s"]
