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
# *Module 07 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/07_gpu_offload.ipynb) · previous: [06 · Linear algebra](06_linear_algebra.ipynb) · next: [08 · nn.Module as a container for computation](08_modules_and_buffers.ipynb)

# %% tags=["course-setup"] jupyter={"source_hidden": true}
# Course setup. On your own machine this cell installs nothing. On Google Colab it fetches
# the course and installs its helper package, torchcourse, once per session.
# Colab runtime: GPU (Runtime > Change runtime type > T4 GPU); on a CPU the GPU cells are skipped.
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
    import torch

    if not torch.cuda.is_available():
        print("No GPU in this runtime: Runtime > Change runtime type > T4 GPU, then run this cell again.")
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
# # 07 · GPU offload: exercises
#
# Practice for the lesson [07 · GPU offload](../notebooks/07_gpu_offload.ipynb): creating
# and moving tensors, computing where the data is, and reasoning about what a transfer and
# a product cost.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("07.3")` shows the
# next hint for exercise 07.3. Exercises go from warm-up to stretch; each one stands alone.
#
# No GPU needed: the checks use the `meta` device (shapes and dtypes, no data) as the
# "other" device, so every exercise runs the same on a laptop and on a GPU server.

# %%
import torch

from torchcourse import check, hint

# %% [markdown]
# ### 07.1 · Create directly on a device (warm-up)
#
# Write `zeros_on(t, device)` that returns a tensor of zeros with the shape **and dtype**
# of `t`, created directly on `device` (no CPU tensor made and then moved).


# %%
def zeros_on(t, device):
    # YOUR CODE HERE
    raise NotImplementedError


check("07.1", zeros_on)


# %% [markdown]
# ### 07.2 · Compute on the device of the first operand
#
# `a` lives on some device (a GPU, or `meta` in the check) and `b` on the CPU. Write
# `add_on_device_of(a, b)` that returns `a + b` computed on `a`'s device. Leave both inputs
# unchanged, and keep PyTorch's usual result dtype (a float32 `a` plus a float64 `b` gives
# float64).


# %%
def add_on_device_of(a, b):
    # YOUR CODE HERE
    raise NotImplementedError


check("07.2", add_on_device_of)


# %% [markdown]
# ### 07.3 · Bytes moved by a transfer
#
# Write `transfer_bytes(t)` that returns, as an `int`, how many bytes `t.to(device)` copies
# over the bus: every element of `t`, whatever its dtype.


# %%
def transfer_bytes(t):
    # YOUR CODE HERE
    raise NotImplementedError


check("07.3", transfer_bytes)


# %% [markdown]
# ### 07.4 · GFLOP/s of a matrix product
#
# An `n×n` by `n×n` matrix product took `seconds`. Write `matmul_gflops(n, seconds)` that
# returns the rate in GFLOP/s (10⁹ floating-point operations per second), counting the
# product as 2n³ operations: n³ multiply-adds, each a multiply and an add. The check uses
# the published figures of the lesson, e.g. 5000×5000 in 57.88 ms on a laptop GPU.


# %%
def matmul_gflops(n, seconds):
    # YOUR CODE HERE
    raise NotImplementedError


check("07.4", matmul_gflops)


# %% [markdown]
# ### 07.5 · GPU-friendly dtype and device
#
# Consumer GPUs are slow at float64. Write `gpu_friendly(t, device)` that returns `t` on
# `device`, with float64 converted to float32 and every other dtype (float32, float16,
# bfloat16, complex, integers, bool) kept as it is. Tip: one `.to(...)` call can change the
# device and the dtype together.


# %%
def gpu_friendly(t, device):
    # YOUR CODE HERE
    raise NotImplementedError


check("07.5", gpu_friendly)


# %% [markdown]
# ### 07.6 · Move a batch dictionary
#
# Data loaders often yield a dict such as `{"x": tensor, "y": tensor, "step": 7, "name":
# "batch-0"}`. Write `batch_to(batch, device)` that returns a **new** dict with the same
# keys: every value that is a tensor (an `nn.Parameter` too) moved to `device`, every other
# value kept as it is, even one that holds tensors (a list of tensors, a `PackedSequence`).


# %%
def batch_to(batch, device):
    # YOUR CODE HERE
    raise NotImplementedError


check("07.6", batch_to)


# %% [markdown]
# ### 07.8 · Time queued device work
#
# On an accelerator, `fn()` only queues its work and returns at once. Write
# `time_gpu(fn, sync, clock)` that returns how long the work of **one** call `fn()` takes, in
# seconds: call `sync()` (such as `torch.accelerator.synchronize`, which waits until all
# queued work has finished) **before** starting the clock, since earlier work may still be
# queued, and **after** `fn()`, before reading the clock again. `clock()` reads the time
# (such as `time.perf_counter`). The check passes a device, a `sync` and a `clock` that run
# in fake time and record the order of your calls.


