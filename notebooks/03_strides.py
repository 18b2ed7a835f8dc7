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
# *Module 03 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/03_strides.ipynb) · previous: [02 · Storage and views](02_storage_and_views.ipynb) · next: [04 · Dtypes](04_dtypes.ipynb)

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

from torchcourse import claim, predict, reveal
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
#
#
# **Predict 03.p1.** `nhwc = torch.zeros(8, 32, 32, 3)` has strides `(3072, 96, 3, 1)`. What are the
# strides of `nhwc.permute(0, 3, 1, 2)`? Write them as a tuple in a string, e.g. `"(1, 2, 3, 4)"`.

# %%
predict("03.p1", None)  # replace None with your prediction

# %%
nhwc = torch.zeros(8, 32, 32, 3)
nchw = nhwc.permute(0, 3, 1, 2)
print("NHWC:", tuple(nhwc.shape), nhwc.stride())
print("NCHW:", tuple(nchw.shape), nchw.stride(), "| same buffer:", same_buffer(nchw, nhwc))
reveal(
    "03.p1",
    str(nchw.stride()),
    why="permute moves each dimension's stride along with its size and computes nothing new: the channel "
    "dimension keeps its stride 1, so the result is not row-major for its shape (that would be (3072, 1024, 32, 1)).",
)

# %% [markdown]
# ## `is_contiguous` and `contiguous()`
#
# A tensor is **contiguous** when its strides are the row-major strides of its shape (a
# dimension of size 1 may have any stride: nothing ever steps along it), so reading it in
# index order walks the storage front to back with no gaps.
# `contiguous()` returns the tensor itself when it already is, and otherwise copies the
# elements into a fresh row-major storage. So it is not a way to get a copy: whether a write into
# its result reaches the original depends on the input's strides.
#
# **Predict 03.p2.** `y = m.contiguous()`, then `y[0, 0] = -1.0`. Does `m[0, 0]` change? `True` or
# `False`.

# %%
predict("03.p2", None)  # replace None with your prediction

# %%
y = m.contiguous()
y[0, 0] = -1.0
changed = m[0, 0].item() == -1.0
yt = m.t().contiguous()
yt[0, 0] = -2.0
print(f"m.contiguous() is m: {y is m} | m[0, 0] after the write: {m[0, 0].item()}")
print(f"m.t().contiguous() is a copy: {not same_buffer(yt, m)} | m[0, 0] after writing -2 into it: {m[0, 0].item()}")
reveal(
    "03.p2",
    changed,
    why="m is already contiguous, so m.contiguous() is m itself and the write lands in m; the same call on "
    "m.t() copies, and its write is lost. For a copy you can write into, call clone().",
)
m[0, 0] = 0.0  # put m back as it was

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
# The check that refused the write into an expanded view in module 02 looks only for a stride
# of 0; overlap like this one it lets through, and PyTorch does not warn you:
#
#
# **Predict 03.p3.** `z = torch.zeros(6)`, then `z.unfold(0, 3, 1).add_(1)`: four windows of three.
# What is `z[2]` afterwards? Write a number.

# %%
predict("03.p3", None)  # replace None with your prediction

# %%
z = torch.zeros(6)
z.unfold(0, 3, 1).add_(1)
print("after adding 1 to every window:", z)
reveal(
    "03.p3",
    z[2].item(),
    why="position 2 sits in three windows (those starting at 0, 1 and 2), and add_ visits it once per "
    "window: three read-add-writes of one number. No error, no warning.",
)
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
# ## `channels_last`: the same shape, another layout (optional)
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
# ## Why layout matters for speed (optional)
#
# Memory reaches the processor in whole **cache lines**, 64 bytes on most CPUs (128 on Apple
# silicon): 16 float32 numbers. A kernel that needs one number of a line moves all 64 bytes. So
# what a strided sum costs is the lines it touches, not the numbers it adds.
#
# The experiment below makes one buffer of 2²⁵ float32 (128 MiB, more than the last-level cache
# of most CPUs) and sums every `s`-th number of it: `buffer[::s]`, a 1-D view of stride `s`. Up to
# `s = 16` every 64-byte line of the buffer holds at least one of the numbers, so each of these
# sums moves the same 128 MiB from memory, although at `s = 16` it adds 16 times fewer numbers
# than at `s = 1`. Past 16, each number has a line of its own: 2²⁵ / `s` lines of 64 bytes.
#
# Two other ways to sum the same numbers run beside it: `contiguous()` first and then sum, and
# a copy into a buffer made once (`out.copy_(view)`) and then sum. All of them take turns,
# round after round (`torchcourse.timing.interleaved`, best of 5 rounds), on **one thread**, so
# a busy moment on your machine slows them alike. The table holds each sum against the read
# limit of your memory, measured the same way: the sum of a 256 MiB tensor on one thread
# (`torchcourse.timing.read_bandwidth`).

