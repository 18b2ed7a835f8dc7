"""Exercises 07.10, 07.11 (device memory), 08.7 (predict without changing the model) and 08.8 (freeze
the BatchNorm layers): for each,
three correct answers written unlike the worked one, which the check must accept, and plausible
wrong answers written from the exercise text alone, which it must reject (with the constraint's
message where the answer breaks a stated constraint)."""

from __future__ import annotations

import contextlib
import copy
import math
from itertools import accumulate

import numpy as np
import pytest
import torch

from torchcourse.grading.checks import FAIL, PASS, REGISTRY, evaluate

# ---------------------------------------------------------------- 07.10 the largest batch under a budget


def batch_from_4_and_8(step, budget, peak):
    p4, p8 = peak(lambda: step(4)), peak(lambda: step(8))
    per = (p8 - p4) // 4
    fixed = p4 - 4 * per
    return max(0, (budget - fixed) // per)


def batch_fit_then_verify(step, budget, peak):
    one, two = peak(lambda: step(1)), peak(lambda: step(2))
    n = (budget - (2 * one - two)) // (two - one)
    if n >= 1 and peak(lambda: step(n)) > budget:  # a third measurement, to be sure
        n -= 1
    return max(int(n), 0)


def batch_polyfit(step, budget, peak):
    ns = [1, 2, 3]
    slope, intercept = np.polyfit(ns, [peak(lambda n=n: step(n)) for n in ns], 1)
    return max(0, math.floor((budget - round(intercept)) / round(slope)))


def batch_one_too_many(step, budget, peak):
    one, two = peak(lambda: step(1)), peak(lambda: step(2))
    return (budget - (2 * one - two)) // (two - one) + 1


def batch_bisect(step, budget, peak):
    low, high = 0, budget  # a batch can never be larger than the budget in bytes
    while low < high:
        mid = (low + high + 1) // 2
        if peak(lambda: step(mid)) <= budget:
            low = mid
        else:
            high = mid - 1
    return low


def batch_wrong_divisor(step, budget, peak):
    one, ten = peak(lambda: step(1)), peak(lambda: step(10))
    per = (ten - one) // 10  # nine samples apart, not ten
    return max(0, (budget - (one - per)) // per)


def batch_not_floored(step, budget, peak):
    one, two = peak(lambda: step(1)), peak(lambda: step(2))
    return max(0.0, (budget - (2 * one - two)) / (two - one))


# ---------------------------------------------------------------- 07.11 allocated and peak counters


def counters_accumulate(events):
    allocated = peak = 0
    for segment in ",".join("r" if e == "reset" else str(e) for e in events).split("r"):
        sizes = [int(s) for s in segment.split(",") if s]
        sums = list(accumulate(sizes, initial=allocated))
        peak = max(sums)
        allocated = sums[-1]
    return allocated, peak


class Tracker:
    def __init__(self):
        self.now = self.most = 0

    def apply(self, event):
        if event == "reset":
            self.most = self.now
            return
        self.now += event
        self.most = max(self.most, self.now)


def counters_tracker(events):
    t = Tracker()
    for e in events:
        t.apply(e)
    return t.now, t.most


def counters_from_last_reset(events):
    resets = [i for i, e in enumerate(events) if e == "reset"]
    start = resets[-1] + 1 if resets else 0
    at_start = sum(e for e in events[:start] if e != "reset")
    after = list(accumulate(events[start:], initial=at_start))
    return int(after[-1]), int(max(after))


def counters_reset_frees(events):
    allocated = peak = 0
    for e in events:
        if e == "reset":
            allocated = peak = 0  # as if a reset freed everything
        else:
            allocated += e
            peak = max(peak, allocated)
    return allocated, peak


def counters_peak_from_zero_after_reset(events):
    allocated, peak, since = 0, 0, 0
    for e in events:
        if e == "reset":
            peak, since = 0, allocated
        else:
            allocated += e
            peak = max(peak, allocated - since)  # the growth since the reset
    return allocated, peak


def counters_as_list(events):
    allocated = peak = 0
    for e in events:
        if e == "reset":
            peak = allocated
        else:
            allocated += e
            peak = max(peak, allocated)
    return [allocated, peak]


def counters_swapped(events):
    allocated = peak = 0
    for e in events:
        if e == "reset":
            peak = allocated
        else:
            allocated += e
            peak = max(peak, allocated)
    return peak, allocated  # the text names the peak second


# ---------------------------------------------------------------- 08.7 predict, leave the model as found


def predict_on_a_copy(model, x):
    twin = copy.deepcopy(model).eval()
    with torch.inference_mode():
        return twin(x)


def predict_train_in_order(model, x):
    flags = [(m, m.training) for m in model.modules()]  # parents before children
    model.eval()
    with torch.no_grad():
        y = model(x)
    for m, flag in flags:
        m.train(flag)  # recursive, but each child is set again after its parent
    return y


@contextlib.contextmanager
def evaluating(model):
    saved = {name: m.training for name, m in model.named_modules()}
    model.eval()
    try:
        yield model
    finally:
        for name, m in model.named_modules():
            m.training = saved[name]


def predict_context_manager(model, x):
    with evaluating(model), torch.inference_mode():
        return model(x)


def predict_back_to_train(model, x):
    model.eval()
    with torch.inference_mode():
        y = model(x)
    model.train()
    return y


def predict_restore_layers_only(model, x):
    layers = [m for m in model.modules() if not any(True for _ in m.children())]  # every leaf layer
    flags = [m.training for m in layers]
    for m in layers:
        m.eval()
    with torch.no_grad():
        y = model(x)
    for m, flag in zip(layers, flags):
        m.train(flag)
    return y  # the containers were never touched: right; but see the test


def predict_reload_buffers(model, x):
    state = copy.deepcopy(model.state_dict())
    with torch.no_grad():
        y = model(x)  # training mode: batch statistics, dropout
    model.load_state_dict(state)  # the running statistics are put back
    return y


def predict_detach(model, x):
    model.eval()
    return model(x).detach()  # no history on the result, but the model stays in eval mode


# ---------------------------------------------------------------- 08.8 freeze the BatchNorm layers


_BN = torch.nn.modules.batchnorm._BatchNorm


def freeze_by_attribute(model):
    for m in model.modules():
        if isinstance(m, _BN):
            m.training = False  # a BatchNorm layer has no children: the attribute is enough
    return model


def freeze_with_apply(model):
    return model.apply(lambda m: m.eval() if isinstance(m, _BN) else None)


def freeze_recursive(model):
    for child in model.children():
        if isinstance(child, _BN):
            child.train(False)
        else:
            freeze_recursive(child)
    return model


def freeze_two_kinds(model):
    for m in model.modules():
        if isinstance(m, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):  # no 3d, no SyncBatchNorm
            m.eval()
    return model


def freeze_parameters(model):
    for m in model.modules():
        if isinstance(m, _BN):
            m.requires_grad_(False)  # "freeze" read as: stop training its weights
    return model


def freeze_a_copy(model):
    twin = copy.deepcopy(model)
    for m in twin.modules():
        if isinstance(m, _BN):
            m.eval()
    return twin


# ---------------------------------------------------------------- the adversary's rows (depth pass 04-08)


def batch_not_clamped(step, budget, peak):
    p1, p2 = peak(lambda: step(1)), peak(lambda: step(2))
    per = p2 - p1
    return (budget - (p1 - per)) // per  # negative when the budget is below the fixed cost


def batch_not_clamped_int(step, budget, peak):
    p1, p2 = peak(lambda: step(1)), peak(lambda: step(2))
    per = p2 - p1
    return int((budget - (p1 - per)) / per)


def freeze_by_name(model):
    for m in model.modules():
        if "BatchNorm" in type(m).__name__:  # misses a subclass named otherwise, catches a look-alike name
            m.eval()
    return model


def freeze_by_class_or_name(model):
    for m in model.modules():
        if isinstance(m, _BN) or "BatchNorm" in type(m).__name__:  # a look-alike name is not a BatchNorm
            m.eval()
    return model


ANSWERS = [
    ("07.10", batch_from_4_and_8, PASS, None),
    ("07.10", batch_fit_then_verify, PASS, None),
    ("07.10", batch_polyfit, PASS, None),
    ("07.10", batch_one_too_many, FAIL, "does not fit"),
    ("07.10", batch_bisect, FAIL, "measure at most 4"),
    ("07.10", batch_wrong_divisor, FAIL, None),
    ("07.10", batch_not_floored, FAIL, "as an int"),
    ("07.10", batch_not_clamped, FAIL, "return 0 when even one sample does not fit"),
    ("07.10", batch_not_clamped_int, FAIL, "return 0 when even one sample does not fit"),
    ("07.11", counters_accumulate, PASS, None),
    ("07.11", counters_tracker, PASS, None),
    ("07.11", counters_from_last_reset, PASS, None),
    ("07.11", counters_reset_frees, FAIL, None),
    ("07.11", counters_peak_from_zero_after_reset, FAIL, None),
    ("07.11", counters_as_list, FAIL, "return a tuple"),
    ("07.11", counters_swapped, FAIL, None),
    ("08.7", predict_on_a_copy, PASS, None),
    ("08.7", predict_train_in_order, PASS, None),
    ("08.7", predict_context_manager, PASS, None),
    ("08.7", predict_back_to_train, FAIL, "eval mode"),
    ("08.7", predict_reload_buffers, FAIL, None),
    ("08.7", predict_detach, FAIL, "training mode"),
    ("08.8", freeze_by_attribute, PASS, None),
    ("08.8", freeze_with_apply, PASS, None),
    ("08.8", freeze_recursive, PASS, None),
    ("08.8", freeze_two_kinds, FAIL, "still in training mode"),
    ("08.8", freeze_parameters, FAIL, "still in training mode"),
    ("08.8", freeze_a_copy, FAIL, "return the model you were given"),
    ("08.8", freeze_by_name, FAIL, "FrozenBN"),
    ("08.8", freeze_by_class_or_name, FAIL, "BatchNormFreeBlock"),
]


@pytest.mark.parametrize(
    "exercise_id, answer, expected, fragment", ANSWERS, ids=[f"{a[0]}-{a[1].__name__}" for a in ANSWERS]
)
def test_answer_gets_its_verdict(exercise_id, answer, expected, fragment):
    status, message = evaluate(REGISTRY.get(exercise_id), answer)
    assert status == expected, message
    if fragment:
        assert fragment in message, message


def test_restoring_only_the_layers_is_judged_by_the_flags():
    """Restoring the flags of the layers that read them, and never touching the containers, leaves
    every flag as it was: the text asks for the flags as before, so this answer is correct."""
    status, message = evaluate(REGISTRY.get("08.7"), predict_restore_layers_only)
    assert status == PASS, message
