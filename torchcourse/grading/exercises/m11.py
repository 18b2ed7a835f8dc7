"""Module 11 "Graph breaks": read explain(), rewrite data-dependent branches so they compile whole.

Exercises 11.3-11.6 are checked through :func:`one_graph`, which runs the learner's function
compiled with ``fullgraph=True``: a data-dependent ``if`` then comes back as the real
``Unsupported`` error instead of a silent graph break.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import torch

from torchcourse.compiletools import captured_logs
from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises._inputs import randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises.m11_ops import (
    _bins_op_property,
    _op_cases,
    _replay_cases,
    _replay_property,
)
from torchcourse.grading.rules import Graph, NoLoop


def one_graph(fn):
    """``fn`` compiled into a single graph (``fullgraph=True``, eager backend: tracing only, cheap).

    The wrapper first runs ``fn`` eagerly, so an unfinished function still says "not attempted"
    and a plain bug shows its own error; then it returns what the one-graph compile gives, so a
    graph break becomes an error the check reports.
    """
    compiled = torch.compile(fn, fullgraph=True, backend="eager")

    @functools.wraps(fn)
    def run(*args):
        fn(*args)
        with captured_logs():  # keep dynamo's warnings out of the notebook
            return compiled(*args)

    return run


def _explain(fn, x):
    with captured_logs(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch._dynamo.explain(fn)(x)


# --- functions the explain() exercises inspect ---------------------------------------------


def clean(x):
    return (x.sin() + 1).relu()


def branchy(x):
    y = x * 2
    if y.sum() > 0:
        return y - 1
    return y + 1


def item_then_break(x):
    s = x.abs().max().item()
    y = x / s
    torch._dynamo.graph_break()
    return y.cos()


def item_if(x):
    if x.sum().item() > 0:
        return x * 2
    return x


def _explain_cases():
    pos, neg = randn(6, seed=1).abs() + 0.1, -(randn(4, 3, seed=2).abs() + 0.1)
    return [(clean, pos), (branchy, pos), (item_then_break, randn(5, seed=3)), (item_if, pos), (item_if, neg)]


# --- 11.1 / 11.2 -------------------------------------------------------------------------


graph_report = solution("11", "graph_report")
first_break_reason = solution("11", "first_break_reason")


# --- 11.3: branch-free with torch.where ---------------------------------------------------


soft_clip = solution("11", "soft_clip")


def _soft_clip_if(x):
    m = x.abs().max()
    if m > 1:
        return x / m
    return x


def _mixed_cases():
    return [
        (randn(7, seed=4) * 3,),
        (randn(3, 4, seed=5) * 0.2,),
        (randn(50, seed=6, dtype=torch.float64),),
        (randn(2, 5, seed=7) * 0.1,),
        (torch.tensor([0.5, -3.0, 2.0]),),  # the largest magnitude is negative, and beyond the largest value
        (torch.tensor([[0.5, -2.0], [0.25, 0.0]]),),  # in range above, out of range below
    ]


# --- 11.4: torch.cond ---------------------------------------------------------------------


share_or_shift = solution("11", "share_or_shift")


def _share_or_shift_if(x):
    if x.sum() > 0:
        return x / x.sum()
    return x - x.min()


def _cond_cases():
    return [
        (randn(6, seed=8).abs(),),
        (-randn(3, 3, seed=9).abs(),),
        (randn(40, seed=10, dtype=torch.float64) + 0.5,),
        (randn(40, seed=11) - 0.5,),
        (torch.tensor([[1.5, -0.5], [-2.0, 1.0]]),),  # the sum is exactly 0: `> 0` is false, the shift
    ]


# --- 11.5: no .item(), no Python if on a number -------------------------------------------


safe_standardise = solution("11", "safe_standardise")


def _safe_standardise_item(x):
    s = x.std().item()
    if s < 1e-3:
        s = 1.0
    return (x - x.mean()) / s


def _standardise_cases():
    return [
        (randn(8, seed=12) * 2 + 1,),
        (3.0 + 1e-5 * randn(5, 4, seed=13),),
        (randn(30, seed=14, dtype=torch.float64),),
        (torch.full((6,), 2.5),),
    ]


# --- 11.6: a piecewise function, elementwise (stretch) ------------------------------------


huber = solution("11", "huber")


def _huber_loop(x, delta):
    total = 0.0
    for v in x.flatten():
        total = total + (0.5 * v * v if v.abs() <= delta else delta * (v.abs() - 0.5 * delta))
    return total / x.numel()


def _huber_cases():
    return [
        (randn(10, seed=15) * 2, 1.0),
        (randn(4, 6, seed=16, dtype=torch.float64) * 3, 0.5),
        (randn(200, seed=17), 2.0),
    ]


# --- 11.7 / 11.8 (properties and cases in m11_ops) ------------------------------------------


make_bins_op = solution("11", "make_bins_op")
run_all = solution("11", "run_all")


def _bins_np_copy(a):
    """The given bins_np, defined in an importable module so that Dynamo can trace the wrong answers' calls."""
    return np.digitize(a, [0.25, 0.5, 0.75])


