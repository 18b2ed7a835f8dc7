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
# *Module 02 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/02_storage_and_views.ipynb) · previous: [01 · From data to tensors](01_data_to_tensors.ipynb) · next: [03 · Strides](03_strides.ipynb)

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
# # 02 · Storage and views
#
# A tensor is not the numbers themselves. It is a small description (shape, dtype, where to
# start, how to step) of a flat buffer of bytes called its **storage**. Many tensors can
# describe the same storage: slicing, transposing and reshaping usually create such *views*
# without copying a single number. That makes PyTorch fast and also explains its surprises:
# a write through one tensor shows up in another, `x = x + 1` and `x += 1` do different
# things, and a NumPy array can change under your feet. This notebook makes the storage
# visible so that you can tell, for any tensor, whether it owns its numbers or shares them.
#
# **Objectives.** After this notebook you can:
# 1. find a tensor's storage, its `data_ptr` and its `storage_offset`, and tell whether two
#    tensors share memory;
# 2. predict which operations return views and which copy, and write through a view on purpose;
# 3. tell an in-place operation (`add_`, `+=`) from a reassignment (`x = x + 1`);
# 4. choose between `clone`, `detach` and `detach().clone()`;
# 5. move data between NumPy and PyTorch knowing when memory is shared and when it is copied.
#
# **Prerequisites.** [00 · Start here](00_start_here.ipynb) and
# [01 · From data to tensors](01_data_to_tensors.ipynb): creating tensors, `shape`, `dtype`,
# indexing and slicing.
#
# **Time.** 30 min teaching, 25 min exercises.

# %%
import textwrap
import warnings

import matplotlib.pyplot as plt
import numpy as np
import torch

from torchcourse import claim, predict, reveal
from torchcourse.diagrams import draw_storage


def same_buffer(a, b):
    """True when two tensors use the same storage (the same allocation in memory)."""
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


# %% [markdown]
# ## The storage: one flat buffer of bytes
#
# Make a 2×3 tensor and ask for its storage with `untyped_storage()`. The storage knows
# nothing about shape or dtype: it is just `nbytes()` bytes. Six float32 numbers take
# 6 × 4 = 24 bytes.

# %%
t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
s = t.untyped_storage()
print(t)
print(type(s).__name__, "of", s.nbytes(), "bytes =", t.numel(), "elements ×", t.element_size(), "bytes each")
claim(s.nbytes() == t.numel() * t.element_size(), "the storage holds exactly numel × element_size bytes")

# %% [markdown]
# "Untyped" means exactly that. Two int16 numbers are four bytes; listing the storage shows
# the raw bytes, lowest byte first (every common CPU and GPU is little-endian):

# %%
small = torch.tensor([1, 258], dtype=torch.int16)  # 258 = 1 * 256 + 2
print(small.untyped_storage().tolist())

# %% [markdown]
# Older code calls `t.storage()`. It still works, but it returns a `TypedStorage`, which is
# deprecated, and the first call in a process warns. Here is the warning, caught and printed
# instead of being sprayed on stderr:

# %%
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    t.storage()
if caught:
    print(caught[0].category.__name__ + ":")
    print(textwrap.fill(str(caught[0].message).splitlines()[0], 88))
else:
    print("No warning this time: PyTorch warns once per process. Restart the kernel to see it again.")

# %% [markdown]
# So this course always uses `untyped_storage()`.
#
# ## Where a tensor starts: `data_ptr` and `storage_offset`
#
# `t.data_ptr()` is the memory address of the tensor's **first element**;
# `t.untyped_storage().data_ptr()` is the address of the start of the buffer. A row taken
# out of `t` starts `storage_offset()` elements into the same buffer. Addresses change every
# run, so the notebook prints only comparisons between them:

# %%
row = t[1]
print("row:", row, "| storage_offset:", row.storage_offset())
print("same buffer:", same_buffer(row, t))
print("row starts 3 elements in:", row.data_ptr() == t.data_ptr() + 3 * t.element_size())
print("same first element:", row.data_ptr() == t.data_ptr())
claim(same_buffer(row, t) and row.data_ptr() != t.data_ptr(), "the row shares t's storage but starts elsewhere in it")

