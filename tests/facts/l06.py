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


@fact(
    "06",
    "inv-is-solve-against-identity",
    "`inv(A)` is, inside torch, `solve(A, I)`",
    rival="inv has its own inversion routine (LAPACK's getri, which inverts in place from the LU factors): the "
    "profiler finds only linalg_solve_ex's LU factorisation and one lu_solve under inv_ex, and the result is "
    "solve(A, I) to the last bits",
)
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
    rival="solve works through the columns one by one, one factorisation each: the profiler counts one "
    "lu_factor_ex and one lu_solve for all 4 columns",
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
    rival="any 2-D `b` is a batch of vectors: a (3, 3) `b` with `A` of shape (4, 3, 3) is one matrix of 3 columns, "
    "broadcast over the batch, because its shape is not `A.shape[:-1]`",
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
    rival="the dtype follows the eigenvalues found, complex only when some are: a diagonal matrix, whose "
    "eigenvalues are real, gets a complex dtype as well",
)
def _():
    S = torch.diag(torch.tensor([1.0, 2.0, 3.0], dtype=F64))  # real eigenvalues, even so
    assert torch.linalg.eigvals(S).dtype == torch.complex128
    assert torch.linalg.eig(S.float()).eigenvectors.dtype == torch.complex64


@fact("06", "tensorsolve-is-solve", "underneath it is a 6×6 `solve`")
def _():
    T = _matrix().reshape(2, 3, 2, 3)
    assert "linalg_solve" in _ops(lambda: torch.linalg.tensorsolve(T, torch.ones(2, 3, dtype=F64)))


@fact(
    "06",
    "pinv-computes-svd",
    "The pseudo-inverse computes an SVD",
    rival="pinv of a tall full-rank matrix takes the same QR route as lstsq: the profiler finds linalg_svd under "
    "pinv, and no SVD under lstsq's default driver",
)
def _():
    X = torch.randn(21, 3, generator=torch.Generator().manual_seed(0), dtype=F64)
    assert "linalg_svd" in _ops(lambda: torch.linalg.pinv(X))
    h = torch.ones(21, 1, dtype=F64)
    assert "linalg_svd" not in _ops(lambda: torch.linalg.lstsq(X, h))  # more work than lstsq needs


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


@fact(
    "06",
    "singular-raises-only-on-exact-zero-pivot",
    "It raises `torch.linalg.LinAlgError` only when LU meets an exactly zero pivot",
    rival="solve checks the rank or the condition number: S has rank 2 and cond above 1e15 in float64, yet passes; "
    "what decides is whether LU's last pivot came out exactly zero (the exact 2x2 case, and S in float32 here)",
)
def _():
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.solve(torch.tensor([[1.0, 2.0], [2.0, 4.0]]), torch.tensor([1.0, 2.0]))
    S = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], dtype=F64)
    b = torch.tensor([1.0, 0.0, 0.0], dtype=F64)
    assert torch.linalg.matrix_rank(S).item() == 2 and torch.linalg.cond(S).item() > 1e15
    pivot = torch.linalg.lu_factor(S).LU[2, 2].item()
    x, info = torch.linalg.solve_ex(S, b)
    assert pivot != 0.0 and info.item() == 0 and x.abs().max().item() > 1e14  # the tiny pivot, divided by
    torch.linalg.solve(S, b)  # and no exception
    assert torch.linalg.inv_ex(S).info.item() == 0  # inv: the same LU, the same silence
    # whichever way rounding goes, the zero-pivot case is the one that raises, and info says where
    for dtype in (torch.float32, F64):
        zero = torch.linalg.lu_factor_ex(S.to(dtype)).LU[2, 2].item() == 0.0
        assert (torch.linalg.solve_ex(S.to(dtype), b.to(dtype)).info.item() != 0) == zero


@fact(
    "06",
    "batch-raises-whole-solve-ex-per-matrix",
    "In a batch, one exactly singular matrix makes `solve` raise for the whole batch; `solve_ex` returns one `info` "
    "per matrix instead.",
)
def _():
    A = torch.stack(
        [torch.eye(2, dtype=F64), torch.tensor([[1.0, 2.0], [2.0, 4.0]], dtype=F64), 2 * torch.eye(2, dtype=F64)]
    )
    with pytest.raises(torch.linalg.LinAlgError, match="Batch element 1"):
        torch.linalg.solve(A, torch.ones(3, 2, dtype=F64))
    assert torch.linalg.solve_ex(A, torch.ones(3, 2, dtype=F64)).info.tolist() == [0, 2, 0]


@fact(
    "06",
    "singular-residual-floor",
    "no x brings the residual below 0.4: b is not in the range of S",
    rival="the residual stays large because rounding spoils solve on a matrix of condition above 1e15: the "
    "least-squares minimum itself, computed by SVD, is 1/sqrt(6), b's distance from the range of S along its "
    "left null vector (1, -2, 1)",
)
def _():
    S = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], dtype=F64)
    b = torch.tensor([1.0, 0.0, 0.0], dtype=F64)
    best = torch.linalg.lstsq(S, b.unsqueeze(-1), driver="gelsd").solution.squeeze(-1)  # the smallest residual
    assert abs((S @ best - b).norm().item() - 1 / 6**0.5) < 1e-12 and 1 / 6**0.5 > 0.4
    null = torch.tensor([1.0, -2.0, 1.0], dtype=F64) / 6**0.5  # S.T @ null == 0: orthogonal to the range
    assert torch.allclose(S.T @ null, torch.zeros(3, dtype=F64)) and abs((null @ b).item() - 1 / 6**0.5) < 1e-15


