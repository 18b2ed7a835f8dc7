"""Exercises 11.7, 11.8, 12.9 and 12.10: answers written from each exercise's text alone, three
correct ones unlike the worked answer (✓) and three plausible wrong ones (✗, with the part of the
message that names what is wrong), plus odd answers that must give one line."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
import torch

from torchcourse.grading.checks import FAIL, PASS, REGISTRY, TODO, evaluate


def _bins_np(a):
    return np.digitize(a, [0.25, 0.5, 0.75])


# ---------------------------------------------------------------- 11.7 opaque NumPy code, one graph


def op_functional_form(name):
    def impl(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(_bins_np(x.numpy(force=True))).to(x.device)

    op = torch.library.custom_op(name, impl, mutates_args=())
    torch.library.register_fake(name)(lambda x: x.new_empty(x.shape, dtype=torch.long))
    return op


def op_as_tensor(name):
    @torch.library.custom_op(name, mutates_args=())
    def labels(x: torch.Tensor) -> torch.Tensor:
        return torch.as_tensor(_bins_np(x.detach().cpu().numpy()), device=x.device)

    @labels.register_fake
    def _(x):
        return torch.empty(x.shape, dtype=torch.int64, device=x.device)

    return labels


def op_explicit_schema(name):
    @torch.library.custom_op(name, mutates_args=(), schema="(Tensor x) -> Tensor")
    def labels(x):
        return torch.tensor(_bins_np(x.cpu().numpy()), dtype=torch.int64, device=x.device)

    labels.register_fake(lambda x: torch.zeros_like(x, dtype=torch.int64))
    return labels


def op_disabled(name):
    @torch.compiler.disable
    def labels(x):
        return torch.from_numpy(_bins_np(x.numpy(force=True)))

    return labels


def op_no_fake(name):
    @torch.library.custom_op(name, mutates_args=())
    def labels(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(_bins_np(x.numpy(force=True))).to(x.device)

    return labels


def op_fake_empty_shape(name):
    op = op_no_fake(name)
    op.register_fake(lambda x: torch.empty(0, dtype=torch.int64))  # a guess at "empty", not x's shape
    return op


def op_fake_on_cpu(name):
    op = op_no_fake(name)
    op.register_fake(lambda x: torch.empty(x.shape, dtype=torch.int64))  # on the CPU whatever x's device
    return op


# ---------------------------------------------------------------- 11.8 outputs across replays


def run_all_loop(step, xs):
    kept = []
    for x in xs:
        out = step(x)
        kept.append(torch.empty_like(out).copy_(out))
    return kept


# ---------------------------------------------------------------- 12.10 seeds


def seeded_fork(fn, x, seed):
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return fn(x)


def seeded_generator(fn, x, seed):
    torch.default_generator.manual_seed(seed + 1000)
    return fn(x)


def seeded_random_module(fn, x, seed):
    random.seed(seed)
    return fn(x)


TABLE = [
    # 11.7
    ("11.7", op_functional_form, PASS, "", "custom_op(name, fn) and torch.library.register_fake(name)"),
    ("11.7", op_as_tensor, PASS, "", "as_tensor, torch.empty fake"),
    ("11.7", op_explicit_schema, PASS, "", "explicit schema, zeros_like fake"),
    ("11.7", op_disabled, FAIL, "graph break", "torch.compiler.disable: a break"),
    ("11.7", op_no_fake, FAIL, "fake implementation", "no register_fake"),
    ("11.7", op_fake_empty_shape, FAIL, "shape", "fake of the wrong shape"),
    ("11.7", op_fake_on_cpu, FAIL, "input's device", "fake on the CPU for a meta input"),
    # 11.8
    ("11.8", lambda step, xs: [step(x) + 0 for x in xs], PASS, "", "+ 0 makes a new tensor"),
    ("11.8", run_all_loop, PASS, "", "empty_like + copy_ in a loop"),
    ("11.8", lambda step, xs: [copy.deepcopy(step(x)) for x in xs], PASS, "", "deepcopy"),
    ("11.8", lambda step, xs: [step(x) for x in xs], FAIL, "output buffer", "keeps the buffer"),
    ("11.8", lambda step, xs: [step(x).contiguous() for x in xs], FAIL, "no longer holds", "contiguous: no copy"),
    ("11.8", lambda step, xs: list(torch.stack([step(x) for x in xs])), FAIL, "no longer holds", "copies too late"),
    # 12.9
    ("12.9", lambda x, e: (x[..., None] >= e).sum(axis=-1), PASS, "", "compare and count"),
    ("12.9", lambda x, e: len(e) - (x[..., None] < e).sum(axis=-1), PASS, "", "count the edges above"),
    ("12.9", lambda x, e: np.searchsorted(e, x.ravel(), side="right").reshape(x.shape), PASS, "", "ravel"),
    ("12.9", lambda x, e: np.digitize(x, e), FAIL, "graph break", "digitize itself"),
    ("12.9", lambda x, e: (x[..., None] > e).sum(axis=-1), FAIL, "values differ", "ties on the wrong side"),
    ("12.9", lambda x, e: np.searchsorted(e, x, side="right").astype(np.int32), FAIL, "dtype", "int32"),
    # 12.10
    ("12.10", seeded_fork, PASS, "", "fork_rng"),
    ("12.10", seeded_generator, PASS, "", "default_generator, another seed"),
    ("12.10", lambda fn, x, seed: (torch.random.manual_seed(seed), fn(x))[1], PASS, "", "torch.random"),
    ("12.10", lambda fn, x, seed: (np.random.seed(seed), fn(x))[1], FAIL, "same seed", "NumPy's seed"),
    ("12.10", seeded_random_module, FAIL, "same seed", "Python's random"),
    ("12.10", lambda fn, x, seed: (torch.cuda.manual_seed(seed), fn(x))[1], FAIL, "same seed", "CUDA's seed"),
    ("12.10", lambda fn, x, seed: (torch.manual_seed(seed % 2), fn(x))[1], FAIL, "gave the same numbers", "seed % 2"),
    ("12.10", lambda fn, x, seed: (torch.manual_seed(seed % 5), fn(x))[1], FAIL, "gave the same numbers", "seed % 5"),
]


@pytest.mark.parametrize(
    "exercise_id, answer, status, fragment, what",
    TABLE,
    ids=[f"{row[0]}-{row[2]}-{row[4]}" for row in TABLE],
)
def test_answer_table(exercise_id, answer, status, fragment, what):
    got_status, message = evaluate(REGISTRY.get(exercise_id), answer)
    assert got_status == status, f"{exercise_id} ({what}): {got_status} {message}"
    assert fragment in message, f"{exercise_id} ({what}): {message}"
    assert "\n" not in message


def test_three_correct_and_three_wrong_per_exercise():
    for ex_id in ("11.7", "11.8", "12.9", "12.10"):
        rows = [row for row in TABLE if row[0] == ex_id]
        assert sum(row[2] == PASS for row in rows) >= 3, ex_id
        assert sum(row[2] == FAIL for row in rows) >= 3, ex_id


ODD = {
    "None": lambda *a: None,
    "list": lambda *a: [1, 2],
    "ndarray": lambda *a: np.zeros(2),
    "raises": lambda *a: 1 / 0,
    "not a function": 3,
}


@pytest.mark.parametrize("exercise_id", ["11.7", "11.8", "12.9", "12.10"])
def test_odd_answers_give_one_line(exercise_id):
    for name, odd in ODD.items():
        status, message = evaluate(REGISTRY.get(exercise_id), odd)
        assert status == FAIL and "\n" not in message, (exercise_id, name, message)


@pytest.mark.parametrize("exercise_id", ["11.7", "11.8", "12.9", "12.10"])
def test_stub_is_not_attempted(exercise_id):
    def stub(*args):
        raise NotImplementedError

    assert evaluate(REGISTRY.get(exercise_id), stub)[0] == TODO
