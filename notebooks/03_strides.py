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
# *Module 03 of 00–16 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/03_strides.ipynb) · previous: [02 · Storage and views](02_storage_and_views.ipynb) · next: [04 · Dtypes](04_dtypes.ipynb)

# %% tags=["course-setup"] jupyter={"source_hidden": true}
# Course setup. On your own machine this cell installs nothing. On Google Colab it fetches
# the course and installs its helper package, torchcourse, once per session.
# Colab runtime: CPU is enough for this module.
import sys

if "google.colab" in sys.modules:
    import os
    import subprocess

    home = os.environ.get("TORCHCOURSE_HOME", "/content/pytorch-course")
    repo = os.environ.get("TORCHCOURSE_REPO", "")
    if not os.path.isdir(home):
        if not repo:
            raise RuntimeError(
                "This copy of the course names no repository to fetch: run "
                "os.environ['TORCHCOURSE_REPO'] = '<the course git URL>' in a cell, then this cell again."
            )
        subprocess.run(["git", "clone", "--quiet", "--depth", "1", repo, home], check=True)
        pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "-e", home]
        subprocess.run(pip, check=True)
    sys.path.insert(0, home)
    print("Colab: the course is in", home)
else:
    print("Local run: nothing to install.")
# A note on stderr when this torch is not 2.13.0 (the one the stored outputs were made with),
# saying whether it is supported; an error naming what is missing when it is too old.
from torchcourse.preflight import check_torch

_ = check_torch()

# %% [markdown] tags=["outputs-stamp"]
# *Outputs made with torch 2.13.0+cpu on Intel(R) Xeon(R) Processor (2 cores, CPU only), 2026-11-23.*

# %% [markdown]
# # 03 · Strides
#
# The previous module showed that a tensor is a view of a flat storage. This one shows the
# rule that turns an index such as `t[i, j]` into a position in that storage: the
# **strides**. With strides, transposing a matrix, broadcasting a row to a thousand rows or
# cutting a signal into overlapping windows costs nothing: PyTorch changes a few integers
# and copies no data. Strides also explain why `view` sometimes refuses, what
# `contiguous()` is for, and why the same sum can run many times slower when its
# numbers lie far apart in memory.
#
# **Objectives.** After this notebook you can:
# 1. compute the storage position of any element from size, stride and offset;
# 2. predict the strides after `t()`, `transpose`, `permute`, `expand` and slicing, and say
#    whether the result is contiguous;
# 3. choose between `view`, `reshape` and `contiguous()`, and read the error `view` raises;
# 4. build sliding windows with `unfold` or `as_strided` without copying, and avoid
#    writing through overlapping windows;
# 5. explain, with a measurement, why reading memory in order is faster.
#
# **Prerequisites.** [02 · Storage and views](02_storage_and_views.ipynb): `untyped_storage`,
# `storage_offset`, views versus copies.
#
# **Time.** 35 min teaching, 30 min exercises.

# %%
import matplotlib.pyplot as plt
import numpy as np
import torch

from torchcourse import claim, measure
from torchcourse.diagrams import draw_stride_panels, draw_strides, storage_index


