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
# *Module 07 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/07_gpu_offload.ipynb) · previous: [06 · Linear algebra](06_linear_algebra.ipynb) · next: [08 · nn.Module as a container for computation](08_modules_and_buffers.ipynb)

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
# # 07 · GPU offload
#
# A GPU runs thousands of arithmetic units at once, so a large matrix product can finish
# tens of times sooner than on the CPU. The same code runs there: PyTorch only needs to
# know on which device each tensor lives. But a GPU is a separate machine with its own
# memory, reached over a bus, and it works *asynchronously*: your Python line returns
# before the GPU has finished. Forget either fact and you will measure nonsense or move
# data back and forth until the GPU is slower than the CPU. This module shows how to write
# code that runs on any device, how to time GPU work honestly, what moving data costs, and
# when the GPU loses.
#
# **Objectives.** After this notebook you can:
# 1. write device-agnostic code with `torch.accelerator` (or the course's `pick_device()`),
#    `device=` and `.to()`, and name the devices PyTorch supports and what each needs;
# 2. time GPU work correctly, with `torch.accelerator.synchronize()`, `torch.utils.benchmark`
#    or, on CUDA, CUDA events;
# 3. estimate and measure the cost of a host-to-device transfer (pageable vs pinned memory,
#    `non_blocking`);
# 4. predict when the GPU wins (large matrix products) and when it loses (small work,
#    Python loops, float64 on consumer GPUs);
# 5. read device memory (allocated vs reserved by the caching allocator, the peak), measure
#    the peak of one step on any machine, and size a batch to fit a memory budget.
#
# **Prerequisites.** Modules 00–06: tensors, dtypes, vectorisation and timing with
# `measure`, matrix products.
#
# **Time.** 50 min teaching, 40 min exercises.
#
# This notebook runs on any machine. Without a GPU, each GPU cell prints what it skipped,
# and the lesson sets the CPU figures measured here beside published GPU figures.

# %% [markdown]
# ## Pick the device once
#
# PyTorch's device-agnostic API is `torch.accelerator`. A build of PyTorch supports at most
# one kind of accelerator, and `torch.accelerator` answers for whichever it is:
#
# * `current_accelerator()`: that kind as a `torch.device` (`cuda`, `mps`, `xpu`, ...), or
#   `None` in a CPU-only build;
# * `is_available()`: whether such a device is present and usable right now;
# * `device_count()`: how many;
# * `synchronize()`: wait until the work queued on it has finished (next section).
#
# The course's `pick_device()` is that accelerator when one is available, else the CPU.
# Everything else in a notebook takes that one value, so the same code runs everywhere.
# What this cell prints depends on your machine:

# %%
# NBVAL_IGNORE_OUTPUT
import torch

from torchcourse import (
    claim,
    describe_device,
    format_seconds,
    gpu_skip_message,
    measure,
    pick_device,
    predict,
    reveal,
)
from torchcourse.timing import check_consistent, interleaved

print("torch.accelerator.current_accelerator():", torch.accelerator.current_accelerator())
print("torch.accelerator.is_available():", torch.accelerator.is_available())
print("torch.accelerator.device_count():", torch.accelerator.device_count())
device = pick_device()
print("pick_device():", describe_device(device))

# %%
by_hand = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else torch.device("cpu")
print("pick_device() is torch.accelerator's choice:", device.type == by_hand.type)

# %% [markdown]
# The devices you may meet, and what each needs:
#
# | `device.type` | hardware | what you need |
# |---|---|---|
# | `cuda` | NVIDIA GPUs, and AMD GPUs through ROCm (PyTorch calls both `cuda`) | a CUDA or ROCm build of PyTorch and the vendor's driver |
# | `mps` | Apple-silicon GPUs | the ordinary macOS build of PyTorch |
# | `xpu` | Intel GPUs (Arc, Data Center GPU Max) | Intel's GPU driver and PyTorch's XPU build (`pip install torch --index-url https://download.pytorch.org/whl/xpu`) |
# | `xla` | Google TPUs (and other XLA back ends) | the separate `torch_xla` package (`pip install torch torch_xla[tpu]` on a TPU VM); not a `torch.accelerator` device: reach it with `torch_xla.device()` |
# | `meta` | none | nothing: every build has it (shapes and dtypes, no data) |
#
# `cuda`, `mps` and `xpu` are accelerators in `torch.accelerator`'s sense: they run work
# asynchronously on streams and answer to the same API. XLA tensors are *lazy*: operations
# are recorded and compiled into one XLA graph that runs when a result is needed, so
# timing them follows torch_xla's own rules, outside this lesson.

# %% [markdown]
# ## Three ways to put a tensor on a device
#
# 1. **Create it there**: every creation function takes `device=`. A factory that makes its
#    own values (`zeros`, `ones`, `full`, `arange`, `randn`) fills them on the device: nothing
#    is computed on the CPU and nothing crosses the bus. `torch.tensor(data, device=device)`
#    is different: a Python list or a NumPy array lives in host memory, so PyTorch builds the
#    tensor on the CPU and then copies it to `device`.
# 2. **Move it**: `t.to(device)` returns a copy on `device`, or `t` itself when it is
#    already there. It never changes `t`.
# 3. **`.cuda()` and `.cpu()`**: shorthands for `.to("cuda")` and `.to("cpu")`. `.cuda()`
#    fails on a machine without CUDA, so device-agnostic code uses `.to(device)`.
#
# The `meta` device exists on every machine: its tensors have a shape, a dtype and a
# device but no data. It is the course's stand-in for "another device" when you have no
# GPU, and PyTorch uses it to build large models without allocating memory.

# %%
t = torch.arange(6.0).reshape(2, 3)
on_meta = t.to("meta")
print(on_meta)
print("t is still on:", t.device)
print("t.to('cpu') is t:", t.to("cpu") is t)
print("t.to('meta') is t:", on_meta is t)

# %%
created = torch.zeros(1000, 1000, device="meta")
print(created.shape, created.dtype, created.device)
print("bytes it would take:", created.numel() * created.element_size())

# %% [markdown]
# Creating on the device is also the faster habit: `torch.randn(n, n).to(device)` builds
# the matrix on the CPU first and then copies it, while `torch.randn(n, n, device=device)`
# fills it on the device directly. On a GPU the second form skips a transfer of
# `4·n²` bytes; on the CPU both are the same thing.
#
# `.cuda()` is the one form that depends on the machine. A CPU-only build of PyTorch fails
# with `AssertionError: Torch not compiled with CUDA enabled` (a CUDA build on a machine
# without an NVIDIA GPU raises a `RuntimeError`); with CUDA it moves the tensor. The cell catches the error so that it runs everywhere:

# %%
# NBVAL_IGNORE_OUTPUT
try:
    print("t.cuda() ->", t.cuda().device)
except (AssertionError, RuntimeError) as exc:
    print(f"t.cuda() failed here: {type(exc).__name__}: {exc}")

# %% [markdown]
# ## The GPU runs asynchronously
#
# When you call `a @ b` on a GPU tensor, PyTorch does not wait for the product. It puts
# a *kernel launch* into the device's queue (a *stream*) and returns at once, in a few
# microseconds; the GPU works through the queue in the background. Python only waits
# when it needs a result: `.item()`, `print`, `.cpu()`, or an explicit
# `torch.accelerator.synchronize()` (the device-agnostic form of `torch.cuda.synchronize()`
# and `torch.mps.synchronize()`).
#
# So `time.perf_counter()` around `a @ b` measures the *launch*, not the work. The cell
# below times the same product twice: without and with a synchronisation before the clock
# stops. On the CPU every operation finishes before it returns, so there is nothing to
# show and the cell says so.

# %%
# NBVAL_IGNORE_OUTPUT
import time

