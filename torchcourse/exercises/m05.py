"""Module 05 "Vectorisation and measuring speed": reductions, broadcasting, bytes per second."""

from __future__ import annotations

import torch

from ..checks import Exercise
from ._inputs import randint, randn


def column_means(t):
    return t.mean(dim=0)


def sum_gbps(t, seconds):
    return t.numel() * t.element_size() / seconds / 1e9


def channel_means(images):
    return images.mean(dim=(0, 2, 3))


def rows_sum_to_one(w):
    return w / w.sum(dim=1, keepdim=True)


def one_hot(labels, k):
    return (labels[:, None] == torch.arange(k)).float()


def pairwise_sq_dists(X, Y):
    return ((X[:, None, :] - Y[None, :, :]) ** 2).sum(dim=-1)


def moving_average(x, k):
    return x.unfold(0, k, 1).mean(dim=-1)


def stable_softmax(x, dim):
    z = x - x.amax(dim=dim, keepdim=True)
    e = z.exp()
    return e / e.sum(dim=dim, keepdim=True)


def _softmax_global_sum(x, dim):
    e = (x - x.amax(dim=dim, keepdim=True)).exp()
    return e / e.sum()  # forgot dim: divides by the sum over the whole tensor


def _positive(*shape, seed, dtype=torch.float32):
    return randn(*shape, seed=seed, dtype=torch.float64).abs().add(0.1).to(dtype)


def _gbps_cases():
    return [
        (randn(1000, seed=50, dtype=torch.float64), 2e-6),
        (randn(64, 64, seed=51), 1e-6),
        (randint(-5, 5, 4096, seed=52, dtype=torch.int8), 5e-7),
        (randn(3, 5, 7, seed=53, dtype=torch.float16), 1e-7),
    ]


def _softmax_cases():
    mixed = torch.tensor([[1000.0, 1001.0, 1002.0, 999.0], [-1000.0, -1001.0, -998.0, -1000.5]])
    return [
        (randn(3, 5, seed=70), -1),
        (randn(4, 6, seed=71) * 3, 0),
        (mixed, 1),
        (randn(2, 3, 4, seed=72, dtype=torch.float64), 1),
    ]