# %% [markdown]
# The last line is why you compare **storages** (`untyped_storage().data_ptr()`), not
# `data_ptr()`, to ask "do these share memory?": a view that starts later has another
# `data_ptr` and yet the same buffer.
#
# ## Views share storage: write through one, read it in the other
#
# `row` has no numbers of its own. Write into it and `t` changes:

# %%
row[0] = 100.0
print(t)

# %% [markdown]
# Most operations that only rearrange elements return views: basic slicing, `view`,
# `reshape` (when it can), `t()`/`transpose`, `unsqueeze`, `expand`, `diagonal`. Operations
# that compute new values, and indexing with a list or a mask ("advanced indexing"), copy; so
# does `flip`, which only rearranges but has no view to give (module 03 shows why: there are
# no negative strides). `same_buffer` tells them apart:

# %%
t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
candidates = {
    "t[1]": t[1],
    "t[:, 1]": t[:, 1],
    "t.view(3, 2)": t.view(3, 2),
    "t.reshape(6)": t.reshape(6),
    "t.t()": t.t(),
    "t.unsqueeze(0)": t.unsqueeze(0),
    "t.diagonal()": t.diagonal(),
    "t[[0, 1]]  (a list)": t[[0, 1]],
    "t[t > 2]   (a mask)": t[t > 2],
    "t * 1": t * 1,
    "t.clone()": t.clone(),
    "t.flip(1)": t.flip(1),
}
for name, value in candidates.items():
    print(f"{name:22} shares t's storage: {same_buffer(value, t)}")
views = [name for name in candidates if same_buffer(candidates[name], t)]
claim(
    views == list(candidates)[:7],
    "slicing, view, reshape, t(), unsqueeze and diagonal share the storage; list and mask indexing, arithmetic, "
    "clone and flip copy",
)

# %% [markdown]
# "`reshape` (when it can)" hides a choice you do not see. `t.reshape(6)` above was a view
# because `t`'s rows lie one after the other in memory. The transpose `t.t()` has the same six
# numbers, read column by column.
#
# **Predict 02.p1.** Is `t.t().reshape(6)` a `"view"` of `t` or a `"copy"`?

# %%
predict("02.p1", None)  # replace None with your prediction

# %%
flat = t.t().reshape(6)
print("t.t().reshape(6) =", flat, "| shares t's storage:", same_buffer(flat, t))
try:
    t.t().view(6)
except RuntimeError as error:
    print("t.t().view(6) refuses:", str(error).split(".")[0])
reveal(
    "02.p1",
    "view" if same_buffer(flat, t) else "copy",
    choices=("view", "copy"),
    why="read column by column, the six numbers are not one evenly spaced run of the storage, so no "
    "view can describe them: reshape copies, silently, and a write into the result no longer reaches t. "
    "Use view() when you need a view: it raises instead of copying.",
)

# %% [markdown]
# `reshape` decides at run time, from the strides; `view` always returns a view or raises. When
# code writes through a reshaped tensor, write it with `view`.

# %% [markdown]
# ## A picture of one storage and its views (optional)
#
# Here are twelve numbers (0, 10, ..., 110), one storage, and four views over it. The top
# row is the storage: its values, with each cell's position above it. Each view's row
# colours the positions it reads, and the number in a coloured cell is that element's place
# in the view (element 0, 1, 2, ... in reading order). Look at `m[:, 2]`: a column is three
# numbers four positions apart, and `m[::2, 1:3]` reads four numbers in two separate runs,
# all without a copy. The grey text on the right is each view's metadata, which the next
# module explains.

# %%
base = torch.arange(0, 120, 10, dtype=torch.float32)
m = base.view(3, 4)
fig = draw_storage(base, {"m = base.view(3, 4)": m, "m[1]": m[1], "m[:, 2]": m[:, 2], "m[::2, 1:3]": m[::2, 1:3]})
plt.show()

