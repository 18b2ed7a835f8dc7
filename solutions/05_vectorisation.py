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
# *Module 05 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/05_vectorisation.ipynb) · previous: [04 · Dtypes](04_dtypes.ipynb) · next: [06 · Linear algebra](06_linear_algebra.ipynb)

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
# # 05 · Vectorisation and measuring speed: exercises
#
# Practice for the lesson [05 · Vectorisation and measuring speed](../notebooks/05_vectorisation.ipynb):
# reductions over one or several dimensions, `keepdim`, broadcasting, and turning a time into
# bytes per second.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("05.3")` shows the
# next hint for exercise 05.3. Exercises go from warm-up to stretch; each one stands alone.
# Answers 05.1-05.8 are one or two tensor expressions: **no Python loops over elements** (05.7's
# check refuses a loop; for the others, the lesson showed what a loop costs). 05.9 and 05.10 write
# the timing loop itself.

# %%
import torch

from torchcourse import check, hint

# %% [markdown]
# ### 05.1 · Column means of a table (warm-up)
#
# `t` is a 2-D table, one row per observation and one column per variable. Write
# `column_means(t)` that returns the mean of each column: shape `(number of columns,)`.


# %%
def column_means(t):
    ### BEGIN SOLUTION
    return t.mean(dim=0)
    ### END SOLUTION


check("05.1", column_means)


# %% [markdown]
# ### 05.2 · Bytes per second of a sum
#
# A sum of `t` took `seconds`. It read every element of `t` once. Write `sum_gbps(t, seconds)`
# that returns the achieved bandwidth in GB/s as a Python float (1 GB = 10⁹ bytes). `t` can
# have any shape and dtype: `float64`, `float32`, `float16`, `int8`, ...


# %%
def sum_gbps(t, seconds):
    ### BEGIN SOLUTION
    return t.numel() * t.element_size() / seconds / 1e9
    ### END SOLUTION


check("05.2", sum_gbps)


# %% [markdown]
# ### 05.3 · Mean of each channel of an image batch
#
# `images` has shape `(N, C, H, W)`: N images, C channels, H×W pixels. Write
# `channel_means(images)` that returns the mean of each channel over all images and all
# pixels: shape `(C,)`. (Image pipelines compute exactly this to normalise their inputs.)


# %%
def channel_means(images):
    ### BEGIN SOLUTION
    return images.mean(dim=(0, 2, 3))
    ### END SOLUTION


check("05.3", channel_means)


# %% [markdown]
# ### 05.4 · Rows that sum to one
#
# `w` is a 2-D tensor of positive weights. Write `rows_sum_to_one(w)` that divides each row
# by its own sum, so that every row of the result sums to 1. The check uses square and
# non-square inputs.


# %%
def rows_sum_to_one(w):
    ### BEGIN SOLUTION
    return w / w.sum(dim=1, keepdim=True)
    ### END SOLUTION


check("05.4", rows_sum_to_one)


# %% [markdown]
# ### 05.5 · One-hot encoding by broadcasting
#
# `labels` is a 1-D `int64` tensor of class numbers in `0 .. k-1`. Write `one_hot(labels, k)`
# that returns a `float32` tensor of shape `(len(labels), k)` with a 1 in column
# `labels[i]` of row `i` and 0 elsewhere. Use one broadcast comparison of tensors, which makes the whole
# table at once (not one comparison per class, nor rows picked from an identity matrix). (Labels
# may not use every class: `k` sets the number of columns.)


# %%
def one_hot(labels, k):
    ### BEGIN SOLUTION
    return (labels[:, None] == torch.arange(k)).float()
    ### END SOLUTION


check("05.5", one_hot)


# %% [markdown]
# ### 05.6 · All pairwise squared distances
#
# `X` holds n points and `Y` holds m points, one point per row, both with d coordinates.
# Write `pairwise_sq_dists(X, Y)` that returns the `(n, m)` tensor whose entry `[i, j]` is the
# squared Euclidean distance between `X[i]` and `Y[j]`, in the dtype of the inputs. The check
# includes points far from the origin that lie close to each other (as map coordinates in
# metres do): each entry must be as accurate there as near the origin.


# %%
def pairwise_sq_dists(X, Y):
    ### BEGIN SOLUTION
    return ((X[:, None, :] - Y[None, :, :]) ** 2).sum(dim=-1)
    ### END SOLUTION


check("05.6", pairwise_sq_dists)


