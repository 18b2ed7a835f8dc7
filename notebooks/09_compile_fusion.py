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
# *Module 09 of 00–15 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/09_compile_fusion.ipynb) · previous: [08 · nn.Module as a container for computation](08_modules_and_buffers.ipynb) · next: [10 · Recompilation and dynamic shapes](10_recompilation.ipynb)

# %% tags=["course-setup"] jupyter={"source_hidden": true}
# Course setup. On your own machine this cell installs nothing. On Google Colab it fetches
# the course and installs its helper package, torchcourse, once per session.
# Colab runtime: CPU is enough for this module.
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
else:
    print("Local run: nothing to install.")

# %% [markdown]
# # 09 · torch.compile: fusion and overhead
#
# A vectorised tensor expression such as `(x * x + y * y <= 1).float().mean()` runs one
# kernel per operation, and each kernel writes its whole result to memory for the next one
# to read back. `torch.compile` traces the expression into a graph and hands it to a
# compiler (inductor) that generates one loop doing all the steps per element: *fusion*.
# This notebook measures what that buys on a Monte Carlo estimate of π, shows the generated
# code, and then the other side of the bill: compiling costs seconds, a function with one
# operation has nothing to fuse, and the first call must be paid back by many fast ones.
#
# **Objectives.** After this notebook you can:
# 1. explain fusion and read the kernel inductor generated for a function;
# 2. say when `torch.compile` helps (chains of element-wise work, reductions) and when it
#    cannot (a single operation, work already in one library call);
# 3. measure compile cost and compute the number of calls after which compiling pays off;
# 4. tell a cold compile from a warm one (the on-disk inductor cache);
# 5. choose a `mode` and know which modes matter only on a GPU.
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
# points inductor at a new, empty cache directory *before* anything is compiled (the cell
# at the end deletes it). You would not do this in your own code.

# %%
import os
import tempfile

cache_dir = tempfile.mkdtemp(prefix="torchcourse-09-inductor-")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir

import math

import matplotlib.pyplot as plt
import torch

from torchcourse import copy_bandwidth, format_seconds, gpu_skip_message, measure, time_once
from torchcourse.compiletools import captured_logs, compile_counter, reset
from torchcourse.workloads import montecarlo as mc

print("inductor cache is empty:", os.listdir(cache_dir) == [])

# %% [markdown]
# ## Monte Carlo π, three ways
#
# Throw points uniformly into the unit square; the fraction inside the quarter disc
# $x^2 + y^2 \le 1$ tends to $\pi/4$. The course keeps the three implementations in
# `torchcourse.workloads.montecarlo` (the course's benchmark imports the same code). The
# pure Python version handles one point per loop iteration:

# %%
import inspect

print(inspect.getsource(mc.pi_python))

# %% [markdown]
# Python spends a few hundred nanoseconds per point, so 10⁷ points would take seconds: we
# run it on 2·10⁵ points only and report the time per point. The estimate's error is about
# $1.6/\sqrt{n}$, so with 2·10⁵ points expect the second or third decimal to be off.

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
print(
    f"vectorised eager: {t_eager}  ->  {t_eager.min / n * 1e9:.2f} ns per point, "
    f"{per_point_py / (t_eager.min / n):.0f}x faster per point than pure Python"
)

# %% [markdown]
# ## Compiling it
#
# `torch.compile(fn)` returns a wrapper; nothing happens until the first call. That call
# traces the Python function into a graph (TorchDynamo), and inductor turns the graph into
# C++ (on a GPU: Triton), compiles it and loads it. We capture inductor's `output_code`
# log while it happens, to read the generated code afterwards.

# %%
pi_compiled = mc.compiled_pi()
with captured_logs(output_code=True) as logs:
    pi_c, t_first = time_once(lambda: pi_compiled(x, y))
print("compiled == eager (bit for bit):", torch.equal(pi_c, pi_eager))
print(f"estimate: {pi_c.item():.4f}")

# %% [markdown]
# Both give exactly the same number: they count the same points inside, and a count below
# 2²⁴ is exact in float32 whatever the summation order. The first call's cost, though, is
# of another order:

# %%
# NBVAL_IGNORE_OUTPUT
t_comp = measure(lambda: pi_compiled(x, y), repeat=5, budget=0.1)
print(f"first call (trace + generate + compile C++, cold cache): {format_seconds(t_first)}")
print(f"compiled, later calls: {t_comp}")
print(f"eager:                 {t_eager}")
print(f"speed-up per call: {t_eager.min / t_comp.min:.1f}x")

