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
# *Module 09 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/09_compile_fusion.ipynb) · previous: [08 · nn.Module as a container for computation](08_modules_and_buffers.ipynb) · next: [10 · Recompilation and dynamic shapes](10_recompilation.ipynb)

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
# *Outputs made with torch 2.13.0+cpu on Intel(R) Xeon(R) Processor (2 cores, CPU only), 2026-11-28.*

# %% [markdown]
# # 09 · torch.compile: fusion and overhead
#
# A vectorised tensor expression such as `(x * x + y * y <= 1).float().mean()` runs one
# kernel per operation, and each kernel writes its whole result to memory for the next one
# to read back. `torch.compile` traces the expression into a graph and hands it to a
# compiler (inductor) that generates one loop doing all the steps per element: *fusion*.
# This notebook measures what that buys on a Monte Carlo estimate of π, shows the generated
# code, and then the other side of the bill: the first call compiles (seconds with an empty
# compiler cache), a function with one operation has nothing to fuse, and the first call
# must be paid back by fast later ones.
#
# **Objectives.** After this notebook you can:
# 1. explain fusion and read the kernel inductor generated for a function (`TORCH_LOGS=output_code`);
# 2. say when `torch.compile` helps (chains of element-wise work, reductions) and when it
#    cannot (a single operation, work already in one library call);
# 3. measure compile cost and compute the number of calls after which compiling pays off;
# 4. tell a cold compile from a warm one (the on-disk inductor cache);
# 5. choose a `mode` and know which modes matter only on a GPU;
# 6. compare compiled with eager results with the dtype's tolerance, and debug a difference
#    (`fallback_random`, `TORCH_COMPILE_DEBUG`, `TORCH_TRACE` and `tlparse`).
#
# **Prerequisites.** Modules 05 (vectorisation, measuring speed) and 07 (GPU offload).
#
# **Time.** 40 min teaching, 30 min exercises.

# %% [markdown]
# ## A fresh compiler cache
#
# Inductor keeps what it compiled in an on-disk cache (by default under your temporary
# directory, `torchinductor_<user>`), so a second run of this notebook would find its
# kernels already built. To show you the real first-time cost on every run, this notebook
# points inductor at a new, empty cache directory *before* anything is compiled, through
# the environment variable `TORCHINDUCTOR_CACHE_DIR` (the cell at the end deletes it). You
# would not do this in your own code; on a cluster whose `/tmp` is wiped between jobs, the
# same variable moves the cache somewhere that lasts.

# %%
import os
import tempfile

cache_dir = tempfile.mkdtemp(prefix="torchcourse-09-inductor-")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir

import math

import matplotlib.pyplot as plt
import torch
import torch._inductor.codecache  # noqa: F401 - imported here, so that timing the CPU probe below times no import
from torch._dynamo.utils import counters
from torch._inductor.cpu_vec_isa import pick_vec_isa

from torchcourse import claim, format_seconds, gpu_skip_message, measure, predict, reveal, time_once
from torchcourse.bench.workloads import montecarlo as mc
from torchcourse.compiletools import captured_logs, compile_counter, fallback_active, needs_compiler, reset
from torchcourse.timing import interleaved

print("inductor cache is empty:", os.listdir(cache_dir) == [])

# %% [markdown]
# ## Monte Carlo π, three ways
#
# Throw points uniformly into the unit square; the fraction inside the quarter disc
# $x^2 + y^2 \le 1$ tends to $\pi/4$. The course keeps the three implementations in
# `torchcourse.bench.workloads.montecarlo` (the course's benchmark imports the same code). The
# pure Python version handles one point per loop iteration:

# %%
import inspect

print(inspect.getsource(mc.pi_python))

# %% [markdown]
# Each iteration runs a handful of interpreted Python operations, so every point costs
# tens of nanoseconds or more. We run it on 2·10⁵ points only and report the time per point
# (the cell prints it, and what 10⁷ points would take at that rate). The estimate's error is
# about $1.6/\sqrt{n}$, so with 2·10⁵ points expect the third decimal to be off.

# %%
n_py = 200_000
pi_py = mc.pi_python(n_py, seed=0)
print(f"pure Python, {n_py:,} points: pi ~ {pi_py:.4f}, |error| < 0.01: {abs(pi_py - math.pi) < 0.01}")

# %%
# NBVAL_IGNORE_OUTPUT
t_py = measure(lambda: mc.pi_python(n_py, seed=0), repeat=3, number=1, warmup=0)
per_point_py = t_py.min / n_py
print(
    f"pure Python: {t_py}  ->  {per_point_py * 1e9:.0f} ns per point; "
    f"10^7 points would take ~{format_seconds(per_point_py * 1e7)}"
)

# %% [markdown]
# The vectorised version does the same on whole tensors. The samples are drawn once,
# outside the function, from a seeded generator: later we feed the very same samples to
# the compiled version, because compiled code draws different random numbers than eager
# code (see *Common mistakes*).

# %%
n = 10_000_000
x, y = mc.samples(n, seed=0)
print(inspect.getsource(mc.pi_from_samples))
pi_eager = mc.pi_from_samples(x, y)
print(
    f"vectorised, {n:,} points: pi ~ {pi_eager.item():.4f}, |error| < 0.002: {abs(pi_eager.item() - math.pi) < 0.002}"
)

# %%
# NBVAL_IGNORE_OUTPUT
t_eager = measure(lambda: mc.pi_from_samples(x, y), repeat=5, budget=0.1)
per_point_eager = t_eager.min / n
print(
    f"vectorised eager: {t_eager}  ->  {per_point_eager * 1e9:.2f} ns per point, "
    f"{per_point_py / per_point_eager:.0f}x faster per point than pure Python"
)

# %%
# A Python loop step costs tens to hundreds of ns; a vectorised point a few ns plus its share of
# the fresh pages: 18x on an Intel Xeon, 8x on a 2-core AMD EPYC VM under heavy load, where page
# faults are slow. 3x holds on any CPU.
claim(
    per_point_py > 3 * per_point_eager,
    "vectorised eager is more than 3x faster per point than the Python loop",
    f"{per_point_py * 1e9:.1f} vs {per_point_eager * 1e9:.2f} ns per point",
)

# %% [markdown]
# ## Compiling it
#
# `torch.compile(fn)` returns a wrapper; nothing happens until the first call. That call
# traces the Python function into a graph (TorchDynamo), and inductor turns the graph into
# C++ (on a GPU: Triton), compiles it and loads it. We keep inductor's `output_code` log of
# that call, to read the generated code afterwards. The course's `captured_logs(output_code=True)`
# is a thin wrapper: it calls `torch._logging.set_logs(output_code=True)` (the in-Python
# twin of starting Python with the environment variable `TORCH_LOGS=output_code`) and
# collects the lines instead of letting them scroll past on stderr. You will call
# `set_logs` yourself further down.

# %% [markdown]
# **Predict 09.p1.** The compiled π sums the same 10⁷ points in another order (vectors of 8 or
# 16, partial sums per thread) than eager does. Will its estimate equal eager's *bit for bit*?
# Write `True` or `False`.

# %%
predict("09.p1", None)  # replace None with your prediction

# %% [markdown]
# Before the first call, the cell below runs a step inductor takes the first time a process
# writes C++ code for the CPU: its **CPU probe**, which builds a small C++ program for each set
# of vector instructions (AVX2, AVX-512, ...) your CPU reports and loads each one in a child
# Python, to choose the one its code will use. The built programs stay in the cache directory:
# a later process using the same directory runs the probe again but only loads them, which
# costs far less (module 17 times a new process's probe both ways). Here, in an empty
# directory, it builds them. The cell times the probe and the call apart; `t_first` is their
# sum, what a first call into an empty cache costs.

