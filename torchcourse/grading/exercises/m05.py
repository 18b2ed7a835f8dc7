"""Module 05 "Vectorisation and measuring speed": reductions, broadcasting, bytes per second."""

from __future__ import annotations

import math
import statistics
import warnings
from dataclasses import dataclass

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from torchcourse.grading.checks import Exercise
from torchcourse.grading.compare import describe
from torchcourse.grading.exercises._inputs import randint, randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises._types import python_float
from torchcourse.grading.rules import Calls, Case, Holds, NoLoop, Rule

column_means = solution("05", "column_means")


sum_gbps = solution("05", "sum_gbps")


channel_means = solution("05", "channel_means")


rows_sum_to_one = solution("05", "rows_sum_to_one")


one_hot = solution("05", "one_hot")


pairwise_sq_dists = solution("05", "pairwise_sq_dists")


moving_average = solution("05", "moving_average")


stable_softmax = solution("05", "stable_softmax")


_COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}


class _Comparisons(TorchDispatchMode):
    """Records the shape of what every aten comparison returns."""

    def __init__(self) -> None:
        super().__init__()
        self.shapes: list[tuple[int, ...]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func.overloadpacket.__name__.removesuffix("_") in _COMPARISONS and isinstance(out, torch.Tensor):
            self.shapes.append(tuple(out.shape))
        return out


@dataclass
class BroadcastComparison(Rule):
    """05.5 "use one broadcast comparison": one comparison (==, !=, <, ...) makes the whole
    (len(labels), k) table at once. Judged by the shapes comparisons return, whatever builds the
    table otherwise (indexing an identity matrix, an embedding, a loop of k comparisons)."""

    name = "one broadcast comparison"

    def judge(self, case: Case) -> str | None:
        labels, k = case.fresh()
        if not isinstance(labels, torch.Tensor) or labels.dim() != 1:
            return None
        want = (labels.shape[0], k)
        mode = _Comparisons()
        try:
            with warnings.catch_warnings(), mode:
                warnings.simplefilter("ignore")
                case.fn(labels, k)
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        if want in mode.shapes:
            return None
        made = f" (your comparisons made shapes {sorted(set(mode.shapes))[:3]})" if mode.shapes else ""
        return (
            f"no comparison made the whole {want} table at once{made}; use one broadcast comparison: the "
            "labels as a column against the class numbers 0..k-1 as a row"
        )


def _window_and_data(args: tuple, scale: int) -> tuple:
    """05.7's growth: the data and the window both ``scale`` times longer, so a loop over the
    windows and a loop over the positions inside a window both show."""
    x, k = args
    return x.detach().repeat(scale), k * scale


def _moving_average_cases():
    return [
        (randn(10, seed=60, dtype=torch.float64), 3),
        (randn(7, seed=61, dtype=torch.float64), 7),
        (randn(20, seed=62, dtype=torch.float64), 1),
        (randn(12, seed=63), 4),
        # 10,000 float32 values near 100: a float32 running sum drifts (by ~0.006 here) where the windows do not
        (100 + randn(10_000, seed=64), 10),
    ]


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
        (randn(1000, seed=54)[::4], 1e-7),  # a view: the sum reads its 250 elements, not the storage's 1000
    ]


def _softmax_cases():
    mixed = torch.tensor([[1000.0, 1001.0, 1002.0, 999.0], [-1000.0, -1001.0, -998.0, -1000.5]])
    return [
        (randn(3, 5, seed=70), -1),
        (randn(4, 6, seed=71) * 3, 0),
        (mixed, 1),
        (randn(2, 3, 4, seed=72, dtype=torch.float64), 1),
        # a spread of 2000 in a row: only the row's maximum keeps every exponent in range
        (torch.tensor([[-1000.0, 0.0, 1000.0, 500.0], [3.0, 1.0, 2.0, 0.0]]), 1),
    ]


# --- 05.9 / 05.10 timing with a clock you are given -----------------------------------------------