def same_buffer(a, b):
    """True when two tensors use the same storage (see module 02)."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


# %% [markdown]
# ## Size, offset, stride
#
# Three pieces of metadata place a tensor in its storage: `size()` (the shape),
# `storage_offset()` (where element `[0, 0, ...]` sits) and `stride()` (how many storage
# elements to skip to move by one along each dimension). Element `[i, j]` lives at
#
# $$\text{position} = \text{offset} + i \cdot \text{stride}_0 + j \cdot \text{stride}_1 .$$

# %%
m = torch.arange(12, dtype=torch.float32).view(3, 4)
print(m)
print("size:", tuple(m.shape), "| stride:", m.stride(), "| offset:", m.storage_offset())

# %% [markdown]
# Check the formula by hand for `m[2, 1]`, reading the storage directly (`as_strided` with
# size `(12,)` and stride `(1,)` is the flat storage itself):

# %%
flat = m.as_strided((12,), (1,), 0)
i, j = 2, 1
position = m.storage_offset() + i * m.stride(0) + j * m.stride(1)
print("position:", position, "| flat[position]:", flat[position].item(), "| m[2, 1]:", m[i, j].item())
claim(
    all(flat[m.stride(0) * a + m.stride(1) * b] == m[a, b] for a in range(3) for b in range(4)),
    "offset + i·stride₀ + j·stride₁ finds every element of m in its storage",
)

# %% [markdown]
# ## Row-major layout
#
# A fresh tensor is laid out **row-major** (C order): the last index moves fastest, so the
# last stride is 1 and each stride is the product of the sizes to its right. For shape
# `(2, 3, 4)` that is `(3·4, 4, 1) = (12, 4, 1)`. NumPy does the same, but counts strides in
# bytes:

# %%
b = torch.zeros(2, 3, 4)
print("torch strides (elements):", b.stride())
print("NumPy strides (bytes):   ", b.numpy().strides, "= elements ×", b.element_size())

# %% [markdown]
# ## `t()` and `transpose` swap strides
#
# Transposing copies nothing: it swaps the sizes *and* the strides. `m.t()` reads the same
# twelve numbers, one column after another. The same works for any two dimensions with
# `transpose(d0, d1)`:

# %%
print("m.t():            size", tuple(m.t().shape), "stride", m.t().stride(), "| same buffer:", same_buffer(m.t(), m))
c = torch.zeros(2, 3, 4)
print("c:                size", tuple(c.shape), "stride", c.stride())
print("c.transpose(0, 2): size", tuple(c.transpose(0, 2).shape), "stride", c.transpose(0, 2).stride())
claim(
    m.t().stride() == m.stride()[::-1] and same_buffer(m.t(), m) and not m.t().is_contiguous(),
    "m.t() swaps the strides, shares m's storage and is not contiguous",
)

# %% [markdown]
# ## Stride diagrams
#
# Each panel below draws a tensor twice: left, the grid you index, each cell labelled with
# the storage position it reads; right, the storage, coloured by the row that reads each
# position. The arrows are the strides: how far one step along a row or a column jumps. `m`
# paints the storage in solid blocks. `m.t()` interleaves the colours: one step to the next
# row is +1, to the next column +4. The column `m[:, 1]` jumps 4 at a time from offset 1,
# and the broadcast row at the bottom has a row stride of 0: every row reads the same four
# cells.

# %%
fig = draw_stride_panels(
    {"m": m, "m.t()": m.t(), "m[:, 1]": m[:, 1], "torch.arange(4.0).expand(3, 4)": torch.arange(4.0).expand(3, 4)}
)
plt.show()

# %% [markdown]
# ## `permute`: any order of dimensions
#
# `permute` reorders all dimensions at once, and the strides follow. Image code meets this
# constantly: a batch stored as `(N, H, W, C)` (how most image files and NumPy code hold
# pixels) becomes the `(N, C, H, W)` that PyTorch's convolutions expect:

# %%
nhwc = torch.zeros(8, 32, 32, 3)
nchw = nhwc.permute(0, 3, 1, 2)
print("NHWC:", tuple(nhwc.shape), nhwc.stride())
print("NCHW:", tuple(nchw.shape), nchw.stride(), "| same buffer:", same_buffer(nchw, nhwc))

# %% [markdown]
# ## `is_contiguous` and `contiguous()`
#
# A tensor is **contiguous** when its strides are exactly the row-major strides of its
# shape, so reading it in index order walks the storage front to back with no gaps.
# `contiguous()` returns the tensor itself when it already is, and otherwise copies the
# elements into a fresh row-major storage:

# %%
for name, x in {"m": m, "m.t()": m.t(), "m[:, 1:3]": m[:, 1:3], "m[1]": m[1], "nchw": nchw}.items():
    y = x.contiguous()
    print(
        f"{name:10} contiguous: {x.is_contiguous()!s:5} | contiguous() strides {y.stride()}, "
        f"copied: {not same_buffer(x, y)}"
    )
claim(m.contiguous() is m, "contiguous() returns a contiguous tensor itself, not a copy")

# %% [markdown]
# ## `view` versus `reshape`
#
# `view(shape)` never copies: it only computes new strides, and that is possible only when
# the elements, taken in row-major order, can be reached with one stride per new dimension.
# On a transposed matrix they cannot, and `view` raises (the real error is in **Common
# mistakes** below). `reshape` returns a view when it can and a copy when it must:

# %%
r1 = m.reshape(6, 2)
r2 = m.t().reshape(12)
print("m.reshape(6, 2):      view:", same_buffer(r1, m), "| stride", r1.stride())
print("m.t().reshape(12):    view:", same_buffer(r2, m), "|", r2.tolist())
claim(same_buffer(r1, m) and not same_buffer(r2, m), "reshape returns a view of m, but must copy m.t()")

# %% [markdown]
# Use `view` when you *want* the guarantee that nothing is copied (a write through the
# result must reach the original); use `reshape` when you just need the shape.
#
# ## `expand` and stride 0
#
# `expand` repeats a dimension of size 1 by giving it **stride 0**: every step along it
# stays on the same numbers. A 1000-row "matrix" of one row costs the memory of one row.
# `repeat` makes real copies:

# %%
row = torch.tensor([1.0, 2.0, 3.0])
tall = row.expand(1000, 3)
copied = row.repeat(1000, 1)
print(
    "expand: stride",
    tall.stride(),
    "| storage bytes",
    tall.untyped_storage().nbytes(),
    "| same buffer:",
    same_buffer(tall, row),
)
print("repeat: stride", copied.stride(), "| storage bytes", copied.untyped_storage().nbytes())
print("same values:", torch.equal(tall, copied))
claim(
    tall.untyped_storage().nbytes() == row.untyped_storage().nbytes(),
    "the expanded 1000-row tensor uses the storage of one row",
)

# %% [markdown]
# Broadcasting (`matrix + row`) does this for you behind the scenes: the smaller operand
# is expanded with stride 0, never copied.
#
# ## Sliding windows without copies: `unfold` and `as_strided`
#
# A window of length 3 sliding along a signal of length 8 gives 6 windows. As a view,
# window `k` starts at position `k`, so the windows overlap in memory: the window
# dimension has stride 1, and so does the position inside a window. `unfold(dim, size,
# step)` builds it; `as_strided(size, stride)` does the same with the numbers spelled out:

# %%
signal = torch.tensor([1.0, 3.0, 2.0, 5.0, 4.0, 6.0, 8.0, 7.0])
windows = signal.unfold(0, 3, 1)
print(windows)
print("stride", windows.stride(), "| same buffer:", same_buffer(windows, signal))
print("as_strided agrees:", torch.equal(windows, signal.as_strided((6, 3), (1, 1))))
print("moving average:", windows.mean(dim=1))

# %% [markdown]
# Six windows of three are 18 numbers, read from the 8 the signal already holds. The
# diagram shows the overlap: each row of the window tensor reads the row above shifted by
# one position.

# %%
fig = draw_strides(windows, title="signal.unfold(0, 3, 1): stride (1, 1), the windows overlap")
plt.show()

# %% [markdown]
# With a step equal to the window size the windows tile the signal without overlap, and
# `unfold` on two dimensions cuts an image into patches, again as a view:

# %%
img = torch.arange(16.0).view(4, 4)
patches = img.unfold(0, 2, 2).unfold(1, 2, 2)  # (2, 2) grid of 2×2 patches
print("patches shape", tuple(patches.shape), "stride", patches.stride(), "| same buffer:", same_buffer(patches, img))
print(patches[0, 1])

# %% [markdown]
# **The danger: writing through overlapping windows.** Positions that appear in several
# windows are updated once per window. Add 1 to every window of a zero signal and each
# position grows by the number of windows that contain it: the middle gains 3, the ends 1.
# PyTorch does not warn you:

# %%
z = torch.zeros(6)
z.unfold(0, 3, 1).add_(1)
print("after adding 1 to every window:", z)
claim(z.max() == 3 and z[0] == 1 and z[-1] == 1, "the middle positions gained 3, the ends 1")

# %% [markdown]
# Worse, the result of a write depends on the order the kernel visits elements: copy
# twelve different values into the four overlapping windows of a six-element tensor and
# only the last write to each position survives. Treat overlapping views as read-only;
# when you need to write, `clone()` the windows first (that makes the copy you are
# avoiding, so do it only then).

# %%
z = torch.zeros(6)
z.unfold(0, 3, 1).copy_(torch.arange(12.0).view(4, 3))
print(z)

# %% [markdown]
# ## `channels_last`: the same shape, another layout
#
# A memory format is a choice of strides for the same shape. `channels_last` keeps the
# `(N, C, H, W)` shape but stores the channels of one pixel next to each other (NHWC in
# memory). Convolution kernels on recent GPUs (and oneDNN on CPUs) often run faster in it.
# The values are the same; only the strides change:

# %%
x = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).view(2, 3, 4, 5)
cl = x.to(memory_format=torch.channels_last)
print("shape", tuple(cl.shape), "| NCHW strides", x.stride(), "| channels_last strides", cl.stride())
print(
    "contiguous:",
    cl.is_contiguous(),
    "| contiguous in channels_last:",
    cl.is_contiguous(memory_format=torch.channels_last),
)
print("same values:", torch.equal(x, cl), "| copied:", not same_buffer(x, cl))
print("it is a permuted NHWC tensor:", cl.permute(0, 2, 3, 1).is_contiguous())

# %% [markdown]
# ## Why layout matters for speed
#
# Memory reaches the processor in cache lines, 64 bytes on most CPUs (128 on Apple
# silicon): 16 float32 numbers. Summing numbers that sit next to each other uses every byte
# of each line; summing numbers that sit `s` elements apart uses one number per line once
# `s ≥ 16`, and the hardware prefetcher, which guesses the next lines to fetch, helps less
# and less.
#
# The experiment below sums the same count of numbers (2¹⁹) along a dimension of stride
# `s`: a column of a matrix with `s` columns, a view into one shared buffer. A second curve
# first calls `contiguous()` and then sums. Timings use `torchcourse.timing.measure`
# (warm-up, repeats, minimum) on **one thread**, so that other cores do not blur the
# picture. They vary from run to run and machine to machine; the cell prints the ratios
# it found, and the cell after it checks the facts the text below relies on.

# %%
# NBVAL_IGNORE_OUTPUT
n_sum = 2**19
steps = [1, 2, 4, 8, 16, 32, 64]
buffer = torch.ones(n_sum * steps[-1])  # 128 MiB, shared by every view below
threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    strided_ns, copy_ns = [], []
    for s in steps:
        column = buffer[: n_sum * s].view(n_sum, s)[:, 0]  # column 0 of an (n_sum, s) matrix: stride s
        strided_ns.append(measure(lambda c=column: c.sum(), repeat=7, budget=0.04).min / n_sum * 1e9)
        copy_ns.append(measure(lambda c=column: c.contiguous().sum(), repeat=7, budget=0.04).min / n_sum * 1e9)
finally:
    torch.set_num_threads(threads)
for s, a, c in zip(steps, strided_ns, copy_ns):
    print(f"stride {s:3}: {a:6.2f} ns per number | contiguous() then sum: {c:6.2f} ns")
print(f"stride {steps[-1]} vs stride 1: {strided_ns[-1] / strided_ns[0]:.0f}x slower per number")
print(f"stride {steps[-1]} vs stride 16: {strided_ns[-1] / strided_ns[4]:.1f}x the cost per number")

fig, ax = plt.subplots(figsize=(6, 3.2))
ax.plot(steps, strided_ns, "o-", label="sum of the strided view")
ax.plot(steps, copy_ns, "s--", label="contiguous() first, then sum")
ax.set_xscale("log", base=2)
ax.set_yscale("log")
ax.set_xticks(steps, [str(s) for s in steps])
ax.axvline(16, color="gray", linestyle=":", linewidth=1)
ax.text(16, min(strided_ns), " 16 floats = one 64-byte cache line", fontsize=8, color="gray", va="bottom")
ax.set(
    xlabel="stride s (elements between neighbours)",
    ylabel="ns per number summed (min of 7)",
    title="Summing 2^19 float32 along a dimension of stride s (1 thread)",
)
ax.legend(fontsize=8)
ax.grid(alpha=0.3, which="both")
plt.show()

# %% [markdown]
# Read the printed ratios and the plot: the cost per number grows by far more than 10x
# from stride 1 to stride 64 (the first claim below). Up to stride 16, each doubling of the
# stride halves the useful bytes per cache line; past 16, every number already needs its
# own line, and what happens next depends on the machine: the prefetcher, and the TLB (the
# cache of page addresses; a 4 KiB page holds 1024 floats, so at stride 64 only 16 numbers
# share a page). The second printed ratio shows what this machine did past 16.
# `contiguous()` does not rescue a single sum: making the copy is itself a strided read, so
# the dashed curve stays close to the solid one or above it, never far below (the second
# claim checks it over all the strides together, since one timing can be disturbed). A copy pays off when you read the data many times afterwards (a matrix you
# multiply again and again), or when a kernel demands it. The checked facts behind the
# experiment:

# %%
evidence = (
    f"ns per number, strided {[round(a, 2) for a in strided_ns]}, contiguous first {[round(c, 2) for c in copy_ns]}"
)
claim(
    strided_ns[-1] > 10 * strided_ns[0],
    "a stride of 64 costs more than 10 times as much per number as stride 1",
    evidence,
)
claim(
    sum(copy_ns) > sum(strided_ns) / 2,
    "over all strides, contiguous() first costs at least half as much as the strided sums: no rescue",
    evidence,
)
column = buffer[: n_sum * 16].view(n_sum, 16)[:, 0]
print(
    "stride:",
    column.stride(),
    "| numbers:",
    column.numel(),
    "| a view:",
    same_buffer(column, buffer),
    "| contiguous:",
    column.is_contiguous(),
)
print("strided sum == contiguous sum:", column.sum().item() == column.contiguous().sum().item())
del buffer, column

# %% [markdown]
# ## Common mistakes
#
# **`view` on a non-contiguous tensor.** The error says what to do: use `reshape` (which
# copies here), or call `contiguous()` first when you want to make the copy explicit.

# %% tags=["raises-exception"]
m.t().view(12)

# %% [markdown]
# **Negative strides.** NumPy can reverse an array with a negative stride; PyTorch has no
# negative strides, so `torch.from_numpy` refuses such an array (and `torch.flip` copies):

# %% tags=["raises-exception"]
torch.from_numpy(np.arange(5)[::-1])

# %% [markdown]
# **`as_strided` past the end of the storage.** `as_strided` trusts the numbers you give
# it, but it does check that the last element fits in the storage. Three rows of three with
# a row stride of 2 put the last element at position (3−1)·2 + (3−1)·1 = 6, so they need 7
# elements (28 bytes), not the 6 (24 bytes) there are. The error counts in bytes:

# %% tags=["raises-exception"]
torch.arange(6.0).as_strided((3, 3), (2, 1))

# %% [markdown]
# Within bounds, `as_strided` will happily build a view whose elements overlap or skip
# around: nothing checks that it means what you meant. Prefer `unfold`, `expand`,
# `transpose` and slicing, which compute the strides for you, and use the diagram helper
# `storage_index(t)` to see which positions a view reads:

# %%
print(storage_index(torch.arange(6.0).as_strided((2, 3), (2, 1))))

# %% [markdown]
# ## Key points
#
# * Element `[i, j, ...]` sits at `offset + i·stride₀ + j·stride₁ + ...` in the storage;
#   `size()`, `stride()` and `storage_offset()` are the whole description.
# * Fresh tensors are row-major: the last stride is 1. `t()`, `transpose` and `permute`
#   reorder strides without copying, and the result is usually not contiguous.
# * `view` never copies and fails when it would have to; `reshape` copies only then;
#   `contiguous()` copies only when the tensor is not already contiguous.
# * `expand` (and broadcasting) uses stride 0; `unfold` and `as_strided` make overlapping
#   windows for free, but never write through overlapping views.
# * `channels_last` is another set of strides for the same NCHW shape.
# * Reading memory in order is far faster than striding through it; measure before and
#   after you change a layout.

# %% [markdown]
# ## Further reading
#
# * [`torch.Tensor.stride`](https://docs.pytorch.org/docs/stable/generated/torch.Tensor.stride.html):
#   the number of storage elements to jump per step along each dimension.
# * [`torch.Tensor.view`](https://pytorch.org/docs/stable/generated/torch.Tensor.view.html):
#   the exact stride condition under which `view` can reshape without copying.
# * [Tensor Views](https://docs.pytorch.org/docs/stable/tensor_view.html): which operations
#   return views, and why a view such as a transpose may not be contiguous.
# * [Channels Last Memory Format in PyTorch](https://docs.pytorch.org/tutorials/intermediate/memory_format_tutorial.html):
#   the strides of `channels_last`, and which operators it speeds up.

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/03_strides.ipynb](../exercises/03_strides.ipynb) ·
# **Previous:** [02 · Storage and views](02_storage_and_views.ipynb) ·
# **Next:** [04 · Dtypes](04_dtypes.ipynb)
