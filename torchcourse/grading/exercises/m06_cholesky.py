"""Exercise 06.10 (solve a symmetric positive-definite system with Cholesky): its rules (one
factorisation, the result computed from the factor, no inverse), its inputs and its typical wrong
answers. ``m06.py`` keeps the EXERCISES list."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from torchcourse.grading.exercises._inputs import randn
from torchcourse.grading.exercises.m06_cases import _RHS, CallsOnce, _is_identity
from torchcourse.grading.families import FAMILIES
from torchcourse.grading.rules import Case, Rule

# ---- 06.10 Cholesky, once -------------------------------------------------------------------------


# 06.10's "factorise S once": exactly one Cholesky factorisation at the aten level, so a factorisation
# per column or per matrix of a batch, or a second one to check the first, is seen.
FACTORISES_ONCE = CallsOnce(
    family="cholesky",
    what="factorises",
    why="factorise S once (one cholesky call handles a whole batch) and solve for every column of B "
    "with that one factor",
)


class _DoubledFactor(TorchDispatchMode):
    """Doubles every Cholesky factor torch hands the answer: 2L is the factor of 4S, so a result
    computed from the factor comes out divided by 4 (exactly: a power of two), one computed from S
    by another route does not change."""

    def __init__(self) -> None:
        super().__init__()
        self.factors = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if f"aten::{func.overloadpacket.__name__}" in FAMILIES["cholesky"]:
            factor = out[0] if isinstance(out, (tuple, list)) else out
            factor.mul_(2)  # in place: an out= tensor given by the answer is doubled too
            self.factors += 1
        return out


@dataclass
class FromTheFactor(Rule):
    """06.10's "compute X from that factor": run again with every Cholesky factor doubled (the factor
    of 4S); the result must become X / 4. A factorisation beside NumPy's, an eigendecomposition's
    or any other route's solve of S (a decoy factor) gives X unchanged."""

    name = "computed from the factor"

    def judge(self, case: Case) -> str | None:
        got = case.got
        if not isinstance(got, torch.Tensor) or not got.numel() or not got.is_floating_point():
            return None
        args = case.fresh()
        mode = _DoubledFactor()
        try:
            with mode:
                again = case.fn(*args)
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        if not mode.factors:
            return None  # no torch Cholesky at all: the Calls rule says so
        want = got.detach().double() / 4
        if isinstance(again, torch.Tensor) and again.shape == got.shape:
            gap = float((again.detach().double() - want).abs().max())
            if gap <= 1e-3 * float(want.abs().max()):
                return None
        return (
            "your result is not computed from the Cholesky factor: handed the factor of 4·S (2L) instead of "
            "S's own, a solve with the factor returns X / 4, and yours did not; compute X from L (torch."
            "cholesky_solve(B, L), or triangular solves with L and L^T), not from S by another route"
        )


# where each solver takes its right-hand side B (most take (A, B, ...)); cholesky_solve's helper too
_B_AT = {**_RHS, "aten::_cholesky_solve_helper": 0}