# %% [markdown]
# ### 05.7 · Moving average without a loop
#
# Write `moving_average(x, k)` that returns the averages of every window of `k` consecutive
# elements of the 1-D tensor `x`: `[mean(x[0:k]), mean(x[1:k+1]), ..., mean(x[n-k:n])]`,
# `n - k + 1` values, with no Python loop, neither over the windows nor over the `k` positions
# inside a window. (Module 03 met the view that makes this one line.) The check includes 10,000
# float32 values: each average must be as accurate as the mean of its own `k` numbers.


# %%
def moving_average(x, k):
    ### BEGIN SOLUTION
    return x.unfold(0, k, 1).mean(dim=-1)
    ### END SOLUTION


check("05.7", moving_average)


# %% [markdown]
# ### 05.9 · Minimum and median of timed calls
#
# The lesson times with `measure`, which warms up, repeats and reports the min and the median;
# here you write that core, timing one call at a time. Write
# `timeit_min_median(fn, repeat, warmup, clock)`: call `fn()` `warmup` times **untimed** (the
# first calls pay for caches, allocations and compiles), then time **exactly `repeat`** calls
# one by one, reading the time with `clock()` (for example `time.perf_counter`) just before
# and just after each call. Return `(min, median)` of those `repeat` times in seconds, the
# median as `statistics.median` computes it (for an even count, the mean of the two middle
# values). The check passes a function and a clock that run in fake time.


# %%
import statistics
import time


def timeit_min_median(fn, repeat, warmup, clock):
    ### BEGIN SOLUTION
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        start = clock()
        fn()
        times.append(clock() - start)
    return min(times), statistics.median(times)
    ### END SOLUTION


check("05.9", timeit_min_median)

# %%
# NBVAL_IGNORE_OUTPUT
big = torch.rand(1_000_000)
try:
    best, typical = timeit_min_median(big.sum, repeat=7, warmup=2, clock=time.perf_counter)
    print(f"sum of 1e6 floats: min {best * 1e6:.0f} µs, median {typical * 1e6:.0f} µs")
except NotImplementedError:
    print("(answer 05.9 first)")


# %% [markdown]
# ### 05.10 · How many calls fill a time budget
#
# A single call of a fast function lasts hardly longer than reading the clock itself, so Python's
# `timeit` (and the lesson's `measure`) times batches of `number` calls. Write `autorange(fn, budget, clock)`: try `number` = 1, 2, 5, 10,
# 20, 50, 100, ... in that order; for each, run one batch of `number` calls of `fn()`, timed as
# a whole with `clock()`, and stop at the **first** batch that lasts **at least** `budget`
# seconds. Return `(number, seconds)`, where `seconds` is the time of that last batch alone, from
# the clock read just before it to the one just after it. (The check's clock, like a real one,
# takes a little time to read.)
# (`timeit.Timer.autorange` does this with a budget of 0.2 s.)


# %%
def autorange(fn, budget, clock):
    ### BEGIN SOLUTION
    number = 1
    while True:
        for step in (1, 2, 5):
            start = clock()
            for _ in range(number * step):
                fn()
            seconds = clock() - start
            if seconds >= budget:
                return number * step, seconds
        number *= 10
    ### END SOLUTION


check("05.10", autorange)


# %% [markdown]
# ### 05.8 · A softmax that does not overflow (stretch)
#
# The softmax of a vector is `exp(x) / sum(exp(x))`: positive numbers that sum to 1. Write
# `stable_softmax(x, dim)` that applies it along dimension `dim` of a tensor of any shape,
# using `exp`, the maximum along `dim` (`amax`, or `max(...).values`) and `sum`. It must give the right answer for inputs such as
# `[1000.0, 1001.0, 1002.0]`, where `exp` alone overflows to `inf`. (`torch.softmax` does
# this for you; here you write it to see how.)


# %%
def stable_softmax(x, dim):
    ### BEGIN SOLUTION
    z = x - x.amax(dim=dim, keepdim=True)
    e = z.exp()
    return e / e.sum(dim=dim, keepdim=True)
    ### END SOLUTION


check("05.8", stable_softmax)

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [05 · Vectorisation and measuring speed](../notebooks/05_vectorisation.ipynb) ·
# **Previous:** [04 · Dtypes](04_dtypes.ipynb) ·
# **Next:** [06 · Linear algebra](06_linear_algebra.ipynb)
