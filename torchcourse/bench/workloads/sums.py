"""Summing a tensor two ways: a Python loop over its elements, and one vectorised ``sum``.

Module 05 times these two functions and the benchmark (``python -m torchcourse.bench``)
reports them, so the lesson's ratio and the benchmark's row measure the same code. The
published reference (docs/reference-figures.md, C): a 1e6-element float64 tensor, loop 1.37 s
vs ``sum()`` 191.26 µs on a laptop CPU (~7,163x); on its GPU the loop took 4.54 s.

Bytes moved: both functions read every element once, ``t.numel() * t.element_size()``
bytes (:func:`bytes_moved`), and write one scalar. The vectorised sum is limited by that
traffic (memory bandwidth) once the tensor is large; the loop never is: it pays Python
and dispatcher overhead for every element, whatever the element's size.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator, Sequence

import torch

from torchcourse.timing import Timing, measure


def make_input(
    n: int, *, dtype: torch.dtype = torch.float64, device: torch.device | str = "cpu", seed: int = 0
) -> torch.Tensor:
    """``n`` uniform samples in [0, 1) from a fixed seed, made on the CPU then moved.

    Seeding a CPU generator gives the same numbers on every machine, with or without a GPU.
    """
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n, generator=g, dtype=dtype).to(device)


def loop_sum(t: torch.Tensor) -> torch.Tensor:
    """Sum a 1-D tensor in a Python loop, one element at a time (the slow way, on purpose).

    Each iteration builds a new 0-d tensor for ``t[i]`` and dispatches one tiny addition:
    microseconds of overhead per element on a CPU, and on a GPU one kernel launch per
    element. Bytes moved: ``bytes_moved(t)`` (each element read once), but the time is
    set by the number of elements, not by the bytes.
    """
    total = torch.zeros((), dtype=t.dtype, device=t.device)
    for i in range(t.shape[0]):
        total += t[i]
    return total


def vectorised_sum(t: torch.Tensor) -> torch.Tensor:
    """Sum with one call: a single C++ (or GPU) kernel reads every element once.

    Bytes moved: ``bytes_moved(t)``; for large tensors the time approaches
    ``bytes_moved(t) / memory bandwidth``.
    """
    return t.sum()


def bytes_moved(t: torch.Tensor) -> int:
    """Bytes either sum reads: every element once (the one-scalar write is negligible)."""
    return t.numel() * t.element_size()


@dataclass
class SumTiming:
    """Loop and vectorised timings for one size (``loop`` is None where it was skipped)."""

    n: int
    nbytes: int
    loop: Timing | None
    vectorised: Timing

    @property
    def ratio(self) -> float | None:
        """How many times slower the loop is (best run against best run)."""
        return None if self.loop is None else self.loop.min / self.vectorised.min

    @property
    def vectorised_gbps(self) -> float:
        """Achieved bandwidth of the vectorised sum in GB/s (1 GB = 1e9 bytes)."""
        return self.nbytes / self.vectorised.min / 1e9


@contextmanager
def torch_threads(n: int | None) -> Iterator[None]:
    """Run the block with ``n`` intra-op threads (``None``: leave the setting alone)."""
    before = torch.get_num_threads()
    if n is not None:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def time_sums(
    sizes: Sequence[int],
    *,
    loop_max: int = 100_000,
    dtype: torch.dtype = torch.float64,
    device: torch.device | str = "cpu",
    repeat: int = 5,
    budget: float = 0.02,
    num_threads: int | None = 1,
) -> list[SumTiming]:
    """Time both sums for each size with :func:`torchcourse.timing.measure`.

    The loop costs a microsecond or more per element, so it runs only up to ``loop_max``
    elements (with 3 repeats of one call each above 10,000): its time grows linearly, so
    larger sizes would add seconds and teach nothing new.

    ``num_threads=1`` (the default, like ``torch.utils.benchmark.Timer``'s) compares the
    two per CPU core: the loop can use only one, and a parallel kernel on a busy machine
    can stall waiting for a descheduled thread. Pass ``None`` to keep torch's setting.
    """
    with torch_threads(num_threads):
        return [_time_one(n, loop_max, dtype, device, repeat, budget) for n in sizes]


def _time_one(
    n: int, loop_max: int, dtype: torch.dtype, device: torch.device | str, repeat: int, budget: float
) -> SumTiming:
    t = make_input(n, dtype=dtype, device=device)
    vec = measure(lambda: vectorised_sum(t), repeat=repeat, device=device, budget=budget)
    loop = None
    if n <= loop_max:
        big = n > 10_000
        loop = measure(
            lambda: loop_sum(t), repeat=3 if big else repeat, number=1 if big else None, device=device, budget=budget
        )
    return SumTiming(n, bytes_moved(t), loop, vec)
