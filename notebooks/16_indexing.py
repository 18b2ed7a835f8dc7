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
# *Module 16 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/16_indexing.ipynb) · previous: [15 · Distributed tensors](15_distributed_tensors.ipynb) · next: [17 · Compile once: caches, export and ahead-of-time](17_compile_once.ipynb)

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
# # 16 · Advanced indexing: masks, gather and scatter
#
# Vectorised code often needs to *pick* numbers (the entries above a threshold, one class
# score per row, the rows a permutation names) or to *put* numbers somewhere (a 1 in each
# row's label column, every sample's weight into its bin). Without the tools for that, you
# fall back to a Python loop over indices, which module 05 showed costs microseconds per
# element. PyTorch has a small family of indexing operations that do this work in one call:
# boolean masks, integer-array indexing, `torch.where`, `nonzero`, `gather`, `index_select`,
# `scatter_` and `index_add_`. They differ in one way that matters for memory: **basic
# indexing returns a view, advanced indexing copies** (with one exception, a 0-d integer
# tensor, which you will meet below). This notebook shows each tool
# on a tiny tensor you can check by eye, proves which results share memory, and measures what
# the copies cost.
#
# **Objectives.** After this notebook you can:
# 1. tell basic indexing (integers, slices) from advanced indexing (masks, integer tensors
#    with at least one dimension),
#    and prove with `untyped_storage().data_ptr()` which results are views and which copies;
# 2. select and assign with boolean masks, and use `torch.where` and `nonzero`;
# 3. pick entries with integer-array indexing, `gather` and `index_select`, and predict the
#    result's shape;
# 4. write by index with `scatter_`, `scatter_add_` and `index_add_`, including repeated
#    indices, where `t[idx] += 1` silently counts once;
# 5. estimate what an advanced index costs: the copy, and the 8-byte int64 index itself.
#
# **Prerequisites.** [02 · Storage and views](02_storage_and_views.ipynb) (storage, views,
# in-place operations), [03 · Strides](03_strides.ipynb) and
# [05 · Vectorisation and measuring speed](05_vectorisation.ipynb) (broadcasting, timing).
#
# **Time.** 30 min teaching, 40 min exercises.

# %%
import matplotlib.pyplot as plt
import torch

from torchcourse import claim, format_seconds, measure, predict, reveal


