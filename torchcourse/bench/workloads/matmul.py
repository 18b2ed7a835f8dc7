"""Matrix-multiply throughput (GFLOP/s) against matrix size, for torch and for NumPy.

Module 06 plots these numbers and the benchmark (``python -m torchcourse.bench``) reports
them, so both measure the same code. An ``n x n`` by ``n x n`` product costs ``2 n³``
floating-point operations (``n³`` multiplies and ``n³`` adds, :func:`matmul_flops`) and
moves at least ``3 n² × itemsize`` bytes (read A and B, write C, :func:`matmul_bytes`):
work grows faster than data, so large products are limited by arithmetic, not memory,
and the achieved GFLOP/s climbs with ``n`` until the cores' peak.

Published reference (docs/reference-figures.md, C, a laptop): 500x500 in 2.29 ms on its CPU and
108 µs on its GPU; 5000x5000 in 2.21 s on its CPU and 57.88 ms on its GPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch

from torchcourse.timing import Timing, measure


def matmul_flops(n: int) -> int:
    """Floating-point operations of an ``n x n`` @ ``n x n`` product: ``2 n³``."""
    return 2 * n**3


def matmul_bytes(n: int, dtype: torch.dtype = torch.float32) -> int:
    """The least traffic of the product: A and B read once, C written once."""
    return 3 * n * n * torch.empty((), dtype=dtype).element_size()


def make_pair(
    n: int, *, dtype: torch.dtype = torch.float32, device: torch.device | str = "cpu", seed: int = 0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Two seeded ``n x n`` normal matrices, made on the CPU then moved (same values everywhere)."""
    g = torch.Generator().manual_seed(seed)
    a = torch.randn(n, n, generator=g, dtype=torch.float64).to(dtype)
    b = torch.randn(n, n, generator=g, dtype=torch.float64).to(dtype)
    return a.to(device), b.to(device)


def gflops(n: int, seconds: float) -> float:
    """Achieved GFLOP/s of one ``n x n`` product that took ``seconds`` (1 GFLOP = 1e9 FLOPs)."""
    return matmul_flops(n) / seconds / 1e9


@dataclass
class MatmulTiming:
    """Time per product at one size, for torch and (on the CPU) NumPy on the same data."""

    n: int
    torch: Timing
    numpy: Timing | None

    @property
    def torch_gflops(self) -> float:
        return gflops(self.n, self.torch.min)

    @property
    def numpy_gflops(self) -> float | None:
        return None if self.numpy is None else gflops(self.n, self.numpy.min)


def time_matmuls(
    sizes: Sequence[int],
    *,
    dtype: torch.dtype = torch.float32,
    device: torch.device | str = "cpu",
    numpy: bool = True,
    repeat: int = 5,
    budget: float = 0.03,
) -> list[MatmulTiming]:
    """Time ``a @ b`` for each size with :func:`torchcourse.timing.measure` (warm-up, repeats, sync).

    NumPy runs on the same values (``.numpy()`` of the CPU tensors, so the same dtype) and
    only when ``device`` is the CPU. Both libraries use their own thread pools as they are
    configured: torch's intra-op threads, NumPy's BLAS threads.
    """
    rows = []
    for n in sizes:
        a, b = make_pair(n, dtype=dtype, device=device)
        t_torch = measure(lambda a=a, b=b: a @ b, repeat=repeat, device=device, budget=budget)
        t_numpy = None
        if numpy and torch.device(device).type == "cpu":
            an, bn = a.numpy(), b.numpy()
            t_numpy = measure(lambda an=an, bn=bn: an @ bn, repeat=repeat, device="cpu", budget=budget)
        rows.append(MatmulTiming(n, t_torch, t_numpy))
    return rows
