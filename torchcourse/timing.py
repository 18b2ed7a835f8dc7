"""Honest timing: warm up, repeat, synchronise the GPU, report min and median.

One helper for every lesson and the benchmark, so each number in the course is
measured the same way. ``measure`` returns a :class:`Timing`; its ``str`` is a short
human line (``min 1.23 ms, median 1.30 ms over 20 runs``).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable

import torch

from .device import synchronize


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

    def __str__(self) -> str:
        return f"min {format_seconds(self.min)}, median {format_seconds(self.median)} over {len(self.times)} runs"


def format_seconds(seconds: float) -> str:
    """1.5e-05 -> '15.0 µs'; 2.5 -> '2.50 s'."""
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            value = seconds / scale
            return f"{value:.3g} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{seconds} s"  # pragma: no cover


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

    The practical memory limit to set beside any memory-bound kernel's achieved GB/s.
    """
    src = torch.ones(nbytes // 4, dtype=torch.float32, device=device)
    dst = torch.empty_like(src)
    t = measure(lambda: dst.copy_(src), repeat=repeat, number=1, warmup=2, device=device)
    return 2 * src.numel() * 4 / t.min / 1e9