def same_storage(a, b):
    """True when two tensors use the same storage (one allocation in memory)."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


# %% [markdown]
# ## Basic indexing views, advanced indexing copies
#
# An index made only of integers, slices (`a:b:c`), `...` and `None` is **basic indexing**:
# the result can always be described by a new shape, stride and offset over the same
# storage, so PyTorch returns a view and copies nothing. An index that contains a **tensor
# (or list) of integers or booleans** is **advanced indexing**: the positions it picks follow
# no stride pattern in general, so PyTorch gathers them into a new storage (one kind of
# tensor is the exception: a 0-d integer tensor, shown below). Ask each result whether it
# shares `x`'s storage:

# %%
x = torch.arange(12).reshape(3, 4)
basic = {"x[1]": x[1], "x[:, 2]": x[:, 2], "x[::2, 1:]": x[::2, 1:], "x[..., None]": x[..., None]}
advanced = {
    "x[[0, 2]]": x[[0, 2]],
    "x[:, [1, 3]]": x[:, [1, 3]],
    "x[torch.tensor([2])]": x[torch.tensor([2])],
    "x[x > 5]": x[x > 5],
}
for name, r in {**basic, **advanced}.items():
    print(f"{name:22} shape {str(tuple(r.shape)):8} shares x's storage: {same_storage(r, x)}")
claim(all(same_storage(r, x) for r in basic.values()), "every basic index returns a view of x")
claim(not any(same_storage(r, x) for r in advanced.values()), "every advanced index returns a copy")

# %% [markdown]
# Python's brackets hide one trap: `x[0, 2]` passes the tuple `(0, 2)`, so `x[(0, 2)]` is the same
# subscript, while `x[[0, 2]]` passes a list.
#
# **Predict 16.p1.** Is `x[(0, 2)]` a `"view"` of `x` or a `"copy"`?

# %%
predict("16.p1", None)  # replace None with your prediction

# %%
as_tuple, as_list = x[(0, 2)], x[[0, 2]]
print(f"x[(0, 2)] shape {tuple(as_tuple.shape)}, shares x's storage: {same_storage(as_tuple, x)}")
print(f"x[[0, 2]] shape {tuple(as_list.shape)}, shares x's storage: {same_storage(as_list, x)}")
reveal(
    "16.p1",
    "view" if same_storage(as_tuple, x) else "copy",
    choices=("view", "copy"),
    why="a tuple in the brackets is the subscript itself: x[(0, 2)] is x[0, 2], two integers, basic "
    "indexing, a 0-d view of one entry. A list is one index array: x[[0, 2]] copies rows 0 and 2.",
)

# %% [markdown]
# Even `x[torch.tensor([2])]`, a single row picked by a one-element index tensor, is a copy:
# the *kind* of index decides, not how many numbers it picks. The storage pointers say it;
# a write says it too. Change the first entry of a sliced view and of an indexed copy:

# %%
x = torch.arange(12).reshape(3, 4)
view, copy = x[::2], x[[0, 2]]
print("equal values:", torch.equal(view, copy))
view[0, 0] = 100
copy[1, 0] = -1
print(x)
claim(x[0, 0] == 100 and x[2, 0] == 8, "the write through the slice reached x; the write into the copy did not")

# %% [markdown]
# **The exception: a 0-d integer tensor.** A tensor with no dimensions and an integer dtype
# (int64 or int32, say; not bool or uint8, which index as masks), such as `torch.tensor(2)` or
# the result of `argmax()`, is read as a plain integer: PyTorch takes its value (`.item()`,
# which on a GPU waits for the device) and calls `select`, exactly as for `x[2]`. So
# `x[torch.tensor(2)]` is a **view**, and an in-place method on it writes into `x`. NumPy
# draws the line elsewhere: `a[np.array(2)]` is advanced indexing there, and a copy.

# %%
import numpy as np

x = torch.arange(12).reshape(3, 4)
row, rows = x[torch.tensor(2)], x[torch.tensor([2])]
print(f"x[torch.tensor(2)]   shape {tuple(row.shape)}   shares x's storage: {same_storage(row, x)}")
print(f"x[torch.tensor([2])] shape {tuple(rows.shape)} shares x's storage: {same_storage(rows, x)}")
row.mul_(10)  # writes into x
print(x)
a = np.arange(12).reshape(3, 4)
print("NumPy: a[np.array(2)] shares a's memory:", np.shares_memory(a[np.array(2)], a))
claim(same_storage(row, x) and not same_storage(rows, x), "a 0-d index tensor gives a view, a 1-element 1-D one a copy")
claim(x[2].tolist() == [80, 90, 100, 110], "mul_ on x[torch.tensor(2)] changed row 2 of x")

# %% [markdown]
# ## Boolean masks: select, and assign
#
# A comparison gives a `bool` tensor of the same shape, a **mask**. Indexing with a mask of
# the full shape returns the selected entries as a **1-D** copy, in row-major order; its
# length is the number of `True`s, which depends on the data. A 1-D mask on the first
# dimension selects whole rows instead.

# %%
x = torch.tensor([[3, -1, 4], [-1, 5, -9], [2, 6, 5]])
mask = x > 2
print(mask)
print("x[mask]       =", x[mask])
rows = (x >= 0).all(dim=1)  # one boolean per row
print("rows          =", rows)
print("x[rows]       =", x[rows])
claim(x[mask].shape == (int(mask.sum()),), "x[mask] is 1-D, one entry per True")

# %% [markdown]
# On the **left** of `=` the same index writes into `x`'s own storage: `x[mask] = value` is
# an in-place assignment (torch 2.13 calls `index_put_`, which, for a boolean mask and one
# value, hands the work to `masked_fill_`; torch 2.15 calls `masked_fill_` directly).
# `masked_fill` does the same out of place, and `masked_fill_` in place.

# %%
ptr = x.untyped_storage().data_ptr()
filled = x.masked_fill(x < 0, 0)  # a new tensor; x unchanged
x[x < 0] = 0  # in place
print(x)
print("x still in the same storage:", x.untyped_storage().data_ptr() == ptr)
claim(torch.equal(x, filled) and x.untyped_storage().data_ptr() == ptr, "mask assignment changed x in place")

# %% [markdown]
# ## Integer-array indexing: pick by position
#
# A list or int64 tensor as an index picks positions along that dimension, in the order you
# give and with repeats allowed. Several index tensors in one subscript are read **in
# pairs**: `x[rows, cols]` is the entries `(rows[k], cols[k])`. The index tensors broadcast
# against each other, and the result has their broadcast shape, so a column of rows against
# a row of columns picks a whole grid:

# %%
x = torch.arange(12).reshape(3, 4)
rows, cols = torch.tensor([0, 2, 2]), torch.tensor([3, 0, 1])
print("x[[2, 0, 0]] =\n", x[[2, 0, 0]])
print("x[rows, cols] =", x[rows, cols])  # entries (0,3), (2,0), (2,1)
grid = x[rows[:, None], cols]  # shapes (3, 1) and (3,) broadcast to (3, 3)
print("x[rows[:, None], cols] =\n", grid)
claim(grid.shape == (3, 3) and torch.equal(grid.diagonal(), x[rows, cols]), "the pairs are the grid's diagonal")

# %% [markdown]
# A second place PyTorch parts from NumPy: a plain integer next to an index tensor. PyTorch
# applies the integer first, as a `select` (basic indexing), and the index tensor's dimension
# stays where it was. NumPy counts the integer as one more index array; when two index
# arrays are separated by a slice, NumPy puts their broadcast dimension first:

# %%
a = np.arange(120).reshape(2, 3, 4, 5)
t = torch.from_numpy(a)
print("[:, 1, :, [0, 2]] on a (2, 3, 4, 5) tensor")
print("  PyTorch's shape:", tuple(t[:, 1, :, [0, 2]].shape))
print("  NumPy's shape:  ", a[:, 1, :, [0, 2]].shape)
claim(t[:, 1, :, [0, 2]].shape == (2, 4, 2) and a[:, 1, :, [0, 2]].shape == (2, 2, 4), "the shapes differ")

# %% [markdown]
# `index_select(dim, index)` is the named form of one integer index on one dimension: it
# takes whole slices along `dim`. It is a copy too.

# %%
pick = torch.tensor([3, 0])
by_index_select = x.index_select(1, pick)
print(by_index_select)
claim(torch.equal(by_index_select, x[:, pick]), "x.index_select(1, pick) equals x[:, pick]")
claim(not same_storage(by_index_select, x), "index_select copies")

# %% [markdown]
# ## `torch.where` and `nonzero`
#
# `torch.where(cond, a, b)` chooses elementwise: `a` where `cond` holds, `b` elsewhere, all
# three broadcast together. It is a new tensor, and both `a` and `b` are computed in full
# before the choice: `torch.where(x > 0, x.log(), 0)` still takes the log of every entry
# (the unwanted results are just not picked; under autograd, a NaN or inf from the unused branch
# still reaches the gradient, as module 14 showed). With one argument, `torch.where(cond)` is
# `cond.nonzero(as_tuple=True)`: a tuple of index tensors, one per dimension, ready to
# index with. `nonzero()` without the tuple gives the coordinates as one `(count, ndim)`
# tensor.

# %%
x = torch.tensor([[0.5, -2.0, 3.0], [-1.0, 0.0, 4.0]])
print(torch.where(x > 0, x, torch.zeros_like(x)))
print("nonzero():\n", (x > 0).nonzero())
r, c = torch.where(x > 0)
print("torch.where(cond):", r, c)
claim(torch.equal(x[r, c], x[x > 0]), "indexing with torch.where(cond) picks what the mask picks")

# %% [markdown]
# The length of `nonzero`'s result depends on the data, so on a GPU PyTorch must wait for
# the device to count before it can allocate the result: the documentation of
# `torch.nonzero` warns that it synchronises host and device. `x[mask]` calls it too. In a
# hot loop on a GPU, prefer `torch.where(mask, x, 0)` or `masked_fill`, whose output shape
# is known in advance. `torch.nonzero_static(mask, size=k)` needs no count either: it returns
# exactly `k` rows, padded with -1, or cut short without a word when there are more.
#
# ## `gather`: one index per output element
#
# `gather(dim, index)` returns a tensor shaped like `index`, where along `dim` the index says
# which entry to read and every other coordinate stays put. For `dim=1` on a matrix:
# `out[i, j] = src[i, index[i, j]]`. It is the tool for "one entry per row", such as each
# sample's score for its true class. `index` needs as many dimensions as `src`, so a
# per-row index gets a trailing dimension of 1:

# %%
scores = torch.tensor([[0.1, 0.7, 0.2], [0.5, 0.1, 0.4], [0.3, 0.3, 0.4], [0.9, 0.05, 0.05]])
label = torch.tensor([1, 0, 2, 2])
picked = scores.gather(1, label[:, None]).squeeze(1)
print("gather:       ", picked)
print("index pairs:  ", scores[torch.arange(4), label])
claim(torch.equal(picked, scores[torch.arange(4), label]), "gather along dim 1 equals the pair index")

# %% [markdown]
# ## Writing by index: `scatter_`, `scatter_add_`, `index_add_`
#
# `scatter_` is the inverse of `gather`: `self[i, index[i, j]] = src[i, j]` for `dim=1`. A
# one-hot matrix is a scatter of ones into zeros:

# %%
one_hot = torch.zeros(4, 3).scatter_(1, label[:, None], 1.0)
print(one_hot)
claim(torch.equal(one_hot.argmax(dim=1), label), "each row's 1 sits in its label's column")

# %% [markdown]
# **Repeated indices.** `counts[idx] += 1` reads `counts[idx]`, adds 1 and writes the result
# back to each position. A position that appears three times is written three times with
# the same value, so it counts **once**. `scatter_` with repeats is no better (the
# documentation leaves the winner undefined). The accumulating operations add every
# occurrence: `index_add_(dim, index, source)`, `scatter_add_`, and
# `index_put_(..., accumulate=True)`; for plain counts `torch.bincount` does the same.
#
# **Predict 16.p2.** With `idx = [1, 3, 1, 0, 1]` and `counts` four zeros, what is `counts[1]`
# after `counts[idx] += 1`? Write a whole number.

# %%
predict("16.p2", None)  # replace None with your prediction

# %%

# %%
idx = torch.tensor([1, 3, 1, 0, 1])
naive = torch.zeros(4, dtype=torch.int64)
naive[idx] += 1
added = torch.zeros(4, dtype=torch.int64).index_add_(0, idx, torch.ones_like(idx))
print("counts[idx] += 1:", naive)
print("index_add_:      ", added)
print("bincount:        ", torch.bincount(idx, minlength=4))
claim(naive[1] == 1 and added[1] == 3, "the += version counted index 1 once; index_add_ counted it three times")
reveal(
    "16.p2",
    int(naive[1]),
    why="Python runs counts[idx] += 1 in three steps: read counts[idx] (a gather: a copy of the old values, all 0), "
    "add 1 to that copy, write it back (index_put_). Index 1 is written three times with the same 1.",
)

# %% [markdown]
# With *different* values for a repeated position, `x[idx] = values` is worse than wrong: the
# documentation of `index_put_` calls the result undefined when `accumulate=False`, so the CPU may
# keep one value and a GPU another. And on a GPU, the accumulating operations on floats
# (`index_add_`, `scatter_add_`, `index_put_(accumulate=True)`) add with atomics in no fixed order:
# the last bits of a sum can change from run to run. `torch.use_deterministic_algorithms(True)`
# makes them repeatable, at some speed.

# %% [markdown]
# `index_add_` adds whole slices, which makes **segment sums** (per-group totals) one call:
# row `i` of `x` goes into row `seg[i]` of the output.

# %%
x = torch.tensor([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0], [4.0, 40.0]])
seg = torch.tensor([0, 2, 0, 2])
totals = torch.zeros(3, 2).index_add_(0, seg, x)
print(totals)
claim(torch.equal(totals[1], torch.zeros(2)), "segment 1 has no row, so its total stays zero")

# %% [markdown]
# ## What it costs (optional)
#
# A view costs one small tensor header, whatever the size. An advanced index pays for the
# copy **and** for its index: an int64 index holds 8 bytes per picked element, twice the
# float32 data it picks; a boolean mask holds 1 byte per element of the input. Count the
# bytes for every other element of a million float32 numbers:

# %%
n = 1_000_000
x = torch.rand(n)
idx = torch.arange(0, n, 2)
mask = torch.arange(n) % 2 == 0
for name, index, result in [
    ("x[::2]", None, x[::2]),
    ("x[idx]", idx, x[idx]),
    ("x[mask]", mask, x[mask]),
]:
    new = 0 if same_storage(result, x) else result.untyped_storage().nbytes()
    index_bytes = 0 if index is None else index.untyped_storage().nbytes()
    print(f"{name:8} new data: {new / 1e6:4.1f} MB   index: {index_bytes / 1e6:4.1f} MB")
claim(idx.untyped_storage().nbytes() == 2 * x[idx].untyped_storage().nbytes(), "the int64 index is twice the data")

# %% [markdown]
# The mask's 1 byte per element is not the whole story. `x[mask]` does not gather with the
# mask itself: it first turns the mask into int64 positions with `nonzero`, 8 bytes for each
# `True`, then gathers with those, as `x[idx]` does. The profiler shows `nonzero` running
# inside `x[mask]`'s `index` and the memory it allocated (`torchcourse.profiling.profile_memory`
# wraps `torch.profiler` with `profile_memory=True`):

# %%
from torchcourse.profiling import profile_memory

prof = profile_memory(lambda: x[mask])
inside = any(e.name == "aten::nonzero" and e.cpu_parent and e.cpu_parent.name == "aten::index" for e in prof.events())
nonzero_bytes = sum(e.self_cpu_memory_usage for e in prof.key_averages() if e.key == "aten::nonzero")
picked = int(mask.sum())
print("aten::nonzero runs inside x[mask]'s aten::index:", inside)
print(
    f"nonzero allocated {nonzero_bytes / 1e6:.1f} MB: {nonzero_bytes // picked} bytes for each of the {picked:,} Trues"
)
claim(inside and nonzero_bytes == 8 * picked, "x[mask] builds int64 positions, 8 bytes per True")

# %% [markdown]
# Time matters too. Measure the three ways of taking every other element as the tensor
# grows (min of repeats on one thread, as in module 05, so other work on the machine
# disturbs the numbers less):

# %%
# NBVAL_IGNORE_OUTPUT
sizes = [10**3, 10**4, 10**5, 10**6, 4 * 10**6]
times = {"x[::2] (view)": [], "x[idx] (integer array)": [], "x[mask] (boolean mask)": []}
threads = torch.get_num_threads()
torch.set_num_threads(1)
for n in sizes:
    x = torch.rand(n)
    idx, mask = torch.arange(0, n, 2), torch.arange(n) % 2 == 0
    for name, fn in zip(times, [lambda: x[::2], lambda: x[idx], lambda: x[mask]]):
        times[name].append(measure(fn, repeat=5, budget=0.02).min)
torch.set_num_threads(threads)
for i, n in enumerate(sizes):
    print(f"n = {n:>9,}: " + "   ".join(f"{name.split()[0]} {format_seconds(t[i])}" for name, t in times.items()))
view_t, int_t = times["x[::2] (view)"], times["x[idx] (integer array)"]
# A header (about a microsecond) vs copying 2 million picked floats (milliseconds): >1000x on any
# CPU at 1 thread, so 10x holds under load too.
claim(int_t[-1] > 10 * view_t[-1], "at 4 million elements the integer index is more than 10x slower than the slice")
# By construction: a slice builds a header and touches no data, whatever the size.
claim(view_t[-1] < 10 * view_t[0], "the slice costs about the same at every size (within 10x)")
# 2 million picks vs 500: the copy grows 4000x, the fixed cost of a call (microseconds) does not.
claim(
    all(t[-1] > 10 * t[0] for name, t in times.items() if "view" not in name),
    "both advanced indexes cost more than 10x as much at 4 million elements as at a thousand",
)

# %% [markdown]
# On log–log axes: the slice is flat (a header, no data touched), the two advanced indexes
# grow with the size, once past the fixed cost of a call. The mask has more work to do than
# the integer index: its `nonzero` reads the whole mask and writes the int64 positions
# (counting the `True`s first, to know how large the result is), and then comes the same
# gather `x[idx]` does.

# %%
fig, ax = plt.subplots(figsize=(6.5, 4))
for (name, t), marker in zip(times.items(), ["o", "s", "^"]):
    ax.loglog(sizes, t, marker + "-", label=name)
ax.set(
    xlabel="elements in x (float32); every other one is taken",
    ylabel="seconds per call (min of repeats)",
    title="Every other element: a view is free, advanced indexing copies (1 thread)",
)
ax.grid(alpha=0.3, which="both")
ax.legend()
plt.show()

# %% [markdown]
# Time the two steps on their own at the largest size: `mask.nonzero()` alone, the gather with
# the positions it returns, and the whole `x[mask]`. The three take turns, round after round,
# on one thread (`torchcourse.timing.interleaved`), so a busy moment slows all of them alike:

# %%
# NBVAL_IGNORE_OUTPUT
from torchcourse.timing import interleaved

x = torch.rand(sizes[-1])
mask = torch.arange(sizes[-1]) % 2 == 0
positions = mask.nonzero().squeeze(1)
steps = ["x[mask]", "mask.nonzero()", "x[positions]"]
best = interleaved([lambda: x[mask], mask.nonzero, lambda: x[positions]], rounds=5, threads=1)
parts = dict(zip(steps, best))
for name, seconds in parts.items():
    print(f"{name:>15}: {format_seconds(seconds)}")
both = parts["mask.nonzero()"] + parts["x[positions]"]
print(f"nonzero, then the gather: {both / parts['x[mask]']:.0%} of x[mask]'s time")

# %% [markdown]
# `x[mask]` runs these two steps one after the other (the profiler showed it), so their times
# together are of the order of its own: the last line compares them, and separately timed
# calls never add up exactly, least of all on a busy machine. What a mask costs on top of an
# integer index is its `nonzero` pass. When you select with the same mask many times, call
# `nonzero` once and index with the positions.

# %% [markdown]
# ## Common mistakes
#
# **Writing into a copy.** `x[mask]` and `x[idx]` on the right-hand side are copies, so an
# in-place method on them changes the copy and nothing else, silently. Only the assignment
# form, `x[mask] = ...` (or `x[mask] *= 2`, which Python turns into one), writes into `x`.

# %%
x = torch.tensor([1.0, -2.0, 3.0])
x[x > 0].mul_(10)  # multiplies a copy, then throws it away
print("after x[x > 0].mul_(10):", x)
x[x > 0] *= 10  # get, multiply, then assign: writes into x
print("after x[x > 0] *= 10:   ", x)
claim(x[0] == 10.0, "only the assignment form changed x")

# %% [markdown]
# **A mask of the wrong shape.** A boolean index must match the shape of the dimensions it
# covers; a mask built on another tensor fails loudly:

# %% tags=["raises-exception"]
x = torch.arange(12).reshape(3, 4)
x[torch.tensor([True, False])]

# %% [markdown]
# **A float index.** Index tensors must be integer or boolean. A float tensor, for example
# the result of a division or a `.mean()`, is refused; convert with `.long()` only when the
# values really are whole numbers:

# %% tags=["raises-exception"]
x[torch.tensor([0.0, 2.0])]

# %% [markdown]
# **An index out of range.** Advanced indexing checks every index (a slice silently stops at
# the end; an index tensor does not). Negative positions count from the end, as in Python:
# `x[[-1]]` is the last row.
#
# **Predict 16.p3.** `x[[-1]]` works. Does `x.index_select(0, torch.tensor([-1]))` `"run"` or
# `"raise"`?

# %%
predict("16.p3", None)  # replace None with your prediction

# %%
x = torch.arange(12).reshape(3, 4)
print("x[[-1]] =", x[[-1]])
try:
    x.index_select(0, torch.tensor([-1]))
    outcome = "run"
except IndexError as error:
    outcome = "raise"
    print(f"index_select: {type(error).__name__}: {error}")
reveal(
    "16.p3",
    outcome,
    choices=("run", "raise"),
    why="only the subscript x[...] wraps negative positions; index_select, gather, scatter_ and index_add_ "
    "take the index as it is, and -1 is out of range. Wrap it yourself: idx % x.shape[dim].",
)

# %% [markdown]
# And a positive one past the end:

# %% tags=["raises-exception"]
x[[0, 3]]

# %% [markdown]
# **`gather` with a 1-D index.** `gather` wants the index to have as many dimensions as the
# source: add the trailing dimension with `label[:, None]` (and squeeze it away after).

# %% tags=["raises-exception"]
scores.gather(1, label)

# %% [markdown]
# **Counting with `+=`.** As shown above, `counts[idx] += 1` counts a repeated index once,
# without an error. Use `index_add_`, `scatter_add_`, `index_put_(..., accumulate=True)` or
# `bincount`.
#
# ## Key points
#
# * Basic indexing (integers, slices, `...`, `None`) returns a **view**; advanced indexing
#   (integer or boolean tensors and lists) returns a **copy**, however few elements it
#   picks. A 0-d integer tensor counts as an integer: `x[torch.tensor(2)]` is a view (in
#   NumPy, `a[np.array(2)]` is a copy). `untyped_storage().data_ptr()` tells them apart.
# * On the left of `=`, advanced indexing writes in place (`x[mask] = 0`, `x[idx] = v`); an
#   in-place method *on* an indexed result (`x[mask].mul_(2)`) changes only a copy.
# * `x[mask]` is 1-D with a data-dependent length; `torch.where(cond, a, b)` keeps the shape
#   and computes both branches; `nonzero()` lists coordinates (and synchronises on a GPU).
# * Several index tensors are read in pairs and broadcast: `x[rows, cols]` picks entries,
#   `x[rows[:, None], cols]` a grid. `gather` reads one index per output element,
#   `index_select` whole slices.
# * `scatter_` writes by index; with repeated indices only `index_add_`, `scatter_add_`,
#   `index_put_(accumulate=True)` and `bincount` add every occurrence.
# * An advanced index costs a copy plus its index: 8 bytes per int64 index, 1 byte per mask
#   element, and `x[mask]` also builds int64 positions (`nonzero`, 8 bytes per `True`).

# %% [markdown]
# ## Further reading
#
# * [`torch.gather`](https://docs.pytorch.org/docs/stable/generated/torch.gather.html) and
#   [`torch.Tensor.scatter_`](https://docs.pytorch.org/docs/stable/generated/torch.Tensor.scatter_.html):
#   the index rules, written out for three dimensions, and what happens with repeated indices.
# * [`torch.Tensor.index_add_`](https://docs.pytorch.org/docs/stable/generated/torch.Tensor.index_add_.html)
#   and [`torch.nonzero`](https://docs.pytorch.org/docs/stable/generated/torch.nonzero.html)
#   (its note on host-device synchronisation).
# * [Tensor Views](https://docs.pytorch.org/docs/stable/tensor_view.html): which operations
#   return views, and its note that advanced indexing returns a copy (a 0-d integer tensor,
#   as you saw, is not advanced indexing in PyTorch).
# * [NumPy's indexing guide](https://numpy.org/doc/stable/user/basics.indexing.html): basic
#   versus advanced indexing and how index arrays broadcast. PyTorch follows the same rules
#   but for the two differences shown above: a 0-d integer tensor is an integer, and an
#   integer beside an index tensor is applied first, as a `select`.
# * [Tensor-Puzzles](https://github.com/srush/Tensor-Puzzles) and
#   [numpy-100](https://github.com/rougier/numpy-100): more puzzles of the "no loops, only
#   indexing and broadcasting" kind.

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 19 statements of this lesson are tested facts; all pass on torch 2.13.0. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“So <code>x[torch.tensor(2)]</code> is a view, and an in-place method on it writes into <code>x</code>. NumPy draws the line elsewhere: <code>a[np.array(2)]</code> is advanced indexing there, and a copy.”</td><td>✓</td></tr>
# <tr><td>“(int64 or int32, say; not bool or uint8, which index as masks)”</td><td>✓</td></tr>
# <tr><td>“Even <code>x[torch.tensor([2])]</code>, a single row picked by a one-element index tensor, is a copy”</td><td>✓</td></tr>
# <tr><td>“an integer beside an index tensor is applied first, as a <code>select</code>”</td><td>✓</td></tr>
# <tr><td>“torch 2.13 calls <code>index_put_</code>, which, for a boolean mask and one value, hands the work to <code>masked_fill_</code>; torch 2.15 calls <code>masked_fill_</code> directly”</td><td>✓</td></tr>
# <tr><td>“it first turns the mask into int64 positions with <code>nonzero</code>, 8 bytes for each <code>True</code>, then gathers with those”</td><td>✓</td></tr>
# <tr><td>“the documentation of <code>torch.nonzero</code> warns that it synchronises host and device”</td><td>✓</td></tr>
# <tr><td>“With one argument, <code>torch.where(cond)</code> is <code>cond.nonzero(as_tuple=True)</code>”</td><td>✓</td></tr>
# <tr><td>“A position that appears three times is written three times with the same value, so it counts once.”</td><td>✓</td></tr>
# <tr><td>“<code>index</code> needs as many dimensions as <code>src</code>”</td><td>✓</td></tr>
# <tr><td>“a slice silently stops at the end; an index tensor does not”</td><td>✓</td></tr>
# <tr><td>“Index tensors must be integer or boolean.”</td><td>✓</td></tr>
# <tr><td>“<code>x[0, 2]</code> passes the tuple <code>(0, 2)</code>, so <code>x[(0, 2)]</code> is the same subscript, while <code>x[[0, 2]]</code> passes a list.”</td><td>✓</td></tr>
# <tr><td>“Python runs counts[idx] += 1 in three steps: read counts[idx] (a gather: a copy of the old values, all 0)”</td><td>✓</td></tr>
# <tr><td>“the documentation of <code>index_put_</code> calls the result undefined when <code>accumulate=False</code>”</td><td>✓</td></tr>
# <tr><td>“<code>torch.use_deterministic_algorithms(True)</code> makes them repeatable, at some speed.”</td><td>✓</td></tr>
# <tr><td>“only the subscript x[...] wraps negative positions”</td><td>✓</td></tr>
# <tr><td>“under autograd, a NaN or inf from the unused branch still reaches the gradient”</td><td>✓</td></tr>
# <tr><td>“it returns exactly <code>k</code> rows, padded with -1, or cut short without a word when there are more”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/16_indexing.ipynb](../exercises/16_indexing.ipynb) ·
# **Previous:** [15 · Distributed tensors](15_distributed_tensors.ipynb) ·
# **Next:** [17 · Compile once: caches, export and ahead-of-time](17_compile_once.ipynb)
