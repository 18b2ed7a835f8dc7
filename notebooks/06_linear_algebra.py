# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] tags=["course-nav"]
# *Module 06 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/06_linear_algebra.ipynb) · previous: [05 · Vectorisation and measuring speed](05_vectorisation.ipynb) · next: [07 · GPU offload](07_gpu_offload.ipynb)

# %% tags=["course-setup"] jupyter={"source_hidden": true}
# Course setup. On your own machine this cell installs nothing. On Google Colab it fetches
# the course and installs its helper package, torchcourse, once per session.
# Colab runtime: CPU is enough for this module.
import sys

course_ready = True
if "google.colab" in sys.modules:
    import os
    import shutil
    import subprocess

    home = os.environ.get("TORCHCOURSE_HOME", "/content/pytorch-course")
    repo = os.environ.get("TORCHCOURSE_REPO", "")
    if not os.path.isdir(home):
        if not repo:
            course_ready = False
            print(
                "Missing: the course's git address. Run os.environ['TORCHCOURSE_REPO'] = "
                "'<the course git URL>' in a cell, then this cell again."
            )
        else:
            git = ["git", "clone", "--quiet", "--depth", "1", repo, home]
            pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "-e", home]
            for step in (git, pip):
                done = subprocess.run(step, capture_output=True, text=True)
                if done.returncode:
                    course_ready = False
                    shutil.rmtree(home, ignore_errors=True)
                    why = (done.stderr.strip().splitlines() or ["no message"])[-1]
                    print(f"Missing: the course, not fetched from {repo} ({step[0]}: {why}). Run this cell again.")
                    break
    if course_ready:
        sys.path.insert(0, home)
        print("Colab: the course is in", home)
else:
    print("Local run: nothing to install.")
if course_ready:
    # A note on stderr when this torch is not 2.13.0 (the one the stored outputs were made with),
    # saying whether it is supported; an error naming what is missing when it is too old.
    from torchcourse.preflight import check_torch

    _ = check_torch()

# %% [markdown] tags=["outputs-stamp"]
# *Outputs made with torch 2.13.0+cpu on AMD EPYC (2 cores, CPU only), 2026-11-27.*

# %% [markdown]
# # 06 · Linear algebra
#
# Linear systems, least-squares fits, eigenvalues and matrix products are the core of
# scientific computing, and `torch.linalg` provides them all, with largely the same names as
# `numpy.linalg`, batched over leading dimensions and available on the GPU. In this notebook
# you solve systems one at a time and by the thousand, find out why you should almost
# never compute an inverse, fit a physical constant from noisy data, compute eigenvalues
# and check them, and measure how many billions of floating-point operations per second a
# matrix product reaches on your machine, against NumPy.
#
# **Objectives.** After this notebook you can:
# 1. solve one or a batch of linear systems with `torch.linalg.solve`, symmetric positive-definite
#    ones with a Cholesky factorisation, and check the answer;
# 2. explain why `solve` beats `inv` in accuracy and speed, and read `cond` as digits lost;
# 3. fit a model by least squares with `lstsq` and `pinv`, read a matrix through its SVD (best
#    low-rank approximations, `pinv`), and contract tensors with `tensordot` and `tensorsolve`;
# 4. compute eigenvalues with `eigh`, `eig` and `eigvals`, and verify `A v = λ v` without
#    depending on eigenvector signs or order;
# 5. measure matrix-multiply throughput in GFLOP/s against matrix size.
#
# **Prerequisites.** [04 · Dtypes](04_dtypes.ipynb) (float32 vs float64) and
# [05 · Vectorisation and measuring speed](05_vectorisation.ipynb) (timing, broadcasting).
#
# **Time.** 55 min teaching, 55 min exercises.

# %%
import math
import time

import matplotlib.pyplot as plt
import torch

from torchcourse import claim, format_seconds, gpu_skip_message, measure, pick_device, predict, reveal
from torchcourse.bench.workloads.matmul import gflops, matmul_flops, time_matmuls
from torchcourse.timing import in_fresh_process, interleaved, numpy_blas_threads

# Timings in this notebook use one thread (module 05 explains why); ALL_THREADS is
# what PyTorch would use by default.
ALL_THREADS = torch.get_num_threads()
torch.set_num_threads(1)


def same(actual, expected):
    """torch.testing.assert_close's verdict as True or False (module 04): tolerances from the dtype."""
    try:
        torch.testing.assert_close(actual, expected)
    except AssertionError:
        return False
    return True


# %% [markdown]
# ## Three equations, three unknowns
#
# $$2x + 3y - z = 5, \qquad x - 2y + 8z = 21, \qquad 6x + y - 3z = -1$$
#
# In matrix form this is $A\,\mathbf{x} = \mathbf{b}$: one row of `A` per equation, one column
# per unknown. `torch.linalg.solve(A, b)` factorises `A` into triangular pieces (an LU
# factorisation with row pivoting) and solves with those. We use `float64` here: a solver
# can only be as accurate as the numbers it is given (module 04).

# %%
A = torch.tensor(
    [
        [2.0, 3.0, -1.0],  # 2x + 3y - z
        [1.0, -2.0, 8.0],  # x - 2y + 8z
        [6.0, 1.0, -3.0],  # 6x + y - 3z
    ],
    dtype=torch.float64,
)
b = torch.tensor([5.0, 21.0, -1.0], dtype=torch.float64)
x = torch.linalg.solve(A, b)
print("x, y, z =", [round(v, 4) for v in x.tolist()])
print("A @ x == b:", same(A @ x, b))

# %% [markdown]
# Always check a solution by putting it back into the equations, as the last line does:
# `A @ x` should reproduce `b` up to rounding. The vector `A @ x - b` is the **residual**;
# its norm is the number to watch. `same(a, b)`, defined in the first cell, is module 04's
# `torch.testing.assert_close` as True or False: its tolerances follow the dtype (for float64,
# `rtol` and `atol` of 1e-7), unlike `torch.allclose`'s one setting for every dtype.
#
# ### A singular matrix need not raise
#
# The residual matters most when the matrix is singular. `[[1, 2, 3], [4, 5, 6], [7, 8, 9]]` has rank 2
# (the third row is twice the second minus the first), so `S x = b` has no unique solution, and for
# `b = (1, 0, 0)` no solution at all.
#
# **Predict 06.p1.** Does `torch.linalg.solve(S, b)` raise an error for this float64 matrix?
# Write True or False.

# %%
predict("06.p1", None)  # replace None with your prediction

# %%
S = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]], dtype=torch.float64)
b_s = torch.tensor([1.0, 0.0, 0.0], dtype=torch.float64)
try:
    x_s, info = torch.linalg.solve_ex(S, b_s)  # solve_ex: an info code instead of an exception
    raised = False
    rel_residual = ((S @ x_s - b_s).norm() / b_s.norm()).item()
    print("rank:", torch.linalg.matrix_rank(S).item(), "| info:", info.item(), "(0: LU met no zero pivot)")
    print("largest |x|: above 1e14:", x_s.abs().max().item() > 1e14)
    print("cond(S) above 1e15:", torch.linalg.cond(S).item() > 1e15)
    print(f"relative residual |S x - b| / |b| above 0.4: {rel_residual > 0.4}")
except RuntimeError:
    raised = True
    print("solve raised on this machine")
# by construction: b's distance to the range of S (the left null vector is (1, -2, 1)) is 1/sqrt(6)
claim(raised or rel_residual > 0.4, "no x brings the residual below 0.4: b is not in the range of S")
reveal(
    "06.p1",
    raised,
    why="LU raises only on an exactly zero pivot; in float64 rounding leaves a pivot of about 1e-16, so solve "
    "divides by it and returns numbers near 1e16 without a word. The residual and `cond` tell you.",
)

