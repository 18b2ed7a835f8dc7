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
# *Module 12 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/12_compiling_numpy.ipynb) · previous: [11 · Graph breaks](11_graph_breaks.ipynb) · next: [13 · Case study: genetic-algorithm fitness](13_case_study_ga.ipynb)

# %% tags=["course-setup"] jupyter={"source_hidden": true}
# Course setup. On your own machine this cell installs nothing. On Google Colab it fetches
# the course and installs its helper package, torchcourse, once per session.
# Colab runtime: CPU is enough; a GPU (Runtime > Change runtime type > T4 GPU) also runs the GPU cells.
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
# # 12 · Compiling NumPy code: exercises
#
# Practice for the lesson [12 · Compiling NumPy code](../notebooks/12_compiling_numpy.ipynb):
# counting the bytes a kernel must move, judging a time against the copy bandwidth, and the
# pieces of the course's K-Means rewrite.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("12.3")` shows the
# next hint. Each exercise stands alone. The checks use small inputs, and 12.7 to 12.10 compile
# with backends that generate no code, so they run in seconds; the lesson shows the same
# functions compiled and timed at scale.

# %%
import torch

from torchcourse import check, hint
from torchcourse.bench.workloads import kmeans as km

# %% [markdown]
# ### 12.1 · Bytes per point (warm-up)
#
# A kernel that labels points reads each point once (`d` coordinates of `x_dtype`) and writes
# one label (`out_dtype`). Write `bytes_per_point(x_dtype, out_dtype, d)` returning that
# number of bytes, for torch dtypes. NumPy's float64-in, int64-out result is 24 for `d = 2`.


# %%
def bytes_per_point(x_dtype, out_dtype, d):
    ### BEGIN SOLUTION
    return d * x_dtype.itemsize + out_dtype.itemsize
    ### END SOLUTION


check("12.1", bytes_per_point)


# %% [markdown]
# ### 12.2 · Fraction of the copy bandwidth
#
# A run labelled `n` 2-D points (`x_dtype` in, `out_dtype` out) in `seconds`; the machine's
# measured copy bandwidth is `copy_gbps` GB/s (1 GB = 10⁹ bytes). Write
# `fraction_of_copy(n, x_dtype, out_dtype, seconds, copy_gbps)` returning the achieved
# bandwidth as a fraction of the copy bandwidth (0.5 means half), counting the minimum bytes
# (`km.min_bytes` computes them; you may use it). The copy bandwidth is the matching limit here:
# the step writes at least one byte for every eight it reads (`Limits.for_traffic` in the lesson).


# %%
def fraction_of_copy(n, x_dtype, out_dtype, seconds, copy_gbps):
    ### BEGIN SOLUTION
    return km.min_bytes(n, x_dtype, out_dtype) / seconds / 1e9 / copy_gbps
    ### END SOLUTION


check("12.2", fraction_of_copy)


# %% [markdown]
# ### 12.3 · Squared distances without a square root
#
# `X` is an `(n, 2)` tensor of points, `means` a `(k, 2)` tensor. Write
# `squared_distances(X, means)` returning the `(k, n)` tensor of squared distances
# `|x_i - m_j|²`, in the inputs' dtype. Ordering by squared distance gives the same nearest
# mean as ordering by distance, without the `sqrt`.


# %%
def squared_distances(X, means):
    ### BEGIN SOLUTION
    return ((X[None, :, :] - means[:, None, :]) ** 2).sum(dim=2)
    ### END SOLUTION


check("12.3", squared_distances)


# %% [markdown]
# ### 12.4 · Tensors in, tensors out
#
# Write `assign_wrapper(X, means)`: it takes CPU tensors and returns the labels of the course's
# NumPy function `km.assign_numpy` as a **tensor** (int64, shape `(n,)`). Tip: call it on the
# tensors' NumPy views, which share their memory.
# Compiled, a wrapper like this keeps the data on the device (the lesson's `km.assign_tensors`).


# %%
def assign_wrapper(X, means):
    ### BEGIN SOLUTION
    return torch.from_numpy(km.assign_numpy(X.numpy(), means.numpy()))
    ### END SOLUTION


check("12.4", assign_wrapper)


# %% [markdown]
# ### 12.5 · Linear scores instead of distances
#
# `|x - m|² = |x|² - 2 x·m + |m|²` and `|x|²` is the same for every mean, so the nearest mean
# maximises the score `x·m_j - |m_j|²/2`. Write `linear_scores(means)` for a `(k, d)` tensor of
# means, returning `(W, c)` with `W` of shape `(d, k)` and `c` of shape `(k,)`, so that
# `(X @ W + c).argmax(dim=1)` is the nearest mean of every row of `X`.


# %%
def linear_scores(means):
    ### BEGIN SOLUTION
    return means.T, -0.5 * (means * means).sum(dim=1)
    ### END SOLUTION


check("12.5", linear_scores)

# %% [markdown]
# A quick look that your scores do what they promise, on points around three means:

# %%
pts = torch.tensor([[0.1, 0.2], [4.8, 5.1], [9.7, 0.3], [5.2, 4.4]])
centres = torch.tensor([[0.0, 0.0], [5.0, 5.0], [10.0, 0.0]])
try:
    W, c = linear_scores(centres)
    print("argmax of scores:", (pts @ W + c).argmax(dim=1).tolist())