# %%
pi_compiled = mc.compiled_pi()
# the probe needs a C++ compiler; without one the notebook runs with backend="aot_eager"
_, t_probe = (0.0, 0.0) if fallback_active() else time_once(pick_vec_isa)
with captured_logs(output_code=True) as logs:
    pi_c, t_call = time_once(lambda: pi_compiled(x, y))
t_first = t_probe + t_call
print("compiled == eager (bit for bit):", torch.equal(pi_c, pi_eager))
print(f"estimate: {pi_c.item():.4f}")
print(
    "inductor graph cache: misses",
    counters["inductor"]["fxgraph_cache_miss"],
    "| hits",
    counters["inductor"]["fxgraph_cache_hit"],
)
reveal(
    "09.p1",
    torch.equal(pi_c, pi_eager),
    why="the sum adds 0.0s and 1.0s, and every partial count stays below 2**24, where float32 "
    "holds whole numbers exactly: any order gives the same count.",
)

# %% [markdown]
# Both give exactly the same number: they count the same points inside, and a count below
# 2²⁴ is exact in float32 whatever the summation order. The cache *miss* confirms that this
# first call built everything from scratch: a **cold** compile. Its cost is of another
# order than a call:

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("timing inductor's fused kernel against eager")
t_comp = measure(lambda: pi_compiled(x, y), repeat=5, budget=0.1)
print(
    f"first call, cold cache: {format_seconds(t_first)} = CPU probe {format_seconds(t_probe)} "
    f"+ the call {format_seconds(t_call)} (inductor's imports, trace, generate and compile the C++)"
)
print(f"compiled, later calls: {t_comp}")
print(f"eager:                 {t_eager}")
print(f"speed-up per call: {t_eager.min / t_comp.min:.1f}x")
print(f"the cold first call cost as much as {t_first / t_comp.median:,.0f} compiled calls")

# %%
# Eager moves 42 bytes a point and faults fresh pages for its 40 MB intermediates (both shown
# below); the fused kernel reads 8 and allocates nothing: 31x on an Intel Xeon, 17x on a loaded
# AMD EPYC, so 3x is a margin any CPU meets. A cold compile takes seconds, a call milliseconds:
# 100x is safe too (800x or more on both).
needs_compiler("the claims about the fused kernel's speed and its compile cost")
claim(
    t_eager.min > 3 * t_comp.min,
    "the compiled function is more than 3x faster per call than eager",
    f"eager {t_eager.min:.4f} s, compiled {t_comp.min:.4f} s",
)
claim(
    t_first > 100 * t_comp.median,
    "the cold first call costs more than 100 compiled calls",
    f"first call {t_first:.2f} s, compiled call {t_comp.median:.4f} s",
)

# %% [markdown]
# Why faster? Not because C++ multiplies faster than PyTorch's own kernels: both are
# vectorised loops. Eager runs one kernel per operation (seven, counted below). Six of them
# stream 10⁷ elements through memory (the seventh, `4.0 *`, multiplies one number), and each of
# the first five writes a new tensor that the next one reads back. The fused kernel reads `x`
# and `y` once and writes one number. Per point, in bytes (`montecarlo.traffic_bytes` documents
# the same count):

# %%
# (bytes read, bytes written) per point by each eager kernel: float32 samples, a 1-byte bool mask
eager_kernels = {
    "x * x": (4, 4),
    "y * y": (4, 4),
    "x*x + y*y": (8, 4),
    "<= 1.0": (4, 1),
    ".float()": (1, 4),
    ".mean()": (4, 0),
}
eager_read = sum(r for r, _ in eager_kernels.values())
eager_written = sum(w for _, w in eager_kernels.values())
fused_read, fused_written = 8, 0  # x and y once; the one-number result is nothing per point
print(f"eager: reads {eager_read} B, writes {eager_written} B per point")
print(f"fused: reads {fused_read} B, writes {fused_written} B per point")
# by construction: the per-kernel counts add up to the workload's documented totals
claim(
    eager_read + eager_written == mc.traffic_bytes(1, fused=False)
    and fused_read + fused_written == mc.traffic_bytes(1, fused=True),
    "the per-kernel byte counts add up to montecarlo.traffic_bytes",
)

# %% [markdown]
# Each version has the limit that matches its traffic. The fused kernel only reads, so its
# limit is the **read** bandwidth of main memory, measured by a large sum. Eager reads and
# writes about as much, so its limit is the **copy** bandwidth (bytes read plus bytes written by
# a large copy). The two differ: on most CPUs a copy's stores also cost a read of each line they
# write to (a *write-allocate*), which a kernel that only reads does not pay, so such a kernel
# can run above the copy line straight from main memory. `torchcourse.timing.memory_limits()`
# measures read, write and copy bandwidth on 256 MiB buffers, larger than most CPUs' caches, and
# `Limits.for_traffic(bytes_read, bytes_written)` picks the limit that matches a kernel. Below,
# the same three measurements (a sum, a fill, a copy of 256 MiB) take turns with the two
# versions, so that all five see the same load on your machine.
#
# To compare like with like, everything in this section runs on one thread: the limits, eager,
# and a compiled kernel built for one thread. Inductor writes the thread count into the C++ it
# generates (one partial sum per thread, or no parallel loop at all for one), so we compile
# again after `torch.set_num_threads(1)`, with `dynamic=True` so that one kernel serves every
# size below (module 10 explains it). A wrapper with other settings (here `dynamic=True`)
# compiles its own version, and even the same wrapper would not reuse the two-thread kernel by
# mistake: dynamo's guards include the thread count (a new count alone makes it
# compile again, with the reason `GLOBAL_STATE changed: num_threads`), and so does the key of
# inductor's on-disk cache. The `reset()` only makes a clean start of the counters.

# %%
# NBVAL_IGNORE_OUTPUT
from torchcourse.timing import Limits

threads = torch.get_num_threads()
needs_compiler("the fused kernel's GB/s against the memory limits")
torch.set_num_threads(1)  # before compiling: the generated C++ is built for this count
reset()
pi_one_thread = torch.compile(mc.pi_from_samples, dynamic=True)
pi_one_thread(x, y)  # the compile
src = torch.ones(2**26)  # 256 MiB of float32, as memory_limits() uses
dst = torch.zeros_like(src)
t_read, t_write, t_copy, t_eager_1, t_comp_1 = interleaved(
    [
        src.sum,
        lambda: dst.fill_(1.0),
        lambda: dst.copy_(src),
        lambda: mc.pi_from_samples(x, y),
        lambda: pi_one_thread(x, y),
    ],
    rounds=5,
)
limits = Limits(src.nbytes / t_read / 1e9, dst.nbytes / t_write / 1e9, 2 * src.nbytes / t_copy / 1e9)
print(
    f"limits, one thread: read {limits.read_GBps:.1f}, write {limits.write_GBps:.1f}, "
    f"copy {limits.copy_GBps:.1f} GB/s (copy: bytes read + bytes written)"
)
traffic = {"eager": (t_eager_1, eager_read, eager_written), "compiled": (t_comp_1, fused_read, fused_written)}
for name, (seconds, r, w) in traffic.items():
    limit_name, limit = limits.for_traffic(r, w)
    gbs = (r + w) * n / seconds / 1e9
    print(
        f"{name:9s} {format_seconds(seconds):>8s} per call, {gbs:5.1f} GB/s: "
        f"{gbs / limit:.0%} of the {limit_name} limit ({limit:.1f} GB/s)"
    )

