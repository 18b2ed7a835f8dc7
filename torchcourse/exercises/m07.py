"""Module 07 "GPU offload": devices, transfers and their cost.

Every exercise about devices uses ``"meta"`` as the other device, so the checks run the
same on a CPU-only machine and on a CUDA one.
"""

from __future__ import annotations

import torch

from ..checks import Exercise
from ..rules import NewObject
from ._inputs import randint, randn


def zeros_on(t, device):
    return torch.zeros(t.shape, dtype=t.dtype, device=device)


def add_on_device_of(a, b):
    return a + b.to(a.device)


def transfer_bytes(t):
    return t.numel() * t.element_size()


def matmul_gflops(n, seconds):
    return 2 * n**3 / seconds / 1e9


def gpu_friendly(t, device):
    dtype = torch.float32 if t.dtype == torch.float64 else t.dtype
    return t.to(device, dtype=dtype)


def batch_to(batch, device):
    return {k: v.to(device) if isinstance(v, torch.Tensor) else v for k, v in batch.items()}


def pack(tensors):
    flat = torch.cat([t.reshape(-1) for t in tensors])
    shapes = [tuple(t.shape) for t in tensors]
    return flat, shapes


def _zeros_cases():
    return [
        (randn(2, 3, seed=70), "meta"),
        (randint(0, 5, 4, 2, seed=71), "meta"),
        (randn(5, seed=72, dtype=torch.float64), "cpu"),
        (randint(0, 2, 3, 3, seed=73, dtype=torch.int8), torch.device("cpu")),
    ]


def _add_cases():
    return [
        (randn(3, 4, seed=74).to("meta"), randn(3, 4, seed=75)),
        (randn(2, 5, seed=76), randn(2, 5, seed=77)),
        (randn(4, seed=78).to("meta"), randn(4, seed=79, dtype=torch.float64)),
    ]


def _bytes_cases():
    big = randn(8, 10, seed=80)
    return [
        (randn(3, 4, seed=81),),
        (randn(5, seed=82, dtype=torch.float64),),
        (randint(0, 100, 100, seed=83, dtype=torch.int8),),
        (big[::2, :3],),
        (randn(6, 2, seed=84, dtype=torch.float16),),
    ]


def _friendly_cases():
    return [
        (randn(3, 2, seed=85, dtype=torch.float64), "meta"),
        (randint(0, 9, 5, seed=86), "meta"),
        (randn(4, seed=87, dtype=torch.float64), "cpu"),
        (randn(2, 2, seed=88), "meta"),
        (randint(0, 2, 3, seed=89, dtype=torch.bool), "cpu"),
    ]


def _batch_cases():
    return [
        ({"x": randn(4, 3, seed=90), "y": randint(0, 3, 4, seed=91), "step": 7, "name": "batch-0"}, "meta"),
        ({"image": randn(2, 1, 3, 3, seed=92), "index": 12}, "cpu"),
        ({"a": randn(5, seed=93, dtype=torch.float64), "b": randn(2, 2, seed=94)}, "meta"),
        ({}, "meta"),  # an empty batch: still a new dict
        ({"only": "text", "n": 3}, "cpu"),  # nothing to move
    ]


def _batch_to_in_place(batch, device):
    for k, v in batch.items():
        if isinstance(v, torch.Tensor):
            batch[k] = v.to(device)
    return batch


def _pack_cases():
    return [
        ([randn(2, 3, seed=95), randn(4, seed=96), randn(1, 2, 2, seed=97)],),
        ([randn(3, 2, seed=98).T, randn(5, seed=99)],),  # a transposed (non-contiguous) input
        ([randint(0, 9, 2, 2, seed=100), randint(0, 9, 3, seed=101), randint(0, 9, 1, seed=102).reshape(())],),
    ]


