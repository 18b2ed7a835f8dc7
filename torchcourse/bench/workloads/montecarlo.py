"""Monte Carlo estimate of π: the course's fusion workload (module 09 and the benchmark).

Throw ``n`` points uniformly into the unit square; the fraction that lands inside the
quarter disc ``x² + y² ≤ 1`` tends to π/4. Three implementations of one estimate:

* :func:`pi_python`: a plain Python loop over ``random.random()`` (one interpreted
  iteration per sample; scale ``n`` down, it runs at about a microsecond per sample);
* :func:`pi_from_samples`: the vectorised torch expression on samples drawn beforehand;
* :func:`compiled_pi`: the same function through ``torch.compile``; inductor fuses the
  five element-wise steps and the mean into one loop (one kernel).

Work and traffic per sample, for float32 samples (see :func:`traffic_bytes`):

* FLOPs: 2 multiplies, 1 add, 1 compare, plus the mean's add: about 5 per sample.
* Fused (compiled): read x and y once, 8 bytes per sample, nothing written but one number.
* Eager: every step writes its result to memory and the next step reads it back:
  ``x*x`` (read 4, write 4), ``y*y`` (4 + 4), ``+`` (8 + 4), ``<= 1`` (4 + 1, a bool),
  ``.float()`` (1 + 4), ``mean`` (4): 42 bytes per sample, about 5x the fused traffic.

With ``n`` up to 2**24 the count of points inside is an exact float32 integer, so
eager and compiled results agree to the last bit and do not depend on the thread count.
"""

from __future__ import annotations

import random
from typing import Callable

import torch

FLOPS_PER_SAMPLE = 5
EAGER_BYTES_PER_SAMPLE = 42  # float32 samples; see the module docstring
FUSED_BYTES_PER_SAMPLE = 8


def pi_python(n: int, seed: int = 0) -> float:
    """Pure Python: ``n`` points from ``random.Random(seed)``, one loop iteration each."""
    rng = random.Random(seed)
    inside = 0
    for _ in range(n):
        x, y = rng.random(), rng.random()
        if x * x + y * y <= 1.0:
            inside += 1
    return 4.0 * inside / n


def samples(
    n: int, seed: int = 0, dtype: torch.dtype = torch.float32, device: torch.device | str = "cpu"
) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` uniform points (x, y) from a seeded CPU generator, moved to ``device``.

    Drawn outside any compiled function: compiled and eager code use different random
    streams, so comparisons draw once and feed both the same samples.
    """
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(n, generator=g, dtype=dtype)
    y = torch.rand(n, generator=g, dtype=dtype)
    return x.to(device), y.to(device)


def pi_from_samples(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Vectorised estimate from given samples: 4 · mean(x² + y² ≤ 1), a 0-d tensor."""
    return 4.0 * ((x * x + y * y) <= 1.0).float().mean()


def pi_torch(n: int, seed: int = 0, device: torch.device | str = "cpu") -> torch.Tensor:
    """Draw ``n`` seeded samples and estimate π with :func:`pi_from_samples` (eager)."""
    return pi_from_samples(*samples(n, seed, device=device))


def compiled_pi(**compile_kwargs) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    """A fresh ``torch.compile(pi_from_samples, **compile_kwargs)``.

    A new wrapper each call, so a caller chooses the mode or backend; compiling happens
    at its first call, not here.
    """
    return torch.compile(pi_from_samples, **compile_kwargs)


def traffic(n: int, fused: bool, itemsize: int = 4) -> tuple[int, int]:
    """Memory traffic of one estimate over ``n`` samples: (bytes read, bytes written).
    Fused, the samples are read once and only a scalar is written; unfused, every temporary is
    written once and read back (see :func:`traffic_bytes`)."""
    if fused:
        return 2 * itemsize * n, 0
    read = 2 * itemsize * n + 2 * itemsize * n + itemsize * n + n + 4 * n  # x, y; x², y²; sum; mask; float mask
    return read, traffic_bytes(n, fused, itemsize) - read


def traffic_bytes(n: int, fused: bool, itemsize: int = 4) -> int:
    """Memory traffic of one estimate over ``n`` samples (bytes read + written).

    ``itemsize`` is the sample dtype's size (4 for float32); the bool mask is 1 byte and
    the ``.float()`` result is float32 whatever the sample dtype.
    """
    if fused:
        return 2 * itemsize * n
    mul = 2 * itemsize * n  # x*x: read x, write x²
    add = 3 * itemsize * n  # read x², y², write the sum
    cmp = itemsize * n + n  # read the sum, write a bool mask
    cast = n + 4 * n  # read the mask, write float32
    mean = 4 * n
    return 2 * mul + add + cmp + cast + mean


def flops(n: int) -> int:
    """Arithmetic operations of one estimate over ``n`` samples (about 5 per sample)."""
    return FLOPS_PER_SAMPLE * n