# %% [markdown]
# Is the compiled kernel held back by memory or by its own instructions? Change the size and
# watch. A kernel limited by memory runs faster while its inputs fit in the CPU's caches,
# which deliver bytes faster than main memory; a kernel limited by its instructions runs at
# the same GB/s at every size. The cell below times the compiled π on the first 2 MiB to
# 256 MiB of two larger sample tensors and, beside it, two plain sums over the same `x` and
# `y`: a kernel that does almost nothing per byte, so memory alone limits it. The two take
# turns, on one thread. It also prints the cache sizes of your CPU where Linux reports them.


# %%
# NBVAL_IGNORE_OUTPUT
import glob


def cache_sizes():
    """The data caches one core sees, e.g. {'L1': '32K', 'L2': '1024K', 'L3': '32768K'} (Linux only)."""
    sizes = {}
    for index in sorted(glob.glob("/sys/devices/system/cpu/cpu0/cache/index*")):
        try:
            level, kind, size = (open(f"{index}/{name}").read().strip() for name in ("level", "type", "size"))
        except OSError:
            continue
        if kind != "Instruction":
            sizes[f"L{level}"] = size
    return sizes


print("caches:", cache_sizes() or "not reported on this system")
big_x, big_y = mc.samples(2**25, seed=1)  # 128 MiB each
needs_compiler("the fused kernel's GB/s over sizes")
sweep = {}
print(f"{'x and y':>9s} {'compiled pi':>12s} {'two sums':>9s}   (GB/s, one thread)")
for mib in (2, 4, 8, 16, 32, 64, 128, 256):
    m = mib * 2**20 // 8  # points: 8 bytes each
    xs, ys = big_x[:m], big_y[:m]
    calls = max(1, 2**24 // m)
    t_pi, t_sums = interleaved([lambda: pi_one_thread(xs, ys), lambda: (xs.sum(), ys.sum())], number=calls, rounds=5)
    sweep[mib] = (8 * m / t_pi / 1e9, 8 * m / t_sums / 1e9)
    print(f"{mib:>5d} MiB {sweep[mib][0]:12.1f} {sweep[mib][1]:9.1f}")
torch.set_num_threads(threads)
print(f"main-memory read limit, measured above: {limits.read_GBps:.1f} GB/s")
for column, label in ((1, "two sums"), (0, "compiled pi")):
    fastest = max(sweep.values(), key=lambda row: row[column])[column]
    print(f"{label}: fastest size {fastest / sweep[256][column]:.1f}x the speed at 256 MiB")

# %% [markdown]
# Read the two columns beside your cache sizes. The sums run fastest while `x` and `y` fit in a
# cache and fall to about the read limit once they no longer fit in the last-level cache (L3 on
# most CPUs; other programs use it too, so the fall can come before its full size): that fall is
# the cache at work, and where it happens is set by your CPU's cache sizes. The compiled π does
# several instructions per point (square, add, compare, convert the mask, accumulate). Where
# its column stays flat while the sums' column falls, it is limited by those instructions on
# one thread, not by memory; where it follows the sums, memory limits it too. With more threads the instructions are shared out while main
# memory stays as fast as it was, so a kernel limited by its instructions on one thread can
# reach the memory limit on all of them.
#
# Either way, the compiled kernel moves 8 bytes a point where eager moves 42. And eager pays
# for something its byte count leaves out: fresh memory. Each intermediate is a new tensor, and
# at 10⁷ points four of them (`x*x`, `y*y`, their sum, the float copy of the mask) are 40 MB
# each. What a new tensor costs depends on its size and on your C library. On Linux, glibc's
# `malloc` first looks for a free stretch its heap already holds. A large block that does not
# fit there comes fresh from the operating system (`mmap`) and goes back when it is freed, so
# the first write to each fresh page (4 KiB on most machines) is a page fault, in which the
# operating system hands over a zeroed page. A smaller block stays with the process when it is
# freed, and the next request of that size usually gets it back, its pages already in place.
# The size that decides, glibc's *mmap threshold*, starts at 128 KiB and rises each time a
# larger block is freed, up to 32 MiB on a 64-bit machine. Other systems' allocators draw the
# line elsewhere. A process whose heap once held a lot and has a free stretch left over (a long
# session, say) can serve even a large block from it without a fault: count the faults rather
# than assume them, as the last column below does.
#
# Compare `x * x` into a new tensor with the same product written into a tensor allocated once
# (`out=`), at output sizes on both sides of 32 MiB, on one thread, taking turns, and count the
# page faults of one call (`resource.getrusage`, on Linux and macOS):

# %%
buffer = torch.empty_like(x)
print("same values:", torch.equal(torch.mul(x, x, out=buffer), x * x))

# %%
# NBVAL_IGNORE_OUTPUT
from torchcourse.timing import page_faults  # minor page faults of one call (None off Linux/macOS)

torch.set_num_threads(1)
alloc_ratio = {}
print(f"{'output':>8s} {'new tensor':>11s} {'reused buffer':>14s} {'ratio':>6s} {'page faults per new tensor':>27s}")
for mib in (8, 16, 31, 33, 40, 64):
    a = big_x[: mib * 2**20 // 4]
    out = torch.empty_like(a)
    t_new, t_out = interleaved([lambda: a * a, lambda: torch.mul(a, a, out=out)], number=3, rounds=7)
    alloc_ratio[mib] = t_new / t_out
    faults = page_faults(lambda: a * a)
    print(
        f"{mib:>4d} MiB {format_seconds(t_new):>11s} {format_seconds(t_out):>14s} {alloc_ratio[mib]:5.1f}x "
        f"{faults if faults is not None else 'not counted':>27}"
    )
torch.set_num_threads(threads)
below = [r for mib, r in alloc_ratio.items() if mib < 32]
above = [r for mib, r in alloc_ratio.items() if mib > 32]
print(f"new/reused: {min(below):.1f}-{max(below):.1f}x below 32 MiB, {min(above):.1f}-{max(above):.1f}x above")

# %% [markdown]
# On Linux the table splits at 32 MiB. Below, a new tensor costs about what the reused buffer
# costs: `malloc` hands back the block the previous call freed, and there are next to no page
# faults. Above, a call faults in every page of its output (with 4 KiB pages, 10,240 for a
# 40 MiB output), and the new tensor costs several times the reused one. Eager π's 40 MB
# intermediates are on the expensive side of that line; at 10⁶ points (4 MB each) they would
# not be. The fused kernel allocates nothing but its one-number result, so it pays neither the
# traffic nor the fresh pages.

# %% [markdown]
# ## What fusion looks like: the generated code
#
# Dynamo first captures the function as an FX graph of the Python-level operations it ran:
# `*`, `+`, `<=`, `.float()`, `.mean()` (inductor later lowers them to ATen operations, the
# names you will see in the kernel's name). The counting backend `compile_counter()` compiles
# nothing; it only records the graphs and the operations in them, which is quick:

# %%
counter = compile_counter()
torch.compile(mc.pi_from_samples, backend=counter)(x, y)
print("graphs captured:", counter.frame_count, "| operations in the graph:", counter.op_count)

# %% [markdown]
# Inductor turned those operations into kernels. The log we captured holds the generated
# Python wrapper and the C++ source of each kernel. The facts that do not depend on your
# CPU: how many kernels there are and their names (inductor names a fused kernel after
# the operations inside it):
#
# **Predict 09.p2.** Eager runs seven kernels for this function. How many kernels did inductor
# generate? Write a whole number.

# %%
predict("09.p2", None)  # replace None with your prediction

# %%
kernel_defs = logs.require(r"^cpp_fused\w* = async_compile", "the generated kernels")
print("kernels generated:", len(kernel_defs))
for line in kernel_defs:
    print(" ", line.split(" = ")[0])
loops = logs.require(r"for\s*\(\s*int64_t x0\s*=.*10000000L", "the loop over the points")
print("loops over the 10,000,000 points:", len(loops))
reveal(
    "09.p2",
    len(kernel_defs),
    why="every operation is element-wise or the final reduction over the same points, so inductor "
    "fuses them all into one loop; the scalar steps after the sum go in the same kernel.",
)

# %% [markdown]
# One kernel, `cpp_fused__to_copy_add_le_mean_mul_0`: `mul` (x·x, y·y, and the final 4·),
# `add`, `le` (≤ 1), `_to_copy` (`.float()`) and `mean`. One loop over the points does all but
# the last step; after it, the kernel divides the sum by n and multiplies by 4, once. Here is
# the heart of that loop. The exact text depends on your CPU's vector width (16 floats per step
# with AVX-512, 8 with AVX2, 4 with Arm's NEON, as on Apple's chips), on the thread count and on
# your torch version, so your copy may differ in details:

# %%
# NBVAL_IGNORE_OUTPUT
loop_line = logs.require(r"for\s*\(\s*int64_t x0\s*=", "the generated loop")[0]
start = logs.lines.index(loop_line)
body = logs.lines[start : start + 40]
stop = next((i for i, line in enumerate(body) if "cascade_sum_combine" in line), 16)
print("\n".join(line.strip() for line in body[: stop + 1]))

# %% [markdown]
# Read it: load a vector of `x` (`tmp0`) and of `y` (`tmp2`), square both, add, compare
# with 1, turn the mask into 0.0/1.0 and add it to a running sum, all in registers. The
# intermediate tensors of the eager version (`x*x`, `y*y`, the sum, the mask, its float
# copy) never exist in memory.

# %% [markdown]
# ## When compile does not help: one operation
#
# `A * B` on two large matrices is one kernel in eager mode already: read A and B, write
# the product. There is nothing to fuse, so the compiled version runs the same kind of loop
# and moves the same bytes. The counting backend shows the graph has one operation.
#
# This time we look at the generated code without the course's helper, the way you would
# in your own session: `torch._logging.set_logs(output_code=True)` switches the log on
# (starting Python with `TORCH_LOGS=output_code` does the same, and then takes precedence
# over `set_logs`), and `torch._logging.set_logs()` switches it back off. The log goes to
# stderr; here `contextlib.redirect_stderr` collects it into a string so that we can print
# just the kernel names.
#
# **Predict 09.p3.** Taking turns on one thread, will the compiled `A * B` run at least twice
# as fast as eager's? Write `True` or `False`.

# %%
predict("09.p3", None)  # replace None with your prediction


# %%
import contextlib
import io
import re


def multiply(a, b):
    return a * b


gen = torch.Generator().manual_seed(1)
A = torch.rand(2000, 2000, generator=gen)
B = torch.rand(2000, 2000, generator=gen)
counter = compile_counter()
torch.compile(multiply, backend=counter)(A, B)
print("operations in the graph:", counter.op_count)

multiply_compiled = torch.compile(multiply)
stderr_text = io.StringIO()
with contextlib.redirect_stderr(stderr_text):
    torch._logging.set_logs(output_code=True)  # = TORCH_LOGS=output_code
    product = multiply_compiled(A, B)
torch._logging.set_logs()  # back to the defaults
mul_kernels = re.findall(r"(cpp_fused\w*) = async_compile", stderr_text.getvalue())
claim(mul_kernels, "set_logs(output_code=True) printed the generated kernel", needs_compiler=True)
print("kernels in the output_code log:", mul_kernels)
print("compiled == eager:", torch.equal(product, multiply(A, B)))

# %% [markdown]
# One kernel named after one operation, `mul`: nothing was fused, because there was
# nothing to fuse with. Timed:

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("timing the compiled A * B against eager")
t_mul_eager = measure(lambda: multiply(A, B), repeat=5, budget=0.1)
t_mul_comp = measure(lambda: multiply_compiled(A, B), repeat=5, budget=0.1)
print(f"eager:    {t_mul_eager}")
print(f"compiled: {t_mul_comp}")
print(
    f"ratio eager/compiled: {t_mul_eager.min / t_mul_comp.min:.2f} (min), "
    f"{t_mul_eager.median / t_mul_comp.median:.2f} (median)"
)

# %%
# The same one kernel either way (one read of A and B, one write): equal up to noise, so "not 2x
# faster" holds anywhere; the two take turns on one thread.
needs_compiler("the claim about the compiled A * B's speed")
best_eager, best_comp = interleaved([lambda: multiply(A, B), lambda: multiply_compiled(A, B)], number=3, threads=1)
claim(
    best_eager < 2 * best_comp,
    "compiling A * B does not make it 2x faster",
    f"one thread, taking turns: eager {best_eager:.5f} s, compiled {best_comp:.5f} s",
)
reveal(
    "09.p3",
    best_eager >= 2 * best_comp,
    why="one operation is one kernel either way: the same reads of A and B and the same write; "
    "there is nothing to fuse, so there is nothing to save.",
)

# %% [markdown]
# Expect ratios near 1 (on a busy machine the noise between runs can be larger than the
# difference). The same holds for a single `A @ B`: in the default mode inductor's
# generated code calls `extern_kernels.mm`, which is ATen's own `mm`, the kernel eager mode runs.
# Compile pays off when several operations touch the same data: element-wise chains, a
# reduction after element-wise work, normalisations, activations.

# %% [markdown]
# ## Compile cost and the break-even point
#
# A compiled function is worth it only after enough calls: the first call cost
# `t_first`, each later call saves `t_eager - t_compiled`. The break-even number of calls
# is the smallest $k$ with $t_\text{first} + (k-1)\,t_\text{comp} \le k\,t_\text{eager}$.
# Before plotting, one more measurement: the compile cost with a **warm** cache.
# `torch.compiler.reset()` makes dynamo forget every compiled graph in this process, so the
# next call traces again, but inductor now finds the compiled graph and its C++ library in
# the on-disk cache:

# %%
needs_compiler("a warm compile, which reads inductor's cache")
reset()  # torch.compiler.reset() and zeroed counters
pi_compiled = mc.compiled_pi()
pi_warm, t_warm = time_once(lambda: pi_compiled(x, y))
print("warm-cache result == eager:", torch.equal(pi_warm, pi_eager))
print(
    "inductor graph cache: misses",
    counters["inductor"]["fxgraph_cache_miss"],
    "| hits",
    counters["inductor"]["fxgraph_cache_hit"],
)

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("the cold and warm compile times")
print(f"cold compile (first call, empty cache): {format_seconds(t_first)}")
print(f"warm compile (after reset, cache hit):  {format_seconds(t_warm)}")
print(f"cold/warm: {t_first / t_warm:.0f}x")

# %%
# A cache hit in a process that has compiled before: tens of ms against a cold compile's seconds.
needs_compiler("the claims about the cold and warm compile times")
claim(t_warm < 1.0, "with a warm cache the first call takes under a second", f"{t_warm:.3f} s")
claim(
    t_first > 5 * t_warm,
    "the cold compile costs more than 5x the warm one",
    f"cold {t_first:.2f} s, warm {t_warm:.3f} s",
)

# %% [markdown]
# The cold first call also paid one-off costs of the process (importing inductor and, on a
# machine with more than one core, starting its compile worker processes) that every later
# compile in the same process shares, and one of the cache directory, the CPU probe's C++
# builds, which a later process using the same directory skips: the built programs are files
# in it (module 17 takes a new process's first call apart, phase by phase). A new Python
# process with the same warm cache pays the imports, the probe's loads and the tracing again,
# but on a cache hit skips inductor's code generation and the C++ compiler. The cache directory survives between sessions, so on your own machine the second
# run of a script starts warm. The cell below measures that case: a new Python process, pointed
# at this notebook's cache, draws the same samples and times the first call of a new compiled
# function (the whole cell takes a few seconds):

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("a first call in a new process with inductor's warm cache")
import subprocess
import sys

script = f"""
import time
import torch
from torch._dynamo.utils import counters
from torchcourse.bench.workloads import montecarlo as mc
torch.set_num_threads({torch.get_num_threads()})
x, y = mc.samples({n}, seed=0)
fn = mc.compiled_pi()
start = time.perf_counter()
fn(x, y)
print(time.perf_counter() - start, counters["inductor"]["fxgraph_cache_hit"])
"""
env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache_dir, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
child = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
seconds, hits = child.stdout.split()[-2:]
t_new_process = float(seconds)
print(f"first call in a new process with the warm cache: {format_seconds(t_new_process)} (graph cache hits: {hits})")
print(f"in this process after reset(): {format_seconds(t_warm)}; cold: {format_seconds(t_first)}")

# %%
# The new process skips code generation, the C++ compiler and the probe's builds (seconds) and
# pays its imports, the probe's loads and the tracing: well under the cold compile, though both
# include a new process's one-off costs. The hit is what lets it skip the first two.
needs_compiler("the claims about a new process's first call")
claim(int(hits) == 1, "the new process's first call hit inductor's graph cache", f"graph cache hits: {hits}")
claim(
    t_new_process < t_first,
    "a new process with a warm cache pays less for its first call than the cold compile",
    f"new process {t_new_process:.2f} s, cold {t_first:.2f} s",
)

# %% [markdown]
# Now the plot: cumulative time over the number of calls, eager against compiled with a cold
# cache, with a warm cache in a new process, and with a warm cache in this process, built from
# the per-call times measured above.


# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("the break-even plot, made of the compiled kernel's times")


def break_even(t_first_call, t_e, t_c):
    """Smallest k with t_first_call + (k-1)*t_c <= k*t_e (None if compiled is not faster)."""
    if t_c >= t_e:
        return None
    return max(1, math.ceil((t_first_call - t_c) / (t_e - t_c)))


te, tc = t_eager.median, t_comp.median
k_cold, k_warm = break_even(t_first, te, tc), break_even(t_warm, te, tc)
k_new = break_even(t_new_process, te, tc)
print(
    f"compiling pays off after {k_cold} call(s) with a cold cache, after {k_new} in a new process "
    f"with a warm cache, after {k_warm} in this process with a warm cache"
)

k_max = int(1.5 * (k_cold or 1000)) + 1
calls = torch.arange(1, k_max + 1, dtype=torch.float64)
fig, ax = plt.subplots(figsize=(7, 3.8))
ax.plot(calls, calls * te, label=f"eager ({format_seconds(te)}/call)")
compiled_lines = (
    ("compiled, cold cache", t_first, k_cold, "tab:orange"),
    ("compiled, warm cache, new process", t_new_process, k_new, "tab:green"),
    ("compiled, warm cache, this process", t_warm, k_warm, "tab:red"),
)
for label, first_call, k, color in compiled_lines:
    pays_off = f"pays off after {k} call(s)" if k is not None else "never pays off"
    label = f"{label} (first call {format_seconds(first_call)}; {pays_off})"
    ax.plot(calls, first_call + (calls - 1) * tc, color=color, label=label)
    if k is not None:
        ax.axvline(k, color=color, linestyle=":", linewidth=1)
ax.set(
    xlabel="number of calls",
    ylabel="cumulative time (s)",
    title="Monte Carlo π, 10⁷ points: when does compiling pay off?",
)
top = max(float(calls[-1]) * te, t_first + (float(calls[-1]) - 1) * tc)
ax.set_ylim(0, 1.6 * top)  # room for the legend above the lines
ax.legend(fontsize=7, loc="upper left")
ax.grid(alpha=0.3)
plt.show()

# %%
# Break-even at k = t_first / (t_eager - t_compiled): ten calls would need an eager call of a tenth
# of the cold compile (a second or more); it takes tens to hundreds of ms. The warm count is
# smaller by construction (t_warm < t_first, checked above).
needs_compiler("the claims about the break-even points")
claim(
    k_cold is not None and k_cold > 10,
    "with a cold cache compiling pays off only after more than ten calls",
    f"break-even after {k_cold} call(s)",
)
claim(
    k_warm is not None and k_warm < k_cold,
    "with a warm cache compiling pays off after fewer calls than with a cold one",
    f"warm {k_warm}, cold {k_cold}",
)

# %% [markdown]
# Read the picture: the compiled lines start high (the compile) and rise slowly; the eager
# line starts at zero and rises fast. With a cold cache this function needs many calls
# before compiling has paid off; with a warm cache in this process only a few (the cell above
# prints the three numbers for your run). So for a script that calls a function ten times on a
# machine that has never compiled it, eager is the right answer. A second run of the script
# finds the cache warm, but as a new process it still pays the imports, inductor's start-up and
# the tracing (measured above), so it breaks even later than this process does, which had paid
# those costs already.

# %% [markdown]
# ## Modes (optional)
#
# `torch.compile(fn, mode=...)` selects a preset of inductor options. The presets are
# listed by inductor itself:

# %%
import torch._inductor

for mode, options in torch._inductor.list_mode_options().items():
    print(f"{mode:28s} {options}")

# %% [markdown]
# * `default`: fusion and code generation, a balance of compile time and speed.
# * `lite` (newer than `torch.compile`'s docstring, which does not list it yet) sets
#   `fallback_by_default` and switches most graph passes off: inductor then fuses nothing
#   unless you ask for it on chosen nodes, so each operation keeps its eager kernel and
#   eager's numerics.
# * `reduce-overhead` adds `triton.cudagraphs`: on a GPU it records the kernel launches
#   once and replays them as one CUDA graph, removing per-kernel launch cost. **On the CPU
#   there are no CUDA graphs**: the option does nothing, and the CPU kernel is the same as
#   with `default`.
# * `max-autotune-no-cudagraphs` adds `max_autotune` (benchmark several implementations of
#   each matrix multiplication or convolution and keep the fastest) and
#   `coordinate_descent_tuning` (a search over GPU kernel launch parameters). Our function
#   has no matmul, so there is nothing to tune on the CPU.
# * `max-autotune` does both; on a GPU its compile can take minutes.
#
# Measured here, each mode compiled after a `reset()`:

# %%
needs_compiler("the kernels inductor generates in each mode")
mode_results = {}
for mode in ("default", "reduce-overhead", "max-autotune-no-cudagraphs"):
    reset()
    fn = mc.compiled_pi(mode=mode)
    with captured_logs(output_code=True) as mode_logs:
        out, t_compile = time_once(lambda: fn(x, y))
    kernels = [line.split(" = ")[0] for line in mode_logs.require(r"^cpp_fused\w* = async_compile", mode)]
    mode_results[mode] = (fn, t_compile)
    hit = counters["inductor"]["fxgraph_cache_hit"] > 0
    print(
        f"{mode:28s} result == eager: {torch.equal(out, pi_eager)} | graph cache hit: {hit!s:5s} | kernels: {kernels}"
    )

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("timing each mode's kernel")
for mode, (fn, t_compile) in mode_results.items():
    t = measure(lambda: fn(x, y), repeat=5, budget=0.1)
    print(f"{mode:28s} first call {format_seconds(t_compile):>8s} | per call {t}")

# %%
# A graph-cache hit or a regenerated source whose C++ library is on disk: tenths of a second at
# most, against the cold compile's seconds (C++ compiler included).
needs_compiler("the claim about each mode's compile time")
slowest_mode_compile = max(t for _, t in mode_results.values())
claim(
    slowest_mode_compile < t_first / 3,
    "each mode's first call costs less than a third of the cold compile",
    f"slowest mode {slowest_mode_compile:.2f} s, cold {t_first:.2f} s",
)

# %% [markdown]
# The same kernel in all three modes, and per-call times alike (the cell above prints
# them). `default` found its compiled graph in the on-disk cache (a hit). The other two
# modes change inductor's options, which are part of the cache key: a miss, so inductor
# generated the code again, and it came out the same; the C++ library built from that source
# was already on disk, so these first calls cost only a fraction of the cold compile. With
# `max-autotune` on code full of matrix multiplications the first call would be far longer,
# which is why this notebook does not run it.

# %% [markdown]
# ## On a GPU (optional)
#
# On a CUDA device the same function becomes one Triton kernel, and `reduce-overhead` can
# also remove the launch cost. This cell runs only where a GPU is present:

# %%
# NBVAL_IGNORE_OUTPUT
msg = gpu_skip_message("the compiled Monte Carlo on the GPU")
if msg:
    print(msg)
else:
    from torchcourse import pick_device

    dev = pick_device()
    xg, yg = mc.samples(n, seed=0, device=dev)
    fn = mc.compiled_pi()
    out, t_compile = time_once(lambda: fn(xg, yg), device=dev)
    print(f"GPU first call {format_seconds(t_compile)}; result == CPU eager: {torch.equal(out.cpu(), pi_eager)}")
    print("eager:   ", measure(lambda: mc.pi_from_samples(xg, yg), device=dev))
    print("compiled:", measure(lambda: fn(xg, yg), device=dev))

# %% [markdown]
# ## Compiled and eager numerics
#
# Fusion changes more than speed. A fused reduction adds its numbers in the order its generated
# loop visits them (vector lanes, then chunks), eager's `sum` in the order of its own kernel,
# and float32 addition is not associative: the two results can differ in their last bits. The
# sum of uniform float32 vectors of five lengths, compiled (with `dynamic=True`, so one graph
# serves every length) and eager, each also against a float64 sum of the same numbers:


# %%
def total(v):
    return v.sum()


reset()
total_c = torch.compile(total, dynamic=True)
# Up to 30,000 elements: eager's float32 sum does not depend on the thread count below 32k.
vectors = {m: torch.rand(m, generator=torch.Generator().manual_seed(m)) for m in (1000, 3000, 10_000, 20_000, 30_000)}
sums = {m: (total_c(v), total(v), v.double().sum()) for m, v in vectors.items()}

# %%
# NBVAL_IGNORE_OUTPUT
for m, (c, e, ref) in sums.items():
    print(
        f"{m:6d} elements: compiled == eager bit for bit: {torch.equal(c, e)!s:5s} | compiled - eager "
        f"{float(c) - float(e):+.2e} | error vs float64: compiled {float(c.double() - ref):+.2e}, "
        f"eager {float(e.double() - ref):+.2e}"
    )

# %% [markdown]
# Which lengths differ, and by how much, depends on your CPU's vector width and thread count (the
# cell above prints your run); the checked fact is that some do. So compare compiled with eager
# results the way you compare any two floating-point computations: with a tolerance that fits the
# dtype. `torch.testing.assert_close(actual, expected)` picks it from the dtype, `|actual -
# expected| <= atol + rtol·|expected|` with, by default, `rtol=1.3e-6, atol=1e-5` for float32,
# `rtol=1e-7, atol=1e-7` for float64, `rtol=1e-3, atol=1e-5` for float16 and `rtol=1.6e-2,
# atol=1e-5` for bfloat16, and raises an `AssertionError` that says how far apart they are. The
# better reference is neither of the two float32 results but the same computation in float64:


# %%
def verdict(actual, expected, **tolerance):
    """'agree' or 'differ', as torch.testing.assert_close judges them."""
    try:
        torch.testing.assert_close(actual, expected, **tolerance)
    except AssertionError:
        return "differ"
    return "agree"


f32 = {"rtol": 1.3e-6, "atol": 1e-5}  # float32's default tolerance, for float32 results cast to float64
exact = [verdict(c, e, rtol=0, atol=0) for c, e, _ in sums.values()]
close = [verdict(c, e) for c, e, _ in sums.values()]
to_ref = [verdict(r.double(), ref, **f32) for c, e, ref in sums.values() for r in (c, e)]
print("float32, compiled vs eager, exact equality:   ", "some differ" if "differ" in exact else "all agree")
print("float32, compiled vs eager, default tolerance:", set(close))
print("float32 results vs the float64 sum, float32's tolerance:", set(to_ref))
sums64 = {m: (total_c(v.double()), total(v.double())) for m, v in vectors.items()}
print("float64, compiled vs eager, default tolerance:", {verdict(c, e) for c, e in sums64.values()})
# The compiled loop adds in vector lanes and chunks, eager's sum in its own cascade: with five
# lengths, at least one differs in the last bits on any CPU; both stay within float32's tolerance.
claim(
    "differ" in exact and set(close) == {"agree"} and set(to_ref) == {"agree"},
    "compiled and eager float32 sums are not always bit-identical, yet agree within float32's tolerance, "
    "and both agree with the float64 sum",
    needs_compiler=True,
)

# %% [markdown]
# Random numbers are the other source of differences (*Common mistakes* shows `torch.rand`):
# dropout compiled draws another mask than eager with the same seed. Inductor's
# `fallback_random` option makes the compiled code call eager's random operations, so a
# difference that remains is a real one:


# %%
def drop(t):
    return torch.nn.functional.dropout(t, p=0.5, training=True)


ones = torch.ones(4, 6)
torch.manual_seed(0)
eager_drop = drop(ones)
reset()
torch.manual_seed(0)
compiled_drop = torch.compile(drop)(ones)
reset()
with torch._inductor.config.patch(fallback_random=True):  # read when the graph is compiled: reset() first
    torch.manual_seed(0)
    fallback_drop = torch.compile(drop)(ones)
print("dropout, same seed, compiled == eager:", torch.equal(compiled_drop, eager_drop))
print("with fallback_random=True, compiled == eager:", torch.equal(fallback_drop, eager_drop))
claim(
    torch.equal(fallback_drop, eager_drop) and not torch.equal(compiled_drop, eager_drop),
    "compiled dropout draws another mask, and eager's with fallback_random=True",
    needs_compiler=True,
)

# %% [markdown]
# ### Looking inside: `TORCH_COMPILE_DEBUG` and `TORCH_TRACE` (optional)
#
# Two environment variables record what the compiler did, read when torch starts. So the cell
# below compiles the Monte Carlo function again in a new Python process (nothing leaks into this
# notebook), on the same samples. It points the process at this notebook's cache but switches
# inductor's graph cache off (`TORCHINDUCTOR_FX_GRAPH_CACHE=0`): inductor generates the code again
# and writes it down, and the C++ compiler's result for that code is already on disk, which
# saves the new process a cold compile:
#
# * `TORCH_COMPILE_DEBUG=1` writes a directory `torch_compile_debug/run_<time>-pid_<pid>/` in
#   the working directory, with dynamo's and inductor's logs and, per graph, the FX graph
#   (`fx_graph_readable.py`), inductor's IR before and after fusion, and the generated code
#   (`output_code.py`);
# * `TORCH_TRACE=<dir>` writes the *structured trace*, one log file per process, which the
#   `tlparse` tool (`pip install tlparse`) renders into an HTML report with one entry per
#   compiled graph (`0/0` is frame 0, version 0, as in module 10's recompile reasons).

# %% tags=["version-specific"]
needs_compiler("what TORCH_COMPILE_DEBUG and TORCH_TRACE record of inductor's work")
import json
import shutil
import subprocess

again = f"""
import torch
from torchcourse.bench.workloads import montecarlo as mc
torch.set_num_threads({torch.get_num_threads()})
x, y = mc.samples({n}, seed=0)
mc.compiled_pi()(x, y)
"""
work = tempfile.mkdtemp(prefix="torchcourse-09-debug-")
trace_dir = os.path.join(work, "trace")
env = {
    **os.environ,
    "TORCH_COMPILE_DEBUG": "1",
    "TORCH_TRACE": trace_dir,
    "TORCHINDUCTOR_CACHE_DIR": cache_dir,
    "TORCHINDUCTOR_FX_GRAPH_CACHE": "0",
    "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
}
subprocess.run([sys.executable, "-c", again], cwd=work, env=env, capture_output=True, text=True, check=True)

graph_dirs = glob.glob(os.path.join(work, "torch_compile_debug", "run_*", "torchinductor", "model__*"))
print("TORCH_COMPILE_DEBUG wrote a directory per graph:", len(graph_dirs))
written = set(os.listdir(graph_dirs[0]))
for name in ("fx_graph_readable.py", "ir_pre_fusion.txt", "ir_post_fusion.txt", "output_code.py"):
    print(f"  {name:22s} {name in written}")
with open(os.path.join(graph_dirs[0], "output_code.py")) as code:
    print("  kernel defined in output_code.py:", re.findall(r"^(cpp_fused\w*) = async_compile", code.read(), re.M))
trace_files = os.listdir(trace_dir)
print("TORCH_TRACE wrote", len(trace_files), "log file(s)")

tlparse = shutil.which("tlparse") or os.path.join(os.path.dirname(sys.executable), "tlparse")
if os.path.exists(tlparse):
    report = os.path.join(work, "tl_out")
    run = [tlparse, os.path.join(trace_dir, trace_files[0]), "-o", report, "--no-browser"]
    subprocess.run(run, capture_output=True, text=True, check=True)
    with open(os.path.join(report, "compile_directory.json")) as listing:
        entries = {key: [a["name"] for a in value["artifacts"]] for key, value in json.load(listing).items()}
    graphs = [key for key in entries if key != "[-/-]"]
    print("tlparse wrote index.html:", os.path.exists(os.path.join(report, "index.html")), "| graphs:", graphs)
    for kind in ("dynamo_output_graph", "dynamo_cpp_guards_str", "inductor_output_code"):
        print(f"  {graphs[0]} has {kind}: {any(name.startswith(kind) for name in entries[graphs[0]])}")
else:
    print("tlparse is not installed: `pip install tlparse`, then `tlparse <trace file>` writes the report")
shutil.rmtree(work, ignore_errors=True)

# %% [markdown]
# Open `index.html` of your own report in a browser: per graph it links the captured FX graph,
# the guards dynamo installed, and the code inductor generated; on a run with recompiles or
# graph breaks it lists each one with its reason, which is where to start when a compiled model
# misbehaves.

# %% [markdown]
# ## Published figures (optional)
#
# Beside ours, figures published elsewhere, on other hardware (the course keeps them with
# their sources in `docs/reference-figures.md`; we did not re-measure them):
#
# | source, hardware | what | eager | compiled: first call, then per call |
# |---|---|---|---|
# | "Making NumPy go faster with pytorch.compile", laptop CPU | sum of 1,000 int genes × 900,000 chromosomes (int8 tensor) | 2.52 s | 4.10 s, then 0.067 s (break-even at the 2nd call) |
# | same, laptop CPU | constrained fitness function 2 (`np.where`) | 48 ms (NumPy) | 6.2 ms |
# | same, quoting the torch.compile tutorial's training loop, `reduce-overhead` | one training step | 0.066 s | ~285 s (as printed), then 0.037 s: 1.77x faster per step, break-even after ~10,000 steps |
# | "PyTorch as a GPU Computation Library" (notebook) | Monte Carlo π, 10⁷ samples | pure Python, vectorised, compiled: compiled fuses into one kernel | A * B: compile does not help |
#
# The pattern is the one this notebook measured: vectorising beats the Python loop, fusing
# several operations that share their data gains a further factor, and the first call
# costs seconds (or minutes) that later calls must pay back.

# %% [markdown]
# ## Common mistakes
#
# **Compiling the result instead of the function.** `torch.compile` takes a callable;
# `torch.compile(f(x))` calls `f` first and hands over a tensor:

# %% tags=["raises-exception"]
torch.compile(mc.pi_from_samples(x, y))

# %% [markdown]
# **A misspelt mode.** Modes use hyphens, not underscores; the message lists the valid ones:

# %% tags=["raises-exception"]
torch.compile(mc.pi_from_samples, mode="reduce_overhead")

# %% [markdown]
# **Timing the first call.** The first call includes the compile: measure with a warm-up
# (as `measure` does) and report the first call separately, as above.
#
# **Comparing random numbers across eager and compiled code.** With the same seed, a
# function that draws random numbers inside gives different values compiled: inductor
# generates the random numbers itself, inside the fused kernel, by another algorithm
# (Philox; eager's CPU generator is a Mersenne Twister). The seed still matters: the compiled
# code takes its seed from torch's generator, so the same seed gives the same compiled draws
# run after run. Draw the inputs outside the compiled function when you compare results:


# %%
def noisy(t):
    return t + torch.rand(t.shape)


t0 = torch.zeros(5)
torch.manual_seed(0)
eager_draw = noisy(t0)
torch.manual_seed(0)
compiled_draw = torch.compile(noisy)(t0)
print("same seed, eager == compiled:", torch.equal(eager_draw, compiled_draw))
print("both uniform in [0, 1):", bool(((compiled_draw >= 0) & (compiled_draw < 1)).all()))

# %% [markdown]
# When you need the very same numbers (to debug a difference between eager and compiled
# results, say), set inductor's `fallback_random` option: the compiled code then calls
# eager's random operations instead of generating its own: slower, but the same numbers. The
# option is read when a graph is compiled, so `reset()` first, or dynamo reuses the graph it has:

# %%
reset()
with torch._inductor.config.patch(fallback_random=True):
    torch.manual_seed(0)
    fallback_draw = torch.compile(noisy)(t0)
print("fallback_random=True, same seed, eager == compiled:", torch.equal(eager_draw, fallback_draw))
claim(
    torch.equal(eager_draw, fallback_draw) and not torch.equal(eager_draw, compiled_draw),
    "with fallback_random=True compiled code draws eager's numbers; without it, others",
    needs_compiler=True,
)

# %% [markdown]
# ## Key points
#
# * `torch.compile` traces a function into a graph and inductor generates fused kernels:
#   one loop per group of operations, intermediates kept in registers instead of memory.
#   `TORCH_LOGS=output_code` (or `torch._logging.set_logs(output_code=True)`) shows the code.
# * Fusion pays off for chains of element-wise work and reductions, where eager writes every
#   intermediate to memory and reads it back (and, for large ones, pays for fresh pages); a
#   single operation such as `A * B` or `A @ B` has nothing to fuse.
# * Hold a kernel's GB/s against the limit that matches its bytes: read bandwidth for a kernel
#   that only reads, copy bandwidth for one that reads and writes alike. Whether a cache helps
#   shows only in a sweep over sizes that crosses your cache's size.
# * The first call compiles: seconds with an empty (cold) inductor cache; with a warm on-disk
#   cache, tens of milliseconds in a process that has compiled before and a second or more in a
#   new one (its imports and the tracing). Compute the break-even number of calls for the case
#   you are in before deciding.
# * `reduce-overhead` means CUDA graphs and does nothing on the CPU; `max-autotune` tunes
#   matmuls and convolutions at a large compile cost.
# * Compare compiled and eager results on the same inputs drawn outside the compiled code;
#   `torch._inductor.config.fallback_random = True` makes compiled code draw eager's numbers.
# * A compiled reduction may add in another order: compare with `torch.testing.assert_close`
#   (its tolerance follows the dtype), ideally against a float64 reference, never with `==`.
# * `TORCH_COMPILE_DEBUG=1` writes the graphs, IR and generated code of every compile;
#   `TORCH_TRACE=<dir>` writes a structured trace that `tlparse` renders as an HTML report.
#
# ## Further reading
#
# * [`torch.compile` API reference](https://docs.pytorch.org/docs/stable/generated/torch.compile.html):
#   modes, `dynamic`, backends and options such as `fallback_random`.
# * [Introduction to `torch.compile`](https://docs.pytorch.org/tutorials/intermediate/torch_compile_tutorial.html),
#   the PyTorch tutorial.
# * [`torch._logging` and `TORCH_LOGS`](https://pytorch.org/docs/stable/logging.html) and the recipe
#   [Using the TORCH_LOGS Python API with torch.compile](https://pytorch.org/tutorials/recipes/torch_logs.html).
# * [`torch.testing.assert_close`](https://docs.pytorch.org/docs/stable/testing.html): the default
#   tolerances per dtype.
# * [tlparse](https://github.com/pytorch/tlparse), the structured-trace parser, and the
#   [`torch.compile` troubleshooting guide](https://docs.pytorch.org/docs/stable/torch.compiler_troubleshooting.html)
#   (`TORCH_TRACE`, `TORCH_COMPILE_DEBUG`).
# * [Compile time caching configuration](https://docs.pytorch.org/tutorials/recipes/torch_compile_caching_configuration_tutorial.html):
#   the inductor caches and `TORCHINDUCTOR_CACHE_DIR`.
# * The sources of the published figures above: [Compiling NumPy code into C++ or CUDA via
#   torch.compile](https://pytorch.org/blog/compiling-numpy-code/) (PyTorch blog) and
#   [Making NumPy go faster with pytorch.compile](https://napuh.github.io/Making-numpy-go-faster-with-torch-compile).
#
# The last cell deletes this notebook's private inductor cache.

# %%
import shutil

shutil.rmtree(cache_dir, ignore_errors=True)
print("private cache removed:", not os.path.exists(cache_dir))

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 21 statements of this lesson are tested facts. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“Dynamo first captures the function as an FX graph of the Python-level operations it ran”</td><td>✓</td></tr>
# <tr><td>“Eager runs one kernel per operation (seven, counted below)”</td><td>✓</td></tr>
# <tr><td>“starting Python with <code>TORCH_LOGS=output_code</code> does the same, and then takes precedence over <code>set_logs</code>”</td><td>✓</td></tr>
# <tr><td>“16 floats per step with AVX-512, 8 with AVX2, 4 with Arm&#x27;s NEON”</td><td>✓</td></tr>
# <tr><td>“calls <code>extern_kernels.mm</code>, which is ATen&#x27;s own <code>mm</code>, the kernel eager mode runs”</td><td>✓</td></tr>
# <tr><td>“(Philox; eager&#x27;s CPU generator is a Mersenne Twister)”</td><td>✓</td></tr>
# <tr><td>“the same seed gives the same compiled draws run after run”</td><td>✓</td></tr>
# <tr><td>“set inductor&#x27;s <code>fallback_random</code> option: the compiled code then calls eager&#x27;s random operations instead of generating its own”</td><td>✓</td></tr>
# <tr><td>“On the CPU there are no CUDA graphs: the option does nothing”</td><td>✓</td></tr>
# <tr><td>“<code>lite</code> (newer than <code>torch.compile</code>&#x27;s docstring, which does not list it yet) sets <code>fallback_by_default</code>”</td><td>✓</td></tr>
# <tr><td>“Inductor writes the thread count into the C++ it generates”</td><td>✓</td></tr>
# <tr><td>“dynamo&#x27;s guards include the thread count (a new count alone makes it compile again, with the reason <code>GLOBAL_STATE changed: num_threads</code>), and so does the key of inductor&#x27;s on-disk cache”</td><td>✓</td></tr>
# <tr><td>“<code>torch.compile(f(x))</code> calls <code>f</code> first and hands over a tensor”</td><td>✓</td></tr>
# <tr><td>“Modes use hyphens, not underscores; the message lists the valid ones”</td><td>✓</td></tr>
# <tr><td>“Above, a call faults in every page of its output”</td><td>✓</td></tr>
# <tr><td>“glibc&#x27;s <code>malloc</code> first looks for a free stretch its heap already holds. A large block that does not fit there comes fresh from the operating system”</td><td>✓</td></tr>
# <tr><td>“by default, <code>rtol=1.3e-6, atol=1e-5</code> for float32, <code>rtol=1e-7, atol=1e-7</code> for float64, <code>rtol=1e-3, atol=1e-5</code> for float16 and <code>rtol=1.6e-2, atol=1e-5</code> for bfloat16”</td><td>✓</td></tr>
# <tr><td>“Two environment variables record what the compiler did, read when torch starts”</td><td>✓</td></tr>
# <tr><td>“<code>TORCH_COMPILE_DEBUG=1</code> writes a directory <code>torch_compile_debug/run_&lt;time&gt;-pid_&lt;pid&gt;/</code> in the working directory”</td><td>✓</td></tr>
# <tr><td>“dropout compiled draws another mask than eager with the same seed”</td><td>✓</td></tr>
# <tr><td>“the CPU probe&#x27;s C++ builds, which a later process using the same directory skips: the built programs are files in it”</td><td>not recorded</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/09_compile_fusion.ipynb](../exercises/09_compile_fusion.ipynb) ·
# **Previous:** [08 · nn.Module as a container for computation](08_modules_and_buffers.ipynb) ·
# **Next:** [10 · Recompilation and dynamic shapes](10_recompilation.ipynb)