# %% [markdown]
# `solve` raised nothing: `torch.linalg.LinAlgError` comes only when the LU factorisation meets a pivot
# that is *exactly* zero, and rounding rarely leaves one. So check what you got: the residual
# `A @ x - b` (here at least 0.4 times `b`), `torch.linalg.cond(A)` (above 1e15 here: all of float64's
# digits lost), or `torch.linalg.solve_ex`, whose `info` is nonzero only where `solve` would raise. In a
# batch, one exactly singular matrix makes `solve` raise for the whole batch; `solve_ex` returns one `info`
# per matrix instead. For a rank-deficient system, `lstsq` or `pinv` (below) give the least-squares answer.
#
# ## Many systems at once
#
# Like every `torch.linalg` function, `solve` works on batches: a `(B, n, n)` stack of
# matrices and a `(B, n)` stack of right-hand sides give a `(B, n)` stack of solutions, all
# in one call. (A `b` of shape `(B, n)` counts as a batch of vectors because its shape is
# `A.shape[:-1]`; a `(..., n, k)` right-hand side means `k` columns per system.)

# %%
g = torch.Generator().manual_seed(0)
As = torch.randn(4, 3, 3, generator=g, dtype=torch.float64) + 3 * torch.eye(3, dtype=torch.float64)
bs = torch.randn(4, 3, generator=g, dtype=torch.float64)
xs = torch.linalg.solve(As, bs)
print("shapes:", tuple(As.shape), tuple(bs.shape), "->", tuple(xs.shape))
print("every A_i @ x_i == b_i:", same((As @ xs.unsqueeze(-1)).squeeze(-1), bs))
one_by_one = torch.stack([torch.linalg.solve(As[i], bs[i]) for i in range(4)])
print("same as solving one by one:", same(xs, one_by_one))

# %% [markdown]
# Several right-hand sides work too: one matrix against a `(n, k)` block of right-hand sides
# solves `k` systems with the same `A`, and the matrix is factorised only once (the profiler
# shows it further down).

# %%
B = torch.tensor([[5.0, 1.0], [21.0, 0.0], [-1.0, 0.0]], dtype=torch.float64)  # two columns
X = torch.linalg.solve(A, B)
print(X.round(decimals=6))
print("A @ X == B:", same(A @ X, B))

# %% [markdown]
# The batched call is also the vectorised one: module 05's lesson applies to solvers. Here
# are 2,000 small systems, solved in a Python loop and in one call:

# %%
# NBVAL_IGNORE_OUTPUT
many_A = torch.randn(2000, 3, 3, generator=g, dtype=torch.float64) + 3 * torch.eye(3, dtype=torch.float64)
many_b = torch.randn(2000, 3, generator=g, dtype=torch.float64)
t_loop = measure(lambda: [torch.linalg.solve(many_A[i], many_b[i]) for i in range(2000)], repeat=3, number=1)
t_batch = measure(lambda: torch.linalg.solve(many_A, many_b), repeat=5, budget=0.05)
batch_speedup = t_loop.min / t_batch.min
print(
    f"2,000 3x3 systems: loop {format_seconds(t_loop.min)}, one batched call {format_seconds(t_batch.min)}"
    f" ({batch_speedup:,.0f}x)"
)

# %%
# 2,000 Python-level calls (~10 µs of dispatch each) vs one batched kernel: >10x on any CPU.
claim(batch_speedup > 10, "one batched solve is more than 10x faster than the Python loop")

# %% [markdown]
# ## Solve, don't invert
#
# $\mathbf{x} = A^{-1}\mathbf{b}$ is how the algebra is written, and `torch.linalg.inv(A) @ b`
# computes it. It is slower and less accurate than `solve`. Accuracy first, on a famous
# hard case: the **Hilbert matrix** $H_{ij} = 1/(i + j + 1)$, whose columns are so nearly
# parallel that it is close to singular. We pick $\mathbf{x}_{true}$ = all ones, compute
# $\mathbf{b} = H\mathbf{x}_{true}$, and solve both ways.


# %%
def hilbert(n, dtype=torch.float64):
    i = torch.arange(n, dtype=dtype)
    return 1.0 / (i[:, None] + i[None, :] + 1)


print(hilbert(4))


# %%
def solve_both_ways(n):
    H = hilbert(n)
    x_true = torch.ones(n, dtype=torch.float64)
    b = H @ x_true
    x_solve = torch.linalg.solve(H, b)
    x_inv = torch.linalg.inv(H) @ b
    norm = torch.linalg.vector_norm
    return {
        "residual solve": norm(H @ x_solve - b).item(),
        "residual inv": norm(H @ x_inv - b).item(),
        "error solve": norm(x_solve - x_true).item(),
        "error inv": norm(x_inv - x_true).item(),
        "relative error solve": (norm(x_solve - x_true) / norm(x_true)).item(),
        "relative error inv": (norm(x_inv - x_true) / norm(x_true)).item(),
        "cond": torch.linalg.cond(H).item(),
    }


r10 = solve_both_ways(10)
print("cond(H_10) ≈", f"{r10['cond']:.1e}")
# Rounding, not timing: a backward-stable solve leaves a residual of a few eps (~1e-15) on any
# LAPACK; inv's grows with cond (1e13 here), about 1e11x above it on the machines tried.
claim(r10["residual solve"] < 1e-13, "solve's residual is at round-off level (below 1e-13)")
claim(r10["residual inv"] > 1e6 * r10["residual solve"], "inv's residual is over a million times larger")

# %% [markdown]
# The exact values depend on the CPU and the maths library, so the next cell prints them
# without asking you to match them digit for digit. Expect a residual near $10^{-15}$ for
# `solve` and many orders of magnitude more for `inv`:

# %%
# NBVAL_IGNORE_OUTPUT
for key, value in r10.items():
    print(f"{key:>20}: {value:.1e}")
smaller = "solve's" if r10["error solve"] < r10["error inv"] else "inv's"
print(f"On this run {smaller} error was the smaller one; both are bounded by cond × ε, see below.")

# %% [markdown]
# Two numbers, two lessons:
#
# * The **residual** $\|H\mathbf{x} - \mathbf{b}\|$ of `solve` sits at round-off level: the
#   answer satisfies the equations as well as float64 can express. `solve` is *backward
#   stable*: its answer is the exact solution of a system within rounding of yours. Forming
#   the inverse first adds errors that grow with how close to singular the matrix is.
# * The **error** $\|\mathbf{x} - \mathbf{x}_{true}\|$ is large for *both*: no method can
#   recover digits the problem does not determine. The **condition number**
#   `torch.linalg.cond(H)` says how much relative errors in the data can grow in the answer:
#   with `cond` ≈ $10^k$ you can lose up to about $k$ of float64's 16 significant digits.
#
# For a backward-stable method such as `solve`, the relative error
# $\|\mathbf{x} - \mathbf{x}_{true}\| / \|\mathbf{x}_{true}\|$ **is bounded by** about
# `cond × ε` (ε = 2.2e-16, the float64 machine epsilon): a worst case, not a forecast, and
# `solve` usually lands below it. The plot shows the bound and the errors across sizes, and
# the cell checks the bound at every size; `solve`'s residual (dotted blue) stays at round-off
# level throughout, while `inv`'s grows with `cond`. Once `cond × ε` passes 1 the bound promises
# nothing: every digit may be lost.

