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
# *Module 16 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/16_indexing.ipynb) · previous: [15 · Distributed tensors](15_distributed_tensors.ipynb) · next: [17 · Compile once: caches, export and ahead-of-time](17_compile_once.ipynb)

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
# # 16 · Advanced indexing: exercises
#
# Puzzles for the lesson [16 · Advanced indexing](../notebooks/16_indexing.ipynb): boolean
# masks, integer-array indexing, `torch.where`, `nonzero`, `gather`, `scatter_` and
# `index_add_`.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("16.3")` shows the
# next hint for exercise 16.3.
#
# **The rule of every puzzle: no Python loop.** No `for`, no `while`, no comprehension: only
# indexing, broadcasting and tensor operations. The check runs your function again on inputs
# two and four times as long and says so when the operations it runs grow with the input,
# which is what a loop does (so do `map`, recursion and a helper that loops). Some puzzles
# also ask for a **view**, a **copy**, or a change **in place** (return the tensor you
# changed, as PyTorch's own `add_` does); the check looks at memory for those. Each puzzle stands alone; they go from warm-up to stretch.

# %%
import torch

from torchcourse import check, hint

# %% [markdown]
# ### 16.1 · Clip negatives to zero, in place (warm-up)
#
# Write `clip_negatives_(t)` that sets every negative entry of `t` to zero **in place** and
# returns `t`. `t` may have any shape and any real dtype. No Python loop.


# %%
def clip_negatives_(t):
    ### BEGIN SOLUTION
    t[t < 0] = 0
    return t
    ### END SOLUTION


check("16.1", clip_negatives_)

# %% [markdown]
# ### 16.2 · Rows with no negative entry
#
# `x` is a 2-D tensor (it may have zero rows or zero columns). Write `nonnegative_rows(x)`
# that returns the rows of `x` in which every entry is `>= 0` (a NaN is not), in their
# original order: shape `(k, columns)`, where `k` may be zero. No Python loop.


# %%
def nonnegative_rows(x):
    ### BEGIN SOLUTION
    return x[(x >= 0).all(dim=1)]
    ### END SOLUTION


check("16.2", nonnegative_rows)

# %% [markdown]
# ### 16.3 · Every other row, as a view
#
# Write `even_rows(x)` that returns rows 0, 2, 4, ... of the 2-D tensor `x` as a **view**:
# no number copied, the result shares `x`'s memory. No Python loop.


# %%
def even_rows(x):
    ### BEGIN SOLUTION
    return x[::2]
    ### END SOLUTION


check("16.3", even_rows)

# %% [markdown]
# ### 16.4 · The anti-diagonal, as a copy
#
# `m` is a square `n × n` matrix. Write `anti_diagonal(m)` that returns its anti-diagonal,
# from the top-right corner to the bottom-left: `m[0, n-1], m[1, n-2], ..., m[n-1, 0]`, as a
# **copy** (writing into the result must not change `m`). No Python loop.


# %%
def anti_diagonal(m):
    ### BEGIN SOLUTION
    i = torch.arange(m.shape[0])
    return m[i, m.shape[0] - 1 - i]
    ### END SOLUTION


check("16.4", anti_diagonal)

# %% [markdown]
# ### 16.5 · One entry per row
#
# `scores` has shape `(rows, classes)` and `idx` is an int64 tensor of shape `(rows,)`.
# Write `pick_per_row(scores, idx)` that returns `out` of shape `(rows,)` with
# `out[i] = scores[i, idx[i]]`. No Python loop.


# %%
def pick_per_row(scores, idx):
    ### BEGIN SOLUTION
    return scores.gather(1, idx.unsqueeze(1)).squeeze(1)
    ### END SOLUTION


check("16.5", pick_per_row)

# %% [markdown]
# ### 16.6 · The value at each row's best key
#
# `keys` and `values` have the same shape `(rows, columns)`. For each row, find the column
# where `keys` is largest and return `values` at that position: shape `(rows,)`, in
# `values`' dtype. (The keys have no ties.) No Python loop.


# %%
def value_at_best_key(keys, values):
    ### BEGIN SOLUTION
    return values.gather(1, keys.argmax(dim=1, keepdim=True)).squeeze(1)
    ### END SOLUTION


check("16.6", value_at_best_key)

