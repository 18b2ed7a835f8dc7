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
# *Module 00 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/00_start_here.ipynb) · next: [01 · From data to tensors](01_data_to_tensors.ipynb)

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
# # 00 · Start here: exercises
#
# Warm-ups for the lesson [00 · Start here](../notebooks/00_start_here.ipynb): creating
# tensors, reading shapes, moving a tensor to a device, and the traps the checks catch.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("00.3")` shows the
# next hint for exercise 00.3. Exercises go from warm-up to stretch; each one stands alone.
# (The worked answers are in `solutions/`; the notebook in `exercises/` is generated from it
# with the answers taken out.)

# %%
import torch

from torchcourse import check, hint

# %% [markdown]
# ### 00.1 · A column of numbers (warm-up)
#
# Write `column_of(n)` that returns the numbers `0, 1, ..., n-1` as a **float32 column**:
# a tensor of shape `(n, 1)`, also for `n = 0` (an empty column).


# %%
def column_of(n):
    # YOUR CODE HERE
    raise NotImplementedError


check("00.1", column_of)


# %% [markdown]
# ### 00.2 · Dimensions, shape and size
#
# Write `shape_info(t)` that returns a tuple `(number of dimensions, shape as a tuple,
# number of elements)`, the two counts as Python `int`s. For a 2×3 tensor: `(2, (2, 3), 6)`;
# for a 0-dimensional tensor such as `torch.tensor(7.0)`: `(0, (), 1)`. The check also passes
# views that show only part of their storage.


# %%
def shape_info(t):
    # YOUR CODE HERE
    raise NotImplementedError


check("00.2", shape_info)


# %% [markdown]
# ### 00.3 · Move a tensor to a device
#
# Write `move_to(t, device)` that returns `t` on `device`, keeping its dtype. The check also
# uses the `meta` device, which has shapes but no data, so this exercise runs on any machine.


# %%
def move_to(t, device):
    # YOUR CODE HERE
    raise NotImplementedError


check("00.3", move_to)


# %% [markdown]
# ### 00.4 · Standardise without touching the input
#
# Write `standardise(t)` that returns `(t - mean) / std` (PyTorch's default `std`, with
# Bessel's correction). The caller's tensor must not change: the check compares it before
# and after your function runs.


# %%
def standardise(t):
    # YOUR CODE HERE
    raise NotImplementedError


check("00.4", standardise)


# %% [markdown]
# ### 00.5 · The first row, without a copy
#
# Write `first_row(t)` that returns the first row of a 2-D tensor **as a view**: a tensor
# that shares memory with `t`, so no data is copied. The check tells a view from a copy.


# %%
def first_row(t):
    # YOUR CODE HERE
    raise NotImplementedError


check("00.5", first_row)


# %% [markdown]
# ### 00.6 · A batch of images
#
# `images` is a Python list of N grey images, each a tensor of shape `(H, W)`. Write
# `batch_of(images)` that returns one tensor of shape `(N, 1, H, W)`: batch first, then a
# channel dimension of size 1, the layout image code expects.


# %%
def batch_of(images):
    # YOUR CODE HERE
    raise NotImplementedError


check("00.6", batch_of)


# %% [markdown]
# ### 00.7 · Count values above a threshold (stretch)
#
# Write `count_above(t, threshold)` that returns, as a Python `int`, how many elements of
# `t` are strictly greater than `threshold`. No Python loop: let one tensor expression do
# the work.


# %%
def count_above(t, threshold):
    # YOUR CODE HERE
    raise NotImplementedError


check("00.7", count_above)

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [00 · Start here](../notebooks/00_start_here.ipynb) ·
# **Next:** [01 · From data to tensors](01_data_to_tensors.ipynb)