# %%
sizes_h = list(range(2, 14))
runs = [solve_both_ways(n) for n in sizes_h]
eps = torch.finfo(torch.float64).eps
fig, ax = plt.subplots(figsize=(6.5, 4))
ax.semilogy(sizes_h, [r["cond"] * eps for r in runs], "k--", label="cond(H) × ε (the bound)")
ax.semilogy(
    sizes_h, [max(r["relative error inv"], 1e-17) for r in runs], "o-", color="C3", label="rel. error, inv(H) @ b"
)
ax.semilogy(sizes_h, [max(r["relative error solve"], 1e-17) for r in runs], "o-", color="C0", label="rel. error, solve")
ax.semilogy(sizes_h, [max(r["residual inv"], 1e-17) for r in runs], "s:", color="C3", label="residual, inv(H) @ b")
ax.semilogy(sizes_h, [max(r["residual solve"], 1e-17) for r in runs], "s:", color="C0", label="residual, solve")
ax.set(
    xlabel="size n of the Hilbert matrix",
    ylabel="relative error / residual norm",
    title="Solving H x = b: solve vs inverse",
    ylim=(1e-17, 1e4),
)
ax.grid(alpha=0.3)
ax.legend(fontsize=8)
plt.show()
# Rounding: solve's error stayed under a fifth of cond × ε at every size on the machine tried.
claim(
    all(r["relative error solve"] <= r["cond"] * eps for r in runs),
    "solve's relative error stays below cond(H) × ε at every size",
)
claim(all(r["residual solve"] < 1e-13 for r in runs), "solve's residual stays at round-off level at every size")
claim(
    runs[-1]["residual inv"] > 1e3 * max(runs[0]["residual inv"], max(r["residual solve"] for r in runs)),
    "inv's residual grows with cond, by orders of magnitude above solve's round-off level",
    f"inv residual n={sizes_h[0]}: {runs[0]['residual inv']:.1e}, n={sizes_h[-1]}: {runs[-1]['residual inv']:.1e}",
)
hopeless = next(n for n, r in zip(sizes_h, runs) if r["cond"] * eps > 1)
print(f"cond(H) × ε passes 1 at n = {hopeless}: from there the bound allows a 100% error")

# %% [markdown]
# Speed: `solve` factorises once (about $\tfrac{2}{3}n^3$ FLOPs for the LU factorisation) and
# does two triangular solves ($2n^2$). `inv(A)` is, inside torch, `solve(A, I)`: the same
# factorisation, then the two triangular solves against all $n$ columns of the identity
# ($2n^3$), then your matrix–vector product: about $\tfrac{8}{3}n^3$ in all, four times the
# factorisation's arithmetic. The profiler lists the operations each call runs, and shows that
# `solve` with `k` right-hand sides factorises once:

# %% tags=["version-specific"]
from torchcourse.profiling import profile_memory


def linalg_ops(fn):
    """The torch.linalg operations fn() runs, in order, as the profiler records them."""
    events = profile_memory(fn).events()  # the profiler, with its log lines kept off your screen
    return [e.name.removeprefix("aten::") for e in events if e.name.startswith("aten::linalg_")]


M6, v6 = torch.randn(6, 6, generator=g, dtype=torch.float64), torch.ones(6, dtype=torch.float64)
for label, fn in [
    ("solve(A, b)", lambda: torch.linalg.solve(M6, v6)),
    ("solve(A, B), 4 columns", lambda: torch.linalg.solve(M6, torch.ones(6, 4, dtype=torch.float64))),
    ("inv(A)", lambda: torch.linalg.inv(M6)),
]:
    print(f"{label:<24}", " -> ".join(linalg_ops(fn)))

# %% [markdown]
# Arithmetic is not time: the factorisation and the triangular solves against many columns are
# different kernels and need not reach the same FLOP/s. The next cell times `solve` and
# `inv(A) @ b` on a 500×500 system, and the two parts of `inv` separately (`lu_factor`, then
# `lu_solve` against the identity), with their FLOP/s:

# %%
# NBVAL_IGNORE_OUTPUT
M500 = torch.randn(500, 500, generator=g, dtype=torch.float64)
v500 = torch.randn(500, generator=g, dtype=torch.float64)
t_solve = measure(lambda: torch.linalg.solve(M500, v500), repeat=7, budget=0.05)
t_inv = measure(lambda: torch.linalg.inv(M500) @ v500, repeat=7, budget=0.05)
LU, pivots = torch.linalg.lu_factor(M500)
I500 = torch.eye(500, dtype=torch.float64)
t_lu = measure(lambda: torch.linalg.lu_factor(M500), repeat=7, budget=0.05)
t_lus = measure(lambda: torch.linalg.lu_solve(LU, pivots, I500), repeat=7, budget=0.05)
print(f"solve:      {t_solve}")
print(f"inv(A) @ b: {t_inv}")
print(f"  lu_factor:           {format_seconds(t_lu.min):>8}, {2 / 3 * 500**3 / t_lu.min / 1e9:5.1f} GFLOP/s")
print(f"  lu_solve, 500 cols:  {format_seconds(t_lus.min):>8}, {2 * 500**3 / t_lus.min / 1e9:5.1f} GFLOP/s")
# the ratio from the two taking turns on one thread, in this thread's CPU time (time.thread_time):
# the moments another program holds the core are not counted
turns_solve, turns_inv = interleaved(
    [lambda: torch.linalg.solve(M500, v500), lambda: torch.linalg.inv(M500) @ v500],
    rounds=7,
    threads=1,
    clock=time.thread_time,
)
inv_ratio = turns_inv / turns_solve
print(f"inv took {inv_ratio:.1f}x solve's CPU time on this run (taking turns, best of 7), for 4x the arithmetic")

# %%
# inv does solve's factorisation plus 3x its arithmetic in matrix-matrix kernels: even at twice
# the factorisation's FLOP/s that is 2.5x its time, so 1.3x holds on any CPU at 1 thread.
claim(inv_ratio > 1.3, "inv(A) @ b is slower than solve")
agree = same(torch.linalg.solve(M500, v500), torch.linalg.inv(M500) @ v500)
print("same answer on this well-conditioned matrix:", agree)

# %% [markdown]
# Where the time ratio lands beside four depends on how fast your BLAS runs the triangular
# solves compared with the factorisation (the two GFLOP/s lines above); on a busy machine
# other programs interrupt either call and blur the `measure` lines (CPU time leaves those
# pauses out, which is why the ratio is taken in it). When you need to solve with the
# same matrix many times, do not keep an inverse either: keep its factorisation
# (`torch.linalg.lu_factor` once, `torch.linalg.lu_solve` per right-hand side), or pass all
# right-hand sides as columns of one `B`.
#
# ## Symmetric positive-definite systems: Cholesky
#
# Many matrices you solve with are **symmetric positive-definite** (SPD): $S = S^T$ and
# $\mathbf{v}^T S \mathbf{v} > 0$ for every nonzero $\mathbf{v}$. Covariance matrices, the Gram
# matrix $X^TX$ of independent columns, the normal equations of least squares and the stiffness
# matrices of physics are all SPD. Such a matrix factors as $S = LL^T$ with $L$ lower triangular,
# the **Cholesky** factorisation: no pivoting is needed, and symmetry halves the work, about
# $\tfrac{1}{3}n^3$ FLOPs against LU's $\tfrac{2}{3}n^3$. Then two triangular solves finish the
# job: $L\mathbf{y} = \mathbf{b}$, then $L^T\mathbf{x} = \mathbf{y}$.
#
# * `torch.linalg.cholesky(S)` returns $L$;
# * `torch.linalg.solve_triangular(L, B, upper=False)` solves with a triangular matrix (a
#   right-hand side `B` of shape `(n, k)`, columns as in `solve`); pass `L.mT` with `upper=True`
#   for the second solve;
# * `torch.cholesky_solve(B, L)` does both triangular solves in one call. Mind the order of its
#   arguments: the right-hand side comes first, the factor second.

