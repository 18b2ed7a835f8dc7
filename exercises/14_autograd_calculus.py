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
# *Module 14 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/14_autograd_calculus.ipynb) · previous: [13 · Case study: genetic-algorithm fitness](13_case_study_ga.ipynb) · next: [15 · Distributed tensors](15_distributed_tensors.ipynb)

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
# *Outputs made with torch 2.13.0+cpu on AMD EPYC (2 cores, CPU only), 2026-11-25.*

# %% [markdown]
# # 14 · Autograd as a calculus engine: exercises
#
# Exercises for the lesson [14 · Autograd as a calculus engine](../notebooks/14_autograd_calculus.ipynb):
# derivatives and gradients from autograd, Newton's method, a quadratic penalty, and
# `torch.func` for batches of points.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("14.3")` shows the
# next hint for exercise 14.3. Exercises go from warm-up to stretch; each one stands alone.
# The check's inputs are float64, so it compares tightly.
# (The worked answers are in `solutions/`; the notebook in `exercises/` is generated from it
# with the answers taken out.)

# %%
import torch
from torch.func import grad, hessian, jacrev, vmap

from torchcourse import check, hint

# %% [markdown]
# ### 14.1 · The derivative at every point (warm-up)
#
# `f` is a function that acts element by element (such as `torch.sin`) and `x` a tensor of
# any shape. Write `derivative(f, x)` that returns `f'(x)` at every element, same shape as
# `x`, using autograd. Return a plain tensor: one that does not require grad, and that a
# later call leaves as it is. Leave the caller's `x` as it is too (not requiring grad).


# %%
def derivative(f, x):
    # YOUR CODE HERE
    raise NotImplementedError


check("14.1", derivative)


# %% [markdown]
# ### 14.2 · The gradient of function 2 at many points
#
# `points` has shape `(N, 3)`, one `(x, y, z)` per row. Write `gradient_f2(points)` that
# returns the gradient of `f = x² + 2y² + 3z² + 4xy − 5yz` at every row, shape `(N, 3)`.


# %%
def gradient_f2(points):
    # YOUR CODE HERE
    raise NotImplementedError


check("14.2", gradient_f2)


# %% [markdown]
# ### 14.3 · Newton's method with autograd
#
# Write `newton(g, x0, steps)` that solves `g(x) = 0` element by element: starting from the
# tensor `x0`, take exactly `steps` Newton steps `x ← x − g(x)/g'(x)`, with `g'` from
# autograd, and return the last iterate as a plain tensor (no graph attached). The check
# uses cube roots, Kepler's equation and `cos x = x`.


# %%
def newton(g, x0, steps):
    # YOUR CODE HERE
    raise NotImplementedError


check("14.3", newton)


# %% [markdown]
# ### 14.4 · A quadratic penalty
#
# Write `penalised_f2(points, mu)` that returns, for each row `(x, y, z)` of `points`,
# `f2 + mu · Σ max(0, c_i)²` over the six constraints of function 2 written as `c_i ≤ 0`:
# `1 − x`, `3 − y`, `y − 7`, `z`, `3 − x − y − z`, `x² + z² − 10`. Shape `(N,)`.


# %%
def penalised_f2(points, mu):
    # YOUR CODE HERE
    raise NotImplementedError


check("14.4", penalised_f2)


# %% [markdown]
# ### 14.5 · One Hessian per point
#
# Write `hessians_f3(points)` that returns the Hessian of
# `f3 = sin x + x² − 2 cos y + y² + z²` at every row of `points`: shape `(N, 3, 3)`.
# Tip: `torch.func` computes it, with no derivative worked out by hand.


# %%
def hessians_f3(points):
    # YOUR CODE HERE
    raise NotImplementedError


check("14.5", hessians_f3)


# %% [markdown]
# ### 14.6 · Gradient descent with `torch.func`
#
# `f` maps a 1-D tensor to a scalar. Write `gradient_descent(f, x0, lr, steps)` that takes
# `steps` steps `x ← x − lr · ∇f(x)` from `x0` and returns the last `x`. Leave `x0`
# unchanged and return a plain tensor.


# %%
def gradient_descent(f, x0, lr, steps):
    # YOUR CODE HERE
    raise NotImplementedError


check("14.6", gradient_descent)


# %% [markdown]
# ### 14.7 · Jacobians of the polar map (stretch)
#
# The polar map sends `(r, θ)` to `(x, y) = (r cos θ, r sin θ)`. `rt` has shape `(N, 2)`,
# one `(r, θ)` per row. Write `polar_jacobians(rt)` that returns the Jacobian at every row,
# shape `(N, 2, 2)`: row `i` of each matrix is output `i` (`x`, then `y`), column `j` is
# input `j` (`r`, then `θ`). (Its determinant is `r`: the `r` in `r dr dθ`.)


# %%
def polar_jacobians(rt):
    # YOUR CODE HERE
    raise NotImplementedError


check("14.7", polar_jacobians)

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [14 · Autograd as a calculus engine](../notebooks/14_autograd_calculus.ipynb) ·
# **Previous:** [13 · Case study: genetic-algorithm fitness](13_case_study_ga.ipynb) ·
# **Next:** [15 · Distributed tensors](15_distributed_tensors.ipynb)