EXERCISES = [
    Exercise(
        "07.1",
        "Create directly on a device",
        zeros_on,
        cases=_zeros_cases,
        hints=[
            "Every creation function takes dtype= and device=: torch.zeros(shape, dtype=..., device=...).",
            "Take the shape and dtype from t; create on `device` directly instead of creating on the CPU and moving.",
        ],
        wrong=[
            lambda t, device: torch.zeros(t.shape),
            lambda t, device: torch.zeros(t.shape, device=device),
            lambda t, device: torch.zeros_like(t),
        ],
    ),
    Exercise(
        "07.2",
        "Compute on the device of the first operand",
        add_on_device_of,
        cases=_add_cases,
        hints=[
            "PyTorch never moves data for you: a + b needs both on the same device.",
            "a.device tells where a lives; move b there with .to(...).",
            "Move only: b.to(a) would also cast b to a's dtype, and a float64 b would lose precision.",
        ],
        wrong=[
            lambda a, b: a + b,
            lambda a, b: a.add_(b.to(a.device)),
            lambda a, b: a + b.to(a),
        ],  # Tensor.to(other) copies other's dtype too
    ),
    Exercise(
        "07.3",
        "Bytes moved by a transfer",
        transfer_bytes,
        cases=_bytes_cases,
        hints=[
            "A transfer copies every element of t: how many elements, times how many bytes each.",
            "Not every dtype takes 4 bytes: t.element_size() says how many (8 for float64, 1 for int8). "
            "Count the elements of t itself, not of the storage behind it: a slice copies only what it shows.",
        ],
        wrong=[lambda t: t.numel(), lambda t: t.numel() * 4, lambda t: len(t) * t.element_size()],
    ),
    Exercise(
        "07.4",
        "GFLOP/s of a matrix product",
        matmul_gflops,
        cases=lambda: [(500, 2.29e-3), (5000, 2.21), (5000, 57.88e-3), (10000, 0.25)],
        hints=[
            "An n×n by n×n product computes n² results, each a dot product of length n.",
            "Each term of a dot product is a multiply and an add: 2·n³ operations; 1 GFLOP = 1e9.",
        ],
        wrong=[
            lambda n, seconds: n**3 / seconds / 1e9,
            lambda n, seconds: 2 * n**3 / seconds,
            lambda n, seconds: 2 * n**2 / seconds / 1e9,
        ],
    ),
    Exercise(
        "07.5",
        "GPU-friendly dtype and device",
        gpu_friendly,
        cases=_friendly_cases,
        hints=[
            "t.to(device, dtype=...) moves and casts in one copy.",
            "Only float64 becomes float32; integer and bool tensors keep their dtype.",
        ],
        wrong=[
            lambda t, device: t.to(device),
            lambda t, device: t.to(device, dtype=torch.float32),
            lambda t, device: t.to(torch.float32 if t.dtype == torch.float64 else t.dtype),
        ],
    ),
    Exercise(
        "07.6",
        "Move a batch dictionary",
        batch_to,
        cases=_batch_cases,
        rules=[NewObject(what="dict")],
        hints=[
            "Build a new dict with a comprehension over batch.items().",
            "Only tensors have .to(): check isinstance(value, torch.Tensor) and keep other values as they are.",
        ],
        wrong=[
            lambda batch, device: {k: v.to(device) for k, v in batch.items()},
            lambda batch, device: batch,
            _batch_to_in_place,  # the right values, but in the caller's dict
            lambda batch, device: {k: v.to(device) for k, v in batch.items() if isinstance(v, torch.Tensor)},
        ],
    ),
    Exercise(
        "07.7",
        "Pack small tensors into one transfer (stretch)",
        pack,
        cases=_pack_cases,
        hints=[
            "Flatten each tensor to 1-D, then concatenate the pieces with torch.cat.",
            "view(-1) fails on a non-contiguous tensor (a transpose); reshape(-1) copies when it must.",
            "Keep each original shape as a tuple so the receiver can split and reshape.",
        ],
        wrong=[
            lambda tensors: (torch.cat(tensors), [tuple(t.shape) for t in tensors]),
            lambda tensors: (torch.cat([t.view(-1) for t in tensors]), [tuple(t.shape) for t in tensors]),
            lambda tensors: (torch.cat([t.reshape(-1) for t in tensors]), [t.numel() for t in tensors]),
        ],
    ),
]
