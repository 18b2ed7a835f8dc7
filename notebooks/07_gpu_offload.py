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
# *Module 07 of 00–15 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/07_gpu_offload.ipynb) · previous: [06 · Linear algebra](06_linear_algebra.ipynb) · next: [08 · nn.Module as a container for computation](08_modules_and_buffers.ipynb)

# %% tags=["course-setup"] jupyter={"source_hidden": true}
# Course setup. On your own machine this cell installs nothing. On Google Colab it fetches
# the course and installs its helper package, torchcourse, once per session.
# Colab runtime: GPU (Runtime > Change runtime type > T4 GPU); on a CPU the GPU cells are skipped.
import sys

if "google.colab" in sys.modules:
    import os
    import subprocess

    import torch

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
    if torch.__version__.split("+")[0] != "2.13.0":
        print("Colab has torch", torch.__version__, "- the stored outputs were made with 2.13.0.")
    if not torch.cuda.is_available():
        print("No GPU in this runtime: Runtime > Change runtime type > T4 GPU, then run this cell again.")
else:
    print("Local run: nothing to install.")

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
# 1. write device-agnostic code with `pick_device()`, `device=` and `.to()`;
# 2. time GPU work correctly, with `torch.cuda.synchronize()` or CUDA events;
# 3. estimate and measure the cost of a host-to-device transfer (pageable vs pinned memory,
#    `non_blocking`);
# 4. predict when the GPU wins (large matrix products) and when it loses (small work,
#    Python loops, float64 on consumer GPUs).
#
# **Prerequisites.** Modules 00–06: tensors, dtypes, vectorisation and timing with
# `measure`, matrix products.
#
# **Time.** 35 min teaching, 25 min exercises.
#
# This notebook runs on any machine. Without a GPU, each GPU cell prints what it skipped,
# and the lesson sets the CPU figures measured here beside published GPU figures.

# %% [markdown]
# ## Pick the device once
#
# `pick_device()` returns CUDA if PyTorch sees an NVIDIA (or AMD ROCm, which PyTorch also
# calls `cuda`) GPU, then Apple's MPS, then the CPU. Everything else in a notebook takes
# that one value, so the same code runs everywhere. Which device *this* machine has
# depends on the machine, so that cell's output is not part of the course's checked
# outputs:

# %%
# NBVAL_IGNORE_OUTPUT
import torch

from torchcourse import describe_device, gpu_skip_message, measure, pick_device

device = pick_device()
print("device:", describe_device(device))
print("torch.cuda.is_available():", torch.cuda.is_available())

# %%
print("device type is one of cuda/mps/cpu:", device.type in {"cuda", "mps", "cpu"})

# %% [markdown]
# ## Three ways to put a tensor on a device
#
# 1. **Create it there**: every creation function takes `device=`. Nothing is computed on
#    the CPU and nothing crosses the bus.
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
# `.cuda()` is the one form that depends on the machine. On this CPU-only build it fails
# with `AssertionError: Torch not compiled with CUDA enabled`; with CUDA it moves the
# tensor. The cell catches the error so that it runs everywhere:

# %%
# NBVAL_IGNORE_OUTPUT
try:
    print("t.cuda() ->", t.cuda().device)
except (AssertionError, RuntimeError) as exc:
    print(f"t.cuda() failed here: {type(exc).__name__}: {exc}")

# %% [markdown]
# ## The GPU runs asynchronously
#
# When you call `a @ b` on a CUDA tensor, PyTorch does not wait for the product. It puts
# a *kernel launch* into the GPU's queue (a CUDA *stream*) and returns at once, in a few
# microseconds; the GPU works through the queue in the background. Python only waits
# when it needs a result: `.item()`, `print`, `.cpu()`, or an explicit
# `torch.cuda.synchronize()`.
#
# So `time.perf_counter()` around `a @ b` measures the *launch*, not the work. The cell
# below times the same product twice: without and with a synchronisation before the clock
# stops. On the CPU every operation finishes before it returns, so there is nothing to
# show and the cell says so.

# %%
# NBVAL_IGNORE_OUTPUT
import time

if device.type == "cuda":
    n = 8000
    a = torch.randn(n, n, device=device)
    b = torch.randn(n, n, device=device)
    a @ b  # warm-up: the first call loads the cuBLAS kernels
    torch.cuda.synchronize()

    start = time.perf_counter()
    c = a @ b
    launch = time.perf_counter() - start  # the kernel is still running
    torch.cuda.synchronize()
    done = time.perf_counter() - start

    print(f"without synchronize: {launch * 1e3:.3f} ms  (only the launch)")
    print(f"with synchronize:    {done * 1e3:.3f} ms  (the product itself)")
    del a, b, c
else:
    print(
        gpu_skip_message("timing a CUDA matmul with and without torch.cuda.synchronize()")
        or "This cell needs CUDA; MPS works the same way with torch.mps.synchronize()."
    )