if device.type != "cpu":
    n = 8000
    a = torch.randn(n, n, device=device)
    b = torch.randn(n, n, device=device)
    a @ b  # warm-up: the first call loads the matmul kernels
    torch.accelerator.synchronize()

    start = time.perf_counter()
    c = a @ b
    launch = time.perf_counter() - start  # the kernel is still running
    torch.accelerator.synchronize()
    done = time.perf_counter() - start

    print(f"without synchronize: {launch * 1e3:.3f} ms  (only the launch)")
    print(f"with synchronize:    {done * 1e3:.3f} ms  (the product itself)")
    del a, b, c
else:
    print(gpu_skip_message("timing a GPU matmul with and without torch.accelerator.synchronize()"))

# %% [markdown]
# `torch.accelerator.synchronize()` needs an accelerator: on a machine without one it
# raises instead of doing nothing, so device-agnostic code calls it only when the device is
# not the CPU (the course's `torchcourse.synchronize(device)` does exactly that):

# %%
# NBVAL_IGNORE_OUTPUT
try:
    torch.accelerator.synchronize()
    print("torch.accelerator.synchronize() returned: the queued work is done")
except RuntimeError as exc:
    print(f"torch.accelerator.synchronize() raised RuntimeError: {exc}")

# %% [markdown]
# The course's `measure` and `time_once` take the device and synchronise before the clock
# starts and before it stops, so every timing in the course is of finished work.
#
# **`torch.utils.benchmark`** is PyTorch's own timer. It warms up, picks how many calls to
# time in a block, repeats, and runs on **one thread** unless you pass `num_threads`. Its
# clock (the function `torch.utils.benchmark.utils.timer.timer` in torch 2.13) calls
# `torch.accelerator.synchronize()` when an accelerator is present and then reads the
# ordinary wall clock (`timeit.default_timer`): a synchronised wall-clock time, like
# `measure`'s. (Older releases, before `torch.accelerator`, synchronised CUDA directly.) The
# next cell checks that in the installed source and times a matmul with it:

# %% tags=["version-specific"]
import inspect

from torch.utils import benchmark
from torch.utils.benchmark.utils import timer as benchmark_timer

from torchcourse.preflight import version_tuple

try:
    clock_source = inspect.getsource(benchmark_timer.timer)
except TypeError:  # a built-in clock (time.perf_counter): older torch on a machine without CUDA
    clock_source = ""
if version_tuple(torch.__version__) >= (2, 13, 0):
    # by construction: read from the installed source
    claim(
        "torch.accelerator.synchronize()" in clock_source and "default_timer()" in clock_source,
        "torch.utils.benchmark's clock synchronises through torch.accelerator, then reads a wall clock",
    )

# %%
# NBVAL_IGNORE_OUTPUT
a = torch.randn(500, 500, device=device)
m = benchmark.Timer("a @ a", globals={"a": a}).blocked_autorange(min_run_time=0.2)
print(
    f"torch.utils.benchmark, 500x500 matmul on {device.type}: median {format_seconds(m.median)}"
    f" over {len(m.times)} blocks, {m.task_spec.num_threads} thread(s)"
)
del a

# %% [markdown]
# **CUDA events** are the one tool here that reads the GPU's own clock. You record an event
# into the CUDA stream before and after the work; once the second has been reached,
# `start.elapsed_time(end)` gives the milliseconds the stream took between the two points.
# That is device time between the two events: it leaves out host time before the start event
# and after the end event, but includes any gap in which the GPU sat idle waiting for the CPU
# to queue the next kernel (the first kernel's launch included, when the GPU was idle). `torch.cuda.Event` exists only for CUDA (`torch.Event(device)` is the
# generic form in recent PyTorch). This is the pattern:


# %%
def time_with_cuda_events(fn, repeat=10):
    """Milliseconds per call of fn(), measured with CUDA events (CUDA only)."""
    fn()  # warm-up
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeat):
        fn()
    end.record()
    end.synchronize()  # wait until the GPU has reached the end event
    return start.elapsed_time(end) / repeat


# %%
# NBVAL_IGNORE_OUTPUT
if device.type == "cuda":
    a = torch.randn(4000, 4000, device=device)
    print(f"4000x4000 matmul: {time_with_cuda_events(lambda: a @ a):.3f} ms per call (CUDA events)")
    del a
else:
    print(
        gpu_skip_message("the CUDA-events timing")
        or f"Skipped the CUDA-events timing: this device is {device.type}, and torch.cuda.Event needs CUDA."
    )

# %% [markdown]
# ## What a transfer costs
#
# Host memory and GPU memory are separate. `t.to("cuda")` copies every byte of `t` over
# the PCIe bus (NVLink-C2C on a few systems): a few to a few tens of GB/s over PCIe, against
# hundreds to thousands of GB/s inside the GPU. The number of bytes is
# `t.numel() * t.element_size()`; the cell assumes 16 GB/s, about the peak of a PCIe 3.0 x16
# link (PCIe 4.0 doubles it):

# %%
for n in (500, 5000, 10000):
    nbytes = n * n * 4  # float32
    print(f"{n:>5}x{n:<5} float32: {nbytes / 1e6:7.1f} MB, {nbytes / 16e9 * 1e3:6.2f} ms at 16 GB/s")

# %% [markdown]
# Compare with the published matmul times in the next section: moving a 5000×5000 matrix
# costs a few milliseconds, the GPU product about 58 ms. Moving the data once and doing a
# lot of work on it pays; moving it for one cheap operation does not.
#
# **Pageable vs pinned memory.** Ordinary host memory is *pageable*: the operating system
# may move its pages or swap them out, so the GPU's copy engine cannot read it directly.
# The driver copies it, chunk by chunk, into a *pinned* (page-locked) staging buffer and
# sends each chunk from there, staging the next chunk while the last one travels. From
# memory that is already pinned, the copy engine reads directly: the transfer is faster,
# and `t.to("cuda", non_blocking=True)` returns at once and lets the CPU go on while the
# bytes travel. From pageable memory, `non_blocking=True` still keeps the CPU busy until
# the driver has staged every byte.
#
# **Pinning is itself a copy.** `t.pin_memory()` allocates page-locked memory and copies `t`
# into it, on the thread that calls it, before any transfer starts. So
# `t.pin_memory().to(device, non_blocking=True)` on every batch does the driver's staging
# copy yourself, all of it first, and then the transfer, where a plain `t.to(device)`
# overlaps the two: PyTorch's own pinning tutorial (Further reading) measures the first
# form as up to twice as slow as the second. Pinning pays when its copy is off your path:
#
# * **in the background**: `DataLoader(pin_memory=True)` pins each batch in a separate
#   thread while your loop works on the previous one, so your loop only issues the
#   `non_blocking` copy of a tensor that is already pinned (`t.is_pinned()` says so);
# * **once**: data you send to the device many times, or a buffer your own code fills
#   directly, made pinned from the start (`torch.empty(..., pin_memory=True)`).
#
# Pinning needs an accelerator (a GPU build of PyTorch with its device present). Here is
# what it does on this machine:

# %%
# NBVAL_IGNORE_OUTPUT
host = torch.ones(16 * 2**20)  # 64 MiB of float32
try:
    pinned = host.pin_memory()
    print("pin_memory() worked: pinned =", pinned.is_pinned())
except RuntimeError as exc:
    print(f"pin_memory() failed: RuntimeError: {exc}")
    pinned = None

