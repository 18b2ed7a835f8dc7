"""Checks grade the constraint each exercise states, and accept every correct answer.

A table of answers per exercise: for every stated constraint an answer that breaks only that
constraint (✗, and the message names the constraint), and correct alternatives written
differently from the reference (✓). Then the rules themselves, on small cases.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from torchcourse.grading.checks import FAIL, PASS, REGISTRY, evaluate
from torchcourse.grading.compare import shares_memory
from torchcourse.grading.rules import (
    Calls,
    Case,
    NoLoop,
    allocations,
    graph_facts,
    peak_bytes,
    recorded_calls,
)

# ---------------------------------------------------------------- answers, written as a learner would


def std_mean_answer(t):
    s, m = torch.std_mean(t, dim=0)
    return (t - m) / s


def float64_then_cast(t):
    d = t.double()
    return ((d - d.mean(0)) / d.std(0)).to(t.dtype)


def batch_in_place(batch, device):
    for k, v in batch.items():
        if isinstance(v, torch.Tensor):
            batch[k] = v.to(device)
    return batch


def batch_copy_then_move(batch, device):
    out = dict(batch)
    for k in out:
        if torch.is_tensor(out[k]):
            out[k] = out[k].to(device)
    return out


def _inspect(cls):
    def inspect_standardise(data, x):
        m = cls(data)
        return {"output": m(x), "buffers": dict(m.named_buffers()), "saved": sorted(m.state_dict())}

    return inspect_standardise


class NotSaved(torch.nn.Module):
    def __init__(self, data):
        super().__init__()
        self.register_buffer("mean", data.mean(dim=0), persistent=False)
        self.register_buffer("std", data.std(dim=0), persistent=False)

    def forward(self, x):
        return (x - self.mean) / self.std


class WithNnBuffer(NotSaved):
    def __init__(self, data):
        torch.nn.Module.__init__(self)
        self.mean = torch.nn.Buffer(data.mean(dim=0))
        self.std = torch.nn.Buffer(data.std(dim=0))


class StdMeanBuffers(NotSaved):
    def __init__(self, data):
        torch.nn.Module.__init__(self)
        std, mean = torch.std_mean(data, dim=0)
        self.register_buffer("std", std)
        self.register_buffer("mean", mean)


def compile_with_options(goal):
    from torchcourse.grading.exercises.m09 import _options_kwargs

    return _options_kwargs(goal)


def compile_kwargs_listed(goal):
    from torchcourse.grading.exercises.m09 import GOALS

    answers = [
        {"dynamic": False},
        {"fullgraph": True},
        {"mode": "reduce-overhead"},
        {"options": {"max_autotune": True, "coordinate_descent_tuning": True}},
        {"backend": "eager"},
    ]
    return answers[GOALS.index(goal)]


def pi_split(x, y, chunk):
    inside = sum(int(((a * a + b * b) <= 1).sum()) for a, b in zip(x.split(chunk), y.split(chunk)))
    return torch.tensor(4 * inside / x.numel(), dtype=torch.float32)


def pi_while(x, y, chunk):
    start, inside = 0, torch.zeros((), dtype=torch.int64)
    while start < len(x):
        xs, ys = x[start : start + chunk], y[start : start + chunk]
        inside += (xs.square() + ys.square()).le(1).sum()
        start += chunk
    return (4 * inside / len(x)).float()


def pi_one_liner(x, y, chunk):
    return 4 * ((x * x + y * y) <= 1).float().mean()


def cond_named(x):
    def share(x):
        return x / x.sum()

    def shift(x):
        return x - x.min()

    return torch.cond(x.sum() > 0, share, shift, [x])


def where_not_cond(x):
    return torch.where(x.sum() > 0, x / x.sum(), x - x.min())


def newton_no_grad(g, x0, steps):
    x = x0.detach().clone()
    for _ in range(steps):
        with torch.enable_grad():
            xr = x.requires_grad_(True)
            gx = g(xr)
            gx.sum().backward()
        with torch.no_grad():
            x = x - gx / xr.grad
    return x.detach()


def newton_backward(g, x0, steps):
    x = x0.detach()
    for _ in range(steps):
        x.requires_grad_(True)
        y = g(x)
        (d,) = torch.autograd.grad(y, x, torch.ones_like(y))
        x = (x - y / d).detach()
    return x


def newton_extra_step(g, x0, steps):
    return newton_no_grad(g, x0, steps + 1)


def newton_until_converged(g, x0, steps):
    x = x0.detach()
    for _ in range(60):
        x = newton_no_grad(g, x, 1)
    return x


def _one_graph(fn):
    from torchcourse.grading.exercises.m11 import one_graph

    return one_graph(fn)


# (exercise, answer, ✓ or ✗, a fragment the message must hold, what the row shows)
TABLE = [
    # 01.3: more accurate answers pass; tolerance from the reference's own float32 error
    ("01.3", std_mean_answer, PASS, "", "torch.std_mean"),
    ("01.3", float64_then_cast, PASS, "", "float64, then cast"),
    ("01.3", lambda t: (t - t.mean(0, keepdim=True)).div(t.std(0, keepdim=True)), PASS, "", "keepdim"),
    ("01.3", lambda t: (t - t.mean(0)) / t.std(0, correction=0), FAIL, "values differ", "biased std"),
    ("01.3", lambda t: (t.double() - t.double().mean(0)) / t.double().std(0), FAIL, "dtype", "left in float64"),
    # 02.1: a view, judged by memory overlap
    ("02.1", lambda t: torch.from_numpy(t.numpy()[:, -1]), PASS, "", "a view built through NumPy"),
    ("02.1", lambda t: t.select(1, -1), PASS, "", "select"),
    ("02.1", lambda t: t.T[-1], PASS, "", "a row of the transpose"),
    ("02.1", lambda t: t[:, -1].clone(), FAIL, "is a copy", "breaks only 'a view'"),
    ("02.1", lambda t: torch.from_numpy(t.numpy()[:, -1].copy()), FAIL, "is a copy", "a NumPy copy"),
    # 02.2: a copy, and no autograd history
    ("02.2", lambda t: t.clone().detach(), PASS, "", "clone, then detach"),
    ("02.2", lambda t: torch.tensor(t.tolist(), dtype=t.dtype), PASS, "", "through a list"),
    ("02.2", lambda t: t.clone(), FAIL, "autograd history", "breaks only 'no autograd history'"),
    ("02.2", lambda t: t.detach(), FAIL, "shares memory", "breaks only 'a copy'"),
    # 04.6: int16 totals without the int64 copy
    ("04.6", lambda g: g.to(torch.int16).sum(1, dtype=torch.int16), PASS, "", "cast to int16 first"),
    ("04.6", lambda g: torch.sum(g, -1, dtype=torch.int16), PASS, "", "torch.sum, dim -1"),
    ("04.6", lambda g: g.sum(dim=1).to(torch.int16), FAIL, "int64 copy", "breaks only 'no int64 copy'"),
    ("04.6", lambda g: g.int().sum(1).short(), FAIL, "int64 copy", "int32 first, int64 after all"),
    ("04.6", lambda g: g.sum(dim=1, dtype=torch.int32), FAIL, "dtype", "int32 totals"),
    ("04.6", lambda g: g.sum(1, dtype=torch.int32).short(), FAIL, "wider than int16", "an int32 sum, cast after"),
    ("04.6", lambda g: g.to(torch.int16) @ torch.ones(g.shape[1], dtype=torch.int16), PASS, "", "int16 matmul"),
    # 02.3: in place means in the tensor's own memory; a temporary on the way is fine
    ("02.3", lambda t: t.copy_(t.clamp(min=0)), PASS, "", "copy_ of a clamped copy"),
    ("02.3", lambda t: t.masked_fill_(t < 0, 0), PASS, "", "masked_fill_"),
    ("02.3", lambda t: (t.set_(t.clamp(min=0)), t)[1], FAIL, "other memory", "set_ swaps the storage"),
    # 05.5: one comparison makes the whole table
    ("05.5", lambda labels, k: torch.where(labels[:, None] == torch.arange(k), 1.0, 0.0), PASS, "", "where"),
    ("05.5", lambda labels, k: ((labels[:, None] - torch.arange(k)) == 0).float(), PASS, "", "difference == 0"),
    ("05.5", lambda labels, k: torch.eye(k)[labels], FAIL, "broadcast comparison", "rows of an identity matrix"),
    # 05.8: the maximum by either spelling
    (
        "05.8",
        lambda x, d: (lambda e: e / e.sum(d, keepdim=True))((x - x.max(d, keepdim=True).values).exp()),
        PASS,
        "",
        "max().values",
    ),
    (
        "05.8",
        lambda x, d: (lambda e: e / e.sum(d, keepdim=True))((x - x.amax(d, keepdim=True)).exp_()),
        PASS,
        "",
        "exp_",
    ),
    (
        "05.8",
        lambda x, d: (lambda e: e / e.sum(d, keepdim=True))((x - x.mean(d, keepdim=True)).exp()),
        FAIL,
        "maximum",
        "mean subtracted",
    ),
    # 07.6: a new dict
    ("07.6", batch_copy_then_move, PASS, "", "copy the dict, then move"),
    ("07.6", lambda b, d: {**b, **{k: v.to(d) for k, v in b.items() if torch.is_tensor(v)}}, PASS, "", "merge"),
    ("07.6", batch_in_place, FAIL, "new dict", "breaks only 'a new dict'"),
    # 08.3: buffers, saved
    ("08.3", _inspect(WithNnBuffer), PASS, "", "nn.Buffer"),
    ("08.3", _inspect(StdMeanBuffers), PASS, "", "std_mean, other order"),
    ("08.3", _inspect(NotSaved), FAIL, "state_dict", "breaks only 'saved' (persistent=False)"),
    # 09.1: any arguments that do what the goal says, and only that
    ("09.1", compile_with_options, PASS, "", "options= instead of a mode"),
    ("09.1", compile_kwargs_listed, PASS, "", "max_autotune with coordinate descent"),
    ("09.1", lambda goal: {**compile_kwargs_listed(goal), "fullgraph": True}, FAIL, "does not need", "extra"),
    # 09.6: never a temporary longer than chunk
    ("09.6", pi_split, PASS, "", "split into chunks"),
    ("09.6", pi_while, PASS, "", "a while loop"),
    ("09.6", pi_one_liner, FAIL, "longer than one chunk", "breaks only 'chunked'"),
    # 11.4: one graph that holds torch.cond
    ("11.4", _one_graph(cond_named), PASS, "", "named branch functions"),
    ("11.4", lambda x: torch.cond(x.sum().gt(0), lambda t: t / t.sum(), lambda t: t - t.amin(), (x,)), PASS, "", ""),
    ("11.4", _one_graph(where_not_cond), FAIL, "no cond", "breaks only 'uses cond'"),
    # 12.5: the property, not the reference's values
    ("12.5", lambda m: (2 * m.T, -(m * m).sum(1)), PASS, "", "twice the scores"),
    ("12.5", lambda m: (m.t().contiguous(), -(m.norm(dim=1) ** 2) / 2), PASS, "", "norm squared"),
    ("12.5", lambda m: (m.T, -(m * m).sum(1)), FAIL, "nearest mean is", "scores off by |m|²/2"),
    ("12.5", lambda m: (m.T, torch.zeros(m.shape[0])), FAIL, "nearest mean is", "no offset"),
    # 13.1: int32 sums without the int64 copy
    ("13.1", lambda p: p.to(torch.int32).sum(1, dtype=torch.int32), PASS, "", "cast first"),
    ("13.1", lambda p: torch.sum(p, 1, dtype=torch.int32), PASS, "", "torch.sum"),
    ("13.1", lambda p: p.sum(1).to(torch.int32), FAIL, "int64 copy", "breaks only 'no int64 copy'"),
    # 14.3: exactly `steps` steps, no graph attached
    ("14.3", newton_no_grad, PASS, "", "backward and no_grad"),
    ("14.3", newton_backward, PASS, "", "grad_outputs instead of sum"),
    ("14.3", newton_extra_step, FAIL, "values differ", "breaks only 'exactly steps'"),
    ("14.3", newton_until_converged, FAIL, "values differ", "ignores steps"),
    ("14.3", lambda g, x0, s: newton_no_grad(g, x0, s).requires_grad_(), FAIL, "requires grad", "a graph"),
]


@pytest.mark.parametrize(
    "exercise_id, answer, status, fragment, what",
    TABLE,
    ids=[f"{row[0]}-{row[2]}-{row[4] or i}" for i, row in enumerate(TABLE)],
)
def test_answer_table(exercise_id, answer, status, fragment, what):
    got_status, message = evaluate(REGISTRY.get(exercise_id), answer)
    assert got_status == status, f"{exercise_id} ({what}): {got_status} {message}"
    assert fragment in message, f"{exercise_id} ({what}): {message}"
    assert "\n" not in message


def test_every_listed_exercise_has_two_correct_alternatives_and_a_constraint_breaker():
    for ex_id in {row[0] for row in TABLE}:
        rows = [row for row in TABLE if row[0] == ex_id]
        assert sum(row[2] == PASS for row in rows) >= 2, ex_id
        assert any(row[2] == FAIL for row in rows), ex_id


ODD = {
    "None": lambda *a: None,
    "list": lambda *a: [1, 2],
    "ndarray": lambda *a: np.zeros(2),
    "raises": lambda *a: 1 / 0,
    "not a function": 3,
}


@pytest.mark.parametrize("exercise_id", sorted({row[0] for row in TABLE}))
def test_odd_answers_give_one_line(exercise_id):
    for name, answer in ODD.items():
        status, message = evaluate(REGISTRY.get(exercise_id), answer)
        assert status == FAIL and "\n" not in message, f"{exercise_id} {name}: {status} {message}"


def test_failure_shows_the_smallest_failing_input():
    # the one-liner fails on every chunked case; the smallest (5 samples, chunks of one) is shown, with values
    status, message = evaluate(REGISTRY.get("09.6"), pi_one_liner)
    assert status == FAIL and "tensor of shape (5,)" in message and "values [" in message, message


# ---------------------------------------------------------------- the rules on their own


def test_overlap_decides_view_or_copy():
    t = torch.arange(12.0).reshape(3, 4)
    assert shares_memory(torch.from_numpy(t.numpy()[:, -1]), t)  # own storage object, same bytes
    assert not shares_memory(t[:1], t[1:])  # one storage, disjoint chunks
    assert shares_memory(t.T, t) and not shares_memory(t.clone(), t)
    assert not shares_memory(t[:0], t)  # nothing to share


def test_memory_rule_sees_the_copy_inside_one_operation():
    g = torch.ones(10, 100, dtype=torch.int8)
    assert peak_bytes(allocations(lambda: g.sum(1))) >= 8 * g.numel()  # the int64 copy
    assert peak_bytes(allocations(lambda: g.sum(1, dtype=torch.int16))) < 4 * g.numel()
    assert peak_bytes([100, -100, 50, 30, -80]) == 100


def test_calls_rule_records_torch_functions_and_methods():
    calls = recorded_calls(lambda x: torch.zeros(2) + x.sum(), (torch.ones(3),))
    assert "zeros" in calls and "sum" in calls
    fn = lambda x: torch.zeros(3) + x  # noqa: E731
    case = Case(fn=fn, args=(torch.ones(3),), got=None, fresh=lambda: (torch.ones(3),))
    assert "never calls ones_like" in Calls(require=("ones_like",)).judge(case)
    assert "calls zeros" in Calls(forbid=("zeros",), why="use zeros_like").judge(case)
    assert Calls(require=("zeros",)).judge(case) is None


def looped(x):
    total = 0
    for v in x:
        total += v
    return total


def _helper_loop(x):
    out = []
    for v in x:
        out.append(v * 2)
    return torch.stack(out)


def _recursive_sum(x):
    return x.new_zeros(()) if x.shape[0] == 0 else x[0] + _recursive_sum(x[1:])


# Loops in every spelling: each must make the work grow with the input.
LOOPS_IN_DISGUISE = {
    "for": looped,
    "map": lambda x: torch.stack(list(map(lambda v: v * 2, x))),
    "filter": lambda x: torch.stack(list(filter(lambda v: bool((v > -100).all()), x))),
    "generator sum": lambda x: sum(v for v in x),
    "builtin sum over tolist": lambda x: torch.tensor(sum(x.flatten().tolist())),
    "helper": _helper_loop,
    "recursion": _recursive_sum,
    "compiled loop": torch.compile(lambda x: sum(map(lambda v: v * 2, x)), backend="eager"),
    "apply_": lambda x: x.clone().apply_(lambda v: v * 2),
}
VECTORISED = {
    "sum": lambda x: x.sum(0),
    "vmap": lambda x: torch.vmap(lambda v: v * 2)(x),
    "loop over a fixed small dim": lambda x: torch.stack([x[..., 0] * i for i in range(3)]),
    "numpy": lambda x: torch.from_numpy(x.numpy() * 2),
}


@pytest.mark.parametrize("spelling", list(LOOPS_IN_DISGUISE))
def test_no_loop_rule_sees_loops_by_behaviour(spelling):
    fn = LOOPS_IN_DISGUISE[spelling]
    x = torch.arange(12.0).reshape(4, 3)
    case = Case(fn=fn, args=(x,), got=None, fresh=lambda: (x.clone(),))
    msg = NoLoop().judge(case)
    assert msg and "loops over the data" in msg and "4, 8, 16 rows" in msg, (spelling, msg)


@pytest.mark.parametrize("name", list(VECTORISED))
def test_no_loop_rule_accepts_constant_work(name):
    x = torch.arange(12.0).reshape(4, 3)
    case = Case(fn=VECTORISED[name], args=(x,), got=None, fresh=lambda: (x.clone(),))
    assert NoLoop().judge(case) is None


def test_no_loop_rule_names_what_grew_and_skips_growths_the_reference_rejects():
    A = torch.eye(3, dtype=torch.float64) * 2
    B = torch.ones(4, 3, dtype=torch.float64)
    one_by_one = lambda A, B: torch.stack([torch.linalg.solve(A, b) for b in B])  # noqa: E731
    case = Case(fn=one_by_one, args=(A, B), got=None, fresh=lambda: (A.clone(), B.clone()))
    assert "aten::_linalg_solve_ex ran 4, 8, 16 times" in NoLoop(which=(1,)).judge(case)
    # tiling A too makes it non-square: the reference raises, so that growth judges nothing
    case.reference = lambda A, B: torch.linalg.solve(A, B.T).T
    assert NoLoop().judge(case) is None
    assert NoLoop(which=(1,)).judge(case) is not None


def test_graph_facts_count_graphs_breaks_recompiles_and_ops():
    def breaks(x):
        y = x.sin()
        print("side effect")  # a graph break
        return y.cos()

    facts = graph_facts(breaks, [(torch.ones(3),)])
    assert facts.graphs == 2 and facts.breaks >= 1 and facts.error is None
    facts = graph_facts(lambda x: x * 2, [(torch.ones(3),), (torch.ones(3, dtype=torch.float64),)])
    assert facts.recompiles == 1 and "mul" in facts.ops
    facts = graph_facts(breaks, [(torch.ones(3),)], fullgraph=True)
    assert facts.error is not None


def test_results_equal_by_value_pass_whatever_their_python_type():
    import numpy as np

    from torchcourse.grading.compare import compare

    assert compare(np.str_("cpu"), "cpu") is None
    assert compare(np.bool_(True), True) is None
    assert compare(np.int64(3), 3) is None
    assert compare(np.float32(0.5), 0.5) is None
    # a different value still fails, and a bool is not a count
    assert compare(np.str_("cuda"), "cpu") and compare(np.bool_(False), True) and compare(True, 1)


def test_recorders_leave_torch_cond_working():
    """torch.cond traces its branches with dynamo: under the recorders' modes it used to fail and
    leave dynamo's cache for it broken, so the learner's next plain call failed too."""
    from torchcourse.grading.growth import work_done

    def cond_answer(x):
        return torch.cond(x.sum() > 0, lambda x: x - x.min(), lambda x: x / x.sum(), (x,))

    x = torch.tensor([1.0, -2.0, 4.0])
    assert "cond" in recorded_calls(cond_answer, (x,))
    assert work_done(cond_answer, (x,)).ops["torch.cond"] == 1
    case = Case(fn=cond_answer, args=(x,), got=None, fresh=lambda: (x.clone(),))
    assert NoLoop().judge(case) is None
    assert torch.equal(cond_answer(x), x - x.min())  # a plain call still works afterwards