# %% [markdown]
# The course's `measure` and `time_once` take the device and synchronise before the clock
# starts and before it stops, so every timing in the course is of finished work.
#
# **CUDA events** measure on the GPU's own clock: you record an event into the stream
# before and after the work, and ask for the time between them once the second one has
# happened. This is the pattern (and what `torch.utils.benchmark` does internally):


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
    print(gpu_skip_message("the CUDA-events timing") or "CUDA events need CUDA; this device is not CUDA.")

# %% [markdown]
# ## What a transfer costs
#
# Host memory and GPU memory are separate. `t.to("cuda")` copies every byte of `t` over
# the PCIe (or NVLink) bus: a few to a few tens of GB/s, against hundreds to thousands of
# GB/s inside the GPU. The number of bytes is `t.numel() * t.element_size()`:

# %%
for n in (500, 5000, 10000):
    nbytes = n * n * 4  # float32
    print(
        f"{n:>5}x{n:<5} float32: {nbytes / 1e6:7.1f} MB, "
        f"{nbytes / 16e9 * 1e3:6.2f} ms at 16 GB/s (a typical PCIe 4.0 x16 copy)"
    )

# %% [markdown]
# Compare with the published matmul times in the next section: moving a 5000×5000 matrix
# costs a few milliseconds, the GPU product about 58 ms. Moving the data once and doing a
# lot of work on it pays; moving it for one cheap operation does not.
#
# **Pageable vs pinned memory.** Ordinary host memory is *pageable*: the operating system
# may move it, so the GPU cannot read it directly, and the driver first copies it into a
# *pinned* (page-locked) staging buffer. `t.pin_memory()` makes that buffer yourself:
# copies from pinned memory are faster, and only from pinned memory can
# `t.to("cuda", non_blocking=True)` return before the copy ends, so the CPU can prepare
# the next batch meanwhile (this is what `DataLoader(pin_memory=True)` is for).
#
# Pinning needs a GPU build of PyTorch with a GPU present. Here is what it does on this
# machine:

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
# On the CPU-only build the call fails (`Cannot access accelerator device when none is
# available`), and `torch.ones(..., pin_memory=True)` fails likewise. `non_blocking=True`
# is accepted on any copy; without a GPU it changes nothing.
#
# What you *can* measure on the CPU is the host side: how fast this machine copies memory.
# That bounds how fast it could feed any GPU, and it is the same copy the driver makes into
# its staging buffer for pageable memory.

# %%
# NBVAL_IGNORE_OUTPUT
copy_time = measure(lambda: host.clone(), repeat=5, budget=0.1)
gb = 2 * host.numel() * host.element_size() / 1e9  # read + write
print(f"host copy of 64 MiB: {copy_time}  ->  {gb / copy_time.min:.1f} GB/s")

# %% [markdown]
# With a GPU, the next cell measures host-to-device copies of the same 64 MiB from
# pageable and from pinned memory, and shows that `non_blocking=True` from pinned memory
# returns before the copy has finished.

# %%
# NBVAL_IGNORE_OUTPUT
if device.type == "cuda" and pinned is not None:
    pageable_t = measure(lambda: host.to(device), device=device)
    pinned_t = measure(lambda: pinned.to(device, non_blocking=True), device=device)
    nbytes = host.numel() * host.element_size()
    print(f"pageable -> GPU: {pageable_t}  ({nbytes / pageable_t.min / 1e9:.1f} GB/s)")
    print(f"pinned   -> GPU: {pinned_t}  ({nbytes / pinned_t.min / 1e9:.1f} GB/s)")

    torch.cuda.synchronize()
    start = time.perf_counter()
    on_gpu = pinned.to(device, non_blocking=True)
    returned = time.perf_counter() - start
    torch.cuda.synchronize()
    print(
        f"non_blocking copy returned after {returned * 1e6:.0f} µs, "
        f"finished after {(time.perf_counter() - start) * 1e6:.0f} µs"
    )
else:
    print(
        gpu_skip_message("the pageable vs pinned host-to-device copy")
        or "Pinned-memory copies need CUDA; this device is not CUDA."
    )

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
# dedicated GPU, 2022) are 500×500 in 2.29 ms on the CPU vs 108 µs on the GPU (21×) and
# 5000×5000 in 2.21 s vs 57.88 ms (38×).
#
# This machine has 2 shared cores, so we measure the CPU up to 1500×1500 and extrapolate
# to 5000 and 10000 with the `n³` law, from the largest size measured (a 10000×10000
# product would take tens of seconds here).

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
    print(f"CPU {n:>5}x{n:<5} {t_n}   {2 * n**3 / t_n.min / 1e9:6.1f} GFLOP/s")