# %% [markdown]
# Without an accelerator the call fails (a CPU-only build of PyTorch says `Cannot access
# accelerator device when none is available`; a CUDA build on a machine without a GPU says
# `Found no NVIDIA driver on your system`), and `torch.ones(..., pin_memory=True)` fails
# too. `non_blocking=True`
# is accepted on any copy; without a GPU it changes nothing.
#
# What you *can* measure on the CPU is the host side: how fast this machine copies memory,
# the same kind of copy the driver makes into its staging buffer for pageable memory, and
# the copy `pin_memory()` makes. Measure a *copy*: `dst.copy_(src)` into a buffer that
# exists and has been written once. `src.clone()` looks like a copy but also allocates its
# 64 MiB output on every call, and at this size an allocation is fresh memory from the
# operating system unless a free stretch of the heap can take it (in a fresh kernel, none can),
# which maps each page on its first write (a *page fault*): a clone times
# the allocator and the page faults too (the size sweep below shows where that starts). The
# cell times both, and the course's `copy_bandwidth()`, the figure module 00's preflight
# reports.
#
# **Predict 07.p1.** Both move the same 64 MiB. How many times the time of `dst.copy_(host)` does
# `host.clone()` take on your machine? Write a number; within a factor of 2 counts as right.

# %%
predict("07.p1", None)  # replace None with your prediction

# %%
# NBVAL_IGNORE_OUTPUT
from torchcourse import copy_bandwidth

dst = torch.empty_like(host)
dst.copy_(host)  # first write: the pages are mapped now, not inside the timed copies
copy_t = measure(lambda: dst.copy_(host), repeat=5, budget=0.1)
clone_t = measure(lambda: host.clone(), repeat=5, budget=0.1)
gb = 2 * host.numel() * host.element_size() / 1e9  # read + write
print(f"dst.copy_(host), 64 MiB: {copy_t}  ->  {gb / copy_t.min:5.1f} GB/s")
print(f"host.clone(),    64 MiB: {clone_t}  ->  {gb / clone_t.min:5.1f} GB/s")
print(f"copy_bandwidth(128 MiB), as in the preflight: {copy_bandwidth(128 * 2**20):5.1f} GB/s")
reveal(
    "07.p1",
    clone_t.min / copy_t.min,
    within=2.0,
    why="the clone also allocates 64 MiB of fresh memory on every call, and the operating system maps and zeroes "
    "each of its pages on the first write: that costs about as much as the copy itself, or more.",
)

# %% [markdown]
# That copy time is what `pin_memory()` would add on your thread for this tensor before its
# transfer could start. Set it beside the transfer itself at 16 GB/s: pinning first puts the
# two one after the other and costs their sum, while the driver's chunked staging of
# pageable memory overlaps them and costs about the larger of the two. The sum is at most
# twice the larger, reached when the two are equal: the tutorial's "up to twice as slow".

# %%
# NBVAL_IGNORE_OUTPUT
nbytes = host.numel() * host.element_size()
print(f"pin_memory() of 64 MiB copies it first:  {copy_t.min * 1e3:5.2f} ms on this machine (the copy above)")
print(f"the transfer itself at 16 GB/s:          {nbytes / 16e9 * 1e3:5.2f} ms")
serial = copy_t.min + nbytes / 16e9
overlapped = max(copy_t.min, nbytes / 16e9)
print(f"pinned per call, one after the other:    {serial * 1e3:5.2f} ms")
print(f"pageable, staging overlapped, about:     {overlapped * 1e3:5.2f} ms")
print(f"pinning every call costs {serial / overlapped:.1f}x the plain copy here (at most 2x, when the two are equal)")

# %% [markdown]
# **When is a clone's output fresh memory?** On Linux, `malloc` (glibc's) hands out a large
# block as fresh pages straight from the operating system (`mmap`) and gives them back when
# the block is freed; a smaller block comes from memory the process already has, and a freed
# one is reused. The threshold between the two starts at 128 KiB and rises to the size of
# the largest such block freed so far, up to 32 MiB on 64-bit systems. Above 32 MiB, then, every
# clone faults in fresh pages, which the kernel also zeroes first. Below it, a clone *can* reuse
# the memory the previous clone freed and cost about a copy, but whether it does depends on what the
# process allocated and freed before: after the 64 MiB clones above, smaller clones may fault in every
# page too. So do not guess: the sweep counts the page faults of one clone
# (`timing.page_faults`) next to the times. macOS and Windows have their own allocators and
# thresholds. The sweep times `clone()` and `copy_()` taking turns, on one thread, at sizes on both
# sides of 32 MiB:

# %%
# NBVAL_IGNORE_OUTPUT
from torchcourse.timing import page_faults

clone_over_copy = {}
for mib in (4, 16, 48, 64):
    src = torch.ones(mib * 2**18)  # mib MiB of float32
    dst_mib = torch.empty_like(src)
    dst_mib.copy_(src)
    t_copy, t_clone = interleaved([lambda: dst_mib.copy_(src), src.clone], rounds=5, threads=1, varies=(1,))
    clone_over_copy[mib] = t_clone / t_copy
    faults = page_faults(src.clone)
    print(
        f"{mib:>3} MiB: copy_ {format_seconds(t_copy):>9}, clone {format_seconds(t_clone):>9}: "
        f"clone / copy = {t_clone / t_copy:.1f}x, page faults of one clone: {faults} of {mib * 256} pages"
    )

# %%
import platform

if platform.libc_ver()[0] == "glibc":
    # 64 MiB is above glibc's largest mmap threshold (32 MiB): unless a free stretch of the heap
    # can take it, a clone faults in and zeroes 16,384 fresh 4 KiB pages before it copies. Measured 6x on an AMD EPYC, 2-3x even with
    # transparent huge pages (512x fewer faults); 1.5x at one thread, taking turns, holds on any CPU.
    claim(
        clone_over_copy[64] > 1.5,
        "above 32 MiB, clone() is slower than copy_() into a buffer that already exists",
        f"clone / copy at 64 MiB: {clone_over_copy[64]:.1f}x",
    )
else:
    print(f"This machine's C library is not glibc: at 64 MiB clone / copy = {clone_over_copy[64]:.1f}x here.")

# %% [markdown]
# With a GPU, the next cell measures host-to-device copies of the same 64 MiB: from pageable
# memory, from memory pinned once beforehand, and pinned anew on every call (the pattern to
# avoid); and it shows that `non_blocking=True` from pinned memory returns before the copy
# has finished.

# %%
# NBVAL_IGNORE_OUTPUT
if device.type == "cuda" and pinned is not None:  # pinned-memory timings here use CUDA
    pageable_t = measure(lambda: host.to(device), device=device)
    pinned_t = measure(lambda: pinned.to(device, non_blocking=True), device=device)
    pin_each_t = measure(lambda: host.pin_memory().to(device, non_blocking=True), device=device)
    print(f"pageable          -> GPU: {pageable_t}  ({nbytes / pageable_t.min / 1e9:.1f} GB/s)")
    print(f"pinned once       -> GPU: {pinned_t}  ({nbytes / pinned_t.min / 1e9:.1f} GB/s)")
    print(f"pinned every call -> GPU: {pin_each_t}  ({nbytes / pin_each_t.min / 1e9:.1f} GB/s)")

    torch.accelerator.synchronize()
    start = time.perf_counter()
    on_gpu = pinned.to(device, non_blocking=True)
    returned = time.perf_counter() - start
    torch.accelerator.synchronize()
    print(
        f"non_blocking copy returned after {returned * 1e6:.0f} µs, "
        f"finished after {(time.perf_counter() - start) * 1e6:.0f} µs"
    )
else:
    print(
        gpu_skip_message("the pageable, pinned-once and pinned-every-call host-to-device copies")
        or f"Skipped the pinned-memory copies: this cell times them on CUDA, and this device is {device.type}."
    )

# %% [markdown]
# The other direction needs care: `x.to("cpu", non_blocking=True)` returns a CPU tensor at
# once, before its bytes have arrived. Read it only after `torch.accelerator.synchronize()`
# (a plain `.cpu()` waits for you).

# %% [markdown]
# Each transfer also has a fixed cost (a driver call and a DMA set-up, several
# microseconds), so a hundred small tensors cost more to move than one tensor of the same
# total size. Packing small tensors into one buffer before a transfer is exercise 07.7.

