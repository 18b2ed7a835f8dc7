"""Module 07's inputs and typical wrong answers: the case builders of every check in m07.py, and
the wrong answers of the memory exercises (07.10, 07.11), written as a learner would."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils.rnn import pack_sequence

from torchcourse.grading.exercises._inputs import randint, randn
from torchcourse.grading.exercises._types import python_int
from torchcourse.grading.exercises.m07_rules import BatchStep, CountedPeak, FakeDevice, _host, measured_peak


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
        (randn(3, 2, seed=103, dtype=torch.float16), "meta"),  # a float, but not float64: kept
        (randn(4, seed=104, dtype=torch.bfloat16), "cpu"),
        (torch.complex(randn(3, seed=105, dtype=torch.float64), randn(3, seed=106, dtype=torch.float64)), "cpu"),
    ]


def _batch_cases():
    return [
        ({"x": randn(4, 3, seed=90), "y": randint(0, 3, 4, seed=91), "step": 7, "name": "batch-0"}, "meta"),
        ({"image": randn(2, 1, 3, 3, seed=92), "index": 12}, "cpu"),
        ({"a": randn(5, seed=93, dtype=torch.float64), "b": randn(2, 2, seed=94)}, "meta"),
        ({}, "meta"),  # an empty batch: still a new dict
        ({"only": "text", "n": 3}, "cpu"),  # nothing to move
        # a Parameter is a tensor (moved); a list of tensors is not a tensor (kept as it is)
        ({"w": nn.Parameter(randn(2, 3, seed=107)), "masks": [randn(2, seed=108), randn(3, seed=109)]}, "meta"),
        # a PackedSequence has a .to() method but is not a tensor: kept as it is
        ({"x": randn(3, seed=110), "seq": pack_sequence([randn(3, seed=111), randn(2, seed=112)])}, "meta"),
    ]


def _pack_cases():
    return [
        ([randn(2, 3, seed=95), randn(4, seed=96), randn(1, 2, 2, seed=97)],),
        ([randn(3, 2, seed=98).T, randn(5, seed=99)],),  # a transposed (non-contiguous) input
        ([randint(0, 9, 2, 2, seed=100), randint(0, 9, 3, seed=101), randint(0, 9, 1, seed=102).reshape(())],),
    ]


def _time_gpu_cases():
    cases = []
    for kernel, backlog in ((2.0**-7, 2.0**-3), (2.0**-5, 0.0), (2.0**-4, 2.0**-2), (2.0**-10, 2.0**-8)):
        dev = FakeDevice(kernel, backlog)
        cases.append((dev.work, dev.sync, dev.clock))
    return cases


def _async_cases():
    return [
        ({"x": _host(randn(4, 3, seed=95)), "y": _host(randint(0, 3, 4, seed=96)), "step": 7}, "meta"),
        ({"image": _host(randn(2, 1, 3, 3, seed=97).transpose(2, 3)), "name": "batch-1"}, "cpu"),
        ({"a": _host(randn(1, seed=98, dtype=torch.float64)), "b": _host(randn(0, 2, seed=99))}, "meta"),
        ({}, "cpu"),
        ({"only": "text", "n": 3}, "meta"),
    ]


def _budget_cases():
    """(step, budget, peak): budgets set from the step's measured peak at a target batch size, so each
    answer is known; the per-sample and fixed costs differ from case to case (width, number of live
    temporaries, dtype, workspace), and the budgets cover a tie (exactly the peak of the answer), a
    large batch, a budget below even one sample (answer 0), and one below the fixed cost alone
    (answer 0 too, where (budget - fixed) // per_sample is negative)."""
    plans = [  # (fixed elements, width, temporaries, dtype, answer, budget above the answer's peak)
        (3000, 64, 3, torch.float32, 37, 0),
        (0, 100, 2, torch.float64, 1000, 1599),
        (50_000, 10, 4, torch.int16, 5, 7),
        (1000, 1, 1, torch.float32, 100_000, 3),
        (20_000, 500, 2, torch.float32, 0, -1),
    ]
    cases = []
    for fixed, width, temporaries, dtype, answer, extra in plans:
        step = BatchStep(fixed, width, temporaries, dtype)
        n = max(answer, 1)
        at = measured_peak(lambda step=step, n=n: step(n))
        cases.append((step, at + extra, CountedPeak()))
    below_fixed = BatchStep(10_000, 25, 1, torch.float32)  # a 40,000-byte workspace, 100 bytes a sample
    cases.append((below_fixed, 20_000, CountedPeak()))
    return cases


def _per_call_only(step, budget, peak):
    return budget // peak(lambda: step(1))  # no fixed cost: as if every byte grew with the batch


def _rounded_fit(step, budget, peak):
    one, two = peak(lambda: step(1)), peak(lambda: step(2))
    return max(0, round((budget - (2 * one - two)) / (two - one)))


def _at_least_one(step, budget, peak):
    one, two = peak(lambda: step(1)), peak(lambda: step(2))
    return max(1, (budget - (2 * one - two)) // (two - one))


def _strictly_below(step, budget, peak):
    one, two = peak(lambda: step(1)), peak(lambda: step(2))
    return max(0, (budget - (2 * one - two) - 1) // (two - one))


def _fixed_is_first_peak(step, budget, peak):
    one, two = peak(lambda: step(1)), peak(lambda: step(2))
    return max(0, (budget - one) // (two - one))  # the first peak already holds one sample


def _doubling_search(step, budget, peak):
    """The right number, found by measuring about 2·log2(answer) times."""
    if peak(lambda: step(1)) > budget:
        return 0
    low, high = 1, 2
    while peak(lambda n=high: step(n)) <= budget:
        low, high = high, high * 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if peak(lambda n=mid: step(n)) <= budget else (low, mid)
    return low


def _counter_cases():
    return [
        ([100, 200, -100, 50],),
        ([100, -100, "reset", 40],),
        ([500, "reset", -200, 100],),  # after a reset the peak is what is allocated then, not 0
        ([],),
        (["reset", 10, -10, "reset"],),
        ([64, 64, -64, -64, 64],),
        ([300, "reset", 200, -400, 50, "reset", 20],),
    ]


def _two_ints(args, got) -> str | None:
    """07.11: "a tuple of two ints" (a list, a tensor or a float with the right values is still the wrong type)."""
    if isinstance(got, list) and len(got) == 2:
        return f"return a tuple (allocated, peak), got a list: {got}"
    if not isinstance(got, tuple) or len(got) != 2:
        return None  # the comparison has said what is wrong
    return python_int("the allocated count")(args, got[0]) or python_int("the peak")(args, got[1])


def _peak_reset_to_zero(events):
    allocated = peak = 0
    for e in events:
        if e == "reset":
            peak = 0
        else:
            allocated += e
            peak = max(peak, allocated)
    return allocated, peak


def _reset_ignored(events):
    allocated = peak = 0
    for e in events:
        if e != "reset":
            allocated += e
            peak = max(peak, allocated)
    return allocated, peak


def _largest_block(events):
    sizes = [e for e in events if e != "reset"]
    return sum(sizes), max([e for e in sizes if e > 0], default=0)


def _all_allocated(events):
    sizes = [e for e in events if e != "reset"]
    return sum(sizes), sum(e for e in sizes if e > 0)  # every allocation, as if nothing were ever freed


def _not_clamped(step, budget, peak):
    one, two = peak(lambda: step(1)), peak(lambda: step(2))
    return (budget - (2 * one - two)) // (two - one)  # negative when the budget is below the fixed cost


def _not_clamped_truncated(step, budget, peak):
    one, two = peak(lambda: step(1)), peak(lambda: step(2))
    return int((budget - (2 * one - two)) / (two - one))  # int() rounds toward 0: still negative below -1
