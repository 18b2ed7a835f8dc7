"""Module 06 "Linear algebra": solve, residuals, lstsq, eigenvalues, pinv, tensordot, GFLOP/s."""

from __future__ import annotations

import torch

from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises import m06_cases as c
from torchcourse.grading.exercises import m06_cholesky as ch
from torchcourse.grading.exercises._inputs import randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises._types import python_float
from torchcourse.grading.exercises.m06_cases import CallsOnce, OneSolve
from torchcourse.grading.rules import Calls, Holds, NoLoop

solve_system = solution("06", "solve_system")


matmul_gflops = solution("06", "matmul_gflops")


residual_norm = solution("06", "residual_norm")


solve_rows = solution("06", "solve_rows")


fit_line = solution("06", "fit_line")


template_scores = solution("06", "template_scores")


eigenvalues_descending = solution("06", "eigenvalues_descending")


project = solution("06", "project")


spd_sqrt = solution("06", "spd_sqrt")


spd_solve = solution("06", "spd_solve")


rank_k = solution("06", "rank_k")


# ---- inputs -------------------------------------------------------------------------


def _well_conditioned(n, seed, dtype=torch.float64, batch=()):
    return (randn(*batch, n, n, seed=seed, dtype=torch.float64) + 3 * torch.eye(n, dtype=torch.float64)).to(dtype)


def _course_system():
    A = torch.tensor([[2.0, 3.0, -1.0], [1.0, -2.0, 8.0], [6.0, 1.0, -3.0]], dtype=torch.float64)
    return A, torch.tensor([5.0, 21.0, -1.0], dtype=torch.float64)


def _solve_cases():
    return [
        _course_system(),
        (_well_conditioned(5, 1), randn(5, seed=2, dtype=torch.float64)),
        (_well_conditioned(4, 3, torch.float32), randn(4, seed=4)),
    ]


def _residual_cases():
    A, b = _course_system()
    close = torch.tensor([1.01, 1.98, 3.0], dtype=torch.float64)
    A5 = _well_conditioned(5, 5)
    return [
        (A, close, b),
        (A5, randn(5, seed=6, dtype=torch.float64), randn(5, seed=7, dtype=torch.float64)),
        (_well_conditioned(3, 8, torch.float32), randn(3, seed=9), randn(3, seed=10)),
    ]


def _more_equations(args: tuple, k: int) -> tuple:
    """06.4's case k times larger both ways: A repeated k times down a block diagonal (still
    invertible), B with k times the right-hand sides, each k times as long; a loop over the rows of
    A or of B grows with it, one batched solve does not."""
    A, B = args
    return torch.block_diag(*[A] * k), B.repeat(k, k)


def _rows_cases():
    return [
        (_well_conditioned(3, 20), randn(5, 3, seed=21, dtype=torch.float64)),
        (_well_conditioned(4, 22), randn(4, 4, seed=23, dtype=torch.float64)),
        (_well_conditioned(2, 24), randn(1, 2, seed=25, dtype=torch.float64)),
    ]


def _line_cases():
    x1 = torch.linspace(0.0, 5.0, 12, dtype=torch.float64)
    y1 = 2.5 * x1 - 1.0 + 0.1 * randn(12, seed=30, dtype=torch.float64)
    x2 = randn(30, seed=31, dtype=torch.float64)
    y2 = -0.7 * x2 + 4.0 + randn(30, seed=32, dtype=torch.float64)
    x3 = torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64)
    x4 = torch.linspace(-1.0, 3.0, 9)  # float32: the result is float32 too ("the dtype of x")
    y4 = 0.5 * x4 + 2.0 + 0.05 * randn(9, seed=33)
    return [(x1, y1), (x2, y2), (x3, torch.tensor([1.0, 3.0, 5.0], dtype=torch.float64)), (x4, y4)]


def _symmetric(n, seed, batch=()):
    M = randn(*batch, n, n, seed=seed, dtype=torch.float64)
    return (M + M.mT) / 2


def _spd(n, seed, batch=()):
    M = randn(*batch, n, n, seed=seed, dtype=torch.float64)
    return M @ M.mT + n * torch.eye(n, dtype=torch.float64)