# %% [markdown]
# ## In-place operations versus reassignment
#
# Methods ending in an underscore (`add_`, `mul_`, `zero_`, `clamp_`, ...) and the augmented
# operators (`+=`, `*=`) write into the existing storage. A plain expression such as
# `a + 1` allocates a new tensor, and `a = a + 1` then points the *name* `a` at it; the old
# buffer is untouched. Watch the buffer, and a view `v` taken beforehand:

# %%
a = torch.zeros(4)
v = a[:2]  # a view of the first two elements
before = a.untyped_storage().data_ptr()

a.add_(1)
print("after a.add_(1):  same buffer:", a.untyped_storage().data_ptr() == before, "| a =", a, "| v =", v)
a += 1
print("after a += 1:     same buffer:", a.untyped_storage().data_ptr() == before, "| a =", a, "| v =", v)
a = a + 1
print("after a = a + 1:  same buffer:", a.untyped_storage().data_ptr() == before, "| a =", a, "| v =", v)
claim(not torch.equal(a[:2], v), "after the reassignment, a and the old view v no longer agree")

# %% [markdown]
# After the reassignment `a` and `v` have parted: `v` still looks at the old buffer. This is
# the usual cause of "I updated it but nothing changed". `zero_` and slice assignment are
# in place too, so they reach every view of the buffer:

# %%
a.zero_()
print("a =", a)
v[:] = 7  # slice assignment writes into the old buffer, which v still holds
print("v =", v)

# %% [markdown]
# In-place operations save an allocation, which matters for big tensors, but they overwrite
# values autograd may need and they change data other code may hold through a view. Use them
# when you own the buffer.
#
# ## `clone` and `detach`
#
# `clone()` copies the numbers into a new storage. `detach()` does the opposite: it shares
# the storage and drops only the autograd history (`requires_grad`). So a detached tensor is
# a view, and writing into it changes the original:

# %%
x = torch.ones(3, requires_grad=True)
d = x.detach()
c = x.clone()
print("detach: same buffer:", same_buffer(d, x), "| requires_grad:", d.requires_grad)
print(
    "clone:  same buffer:",
    same_buffer(c, x),
    "| requires_grad:",
    c.requires_grad,
    "| grad_fn:",
    type(c.grad_fn).__name__,
)

d.zero_()
print("x after d.zero_():", x)

# %% [markdown]
# For an independent copy without history, the idiom is `x.detach().clone()`: detach first so
# the copy is not recorded by autograd.

# %%
y = torch.ones(3, requires_grad=True)
snap = y.detach().clone()
snap += 1
print(
    "same buffer:",
    same_buffer(snap, y),
    "| requires_grad:",
    snap.requires_grad,
    "| y unchanged:",
    torch.equal(y.detach(), torch.ones(3)),
)

# %% [markdown]
# ## NumPy interop: shared or copied?
#
# On the CPU a tensor and a NumPy array can share one buffer. `torch.from_numpy(n)` and
# `t.numpy()` create such a shared pair, so a write on either side shows on the other:

# %%
n = np.arange(4.0)  # NumPy's default float is float64, and the tensor keeps it
t = torch.from_numpy(n)
n[0] = 100.0  # write on the NumPy side
t[1] = -1.0  # write on the PyTorch side
print("n =", n)
print("t =", t)
print("t.numpy() shares with n:", np.shares_memory(t.numpy(), n))

# %% [markdown]
# The other ways in do not all share. `torch.tensor(...)` **always copies**;
# `torch.as_tensor(...)` shares when it can and copies when it must, for instance when you
# ask for another dtype (float64 numbers cannot be float32 numbers without converting each
# one):

# %%
n = np.arange(4.0)  # the numbers 0, 1, 2, 3
ways = {
    "torch.from_numpy(n)": torch.from_numpy(n),
    "torch.as_tensor(n)": torch.as_tensor(n),
    "torch.tensor(n)": torch.tensor(n),
    "torch.as_tensor(n, dtype=torch.float32)": torch.as_tensor(n, dtype=torch.float32),
    "torch.from_numpy(n).float()": torch.from_numpy(n).float(),
}
for name, value in ways.items():
    print(f"{name:40} {value.dtype!s:14} shares with n: {np.shares_memory(value.numpy(), n)}")

