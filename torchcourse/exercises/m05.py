"""Module 05 "Vectorisation and measuring speed": reductions, broadcasting, bytes per second."""

from __future__ import annotations

import math
import statistics

import torch

from ..checks import Exercise
from ..compare import describe
from ..rules import Calls, NoLoop
from ._inputs import randint, randn
from ._solutions import solution

column_means = solution("05", "column_means")


sum_gbps = solution("05", "sum_gbps")


channel_means = solution("05", "channel_means")


rows_sum_to_one = solution("05", "rows_sum_to_one")


one_hot = solution("05", "one_hot")


pairwise_sq_dists = solution("05", "pairwise_sq_dists")


moving_average = solution("05", "moving_average")


stable_softmax = solution("05", "stable_softmax")


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


# --- 05.9 / 05.10 timing with a clock you are given -----------------------------------------------


class FakeTimer:
    """A function to time and its clock, in fake time: call k of ``work`` lasts ``durations[k]``
    seconds (the last duration repeats), and ``clock`` reads the time. Counts every call."""

    def __init__(self, durations) -> None:
        self.durations = list(durations)
        self.now = 0.0
        self.calls = 0

    def work(self):
        self.now += self.durations[min(self.calls, len(self.durations) - 1)]
        self.calls += 1

    def clock(self):
        return self.now

    def __repr__(self) -> str:
        return "FakeTimer"


timeit_min_median = solution("05", "timeit_min_median")


def _minmed_cases():
    slow = [0.5, 0.25, 0.125]  # the first calls are slow (a cold cache, a first compile)
    timed = [0.003, 0.001, 0.004, 0.0015, 0.009, 0.002, 0.0025]
    cases = []
    for repeat, warmup in ((5, 2), (4, 1), (1, 3), (6, 3), (2, 0)):
        timer = FakeTimer(slow[:warmup] + timed)
        cases.append((timer.work, repeat, warmup, timer.clock))
    return cases


def _close(a, b) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def _pair_of_numbers(got) -> bool:
    return (
        isinstance(got, (tuple, list))
        and len(got) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in got)
    )


def _minmed_property(args, got):
    """05.9: the warm-up calls run untimed, exactly ``repeat`` calls are timed one by one."""
    fn, repeat, warmup, clock = args
    timer = fn.__self__
    if not _pair_of_numbers(got):
        return f"return a pair of numbers (min, median) in seconds, got {describe(got)}"
    if timer.calls != warmup + repeat:
        return (
            f"fn ran {timer.calls} times; run warmup={warmup} untimed calls, then exactly repeat={repeat} "
            f"timed calls ({warmup + repeat} in all)"
        )
    times = timer.durations[warmup : warmup + repeat]
    low, median = min(times), statistics.median(times)
    if _close(got[0], low) and _close(got[1], median):
        return None
    every = timer.durations[: warmup + repeat]
    if warmup and (_close(got[1], statistics.median(every)) or _close(got[0], min(every)) and got[1] > median):
        return "your times include the warm-up calls; run them first, untimed, and time only the repeat calls"
    ordered = sorted(times)
    if _close(got[0], low) and repeat % 2 == 0 and _close(got[1], ordered[repeat // 2 - 1]):
        return (
            f"the median of an even number of times is the mean of the two middle ones ({median:.6g} s), "
            f"got the lower one ({got[1]:.6g} s)"
        )
    return (
        f"expected (min, median) = ({low:.6g}, {median:.6g}) s from timing each call with clock, "
        f"got ({got[0]:.6g}, {got[1]:.6g})"
    )


autorange = solution("05", "autorange")


def _autorange_cases():
    d = 2.0**-10  # exact in binary: batch times add up without rounding
    return [
        (FakeTimer([0.05, d]).work, 0.15, FakeTimer([]).clock),
        (FakeTimer([d]).work, 20 * d, FakeTimer([]).clock),  # a batch of 20 lasts exactly the budget
        (FakeTimer([0.5]).work, 0.2, FakeTimer([]).clock),  # one call is enough
        (FakeTimer([4 * d, d]).work, 1000 * d, FakeTimer([]).clock),
    ]


def _share_clock(cases):
    """Give each case's clock the same fake timer as its function."""
    out = []
    for fn, budget, _ in cases:
        out.append((fn, budget, fn.__self__.clock))
    return out


def _autorange_expected(durations, budget):
    timer = FakeTimer(durations)
    number, calls = autorange(timer.work, budget, timer.clock), timer.calls
    return number, calls


def _autorange_property(args, got):
    """05.10: candidates 1, 2, 5, 10, 20, 50, ... in order, each batch run and timed as a whole,
    stopping at the first batch that lasts at least ``budget``."""
    fn, budget, clock = args
    timer = fn.__self__
    if not _pair_of_numbers(got):
        return f"return a pair (number, seconds), got {describe(got)}"
    (number, seconds), calls = _autorange_expected(timer.durations, budget)
    if got[0] != number:
        ladder = {m * 10**k for k in range(9) for m in (1, 2, 5)}
        if got[0] not in ladder:
            return f"number should come from 1, 2, 5, 10, 20, 50, ...; got {got[0]} (expected {number})"
        if got[0] > number:
            return (
                f"a batch of {number} calls already lasted at least budget; try 1, 2, 5, 10, 20, 50, ... in order "
                "and stop at the first"
            )
        return f"a batch of {got[0]} calls lasts less than budget; expected number {number}"
    if timer.calls != calls:
        return (
            f"fn ran {timer.calls} times; run each candidate batch (1, 2, 5, ... calls) once, in order, "
            f"until one lasts budget ({calls} calls in all)"
        )
    if not _close(got[1], seconds):
        return f"seconds should be how long that one batch of {number} calls took ({seconds:.6g} s), got {got[1]:.6g}"
    return None


def _time_batch(fn, number, clock):
    start = clock()
    for _ in range(number):
        fn()
    return clock() - start


def _autorange_from_one_call(fn, budget, clock):
    """Times one call and scales it: wrong when the first call is slower than the rest."""
    one = _time_batch(fn, 1, clock)
    number = next(m * 10**k for k in range(9) for m in (1, 2, 5) if m * 10**k * one >= budget)
    return number, _time_batch(fn, number, clock)


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
        rules=[Calls(forbid=("scatter",), why="use one broadcast comparison")],
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
        rules=[NoLoop()],
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
        rules=[
            Calls(
                require=("exp", "amax", "sum"),
                forbid=("softmax",),
                why="write the softmax yourself with exp, amax and sum",
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
    Exercise(
        "05.9",
        "Minimum and median of timed calls",
        timeit_min_median,
        cases=_minmed_cases,
        property=_minmed_property,
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
        ],
    ),
]
