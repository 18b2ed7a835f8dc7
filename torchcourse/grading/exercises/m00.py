"""Module 00 "Start here": warm-ups that exercise the check machinery."""

from __future__ import annotations

import torch

from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises._inputs import randint, randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises._types import container, is_int, python_int
from torchcourse.grading.rules import Holds, IsView, NoLoop

column_of = solution("00", "column_of")


shape_info = solution("00", "shape_info")


move_to = solution("00", "move_to")


standardise = solution("00", "standardise")


first_row = solution("00", "first_row")


batch_of = solution("00", "batch_of")


count_above = solution("00", "count_above")


def _shape_info_types(args: tuple, got) -> str | None:
    """00.2: "a tuple (number of dimensions, shape as a tuple, number of elements)"."""
    if not isinstance(got, tuple):
        return container(tuple)(args, got)
    if not isinstance(got[1], tuple):
        return container(tuple, "the shape")(args, got[1])
    for i, what in ((0, "the number of dimensions"), (2, "the number of elements")):
        if not is_int(got[i]):
            return python_int(what)(args, got[i])
    return None


def _shape_cases():
    return [
        (randn(5, seed=1),),
        (randn(2, 3, seed=2),),
        (randn(2, 3, 4, seed=3),),
        (torch.tensor(7.0),),
        (torch.arange(10.0)[::2],),  # a view: 5 elements of a storage of 10
        (randn(4, 6, seed=4)[1:3, 2:],),  # a view that starts later in its storage
    ]


def _count_cases():
    def above(n, count, seed):
        """n values, exactly ``count`` of them strictly above the threshold returned with them."""
        t = randn(n, seed=seed)
        return t, float(t.sort().values[n - count - 1])

    return [
        (randn(100, seed=11), 0.0),
        (randn(20, 5, seed=12), 1.0),
        (torch.tensor([1.0, 2.0, 2.0, 3.0]), 2.0),
        above(55, 29, seed=13),  # 29/55 in float32, times 55, is 28.99...: int() of it gives 28
        above(37, 3, seed=14),  # 3/37 likewise gives 2
    ]


def _batch_cases():
    return [([randn(4, 5, seed=s) for s in range(n)],) for n in (1, 3, 6)]


EXERCISES = [
    Exercise(
        "00.1",
        "A column of numbers",
        column_of,
        cases=lambda: [(1,), (3,), (7,), (0,)],  # n = 0: an empty column, shape (0, 1)
        hints=[
            "torch.arange(n) gives 0, 1, ..., n-1 as a 1-D tensor.",
            "A column has shape (n, 1): reshape it, and ask for dtype=torch.float32.",
        ],
        wrong=[
            lambda n: torch.arange(n, dtype=torch.float32),
            lambda n: torch.arange(n).reshape(n, 1),
            lambda n: torch.arange(n, dtype=torch.float32).reshape(1, n),
            lambda n: torch.tensor([[float(i)] for i in range(n)]),  # shape (0,) for n = 0
        ],
    ),
    Exercise(
        "00.2",
        "Dimensions, shape and size",
        shape_info,
        cases=_shape_cases,
        hints=[
            "t.dim() counts dimensions; t.shape is a torch.Size, which is a tuple.",
            "t.numel() counts elements (the product of the shape).",
        ],
        wrong=[
            lambda t: (len(t), tuple(t.shape), t.numel()),
            lambda t: (t.dim(), tuple(t.shape), t.numel() * t.element_size()),
            lambda t: (t.dim(), tuple(t.shape), t.untyped_storage().nbytes() // t.element_size()),
            lambda t: (t.dim(), list(t.shape), t.numel()),
            lambda t: [t.dim(), tuple(t.shape), t.numel()],
            lambda t: (t.dim(), tuple(t.shape), torch.tensor(t.numel())),
        ],
        rules=[Holds(_shape_info_types)],
    ),
    Exercise(
        "00.3",
        "Move a tensor to a device",
        move_to,
        cases=lambda: [
            (randn(3, seed=4), "cpu"),
            (randn(2, 2, seed=5), "meta"),
            (randint(0, 9, 4, seed=6), torch.device("meta")),
            # dtypes that torch.tensor(t.tolist()) would not rebuild (it infers float32 or int64)
            (randn(2, 3, seed=11, dtype=torch.float64), "cpu"),
            (randint(-9, 9, 5, seed=12, dtype=torch.int32), "cpu"),
        ],
        hints=[
            "tensor.to(device) returns the tensor on that device (the same tensor if it is already there).",
            "'meta' is a device with shapes and dtypes but no data: a cheap stand-in for a GPU when you have none.",
        ],
        wrong=[
            lambda t, device: t,
            lambda t, device: t.to(device, dtype=torch.float64),
            lambda t, device: torch.tensor(t.tolist(), device=device),  # the dtype inferred again
        ],
    ),
    Exercise(
        "00.4",
        "Standardise without touching the input",
        standardise,
        cases=lambda: [(randn(10, seed=7) * 3 + 2,), (randn(4, 6, seed=8, dtype=torch.float64),)],
        hints=[
            "Subtract the mean, divide by the standard deviation: (t - t.mean()) / t.std().",
            "Methods ending in _ (sub_, div_) change the tensor in place: the caller's data would change too.",
        ],
        wrong=[lambda t: t.sub_(t.mean()).div_(t.std()), lambda t: (t - t.mean()) / t.std(correction=0)],
    ),
    Exercise(
        "00.5",
        "The first row, without a copy",
        first_row,
        cases=lambda: [(randn(3, 4, seed=9),), (randn(5, 2, seed=10, dtype=torch.float64),)],
        hints=[
            "Indexing with an integer, t[0], returns a view: no data is copied.",
            "t[0] is the first row; t[:, 0] would be the first column.",
        ],
        wrong=[lambda t: t[0].clone(), lambda t: t[:, 0]],
        rules=[IsView()],
    ),
    Exercise(
        "00.6",
        "A batch of images",
        batch_of,
        cases=_batch_cases,
        hints=[
            "torch.stack puts tensors of the same shape along a new first dimension.",
            "A grey image batch has shape (N, 1, H, W): add the channel dimension with unsqueeze(1).",
        ],
        wrong=[lambda images: torch.cat(images), lambda images: torch.stack(images)],
    ),
    Exercise(
        "00.7",
        "Count values above a threshold (stretch)",
        count_above,
        cases=_count_cases,
        rules=[NoLoop(), Holds(python_int("the count"))],
        hints=[
            "t > threshold is a bool tensor; summing it counts the True values.",
            "Strictly above: > not >=. Return a Python int (int(...) or .item()).",
        ],
        wrong=[
            lambda t, threshold: int((t >= threshold).sum()),
            lambda t, threshold: float((t > threshold).float().mean()),
            lambda t, threshold: (t > threshold).sum(),  # a 0-d tensor, not a Python int
            lambda t, threshold: int((t > threshold).float().mean() * t.numel()),  # float32 rounding, truncated
        ],
    ),
]