# %% [markdown]
# "Always copies" has one exception, and it is not a share (nor does `as_tensor`'s "copies when it
# must" cover it). `n[::-1]` is a NumPy view that reads its buffer backwards: a negative stride,
# which a tensor cannot have (module 03).
#
# **Predict 02.p2.** What does `torch.tensor(n[::-1])` do: `"copy"` the reversed numbers,
# `"share"` memory with `n`, or `"raise"`?

# %%
predict("02.p2", None)  # replace None with your prediction

# %%
backwards = n[::-1]
print("NumPy strides of n[::-1]:", backwards.strides)
outcomes, message = {}, "none raised"
for name, make in [
    ("torch.tensor", torch.tensor),
    ("torch.as_tensor", torch.as_tensor),
    ("torch.from_numpy", torch.from_numpy),
]:
    try:
        made = make(backwards)
        outcomes[name] = "share" if np.shares_memory(made.numpy(), n) else "copy"
    except ValueError as error:
        outcomes[name] = "raise"
        message = str(error).split(",")[0]
    print(f"{name}(n[::-1]): {outcomes[name]}")
print("the message:", message)
print("what works: torch.tensor(n[::-1].copy()) =", torch.tensor(backwards.copy()))
reveal(
    "02.p2",
    outcomes["torch.tensor"],
    choices=("copy", "share", "raise"),
    why="all three ways in read the array through its strides, and a tensor cannot have a negative stride: "
    "they raise instead of copying. Copy on the NumPy side first (n[::-1].copy()) or flip in PyTorch.",
)

# %% [markdown]
# Two cases cannot share at all:
#
# * **GPU tensors.** A CUDA tensor's storage is in GPU memory, which NumPy cannot address.
#   `t.numpy()` on it raises `TypeError: can't convert cuda:0 device type tensor to numpy.
#   Use Tensor.cpu() to copy the tensor to host memory first.` The fix is `t.cpu().numpy()`,
#   and it is a copy into host memory, so a later write on either side is not seen by the
#   other. The `meta` device (shapes, no data), which every machine has, gives the same error:

# %% tags=["raises-exception"]
torch.ones(2, device="meta").numpy()

# %% [markdown]
# * **Tensors that require grad.** NumPy knows nothing of autograd, so PyTorch refuses rather
#   than let a NumPy write corrupt a gradient computation silently. The message says what to
#   do:

# %% tags=["raises-exception"]
w = torch.ones(3, requires_grad=True)
w.numpy()

# %% [markdown]
# `w.detach().numpy()` works, and it still shares `w`'s memory (detach is a view), so a
# write into the array reaches `w`:

# %%
arr = w.detach().numpy()
arr[0] = 5.0
print("arr =", arr, "| w =", w)
claim(w[0].item() == 5.0, "a write into w.detach().numpy() reaches w")

# %% [markdown]
# Autograd does not see such a write. A write through `w.detach()` in PyTorch bumps a version
# counter that `w` shares, and a backward pass that needs the old `w` then refuses to run. A
# write through NumPy bypasses PyTorch, so the counter stays put. Compute `y = (w * w).sum()`,
# whose gradient is `2 * w`, with `w` all ones; then write 5 into `w` through NumPy and call
# `y.backward()`.
#
# **Predict 02.p3.** What is `w.grad[0]`? Write a number (or `"raise"` if you expect an error).

# %%
predict("02.p3", None)  # replace None with your prediction

# %%
w = torch.ones(3, requires_grad=True)
y = (w * w).sum()  # saves w for the backward pass: dy/dw = 2 * w = 2 at every element
w.detach().numpy()[0] = 5.0  # not seen by autograd: w's version counter stays at 0
y.backward()
print("w.grad =", w.grad, "| w's version counter:", w._version)
w2 = torch.ones(3, requires_grad=True)
y2 = (w2 * w2).sum()
w2.detach()[0] = 5.0  # the same write in PyTorch: the counter moves
try:
    y2.backward()
