"""Module 16's case builders and growth directions: permutations that stay permutations when
grown, square matrices that stay square, seeded labels; and the in-place return rule."""

from __future__ import annotations

import torch

from torchcourse.grading.exercises._inputs import generator, randint
from torchcourse.grading.rules import NoLoop

NO_LOOP = NoLoop()


def _permutation_blocks(args: tuple, k: int) -> tuple:
    """A permutation of n grown to one of k*n: k blocks, block i shifted by i*n (still a permutation)."""
    (p,) = args
    return (torch.cat([p + i * p.numel() for i in range(k)]),)


def _square_tiles(args: tuple, k: int) -> tuple:
    """A square matrix grown k times along both dimensions (tiled k x k), so it stays square."""
    return (args[0].repeat(k, k),) + tuple(args[1:])


def _returns_its_input(args: tuple, got) -> str | None:
    """PyTorch's in-place methods return the tensor they changed (so calls chain); so must ours."""
    if got is not args[0]:
        return (
            "you returned a new tensor; the task asks you to change the input in place and return it "
            "(the input itself, as t.add_(1) returns t)"
        )
    return None


def _lower(m: torch.Tensor) -> torch.Tensor:
    return torch.ones(m.shape, dtype=torch.bool).tril(-1)


def _perm(n: int, seed: int) -> torch.Tensor:
    return torch.randperm(n, generator=generator(seed))


def _labels(n: int, classes: int, seed: int) -> torch.Tensor:
    return randint(0, classes, n, seed=seed)