class FakeTimer:
    """A function to time and its clock, in fake time: call k of ``work`` lasts ``durations[k]``
    seconds (the last duration repeats), and ``clock`` reads the time; a read itself lasts
    ``read_cost`` seconds (the time it returns is the time at its end), as a real clock's does.
    Counts every call, and logs every call and every read in order in ``events``."""

    def __init__(self, durations, read_cost: float = 0.0) -> None:
        self.durations = list(durations)
        self.read_cost = read_cost
        self.now = 0.0
        self.calls = 0
        self.events: list[str] = []

    def work(self):
        self.now += self.durations[min(self.calls, len(self.durations) - 1)]
        self.calls += 1
        self.events.append("fn")

    def clock(self):
        self.now += self.read_cost
        self.events.append("clock")
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
        return _bracketed(timer.events, warmup)
    ordered = sorted(times)
    if _close(got[0], low) and repeat % 2 == 0:
        for side, middle in (("lower", ordered[repeat // 2 - 1]), ("upper", ordered[repeat // 2])):
            if _close(got[1], middle):
                return (
                    f"the median of an even number of times is the mean of the two middle ones ({median:.6g} s), "
                    f"got the {side} one ({got[1]:.6g} s)"
                )
    if _close(got[0], low) and _close(got[1], statistics.mean(times)) and not _close(median, statistics.mean(times)):
        return (
            f"that is the mean of the times ({got[1]:.6g} s); return their median ({median:.6g} s), statistics.median"
        )
    every = timer.durations[: warmup + repeat]
    if warmup and _close(got[0], min(every)) and _close(got[1], statistics.median(every)):
        return "your times include the warm-up calls; run them first, untimed, and time only the repeat calls"
    return (
        f"expected (min, median) = ({low:.6g}, {median:.6g}) s from timing each call with clock, "
        f"got ({got[0]:.6g}, {got[1]:.6g})"
    )


def _bracketed(events: list[str], warmup: int) -> str | None:
    """05.9: each timed call has a clock read of its own just before it and just after it. One read
    shared between two calls (``t = clock(); times.append(t - previous)``) also times the loop's
    own work between the calls."""
    calls = [i for i, e in enumerate(events) if e == "fn"][warmup:]
    for i in calls:
        if i == 0 or events[i - 1] != "clock" or i + 1 >= len(events) or events[i + 1] != "clock":
            return "read clock() just before and just after each timed call, with nothing in between but the call"
    for i, j in zip(calls, calls[1:]):
        if events[i + 1 : j].count("clock") < 2:
            return (
                "read clock() just before and just after each call: your function read it once between two "
                "calls, so one read ends a time and starts the next, and each time also counts the work done "
                "between the calls; read it twice (start = clock(); fn(); times.append(clock() - start))"
            )
    return None


@dataclass
class NoStateBetweenCalls(Rule):
    """05.9: a call's times are its own. The answer runs first on other (slow) times, then on the
    case: a list kept in a global or a default argument still holds the slow times."""

    name = "no state kept between calls"
    early = True

    def judge(self, case: Case) -> str | None:
        fn, repeat, warmup, clock = case.fresh()
        other = FakeTimer([1.0])
        try:
            case.fn(other.work, repeat, warmup, other.clock)
            got = case.fn(fn, repeat, warmup, clock)
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        if "clock" not in other.events or "clock" not in fn.__self__.events:
            return None  # it does not read the clock it is given: the comparison says so
        first = case.got
        if _pair_of_numbers(got) and _pair_of_numbers(first) and not all(map(_close, got, first)):
            return (
                "your function keeps times from an earlier call (a list in a global variable or a default "
                f"argument): on the same input it returned ({first[0]:.6g}, {first[1]:.6g}), then, after a call "
                f"that timed 1 s calls, ({got[0]:.6g}, {got[1]:.6g}); start a new list of times on every call"
            )
        return None


autorange = solution("05", "autorange")


_READ = 2.0**-24  # what one clock read lasts: exact in binary, far below every call


def _autorange_cases():
    d = 2.0**-10  # exact in binary: batch times add up without rounding
    return [
        (FakeTimer([0.05, d], _READ).work, 0.15, FakeTimer([]).clock),
        (FakeTimer([d], _READ).work, 20 * d + _READ, FakeTimer([]).clock),  # a batch of 20 lasts the budget exactly
        (FakeTimer([0.5], _READ).work, 0.2, FakeTimer([]).clock),  # one call is enough
        (FakeTimer([4 * d, d], _READ).work, 1000 * d, FakeTimer([]).clock),
    ]


def _share_clock(cases):
    """Give each case's clock the same fake timer as its function."""
    out = []
    for fn, budget, _ in cases:
        out.append((fn, budget, fn.__self__.clock))
    return out


def _autorange_expected(durations, budget, read_cost):
    timer = FakeTimer(durations, read_cost)
    number, calls = autorange(timer.work, budget, timer.clock), timer.calls
    return number, calls


def _batches(events: list[str]) -> list[int]:
    """The calls made between one clock read and the next, for each pair of reads with calls between."""
    runs, n = [], 0
    for e in events:
        if e == "clock":
            if n:
                runs.append(n)
            n = 0
        else:
            n += 1
    return runs + ([n] if n else [])


def _autorange_property(args, got):
    """05.10: candidates 1, 2, 5, 10, 20, 50, ... in order, each batch run and timed as a whole,
    stopping at the first batch that lasts at least ``budget``."""
    fn, budget, clock = args
    timer = fn.__self__
    if not _pair_of_numbers(got):
        return f"return a pair (number, seconds), got {describe(got)}"
    (number, seconds), calls = _autorange_expected(timer.durations, budget, timer.read_cost)
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
    if _batches(timer.events) != _batches(_autorange_events(timer.durations, budget, timer.read_cost)):
        return (
            "time each batch as a whole: read clock() once just before the batch and once just after it, "
            "with the batch's calls and nothing else in between (not a read around every call)"
        )
    if not _close(got[1], seconds):
        return (
            f"seconds should be how long that one batch of {number} calls took, from the read just before it to "
            f"the read just after it ({seconds:.10g} s), got {got[1]:.10g}"
        )
    return None


def _autorange_events(durations, budget, read_cost):
    timer = FakeTimer(durations, read_cost)
    autorange(timer.work, budget, timer.clock)
    return timer.events


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


def _minmed_one_read_between_calls(fn, repeat, warmup, clock):
    """One read shared by two calls: each time also counts the loop's work between the calls."""
    for _ in range(warmup):
        fn()
    times, previous = [], clock()
    for _ in range(repeat):
        fn()
        now = clock()
        times.append(now - previous)
        previous = now
    return min(times), statistics.median(times)


def _autorange_per_call(fn, budget, clock):
    """Times every call of a batch and adds the times up, instead of timing the batch as a whole."""
    for number in (m * 10**k for k in range(9) for m in (1, 2, 5)):
        seconds = 0.0
        for _ in range(number):
            start = clock()
            fn()
            seconds += clock() - start
        if seconds >= budget:
            return number, seconds
    raise AssertionError("unreachable")


def _autorange_extra_read(fn, budget, clock):
    """Returns the time up to one more clock read, not that batch alone."""
    for number in (m * 10**k for k in range(9) for m in (1, 2, 5)):
        start = clock()
        for _ in range(number):
            fn()
        if clock() - start >= budget:
            return number, clock() - start
    raise AssertionError("unreachable")


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
]