# %%
gS = torch.Generator().manual_seed(6)
M5 = torch.randn(5, 5, generator=gS, dtype=torch.float64)
S5 = M5 @ M5.T + 5 * torch.eye(5, dtype=torch.float64)  # symmetric positive-definite
B5 = torch.randn(5, 2, generator=gS, dtype=torch.float64)  # two right-hand sides
L5 = torch.linalg.cholesky(S5)
print("L is lower triangular:", torch.equal(L5, L5.tril()), "| diagonal positive:", bool((L5.diagonal() > 0).all()))
torch.testing.assert_close(L5 @ L5.mT, S5)
Y5 = torch.linalg.solve_triangular(L5, B5, upper=False)  # L y = b
X_two = torch.linalg.solve_triangular(L5.mT, Y5, upper=True)  # L^T x = y
X_one = torch.cholesky_solve(B5, L5)  # the same two solves, one call
X_lu = torch.linalg.solve(S5, B5)
torch.testing.assert_close(X_two, X_lu)
torch.testing.assert_close(X_one, X_lu)
print("L @ L.T == S, and both Cholesky solves agree with solve: checked by assert_close")

# %% [markdown]
# `assert_close` (module 04) raises when two results differ by more than their dtype's
# tolerances, so the line above prints only when all three comparisons passed.
#
# `cholesky` is also a **test** of positive-definiteness: it fails on a matrix that is not.
# `torch.linalg.cholesky_ex` is the variant that returns an `info` code instead of raising:
#
# **Predict 06.p2.** Change one entry of `S5`'s *upper* triangle to 1000, so the matrix is no longer
# symmetric. What does `torch.linalg.cholesky` do with it? Write `"raises"`, `"same factor"` (as for `S5`)
# or `"other factor"`.

# %%
predict("06.p2", None)  # replace None with your prediction

# %%
not_pd = torch.tensor([[1.0, 2.0], [2.0, 1.0]], dtype=torch.float64)  # eigenvalues 3 and -1
print(
    "info for S5:",
    torch.linalg.cholesky_ex(S5).info.item(),
    "| info for [[1, 2], [2, 1]]:",
    torch.linalg.cholesky_ex(not_pd).info.item(),
)
upper_changed = S5.clone()
upper_changed[0, 4] = 1000.0  # only the upper triangle changed: no longer symmetric
try:
    outcome = "same factor" if torch.equal(torch.linalg.cholesky(upper_changed), L5) else "other factor"
except RuntimeError:
    outcome = "raises"
print("cholesky of the non-symmetric copy:", outcome)
reveal(
    "06.p2",
    outcome,
    choices=("raises", "same factor", "other factor"),
    why="the factor is built from the lower triangle alone, so the changed upper entry is never read.",
)

# %% [markdown]
# `torch.linalg.cholesky_ex` returns the factor and an `info` code instead of raising: 0 means success,
# k > 0 that the leading k×k block is not positive-definite. `cholesky` and `cholesky_ex` read only the
# lower triangle and never check symmetry: a non-symmetric matrix gives the factor of another one, without
# an error. Make sure your matrix is symmetric.

# %% [markdown]
# Half the FLOPs: does it take half the time? The next cell times the two factorisations of the
# same 500×500 SPD matrix, taking turns on one thread (`timing.interleaved`, best of 7 rounds). It
# counts this thread's CPU time (`time.thread_time`), not the wall clock: at one thread the work
# runs in this thread, and the moments another program holds the core are left out, so a busy
# laptop changes the ratio less (the wall-clock line beside it shows what the clock on the wall said).

# %%
# NBVAL_IGNORE_OUTPUT
M500s = torch.randn(500, 500, generator=gS, dtype=torch.float64)
S500 = M500s @ M500s.T + 500 * torch.eye(500, dtype=torch.float64)
factorisations = [lambda: torch.linalg.cholesky(S500), lambda: torch.linalg.lu_factor(S500)]
t_chol, t_lu500 = interleaved(factorisations, rounds=7, threads=1, clock=time.thread_time)
print(f"cholesky:  {format_seconds(t_chol):>8} CPU, {500**3 / 3 / t_chol / 1e9:5.1f} GFLOP/s (n³/3 FLOPs)")
print(f"lu_factor: {format_seconds(t_lu500):>8} CPU, {2 * 500**3 / 3 / t_lu500 / 1e9:5.1f} GFLOP/s (2n³/3 FLOPs)")
chol_ratio = t_lu500 / t_chol
print(f"LU took {chol_ratio:.1f}x Cholesky's CPU time on this run, for 2x the arithmetic")
wall_chol, wall_lu = interleaved(factorisations, rounds=7, threads=1)
print(f"on the wall clock: {wall_lu / wall_chol:.1f}x ({format_seconds(wall_chol)} and {format_seconds(wall_lu)})")

# %%
# Half the arithmetic, and no pivot search or row swaps. "Faster" is the margin claimed, the ratio
# itself is printed above: on the 2-core machine that made this, LU took 1.5x to 1.9x Cholesky's
# CPU time, quiet and with four other programs busy (on the wall clock, busy: 0.8x to 4.2x).
claim(chol_ratio > 1, "the Cholesky factorisation is faster than LU on the same SPD matrix")

# %% [markdown]
# The GFLOP/s lines say why the ratio need not be exactly 2: the two factorisations are different
# kernels and need not reach the same rate on your CPU. For an SPD matrix, use Cholesky; when you
# solve with it many times, keep `L` and call `cholesky_solve` for each new right-hand side.
#
# ## Least squares: more equations than unknowns
#
# Measurements rarely fit a model exactly. A ball thrown upwards has height
# $h(t) = h_0 + v_0 t - \tfrac{g}{2} t^2$; below are 21 noisy height readings (simulated,
# seeded, noise of 5 cm). The model is linear in the unknowns $(h_0, v_0, -g/2)$, so each
# reading is one equation of an overdetermined system $X\mathbf{c} \approx \mathbf{h}$ with
# columns $1, t, t^2$. `torch.linalg.lstsq` finds the $\mathbf{c}$ that minimises
# $\|X\mathbf{c} - \mathbf{h}\|$:

# %%
gen = torch.Generator().manual_seed(42)
t_obs = torch.linspace(0.0, 2.0, 21, dtype=torch.float64)
h_obs = 20.0 + 3.0 * t_obs - 9.81 / 2 * t_obs**2 + 0.05 * torch.randn(21, generator=gen, dtype=torch.float64)
X_design = torch.stack([torch.ones_like(t_obs), t_obs, t_obs**2], dim=1)  # (21, 3)
fit = torch.linalg.lstsq(X_design, h_obs.unsqueeze(-1))
c = fit.solution.squeeze(-1)
print(f"h0 ≈ {c[0].item():.2f} m, v0 ≈ {c[1].item():.2f} m/s, g ≈ {-2 * c[2].item():.2f} m/s²")
print("rank of X:", fit.rank.item())

# %%
t_fine = torch.linspace(0.0, 2.0, 200, dtype=torch.float64)
fig, ax = plt.subplots(figsize=(6, 3))
ax.plot(t_obs, h_obs, "o", label="noisy readings")
ax.plot(t_fine, c[0] + c[1] * t_fine + c[2] * t_fine**2, "-", label=f"least-squares fit (g ≈ {-2 * c[2].item():.2f})")
ax.set(xlabel="t (s)", ylabel="height (m)", title="Fitting a thrown ball's height with lstsq")
ax.grid(alpha=0.3)
ax.legend()
plt.show()

# %% [markdown]
# `lstsq` returns a named tuple: `solution`, `rank`, and (depending on the *driver*)
# `residuals` and `singular_values`. On the CPU the default driver is `"gelsy"` (QR with
# column pivoting), which leaves both empty; `driver="gelsd"` (SVD based) fills them.
# On CUDA only `"gels"` exists, which assumes the matrix has full rank.
#
# Two other ways to the same answer, and why `lstsq` is preferred:

# %%
c_pinv = torch.linalg.pinv(X_design) @ h_obs
c_normal = torch.linalg.solve(X_design.T @ X_design, X_design.T @ h_obs)
print("pinv gives the same c:", same(c_pinv, c))
print("normal equations give the same c:", same(c_normal, c))
cond_X, cond_XtX = torch.linalg.cond(X_design).item(), torch.linalg.cond(X_design.T @ X_design).item()
print(f"cond(X) ≈ {cond_X:.0f}, cond(XᵀX) ≈ {cond_XtX:.0f}: squared:", math.isclose(cond_XtX, cond_X**2, rel_tol=1e-6))

