"""Module 05's timing exercises (05.9 min and median, 05.10 autorange), split from ``m05.py``: the
fake clock the checks pass, the properties that grade the answers, the rule against state kept
between calls, and the typical wrong answers. ``m05.py`` keeps the EXERCISES list."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from torchcourse.grading.compare import describe
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.rules import Case, Rule

# the worked answer, loaded from solutions/05_vectorisation.py (the one source), used by the property
autorange = solution("05", "autorange")


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