@fact(
    "06",
    "eigh-reads-lower-triangle",
    '`eigh` reads only the lower triangle (`UPLO="L"`) and never checks symmetry',
)
def _():
    M = torch.tensor([[2.0, 9.0], [1.0, 3.0]], dtype=F64)  # not symmetric
    lower = torch.tril(M) + torch.tril(M, -1).T
    assert torch.equal(torch.linalg.eigh(M).eigenvalues, torch.linalg.eigh(lower).eigenvalues)
    upper = torch.triu(M) + torch.triu(M, 1).T
    assert torch.allclose(torch.linalg.eigh(M, UPLO="U").eigenvalues, torch.linalg.eigh(upper).eigenvalues)


@fact(
    "06",
    "eigvals-always-complex",
    "always return a complex dtype",
)
def _():
    for real, cplx in ((torch.float32, torch.complex64), (F64, torch.complex128)):
        eye = torch.eye(3, dtype=real)  # every eigenvalue real, still complex
        assert torch.linalg.eigvals(eye).dtype == cplx and torch.linalg.eig(eye).eigenvalues.dtype == cplx


# ---- Cholesky, SVD, pinv ------------------------------------------------------------------------------


def _spd(n=6, seed=0):
    M = torch.randn(n, n, generator=torch.Generator().manual_seed(seed), dtype=F64)
    return M @ M.T + n * torch.eye(n, dtype=F64)


@fact(
    "06",
    "cholesky-lower-factor",
    "Such a matrix factors as $S = LL^T$ with $L$ lower triangular, the **Cholesky** factorisation: no "
    "pivoting is needed",
)
def _():
    S = _spd()
    L = torch.linalg.cholesky(S)
    assert torch.equal(L, L.tril()) and bool((L.diagonal() > 0).all())
    torch.testing.assert_close(L @ L.mT, S)
    ops = _ops(lambda: torch.linalg.cholesky(S))
    assert "linalg_cholesky_ex" in ops and not any("lu" in op for op in ops)  # no LU, no pivots


@fact(
    "06",
    "cholesky-solve-argument-order",
    "`torch.cholesky_solve(B, L)` does both triangular solves in one call. Mind the order of its arguments: "
    "the right-hand side comes first, the factor second.",
)
def _():
    S, B = _spd(), torch.randn(6, 3, generator=torch.Generator().manual_seed(1), dtype=F64)
    L = torch.linalg.cholesky(S)
    two = torch.linalg.solve_triangular(L.mT, torch.linalg.solve_triangular(L, B, upper=False), upper=True)
    torch.testing.assert_close(torch.cholesky_solve(B, L), two)
    torch.testing.assert_close(torch.cholesky_solve(B, L), torch.linalg.solve(S, B))
    with pytest.raises(RuntimeError):
        torch.cholesky_solve(L, B)  # swapped: B is not square


@fact(
    "06",
    "cholesky-ex-info",
    "`torch.linalg.cholesky_ex` returns the factor and an `info` code instead of raising: 0 means success, "
    "k > 0 that the leading k×k block is not positive-definite. `cholesky` and `cholesky_ex` read only the "
    "lower triangle and never check symmetry",
)
def _():
    assert torch.linalg.cholesky_ex(_spd()).info.item() == 0
    bad = torch.diag(torch.tensor([1.0, 2.0, -1.0, 4.0], dtype=F64))  # the leading 3x3 block is not PD
    assert torch.linalg.cholesky_ex(bad).info.item() == 3
    with pytest.raises(torch.linalg.LinAlgError):
        torch.linalg.cholesky(bad)
    S = _spd()
    upper_changed = S.clone()
    upper_changed[0, -1] = 1e3
    assert torch.equal(torch.linalg.cholesky(upper_changed), torch.linalg.cholesky(S))


@fact(
    "06",
    "thin-svd-shapes",
    "`full_matrices=False` returns the *thin* SVD, with $k = \\min(m, n)$ columns in `U` and rows in `Vh`",
)
def _():
    A = torch.randn(8, 5, dtype=F64)
    U, S, Vh = torch.linalg.svd(A)
    assert U.shape == (8, 8) and S.shape == (5,) and Vh.shape == (5, 5)  # the default: full_matrices=True
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    assert U.shape == (8, 5) and Vh.shape == (5, 5)
    U, S, Vh = torch.linalg.svd(A.T, full_matrices=False)
    assert U.shape == (5, 5) and Vh.shape == (5, 8)
    assert bool((S[:-1] >= S[1:]).all()) and bool((S >= 0).all())