for n in (5000, 10000):
    cpu_seconds[n] = cpu_seconds[1500] * (n / 1500) ** 3
    print(f"CPU {n:>5}x{n:<5} about {cpu_seconds[n]:.1f} s (extrapolated as n³ from 1500)")

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
# products run below the CPU's peak rate (and suffer most when other programs share the
# cores), so the measured line is flatter at the left. The
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
# however little it computes. Adding two 10-element vectors costs about a microsecond of
# PyTorch's own overhead on the CPU; on a GPU the launch comes on top, and the arithmetic
# is negligible either way. Below a few thousand elements per operation, the CPU usually
# wins.

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
# `sum()`. The loop is module 05's `loop_sum` from `torchcourse.workloads.sums`, the same
# code the course's benchmark times:

# %%
from torchcourse.workloads.sums import loop_sum

x = torch.randn(10_000, dtype=torch.float64)
print("loop_sum == x.sum():", torch.allclose(loop_sum(x), x.sum()))

# %%
# NBVAL_IGNORE_OUTPUT
loop_t = measure(lambda: loop_sum(x), repeat=3, number=1)
sum_t = measure(lambda: x.sum())
print(f"CPU  loop: {loop_t}\nCPU  sum():  {sum_t}\nloop / sum(): {loop_t.min / sum_t.min:,.0f}x")
if device.type != "cpu":
    x_gpu = x.to(device, dtype=torch.float32 if device.type == "mps" else x.dtype)  # MPS has no float64
    print(f"GPU  loop: {measure(lambda: loop_sum(x_gpu), repeat=3, number=1, device=device)}")
    print(f"GPU  sum():  {measure(lambda: x_gpu.sum(), device=device)}")
else:
    print(gpu_skip_message("the Python loop and sum() on the GPU"))

# %% [markdown]
# **3. float64 on consumer GPUs.** Gaming and laptop GPUs have few float64 units: their
# float64 throughput is 1/32 to 1/64 of float32, so a float64 matmul there can be slower
# than on a good CPU. Data-centre GPUs (A100, H100) run float64 at half the float32 rate.
# On a CPU, float64 costs up to twice float32 (a vector register holds half as many
# numbers). Measure the ratio on your device; without CUDA the cell prints the CPU's:

# %%
# NBVAL_IGNORE_OUTPUT
n = 1000
for dev in [cpu] + ([device] if device.type == "cuda" else []):
    a32 = torch.randn(n, n, device=dev)
    a64 = a32.double()
    t32 = measure(lambda: a32 @ a32, repeat=3, device=dev, budget=0.05)
    t64 = measure(lambda: a64 @ a64, repeat=3, device=dev, budget=0.05)
    print(
        f"{dev.type}: float32 {t32.min * 1e3:.2f} ms, float64 {t64.min * 1e3:.2f} ms,"
        f" float64/float32 = {t64.min / t32.min:.1f}x"
    )
if device.type != "cuda":
    print(gpu_skip_message("the float64 vs float32 matmul on a CUDA GPU") or "float64 is not supported on MPS at all.")

# %% [markdown]
# **4. Transfers that dominate.** Moving a matrix to the GPU for one cheap operation and
# back costs two transfers for microseconds of work. Keep data on the device across many
# operations, and bring back only small results.

# %% [markdown]
# ## Common mistakes
#
# **Mixing devices.** Both operands must live on the same device; PyTorch never moves data
# behind your back. With a GPU you meet this as `cuda:0` versus `cpu`; the `meta` device
# shows it on every machine:

# %% tags=["raises-exception"]
weights = torch.randn(3, 3).to("meta")
inputs = torch.randn(3)
weights @ inputs

# %% [markdown]
# Fix: create both on `device`, or move one with `.to(weights.device)`.
#
# **Expecting `.to()` to move the tensor in place.** `t.to(device)` returns a new tensor;
# `t` stays where it was. (A *module*'s `.to()` is in place: module 08.)

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
# `torch.cuda.synchronize()` reports the launch (microseconds) and makes every GPU look
# infinitely fast. Use `measure(fn, device=device)`, CUDA events, or
# `torch.utils.benchmark`.
#
# **Timing the first call.** The first CUDA call in a process initialises the driver and
# loads kernels (hundreds of milliseconds). Warm up before you time.

# %% [markdown]
# ## Key points
#
# * Pick the device once (`pick_device()`), create tensors there with `device=`, move them
#   with `.to(device)`; `.cuda()` works only where CUDA exists.
# * GPU work is queued and runs asynchronously: time it with `torch.cuda.synchronize()`
#   before stopping the clock, or with CUDA events.
# * A transfer moves `numel × element_size` bytes over a bus far slower than GPU memory;
#   pinned memory makes it faster and lets `non_blocking=True` overlap it with CPU work.
# * The GPU wins on large, regular work (a 5000×5000 matmul: 38× on the published laptop).
#   It loses on tiny operations, Python loops over elements, float64 on consumer cards, and
#   work dwarfed by its transfers.

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/07_gpu_offload.ipynb](../exercises/07_gpu_offload.ipynb) ·
# **Previous:** [06 · Linear algebra](06_linear_algebra.ipynb) ·
# **Next:** [08 · nn.Module as a container for computation](08_modules_and_buffers.ipynb)