# %%
# NBVAL_IGNORE_OUTPUT
from matplotlib.ticker import FuncFormatter

from torchcourse.timing import interleaved, read_bandwidth

n_all = 2**25  # 128 MiB of float32
steps = [1, 2, 4, 8, 16, 32, 64]
buffer = torch.ones(n_all)
ready = torch.zeros(n_all)  # the copy's destination, allocated and written once, before any timing
views = {s: buffer[::s] for s in steps}


def strided_sum(view):
    return lambda: view.sum()


def contiguous_then_sum(view):
    return lambda: view.contiguous().sum()


def copy_then_sum(view, out):
    return lambda: out.copy_(view).sum()


def line_bytes(s):
    """Bytes of the 64-byte lines that buffer[::s] touches."""
    return n_all * 4 if s <= 16 else n_all // s * 64


threads = torch.get_num_threads()
torch.set_num_threads(1)
try:
    read_limit = read_bandwidth()  # GB/s of a 256 MiB float32 sum, on this one thread
    contenders = [strided_sum(views[s]) for s in steps] + [contiguous_then_sum(views[s]) for s in steps]
    contenders += [copy_then_sum(views[s], ready[: views[s].numel()]) for s in steps]
    best = interleaved(contenders, rounds=5)
finally:
    torch.set_num_threads(threads)
k = len(steps)
strided_s, contiguous_s, ready_s = best[:k], best[k : 2 * k], best[2 * k :]
per_number_ns = [t / views[s].numel() * 1e9 for s, t in zip(steps, strided_s)]

print(f"read limit of this machine, one thread: {read_limit:.1f} GB/s")
print("  s |    numbers | strided sum: ms, ns/number, lines moved, GB/s of lines | contiguous() first | ready buffer")
for s, a, ns, c, r in zip(steps, strided_s, per_number_ns, contiguous_s, ready_s):
    gbps = line_bytes(s) / a / 1e9
    print(
        f"{s:3} | {views[s].numel():>10,} | {a * 1e3:6.2f} ms {ns:6.2f} ns {line_bytes(s) / 2**20:5.0f} MiB "
        f"{gbps:5.1f} GB/s ({gbps / read_limit:4.0%}) | {c * 1e3:8.2f} ms | {r * 1e3:7.2f} ms"
    )

fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.4))
left.plot(steps, [a * 1e3 for a in strided_s], "o-", label="sum of the strided view")
left.plot(steps, [c * 1e3 for c in contiguous_s], "s--", label="contiguous() first, then sum")
left.plot(steps, [r * 1e3 for r in ready_s], "^:", label="copy into a ready buffer, then sum")
left.set(xlabel="stride s", ylabel="ms per sum (best of 5)", title="Time per sum of buffer[::s] (1 thread)")
right.plot(steps, per_number_ns, "o-")
right.set(xlabel="stride s", ylabel="ns per number summed", title="The strided sum, per number")
plain = FuncFormatter(lambda v, _: f"{v:g}" if f"{v:.0e}"[0] in "1246" else "")  # 1, 2, 4, 6 of each decade
for ax in (left, right):
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain)
    ax.set_xticks(steps, [str(s) for s in steps])
    ax.axvline(16, color="gray", linestyle=":", linewidth=1)
    ax.grid(alpha=0.3, which="both")