# %% [markdown]
# ### 16.7 · One-hot rows
#
# `labels` is an int64 tensor of class numbers in `[0, n)`. Write `one_hot(labels, n)` that
# returns a **float32** tensor of shape `(len(labels), n)`: row `i` is all zeros except a 1
# in column `labels[i]`. No Python loop.


# %%
def one_hot(labels, n):
    ### BEGIN SOLUTION
    return torch.zeros(len(labels), n).scatter_(1, labels.unsqueeze(1), 1.0)
    ### END SOLUTION


check("16.7", one_hot)

# %% [markdown]
# ### 16.8 · Keep each row's maximum
#
# Write `keep_row_max(x)` that returns a tensor shaped and typed like the 2-D tensor `x`:
# every entry equal to the maximum of its row keeps its value, every other entry is 0.
# (When a row's maximum occurs twice, both copies stay.) No Python loop.


# %%
def keep_row_max(x):
    ### BEGIN SOLUTION
    return torch.where(x == x.amax(dim=1, keepdim=True), x, torch.zeros_like(x))
    ### END SOLUTION


check("16.8", keep_row_max)

# %% [markdown]
# ### 16.9 · Coordinates of the positive entries
#
# Write `positive_coords(x)` that returns the `(row, column)` coordinates of the entries of
# the 2-D tensor `x` that are `> 0`: an int64 tensor of shape `(count, 2)`, in row-major
# order (row by row, left to right). No Python loop.


# %%
def positive_coords(x):
    ### BEGIN SOLUTION
    return (x > 0).nonzero()
    ### END SOLUTION


check("16.9", positive_coords)

# %% [markdown]
# ### 16.10 · A histogram of labels
#
# `values` is an int64 tensor of numbers in `[0, n)`. Write `histogram(values, n)` that
# returns the int64 counts of length `n`: `counts[k]` is how many times `k` occurs in
# `values`. No Python loop.


# %%
def histogram(values, n):
    ### BEGIN SOLUTION
    return torch.zeros(n, dtype=torch.int64).index_add_(0, values, torch.ones_like(values))
    ### END SOLUTION


check("16.10", histogram)

# %% [markdown]
# ### 16.11 · Segment sums
#
# `x` has shape `(N, D)`; `seg` is an int64 tensor of shape `(N,)` with values in `[0, n)`
# saying which segment each row belongs to. Write `segment_sums(x, seg, n)` that returns the
# `(n, D)` tensor whose row `k` is the sum of the rows of `x` in segment `k` (zeros for an
# empty segment), in `x`'s dtype. No Python loop.


# %%
def segment_sums(x, seg, n):
    ### BEGIN SOLUTION
    return torch.zeros(n, x.shape[1], dtype=x.dtype).index_add_(0, seg, x)
    ### END SOLUTION


check("16.11", segment_sums)

# %% [markdown]
# ### 16.12 · Inverse permutation
#
# `p` is a permutation of `0, 1, ..., n-1` (int64). Write `inverse_permutation(p)` that
# returns the permutation `q` that undoes it: `q[p[i]] == i` for every `i`, so that
# `x[p][q]` is `x` again. No Python loop.


# %%
def inverse_permutation(p):
    ### BEGIN SOLUTION
    return torch.empty_like(p).scatter_(0, p, torch.arange(len(p)))
    ### END SOLUTION


check("16.12", inverse_permutation)

# %% [markdown]
# ### 16.13 · Fill the strict lower triangle, in place (stretch)
#
# `m` is a 2-D tensor, not necessarily square. Write `fill_lower_(m, value)` that sets every
# entry strictly below the main diagonal (row index greater than column index) to `value`,
# **in place**, and returns `m`. No Python loop.


# %%
def fill_lower_(m, value):
    ### BEGIN SOLUTION
    below = torch.ones(m.shape, dtype=torch.bool).tril(diagonal=-1)
    m[below] = value
    return m
    ### END SOLUTION


check("16.13", fill_lower_)

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [16 · Advanced indexing: masks, gather and scatter](../notebooks/16_indexing.ipynb) ·
# **Previous:** [15 · Distributed tensors](15_distributed_tensors.ipynb) ·
# **Next:** [17 · Compile once: caches, export and ahead-of-time](17_compile_once.ipynb)
