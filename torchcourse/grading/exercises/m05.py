"""Module 05 "Vectorisation and measuring speed": reductions, broadcasting, bytes per second."""

from __future__ import annotations

import torch

from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises._inputs import randint, randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises._types import python_float
from torchcourse.grading.exercises.m05_cases import (
    BroadcastComparison,
    _gbps_cases,
    _moving_average_cases,
    _positive,
    _softmax_cases,
    _softmax_global_sum,
    _sq_dist_cases,
    _sq_dist_centred,
    _sq_dist_expanded,
    _window_and_data,
)
from torchcourse.grading.exercises.m05_timing import (
    NoStateBetweenCalls,
    _autorange_cases,
    _autorange_extra_read,
    _autorange_from_one_call,
    _autorange_per_call,
    _autorange_property,
    _minmed_cases,
    _minmed_one_read_between_calls,
    _minmed_property,
    _share_clock,
    _time_batch,
)
from torchcourse.grading.rules import Calls, Holds, NoLoop

column_means = solution("05", "column_means")


sum_gbps = solution("05", "sum_gbps")


channel_means = solution("05", "channel_means")


rows_sum_to_one = solution("05", "rows_sum_to_one")


one_hot = solution("05", "one_hot")


pairwise_sq_dists = solution("05", "pairwise_sq_dists")


moving_average = solution("05", "moving_average")


stable_softmax = solution("05", "stable_softmax")

timeit_min_median = solution("05", "timeit_min_median")


autorange = solution("05", "autorange")


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
            lambda t, seconds: torch.tensor(t.numel() * t.element_size() / seconds / 1e9),  # a tensor
            lambda t, seconds: t.untyped_storage().nbytes() / seconds / 1e9,  # the storage, not t's elements
        ],
        rules=[Holds(python_float("the bandwidth"))],
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
        rules=[Calls(forbid=("scatter",), why="use one broadcast comparison"), BroadcastComparison()],
        hints=[
            "Compare every label with every class number 0..k-1: a column (n, 1) against a row (k,) "
            "broadcasts to an (n, k) table of True/False.",
            "labels[:, None] turns the labels into a column; convert the bool result with .float().",
        ],
        wrong=[
            lambda labels, k: labels[:, None] == torch.arange(k),
            lambda labels, k: torch.nn.functional.one_hot(labels).float(),
            lambda labels, k: (labels == torch.arange(k)[:, None]).float(),
            lambda labels, k: torch.eye(k)[labels],
            lambda labels, k: torch.nn.functional.embedding(labels, torch.eye(k)),
            lambda labels, k: torch.eye(k).index_select(0, labels),
            lambda labels, k: torch.stack([labels == j for j in range(k)], 1).float(),
            lambda labels, k: (1 - (labels[:, None] - torch.arange(k)).abs().clamp(max=1)).float(),
        ],
    ),
    Exercise(
        "05.6",
        "All pairwise squared distances",
        pairwise_sq_dists,
        cases=_sq_dist_cases,
        hints=[
            "Make X a (n, 1, d) tensor and Y a (1, m, d) tensor: their difference broadcasts to (n, m, d).",
            "Square the differences and sum over the last dimension (the coordinates). "
            "Squared distances: no square root.",
            "Far from the origin, ||x||² - 2x·y + ||y||² subtracts large, nearly equal numbers and loses the "
            "digits that matter (torch.cdist does so too for more than 25 points): subtract coordinates first.",
        ],
        wrong=[
            lambda X, Y: ((X - Y) ** 2).sum(dim=-1),
            lambda X, Y: torch.cdist(X, Y),
            lambda X, Y: ((X[:, None, :] - Y[None, :, :]) ** 2).sum(dim=1),
            _sq_dist_expanded,
            lambda X, Y: _sq_dist_expanded(X, Y).clamp_min(0),
            lambda X, Y: torch.cdist(X, Y) ** 2,  # the expansion for more than 25 points
            lambda X, Y: ((X.float()[:, None] - Y.float()[None]) ** 2).sum(dim=-1).to(X.dtype),  # float32 inside
            lambda X, Y: (torch.cdist(X.double(), Y.double()) ** 2).to(X.dtype),  # float64, but the expansion
            _sq_dist_centred,  # the expansion after centring on X's mean: a far point keeps the cluster far
        ],
    ),
    Exercise(
        "05.7",
        "Moving average without a loop",
        moving_average,
        cases=_moving_average_cases,
        rules=[NoLoop(grow=_window_and_data)],
        hints=[
            "x.unfold(0, k, 1) is a view holding every window of k consecutive elements, one window per row, "
            "stepping by 1.",
            "Average each window: reduce the last dimension. n elements give n - k + 1 windows.",
        ],
        wrong=[
            lambda x, k: x.unfold(0, k, 1).sum(dim=-1),
            lambda x, k: x.unfold(0, k, k).mean(dim=-1),
            lambda x, k: (x.cumsum(0)[k:] - x.cumsum(0)[:-k]) / k,
            lambda x, k: sum(x[i : len(x) - k + 1 + i] for i in range(k)) / k,  # a Python loop over the window
            lambda x, k: (lambda c: (c[k:] - c[:-k]) / k)(torch.cat([x.new_zeros(1), x.cumsum(0)])),  # drifts
        ],
    ),
    Exercise(
        "05.9",
        "Minimum and median of timed calls",
        timeit_min_median,
        cases=_minmed_cases,
        property=_minmed_property,
        rules=[NoStateBetweenCalls()],
        hints=[
            "Call fn() warmup times first, without reading the clock. Then, repeat times: read clock(), "
            "call fn(), read clock() again, and keep the difference.",
            "min(times) and statistics.median(times); for an even count the median is the mean of the "
            "two middle values.",
        ],
        wrong=[
            lambda fn, repeat, warmup, clock: timeit_min_median(fn, repeat + warmup, 0, clock),
            lambda fn, repeat, warmup, clock: (
                lambda t: (min(t), float(torch.tensor(t, dtype=torch.float64).median()))
            )([(lambda s: (fn(), clock() - s)[1])(clock()) for _ in range(warmup + repeat)][warmup:]),
            lambda fn, repeat, warmup, clock: timeit_min_median(fn, repeat, warmup, __import__("time").perf_counter),
            _minmed_one_read_between_calls,
        ],
    ),
    Exercise(
        "05.10",
        "How many calls fill a time budget",
        autorange,
        cases=lambda: _share_clock(_autorange_cases()),
        property=_autorange_property,
        hints=[
            "Try number = 1, 2, 5, 10, 20, 50, 100, ...: for each, read clock(), call fn() number times, "
            "read clock() again.",
            "Return (number, seconds) for the first batch with seconds >= budget; the earlier batches are "
            "not added in.",
        ],
        wrong=[
            lambda fn, budget, clock: next(
                (n, b) for n in (10**k for k in range(9)) for b in [_time_batch(fn, n, clock)] if b >= budget
            ),
            lambda fn, budget, clock: next(
                (n, b)
                for n in (m * 10**k for k in range(9) for m in (1, 2, 5))
                for b in [_time_batch(fn, n, clock)]
                if b > budget
            ),
            _autorange_from_one_call,
            _autorange_per_call,
            _autorange_extra_read,
        ],
    ),
    Exercise(
        "05.8",
        "A softmax that does not overflow (stretch)",
        stable_softmax,
        cases=_softmax_cases,
        rules=[
            Calls(
                require=("sum",),
                require_any=("exponential", "maximum"),
                forbid=("softmax",),
                why="write the softmax yourself with exp, a maximum (amax or max) and sum",
            )
        ],
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