# %% [markdown]
# ## CPU vs GPU: matrix products across sizes
#
# A matrix product of two n×n matrices does `2n³` floating-point operations on `3n²`
# numbers: the work grows much faster than the data, which is exactly what a GPU is good
# at. The published figures (section C of the course's reference figures, a laptop with a
# dedicated GPU, 2022, in [docs/reference-figures.md](../docs/reference-figures.md)) are 500×500 in 2.29 ms on the CPU vs 108 µs on the GPU (21×) and
# 5000×5000 in 2.21 s vs 57.88 ms (38×).
#
# We measure the CPU up to 1500×1500 and extrapolate to 5000 and 10000 with the `n³` law,
# from the largest size measured: on a small CPU the large products would take up to
# seconds each (the last lines of the output say how long, for this machine). The GFLOP/s
# column shows how much the rate still moves with size; the extrapolation carries that error.
#
# **Predict 07.p2.** A 500×500 product has twice the rows and columns of a 250×250 one. How many
# times as long does it take on your CPU? Write a number; within a factor of 2 counts as right.

# %%
predict("07.p2", None)  # replace None with your prediction

# %%
# NBVAL_IGNORE_OUTPUT
cpu = torch.device("cpu")
sizes = [250, 500, 1000, 1500]
cpu_seconds = {}
for n in sizes:
    a = torch.randn(n, n)
    b = torch.randn(n, n)
    t_n = measure(lambda: a @ b, repeat=7 if n <= 1000 else 3, device=cpu, budget=0.05)
    cpu_seconds[n] = t_n.min
    print(f"CPU {n:>5}x{n:<5} {t_n}   {2 * n**3 / t_n.min / 1e9:6.1f} GFLOP/s, {torch.get_num_threads()} threads")
for n in (5000, 10000):
    cpu_seconds[n] = cpu_seconds[1500] * (n / 1500) ** 3
    print(f"CPU {n:>5}x{n:<5} about {cpu_seconds[n]:.1f} s (extrapolated as n³ from 1500)")
# Not a finding but arithmetic: each size does (n2/n1)³ times the FLOPs (8x from 250 to 500), so
# the larger product must take more than a quarter of (n2/n1)³ times as long as the smaller one,
# which leaves a factor of 4 for the rates of the two sizes to differ.
# A run that breaks this was disturbed (on a busy machine the threads of a small product wait
# at a barrier for a descheduled sibling on every call): it is flagged, and the build refuses it.
for n1, n2 in zip(sizes, sizes[1:]):
    check_consistent(
        cpu_seconds[n2] > (n2 / n1) ** 3 / 4 * cpu_seconds[n1],
        f"the {n2}x{n2} product taking more than a quarter of (n2/n1)³ times the {n1}x{n1} one",
        f"{cpu_seconds[n1]=:.2e} {cpu_seconds[n2]=:.2e}",
    )
reveal(
    "07.p2",
    cpu_seconds[500] / cpu_seconds[250],
    within=2.0,
    why="a product does 2n³ operations: twice the size is 8x the work. The rate per operation also changes with "
    "size (the GFLOP/s column above), so the measured ratio lands near 8, on either side.",
)

# %%
print("measured sizes:", sizes, "| extrapolated:", [5000, 10000])

# %% [markdown]
# With a GPU, the same sizes, including 5000 and 10000, run there (synchronised by
# `measure`):

# %%
# NBVAL_IGNORE_OUTPUT
gpu_seconds = {}
if device.type != "cpu":
    for n in (500, 1000, 1500, 5000, 10000):
        a = torch.randn(n, n, device=device)
        b = torch.randn(n, n, device=device)
        t_n = measure(lambda: a @ b, repeat=5, device=device)
        gpu_seconds[n] = t_n.min
        print(
            f"GPU {n:>5}x{n:<5} {t_n}   {2 * n**3 / t_n.min / 1e12:6.1f} TFLOP/s"
            f"   {cpu_seconds[n] / t_n.min:6.0f}x the CPU"
        )
    del a, b
else:
    print(gpu_skip_message("the GPU matmuls at 500, 1000, 1500, 5000 and 10000"))

# %% [markdown]
# Read the picture on log-log axes: a straight line of slope 3 is the `n³` law. The CPU
# points measured here sit on the left; the dashed line carries them to 10000. Small
# products usually run below the CPU's peak rate (the GFLOP/s column above shows this run's)
# and suffer most when other programs share the cores, which makes the measured line flatter
# at the left. The
# published laptop figures are the squares (CPU) and triangles (GPU): the gap between CPU
# and GPU is more than an order of magnitude and widens with n, because a small product
# cannot keep the GPU's thousands of units busy.

# %%
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6.5, 4))
ax.plot(sizes, [cpu_seconds[n] for n in sizes], "o-", color="C0", label="CPU, measured here")
ax.plot(
    [1500, 5000, 10000],
    [cpu_seconds[n] for n in (1500, 5000, 10000)],
    "--",
    color="C0",
    label="CPU here, extrapolated (n³)",
)
ax.plot([500, 5000], [2.29e-3, 2.21], "s", color="C2", markersize=8, label="CPU, published laptop")
ax.plot([500, 5000], [108.02e-6, 57.88e-3], "^", color="C3", markersize=8, label="GPU, published laptop")
if gpu_seconds:
    ax.plot(list(gpu_seconds), list(gpu_seconds.values()), "v-", color="C1", label="GPU, measured here")
ax.set(
    xscale="log",
    yscale="log",
    xlabel="n (n×n float32 matmul)",
    ylabel="seconds per product",
    title="Matrix product time vs size",
)
ax.grid(alpha=0.3, which="both")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ## When the GPU loses
#
# **1. Small work.** Every GPU operation costs a kernel launch of several microseconds,
# however little it computes. Adding two 10-element vectors on the CPU costs PyTorch's own
# per-call overhead (the cell prints how much, here); on a GPU the launch comes on top, and
# the arithmetic is negligible either way. Below a few thousand elements per operation, the
# CPU usually wins.

# %%
# NBVAL_IGNORE_OUTPUT
small = torch.randn(10)
print(f"CPU, 10-element add: {measure(lambda: small + small)}")
if device.type != "cpu":
    small_gpu = small.to(device)
    print(f"GPU, 10-element add: {measure(lambda: small_gpu + small_gpu, device=device)}")
else:
    print(gpu_skip_message("the 10-element add on the GPU"))

# %% [markdown]
# **2. Python loops.** A loop over the elements of a GPU tensor launches one tiny
# operation per element, and reading a value back (`float(x)`, `.item()`) waits for the
# GPU every time. The published figures: summing a 10⁶-element float64 tensor with a Python
# loop took 1.37 s on the CPU and 4.54 s on the GPU, while `t.sum()` took 191 µs and
# 51 µs. The loop is slower on the GPU, and thousands of times slower than the one call.
# Here a 10 000-element loop (a hundredth of the published size, to save time) against
# `sum()`. The loop is module 05's `loop_sum` from `torchcourse.bench.workloads.sums`, the same
# code the course's benchmark times:

# %%
from torchcourse.bench.workloads.sums import loop_sum

x = torch.randn(10_000, dtype=torch.float64)
print("loop_sum == x.sum():", torch.allclose(loop_sum(x), x.sum()))

# %%
# NBVAL_IGNORE_OUTPUT
loop_t = measure(lambda: loop_sum(x), repeat=3, number=1)
sum_t = measure(lambda: x.sum())
loop_ratio = loop_t.min / sum_t.min
print(f"CPU  loop: {loop_t}\nCPU  sum():  {sum_t}\nloop / sum(): {loop_ratio:,.0f}x")
if device.type != "cpu":
    x_gpu = x.to(device, dtype=torch.float32 if device.type == "mps" else x.dtype)  # MPS has no float64
    print(f"GPU  loop: {measure(lambda: loop_sum(x_gpu), repeat=3, number=1, device=device)}")
    print(f"GPU  sum():  {measure(lambda: x_gpu.sum(), device=device)}")