except RuntimeError as error:
    print("through w.detach():", str(error).split(":")[0])
reveal(
    "02.p3",
    w.grad[0].item(),
    why="the backward pass reads the w it saved, which now holds 5, so it returns 2 * 5 = 10 for a function "
    "evaluated at w = 1: a wrong gradient and no error. Never write through NumPy into a tensor autograd uses.",
)

# %% [markdown]
# **A caveat for tensors made from NumPy.** `torch.from_numpy` wraps exactly the memory the
# array covers, so two tensors made from overlapping NumPy slices get two storages that start
# at different addresses. Comparing storage addresses then says "not shared" although a
# write through one shows in the other. For such tensors ask NumPy, which checks whether the
# memory ranges overlap:

# %%
n = np.arange(6.0)
whole, tail = torch.from_numpy(n), torch.from_numpy(n[2:])
tail[0] = -1.0
print("same storage address:", same_buffer(whole, tail), "| whole =", whole)
print("np.shares_memory:", np.shares_memory(whole.numpy(), tail.numpy()))
claim(not same_buffer(whole, tail) and whole[2].item() == -1.0, "the storages differ, yet they share memory")

# %% [markdown]
# ## Common mistakes
#
# **An in-place operation on a leaf that requires grad.** A tensor you created with
# `requires_grad=True` is a *leaf* of the autograd graph, and changing it in place would
# invalidate the gradients. Wrap such updates (an optimiser step, for example) in
# `with torch.no_grad():`.

# %% tags=["raises-exception"]
p = torch.ones(3, requires_grad=True)
p.add_(1)

# %%
with torch.no_grad():
    p.add_(1)
print(p)

# %% [markdown]
# **Writing into an expanded view.** `expand` repeats an element without copying it (the
# next module shows how: a stride of 0), so several positions of the view are one number in
# memory. In-place arithmetic such as `add_`, and `copy_`, first check that the tensor they
# write has no such shared positions, and refuse:

# %% tags=["raises-exception"]
bias = torch.zeros(3)
grid = bias.expand(2, 3)
grid.add_(torch.arange(6.0).reshape(2, 3))

# %% [markdown]
# The refusal does not depend on the values: adding zeros, which would change nothing, is
# refused too. It comes from a check on the strides, which finds a dimension of stride 0
# (module 03 shows overlapping views that it lets through). `fill_` and `zero_`, which write
# one value everywhere, skip it, and write through to `bias`:

# %%
for name, write in [
    ("add_(torch.zeros(2, 3))", lambda: grid.add_(torch.zeros(2, 3))),
    ("fill_(1.0)", lambda: grid.fill_(1.0)),
]:
    try:
        write()
        print(f"grid.{name}: done | bias = {bias}")
    except RuntimeError:
        print(f"grid.{name}: RuntimeError")

# %% [markdown]
# Fix: make the copy you meant, `grid = bias.expand(2, 3).clone()` (or `bias.repeat(2, 1)`).
#
# **Expecting a copy from `from_numpy` or `detach`.** Both share memory, so changing the
# result changes the source. When you need a snapshot, say so: `torch.tensor(n)` or
# `x.detach().clone()`.
#
# **Comparing `data_ptr()` to test sharing.** `t[1].data_ptr() != t.data_ptr()` even though
# they share storage; compare `untyped_storage().data_ptr()` instead (and, for tensors made
# from NumPy slices, `np.shares_memory`).
#
# ## Key points
#
# * A tensor = a storage (flat bytes, `untyped_storage()`) + a description (shape, dtype,
#   `storage_offset`, strides). `storage()` is deprecated; use `untyped_storage()`.
# * Views share storage: writes through a view change the base. Slicing, `view`, `t()`,
#   `unsqueeze`, `expand`, `detach` give views; arithmetic, `clone`, `flip` and advanced
#   indexing copy.
# * `add_`, `zero_`, `+=` and slice assignment write in place; `x = x + 1` rebinds the name
#   to a new buffer and leaves old views behind.
# * `from_numpy`/`.numpy()` share memory; `torch.tensor` copies; `as_tensor` shares unless a
#   dtype or device change forces a copy. GPU tensors go through `.cpu()`, tensors that
#   require grad through `.detach()`.
# * Ask "same memory?" with `a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()`
#   for tensors derived from one another in PyTorch; for tensors wrapping NumPy slices,
#   `np.shares_memory` checks whether the memory overlaps.