left.legend(fontsize=8)
right.text(16, min(per_number_ns), "16 floats = one 64-byte line ", fontsize=8, color="gray", va="bottom", ha="right")
plt.tight_layout()
plt.show()

# %% [markdown]
# Read the table and the left plot. Up to stride 8 or 16 the time per sum hardly changes,
# although the count of numbers halves at every step: every one of these sums moves the same
# 128 MiB of lines, near the read limit (the GB/s column). Per number (the right plot), stride 16
# therefore costs some 16 times what stride 1 costs, or more. Past 16 each number needs a line of
# its own and there are fewer lines to move, but lines with gaps between them arrive at fewer
# GB/s than a stream of consecutive lines: a CPU is built to fetch the next lines of a stream
# ahead of time, and lines far apart it fetches less well. How much less well depends on your
# CPU (on some, the sum at stride 32 takes longer than at 16, with half the lines); the GB/s
# column shows it for yours. (With 128-byte lines, every line is touched up to stride 32.)
#
# `contiguous()` does not rescue a single sum: to make its copy it does the same strided read,
# then writes the copy and reads it again to sum it. And its output is new memory on every call.
# What that costs depends on the size and on your C library: on Linux, glibc's `malloc` gives
# blocks of 32 MiB and more (the outputs at strides 2 and 4, 64 and 32 MiB) back to the
# operating system when they are freed and asks for fresh ones on the next call, and the first
# write to each fresh 4 KiB page is a page fault. The last column, a copy into a buffer made
# once, does the same reads and writes without the allocation: the gap between the two columns
# is what the fresh memory cost. (At stride 1 the view is already contiguous, and `contiguous()`
# returns it as it is.) The cell below counts the page faults of one `contiguous()`
# call at each stride (on Linux and macOS; the count is the operating system's, so it varies
# with its settings and with what the allocator did before).

# %%
# NBVAL_IGNORE_OUTPUT
from torchcourse.timing import page_faults  # minor page faults of one call (None off Linux/macOS)

if page_faults(lambda: None) is None:
    print("No page-fault counter on this system (the resource module is Unix only).")
else:
    for s in steps[1:5]:
        views[s].contiguous()  # once before counting, as the timing's warm-up did
        faults = page_faults(views[s].contiguous)
        print(f"stride {s:2}: contiguous() writes {views[s].numel() * 4 / 2**20:3.0f} MiB, {faults:6,} page faults")

# %% [markdown]
# A copy pays off when you read the data many times afterwards (a matrix you multiply again
# and again), or when a kernel demands it. The checked facts behind the experiment:

# %%
evidence = (
    f"ms per sum, strided {[round(a * 1e3, 2) for a in strided_s]}, "
    f"contiguous first {[round(c * 1e3, 2) for c in contiguous_s]}"
)
# Strides 1 and 16 move the same 64-byte lines; adding 16x fewer numbers cannot make the sum
# 4x faster on any CPU (the two took turns, on one thread).
claim(
    strided_s[4] > strided_s[0] / 4,
    "summing every 16th number takes more than a quarter of the time of summing all of them",
    evidence,
)
# At stride 64 each number costs a 64-byte line (16x the bytes of stride 1), and lines with gaps
# arrive no faster than a stream: more than 10x per number on any CPU.
# The rival, "a strided sum is just slower per number, lines do not matter": then stride 16 (8x fewer
# numbers than stride 2, the same strided kernel) would take about an eighth of stride 2's time.
# Both move every 128 MiB of lines, so on any CPU it takes well over a third.
claim(
    strided_s[4] > strided_s[1] / 3,
    "summing every 16th number takes more than a third of the time of summing every 2nd: the same lines",
    evidence,
)
claim(
    per_number_ns[-1] > 10 * per_number_ns[0],
    "a stride of 64 costs more than 10 times as much per number as stride 1",
    evidence,
)
# contiguous() does the strided read and then writes and re-reads a copy: by construction at
# least the strided sum's work, so half of it is a margin every machine meets.
claim(
    sum(contiguous_s) > sum(strided_s) / 2,
    "over all strides, contiguous() first costs at least half as much as the strided sums: no rescue",
    evidence,
)
column = buffer[::16]
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
del buffer, ready, views, contenders, column