else:
    print(gpu_skip_message("the Python loop and sum() on the GPU"))

# %%
# 1e4 dispatched additions (about a microsecond each) against one call that reads 80 kB (a few
# µs): thousands of times apart, so 100x holds on any CPU, at one thread, under load.
claim(loop_ratio > 100, "on the CPU the Python loop is more than 100x slower than one sum() call")

# %% [markdown]
# **3. float64 on consumer GPUs.** Gaming and laptop GPUs have few float64 units: their
# float64 throughput is 1/32 to 1/64 of float32, so a float64 matmul there can be slower
# than on a good CPU. Data-centre GPUs (A100, H100) run float64 at half the float32 rate.
# On a CPU, float64 costs up to twice float32 (a vector register holds half as many
# numbers). Measure the ratio on your device; without CUDA the cell prints the CPU's only:

# %%
# NBVAL_IGNORE_OUTPUT
n = 1000
for dev in [cpu] + ([device] if device.type == "cuda" else []):
    a32 = torch.randn(n, n, device=dev)
    a64 = a32.double()
    t32 = measure(lambda: a32 @ a32, repeat=5, device=dev, budget=0.05)
    t64 = measure(lambda: a64 @ a64, repeat=5, device=dev, budget=0.05)
    if dev.type == "cpu":
        cpu_f64_ratio = t64.min / t32.min
    print(
        f"{dev.type}: float32 {t32.min * 1e3:.2f} ms, float64 {t64.min * 1e3:.2f} ms,"
        f" float64/float32 = {t64.min / t32.min:.1f}x"
    )
if device.type != "cuda":
    print(
        gpu_skip_message("the float64 vs float32 matmul on a CUDA GPU")
        or f"Skipped the GPU side: this cell times it on CUDA, and this device is {device.type}"
        + (" (MPS has no float64 at all)." if device.type == "mps" else ".")
    )

# %%
c32, c64 = torch.randn(256, 256), torch.randn(256, 256, dtype=torch.float64)
best32, best64 = interleaved([lambda: c32 @ c32, lambda: c64 @ c64], number=20, threads=1)  # taking turns
# A compute-bound product: every CPU's vector units hold half as many float64 as float32 numbers,
# so float64 costs about 2x; 1.2x, one thread, taking turns, holds on any CPU family.
claim(
    best64 > 1.2 * best32,
    "on the CPU a float64 matmul is slower than a float32 one",
    f"256x256, best per call: float32 {best32 * 1e6:.0f} µs, float64 {best64 * 1e6:.0f} µs",
)

# %% [markdown]
# **4. Transfers that dominate.** Moving a matrix to the GPU for one cheap operation and
# back costs two transfers for microseconds of work. Keep data on the device across many
# operations, and bring back only small results.

# %% [markdown]
# ## Device memory: allocated, reserved, peak
#
# A GPU has a fixed amount of memory (16 GB on a T4, Colab's free GPU; 80 GB on an H100 SXM:
# NVIDIA's datasheets, section E of the reference figures), and a program that needs more
# stops with an error. Each request to the driver for memory, and each release, is a driver
# call, and a release (`cudaFree`) waits for the device to finish its queued work. So PyTorch
# puts a **caching allocator** between your tensors and the driver: when a tensor dies
# (`del t`, or its last reference goes), its block goes back to PyTorch's cache, not to the
# driver, and the next tensor that fits in it reuses it without a driver call. Freeing a
# tensor then never waits for the device. So there are two numbers:
#
# * `memory_allocated()`: the bytes that live tensors occupy now;
# * `memory_reserved()`: the bytes the caching allocator holds from the driver: the
#   allocated bytes plus its cached free blocks. The driver (and `nvidia-smi`) counts all of
#   it as your process's, which is why memory freed by `del` does not come back there.
#
# `max_memory_allocated()` is the most that was allocated at once since the program started,
# or since the last `reset_peak_memory_stats()`, which sets the peak to what is allocated
# at that moment (not to zero). `empty_cache()` hands the cached free blocks back to the
# driver: it frees no live tensor, it only helps *other* processes, and your next
# allocations pay the driver calls again. Each of these exists as `torch.cuda.<name>` and,
# for whichever accelerator the build supports, as `torch.accelerator.<name>`:

# %% tags=["version-specific"]
memory_api = ["memory_allocated", "max_memory_allocated", "memory_reserved", "reset_peak_memory_stats", "empty_cache"]
print("in torch.accelerator:", {name: hasattr(torch.accelerator, name) for name in memory_api})
print("in torch.cuda:       ", {name: hasattr(torch.cuda, name) for name in memory_api})

# %% [markdown]
# With an accelerator, the next cell allocates 256 MiB, deletes it, empties the cache, and
# reads the counters after each step; then it measures the peak of one matrix product. These
# functions report an accelerator's allocator. Without one, what they do depends on the build:
# torch 2.13's CPU-only build raises (like `synchronize()`), while its CUDA build on a machine
# without a GPU (what `pip install torch` gives on Linux) and torch 2.15 return 0; the cell
# prints what yours does.


# %%
# NBVAL_IGNORE_OUTPUT
def mib(nbytes):
    return f"{nbytes / 2**20:7.1f} MiB"


if device.type != "cpu":
    acc = torch.accelerator
    try:
        acc.empty_cache()
        base = acc.memory_allocated()
        block = torch.empty(256 * 2**20, dtype=torch.uint8, device=device)
        print(
            f"after empty(256 MiB): allocated {mib(acc.memory_allocated() - base)}, reserved {mib(acc.memory_reserved())}"
        )
        del block
        print(
            f"after del:            allocated {mib(acc.memory_allocated() - base)}, reserved {mib(acc.memory_reserved())}"
        )
        acc.empty_cache()
        print(
            f"after empty_cache():  allocated {mib(acc.memory_allocated() - base)}, reserved {mib(acc.memory_reserved())}"
        )
        a = torch.randn(4096, 4096, device=device)  # 64 MiB
        acc.reset_peak_memory_stats()
        before = acc.memory_allocated()
        total = (a @ a).relu().sum()  # two 64 MiB temporaries at once, then a scalar
        print(f"peak above what was allocated before (a @ a).relu().sum(): {mib(acc.max_memory_allocated() - before)}")
        del a, total
    except (RuntimeError, NotImplementedError) as exc:
        print(f"this build's {device.type} allocator does not report these statistics: {exc}")
else:
    print(gpu_skip_message("allocating, deleting and emptying 256 MiB on the device, and its peak counter"))
    try:
        value = torch.accelerator.memory_allocated()
        print(f"torch.accelerator.memory_allocated() returned {value}: no accelerator, nothing allocated on one")
    except RuntimeError as exc:
        print(f"torch.accelerator.memory_allocated() raised RuntimeError: {exc}")

# %% [markdown]
# On a GPU the three lines read: 256 MiB allocated and at least 256 MiB reserved; after
# `del`, nothing allocated but the same reserved (the block waits in the cache); after
# `empty_cache()`, reserved drops too. And the product's peak is at least 128 MiB: `a @ a` and
# its `relu()` live at the same moment, the first dying only once the second exists (more,
# if the matrix-product library takes a workspace from the same allocator on its first call).

# %% [markdown]
# ## Measuring a peak on any machine
#
# The CPU has no caching allocator counters, but PyTorch's profiler records every allocation
# and free it makes (`torch.profiler.profile(profile_memory=True)`). The course's
# `allocations(fn)` runs `fn()` under it and returns the events in order, `+bytes` for an
# allocation and `-bytes` for a free, and `peak_bytes(events)` replays them: the most bytes
# alive at once, counting only what `fn` allocated. Here is one step of a small network on a
# batch of `n` samples: it normalises its weights (a cost that does not depend on `n`), then
# runs the batch through two layers.