# %% [markdown]
# The normal equations $X^TX\mathbf{c} = X^T\mathbf{h}$ are tempting (a small square system)
# but square the condition number, so they lose twice as many digits; on this easy problem
# that does not show, on a hard one it does. The pseudo-inverse computes an SVD, more
# work than `lstsq` needs.
#
# ## The pseudo-inverse and rank-deficient matrices
#
# `pinv(A)` exists for any matrix, square or not, singular or not. For this 4×3 matrix, the
# second row is twice the first, and the third column is the sum of the first two, so its
# rank is 2. `solve` would fail on $A^TA$; `pinv` gives the least-squares solution of
# smallest norm, and satisfies the defining identity $A A^+ A = A$:

# %%
R = torch.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0]], dtype=torch.float64)
R_plus = torch.linalg.pinv(R)
print("rank:", torch.linalg.matrix_rank(R).item(), "| pinv shape:", tuple(R_plus.shape))
print("A A+ A == A:", same(R @ R_plus @ R, R))
P = R @ R_plus  # projects any vector onto the column space of R
print("P is a projection (P @ P == P):", same(P @ P, P), "| symmetric:", same(P, P.T))

# %% [markdown]
# `matrix_rank` and `pinv` decide which singular values count as zero with a tolerance
# (`rtol`, by default about `max(m, n) × ε` relative to the largest): rank is a numerical
# judgement, not an exact fact, once numbers are rounded.
#
# ## The singular value decomposition
#
# Every matrix, of any shape, factors as $A = U\,\mathrm{diag}(\mathbf{s})\,V^T$: the columns of
# $U$ and of $V$ are orthonormal, and the **singular values** $s_1 \ge s_2 \ge \dots \ge 0$
# measure how much $A$ stretches along each pair of directions. `torch.linalg.svd(A)` returns
# `U, S, Vh` with `Vh` $= V^T$. By default (`full_matrices=True`) `U` is square, $m \times m$,
# wasted work and memory for a tall matrix; `full_matrices=False` returns the *thin* SVD, with
# $k = \min(m, n)$ columns in `U` and rows in `Vh`, all that is needed to rebuild $A$:

# %%
gU = torch.Generator().manual_seed(11)
A8 = torch.randn(8, 5, generator=gU, dtype=torch.float64)
U_full, S_full, Vh_full = torch.linalg.svd(A8)
U8, S8, Vh8 = torch.linalg.svd(A8, full_matrices=False)
print("full_matrices=True: ", tuple(U_full.shape), tuple(S_full.shape), tuple(Vh_full.shape))
print("full_matrices=False:", tuple(U8.shape), tuple(S8.shape), tuple(Vh8.shape))
print("singular values:", S8.round(decimals=4).tolist())
torch.testing.assert_close(U8 * S8 @ Vh8, A8)  # U * S scales column j of U by s_j: U diag(s)
torch.testing.assert_close(U8.mT @ U8, torch.eye(5, dtype=torch.float64))
print("U diag(s) Vh == A and U has orthonormal columns: checked by assert_close")

# %% [markdown]
# `U * S` broadcasts `S` along the last dimension, so it multiplies column $j$ of `U` by $s_j$,
# which is `U @ torch.diag(S)` without building the diagonal matrix.
#
# ### The best low-rank approximation
#
# Keep only the first $k$ terms, $A_k = U_{:, :k}\,\mathrm{diag}(s_{:k})\,V^T_{:k, :}$: a matrix of
# rank $k$. The **Eckart–Young theorem** says no matrix of rank $k$ is closer to $A$, and tells the
# error exactly: in the 2-norm (the largest stretch, `matrix_norm(..., ord=2)`) it is the first
# singular value dropped, $s_{k+1}$, and in the Frobenius norm $\sqrt{s_{k+1}^2 + s_{k+2}^2 + \dots}$.
# Here it is for every $k$:

# %%
print(f"{'k':>2} {'rank':>5} {'‖A − A_k‖₂':>11} {'s_(k+1)':>9} {'‖A − A_k‖_F':>12} {'√(Σ dropped s²)':>16}")
for k in range(6):
    A_k = U8[:, :k] * S8[:k] @ Vh8[:k]
    two = torch.linalg.matrix_norm(A8 - A_k, ord=2)
    fro = torch.linalg.matrix_norm(A8 - A_k)
    s_next = S8[k] if k < 5 else torch.tensor(0.0, dtype=torch.float64)
    tail = S8[k:].square().sum().sqrt()
    torch.testing.assert_close(two, s_next, atol=1e-12, rtol=1e-12)
    torch.testing.assert_close(fro, tail, atol=1e-12, rtol=1e-12)
    rank = torch.linalg.matrix_rank(A_k).item()
    print(f"{k:>2} {rank:>5} {two.item():>11.4f} {s_next.item():>9.4f} {fro.item():>12.4f} {tail.item():>16.4f}")

# %% [markdown]
# Each row passed `assert_close` with tolerances of 1e-12, far tighter than the defaults, because
# these are float64 values of size about 1 that went through a handful of operations. A matrix
# whose singular values fall quickly is well described by a few terms: that is how an image, a table
# of measurements or a layer of weights is compressed, $k(m + n + 1)$ numbers instead of $mn$.
# The plot shows it for a smooth 60×80 "image" (a bump and a wave, sampled on a grid): its
# singular values fall by orders of magnitude within a dozen terms, and the error of every rank-$k$
# approximation sits on the next singular value, as Eckart–Young says.

# %%
ys, xs_grid = torch.meshgrid(
    torch.linspace(-1, 1, 60, dtype=torch.float64), torch.linspace(-1, 1, 80, dtype=torch.float64), indexing="ij"
)
image = 1 / (1 + 8 * (xs_grid**2 + ys**2)) + 0.3 * torch.sin(4 * xs_grid * ys)
U_img, S_img, Vh_img = torch.linalg.svd(image, full_matrices=False)
ks = list(range(16))
errors_img = [torch.linalg.matrix_norm(image - U_img[:, :k] * S_img[:k] @ Vh_img[:k], ord=2) for k in ks]
torch.testing.assert_close(torch.stack(errors_img), S_img[: len(ks)], rtol=1e-9, atol=1e-12 * S_img[0].item())
print(f"‖A − A_k‖₂ == s_(k+1) for k = 0 to {ks[-1]}: checked by assert_close")
k_small = next(k for k in ks if S_img[k] < 1e-3 * S_img[0])
print(f"from k = {k_small} the error is below 0.1% of s_1: {k_small * (60 + 80 + 1)} numbers instead of {60 * 80}")
fig, (ax_img, ax_s) = plt.subplots(1, 2, figsize=(9, 3.2))
ax_img.imshow(image, cmap="viridis")
ax_img.set(title="the 60×80 matrix as an image", xticks=[], yticks=[])
ax_s.semilogy(range(1, len(ks) + 1), S_img[: len(ks)], "o-", label="singular value $s_{k+1}$")
ax_s.semilogy(range(1, len(ks) + 1), [max(e.item(), 1e-17) for e in errors_img], "x", ms=9, label="‖A − A_k‖₂")
ax_s.set(xlabel="k + 1", ylabel="value", title="Rank-k error = next singular value")
ax_s.grid(alpha=0.3, which="both")
ax_s.legend(fontsize=8)
plt.show()

# %% [markdown]
# ### `pinv` is an SVD
#
# The pseudo-inverse of the previous section is built from the SVD: $A^+ = V\,\mathrm{diag}(1/s)\,U^T$,
# where singular values below a cutoff count as zero and get $0$ instead of $1/s$. The cutoff is
# `rtol` × $s_1$, with `rtol` = $\max(m, n)\,\varepsilon$ by default. The profiler shows the
# SVD inside `pinv`, and a few lines rebuild `pinv(R)` for the rank-2 matrix `R`:

