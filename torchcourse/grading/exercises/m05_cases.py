"""Module 05's inputs, its broadcast-comparison rule and one wrong answer (split from ``m05.py``,
which keeps the EXERCISES list): moving averages, bytes per second, softmax, one-hot."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from torchcourse.grading.exercises._inputs import randint, randn
from torchcourse.grading.rules import Case, Rule

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


def _sq_dist_cases():
    """05.6: points near the origin, and points far from it that lie close together (as map coordinates in
    metres do), where ||x||^2 - 2 x.y + ||y||^2 cancels: in float64 at 10^7, in float32 (the default dtype)
    at 1000 with more than 25 points, where torch.cdist's default switches to that expansion."""
    return [
        (randn(4, 2, seed=40, dtype=torch.float64), randn(3, 2, seed=41, dtype=torch.float64)),
        (randn(5, 3, seed=42, dtype=torch.float64), randn(5, 3, seed=43, dtype=torch.float64)),
        (randn(1, 4, seed=44, dtype=torch.float64), randn(6, 4, seed=45, dtype=torch.float64)),
        (randn(4, 3, seed=46, dtype=torch.float64) + 1e7, randn(5, 3, seed=47, dtype=torch.float64) + 1e7),
        (randn(30, 3, seed=48) + 1000, randn(27, 3, seed=49) + 1000),
        # float64 at 10^7 with more than 25 points: cdist on float64 copies switches to the expansion here too
        (randn(30, 3, seed=50, dtype=torch.float64) + 1e7, randn(27, 3, seed=51, dtype=torch.float64) + 1e7),
        # one point at the origin among points at 10^7: centring on a mean does not bring the cluster near 0
        (
            torch.cat([torch.zeros(1, 3, dtype=torch.float64), randn(5, 3, seed=52, dtype=torch.float64) + 1e7]),
            randn(4, 3, seed=53, dtype=torch.float64) + 1e7,
        ),
    ]


def _sq_dist_expanded(X, Y):
    return (X**2).sum(dim=-1)[:, None] - 2 * X @ Y.T + (Y**2).sum(dim=-1)[None, :]  # cancels far from 0


def _sq_dist_centred(X, Y):
    """05.6, wrong: the expansion after centring both on X's mean, which is near the origin only when X's
    points are close together."""
    c = X.mean(dim=0)
    return _sq_dist_expanded(X - c, Y - c)
