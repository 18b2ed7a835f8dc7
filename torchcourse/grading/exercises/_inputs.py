"""Seeded input generators shared by the exercise definitions."""

from __future__ import annotations

import torch


def generator(seed: int) -> torch.Generator:
    """A CPU generator with a fixed seed: the same inputs on every machine and run."""
    return torch.Generator().manual_seed(seed)


def randn(*shape: int, seed: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """Normal samples of ``shape`` from a fixed seed (generated in float64, then cast)."""
    return torch.randn(*shape, generator=generator(seed), dtype=torch.float64).to(dtype)


def randint(low: int, high: int, *shape: int, seed: int, dtype: torch.dtype = torch.int64) -> torch.Tensor:
    """Integers in [low, high) of ``shape`` from a fixed seed."""
    return torch.randint(low, high, shape, generator=generator(seed)).to(dtype)