# %% tags=["version-specific"]
print(" -> ".join(linalg_ops(lambda: torch.linalg.pinv(R))))

# %%
U_R, S_R, Vh_R = torch.linalg.svd(R, full_matrices=False)
cutoff = max(R.shape) * torch.finfo(R.dtype).eps * S_R[0]
inv_S = torch.where(S_R > cutoff, 1 / S_R, torch.zeros_like(S_R))
R_plus_mine = Vh_R.mT * inv_S @ U_R.mT  # V diag(1/s) U^T, small s dropped
print(
    "kept singular values:",
    int((S_R > cutoff).sum()),
    "of",
    S_R.numel(),
    "| the smallest is below 1e-14:",
    S_R[-1].item() < 1e-14,
)
torch.testing.assert_close(R_plus_mine, R_plus)
print("V diag(1/s) U^T with the cutoff == pinv(R): checked by assert_close")
no_cutoff = Vh_R.mT * (1 / S_R) @ U_R.mT
print("without the cutoff, entries blow up (above 1e10, or not finite):", not no_cutoff.abs().max().item() <= 1e10)

# %% [markdown]
# Without the cutoff, $1/s_3$ of a singular value that is zero up to rounding blows the result up:
# the cutoff is what makes `pinv` (and `matrix_rank`, which counts the singular values above the
# same kind of cutoff) a numerical judgement.
#
# ## Eigenvalues: `eigh`, `eig` and `eigvals`
#
# For a **symmetric** (or Hermitian) matrix use `eigh`: the eigenvalues are real, come back
# in ascending order, and the eigenvectors are orthonormal. A classic: the second-difference
# matrix (2 on the diagonal, -1 beside it), whose eigenvalues are known exactly,
# $2 - 2\cos(k\pi/(n+1))$. Like `cholesky`, `eigh` reads only the lower triangle (`UPLO="L"`) and
# never checks symmetry: given a non-symmetric matrix it silently returns the eigenvalues of another one.

# %%
n = 5
L = (
    2 * torch.eye(n, dtype=torch.float64)
    - torch.diag(torch.ones(n - 1, dtype=torch.float64), 1)
    - torch.diag(torch.ones(n - 1, dtype=torch.float64), -1)
)
evals, evecs = torch.linalg.eigh(L)
k = torch.arange(1, n + 1, dtype=torch.float64)
print("eigenvalues:", evals.round(decimals=4))
print("match the formula:", same(evals, 2 - 2 * torch.cos(k * math.pi / (n + 1))))
print("L V == V diag(λ):", same(L @ evecs, evecs * evals))
print("V is orthonormal:", same(evecs.T @ evecs, torch.eye(n, dtype=torch.float64)))
skewed = L.clone()
skewed[0, 4] = 7.0  # upper triangle only: not symmetric any more
print("eigh ignores the upper triangle:", same(torch.linalg.eigh(skewed).eigenvalues, evals))

# %% [markdown]
# Notice what is *not* printed: the eigenvectors themselves. If `v` is an eigenvector, so is
# `-v`, and different libraries, versions or CPUs may return either. Check properties
# (`A V = V Λ`, orthonormality), never the raw signs.
#
# A **general** matrix can have complex eigenvalues, so `eig` and `eigvals` always return a
# complex dtype, in no guaranteed order. The companion matrix of a polynomial has the
# polynomial's roots as eigenvalues (this is how `numpy.roots` works). For
# $p(x) = x^3 - 4x^2 + 9x - 10 = (x - 2)(x^2 - 2x + 5)$ the roots are $2$ and $1 \pm 2i$.
#
# **Predict 06.p3.** What dtype does `torch.linalg.eigvals` return for a real float64 matrix?
# Write one of `"float64"`, `"complex64"`, `"complex128"`.

# %%
predict("06.p3", None)  # replace None with your prediction