# %%
from torchcourse.grading.rules import allocations, peak_bytes

torch.manual_seed(0)
W1, W2 = torch.randn(256, 512), torch.randn(512, 10)


def step(n):
    w = W1 / W1.norm(dim=0)  # 256x512 float32: 512 KiB whatever n is
    x = torch.randn(n, 256)
    h = (x @ w).relu()
    return (h @ W2).softmax(dim=1).sum()


events = allocations(lambda: step(2))
print("events for a batch of 2:", events)
print("peak:", peak_bytes(events), "bytes")

# %% [markdown]
# Read the events: 2048 bytes for the column norms, 524288 for the normalised weights, −2048
# when the norms die, then 2048 for the batch `x` (2 × 256 × 4 bytes), 4096 each for `x @ w`
# and its `relu()` (2 × 512 × 4), −4096 when `x @ w` dies, and so on. The peak is the moment
# when the weights, `x`, `x @ w` and its `relu()` are all alive: a fixed part plus a part that
# grows with the batch, and the same moment for every batch size. So the peak is a straight
# line in `n`, **peak = fixed + per_sample · n**, and two small measurements give both
# numbers. (In a step whose largest moment changes with `n`, say a large fixed temporary
# early and large activations later, the peak is the larger of two lines: measure near the
# size you will use, and check the answer by measuring it.) Here the line predicts other
# batches exactly:


# %%
def measured_peak(n):
    return peak_bytes(allocations(lambda: step(n)))


one, two = measured_peak(1), measured_peak(2)
per_sample = two - one
fixed = one - per_sample
print(f"fixed = {fixed:,} bytes, per_sample = {per_sample:,} bytes")
for n in (64, 1000):
    print(f"batch {n:>4}: predicted {fixed + per_sample * n:>9,} bytes, measured {measured_peak(n):>9,}")
# by construction: allocation sizes are exact byte counts, the same on every machine and thread count
claim(
    all(measured_peak(n) == fixed + per_sample * n for n in (64, 1000)),
    "the line through batches of 1 and 2 predicts the peak of batches of 64 and 1000 exactly",
)

# %% [markdown]
# To size a batch, solve `fixed + per_sample · n <= budget` for the largest whole `n`, and
# leave a **safety margin**: on a GPU the allocator rounds each request up to a multiple of
# 512 bytes, the cache can be fragmented (free blocks too small for the next request), and
# the driver's own context takes device memory that none of these counters shows. Taking 90%
# of the budget:

# %%
budget = 64 * 2**20  # 64 MiB
usable = int(0.9 * budget)
batch = (usable - fixed) // per_sample
print(f"budget {budget:,} bytes, 90% of it {usable:,}: largest batch {batch:,}")
print(f"peak at {batch:,}: {measured_peak(batch):,} bytes; at {batch + 1:,}: {measured_peak(batch + 1):,} bytes")
claim(
    measured_peak(batch) <= usable < measured_peak(batch + 1),
    "the batch computed from the line fits 90% of the budget, and one more sample does not",
)
t4 = 16e9  # bytes: NVIDIA T4 datasheet (reference figures, section E)
print(
    f"arithmetic, not a measurement: 90% of a T4's 16 GB would hold {int((0.9 * t4 - fixed) // per_sample):,} samples of this step"
)

# %% [markdown]
# The picture: the measured peaks lie on the line, and the batch is where the line crosses
# 90% of the budget.

# %%
ns = [1, 2, 2000, 5000, 8000, batch, 14000]
peaks = [measured_peak(n) for n in ns]
fig, ax = plt.subplots(figsize=(6.5, 3.5))
ax.plot(ns, [p / 2**20 for p in peaks], "o", label="measured peak")
ax.plot([0, 14000], [fixed / 2**20, (fixed + per_sample * 14000) / 2**20], "-", lw=1, label="fixed + per_sample · n")
ax.axhline(budget / 2**20, color="C3", label="budget (64 MiB)")
ax.axhline(usable / 2**20, color="C3", ls="--", label="90% of the budget")
ax.axvline(batch, color="gray", ls=":", label=f"largest batch: {batch:,}")
ax.set(xlabel="batch size n", ylabel="peak (MiB)", title="Peak memory of one step grows linearly with the batch")
ax.legend(fontsize=8)
ax.grid(alpha=0.3)
plt.show()

# %% [markdown]
# On a GPU you measure the same way with the counters of the previous section:
# `reset_peak_memory_stats()`, run one small step, read `max_memory_allocated()`, twice.
# Measure what a real step does (the forward pass, the backward pass that keeps activations
# alive, the optimiser's state), not what you expect it to do.
#
# ## When it does not fit: out of memory
#
# Asking for more memory than there is raises an error. On a GPU it is
# `torch.OutOfMemoryError` (also reachable as `torch.cuda.OutOfMemoryError`), a subclass of
# `RuntimeError`, whose message says how much it tried to allocate, the device's total
# capacity and how much of it is free, and how much of the memory PyTorch holds is allocated
# and how much is reserved but unallocated, with advice for when that last part is large
# (fragmentation): the allocator option `expandable_segments:True`. Apple's GPU (MPS) is
# different: its allocator raises a plain `RuntimeError` ("MPS backend out of memory", a
# `TORCH_CHECK` in `aten/src/ATen/mps/MPSAllocator.mm`), not `torch.OutOfMemoryError`.
#
# On the CPU, an error may not come at all. A request the operating system refuses outright raises
# a plain `RuntimeError`: asking for 4 EiB (2⁶² bytes, more than any machine can address) fails at
# once, without touching memory:

# %% tags=["raises-exception", "version-specific"]
torch.empty(2**62, dtype=torch.uint8)

# %% [markdown]
# So code that must survive both devices catches `RuntimeError` and looks at the message, or
# catches `torch.OutOfMemoryError` knowing it sees only the accelerator's error:

# %%
try:
    torch.empty(2**62, dtype=torch.uint8)
except torch.OutOfMemoryError:
    print("caught as torch.OutOfMemoryError")
except RuntimeError as exc:
    print("caught as a plain RuntimeError:", "can't allocate memory" in str(exc))
print("torch.OutOfMemoryError is a RuntimeError:", issubclass(torch.OutOfMemoryError, RuntimeError))

# %% [markdown]
# A request the machine could *almost* hold is another matter. Linux by default *overcommits*:
# `torch.empty` only reserves address space, and the kernel finds physical pages when they are first
# written. Its default policy (`vm.overcommit_memory = 0`) refuses one request larger than the whole
# machine, but grants each request below that, however much memory is already in use. Two buffers of
# 90% of the machine's memory each are both granted; writing to them later does not raise either: the
# kernel's out-of-memory killer ends the process (in Jupyter: "the kernel died"). The next cell asks for
# two such buffers and **never writes to them**.
#
# **Predict 07.p3.** Does asking for the two buffers (1.8 times this machine's memory, never written)
# raise an error? Write True or False.

# %%
predict("07.p3", None)  # replace None with your prediction

# %%
# NBVAL_IGNORE_OUTPUT
from pathlib import Path


def resident_bytes():
    """This process's resident memory (VmRSS), read from /proc."""
    line = next(line for line in Path("/proc/self/status").read_text().splitlines() if line.startswith("VmRSS"))
    return int(line.split()[1]) * 1024