class _RightHandSides(TorchDispatchMode):
    """The right-hand side of every aten solve the answer dispatches."""

    def __init__(self) -> None:
        super().__init__()
        self.sides: list[tuple[str, torch.Tensor]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = f"aten::{func.overloadpacket.__name__}"
        if name in FAMILIES["solve"] or name == "aten::_cholesky_solve_helper":
            at = _B_AT.get(name, 1)
            if len(args) > at and isinstance(args[at], torch.Tensor):
                self.sides.append((name, args[at]))
        return func(*args, **(kwargs or {}))


@dataclass
class SolvesForB(Rule):
    """06.10's "no inverse, of S or of its factor": every solve the answer dispatches is for B's
    columns, never for an identity matrix, and never for more right-hand sides than B holds (an
    n x n right-hand side when B has k < n columns builds an inverse, column by column)."""

    name = "no inverse"

    def judge(self, case: Case) -> str | None:
        S, B = case.args[:2]
        if not isinstance(S, torch.Tensor) or not isinstance(B, torch.Tensor) or S.dim() < 2 or B.dim() < 2:
            return None
        batch = torch.broadcast_shapes(S.shape[:-2], B.shape[:-2])
        most = B.shape[-2] * B.shape[-1] * max(1, torch.Size(batch).numel())
        rec = _RightHandSides()
        try:
            with rec:
                case.fn(*case.fresh())
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        for name, side in rec.sides:
            op = name.removeprefix("aten::").lstrip("_")
            if _is_identity(side):
                return (
                    f"your function solves ({op}) for an identity matrix, which builds an inverse (of S or of "
                    "its factor); solve for the columns of B themselves, with no inverse"
                )
            if side.numel() > most:
                return (
                    f"your function solves ({op}) for a right-hand side of shape {tuple(side.shape)} when B is "
                    f"{tuple(B.shape)}: more columns than B has builds an inverse (of S or of its factor) column "
                    "by column; solve for the columns of B themselves, with no inverse"
                )
        return None


def _spd(n, seed, batch=(), dtype=torch.float64, scale=1.0):
    M = randn(*batch, n, n, seed=seed, dtype=torch.float64)
    return (scale * (M @ M.mT + n * torch.eye(n, dtype=torch.float64))).to(dtype)


def spd_cases():
    return [
        (_spd(3, 300), randn(3, 2, seed=301, dtype=torch.float64)),
        (_spd(5, 302), randn(5, 1, seed=303, dtype=torch.float64)),
        (_spd(4, 304, dtype=torch.float32), randn(4, 3, seed=305)),
        (_spd(4, 306, batch=(3,)), randn(3, 4, 2, seed=307, dtype=torch.float64)),
        (_spd(1, 308), randn(1, 4, seed=309, dtype=torch.float64)),
        (_spd(6, 310, scale=1e-3), randn(6, 6, seed=311, dtype=torch.float64)),  # small entries: a large X
    ]


def spd_lu(S, B):
    return torch.linalg.solve(S, B)  # an LU factorisation: twice the arithmetic


def spd_cholesky_inverse(S, B):
    return torch.cholesky_inverse(torch.linalg.cholesky(S)) @ B  # the inverse, from the factor


def spd_per_column(S, B):
    cols = [torch.cholesky_solve(B[..., :, j : j + 1], torch.linalg.cholesky(S)) for j in range(B.shape[-1])]
    return torch.cat(cols, dim=-1)  # one factorisation per right-hand side


def spd_matrix_not_factor(S, B):
    torch.linalg.cholesky(S)
    return torch.cholesky_solve(B, S)  # passes S where the factor L goes


def spd_arguments_swapped(S, B):
    L = torch.linalg.cholesky(S)
    return torch.cholesky_solve(L, B)  # the factor first: the order of torch.linalg.solve, not this one's


def spd_second_solve_with_L(S, B):
    L = torch.linalg.cholesky(S)
    Y = torch.linalg.solve_triangular(L, B, upper=False)
    return torch.linalg.solve_triangular(L, Y, upper=False)  # L again, where L^T belongs


def spd_upper_factor(S, B):
    U = torch.linalg.cholesky(S, upper=True)
    return torch.cholesky_solve(B, U)  # an upper factor read as a lower one


def spd_inverse_by_cholesky_solve(S, B):
    L = torch.linalg.cholesky(S)
    eye = torch.eye(S.shape[-1], dtype=S.dtype).expand_as(S)
    return torch.cholesky_solve(eye, L) @ B  # S^-1 built from the factor, then a product


def spd_factor_inverse(S, B):
    L = torch.linalg.cholesky(S)
    Li = torch.linalg.solve_triangular(L, torch.eye(S.shape[-1], dtype=S.dtype), upper=False)  # L^-1
    return Li.mT @ (Li @ B)


def spd_decoy_eigh(S, B):
    torch.linalg.cholesky(S)  # a decoy: the factor is never used
    w, V = torch.linalg.eigh(S)
    return V @ ((V.mT @ B) / w.unsqueeze(-1))


def spd_decoy_numpy_solve(S, B):
    torch.linalg.cholesky(S)  # a decoy: NumPy's LU solver does the work
    return torch.from_numpy(np.linalg.solve(S.numpy(), B.numpy()))


def spd_numpy_solves_with_factor(S, B):
    L = torch.linalg.cholesky(S).numpy()  # the factor, but NumPy's general solver
    return torch.from_numpy(np.linalg.solve(np.swapaxes(L, -1, -2), np.linalg.solve(L, B.numpy())))


def spd_numpy_factor_inverse(S, B):
    L = torch.linalg.cholesky(S)
    Li = torch.from_numpy(np.linalg.inv(L.numpy()))  # L^-1, through NumPy
    return Li.mT @ (Li @ B)


def spd_numpy_cholesky(S, B):
    L = torch.from_numpy(np.linalg.cholesky(S.numpy()))  # NumPy's factor: the text asks for torch's
    return torch.cholesky_solve(B, L)