# %% [markdown]
# ## Further reading
#
# * [Tensor Views](https://docs.pytorch.org/docs/stable/tensor_view.html): the PyTorch
#   documentation's list of view operations, and why a view may not be contiguous.
# * [`torch.from_numpy`](https://docs.pytorch.org/docs/stable/generated/torch.from_numpy.html):
#   memory shared with the NumPy array, and the undefined behaviour of writing to a tensor
#   made from a read-only array.
# * [`torch.Tensor.view`](https://pytorch.org/docs/stable/generated/torch.Tensor.view.html):
#   when a view is possible without a copy.

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 16 statements of this lesson are tested facts; all pass on torch 2.13.0. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“The storage knows nothing about shape or dtype: it is just <code>nbytes()</code> bytes”</td><td>✓</td></tr>
# <tr><td>“it returns a <code>TypedStorage</code>, which is deprecated, and the first call in a process warns”</td><td>✓</td></tr>
# <tr><td>“<code>t.data_ptr()</code> is the memory address of the tensor&#x27;s first element; <code>t.untyped_storage().data_ptr()</code> is the address of the start of the buffer”</td><td>✓</td></tr>
# <tr><td>“Most operations that only rearrange elements return views: basic slicing, <code>view</code>, <code>reshape</code> (when it can), <code>t()</code>/<code>transpose</code>, <code>unsqueeze</code>, <code>expand</code>, <code>diagonal</code>”</td><td>✓</td></tr>
# <tr><td>“Operations that compute new values, and indexing with a list or a mask (&quot;advanced indexing&quot;), copy; so does <code>flip</code>”</td><td>✓</td></tr>
# <tr><td>“Methods ending in an underscore (<code>add_</code>, <code>mul_</code>, <code>zero_</code>, <code>clamp_</code>, ...) and the augmented operators (<code>+=</code>, <code>*=</code>) write into the existing storage”</td><td>✓</td></tr>
# <tr><td>“<code>clone()</code> copies the numbers into a new storage. <code>detach()</code> does the opposite: it shares the storage and drops only the autograd history”</td><td>✓</td></tr>
# <tr><td>“<code>torch.as_tensor(...)</code> shares when it can and copies when it must, for instance when you ask for another dtype”</td><td>✓</td></tr>
# <tr><td>“Tensors that require grad. NumPy knows nothing of autograd, so PyTorch refuses”</td><td>✓</td></tr>
# <tr><td>“<code>torch.from_numpy</code> wraps exactly the memory the array covers, so two tensors made from overlapping NumPy slices get two storages that start at different addresses”</td><td>✓</td></tr>
# <tr><td>“A tensor you created with <code>requires_grad=True</code> is a leaf of the autograd graph”</td><td>✓</td></tr>
# <tr><td>“It comes from a check on the strides, which finds a dimension of stride 0”</td><td>✓</td></tr>
# <tr><td>“<code>fill_</code> and <code>zero_</code>, which write one value everywhere, skip it, and write through to <code>bias</code>”</td><td>✓</td></tr>
# <tr><td>“<code>reshape</code> decides at run time, from the strides; <code>view</code> always returns a view or raises.”</td><td>✓</td></tr>
# <tr><td>“<code>n[::-1]</code> is a NumPy view that reads its buffer backwards: a negative stride, which a tensor cannot have”</td><td>✓</td></tr>
# <tr><td>“A write through NumPy bypasses PyTorch, so the counter stays put.”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/02_storage_and_views.ipynb](../exercises/02_storage_and_views.ipynb) ·
# **Previous:** [01 · From data to tensors](01_data_to_tensors.ipynb) ·
# **Next:** [03 · Strides](03_strides.ipynb)
