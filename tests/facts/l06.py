"""Facts lesson 06 (linear algebra) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import pytest
import torch
from torch.profiler import ProfilerActivity, profile

from tests.facts import fact

F64 = torch.float64


def _ops(fn):
    """aten::linalg_* operations fn() runs, in order."""
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        fn()
    return [e.name.removeprefix("aten::") for e in prof.events() if e.name.startswith("aten::linalg_")]


def _matrix(n=6, seed=0):
    return torch.randn(n, n, generator=torch.Generator().manual_seed(seed), dtype=F64) + n * torch.eye(n, dtype=F64)


@fact("06", "inv-is-solve-against-identity", "`inv(A)` is, inside torch, `solve(A, I)`")
def _():
    A = _matrix()
    ops = _ops(lambda: torch.linalg.inv(A))
    assert ops[:2] == ["linalg_inv", "linalg_inv_ex"] and ops[2:] == [
        "linalg_solve_ex",
        "linalg_lu_factor_ex",
        "linalg_lu_solve",
    ]
    assert torch.allclose(torch.linalg.inv(A), torch.linalg.solve(A, torch.eye(6, dtype=F64)), rtol=1e-14, atol=0)


@fact(
    "06",
    "k-columns-factorised-once",
    "solves `k` systems with the same `A`, and the matrix is factorised only once",
)
def _():
    A, B = _matrix(), torch.ones(6, 4, dtype=F64)
    ops = _ops(lambda: torch.linalg.solve(A, B))
    assert ops.count("linalg_lu_factor_ex") == 1 and ops.count("linalg_lu_solve") == 1


@fact(
    "06",
    "batched-rhs-rule",
    "(A `b` of shape `(B, n)` counts as a batch of vectors because its shape is `A.shape[:-1]`; "
    "a `(..., n, k)` right-hand side means `k` columns per system.)",
)
def _():
    As = torch.stack([_matrix(3, s) for s in range(4)])  # (4, 3, 3)
    assert torch.linalg.solve(As, torch.ones(4, 3, dtype=F64)).shape == (4, 3)  # batch of vectors
    assert torch.linalg.solve(As, torch.ones(4, 3, 2, dtype=F64)).shape == (4, 3, 2)  # 2 columns each
    assert torch.linalg.solve(As, torch.ones(3, 3, dtype=F64)).shape == (4, 3, 3)  # (3, 3): a matrix, broadcast


@fact(
    "06",
    "lstsq-drivers",
    'On the CPU the default driver is `"gelsy"` (QR with column pivoting), which leaves both empty; '
    '`driver="gelsd"` (SVD based) fills them.',
)
def _():
    g = torch.Generator().manual_seed(0)
    X, h = torch.randn(21, 3, generator=g, dtype=F64), torch.randn(21, 1, generator=g, dtype=F64)
    default, gelsy, gelsd = (torch.linalg.lstsq(X, h, driver=d) for d in (None, "gelsy", "gelsd"))
    assert default.residuals.numel() == default.singular_values.numel() == 0
    assert torch.allclose(default.solution, gelsy.solution)  # same driver; MKL may differ in the last bits
    assert gelsd.residuals.shape == (1,) and gelsd.singular_values.shape == (3,)


@fact(
    "06",
    "eigh-real-ascending-orthonormal",
    "For a **symmetric** (or Hermitian) matrix use `eigh`: the eigenvalues are real, come back in ascending "
    "order, and the eigenvectors are orthonormal",
)
def _():
    A = _matrix()
    S = A + A.T
    w, V = torch.linalg.eigh(S)
    assert w.dtype == F64 and torch.all(w[1:] >= w[:-1])
    assert torch.allclose(V.T @ V, torch.eye(6, dtype=F64))


@fact(
    "06",
    "eig-always-complex",
    "A **general** matrix can have complex eigenvalues, so `eig` and `eigvals` always return a complex dtype",
)
def _():
    S = torch.diag(torch.tensor([1.0, 2.0, 3.0], dtype=F64))  # real eigenvalues, even so
    assert torch.linalg.eigvals(S).dtype == torch.complex128
    assert torch.linalg.eig(S.float()).eigenvectors.dtype == torch.complex64


@fact("06", "tensorsolve-is-solve", "underneath it is a 6×6 `solve`")
def _():
    T = _matrix().reshape(2, 3, 2, 3)
    assert "linalg_solve" in _ops(lambda: torch.linalg.tensorsolve(T, torch.ones(2, 3, dtype=F64)))


@fact("06", "pinv-computes-svd", "The pseudo-inverse computes an SVD")
def _():
    X = torch.randn(21, 3, generator=torch.Generator().manual_seed(0), dtype=F64)
    assert "linalg_svd" in _ops(lambda: torch.linalg.pinv(X))


@fact(
    "06",
    "rank-tolerance",
    "`matrix_rank` and `pinv` decide which singular values count as zero with a tolerance (`rtol`, by default "
    "about `max(m, n) × ε` relative to the largest)",
)
def _():
    eps = torch.finfo(F64).eps
    below = torch.diag(torch.tensor([1.0, 1.0, 2 * eps], dtype=F64))  # 2 eps < 3 eps: counts as zero
    above = torch.diag(torch.tensor([1.0, 1.0, 4 * eps], dtype=F64))
    assert torch.linalg.matrix_rank(below).item() == 2 and torch.linalg.matrix_rank(above).item() == 3
    assert torch.linalg.pinv(below)[2, 2].item() == 0.0


@fact(
    "06",
    "solve-does-not-promote",
    "`solve` does not promote: a float64 matrix with a float32 right-hand side is an error, not a silent conversion.",
)
def _():
    with pytest.raises(RuntimeError, match="same dtype"):
        torch.linalg.solve(_matrix(3), torch.ones(3))


@fact("06", "singular-raises-linalgerror", "PyTorch raises `torch.linalg.LinAlgError`")
def _():
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.solve(torch.tensor([[1.0, 2.0], [2.0, 4.0]]), torch.tensor([1.0, 2.0]))