# %% [markdown]
# Why faster? Not because C++ multiplies faster than PyTorch's own kernels: both are
# vectorised loops. The difference is memory traffic. Eager runs one kernel per operation
# (seven, counted below) and each streams a 10⁷-element tensor through memory; the fused
# kernel reads `x` and `y` once and writes one number. `montecarlo.traffic_bytes` documents
# the count; next to it, the copy bandwidth measured in the same run tells how close each
# version comes to the memory limit:

# %%
print("bytes per point, eager:", mc.traffic_bytes(1, fused=False), "| fused:", mc.traffic_bytes(1, fused=True))

# %%
# NBVAL_IGNORE_OUTPUT
bw = copy_bandwidth()
for name, t, fused in (("eager", t_eager, False), ("compiled", t_comp, True)):
    gbs = mc.traffic_bytes(n, fused=fused) / t.min / 1e9
    print(f"{name:9s} {gbs:6.1f} GB/s of useful traffic  ({gbs / bw:.0%} of the measured copy bandwidth {bw:.1f} GB/s)")

# %% [markdown]
# Can the compiled version go *above* 100%? It can, and that is a lesson about caches, not a
# broken measurement: `x` and `y` are 80 MB together, and a CPU with a large last-level
# cache (server CPUs have hundreds of MB) keeps them there between calls, so the fused kernel
# reads them faster than main memory delivers. The copy bandwidth comes from 256 MiB buffers,
# which do not stay in cache as easily. On a laptop with a few MB of cache the compiled line
# stays below 100%.
#
# Eager falls further short of the memory limit than its byte count explains. Each
# intermediate is a new 40 MB tensor, and the operating system must hand over (and zero)
# fresh pages the first time they are touched. Compare `x * x` into a new tensor with the
# same product written into a tensor allocated once (`out=`):

# %%
buffer = torch.empty_like(x)
print("same values:", torch.equal(torch.mul(x, x, out=buffer), x * x))

# %%
# NBVAL_IGNORE_OUTPUT
t_new = measure(lambda: x * x, repeat=5, budget=0.1)
t_out = measure(lambda: torch.mul(x, x, out=buffer), repeat=5, budget=0.1)
print(f"x * x, new tensor each call: {t_new}")
print(f"x * x into a reused buffer:  {t_out}")
print(f"allocation costs {t_new.min / t_out.min:.1f}x here")

# %% [markdown]
# The fused kernel allocates nothing but its one-number result, so it pays neither the
# traffic nor the fresh pages.

# %% [markdown]
# ## What fusion looks like: the generated code
#
# Dynamo first captures the function as a graph of ATen operations. The counting backend
# `compile_counter()` compiles nothing; it only records the graphs and their sizes, which is
# quick:

# %%
counter = compile_counter()
torch.compile(mc.pi_from_samples, backend=counter)(x, y)
print("graphs captured:", counter.frame_count, "| operations in the graph:", counter.op_count)

# %% [markdown]
# Inductor turned those operations into kernels. The log we captured holds the generated
# Python wrapper and the C++ source of each kernel. The facts that do not depend on your
# CPU: how many kernels there are and their names (inductor names a fused kernel after
# the operations inside it):

# %%
kernel_defs = logs.grep(r"^cpp_fused\w* = async_compile")
print("kernels generated:", len(kernel_defs))
for line in kernel_defs:
    print(" ", line.split(" = ")[0])
loops = logs.grep(r"for\(int64_t x0=.*10000000L")
print("loops over the 10,000,000 points:", len(loops))

# %% [markdown]
# One kernel, `cpp_fused__to_copy_add_le_mean_mul_0`: `mul` (x·x, y·y), `add`, `le` (≤ 1),
# `_to_copy` (`.float()`) and `mean`, in one loop. Here is the heart of that loop. The
# exact text depends on your CPU's vector width (8 or 16 floats per step) and on the thread
# count (OpenMP pragmas appear with more than one thread), so your copy may differ in
# details:

# %%
# NBVAL_IGNORE_OUTPUT
lines = logs.lines
start = next(i for i, line in enumerate(lines) if "for(int64_t x0=" in line)
stop = next(i for i in range(start, len(lines)) if "cascade_sum_combine" in lines[i])
print("\n".join(line.strip() for line in lines[start : stop + 1]))

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
# and moves the same bytes. The counting backend shows the graph has one operation:


# %%
def multiply(a, b):
    return a * b