except NotImplementedError:
    print("(answer 12.5 first)")
print("nearest by distance:", torch.cdist(pts, centres).argmin(dim=1).tolist())


# %% [markdown]
# ### 12.7 · What the compiled NumPy function returns
#
# Compiled NumPy code runs as torch operations, and what comes back is not always what NumPy
# would return. Write `compiled_kind(np_fn, x)`: compile the NumPy function `np_fn` with
# `torch.compile(np_fn, backend="eager")` (the eager backend traces without generating code, so
# it compiles in a moment), call it on the NumPy array `x`, and return a triple
# `(dtype, shape, type)` describing what the **compiled** version returned: its NumPy dtype
# (a `np.dtype`), its shape (a tuple) and its Python type (e.g. `np.ndarray`).
#
# Before you run it, predict the triple for `lambda x: x.sum()` on a float32 array, run by
# NumPy and compiled; the cell after the check prints both.


# %%
import numpy as np


def compiled_kind(np_fn, x):
    ### BEGIN SOLUTION
    out = torch.compile(np_fn, backend="eager")(x)
    return out.dtype, out.shape, type(out)
    ### END SOLUTION


check("12.7", compiled_kind)

# %%
x32 = np.arange(4, dtype=np.float32)
eager_total = x32.sum()
print("NumPy:   ", eager_total.dtype, np.shape(eager_total), type(eager_total).__name__)
try:
    kind = compiled_kind(lambda x: x.sum(), x32)
    print("compiled:", kind[0], kind[1], kind[2].__name__)
except NotImplementedError:
    print("(answer 12.7 first)")


# %% [markdown]
# ### 12.8 · Compiled NumPy code on tensors
#
# Write `on_tensors(np_fn, backend)` returning a **compiled** version of the NumPy function
# `np_fn` that takes tensors and returns a tensor (tensors in, tensors out), equal to what
# `np_fn` computes on the same data. Compile with `torch.compile(..., backend=backend)`
# (in your own code `backend="inductor"`, the default; the check passes a backend that counts
# the graphs it is given), and let one call compile exactly **one graph**: no graph break.
# On a GPU, such a function keeps the data on the device: the NumPy code runs inside the
# compiled function, on the tensors' device. The check also calls it on tensors on the `meta`
# device, which, like a GPU's, have no copy in CPU memory.


# %%
def on_tensors(np_fn, backend):
    ### BEGIN SOLUTION
    return torch.compile(torch.compiler.wrap_numpy(np_fn), backend=backend)
    ### END SOLUTION


check("12.8", on_tensors)


# %% [markdown]
# ### 12.9 · Bins in one graph
#
# `np.digitize(x, edges)` returns, for each value `v` of `x` and increasing `edges`, the index
# `i` with `edges[i-1] <= v < edges[i]`: 0 below the first edge, `len(edges)` at or above the
# last. `torch._numpy` has no `digitize`, so a compiled function that calls it breaks the graph.
# Write `bin_index(x, edges)`, a NumPy function that returns the same int64 array as
# `np.digitize(x, edges)` for a float array `x` of any shape and a 1-D increasing `edges`, and
# that `torch.compile` turns into **one graph with no graph break**, with NumPy's values when
# compiled too. The check compiles it with a backend that counts graphs.


# %%
def bin_index(x, edges):
    ### BEGIN SOLUTION
    return np.searchsorted(edges, x, side="right")
    ### END SOLUTION


check("12.9", bin_index)


# %% [markdown]
# ### 12.10 · The same random numbers every time
#
# `fn` is a NumPy function compiled with `torch.compile`; inside, it adds random numbers drawn
# with `np.random` to `x` (like the lesson's `jitter`). Write `seeded_call(fn, x, seed)` that
# calls `fn(x)` **once** and returns what it returned, such that the same `seed` gives the same
# numbers every time, whatever random numbers NumPy or torch drew before, and different seeds
# give different numbers.


# %%
def seeded_call(fn, x, seed):
    ### BEGIN SOLUTION
    torch.manual_seed(seed)
    return fn(x)
    ### END SOLUTION


check("12.10", seeded_call)


# %% [markdown]
# ### 12.6 · Labels into a reused int8 buffer (stretch)
#
# Write `assign_into(out, X, means)` that writes the index of the nearest mean of each point
# into the preallocated int8 tensor `out` (shape `(n,)`), **in place**, and returns `out`, as
# PyTorch's `out=` arguments do. Reusing one buffer saves an allocation on every call (and, for
# an output above the allocator's mmap threshold, 32 MiB at most with glibc, usually a page
# fault per 4 KiB page on every call), and int8 writes 1 byte a label instead of 8.


# %%
def assign_into(out, X, means):
    ### BEGIN SOLUTION
    labels = ((X[None, :, :] - means[:, None, :]) ** 2).sum(dim=2).argmin(dim=0)
    return out.copy_(labels)
    ### END SOLUTION


check("12.6", assign_into)

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [12 · Compiling NumPy code](../notebooks/12_compiling_numpy.ipynb) ·
# **Previous:** [11 · Graph breaks](11_graph_breaks.ipynb) ·
# **Next:** [13 · Case study: genetic-algorithm fitness](13_case_study_ga.ipynb)