# %%
import time


def time_gpu(fn, sync, clock):
    # YOUR CODE HERE
    raise NotImplementedError


check("07.8", time_gpu)

# %%
# NBVAL_IGNORE_OUTPUT
if torch.accelerator.is_available():
    dev = torch.accelerator.current_accelerator()
    a = torch.randn(2048, 2048, device=dev)
    try:
        seconds = time_gpu(lambda: a @ a, torch.accelerator.synchronize, time.perf_counter)
        print(f"a 2048² matmul on {dev}: {seconds * 1e3:.2f} ms")
    except NotImplementedError:
        print("(answer 07.8 first)")
else:
    print("no accelerator here: the check above ran your function on a fake device")


# %% [markdown]
# ### 07.9 · Pinned, asynchronous copies of a batch
#
# A copy from ordinary (pageable) host memory makes the host wait; a copy from **pinned**
# (page-locked) memory with `non_blocking=True` lets the host go on while the device copies.
# Pinning is itself a copy, made on the thread that calls `.pin_memory()`: done on your
# training loop just before each transfer, it is often slower than a plain `.to(device)`
# (the lesson shows why). It pays off the loop, which is what `DataLoader(pin_memory=True)`
# does: a background thread pins each batch while the loop works on the previous one, and
# the loop only issues the non-blocking copies.
#
# Write `to_device_async(batch, device)`, the two steps of that pipeline in one function:
# it returns a **new** dict with the same keys, every tensor pinned with `.pin_memory()` and
# then copied to `device` with `non_blocking=True`, every other value unchanged. Pinning
# needs an accelerator: without one `.pin_memory()` raises, so the check passes tensors that
# can be pinned anyway and records how each one was copied.


# %%
def to_device_async(batch, device):
    # YOUR CODE HERE
    raise NotImplementedError


check("07.9", to_device_async)


# %% [markdown]
# ### 07.10 · The largest batch under a memory budget
#
# `step(n)` runs one step of a job on a batch of `n` samples, and `peak(fn)` measures the most
# bytes live at once while `fn()` runs (counting only what `fn` allocates), as in the lesson.
# Write `largest_batch(step, budget, peak)` that returns, as an `int`, the largest batch
# size `n` whose step fits the budget, `peak(lambda: step(n)) <= budget`, or `0` when even one
# sample does not fit. Use **at most 4** calls to `peak`: a step's peak is a fixed cost plus a
# cost per sample, `fixed + per_sample * n`, and you do not know either number. The check
# runs your function on steps of different costs and measures the batch you return, and the
# next one up, itself. (To keep a safety margin, pass a smaller budget.)


# %%
def largest_batch(step, budget, peak):
    # YOUR CODE HERE
    raise NotImplementedError


check("07.10", largest_batch)


# %% [markdown]
# ### 07.11 · Count allocated and peak bytes
#
# An allocator's history is a list of events: a positive number is an allocation of that
# many bytes, a negative one frees that many, and the string `"reset"` is a call to
# `reset_peak_memory_stats()`. Write `memory_counters(events)` that returns what
# `memory_allocated()` and `max_memory_allocated()` would say after them, as a tuple of two
# ints: the bytes allocated now, and the most bytes allocated at once since the start
# or since the last reset. Both start at 0, and a reset sets the peak to what is allocated at
# that moment (it frees nothing).


# %%
def memory_counters(events):
    # YOUR CODE HERE
    raise NotImplementedError


check("07.11", memory_counters)


# %% [markdown]
# ### 07.7 · Pack small tensors into one transfer (stretch)
#
# Each transfer has a fixed cost, so moving one buffer beats moving many small tensors.
# Write `pack(tensors)` that takes a list of tensors of one dtype but any shapes (some may
# be non-contiguous, such as a transpose) and returns `(flat, shapes)`: `flat` a 1-D tensor
# holding all their elements one tensor after another (each in row-major order), and
# `shapes` a list of their shapes as tuples, so the receiver can rebuild them with
# `flat.split(...)` and `reshape`.


# %%
def pack(tensors):
    # YOUR CODE HERE
    raise NotImplementedError


check("07.7", pack)

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [07 · GPU offload](../notebooks/07_gpu_offload.ipynb) ·
# **Previous:** [06 · Linear algebra](06_linear_algebra.ipynb) ·
# **Next:** [08 · nn.Module as a container for computation](08_modules_and_buffers.ipynb)