gen = torch.Generator().manual_seed(1)
A = torch.rand(2000, 2000, generator=gen)
B = torch.rand(2000, 2000, generator=gen)
counter = compile_counter()
torch.compile(multiply, backend=counter)(A, B)
print("operations in the graph:", counter.op_count)
multiply_compiled = torch.compile(multiply)
print("compiled == eager:", torch.equal(multiply_compiled(A, B), multiply(A, B)))

# %%
# NBVAL_IGNORE_OUTPUT
t_mul_eager = measure(lambda: multiply(A, B), repeat=5, budget=0.1)
t_mul_comp = measure(lambda: multiply_compiled(A, B), repeat=5, budget=0.1)
print(f"eager:    {t_mul_eager}")
print(f"compiled: {t_mul_comp}")
print(
    f"ratio eager/compiled: {t_mul_eager.min / t_mul_comp.min:.2f} (min), "
    f"{t_mul_eager.median / t_mul_comp.median:.2f} (median)"
)

# %% [markdown]
# Expect ratios near 1 (on a busy machine the noise between runs can be larger than the
# difference). The same holds for a single `A @ B`: in the default mode inductor calls the
# same BLAS library that eager mode calls. Compile pays off when several operations touch
# the same data: element-wise chains, a reduction after element-wise work,
# normalisations, activations.

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
from torch._dynamo.utils import counters

reset()  # torch.compiler.reset() and zeroed counters
pi_compiled = mc.compiled_pi()
pi_warm, t_warm = time_once(lambda: pi_compiled(x, y))
print("warm-cache result == eager:", torch.equal(pi_warm, pi_eager))
print(
    "inductor graph cache hits:",
    counters["inductor"]["fxgraph_cache_hit"],
    "| misses:",
    counters["inductor"]["fxgraph_cache_miss"],
)

# %%
# NBVAL_IGNORE_OUTPUT
print(f"cold compile (first call, empty cache): {format_seconds(t_first)}")
print(f"warm compile (after reset, cache hit):  {format_seconds(t_warm)}")
print(f"cold/warm: {t_first / t_warm:.0f}x")

# %% [markdown]
# The cold first call also paid one-off costs of the process (importing inductor, starting
# its compile workers) that every later compile in the same process shares. A new Python
# process with the same warm cache pays the import and the tracing again, but on a cache hit
# skips inductor's code generation and the C++ compiler. The cache directory survives between sessions;
# `TORCHINDUCTOR_CACHE_DIR` moves it (useful on clusters whose `/tmp` is wiped).
#
# Now the plot: cumulative time over the number of calls, eager against compiled with a
# cold and a warm cache, built from the per-call times measured above.


# %%
# NBVAL_IGNORE_OUTPUT
def break_even(t_first_call, t_e, t_c):
    """Smallest k with t_first_call + (k-1)*t_c <= k*t_e (None if compiled is not faster)."""
    if t_c >= t_e:
        return None
    return max(1, math.ceil((t_first_call - t_c) / (t_e - t_c)))


te, tc = t_eager.median, t_comp.median
k_cold, k_warm = break_even(t_first, te, tc), break_even(t_warm, te, tc)
print(f"break-even after {k_cold} call(s) with a cold cache, {k_warm} with a warm cache")

k_max = int(1.5 * (k_cold or 1000)) + 1
calls = torch.arange(1, k_max + 1, dtype=torch.float64)
fig, ax = plt.subplots(figsize=(7, 3.5))
ax.plot(calls, calls * te, label=f"eager ({format_seconds(te)}/call)")
ax.plot(calls, t_first + (calls - 1) * tc, label=f"compiled, cold cache (first call {format_seconds(t_first)})")
ax.plot(calls, t_warm + (calls - 1) * tc, label=f"compiled, warm cache (first call {format_seconds(t_warm)})")
for k, name in ((k_cold, "cold"), (k_warm, "warm")):
    if k is not None:
        ax.axvline(k, color="grey", linestyle=":", linewidth=1)
        ax.annotate(
            f"break-even ({name}): {k} call(s)",
            (k, k * te),
            textcoords="offset points",
            xytext=(5, -12 if name == "cold" else 8),
            fontsize=8,
        )
ax.set(
    xlabel="number of calls",
    ylabel="cumulative time (s)",
    title="Monte Carlo π, 10⁷ points: when does compiling pay off?",
)
ax.legend(fontsize=8)
ax.grid(alpha=0.3)
plt.show()

# %% [markdown]
# Read the picture: the compiled lines start high (the compile) and rise slowly; the eager
# line starts at zero and rises fast. With a cold cache this function needs tens to hundreds
# of calls before compiling has paid off (the cell prints the number for your run); a warm
# cache brings that down by the cold/warm ratio, here to a handful of calls. For a script that calls a
# function ten times, eager is the right answer.