policy = Path("/proc/sys/vm/overcommit_memory")
raised = None
if policy.exists():
    meminfo = Path("/proc/meminfo").read_text().splitlines()
    total = int(next(line for line in meminfo if line.startswith("MemTotal")).split()[1]) * 1024
    print(f"vm.overcommit_memory = {policy.read_text().strip()} (0: heuristic, the default; 1: always; 2: strict)")
    before = resident_bytes()
    try:
        first = torch.empty(int(0.9 * total), dtype=torch.uint8)  # address space only: never written
        second = torch.empty(int(0.9 * total), dtype=torch.uint8)
        grown = resident_bytes() - before
        print(
            f"two torch.empty of {0.9 * total / 1e9:.1f} GB each on a {total / 1e9:.1f} GB machine: no error; "
            f"resident memory grew by {grown / 1e6:.0f} MB"
        )
        del first, second
        raised = False
    except RuntimeError as exc:
        raised = True
        print("refused at once (strict overcommit): RuntimeError:", str(exc).splitlines()[0][:120])
else:
    print("No /proc here (not Linux): this check reads Linux's policy; other systems have their own.")
if raised is not None:
    reveal(
        "07.p3",
        raised,
        why="with overcommit the kernel grants address space, not memory: nothing is checked against what is free "
        "until a page is written. Only strict overcommit (2) refuses at once.",
    )

# %%
# NBVAL_IGNORE_OUTPUT
if device.type == "cuda":
    try:
        torch.empty(2**50, dtype=torch.uint8, device=device)  # 1 PiB
    except torch.OutOfMemoryError as exc:
        print(f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}")
else:
    print(
        gpu_skip_message("asking the GPU for 1 PiB and reading the torch.OutOfMemoryError")
        or f"Skipped the out-of-memory error on the GPU: this cell triggers it on CUDA, and this device is {device.type}."
    )

# %% [markdown]
# After catching an out-of-memory error, a training loop can retry with a smaller batch;
# but the robust habit is the one above: measure one small step and size the batch before
# you run out.

# %% [markdown]
# ## Common mistakes
#
# **Mixing devices.** As a rule, the tensors of one operation must live on the same device,
# and PyTorch does not move one of them to the other's device for you. With a GPU you meet
# this as `cuda:0` versus `cpu`; the `meta` device shows it on every machine:

# %% tags=["raises-exception"]
weights = torch.randn(3, 3).to("meta")
inputs = torch.randn(3)
weights @ inputs

# %% [markdown]
# Fix: create both on `device`, or move one with `.to(weights.device)`.
#
# **Predict 07.p4.** `weights` is on `meta`. Does `weights * torch.tensor(2.0)`, a 0-d tensor on the
# CPU, raise an error? Write True or False.

# %%
predict("07.p4", None)  # replace None with your prediction

# %%
weights = torch.randn(3, 3).to("meta")
try:
    print("meta tensor * 0-d CPU tensor ->", (weights * torch.tensor(2.0)).device)
    scalar_raised = False
except RuntimeError:
    scalar_raised = True
reveal(
    "07.p4",
    scalar_raised,
    why="a 0-d CPU tensor is read on the host and passed to the kernel like a Python number, whatever the other "
    "tensor's device: an exception to the same-device rule.",
)
print("meta tensor indexed by a CPU index tensor ->", weights[torch.tensor([0, 2])].device)
try:
    weights * torch.tensor([2.0])
except RuntimeError as exc:
    print("meta tensor * 1-element 1-d CPU tensor -> RuntimeError:", exc)

# %% [markdown]
# Two exceptions are worth knowing, because they make mixed code run where you expected
# an error. A **0-d CPU tensor** (a scalar such as `torch.tensor(2.0)`) combines with a
# tensor on any device: its value is read on the host and handed to the kernel like a
# Python number. A 1-element tensor with a dimension (`torch.tensor([2.0])`) is not a
# scalar and fails like any other. And an
# **index tensor** on the CPU is copied to the indexed tensor's device for you: `x[idx]` works
# with `x` on the GPU and `idx` on the CPU, at the cost of a transfer you did not write.

# %% [markdown]
# **Expecting `.to()` to move the tensor in place.** `t.to(device)` returns a new tensor;
# `t` stays where it was. (A *module*'s `.to()` changes the module and returns it, but
# it too puts new tensors in place of the old ones: module 08.)

# %%
t = torch.ones(2)
t.to("meta")  # result thrown away
print("t.device:", t.device)
t = t.to("meta")
print("t.device:", t.device)

# %% [markdown]
# **Converting a device tensor to NumPy.** NumPy arrays live in host memory, so
# `.numpy()` refuses a tensor on another device. Bring it back first with `.cpu()`
# (the meta device stands in for a GPU here; with a GPU tensor the message names `cuda:0`):

# %% tags=["raises-exception"]
torch.ones(2, device="meta").numpy()

# %% [markdown]
# **Timing without synchronising.** `time.perf_counter()` around GPU code without
# `torch.accelerator.synchronize()` reports the launch (microseconds) and makes every GPU look
# infinitely fast. Use `measure(fn, device=device)`, `torch.utils.benchmark`, or (on CUDA)
# CUDA events.
#
# **Timing `clone()` as a copy.** A clone allocates its output on every call; above the
# allocator's threshold (32 MiB with glibc) that is usually fresh memory, and the clone pays
# the operating system's page faults on it: measure bandwidth with `dst.copy_(src)` into a
# buffer that already exists.
#
# **Pinning every batch yourself.** `batch.pin_memory().to(device, non_blocking=True)` on
# your training thread copies each batch twice, the first time synchronously: often slower
# than a plain `.to(device)`. Let `DataLoader(pin_memory=True)` pin in its background
# thread, or pin once what you reuse.
#
# **Timing the first call.** The first CUDA call in a process initialises the driver and
# loads kernels (hundreds of milliseconds). Warm up before you time.
#
# **Expecting `del` to give memory back to the driver.** `del t` returns the block to
# PyTorch's cache: `memory_allocated()` drops, `memory_reserved()` and `nvidia-smi` do not.
# That is not a leak. A leak is `memory_allocated()` growing step after step: tensors your
# code still refers to. `empty_cache()` helps only other processes.
#
# **Catching only `torch.OutOfMemoryError`.** The CPU and MPS allocators raise a plain
# `RuntimeError` when they refuse; catch `RuntimeError` where more than CUDA can run. And on
# Linux do not count on an error from the CPU at all: size the work from the memory you have.

