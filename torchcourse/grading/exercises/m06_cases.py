"""Module 06's shared rules (one solve, one tensordot), and the inputs, property and typical wrong
answers of 06.11 (rank-k approximation); 06.10's (Cholesky) are in ``m06_cholesky.py``. ``m06.py``
keeps the EXERCISES list."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from torchcourse.grading.compare import describe
from torchcourse.grading.exercises._inputs import randn
from torchcourse.grading.families import FAMILIES
from torchcourse.grading.rules import Case, Rule, recorded_calls

# ---- rules ---------------------------------------------------------------------------


class _SolverCalls(TorchDispatchMode):
    """The aten operations of the "solve" family that an answer dispatches, with their right-hand sides."""

    def __init__(self) -> None:
        super().__init__()
        self.solves: list[tuple[str, torch.Tensor | None]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = f"aten::{func.overloadpacket.__name__}"
        if name in FAMILIES["solve"]:
            rhs = args[_RHS.get(name, 1)] if len(args) > _RHS.get(name, 1) else None
            self.solves.append((name, rhs if isinstance(rhs, torch.Tensor) else None))
        return func(*args, **(kwargs or {}))


# where each solver takes its right-hand side B (most take (A, B, ...))
_RHS = {"aten::linalg_lu_solve": 2, "aten::lu_solve": 0, "aten::cholesky_solve": 0, "aten::triangular_solve": 0}


def _is_identity(t: torch.Tensor) -> bool:
    n = t.shape[-1] if t.dim() >= 2 else 0
    if n < 2 or t.shape[-2] != n or t.device.type == "meta":
        return False
    return bool((t.detach() == torch.eye(n, dtype=t.dtype, device=t.device)).all())


@dataclass
class OneSolve(Rule):
    """06.4's "one call to solve, no inverse": the answer dispatches exactly one solver operation
    (the whole "solve" family counted at the aten level, so a second solve, or an lstsq doing the
    work beside a token solve, is seen), and none of them has an identity matrix as its right-hand
    side, which is how an inverse is built (inside torch, inv(A) is solve(A, I))."""

    name = "one call to solve"

    def judge(self, case: Case) -> str | None:
        args = case.fresh()
        rec = _SolverCalls()
        try:
            with rec:
                case.fn(*args)
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        if any(rhs is not None and _is_identity(rhs) for _, rhs in rec.solves):
            return (
                "your function solves with an identity matrix as the right-hand side, which computes the "
                "inverse of A (inv(A) is solve(A, I)); solve for the rows of B themselves, with no inverse"
            )
        if len(rec.solves) > 1:
            names = ", ".join(sorted({n.removeprefix("aten::") for n, _ in rec.solves}))
            return (
                f"your function solves {len(rec.solves)} times ({names}); the task asks for one call to "
                "torch.linalg.solve that handles every right-hand side at once"
            )
        return None


@dataclass
class CallsOnce(Rule):
    """The answer calls the torch function ``name`` exactly once, or dispatches at most one aten
    operation of the call family ``family`` (counted through a TorchFunctionMode and a
    TorchDispatchMode, so a call in a map, a generator or a helper counts every time it runs)."""

    fn_name: str = ""
    why: str = ""
    family: str = ""  # e.g. "cholesky": one factorisation, whatever the spelling
    what: str = ""  # how the message names the repeated call, e.g. "factorises"
    name = "exactly one call"

    def judge(self, case: Case) -> str | None:
        try:
            calls = recorded_calls(case.fn, case.fresh())
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        if self.family:
            n = sum(1 for c in calls if c.startswith("aten::") and c in FAMILIES[self.family])
        else:
            n = calls.count(self.fn_name)
        if n > 1:
            what = self.what or f"calls {self.fn_name}"
            return f"your function {what} {n} times; {self.why or 'the task asks for one call'}"
        return None
        n = calls.count(self.fn_name)
        if n > 1:
            return f"your function calls {self.fn_name} {n} times; {self.why or 'the task asks for one call'}"
        return None


# ---- 06.11 the best rank-k approximation ---------------------------------------------------------


def _decaying(m, n, seed, dtype=torch.float64, batch=(), s=None):
    """A matrix with singular values ``s`` (per matrix of a batch: shape (p,) or batch + (p,); by
    default well separated, 10, 5, 2.5, ..., so "rank k" and s_(k+1) are clear in float32)."""
    p = min(m, n)
    Q1 = torch.linalg.qr(randn(*batch, m, p, seed=seed, dtype=torch.float64)).Q
    Q2 = torch.linalg.qr(randn(*batch, n, p, seed=seed + 1, dtype=torch.float64)).Q
    if s is None:
        s = 10.0 * 0.5 ** torch.arange(p, dtype=torch.float64)
    return (Q1 * s.unsqueeze(-2) @ Q2.mT).to(dtype)


def _graded(p, top, bottom):
    """p singular values spread evenly on a log scale from ``top`` down to ``bottom``."""
    return torch.logspace(math.log10(top), math.log10(bottom), p, dtype=torch.float64)


def rank_cases():
    low = randn(6, 2, seed=320, dtype=torch.float64) @ randn(2, 5, seed=321, dtype=torch.float64)  # rank 2
    scales = torch.tensor([1.0, 10.0, 100.0], dtype=torch.float64).view(3, 1, 1)
    spectra = torch.stack([_graded(5, 8, 0.5), _graded(5, 300, 1), 10.0 * 0.5 ** torch.arange(5.0).double()])
    return [
        (randn(5, 4, seed=322, dtype=torch.float64), 2),
        (randn(4, 7, seed=323, dtype=torch.float64), 1),  # wide
        (_decaying(8, 6, 324, torch.float32), 3),
        (_decaying(5, 5, 326, batch=(3,)), 2),
        (randn(6, 3, seed=328, dtype=torch.float64), 0),  # rank 0: the zero matrix
        (randn(3, 5, seed=329, dtype=torch.float64), 3),  # k = min(m, n): A itself
        (low, 3),  # A has rank 2 < k: A itself
        (_decaying(6, 4, 330, torch.float32, batch=(2,)), 1),
        # a batch whose matrices have different spectra: each is truncated by its own singular values
        (randn(3, 5, 4, seed=332, dtype=torch.float64) * scales, 2),
        (_decaying(7, 5, 334, torch.float32, batch=(3,), s=spectra), 2),
        # float32 with singular values spread over 6 and 8 decades: the error must stay within
        # float32's rounding of s_1; a method through A^T A (condition number squared) misses it
        (_decaying(6, 6, 336, torch.float32, batch=(2,), s=_graded(6, 1e3, 1e-3)), 5),
        (_decaying(8, 6, 338, torch.float32, s=_graded(6, 1e2, 1e-4)), 4),
    ]


def _tolerance(A: torch.Tensor) -> torch.Tensor:
    """Rounding room for an answer in A's dtype, per matrix: 8 x max(m, n) eps of A's largest singular
    value. Backward-stable methods (an SVD, then a product or A minus the tail, in A's dtype) stay
    within 3 eps of s_1 of the float64 truth; one through A^T A loses hundreds of eps of s_1 when the
    singular values spread over decades."""
    s1 = torch.linalg.matrix_norm(A.detach().double(), ord=2)
    return 8 * max(A.shape[-2:]) * torch.finfo(A.dtype).eps * s1 + 1e-300


def rank_property(args: tuple, got) -> str | None:
    A, k = args
    if not isinstance(got, torch.Tensor):
        return f"expected a tensor of shape {tuple(A.shape)}, got {describe(got)}"
    if tuple(got.shape) != tuple(A.shape):
        return f"expected shape {tuple(A.shape)} (the shape of A), got {tuple(got.shape)}"
    if got.dtype != A.dtype:
        return f"expected dtype {A.dtype} (the dtype of A), got {got.dtype}"
    if not bool(torch.isfinite(got).all()):
        return "your result has NaN or infinite entries"
    tol = _tolerance(A)
    s_got = torch.linalg.svdvals(got.detach().double())
    if k < s_got.shape[-1] and bool((s_got[..., k] > tol).any()):
        return (
            f"your result has rank above k = {k}: its singular value number {k + 1} is "
            f"{s_got[..., k].max().item():.3g} (keep only the first k singular values and vectors)"
        )
    s_A = torch.linalg.svdvals(A.detach().double())
    best = s_A[..., k] if k < s_A.shape[-1] else torch.zeros_like(s_A[..., 0])
    err = torch.linalg.matrix_norm(got.detach().double() - A.detach().double(), ord=2)
    if bool(((err - best).abs() > tol).any()):
        i = int(((err - best).abs() - tol).flatten().argmax())
        return (
            f"‖A − your result‖₂ = {err.flatten()[i].item():.6g}, but the best rank-{k} approximation is "
            f"s_{k + 1} = {best.flatten()[i].item():.6g} away from A (Eckart–Young): keep the k largest singular "
            "values with their vectors, U_k diag(s_k) Vh_k"
        )
    return None


def rank_without_s(A, k):
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    return U[..., :k] @ Vh[..., :k, :]  # the singular values left out


def rank_smallest(A, k):
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    p = S.shape[-1]
    return U[..., p - k :] * S[..., None, p - k :] @ Vh[..., p - k :, :]  # the k smallest


def rank_one_too_many(A, k):
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    return U[..., : k + 1] * S[..., None, : k + 1] @ Vh[..., : k + 1, :]


def rank_old_svd_v_as_vh(A, k):
    U, S, V = torch.svd(A)  # the old torch.svd returns V, not V^T
    return U[..., :k] * S[..., None, :k] @ V[..., :k, :]


def rank_in_float64(A, k):
    U, S, Vh = torch.linalg.svd(A.double(), full_matrices=False)
    return U[..., :k] * S[..., None, :k] @ Vh[..., :k, :]  # float64 back for float32 A


def rank_largest_entries(A, k):
    flat = A.flatten(-2)
    keep = flat.abs().topk(k * max(A.shape[-2:]), dim=-1).indices if k else flat[..., :0].long()
    return torch.zeros_like(flat).scatter(-1, keep, flat.gather(-1, keep)).reshape(A.shape)  # sparse, not low rank


def rank_first_matrix_spectrum(A, k):
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    return U[..., :k] @ torch.diag(S[..., :k].reshape(-1)[:k]) @ Vh[..., :k, :]  # the first matrix's s for all


def rank_through_gram(A, k):
    w, V = torch.linalg.eigh(A.mT @ A)  # A^T A in A's dtype: the condition number squared
    Vk = V[..., V.shape[-1] - k :]
    return A @ Vk @ Vk.mT