# %% [markdown]
# ## Common mistakes
#
# **`view` where the strides do not allow it.** Flattening a transposed matrix needs one
# stride for elements that sit 4 apart and then jump back: impossible, and the error says
# what to do: use `reshape` (which copies here), or call `contiguous()` first when you want to
# make the copy explicit. (`view` does work on some non-contiguous tensors: `m.t().view(2, 2, 3)`
# only splits a dimension, and returns a view.)

# %% tags=["raises-exception"]
m.t().view(12)

# %% [markdown]
# **Negative strides.** NumPy can reverse an array with a negative stride; PyTorch has no
# negative strides, so `torch.from_numpy` refuses such an array (so do `torch.tensor` and
# `torch.as_tensor`, module 02; `torch.flip` copies):

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
# * Memory moves in 64-byte lines: a sum over every 16th number moves the same lines as a sum
#   over all of them, so per number it costs far more. `contiguous()` first does not help a
#   single pass; measure before and after you change a layout.

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

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 17 statements of this lesson are tested facts; all pass on torch 2.13.0. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“<code>stride()</code> (how many storage elements to skip to move by one along each dimension)”</td><td>✓</td></tr>
# <tr><td>“the last index moves fastest, so the last stride is 1 and each stride is the product of the sizes to its right”</td><td>✓</td></tr>
# <tr><td>“Transposing copies nothing: it swaps the sizes and the strides”</td><td>✓</td></tr>
# <tr><td>“A tensor is contiguous when its strides are the row-major strides of its shape (a dimension of size 1 may have any stride: nothing ever steps along it)”</td><td>✓</td></tr>
# <tr><td>“<code>contiguous()</code> returns the tensor itself when it already is, and otherwise copies the elements into a fresh row-major storage”</td><td>✓</td></tr>
# <tr><td>“<code>reshape</code> returns a view when it can and a copy when it must”</td><td>✓</td></tr>
# <tr><td>“<code>view</code> does work on some non-contiguous tensors: <code>m.t().view(2, 2, 3)</code> only splits a dimension, and returns a view”</td><td>✓</td></tr>
# <tr><td>“<code>expand</code> repeats a dimension of size 1 by giving it stride 0”</td><td>✓</td></tr>
# <tr><td>“the smaller operand is expanded with stride 0, never copied”</td><td>✓</td></tr>
# <tr><td>“the window dimension has stride 1, and so does the position inside a window”</td><td>✓</td></tr>
# <tr><td>“overlap like this one it lets through, and PyTorch does not warn you”</td><td>✓</td></tr>
# <tr><td>“<code>channels_last</code> keeps the <code>(N, C, H, W)</code> shape but stores the channels of one pixel next to each other”</td><td>✓</td></tr>
# <tr><td>“PyTorch has no negative strides, so <code>torch.from_numpy</code> refuses such an array (so do <code>torch.tensor</code> and <code>torch.as_tensor</code>, module 02; <code>torch.flip</code> copies)”</td><td>✓</td></tr>
# <tr><td>“<code>as_strided</code> trusts the numbers you give it, but it does check that the last element fits in the storage”</td><td>✓</td></tr>
# <tr><td>“So it is not a way to get a copy: whether a write into its result reaches the original depends on the input&#x27;s strides.”</td><td>✓</td></tr>
# <tr><td>“permute moves each dimension&#x27;s stride along with its size and computes nothing new”</td><td>✓</td></tr>
# <tr><td>“Positions that appear in several windows are updated once per window.”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/03_strides.ipynb](../exercises/03_strides.ipynb) ·
# **Previous:** [02 · Storage and views](02_storage_and_views.ipynb) ·
# **Next:** [04 · Dtypes](04_dtypes.ipynb)
