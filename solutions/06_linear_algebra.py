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
# *Module 06 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/06_linear_algebra.ipynb) · previous: [05 · Vectorisation and measuring speed](05_vectorisation.ipynb) · next: [07 · GPU offload](07_gpu_offload.ipynb)

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
# # 06 · Linear algebra: exercises
#
# Practice for the lesson [06 · Linear algebra](../notebooks/06_linear_algebra.ipynb): solving
# systems and checking them, shapes of right-hand sides, least squares, tensor contractions,
# eigenvalues, projections, the FLOP count of a matrix product, Cholesky solves and low-rank
# approximations with the SVD.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("06.4")` shows the
# next hint for exercise 06.4. Exercises go from warm-up to stretch; each one stands alone.
# Use `torch.linalg` and tensor expressions; no answer needs `torch.linalg.inv` (the lesson shows why
# to avoid it, and 06.4's check refuses it).

# %%
import torch

from torchcourse import check, hint

# %% [markdown]
# ### 06.1 · Solve a linear system (warm-up)
#
# Write `solve_system(A, b)` that returns the vector `x` with `A @ x == b` for a square,
# invertible `A`. The check starts with the lesson's system (solution 1, 2, 3).


# %%
def solve_system(A, b):
    ### BEGIN SOLUTION
    return torch.linalg.solve(A, b)
    ### END SOLUTION


check("06.1", solve_system)


# %% [markdown]
# ### 06.2 · GFLOP/s of a matrix product
#
# An `n x n` by `n x n` matrix product took `seconds`. Write `matmul_gflops(n, seconds)` that
# returns its throughput in GFLOP/s (10⁹ floating-point operations per second) as a Python
# float, counting the product as 2n³ operations, as the lesson does (its n³ multiply-adds,
# each a multiplication and an addition). The check includes the published figures of the
# lesson.


# %%
def matmul_gflops(n, seconds):
    ### BEGIN SOLUTION
    return 2 * n**3 / seconds / 1e9
    ### END SOLUTION


check("06.2", matmul_gflops)


# %% [markdown]
# ### 06.3 · How far from solved? The residual norm
#
# Write `residual_norm(A, x, b)` that measures how well a candidate `x` satisfies `A x = b`:
# the Euclidean norm of the residual, as a Python float.


# %%
def residual_norm(A, x, b):
    ### BEGIN SOLUTION
    return torch.linalg.vector_norm(A @ x - b).item()
    ### END SOLUTION


check("06.3", residual_norm)


# %% [markdown]
# ### 06.4 · One matrix, right-hand sides as rows
#
# You have one square matrix `A` and `k` right-hand sides stored as the **rows** of `B`
# (shape `(k, n)`), as data often arrives. Write `solve_rows(A, B)` that returns `X` of shape
# `(k, n)` whose row `i` solves `A @ X[i] == B[i]`. One call to `solve`, no loop, and no
# inverse (`solve(A, I)` builds one too).


# %%
def solve_rows(A, B):
    ### BEGIN SOLUTION
    return torch.linalg.solve(A, B.T).T
    ### END SOLUTION


check("06.4", solve_rows)


# %% [markdown]
# ### 06.5 · Fit a straight line with `lstsq`
#
# Write `fit_line(x, y)` that fits `y ≈ slope * x + intercept` by least squares and returns
# `torch.tensor([slope, intercept])` (shape `(2,)`, the dtype of `x`), using
# `torch.linalg.lstsq`.


# %%
def fit_line(x, y):
    ### BEGIN SOLUTION
    X = torch.stack([x, torch.ones_like(x)], dim=1)
    return torch.linalg.lstsq(X, y.unsqueeze(-1)).solution.squeeze(-1)
    ### END SOLUTION


check("06.5", fit_line)


# %% [markdown]
# ### 06.6 · Score images against a template with `tensordot`
#
# `images` has shape `(N, H, W)` and `template` has shape `(H, W)`. The score of image `i`
# is the sum over all pixels of `images[i] * template`. Write `template_scores(images,
# template)` that returns the `N` scores with one `torch.tensordot`.


# %%
def template_scores(images, template):
    ### BEGIN SOLUTION
    return torch.tensordot(images, template, dims=2)
    ### END SOLUTION


