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
# *Module 03 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/03_strides.ipynb) · previous: [02 · Storage and views](02_storage_and_views.ipynb) · next: [04 · Dtypes](04_dtypes.ipynb)

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
# # 03 · Strides: exercises
#
# Practice for the lesson [03 · Strides](../notebooks/03_strides.ipynb): the position
# formula, row-major strides, and views that rearrange, repeat or window data without
# copying it.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("03.4")` shows the
# next hint for exercise 03.4. Several checks want a **view** (a result sharing the input's
# storage) and say so when you return a copy. Exercises go from warm-up to stretch; each one
# stands alone.

# %%
import torch

from torchcourse import check, hint

# %% [markdown]
# ### 03.1 · Find an element by hand (warm-up)
#
# `storage` is a 1-D tensor standing for a flat storage. A view of it has storage offset
# `offset` and strides `stride` (a tuple). Write `element_at(storage, offset, stride, index)`
# that returns the element at `index` (a tuple as long as `stride`) as a 0-d tensor,
# `storage[position]`, without building the view.


# %%
def element_at(storage, offset, stride, index):
    # YOUR CODE HERE
    raise NotImplementedError


check("03.1", element_at)


# %% [markdown]
# ### 03.2 · Row-major strides (warm-up)
#
# Write `contiguous_strides(shape)` that returns, as a tuple of ints, the strides (in
# elements) of a contiguous tensor of that shape, the ones `torch.empty(shape).stride()`
# reports, also for a shape with a dimension of size 0. Compute them from the shape; do not
# create a tensor or an array (the check passes a shape far too large to allocate).


# %%
def contiguous_strides(shape):
    # YOUR CODE HERE
    raise NotImplementedError


check("03.2", contiguous_strides)


# %% [markdown]
# ### 03.3 · Swap the last two dimensions
#
# Write `swap_last_two(t)` that swaps the last two dimensions of a tensor with 2 or more
# dimensions (shape `(..., a, b)` becomes `(..., b, a)`), as a **view**.


# %%
def swap_last_two(t):
    # YOUR CODE HERE
    raise NotImplementedError


check("03.3", swap_last_two)


# %% [markdown]
# ### 03.4 · One row, many times, no copies
#
# Write `tile_rows(row, n)` that returns an `(n, len(row))` tensor whose every row equals
# the 1-D tensor `row`, as a **view** that stores the row only once.


# %%
def tile_rows(row, n):
    # YOUR CODE HERE
    raise NotImplementedError


check("03.4", tile_rows)


# %% [markdown]
# ### 03.5 · Flatten anything, copy only when needed
#
# Write `flatten_rows(t)` that returns the elements of `t` as a 1-D tensor in row-major
# order of `t`'s shape. It must work on any tensor, contiguous or not, and must **not copy**
# when `t` is contiguous. The check uses contiguous, transposed and permuted inputs.


# %%
def flatten_rows(t):
    # YOUR CODE HERE
    raise NotImplementedError


check("03.5", flatten_rows)


# %% [markdown]
# ### 03.6 · Sliding windows without copying
#
# Write `sliding_windows(x, w)` that returns every window of `w` consecutive elements of the
# 1-D tensor `x`, one per row: shape `(len(x) - w + 1, w)`, row `k` equal to `x[k:k + w]`.
# Return a **view**: the windows overlap, so a copy would store most numbers `w` times.


# %%
def sliding_windows(x, w):
    # YOUR CODE HERE
    raise NotImplementedError


check("03.6", sliding_windows)


# %% [markdown]
# ### 03.7 · Cut an image into blocks (stretch)
#
# `img` is a 2-D tensor of shape `(H, W)`, and `b` divides both `H` and `W`. Write
# `blocks(img, b)` that returns a tensor of shape `(H // b, W // b, b, b)` where
# `blocks(img, b)[r, c]` is the `b × b` block `img[r*b:(r+1)*b, c*b:(c+1)*b]`, as a **view**.


# %%
def blocks(img, b):
    # YOUR CODE HERE
    raise NotImplementedError


check("03.7", blocks)

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [03 · Strides](../notebooks/03_strides.ipynb) ·
# **Previous:** [02 · Storage and views](02_storage_and_views.ipynb) ·
# **Next:** [04 · Dtypes](04_dtypes.ipynb)