# %% [markdown]
# ## Modes
#
# `torch.compile(fn, mode=...)` selects a preset of inductor options. The presets are
# listed by inductor itself:

# %%
import torch._inductor

for mode, options in torch._inductor.list_mode_options().items():
    print(f"{mode:28s} {options}")

# %% [markdown]
# * `default`: fusion and code generation, a balance of compile time and speed.
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
mode_results = {}
for mode in ("default", "reduce-overhead", "max-autotune-no-cudagraphs"):
    reset()
    fn = mc.compiled_pi(mode=mode)
    with captured_logs(output_code=True) as mode_logs:
        out, t_compile = time_once(lambda: fn(x, y))
    kernels = [line.split(" = ")[0] for line in mode_logs.grep(r"^cpp_fused\w* = async_compile")]
    mode_results[mode] = (fn, t_compile)
    hit = counters["inductor"]["fxgraph_cache_hit"] > 0
    print(
        f"{mode:28s} result == eager: {torch.equal(out, pi_eager)} | graph cache hit: {hit!s:5s} | kernels: {kernels}"
    )

# %%
# NBVAL_IGNORE_OUTPUT
for mode, (fn, t_compile) in mode_results.items():
    t = measure(lambda: fn(x, y), repeat=5, budget=0.1)
    print(f"{mode:28s} first call {format_seconds(t_compile):>8s} | per call {t}")

# %% [markdown]
# The same kernel in all three modes, and per-call times within the noise of each other.
# `default` found its compiled graph in the on-disk cache (a hit). The other two modes
# change inductor's options, which are part of the cache key: a miss, so inductor generated
# the code again, and it came out the same; the C++ library built from that source was
# already on disk, so these first calls still take well under a second. With `max-autotune`
# on code full of matrix multiplications the first call would be far longer, which is why
# this notebook does not run it.

# %% [markdown]
# ## On a GPU
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
# ## Published figures
#
# Beside ours, figures published elsewhere, on other hardware (from the course's
# `REFERENCE_FIGURES.md`; we did not re-measure them):
#
# | source, hardware | what | eager | compiled: first call, then per call |
# |---|---|---|---|
# | "Making NumPy go faster with pytorch.compile", laptop CPU | sum of 1,000 int8 genes × 900,000 chromosomes | 2.52 s | 4.10 s, then 0.067 s (break-even at the 2nd call) |
# | same, laptop CPU | constrained fitness function 2 (`np.where`) | 48 ms (NumPy) | 6.2 ms |
# | same, quoting the torch.compile tutorial's training loop, `reduce-overhead` | one training step | 0.066 s | ~285 s (as printed), then 0.037 s: 1.77x faster per step, break-even after ~10,000 steps |
# | "PyTorch as a GPU Computation Library" (notebook) | Monte Carlo π, 10⁷ samples | pure Python, vectorised, compiled: compiled fuses into one kernel | A * B: compile does not help |
#
# The pattern matches ours: a large factor from pure Python to vectorised, a further
# few-fold from fusion when several operations share the data, and a first call that costs
# seconds (or minutes) to pay back.

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
# generates its own random numbers inside the fused kernel. Draw the inputs outside the
# compiled function when you compare results:


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
# ## Key points
#
# * `torch.compile` traces a function into a graph and inductor generates fused kernels:
#   one loop per group of operations, intermediates kept in registers instead of memory.
# * Fusion pays off for chains of element-wise work and reductions (memory-bound code); a
#   single operation such as `A * B` or `A @ B` has nothing to fuse.
# * The first call compiles: seconds on a CPU, far more with a cold cache. Compute the
#   break-even number of calls before deciding; a warm on-disk cache cuts the cost.
# * `reduce-overhead` means CUDA graphs and does nothing on the CPU; `max-autotune` tunes
#   matmuls and convolutions at a large compile cost.
# * Compare compiled and eager results on the same inputs drawn outside the compiled code.
#
# The last cell deletes this notebook's private inductor cache.

# %%
import shutil

shutil.rmtree(cache_dir, ignore_errors=True)
print("private cache removed:", not os.path.exists(cache_dir))

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/09_compile_fusion.ipynb](../exercises/09_compile_fusion.ipynb) ·
# **Previous:** [08 · nn.Module as a container for computation](08_modules_and_buffers.ipynb) ·
# **Next:** [10 · Recompilation and dynamic shapes](10_recompilation.ipynb)