check("06.6", template_scores)


# %% [markdown]
# ### 06.7 · Eigenvalues of a symmetric matrix, largest first
#
# Write `eigenvalues_descending(S)` that returns the (real) eigenvalues of a symmetric
# matrix `S`, largest first. `S` may also be a batch of symmetric matrices `(B, n, n)`:
# return `(B, n)`, each row sorted largest first.


# %%
def eigenvalues_descending(S):
    ### BEGIN SOLUTION
    return torch.linalg.eigvalsh(S).flip(-1)
    ### END SOLUTION


check("06.7", eigenvalues_descending)


# %% [markdown]
# ### 06.8 · Project a vector onto a column space
#
# Write `project(A, v)` that returns the point of the column space of `A` (all vectors
# `A @ c`) closest to `v`: the orthogonal projection of `v`. `A` may be tall, square, or have
# dependent columns (the check includes a rank-deficient one).


# %%
def project(A, v):
    ### BEGIN SOLUTION
    return A @ (torch.linalg.pinv(A) @ v)
    ### END SOLUTION


check("06.8", project)


# %% [markdown]
# ### 06.10 · Solve a symmetric positive-definite system with Cholesky
#
# `S` is a symmetric positive-definite matrix `(n, n)`, or a batch of them `(B, n, n)`, and `B` holds
# `k` right-hand sides as **columns**, `(n, k)` or `(B, n, k)`. Write `spd_solve(S, B)` that returns
# `X` with `S @ X == B`, in torch, using a **Cholesky factorisation**: factorise `S` **once** with
# `torch.linalg.cholesky` (or `cholesky_ex`; one call for a whole batch) and compute `X` from that
# factor. No LU factorisation or general solver (`solve`, `lu_factor`, `lstsq`); no inverse, of `S`
# or of its factor (every solve is for the columns of `B`, never for an identity matrix); and no
# NumPy: the tensors stay in torch.


# %%
def spd_solve(S, B):
    ### BEGIN SOLUTION
    L = torch.linalg.cholesky(S)  # S = L L^T, n^3/3 FLOPs
    return torch.cholesky_solve(B, L)  # L y = B, then L^T x = y
    ### END SOLUTION


check("06.10", spd_solve)


# %% [markdown]
# ### 06.9 · The square root of a positive-definite matrix (stretch)
#
# A symmetric positive-definite matrix `S` has exactly one symmetric positive-definite `R`
# with `R @ R == S`. Write `spd_sqrt(S)` that returns it, using `torch.linalg.eigh`. It must
# work on a batch `(B, n, n)` too.


# %%
def spd_sqrt(S):
    ### BEGIN SOLUTION
    w, V = torch.linalg.eigh(S)
    return V @ torch.diag_embed(w.sqrt()) @ V.mT
    ### END SOLUTION


check("06.9", spd_sqrt)


# %% [markdown]
# ### 06.11 · The best rank-k approximation (stretch)
#
# Write `rank_k(A, k)` that returns the matrix of rank at most `k` closest to `A` in the 2-norm,
# for `A` of shape `(m, n)` or a batch `(B, m, n)` (each matrix separately) and `0 <= k <= min(m, n)`,
# in the dtype of `A`. By the Eckart–Young theorem its error `matrix_norm(A - A_k, ord=2)` is the
# first singular value left out, s_(k+1) (0 when `k = min(m, n)`); the check tests that property
# and the rank, not one particular matrix, to within the rounding of `A`'s dtype: `8·max(m, n)·eps·s_1`
# (`eps` of that dtype, `s_1` the largest singular value). A method through `A.mT @ A` squares the
# condition number and misses that in float32 when the singular values spread over decades.


# %%
def rank_k(A, k):
    ### BEGIN SOLUTION
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    return U[..., :k] * S[..., None, :k] @ Vh[..., :k, :]  # U_k diag(s_k) Vh_k
    ### END SOLUTION


check("06.11", rank_k)

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [06 · Linear algebra](../notebooks/06_linear_algebra.ipynb) ·
# **Previous:** [05 · Vectorisation and measuring speed](05_vectorisation.ipynb) ·
# **Next:** [07 · GPU offload](07_gpu_offload.ipynb)