def _project_cases():
    low_rank = randn(5, 2, seed=51, dtype=torch.float64) @ randn(2, 3, seed=52, dtype=torch.float64)
    square_low_rank = randn(4, 2, seed=57, dtype=torch.float64) @ randn(2, 4, seed=58, dtype=torch.float64)
    return [
        (square_low_rank, randn(4, seed=59, dtype=torch.float64)),  # square, rank 2, not symmetric
        (randn(6, 2, seed=50, dtype=torch.float64), randn(6, seed=53, dtype=torch.float64)),
        (low_rank, randn(5, seed=54, dtype=torch.float64)),
        (_well_conditioned(4, 55), randn(4, seed=56, dtype=torch.float64)),
    ]


EXERCISES = [
    Exercise(
        "06.1",
        "Solve a linear system (warm-up)",
        solve_system,
        cases=_solve_cases,
        hints=[
            "torch.linalg.solve(A, b) returns the x with A @ x == b.",
            "Check your answer: A @ x should reproduce b.",
        ],
        wrong=[lambda A, b: A @ b, lambda A, b: torch.linalg.solve(A.T, b), lambda A, b: b @ torch.linalg.inv(A)],
    ),
    Exercise(
        "06.2",
        "GFLOP/s of a matrix product",
        matmul_gflops,
        cases=lambda: [(500, 2.29e-3), (1024, 0.015), (16, 2e-6), (5000, 2.21)],
        hints=[
            "The text counts the product as 2n³ operations: n³ multiply-adds, each a multiplication and an addition.",
            "GFLOP/s = operations / seconds / 1e9.",
        ],
        wrong=[
            lambda n, seconds: n**3 / seconds / 1e9,
            lambda n, seconds: 2 * n**2 / seconds / 1e9,
            lambda n, seconds: 2 * n**3 / seconds / 2**30,
            lambda n, seconds: torch.tensor(2 * n**3 / seconds / 1e9),  # a tensor, not a Python float
            lambda n, seconds: (2 * n - 1) * n * n / seconds / 1e9,  # another count than the text's 2n³
        ],
        rules=[Holds(python_float("the throughput"))],
    ),
    Exercise(
        "06.3",
        "How far from solved? The residual norm",
        residual_norm,
        cases=_residual_cases,
        hints=[
            "The residual is the vector A @ x - b: zero when x solves the system exactly.",
            "Its size is the Euclidean (2-)norm: torch.linalg.vector_norm. Return a Python float (.item()).",
        ],
        wrong=[
            lambda A, x, b: (A @ x - b).abs().max().item(),
            lambda A, x, b: ((A @ x - b) ** 2).sum().item(),
            lambda A, x, b: torch.linalg.vector_norm(x - b).item(),
            lambda A, x, b: torch.linalg.norm(A @ x - b),  # a 0-d tensor, not a Python float
        ],
        rules=[Holds(python_float("the norm"))],
    ),
    Exercise(
        "06.4",
        "One matrix, right-hand sides as rows",
        solve_rows,
        cases=_rows_cases,
        rules=[
            NoLoop(grow=_more_equations),
            Calls(require=("linalg_solve",), forbid=("inverse",), why="one call to torch.linalg.solve, no inverse"),
            OneSolve(),
        ],
        hints=[
            "solve(A, B) treats the *columns* of a 2-D B as right-hand sides.",
            "Your right-hand sides are the rows of B: turn them into columns (B.T), solve, and turn the "
            "solutions back into rows.",
        ],
        wrong=[
            lambda A, B: torch.linalg.solve(A, B),
            lambda A, B: torch.linalg.solve(A, B, left=False),
            lambda A, B: torch.linalg.solve(A.T, B.T).T,
            # a second solve against the identity: two calls
            lambda A, B: torch.linalg.solve(A, torch.linalg.solve(torch.eye(len(A), dtype=A.dtype), B.T)).T,
            # a token solve while lstsq does the work
            lambda A, B: (torch.linalg.solve(A, B[0]), torch.linalg.lstsq(A, B.T).solution.T)[1],
            # the inverse, built with solve(A, I)
            lambda A, B: B @ torch.linalg.solve(A, torch.eye(len(A), dtype=A.dtype)).T,
        ],
    ),
    Exercise(
        "06.5",
        "Fit a straight line with lstsq",
        fit_line,
        cases=_line_cases,
        # one point or none leaves the line undetermined: lstsq's answer is then not repeatable
        generated=False,
        rules=[Calls(require=("linalg_lstsq",), why="fit the line with torch.linalg.lstsq")],
        hints=[
            "Each point gives one equation slope * x_i + intercept = y_i: a design matrix with a column of "
            "x and a column of ones.",
            "torch.stack([x, torch.ones_like(x)], dim=1) is that matrix; lstsq wants y as a column "
            "(y.unsqueeze(-1)) and returns .solution of shape (2, 1).",
        ],
        wrong=[
            lambda x, y: torch.linalg.lstsq(x.unsqueeze(-1), y.unsqueeze(-1)).solution.squeeze(-1),
            lambda x, y: torch.linalg.lstsq(
                torch.stack([torch.ones_like(x), x], dim=1), y.unsqueeze(-1)
            ).solution.squeeze(-1),
            lambda x, y: torch.linalg.lstsq(torch.stack([x, torch.ones_like(x)], dim=1), y.unsqueeze(-1)).solution,
            lambda x, y: torch.linalg.lstsq(  # float64 whatever x's dtype
                torch.stack([x, torch.ones_like(x)], dim=1).double(), y.double().unsqueeze(-1)
            ).solution.squeeze(-1),
        ],
    ),
    Exercise(
        "06.6",
        "Score images against a template with tensordot",
        template_scores,
        cases=lambda: [
            (randn(4, 3, 5, seed=40), randn(3, 5, seed=41)),
            (randn(1, 2, 2, seed=42), randn(2, 2, seed=43)),
            (randn(6, 4, 4, seed=44, dtype=torch.float64), randn(4, 4, seed=45, dtype=torch.float64)),
        ],
        rules=[
            Calls(require=("tensordot",), why="compute the scores with one torch.tensordot"),
            CallsOnce("tensordot", why="one torch.tensordot scores every image at once"),
        ],
        hints=[
            "The score of image i is sum over all pixels (h, w) of images[i, h, w] * template[h, w].",
            "torch.tensordot(a, b, dims=k) sums over the last k dimensions of a and the first k of b.",
        ],
        wrong=[
            lambda images, template: images @ template.T,
            lambda images, template: (images * template).sum(),
            lambda images, template: torch.tensordot(images, template, dims=1),
            lambda images, template: torch.stack([torch.tensordot(im, template, 2) for im in images]),
            # a second tensordot, against an identity
            lambda images, template: torch.tensordot(
                torch.tensordot(images, template, 2), torch.eye(len(images), dtype=images.dtype), 1
            ),
        ],
        rtol=1e-4,
        atol=1e-5,
    ),
    Exercise(
        "06.7",
        "Eigenvalues of a symmetric matrix, largest first",
        eigenvalues_descending,
        cases=lambda: [
            (_symmetric(4, 60),),
            (_symmetric(6, 61),),
            (_symmetric(1, 62),),
            (_symmetric(5, 63, batch=(3,)),),
        ],
        hints=[
            "For a symmetric matrix use eigh or eigvalsh: real eigenvalues, in ascending order.",
            "Reverse the last dimension (flip(-1)), so batches of matrices work too.",
        ],
        wrong=[
            lambda S: torch.linalg.eigvalsh(S),
            lambda S: torch.linalg.eigvals(S),
            lambda S: torch.linalg.eigvalsh(S).flip(0),
        ],
    ),
    Exercise(
        "06.8",
        "Project a vector onto a column space",
        project,
        cases=_project_cases,
        hints=[
            "The projection of v is the vector A @ c closest to v: c is the least-squares solution of A c ≈ v.",
            "pinv(A) @ v gives that c for any A, even when its columns are not independent; then multiply by A.",
        ],
        wrong=[
            lambda A, v: A @ (A.T @ v),
            lambda A, v: torch.linalg.pinv(A) @ v,
            lambda A, v: A @ torch.linalg.pinv(A),
            # "a square A spans everything": not when its columns are dependent
            lambda A, v: v.clone() if A.shape[0] == A.shape[1] else A @ torch.linalg.pinv(A) @ v,
            # pinv(A) @ A projects onto the row space: the same as the column space only for a symmetric A
            lambda A, v: torch.linalg.pinv(A) @ A @ v if A.shape[0] == A.shape[1] else A @ torch.linalg.pinv(A) @ v,
        ],
    ),
    Exercise(
        "06.10",
        "Solve a symmetric positive-definite system with Cholesky",
        spd_solve,
        cases=ch.spd_cases,
        float64_truth=True,
        rules=[
            Calls(
                require_any=("cholesky",),
                forbid=("lu", "inverse", "lstsq", "linalg_lstsq", "aten::linalg_lstsq", "way out of torch"),
                why=(
                    "in torch, factorise S with torch.linalg.cholesky and solve with its factor: no LU, general "
                    "solver, inverse or NumPy"
                ),
            ),
            ch.FACTORISES_ONCE,
            ch.FromTheFactor(),
            ch.SolvesForB(),
        ],
        hints=[
            (
                "torch.linalg.cholesky(S) returns the lower-triangular L with S = L @ L.mT; it factorises a "
                "whole batch in one call."
            ),
            (
                "torch.cholesky_solve(B, L) solves with that factor (right-hand side first, factor second); "
                "or two torch.linalg.solve_triangular calls, with L and then L.mT (upper=True)."
            ),
        ],
        wrong=[
            ch.spd_lu,
            ch.spd_cholesky_inverse,
            ch.spd_per_column,
            ch.spd_matrix_not_factor,
            ch.spd_arguments_swapped,
            ch.spd_second_solve_with_L,
            ch.spd_upper_factor,
            ch.spd_inverse_by_cholesky_solve,
            ch.spd_factor_inverse,
            ch.spd_decoy_eigh,
            ch.spd_decoy_numpy_solve,
            ch.spd_numpy_solves_with_factor,
            ch.spd_numpy_factor_inverse,
            ch.spd_numpy_cholesky,
        ],
    ),
    Exercise(
        "06.9",
        "The square root of a positive-definite matrix (stretch)",
        spd_sqrt,
        cases=lambda: [(_spd(2, 70),), (_spd(4, 71),), (_spd(3, 72, batch=(2,)),)],
        rules=[Calls(require=("linalg_eigh",), why="build the square root from torch.linalg.eigh")],
        hints=[
            "S.sqrt() takes the square root of each element; you want the matrix R with R @ R == S.",
            "eigh gives S = V diag(w) V^T. Take the square roots of the eigenvalues and put the pieces back "
            "together: V diag(sqrt(w)) V^T.",
            "torch.diag_embed builds (batches of) diagonal matrices; .mT transposes the last two dimensions.",
        ],
        wrong=[
            lambda S: S.sqrt(),
            lambda S: torch.linalg.cholesky(S),
            lambda S: (lambda w, V: V @ torch.diag_embed(w.sqrt()) @ V)(*torch.linalg.eigh(S)),
        ],
    ),
    Exercise(
        "06.11",
        "The best rank-k approximation (stretch)",
        rank_k,
        cases=c.rank_cases,
        property=c.rank_property,
        domain=lambda A, k: 0 <= k <= min(A.shape[-2:]),  # the text's range of k
        hints=[
            (
                "torch.linalg.svd(A, full_matrices=False) gives U, S, Vh with A = U diag(S) Vh and S in "
                "descending order."
            ),
            (
                "Keep the first k singular values and their vectors: U[..., :k] scaled by S[..., :k], times "
                "Vh[..., :k, :]. U * S[..., None, :] scales the columns of U, in batches too."
            ),
        ],
        wrong=[
            c.rank_without_s,
            c.rank_smallest,
            c.rank_one_too_many,
            c.rank_old_svd_v_as_vh,
            c.rank_in_float64,
            c.rank_largest_entries,
            c.rank_first_matrix_spectrum,
            c.rank_through_gram,
        ],
    ),
]