# %% [markdown]
# ## Key points
#
# * Pick the device once (`torch.accelerator.current_accelerator()` when
#   `torch.accelerator.is_available()`, else the CPU: `pick_device()` does this), create tensors
#   there with `device=`, move them with `.to(device)`; `.cuda()` works only where CUDA exists.
#   XPU (Intel GPUs) needs PyTorch's XPU build; TPUs need the separate `torch_xla` package.
# * GPU work is queued and runs asynchronously: call `torch.accelerator.synchronize()` before
#   stopping the clock (`measure` and `torch.utils.benchmark` do), or time on the device with
#   CUDA events.
# * A transfer moves `numel × element_size` bytes over a bus far slower than GPU memory;
#   from memory that is already pinned it is faster, and `non_blocking=True` overlaps it
#   with CPU work. Pinning is itself a copy: pin in the loader's background thread
#   (`DataLoader(pin_memory=True)`) or once, not just before each transfer.
# * The GPU wins on large, regular work (a 5000×5000 matmul: 38× on the published laptop).
#   It loses on tiny operations, Python loops over elements, float64 on consumer cards, and
#   work dwarfed by its transfers.
# * Device memory goes through a caching allocator: `memory_allocated()` counts live tensors,
#   `memory_reserved()` what the cache holds from the driver (freed blocks included);
#   `max_memory_allocated()` is the peak since `reset_peak_memory_stats()`. The same
#   functions live in `torch.cuda` and `torch.accelerator`.
# * Size a batch by measurement: the peak of one step is `fixed + per_sample · n`; measure two
#   small batches, solve for the largest `n` under the budget, and keep a margin. Running out
#   raises `torch.OutOfMemoryError` on CUDA and a plain `RuntimeError` on MPS; on the CPU a
#   refused request is a plain `RuntimeError`, but under Linux's overcommit a granted one can
#   end with the process killed when its pages are written, with no exception at all.
#
# ## Further reading
#
# * [`torch.accelerator.current_accelerator`](https://docs.pytorch.org/docs/stable/generated/torch.accelerator.current_accelerator.html)
#   and the rest of the `torch.accelerator` API, PyTorch's device-agnostic entry point.
# * [A guide on good usage of `non_blocking` and `pin_memory()`](https://docs.pytorch.org/tutorials/intermediate/pinmem_nonblock.html),
#   the PyTorch tutorial on pinned memory and asynchronous copies (with measurements).
# * [CUDA semantics: memory management](https://docs.pytorch.org/docs/stable/notes/cuda.html#memory-management),
#   PyTorch's notes on the caching allocator, `memory_allocated` vs `memory_reserved`,
#   `empty_cache` and `PYTORCH_CUDA_ALLOC_CONF`; and
#   [Understanding CUDA memory usage](https://docs.pytorch.org/docs/stable/torch_cuda_memory.html),
#   how to record and read a memory snapshot.
# * [Benchmark Utils: `torch.utils.benchmark`](https://pytorch.org/docs/stable/benchmark_utils.html),
#   the reference for `Timer`, `blocked_autorange` and `Compare`.
# * [Getting started on Intel GPU](https://pytorch.org/docs/stable/notes/get_start_xpu.html) (XPU)
#   and the [PyTorch/XLA documentation](https://docs.pytorch.org/xla/master) (TPUs).
# * [docs/reference-figures.md](../docs/reference-figures.md), section C: the published laptop
#   CPU and GPU figures this lesson compares with, and their source; section E: the memory of
#   the GPUs the lesson names, from NVIDIA's datasheets.

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 26 statements of this lesson are tested facts. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“A 0-d CPU tensor (a scalar such as <code>torch.tensor(2.0)</code>) combines with a tensor on any device”</td><td>✓</td></tr>
# <tr><td>“A 1-element tensor with a dimension (<code>torch.tensor([2.0])</code>) is not a scalar and fails like any other.”</td><td>✓</td></tr>
# <tr><td>“an index tensor on the CPU is copied to the indexed tensor&#x27;s device for you”</td><td>✓</td></tr>
# <tr><td>“As a rule, the tensors of one operation must live on the same device, and PyTorch does not move one of them to the other&#x27;s device for you.”</td><td>✓</td></tr>
# <tr><td>“<code>t.to(device)</code> returns a copy on <code>device</code>, or <code>t</code> itself when it is already there. It never changes <code>t</code>.”</td><td>✓</td></tr>
# <tr><td>“its tensors have a shape, a dtype and a device but no data”</td><td>✓</td></tr>
# <tr><td>“<code>non_blocking=True</code> is accepted on any copy; without a GPU it changes nothing.”</td><td>✓</td></tr>
# <tr><td>“Without an accelerator the call fails (a CPU-only build of PyTorch says <code>Cannot access accelerator device when none is available</code>; a CUDA build on a machine without a GPU says <code>Found no NVIDIA driver on your system</code>), and <code>torch.ones(..., pin_memory=True)</code> fails too.”</td><td>✓</td></tr>
# <tr><td>“<code>torch.accelerator.synchronize()</code> needs an accelerator: on a machine without one it raises instead of doing nothing”</td><td>✓</td></tr>
# <tr><td>“A CPU-only build of PyTorch fails with <code>AssertionError: Torch not compiled with CUDA enabled</code>”</td><td>✓</td></tr>
# <tr><td>“calls <code>torch.accelerator.synchronize()</code> when an accelerator is present and then reads the ordinary wall clock (<code>timeit.default_timer</code>)”</td><td>✓</td></tr>
# <tr><td>“runs on one thread unless you pass <code>num_threads</code>”</td><td>✓</td></tr>
# <tr><td>“<code>.numpy()</code> refuses a tensor on another device”</td><td>✓</td></tr>
# <tr><td>“Freeing a tensor then never waits for the device.”</td><td title="(&#x27;/work/main/tests/facts/l07.py&#x27;, 187, &#x27;Skipped: the sentence states what the CUDA caching allocator does: needs a CUDA GPU&#x27;)">skipped</td></tr>
# <tr><td>“<code>del t</code> returns the block to PyTorch&#x27;s cache: <code>memory_allocated()</code> drops, <code>memory_reserved()</code> and <code>nvidia-smi</code> do not.”</td><td title="(&#x27;/work/main/tests/facts/l07.py&#x27;, 187, &#x27;Skipped: the sentence states what the CUDA caching allocator does: needs a CUDA GPU&#x27;)">skipped</td></tr>
# <tr><td>“<code>empty_cache()</code> hands the cached free blocks back to the driver: it frees no live tensor”</td><td title="(&#x27;/work/main/tests/facts/l07.py&#x27;, 187, &#x27;Skipped: the sentence states what the CUDA caching allocator does: needs a CUDA GPU&#x27;)">skipped</td></tr>
# <tr><td>“<code>reset_peak_memory_stats()</code>, which sets the peak to what is allocated at that moment (not to zero)”</td><td title="(&#x27;/work/main/tests/facts/l07.py&#x27;, 187, &#x27;Skipped: the sentence states what the CUDA caching allocator does: needs a CUDA GPU&#x27;)">skipped</td></tr>
# <tr><td>“Each of these exists as <code>torch.cuda.&lt;name&gt;</code> and, for whichever accelerator the build supports, as <code>torch.accelerator.&lt;name&gt;</code>”</td><td>✓</td></tr>
# <tr><td>“torch 2.13&#x27;s CPU-only build raises (like <code>synchronize()</code>), while its CUDA build on a machine without a GPU (what <code>pip install torch</code> gives on Linux) and torch 2.15 return 0”</td><td>✓</td></tr>
# <tr><td>“the allocator rounds each request up to a multiple of 512 bytes”</td><td title="(&#x27;/work/main/tests/facts/l07.py&#x27;, 187, &#x27;Skipped: the sentence states what the CUDA caching allocator does: needs a CUDA GPU&#x27;)">skipped</td></tr>
# <tr><td>“the driver&#x27;s own context takes device memory that none of these counters shows”</td><td title="(&#x27;/work/main/tests/facts/l07.py&#x27;, 187, &#x27;Skipped: the sentence states what the CUDA caching allocator does: needs a CUDA GPU&#x27;)">skipped</td></tr>
# <tr><td>“<code>torch.OutOfMemoryError</code> (also reachable as <code>torch.cuda.OutOfMemoryError</code>), a subclass of <code>RuntimeError</code>”</td><td>✓</td></tr>
# <tr><td>“whose message says how much it tried to allocate, the device&#x27;s total capacity and how much of it is free, and how much of the memory PyTorch holds is allocated and how much is reserved but unallocated”</td><td title="(&#x27;/work/main/tests/facts/l07.py&#x27;, 187, &#x27;Skipped: the sentence states what the CUDA caching allocator does: needs a CUDA GPU&#x27;)">skipped</td></tr>
# <tr><td>“A request the operating system refuses outright raises a plain <code>RuntimeError</code>: asking for 4 EiB (2⁶² bytes, more than any machine can address) fails at once, without touching memory”</td><td>✓</td></tr>
# <tr><td>“<code>torch.empty</code> only reserves address space, and the kernel finds physical pages when they are first written.”</td><td>✓</td></tr>
# <tr><td>“above the allocator&#x27;s threshold (32 MiB with glibc) that is usually fresh memory, and the clone pays the operating system&#x27;s page faults on it”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/07_gpu_offload.ipynb](../exercises/07_gpu_offload.ipynb) ·
# **Previous:** [06 · Linear algebra](06_linear_algebra.ipynb) ·
# **Next:** [08 · nn.Module as a container for computation](08_modules_and_buffers.ipynb)