# %%
C = torch.tensor([[4.0, -9.0, 10.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype=torch.float64)
lam = torch.linalg.eigvals(C)
print("dtype:", lam.dtype)
reveal(
    "06.p3",
    lam.dtype,
    choices=("float64", "complex64", "complex128"),
    why="a real matrix can have complex eigenvalues, so eig and eigvals always return the complex dtype of the "
    "input's precision, even when every eigenvalue is real.",
)


def sorted_rounded(values, digits=6):
    """Complex values as a sorted list, rounded, with -0.0 turned into 0.0: stable to print."""
    out = [complex(round(z.real, digits) + 0.0, round(z.imag, digits) + 0.0) for z in values.tolist()]
    return sorted(out, key=lambda z: (z.real, z.imag))


print("eigenvalues:", sorted_rounded(lam))
lam2, V2 = torch.linalg.eig(C)
print("C V == V diag(λ):", same(C.to(V2.dtype) @ V2, V2 * lam2))

# %% [markdown]
# `eig` on a symmetric matrix works but wastes the symmetry: it returns complex tensors with
# zero imaginary parts, and eigenvectors of length 1 that are not guaranteed to be orthogonal
# (where an eigenvalue repeats, they usually are not). `eigvalsh`/`eigvals`
# skip the eigenvectors when you need only the values.
#
# ## `tensordot` and `tensorsolve` (optional)
#
# A matrix product sums over one shared index. `torch.tensordot(a, b, dims=k)` sums over the
# last `k` dimensions of `a` and the first `k` of `b`, for tensors of any number of
# dimensions: reshape both to matrices, multiply, reshape back. `dims` can also name the
# dimensions to contract, as two lists.

# %%
a3 = torch.arange(24.0).reshape(2, 3, 4)
b3 = torch.arange(60.0).reshape(3, 4, 5)
c2 = torch.tensordot(a3, b3, dims=2)  # sum over the shared (3, 4)
print(tuple(c2.shape), torch.equal(c2, a3.reshape(2, 12) @ b3.reshape(12, 5)))
c_named = torch.tensordot(a3, b3, dims=([1, 2], [0, 1]))
print(
    "same with named dims:",
    torch.equal(c2, c_named),
    "| as einsum:",
    torch.equal(c2, torch.einsum("ijk,jkl->il", a3, b3)),
)

# %% [markdown]
# `torch.linalg.tensorsolve(T, B)` inverts that: it finds `X` with
# `tensordot(T, X, dims=X.ndim) == B`. Here `T` is a linear map from 2×3 grids to 2×3
# grids, stored as a `(2, 3, 2, 3)` tensor; underneath it is a 6×6 `solve`.

# %%
T = torch.randn(2, 3, 2, 3, generator=g, dtype=torch.float64) + torch.eye(6, dtype=torch.float64).reshape(2, 3, 2, 3)
B_grid = torch.randn(2, 3, generator=g, dtype=torch.float64)
X_grid = torch.linalg.tensorsolve(T, B_grid)
print("X shape:", tuple(X_grid.shape))
print("tensordot(T, X) == B:", same(torch.tensordot(T, X_grid, dims=X_grid.ndim), B_grid))
X_flat = torch.linalg.solve(T.reshape(6, 6), B_grid.reshape(6))
print("same as a 6x6 solve:", same(X_grid, X_flat.reshape(2, 3)))

# %% [markdown]
# ## How fast is a matrix product? (optional)
#
# An $n \times n$ by $n \times n$ product does $n^3$ multiplications and about as many additions:
# **$2n^3$ floating-point operations** (FLOPs). Divide by the time to get FLOP/s. It touches
# only $3n^2$ numbers (reads `A` and `B`, writes the result): $2n^3$ operations on $12n^2$ bytes
# of float32 is $n/6$ FLOPs per byte, 170 at $n = 1024$, so for large $n$ the product is limited
# by arithmetic, not memory, and its FLOP/s is the best your CPU does with this library: the
# *matmul limit* to hold other compute-bound kernels against. The published figures (M.-H. Burle's webinar,
# 2022, a laptop: [docs/reference-figures.md](../docs/reference-figures.md), section C) become:

# %%
published = {("CPU", 500): 2.29e-3, ("GPU", 500): 108.02e-6, ("CPU", 5000): 2.21, ("GPU", 5000): 57.88e-3}
for (where, n_pub), seconds in published.items():
    print(
        f"{where} {n_pub}x{n_pub}: {format_seconds(seconds):>9} -> {gflops(n_pub, seconds):7,.0f} GFLOP/s"
        f"  ({matmul_flops(n_pub) / 1e9:g} GFLOP)"
    )

# %% [markdown]
# Now this machine, float32 (torch's default), for torch and for NumPy on the same arrays,
# one thread each, with the course's workload `torchcourse/bench/workloads/matmul.py` (the
# benchmark uses the same module). Float64 is added for torch: twice the bytes per number
# and half as many per vector instruction.
#
# One thread each is easy to ask of torch (`torch.set_num_threads(1)`, at any time) and hard
# to ask of NumPy. NumPy hands a product to a BLAS library (OpenBLAS in pip's NumPy on Linux
# and Windows, Apple's Accelerate on macOS), which reads its thread count from an environment
# variable (`OPENBLAS_NUM_THREADS`, `VECLIB_MAXIMUM_THREADS`) once, when it is loaded. By now
# NumPy is loaded (`import torch` imports it), and on Colab it was loaded before your first
# cell ran, so setting the variable here would change nothing. Ask the library itself:

# %%
# NBVAL_IGNORE_OUTPUT
print("NumPy's BLAS threads in this kernel:", numpy_blas_threads() or "unknown (this BLAS does not say)")

# %% [markdown]
# The sure way is a fresh Python process that starts with the variables set.
# `torchcourse.timing.in_fresh_process` does that: it runs a function in a new process with
# every thread pool sized to one, and reports the thread counts that were really in effect
# there. The float32 table (torch and NumPy) is timed that way; torch's float64 column here,
# on one thread too.

# %%
# NBVAL_IGNORE_OUTPUT
sizes_mm = [16, 32, 64, 128, 256, 500, 1024]
fresh = in_fresh_process(time_matmuls, sizes_mm, repeat=7, budget=0.01, threads=1)
rows32 = fresh.value
rows64 = time_matmuls(sizes_mm, dtype=torch.float64, numpy=False, repeat=7, budget=0.01)
print(f"{'n':>5} {'torch f32':>10} {'NumPy f32':>10} {'torch f64':>10}   torch f32 time: min / median")
for r32, r64 in zip(rows32, rows64):
    print(
        f"{r32.n:>5} {r32.torch_gflops:>10.1f} {r32.numpy_gflops:>10.1f} {r64.torch_gflops:>10.1f}"
        f"   {format_seconds(r32.torch.min)} / {format_seconds(r32.torch.median)}"
    )
print("(GFLOP/s from the min of 7 repeats, one thread)")
big32, big64 = rows32[-1], rows64[-1]
print(
    f"At n = {big32.n}: NumPy reached {big32.numpy_gflops / big32.torch_gflops:.0%} of torch's float32 rate,"
    f" float64 {big64.torch_gflops / big32.torch_gflops:.0%} of it."
)

# %%
# by construction: thread counts read back from the libraries
claim(fresh.torch_threads == 1, "torch's columns ran on one thread")
if fresh.numpy_blas_threads is None:
    print("NumPy's BLAS does not report its thread count here; it started with its thread variables set to 1.")
else:
    claim(fresh.numpy_blas_threads == 1, "NumPy's BLAS ran on one thread in the fresh process")

# %%
fig, ax = plt.subplots(figsize=(6.5, 4))
ax.semilogx(sizes_mm, [r.torch_gflops for r in rows32], "o-", label="torch float32")
ax.semilogx(sizes_mm, [r.numpy_gflops for r in rows32], "s--", label="NumPy float32")
ax.semilogx(sizes_mm, [r.torch_gflops for r in rows64], "^-", label="torch float64")
ax.axhline(gflops(500, 2.29e-3), color="gray", linestyle=":", label="published laptop CPU, 500x500")
ax.set(
    xlabel="matrix size n (n x n @ n x n)",
    ylabel="GFLOP/s (2n³ / time)",
    title="Matrix-multiply throughput, one thread",
    ylim=(0, None),
)
ax.grid(alpha=0.3, which="both")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# Read the curve from the left. Small products are dominated by the fixed cost of a call,
# so their GFLOP/s is low. On a quiet machine the throughput then climbs and levels off, from
# a few hundred onwards: that plateau is one core's matmul limit. torch and NumPy both hand the product to
# an optimised BLAS library (on x86, torch's CPU wheel uses Intel's oneMKL; pip's NumPy uses
# OpenBLAS on Linux and Windows), so at large sizes they land in the same range (the line under
# the table gives this run's ratio); at small sizes the fixed cost per call decides. At large
# sizes float64 runs at about half of float32's rate: each number is twice as wide, so one
# vector instruction works on half as many. At the smallest sizes the fixed cost hides that
# difference.
#
# On a busy machine any repeat can be paused while the operating system runs other programs,
# and a wall clock counts the pause: the curve comes out lower and ragged. A median far above
# the min in the table is the sign; rerun the cell when the machine is quiet to see the plateau.
#
# The published laptop CPU reached about 110 GFLOP/s, most likely on all its cores. With all
# threads here (on a busy machine this can be slower, module 05):

# %%
# NBVAL_IGNORE_OUTPUT
torch.set_num_threads(ALL_THREADS)
a_big, b_big = torch.randn(1024, 1024), torch.randn(1024, 1024)
t_all = measure(lambda: a_big @ b_big, repeat=3, budget=0.05)
torch.set_num_threads(1)
print(f"torch float32, n=1024, {ALL_THREADS} threads: {gflops(1024, t_all.min):.1f} GFLOP/s ({t_all})")

# %% [markdown]
# A GPU has thousands of arithmetic units: the published laptop GPU was 21x faster than its
# CPU at 500x500 and 38x at 5000x5000. Module 07 times this in detail; the next cell runs the
# same workload on the GPU when there is one.

# %%
# NBVAL_IGNORE_OUTPUT
device = pick_device()
message = gpu_skip_message("the matmul throughput on the GPU")
if message:
    print(message)
else:
    for r in time_matmuls([500, 1024, 2048, 4096], device=device):
        print(f"GPU {r.n}x{r.n} float32: {format_seconds(r.torch.min)}, {r.torch_gflops:,.0f} GFLOP/s")

# %% [markdown]
# ## Common mistakes
#
# **Trusting `solve` to refuse a singular matrix.** It raises `torch.linalg.LinAlgError` only when LU
# meets an exactly zero pivot, as here, where every step is exact; the rank-2 `S` above got numbers
# near 1e16 and no error. Check the residual or `solve_ex`'s `info`, and use `lstsq` or `pinv` for a
# rank-deficient system:

# %% tags=["raises-exception"]
torch.linalg.solve(torch.tensor([[1.0, 2.0], [2.0, 4.0]]), torch.tensor([1.0, 2.0]))

# %% [markdown]
# **Mixing dtypes.** `solve` does not promote: a float64 matrix with a float32 right-hand side
# is an error, not a silent conversion.

# %% tags=["raises-exception"]
torch.linalg.solve(A, torch.tensor([5.0, 21.0, -1.0]))

# %% [markdown]
# **A right-hand side of the wrong length.** The number of rows of `b` must equal the size of `A`:

# %% tags=["raises-exception"]
torch.linalg.solve(A, torch.ones(4, dtype=torch.float64))

# %% [markdown]
# **`*` is not `@`.** `A * x` multiplies element by element and broadcasts `x` along the
# rows: no error, a `(3, 3)` matrix instead of a vector.

# %%
print("A * x has shape", tuple((A * x).shape), "| A @ x has shape", tuple((A @ x).shape))

# %% [markdown]
# **Printing eigenvectors or unsorted `eig` output.** Signs and order can change between
# machines; sort and round eigenvalues, and check eigenvectors through `A v = λ v`.
#
# ## Key points
#
# * `torch.linalg.solve(A, b)` solves one system or a batch; check with the residual
#   `A @ x - b`. Batched calls are the vectorised way to solve many small systems.
# * Do not compute `inv(A) @ b`: it is slower and, on ill-conditioned matrices, far less
#   accurate. `cond(A)` ≈ $10^k$ means about $k$ digits lost, whatever the method.
# * For a symmetric positive-definite matrix, `cholesky` (n³/3 FLOPs, half of LU's) then
#   `cholesky_solve(B, L)` or two `solve_triangular` calls; `cholesky_ex` tests positive-definiteness.
# * `svd(A, full_matrices=False)` gives the thin SVD; keeping k terms gives the best rank-k
#   approximation, with 2-norm error s_(k+1) (Eckart–Young). `pinv` is V diag(1/s) Uᵀ with small s dropped.
# * `lstsq` fits overdetermined systems; `pinv` handles any matrix, rank-deficient too;
#   avoid the normal equations, they square the condition number.
# * `eigh` for symmetric matrices (real, ascending, orthonormal vectors); `eig`/`eigvals`
#   otherwise (complex, unordered). Test `A V = V Λ`, not signs.
# * A matmul does $2n^3$ FLOPs; GFLOP/s rises with size to the machine's peak. Published: a
#   laptop CPU at 500x500 in 2.29 ms, its GPU in 108 µs.
# * A BLAS library reads its thread count when it loads: to time NumPy on one thread, start a
#   fresh process with `OPENBLAS_NUM_THREADS=1`, and check the count in effect.
#
# ## Further reading
#
# * [`torch.linalg.solve`](https://docs.pytorch.org/docs/stable/generated/torch.linalg.solve.html)
#   and [`torch.linalg.lstsq`](https://pytorch.org/docs/stable/generated/torch.linalg.lstsq.html)
#   in the PyTorch reference: batching and broadcasting rules, the `lstsq` drivers and which
#   one to choose.
# * [`torch.linalg.cholesky`](https://docs.pytorch.org/docs/stable/generated/torch.linalg.cholesky.html),
#   [`torch.cholesky_solve`](https://docs.pytorch.org/docs/stable/generated/torch.cholesky_solve.html) and
#   [`torch.linalg.svd`](https://docs.pytorch.org/docs/stable/generated/torch.linalg.svd.html) (with the
#   notes on `full_matrices`), and [`torch.linalg.pinv`](https://docs.pytorch.org/docs/stable/generated/torch.linalg.pinv.html)
#   for its cutoff.
# * [Numerical accuracy](https://pytorch.org/docs/1.12/notes/numerical_accuracy.html), PyTorch's
#   note on floating-point results, batched computations and extremal values (1.12 edition).
# * [docs/reference-figures.md](../docs/reference-figures.md), section C: the published laptop
#   matmul times quoted here, with their source and hardware.

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 23 statements of this lesson are tested facts; all pass on torch 2.13.0. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“<code>inv(A)</code> is, inside torch, <code>solve(A, I)</code>”</td><td>✓</td></tr>
# <tr><td>“solves <code>k</code> systems with the same <code>A</code>, and the matrix is factorised only once”</td><td>✓</td></tr>
# <tr><td>“(A <code>b</code> of shape <code>(B, n)</code> counts as a batch of vectors because its shape is <code>A.shape[:-1]</code>; a <code>(..., n, k)</code> right-hand side means <code>k</code> columns per system.)”</td><td>✓</td></tr>
# <tr><td>“On the CPU the default driver is <code>&quot;gelsy&quot;</code> (QR with column pivoting), which leaves both empty; <code>driver=&quot;gelsd&quot;</code> (SVD based) fills them.”</td><td>✓</td></tr>
# <tr><td>“For a symmetric (or Hermitian) matrix use <code>eigh</code>: the eigenvalues are real, come back in ascending order, and the eigenvectors are orthonormal”</td><td>✓</td></tr>
# <tr><td>“A general matrix can have complex eigenvalues, so <code>eig</code> and <code>eigvals</code> always return a complex dtype”</td><td>✓</td></tr>
# <tr><td>“underneath it is a 6×6 <code>solve</code>”</td><td>✓</td></tr>
# <tr><td>“The pseudo-inverse computes an SVD”</td><td>✓</td></tr>
# <tr><td>“<code>matrix_rank</code> and <code>pinv</code> decide which singular values count as zero with a tolerance (<code>rtol</code>, by default about <code>max(m, n) × ε</code> relative to the largest)”</td><td>✓</td></tr>
# <tr><td>“<code>solve</code> does not promote: a float64 matrix with a float32 right-hand side is an error, not a silent conversion.”</td><td>✓</td></tr>
# <tr><td>“It raises <code>torch.linalg.LinAlgError</code> only when LU meets an exactly zero pivot”</td><td>✓</td></tr>
# <tr><td>“In a batch, one exactly singular matrix makes <code>solve</code> raise for the whole batch; <code>solve_ex</code> returns one <code>info</code> per matrix instead.”</td><td>✓</td></tr>
# <tr><td>“no x brings the residual below 0.4: b is not in the range of S”</td><td>✓</td></tr>
# <tr><td>“<code>eigh</code> reads only the lower triangle (<code>UPLO=&quot;L&quot;</code>) and never checks symmetry”</td><td>✓</td></tr>
# <tr><td>“always return a complex dtype”</td><td>✓</td></tr>
# <tr><td>“Such a matrix factors as $S = LL^T$ with $L$ lower triangular, the Cholesky factorisation: no pivoting is needed”</td><td>✓</td></tr>
# <tr><td>“<code>torch.cholesky_solve(B, L)</code> does both triangular solves in one call. Mind the order of its arguments: the right-hand side comes first, the factor second.”</td><td>✓</td></tr>
# <tr><td>“<code>torch.linalg.cholesky_ex</code> returns the factor and an <code>info</code> code instead of raising: 0 means success, k &gt; 0 that the leading k×k block is not positive-definite. <code>cholesky</code> and <code>cholesky_ex</code> read only the lower triangle and never check symmetry”</td><td>✓</td></tr>
# <tr><td>“<code>full_matrices=False</code> returns the thin SVD, with $k = \min(m, n)$ columns in <code>U</code> and rows in <code>Vh</code>”</td><td>✓</td></tr>
# <tr><td>“no matrix of rank $k$ is closer to $A$, and tells the error exactly”</td><td>✓</td></tr>
# <tr><td>“The pseudo-inverse of the previous section is built from the SVD: $A^+ = V\,\mathrm{diag}(1/s)\,U^T$, where singular values below a cutoff count as zero and get $0$ instead of $1/s$. The cutoff is <code>rtol</code> × $s_1$, with <code>rtol</code> = $\max(m, n)\,\varepsilon$ by default.”</td><td>✓</td></tr>
# <tr><td>“its tolerances follow the dtype (for float64, <code>rtol</code> and <code>atol</code> of 1e-7), unlike <code>torch.allclose</code>&#x27;s one setting for every dtype.”</td><td>✓</td></tr>
# <tr><td>“at one thread the work runs in this thread”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/06_linear_algebra.ipynb](../exercises/06_linear_algebra.ipynb) ·
# **Previous:** [05 · Vectorisation and measuring speed](05_vectorisation.ipynb) ·
# **Next:** [07 · GPU offload](07_gpu_offload.ipynb)