def _op_disabled(name):
    return torch.compiler.disable(lambda x: torch.from_numpy(_bins_np_copy(x.numpy(force=True))).to(x.device))


def _op_without_fake(name):
    @torch.library.custom_op(name, mutates_args=())
    def bins(x: torch.Tensor) -> torch.Tensor:
        return torch.from_numpy(_bins_np_copy(x.numpy(force=True))).to(x.device)

    return bins


def _op_fake_like_input(name):
    bins = _op_without_fake(name)
    bins.register_fake(lambda x: torch.empty_like(x))  # float, where the operator returns int64
    return bins


def _op_allowed(name):
    return torch.compiler.allow_in_graph(lambda x: torch.from_numpy(_bins_np_copy(x.numpy(force=True))).to(x.device))


EXERCISES = [
    Exercise(
        "11.1",
        "Count graphs and breaks with explain",
        graph_report,
        cases=_explain_cases,
        hints=[
            "torch._dynamo.explain(fn)(x) traces fn on x and returns an object with the counts.",
            "Read its graph_count and graph_break_count fields; break_reasons can hold a reason even "
            "when graph_break_count is 0, so do not count the reasons.",
        ],
        wrong=[
            lambda fn, x: tuple(reversed(graph_report(fn, x))),
            lambda fn, x: (lambda e: (e.graph_count, len(e.break_reasons)))(_explain(fn, x)),
        ],
        compiles=True,
    ),
    Exercise(
        "11.2",
        "Why did it break?",
        first_break_reason,
        cases=_explain_cases,
        hints=[
            "explain's break_reasons is a list; each item has a .reason string.",
            "Keep only the first line of the first reason (str.splitlines), and return None when "
            "the list is empty, whatever graph_break_count says.",
        ],
        wrong=[
            lambda fn, x: (lambda e: e.break_reasons[0].reason.splitlines()[0] if e.graph_break_count else None)(
                _explain(fn, x)
            ),
            lambda fn, x: (lambda e: e.break_reasons[-1].reason.splitlines()[0] if e.break_reasons else None)(
                _explain(fn, x)
            ),
            lambda fn, x: (lambda e: e.break_reasons[0].reason if e.break_reasons else None)(_explain(fn, x)),
        ],
        compiles=True,
    ),
    Exercise(
        "11.3",
        "Branch-free with torch.where",
        soft_clip,
        cases=_mixed_cases,
        rules=[Graph()],
        hints=[
            "Compute both outcomes, x / m and x, then pick one with torch.where(condition, a, b).",
            "The condition m > 1 is a 0-d bool tensor; torch.where broadcasts it over x.",
        ],
        wrong=[
            one_graph(_soft_clip_if),
            lambda x: x / x.abs().max(),
            lambda x: x.clamp(-1, 1),
            lambda x: torch.where(x.max() > 1, x / x.max(), x),  # max instead of the largest magnitude
        ],
    ),
    Exercise(
        "11.4",
        "Both branches in the graph with torch.cond",
        share_or_shift,
        cases=_cond_cases,
        rules=[Graph(contains=("cond",), how="pick the branch with torch.cond(pred, true_fn, false_fn, (x,))")],
        hints=[
            "torch.cond(pred, true_fn, false_fn, operands) calls true_fn(*operands) or false_fn(*operands).",
            "Write the two branches as small functions (or lambdas) of x and pass (x,) as the operands; "
            "both must return one tensor of the same dtype and number of dimensions (not an operand itself).",
        ],
        wrong=[
            one_graph(_share_or_shift_if),
            lambda x: torch.cond(x.sum() > 0, lambda x: x - x.min(), lambda x: x / x.sum(), (x,)),
            lambda x: torch.cond(x.sum() > 0, lambda x: x / x.sum(), lambda x: x - x.max(), (x,)),
            lambda x: torch.cond(x.sum() >= 0, lambda t: t / t.sum(), lambda t: t - t.min(), (x,)),
            one_graph(lambda x: torch.where(x.sum() > 0, x / x.sum(), x - x.min())),  # one graph, but no cond
        ],
        compiles=True,
    ),
    Exercise(
        "11.5",
        "Standardise without .item()",
        safe_standardise,
        cases=_standardise_cases,
        rules=[Graph()],
        hints=[
            "Keep the standard deviation as a 0-d tensor: s = x.std(), no .item(), no float().",
            "Replace 's if s >= 1e-3 else 1' with torch.where(s < 1e-3, torch.ones_like(s), s). "
            "clamp(min=1e-3) is a different rule: it divides by 1e-3, not by 1.",
        ],
        wrong=[
            one_graph(_safe_standardise_item),
            lambda x: (x - x.mean()) / x.std().clamp(min=1e-3),
            lambda x: (x - x.mean()) / x.std(),
        ],
    ),
    Exercise(
        "11.7",
        "Opaque NumPy code inside one graph",
        make_bins_op,
        cases=_op_cases,
        property=_bins_op_property,
        hints=[
            "@torch.library.custom_op(name, mutates_args=()) on a function with type hints "
            "(x: torch.Tensor) -> torch.Tensor; inside, x.numpy(force=True) gives the values to bins_np.",
            "Then @bins.register_fake on a function of x that returns an empty tensor of the output's shape "
            "and dtype: torch.empty_like(x, dtype=torch.int64). Return the decorated function.",
        ],
        wrong=[
            _op_disabled,
            _op_without_fake,
            _op_fake_like_input,
            _op_allowed,
            lambda name: lambda x: torch.from_numpy(_bins_np_copy(x.numpy(force=True))),
        ],
    ),
    Exercise(
        "11.8",
        "Outputs that survive the next replay",
        run_all,
        cases=_replay_cases,
        property=_replay_property,
        hints=[
            "step returns the same output memory every time: after the next call, what you kept holds the "
            "new values. Keep a copy of each result before the next call.",
            "result.clone() copies into new memory; [step(x).clone() for x in xs] keeps each call's values.",
        ],
        wrong=[
            lambda step, xs: [step(x) for x in xs],
            lambda step, xs: [step(x).detach() for x in xs],
            lambda step, xs: [o.clone() for o in [step(x) for x in xs]],
            lambda step, xs: [(torch.compiler.cudagraph_mark_step_begin(), step(x))[1] for x in xs],
        ],
    ),
    Exercise(
        "11.6",
        "A piecewise loss without a loop (stretch)",
        huber,
        cases=_huber_cases,
        rules=[Graph(), NoLoop()],
        hints=[
            "The loop's if/else decides per element: that is torch.where over the whole tensor.",
            "Inside: 0.5*x*x where |x| <= delta, delta*(|x| - delta/2) elsewhere; then .mean() (a 0-d tensor).",
        ],
        wrong=[
            one_graph(_huber_loop),
            lambda x, delta: torch.where(x.abs() < delta, 0.5 * x * x, delta * (x.abs() - 0.5 * delta)).sum(),
            lambda x, delta: torch.where(x.abs() <= delta, delta * (x.abs() - 0.5 * delta), 0.5 * x * x).mean(),
        ],
    ),
]