@fact(
    "06",
    "eckart-young",
    "no matrix of rank $k$ is closer to $A$, and tells the error exactly",
)
def _():
    g = torch.Generator().manual_seed(3)
    A = torch.randn(7, 5, generator=g, dtype=F64)
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    for k in range(1, 5):
        A_k = U[:, :k] * S[:k] @ Vh[:k]
        best2, bestF = torch.linalg.matrix_norm(A - A_k, ord=2), torch.linalg.matrix_norm(A - A_k)
        torch.testing.assert_close(best2, S[k])
        torch.testing.assert_close(bestF, S[k:].square().sum().sqrt())
        for _ in range(200):  # random rank-k matrices, and small perturbations of the best one
            X = torch.randn(7, k, generator=g, dtype=F64) @ torch.randn(k, 5, generator=g, dtype=F64)
            near = (U[:, :k] + 0.01 * torch.randn(7, k, generator=g, dtype=F64)) * S[:k] @ Vh[:k]
            for cand in (X, near):
                assert torch.linalg.matrix_norm(A - cand, ord=2) >= best2 - 1e-12
                assert torch.linalg.matrix_norm(A - cand) >= bestF - 1e-12


@fact(
    "06",
    "pinv-is-svd",
    "The pseudo-inverse of the previous section is built from the SVD: $A^+ = V\\,\\mathrm{diag}(1/s)\\,U^T$, "
    "where singular values below a cutoff count as zero and get $0$ instead of $1/s$. The cutoff is `rtol` × "
    "$s_1$, with `rtol` = $\\max(m, n)\\,\\varepsilon$ by default.",
)
def _():
    ops = _ops(lambda: torch.linalg.pinv(_spd()))
    assert ops[:2] == ["linalg_pinv", "linalg_svd"]

    def by_svd(A, rtol):
        U, S, Vh = torch.linalg.svd(A, full_matrices=False)
        inv = torch.where(S > rtol * S[..., :1], 1 / S, torch.zeros_like(S))
        return Vh.mT * inv.unsqueeze(-2) @ U.mT

    g = torch.Generator().manual_seed(4)
    for A in (
        torch.randn(6, 4, generator=g, dtype=F64),
        torch.randn(3, 5, generator=g, dtype=F64),
        torch.randn(5, 2, generator=g, dtype=F64) @ torch.randn(2, 4, generator=g, dtype=F64),  # rank 2
    ):
        default_rtol = max(A.shape) * torch.finfo(A.dtype).eps
        torch.testing.assert_close(torch.linalg.pinv(A), by_svd(A, default_rtol))
    # the cutoff: a singular value just above rtol * s1 is inverted, one just below is dropped
    Q = torch.linalg.qr(torch.randn(3, 3, generator=g, dtype=F64)).Q
    for s3, kept in ((2e-3, True), (5e-4, False)):
        A = Q * torch.tensor([1.0, 0.5, s3], dtype=F64) @ Q.T
        P = torch.linalg.pinv(A, rtol=1e-3)
        assert (torch.linalg.matrix_norm(P, ord=2).item() > 100) == kept


@fact(
    "06",
    "assert-close-float64-tolerances",
    "its tolerances follow the dtype (for float64, `rtol` and `atol` of 1e-7), unlike `torch.allclose`'s one "
    "setting for every dtype.",
)
def _():
    from torch.testing._comparison import default_tolerances

    assert default_tolerances(torch.float64) == (1e-7, 1e-7)
    assert default_tolerances(torch.float32) != default_tolerances(torch.float64)
    one = torch.tensor([1.0], dtype=F64)
    near = torch.tensor([1.0 + 1e-6], dtype=F64)  # inside allclose's rtol=1e-5, outside 1e-7 + 1e-7
    assert torch.allclose(near, one)
    with pytest.raises(AssertionError):
        torch.testing.assert_close(near, one)


@fact(
    "06",
    "one-thread-work-runs-in-this-thread",
    "at one thread the work runs in this thread",
    rival="MKL's LAPACK or OpenMP keep threads of their own after torch.set_num_threads(1): the process would "
    "then spend CPU time outside the calling thread, and this thread's CPU time would leave part of the work out",
)
def _():
    # In a fresh Python: in a test worker, threads other tests left behind (a timer, a compile
    # worker's reader) also spend the process's CPU time (0.94 of it in the thread, CI, 3.12).
    import json
    import subprocess
    import sys

    script = """
import json, time, torch
torch.set_num_threads(1)
g = torch.Generator().manual_seed(0)
A = torch.randn(500, 500, dtype=torch.float64, generator=g)
S = A @ A.T + 500 * torch.eye(500, dtype=torch.float64)
torch.linalg.cholesky(S), torch.linalg.lu_factor(S)  # warm-up
thread, process = time.thread_time(), time.process_time()
for _ in range(10):
    torch.linalg.cholesky(S), torch.linalg.lu_factor(S), torch.linalg.solve(S, S[:, 0])
print(json.dumps([time.thread_time() - thread, time.process_time() - process]))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)
    thread, process = json.loads(done.stdout.strip().splitlines()[-1])
    assert process > 0.02 and thread >= 0.95 * process, (thread, process)