EXERCISES = [
    Exercise(
        "05.1",
        "Column means of a table (warm-up)",
        column_means,
        cases=lambda: [(randn(5, 3, seed=1),), (randn(2, 7, seed=2),), (randn(4, 4, seed=3, dtype=torch.float64),)],
        hints=[
            "A reduction collapses the dimension you name with dim=; the others stay.",
            "Rows run along dimension 0: averaging over the rows leaves one value per column.",
        ],
        wrong=[lambda t: t.mean(dim=1), lambda t: t.mean()],
    ),
    Exercise(
        "05.2",
        "Bytes per second of a sum",
        sum_gbps,
        cases=_gbps_cases,
        hints=[
            "A sum reads every element once: bytes = number of elements × bytes per element.",
            "t.numel() counts elements, t.element_size() gives bytes per element (8 for float64, 1 for int8). "
            "1 GB is 1e9 bytes.",
        ],
        wrong=[
            lambda t, seconds: t.numel() / seconds / 1e9,
            lambda t, seconds: t.numel() * t.element_size() / seconds / 2**30,
            lambda t, seconds: t.numel() * 4 / seconds / 1e9,
        ],
    ),
    Exercise(
        "05.3",
        "Mean of each channel of an image batch",
        channel_means,
        cases=lambda: [
            (randn(2, 3, 4, 5, seed=10),),
            (randn(1, 1, 3, 3, seed=11),),
            (randn(4, 2, 2, 6, seed=12, dtype=torch.float64),),
        ],
        hints=[
            "dim= accepts a tuple: every dimension in it is reduced at once.",
            "The batch is (N, C, H, W); keep C, reduce the batch and both pixel dimensions.",
        ],
        wrong=[
            lambda images: images.mean(dim=1),
            lambda images: images.mean(dim=(2, 3)),
            lambda images: images.mean(dim=(0, 1)),
        ],
    ),
    Exercise(
        "05.4",
        "Rows that sum to one",
        rows_sum_to_one,
        cases=lambda: [
            (_positive(4, 3, seed=20),),
            (_positive(3, 3, seed=21),),
            (_positive(2, 5, seed=22, dtype=torch.float64),),
        ],
        hints=[
            "Divide each row by its own sum: w.sum(dim=1) gives one sum per row.",
            "A (4,) result lines up with the last dimension of (4, 3), the columns. "
            "keepdim=True keeps it as a (4, 1) column that broadcasts along each row.",
        ],
        wrong=[lambda w: w / w.sum(dim=1), lambda w: w / w.sum(), lambda w: w / w.sum(dim=0, keepdim=True)],
    ),
    Exercise(
        "05.5",
        "One-hot encoding by broadcasting",
        one_hot,
        cases=lambda: [
            (randint(0, 5, 8, seed=30), 5),
            (randint(0, 3, 6, seed=31), 7),
            (torch.tensor([2]), 3),
            (torch.zeros(0, dtype=torch.int64), 4),
        ],
        hints=[
            "Compare every label with every class number 0..k-1: a column (n, 1) against a row (k,) "
            "broadcasts to an (n, k) table of True/False.",
            "labels[:, None] turns the labels into a column; convert the bool result with .float().",
        ],
        wrong=[
            lambda labels, k: labels[:, None] == torch.arange(k),
            lambda labels, k: torch.nn.functional.one_hot(labels).float(),
            lambda labels, k: (labels == torch.arange(k)[:, None]).float(),
        ],
    ),
    Exercise(
        "05.6",
        "All pairwise squared distances",
        pairwise_sq_dists,
        cases=lambda: [
            (randn(4, 2, seed=40, dtype=torch.float64), randn(3, 2, seed=41, dtype=torch.float64)),
            (randn(5, 3, seed=42, dtype=torch.float64), randn(5, 3, seed=43, dtype=torch.float64)),
            (randn(1, 4, seed=44, dtype=torch.float64), randn(6, 4, seed=45, dtype=torch.float64)),
        ],
        hints=[
            "Make X a (n, 1, d) tensor and Y a (1, m, d) tensor: their difference broadcasts to (n, m, d).",
            "Square the differences and sum over the last dimension (the coordinates). "
            "Squared distances: no square root.",
        ],
        wrong=[
            lambda X, Y: ((X - Y) ** 2).sum(dim=-1),
            lambda X, Y: torch.cdist(X, Y),
            lambda X, Y: ((X[:, None, :] - Y[None, :, :]) ** 2).sum(dim=1),
        ],
    ),
    Exercise(
        "05.7",
        "Moving average without a loop",
        moving_average,
        cases=lambda: [
            (randn(10, seed=60, dtype=torch.float64), 3),
            (randn(7, seed=61, dtype=torch.float64), 7),
            (randn(20, seed=62, dtype=torch.float64), 1),
            (randn(12, seed=63), 4),
        ],
        hints=[
            "x.unfold(0, k, 1) is a view holding every window of k consecutive elements, one window per row, "
            "stepping by 1.",
            "Average each window: reduce the last dimension. n elements give n - k + 1 windows.",
        ],
        wrong=[
            lambda x, k: x.unfold(0, k, 1).sum(dim=-1),
            lambda x, k: x.unfold(0, k, k).mean(dim=-1),
            lambda x, k: (x.cumsum(0)[k:] - x.cumsum(0)[:-k]) / k,
        ],
    ),
    Exercise(
        "05.8",
        "A softmax that does not overflow (stretch)",
        stable_softmax,
        cases=_softmax_cases,
        hints=[
            "softmax(x) = exp(x) / sum(exp(x)) along dim. exp(1000.0) is inf in float32, and inf / inf is nan.",
            "Subtracting a constant from every element along dim leaves the softmax unchanged. Subtract each "
            "slice's own maximum (amax with keepdim=True): the largest exponent becomes exp(0) = 1.",
            "Sum with keepdim=True as well, so the sums broadcast back against the exponentials.",
        ],
        wrong=[
            lambda x, dim: x.exp() / x.exp().sum(dim=dim, keepdim=True),
            lambda x, dim: (x - x.max()).exp() / (x - x.max()).exp().sum(dim=dim, keepdim=True),
            _softmax_global_sum,
        ],
    ),
]
