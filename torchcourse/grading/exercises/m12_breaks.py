"""Module 12's checks for compiled NumPy code that stays one graph (12.9) and draws the same random
numbers for the same seed (12.10); imported by m12.py.

12.9 compiles the answer twice on one input with values on the edges: with a counting backend
(graphs and breaks, :func:`graph_facts`) and with the eager backend (the compiled values, against
``np.digitize``). 12.10 hands the answer a compiled NumPy function that counts its calls, and calls
the answer again after other random draws, and with another seed.
"""

from __future__ import annotations

import types
import warnings

import numpy as np
import torch

from torchcourse.compiletools import captured_logs
from torchcourse.grading.compare import compare, describe
from torchcourse.grading.rules import Case, Rule, graph_facts

# --- 12.9 np.digitize rewritten to stay in one graph ------------------------------------------


def _bins_cases():
    rng = np.random.default_rng(1209)
    return [
        (np.array([-3.0, 0.0, 0.5, 1.0, 2.5, 4.0, 9.0]), np.array([0.0, 1.0, 4.0])),  # values on the edges
        (np.array([2.0, 2.0, 7.0, -1.0]), np.array([2.0])),  # one edge, ties
        (rng.standard_normal((3, 4)).T, np.linspace(-1.0, 1.0, 5)),  # 2-D, transposed (not contiguous)
        (np.linspace(-1.0, 1.0, 9, dtype=np.float32), np.array([-0.5, 0.0, 0.25], np.float32)),  # float32, ties
        (-5 * np.abs(rng.standard_normal((2, 3, 2))), np.array([-4.0, -2.0, -1.0])),  # negatives, 3-D
        (np.zeros(0), np.array([0.0, 1.0])),  # empty
    ]


# one input for the compiled run: 2-D, with values on the edges, below the first and above the last
_COMPILED_INPUT = (np.array([[-1.0, 0.0, 0.5], [1.0, 1.5, 3.0]]), np.array([0.0, 1.0, 2.0]))


def _fresh(fn):
    """``fn`` with its own code object, so no graph compiled before is reused."""
    if isinstance(fn, types.FunctionType):
        return types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    return fn


class OneGraphLikeDigitize(Rule):
    """12.9 "torch.compile turns it into one graph with no graph break, with NumPy's values when
    compiled": counted with a counting backend (one graph, no break), then the compiled values
    compared with ``np.digitize`` (a rewrite can agree with NumPy run eagerly and not compiled)."""

    name = "one graph, NumPy's values compiled"
    every_case = False

    def judge(self, case: Case) -> str | None:
        x, edges = _COMPILED_INPUT
        try:
            msg = compare(case.fn(x.copy(), edges.copy()), np.digitize(x, edges))
        except Exception as exc:  # noqa: BLE001 - reported in one line
            msg = f"it raised {type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"
        if msg:
            return f"on the 2-D x={x.tolist()}, edges={edges.tolist()}: {msg}"
        facts = graph_facts(case.fn, [(x.copy(), edges.copy())])
        if facts.error:
            return f"compiled, your function raised {facts.error}"
        if facts.graphs != 1 or facts.breaks:
            return (
                f"compiled, your function makes {facts.graphs} graph(s) with {facts.breaks} graph break(s); "
                "a NumPy function torch._numpy lacks (np.digitize is one) runs outside the graph: build the "
                "answer from NumPy functions torch.compile traces, so that it is one graph with no break"
            )
        try:
            with captured_logs(), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = torch.compile(_fresh(case.fn), backend="eager")(x.copy(), edges.copy())
        except Exception as exc:  # noqa: BLE001 - reported in one line
            return f"compiled, your function raised {type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"
        msg = compare(out, np.digitize(x, edges))
        if msg:
            return f"compiled, your function does not give np.digitize's values on x={x.tolist()}: {msg}"
        return None


# --- 12.10 the same random numbers for the same seed --------------------------------------------


def _uniform_noise(x):
    return x + np.random.rand(*x.shape)


def _normal_noise(x):
    return x + np.random.normal(0.0, 0.5, x.shape)


def _integer_noise(x):
    return x + np.random.randint(0, 1000, x.shape)


_NOISE = {"rand": _uniform_noise, "normal": _normal_noise, "randint": _integer_noise}
_COMPILED: dict[str, object] = {}


class NoisyFunction:
    """A NumPy function compiled with ``torch.compile`` (eager backend: traced, no code generated)
    that adds ``np.random`` numbers to ``x``; it counts its calls and keeps what it last returned."""

    def __init__(self, kind: str) -> None:
        self.kind, self.calls, self.last = kind, 0, None

    def __call__(self, x):
        compiled = _COMPILED.get(self.kind)
        if compiled is None:
            compiled = _COMPILED[self.kind] = torch.compile(_NOISE[self.kind], backend="eager")
        self.calls += 1
        with captured_logs():
            self.last = compiled(x)
        return self.last

    def fresh(self) -> NoisyFunction:
        return NoisyFunction(self.kind)

    def __deepcopy__(self, memo) -> NoisyFunction:
        return self.fresh()

    def __repr__(self) -> str:
        return f"compiled fn (x + np.random.{self.kind} numbers)"


def _noise_cases():
    return [
        (NoisyFunction("rand"), np.zeros(4), 0),
        (NoisyFunction("normal"), np.arange(6.0).reshape(2, 3), 12),
        (NoisyFunction("randint"), np.ones(5), 1234),
    ]


def _same_shape(args, got):
    """12.10 returns what fn(x) returned: an array of x's shape (the rule checks it is fn's)."""
    x = args[1]
    if not isinstance(got, np.ndarray) or got.shape != x.shape:
        return f"return what fn(x) returned (a NumPy array of shape {x.shape}), got {describe(got)}"
    return None


class SameSeedSameNumbers(Rule):
    """12.10: the answer calls fn once and returns its result; called again with the same seed,
    after NumPy and torch drew other numbers, it returns the same numbers; with another seed, others."""

    name = "same seed, same numbers"

    def judge(self, case: Case) -> str | None:
        fn, x, seed = case.fresh()
        np.random.seed(1210)
        torch.rand(3)
        first = case.fn(fn, x.copy(), seed)
        if fn.calls != 1:
            return f"your function called fn {fn.calls} times; call it once and return what it returned"
        if first is not fn.last and compare(first, fn.last, rtol=0, atol=0):
            return "return what fn(x) returned, not other numbers"
        np.random.rand(5)  # other draws in between, by NumPy and by torch
        torch.randn(7)
        again = case.fn(fn.fresh(), x.copy(), seed)
        if compare(again, first, rtol=0, atol=0):
            return (
                f"called again with the same seed {seed}, after NumPy and torch drew other random numbers, "
                "fn returned other numbers; compiled, np.random draws from another generator than NumPy's"
            )
        seen = {seed: first}
        for other_seed in (s for s in _OTHER_SEEDS if s != seed):
            other = case.fn(fn.fresh(), x.copy(), other_seed)
            for before, numbers in seen.items():
                if compare(other, numbers, rtol=0, atol=0) is None:
                    return f"seeds {before} and {other_seed} gave the same numbers; the seed must decide them"
            seen[other_seed] = other
        return None


# Other seeds than the case's: 14 distinct seeds hold two equal modulo every number up to 13
# (seed % 2, seed % 5, min(seed, 3) give equal numbers for two of them), and large ones too
_OTHER_SEEDS = (*range(13), 1000, 65_536, 2**31 + 7)
