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
# *Module 10 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/10_recompilation.ipynb) · previous: [09 · torch.compile: fusion and overhead](09_compile_fusion.ipynb) · next: [11 · Graph breaks](11_graph_breaks.ipynb)

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
# # 10 · Recompilation and dynamic shapes
#
# A compiled function is specialised: the code inductor generated for a float32 vector of
# 1,000 elements on the CPU assumes exactly that. Before every call, `torch.compile` checks
# those assumptions (*guards*); when one fails it compiles again. A recompile costs as much
# as a compile (hundreds of milliseconds to seconds when inductor's on-disk cache does not
# hold the code yet; the first compile in a process also pays the compiler's start-up and
# inductor's CPU probe, which builds its C++ programs only in a new cache directory, module 09), so a
# function that sees a new dtype, device or Python value on every call (or a new shape, when
# shapes are kept static) can be far slower compiled than eager. This notebook counts
# compiles instead of guessing them, shows what triggers each one, how dynamic shapes stop
# the shape-driven ones, what happens when a function recompiles too often, and how to make
# recompiles an error.
#
# **Objectives.** After this notebook you can:
# 1. read a function's guards and the reasons `TORCH_LOGS=recompiles` gives for a recompile;
# 2. predict and count the compiles caused by dtype, device, shape and Python-value changes;
# 3. use `dynamic=`, `torch._dynamo.mark_dynamic` and `torch.compiler.reset()` deliberately;
# 4. explain what happens past `recompile_limit`, and use `torch.compiler.set_stance` to
#    make a recompile fail loudly or run eagerly.
#
# **Prerequisites.** Module 09 (torch.compile: fusion and overhead).
#
# **Time.** 35 min teaching, 30 min exercises.

# %% [markdown]
# ## Counting compiles
#
# A compile with inductor takes time (the plot further down measures it), but *whether* a
# call compiles is decided before inductor runs, by TorchDynamo. So to count compiles we use
# the counting backend from module 09, `compile_counter()`: dynamo traces and guards exactly
# as usual, and the backend just counts the graphs (`frame_count`) and runs them eagerly.
# Each experiment starts with `reset()` (`torch.compiler.reset()` plus zeroed counters), so
# that nothing compiled earlier interferes.
#
# The one experiment that does run inductor measures compile times, which depend on
# inductor's on-disk cache; as in module 09, this notebook gives inductor a new, empty cache
# directory (`TORCHINDUCTOR_CACHE_DIR`), deleted by the last cell.

# %%
import os
import tempfile

cache_dir = tempfile.mkdtemp(prefix="torchcourse-10-inductor-")
os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir

import torch
from torch._dynamo.utils import counters

from torchcourse import claim, format_seconds, predict, reveal, time_once
from torchcourse.compiletools import captured_logs, compile_counter, needs_compiler, reset


def f(x):
    return torch.sin(x) * 2 + 1


def reasons(logs):
    """The guard failures a `recompiles` log gives as the reason for each recompile."""
    found = logs.require(r"^\s+- \d+/\d+: ", "the reason for the recompile")
    return [line.split("  #")[0].strip() for line in found]


print("inductor cache is empty:", os.listdir(cache_dir) == [])

# %% [markdown]
# ## Guards: what a compiled function assumes
#
# The `guards` log (`TORCH_LOGS=guards`) lists every check dynamo installs. The one about
# the tensor argument says what the compiled code assumes of `x`:

# %%
reset()
counter = compile_counter()
f_c = torch.compile(f, backend=counter)
with captured_logs(guards=True) as logs:
    f_c(torch.ones(1000))
tensor_guard = logs.require("TENSOR_MATCH", "the guard on the tensor argument")[0]
print(tensor_guard.split("TENSOR_MATCH: ")[-1].split("  #")[0].strip())
print("compiles:", counter.frame_count)

# %% [markdown]
# Read it left to right: the argument `L['x']` must be a `Tensor` with this *dispatch key
# set* (the device: `CPU`, and autograd support for it), dtype `torch.float32`,
# `requires_grad=False`, size `[1000]` and stride `[1]`. A call that breaks any of these
# fails the guard, and dynamo compiles again. Besides the arguments, dynamo guards on global
# state: grad mode, the thread count (`torch.set_num_threads`), the default dtype and a few
# more. Changing one between calls compiles again too (the reason reads `GLOBAL_STATE changed:
# grad_mode`, `num_threads`, `default_dtype`). Calls that keep all of them reuse the compiled code:

# %%
for _ in range(5):
    f_c(torch.randn(1000))
print("compiles after 5 more calls with new values, same guards:", counter.frame_count)

# %% [markdown]
# ## A new dtype: one more compile
#
# The `recompiles` log (what `TORCH_LOGS=recompiles` prints) says why each recompile
# happened. We capture it and print just the reasons.
#
# **Predict 10.p1.** You call `f_c` with float32, float64, float32, float64 (size 1000 each
# time). How many graphs will dynamo compile? Write a whole number.

# %%
predict("10.p1", None)  # replace None with your prediction

# %%
reset()
counter = compile_counter()
f_c = torch.compile(f, backend=counter)
with captured_logs(recompiles=True) as logs:
    for dtype in (torch.float32, torch.float64, torch.float32, torch.float64):
        f_c(torch.ones(1000, dtype=dtype))
        print(f"{str(dtype):14s} -> compiles so far: {counter.frame_count}")
print("\n".join(reasons(logs)))
claim(counter.frame_count == 2, "two dtypes, four calls: two compiles")
reveal(
    "10.p1",
    counter.frame_count,
    why="the dtype is part of the tensor guard: float64 fails float32's guard and compiles; "
    "dynamo keeps both versions, so the third and fourth calls find theirs.",
)

# %% [markdown]
# Two compiles for two dtypes: dynamo keeps both versions (a cache per function) and the
# third and fourth calls find theirs. The reason names the failing guard of the version it
# tried: `0/0` is frame 0, compiled version 0.

# %% [markdown]
# ## A new device
#
# The device is part of the dispatch key set. Without assuming a GPU, we use the `meta`
# device (shapes and dtypes, no data); dynamo can trace it on any machine. On a GPU the
# reason reads the same with `CUDA` in place of `Meta`:

# %%
reset()
counter = compile_counter()
f_c = torch.compile(f, backend=counter)
with captured_logs(recompiles=True) as logs:
    f_c(torch.ones(1000))
    out = f_c(torch.ones(1000, device="meta"))
print("result on:", out.device, "| compiles:", counter.frame_count)
print("\n".join(reasons(logs)))

# %% [markdown]
# ## A new shape, and the dynamic kernel
#
# Now square matrices of four sizes, in the order of a published example (scaled down:
# 1000², 500², 250², 1500² here instead of 10000², 2000², 500², 20000²).
#
# **Predict 10.p2.** Four calls, four different square sizes, no `dynamic=` argument. How many
# graphs will dynamo compile? Write a whole number.

# %%
predict("10.p2", None)  # replace None with your prediction

# %%
sizes = (1000, 500, 250, 1500)
reset()
counter = compile_counter()
f_c = torch.compile(f, backend=counter)
with captured_logs(recompiles=True) as logs:
    for n in sizes:
        f_c(torch.ones(n, n))
        print(f"{n}x{n}: compiles so far {counter.frame_count}")
print("\n".join(reasons(logs)))
claim(counter.frame_count == 2, "four sizes: two compiles, not four")
reveal(
    "10.p2",
    counter.frame_count,
    why="the first graph is static; the second size makes dynamo mark the changed dimensions "
    "dynamic and compile a graph that takes the sizes as inputs, which serves 250² and 1500² too.",
)

# %% [markdown]
# Two compiles, not four. The first compile assumes the shape it saw (a *static* graph).
# When the size changes, dynamo does not compile a second static graph: it marks the
# dimensions that changed as *dynamic* and compiles a graph that takes the size as an
# input (this is `automatic_dynamic_shapes`, on by default). That graph serves every later
# size.
#
# What does that mean for the generated code? Compile with inductor this time and keep the
# `output_code` log of each call. The first kernel has the element count written into its
# loop; the second receives the sizes as arguments (`ks0`, `ks1`):

# %%
import re

needs_compiler("the loop bounds in the kernels inductor generates, and their compile times")


def new_loop_bound(logs):
    """The upper bound of the loop in the kernel a call generated, or "no new code"."""
    if not logs.grep(r"= async_compile\.cpp"):
        return "no new code"
    loop = logs.require(r"for\s*\(\s*int64_t x0\s*=", "the generated loop")[0]
    m = re.search(r"x0\s*<\s*static_cast<int64_t>\(([^)]+)\)", loop)
    return m.group(1) if m else loop.strip()


def run_sizes(fn):
    """Call fn on each size (timing each call, keeping its output_code log), then each size again."""
    times, bounds = [], []
    for n in sizes:
        x = torch.ones(n, n)
        with captured_logs(output_code=True) as logs:
            out, t = time_once(lambda: fn(x))
        times.append(t)
        bounds.append(new_loop_bound(logs))
        claim(torch.allclose(out, f(x)), f"the compiled result for {n}x{n} is right", show=False)
    for n in sizes:
        x = torch.ones(n, n)
        times.append(time_once(lambda: fn(x))[1])
    return times, bounds


reset()
cold_s, cold_bounds = run_sizes(torch.compile(f))
for n, bound in zip(sizes, cold_bounds):
    print(f"{n}x{n}: loop bound of the new kernel: {bound}")
print(
    "inductor graph cache: misses",
    counters["inductor"]["fxgraph_cache_miss"],
    "| hits",
    counters["inductor"]["fxgraph_cache_hit"],
)

# %% [markdown]
# `1000000L` is 1000·1000, fixed at compile time. `ks0*ks1` is the product of two sizes
# passed in at run time. For 250² and 1500² no new code was generated. Both compiles missed
# the (empty) cache: they are **cold** compiles.
#
# Now the same eight calls once more after `reset()`: dynamo has forgotten its compiled
# graphs (and the sizes it has seen), so it compiles twice again, static then dynamic, but
# inductor finds both graphs in its on-disk cache: **warm** compiles.

# %%
needs_compiler("the same calls with inductor's cache warm")
reset()
warm_s, warm_bounds = run_sizes(torch.compile(f))
print("same kernels as before:", warm_bounds == cold_bounds)
print(
    "inductor graph cache: misses",
    counters["inductor"]["fxgraph_cache_miss"],
    "| hits",
    counters["inductor"]["fxgraph_cache_hit"],
)

# %% [markdown]
# The time of each call tells the story. The eight bars per panel are the four calls above
# (the first two compile) and four more that revisit the sizes; red bars compiled:

# %%
# NBVAL_IGNORE_OUTPUT
import matplotlib.pyplot as plt

sequence = sizes + sizes  # the eight calls, also counted below
needs_compiler("the times of the compiling calls, cold and warm")
compiled = [b != "no new code" for b in cold_bounds] + [False] * len(sizes)
for i, n in enumerate(sequence):
    print(f"{n}x{n}: cold cache {format_seconds(cold_s[i]):>8s} | warm cache {format_seconds(warm_s[i]):>8s}")

fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True, layout="constrained")
colors = ["tab:red" if c else "tab:blue" for c in compiled]
for ax, times, title in (
    (axes[0], cold_s, "empty (cold) inductor cache"),
    (axes[1], warm_s, "warm cache, after reset()"),
):
    ax.bar(range(len(sequence)), times, color=colors)
    ax.set_xticks(range(len(sequence)), [f"{n}²" for n in sequence], fontsize=7)
    ax.set_yscale("log")
    ax.set(title=title, xlabel="call (matrix size), in order")
    ax.grid(alpha=0.3, axis="y")
axes[0].set_ylabel("time of the call (s, log scale)")
fig.suptitle("f(x) = sin(x)·2 + 1, compiled: red bars compiled a graph")
plt.show()

# %%
# A cold compile runs inductor and the C++ compiler (0.5 s or more on any CPU); an ordinary call
# is a sin over at most 2.25M floats (milliseconds): >10x and >0.1 s hold anywhere. A warm compile
# skips code generation and the C++ compiler: 14x or more cheaper on an Intel Xeon and a loaded
# AMD EPYC, so "less than half" is safe.
needs_compiler("the claims about cold and warm compile times")
compile_cold = [t for t, c in zip(cold_s, compiled) if c]
compile_warm = [t for t, c in zip(warm_s, compiled) if c]
ordinary = [t for t, c in zip(cold_s + warm_s, compiled + compiled) if not c]
claim(
    len(compile_cold) == 2 and min(compile_cold) > 10 * max(ordinary),
    "with an empty cache, each of the two compiles takes more than 10x longer than any ordinary call",
    f"compiles {compile_cold}, slowest ordinary call {max(ordinary):.4f} s",
)
claim(compile_cold[1] > 0.1, "the cold recompile takes more than 0.1 s", f"{compile_cold[1]:.3f} s")
claim(
    all(w < c / 2 for w, c in zip(compile_warm, compile_cold)),
    "with a warm cache, each compile costs less than half as much as with the empty one",
    f"cold {compile_cold}, warm {compile_warm}",
)

# %% [markdown]
# With an empty cache the two compiles tower over every ordinary call (the first one also
# pays the compiler's one-off start-up in this process). With a warm cache the same two
# compiles skip code generation and the C++ compiler: still dynamo's tracing and inductor's
# loading, much cheaper. On your own machine the cache lives on between sessions, so
# which of the two panels you see depends on whether this code was compiled before (in a new
# session the first red bar also carries inductor's start-up, a second or more; module 09
# measures it).
#
# With `dynamic=False` dynamo would compile a static kernel for every new size instead:
# four red bars in the first four calls rather than two. The counting backend confirms it
# without paying for inductor:

# %%
for label, kwargs in (("default", {}), ("dynamic=False", {"dynamic": False})):
    reset()
    counter = compile_counter()
    fn = torch.compile(f, backend=counter, **kwargs)
    for n in sequence:
        fn(torch.ones(n, n))
    print(f"{label:14s} {len(sequence)} calls -> {counter.frame_count} compiles")

# %% [markdown]
# ## Choosing: `dynamic=` and `mark_dynamic`
#
# * `dynamic=None` (default): static first, dynamic after a size changes.
# * `dynamic=False`: always static, one compile per distinct shape.
# * `dynamic=True`: dynamic from the first compile.
# * `torch._dynamo.mark_dynamic(x, dim)`: before the first call, mark one dimension of one
#   input dynamic (e.g. the batch dimension) and leave the rest static.
#
# Counted over four vector lengths:

# %%
lengths = (100, 200, 300, 400)
settings = {"dynamic=None": {}, "dynamic=False": {"dynamic": False}, "dynamic=True": {"dynamic": True}}
for label, kwargs in settings.items():
    reset()
    counter = compile_counter()
    fn = torch.compile(f, backend=counter, **kwargs)
    for n in lengths:
        fn(torch.ones(n))
    print(f"{label:28s} compiles: {counter.frame_count}")

reset()
counter = compile_counter()
fn = torch.compile(f, backend=counter)
first = torch.ones(lengths[0])
torch._dynamo.mark_dynamic(first, 0)
fn(first)
for n in lengths[1:]:
    fn(torch.ones(n))
print(f"{'mark_dynamic(x, 0), default':28s} compiles: {counter.frame_count}")

# %% [markdown]
# Sizes 0 and 1 are special. A dynamic size is a symbol that dynamo assumes to be at least 2;
# a size of 0 or 1 gets a constant instead, even with `dynamic=True` (its source calls this
# *0/1 specialisation*). Whether a dimension broadcasts (size 1) or is empty (size 0) changes
# what the code must do, and the assumption answers those questions once for every size the
# symbol stands for. So a size-1 input after the dynamic graph is compiled brings one more
# graph, with the size fixed at 1:

# %%
reset()
counter = compile_counter()
fn = torch.compile(f, backend=counter, dynamic=True)
for n in (100, 200, 1):
    fn(torch.ones(n))
    print(f"length {n}: compiles so far {counter.frame_count}")

# %% [markdown]
# When sizes 0 and 1 are ordinary for your function (a batch that may be empty or hold one
# item), `torch._dynamo.decorators.mark_unbacked(x, dim)` asks for more: the size becomes an
# *unbacked* symbol. Dynamo traces without knowing its value and guards only that it is not
# negative, so 0 and 1 run the same graph as every other size. The price: the graph is compiled
# as if the size were neither 0 nor 1 (`mark_unbacked`'s own documentation says so), with
# checks at run time instead, and an `if` on the size cannot go into the graph (it splits the
# function at that line, module 11, or raises with `fullgraph=True`).

# %%
reset()
counter = compile_counter()
fn = torch.compile(f, backend=counter)
first = torch.ones(100)
torch._dynamo.decorators.mark_unbacked(first, 0)
fn(first)
for n in (200, 1, 0):
    fn(torch.ones(n))
print(f"mark_unbacked(x, 0), lengths 100, 200, 1, 0: compiles {counter.frame_count}")
claim(counter.frame_count == 1, "with mark_unbacked, sizes 1 and 0 run the graph compiled for 100")

# %% [markdown]
# ## What `dynamic=` sets, read from the source (optional)
#
# `torch.compile`'s `dynamic=` argument sets two of dynamo's options (documented in
# `torch/_dynamo/config.py`) for the function it wraps:
#
# * `assume_static_by_default` (default `True`): in the first graph every size is a constant,
#   except those you marked (`mark_dynamic`, `mark_unbacked`);
# * `automatic_dynamic_shapes` (default `True`): when a size guard fails, the recompile makes
#   that size dynamic.
#
# `dynamic=None` keeps both defaults: static on the first call, automatic dynamic after a
# recompile caused by a size change. `dynamic=True` sets `assume_static_by_default=False`:
# sizes are symbols from the first compile. `dynamic=False` sets `automatic_dynamic_shapes=False`:
# each new size recompiles a static graph. The same six calls under each choice, and under the
# default with one of the two options changed by hand; each row gives the number of compiles
# after each call:

# %%
calls = (100, 200, 300, 1, 0, 200)


def compiles_per_call(mark=None, **kwargs):
    """Compile f with the counting backend, call it on torch.ones(n) for each n in calls
    (marking dimension 0 of the first tensor with `mark`, if given): the compiles after each call."""
    reset()
    counter = compile_counter()
    fn = torch.compile(f, backend=counter, **kwargs)
    counts = []
    for i, n in enumerate(calls):
        x = torch.ones(n)
        if mark is not None and i == 0:
            mark(x, 0)
        fn(x)
        counts.append(counter.frame_count)
    return counts


print("assume_static_by_default:", torch._dynamo.config.assume_static_by_default)
print("automatic_dynamic_shapes:", torch._dynamo.config.automatic_dynamic_shapes)
rows = {
    "dynamic=None (the default)": compiles_per_call(),
    "dynamic=True": compiles_per_call(dynamic=True),
    "dynamic=False": compiles_per_call(dynamic=False),
    "mark_dynamic(first, 0)": compiles_per_call(torch._dynamo.mark_dynamic),
    "mark_unbacked(first, 0)": compiles_per_call(torch._dynamo.decorators.mark_unbacked),
}
with torch._dynamo.config.patch(assume_static_by_default=False):
    rows["None, assume_static_by_default=False"] = compiles_per_call()
with torch._dynamo.config.patch(automatic_dynamic_shapes=False):
    rows["None, automatic_dynamic_shapes=False"] = compiles_per_call()
print(f"{'length of the call:':38s}" + "".join(f"{n:>5d}" for n in calls))
for label, counts in rows.items():
    print(f"{label:38s}" + "".join(f"{c:>5d}" for c in counts))
claim(
    rows["dynamic=None (the default)"] == [1, 2, 2, 3, 4, 4],
    "the default compiles static, then dynamic at 200, which serves 300; lengths 1 and 0 add one graph each",
)
claim(
    rows["None, assume_static_by_default=False"] == rows["dynamic=True"]
    and rows["None, automatic_dynamic_shapes=False"] == rows["dynamic=False"],
    "changing one option by hand reproduces dynamic=True (assume_static_by_default) and dynamic=False "
    "(automatic_dynamic_shapes)",
)

# %% [markdown]
# Read the rows: `dynamic=False` compiles once per distinct length (five); `dynamic=True` and
# `mark_dynamic` compile one dynamic graph at once, then one each for lengths 1 and 0 (the 0/1
# specialisation); the default pays one static graph first, so one compile more than
# `dynamic=True`. Only `mark_unbacked` runs all six calls with one graph.
#
# ### What `mark_dynamic` costs
#
# A marked dimension changes the guards. The static graph checks the exact size; the marked one
# checks no size in the tensor guard (`None`) and adds a guard of its own: the size is at least
# 2, which is how lengths 0 and 1 are sent to other graphs. That guard runs on every call:


# %% tags=["version-specific"]
def shape_guards(mark):
    """The size in the tensor guard, and any guard on x's size, for f compiled on torch.ones(100)."""
    reset()
    x = torch.ones(100)
    if mark:
        torch._dynamo.mark_dynamic(x, 0)
    with captured_logs(guards=True) as logs:
        torch.compile(f, backend=compile_counter())(x)
    tensor = logs.require("TENSOR_MATCH", "the guard on the tensor argument")[0]
    size = re.search(r"size=\[[^\]]*\]", tensor).group(0)
    extra = [line.split(": ", 1)[1].split("  #")[0].strip() for line in logs.grep(r"LAMBDA_GUARD: .*size\(\)")]
    return size, extra


for label, mark in (("static", False), ("mark_dynamic(x, 0)", True)):
    size, extra = shape_guards(mark)
    print(f"{label:19s} tensor guard {size:11s} | guards on the size: {extra}")

# %% [markdown]
# The promise has a second cost: the traced code must work for every size. Not every `if` on
# the size breaks it. A comparison such as `x.shape[0] > 50` only adds a guard (the size stays
# a symbol: this graph serves every size above 50); a branch that pins the size to one value
# (`x.shape[0] == 100` taken with a size of 100, or `!= 100` not taken) makes dynamo raise
# instead of quietly specialising (see *Common mistakes*).
# `torch._dynamo.maybe_mark_dynamic` is the same mark without the promise.
#
# **Predict 10.p3.** `x` of size 100 is marked dynamic, and the compiled function starts with
# `if x.shape[0] > 50:`. Does dynamo raise? Write `True` or `False`.

# %%
predict("10.p3", None)  # replace None with your prediction


# %% tags=["version-specific"]
def wide_or_narrow(x):
    if x.shape[0] > 50:  # a comparison: one more guard on the size
        return x + 1
    return x - 1


def exactly_100(x):
    if x.shape[0] == 100:  # pins the size to one value
        return x + 1
    return x - 1


def raises_when_marked(fn):
    """Compile fn on a size-100 tensor marked dynamic: the error's name, or the guards on its size."""
    reset()
    x = torch.ones(100)
    torch._dynamo.mark_dynamic(x, 0)
    try:
        with captured_logs(guards=True) as logs:
            torch.compile(fn, backend=compile_counter())(x)
    except Exception as error:
        return type(error).__name__
    return [line.split(": ", 1)[1].split("  #")[0].strip() for line in logs.grep(r"LAMBDA_GUARD: .*size\(\)")]


for fn in (wide_or_narrow, exactly_100):
    print(f"{fn.__name__:15s}", raises_when_marked(fn))
reveal(
    "10.p3",
    isinstance(raises_when_marked(wide_or_narrow), str),
    why="`> 50` holds for a whole range of sizes: dynamo adds a guard and keeps the size symbolic. "
    "Only a branch that leaves a single possible size breaks the promise.",
)

# %% [markdown]
# ## Python arguments are constants
#
# Dynamo traces Python code once per set of guards. A Python argument that decides a branch
# becomes a constant of the graph, guarded by its value: each new value compiles once (two
# strings that take the same branch still compile twice), and later calls with a value seen
# before reuse its graph.


# %%
def activation(x, mode):
    if mode == "relu":
        return torch.relu(x)
    return torch.tanh(x)


reset()
counter = compile_counter()
act = torch.compile(activation, backend=counter)
with captured_logs(recompiles=True) as logs:
    for mode in ("relu", "tanh", "relu", "tanh", "relu"):
        act(torch.randn(100), mode)
print("5 calls, 2 modes -> compiles:", counter.frame_count)
print("\n".join(reasons(logs)))

# %% [markdown]
# Python *numbers* used only in arithmetic behave like sizes: the first value is
# specialised, the second makes the argument dynamic (a symbolic int or float), and later
# values reuse that graph.
#
# **Predict 10.p4.** `scale(x, k)` is called with `k` = 2, 3, 4, 5 (Python ints). How many
# graphs will dynamo compile? Write a whole number.

# %%
predict("10.p4", None)  # replace None with your prediction


# %%
def scale(x, k):
    return x * k


for values in ((2, 3, 4, 5), (0.5, 1.5, 2.5, 3.5)):
    reset()
    counter = compile_counter()
    sc = torch.compile(scale, backend=counter)
    for k in values:
        sc(torch.ones(10), k)
    print(f"{type(values[0]).__name__:5s} values {values} -> compiles: {counter.frame_count}")
    if isinstance(values[0], int):
        int_compiles = counter.frame_count
reveal(
    "10.p4",
    int_compiles,
    why="the first value is a constant of the graph; the second makes `k` a symbolic int, "
    "and 4 and 5 reuse that graph. A branch on `k` would instead compile once per value.",
)

# %% [markdown]
# ## Past the recompile limit
#
# Each function may hold at most `torch._dynamo.config.recompile_limit` compiled versions.
# Beyond that dynamo stops compiling it, logs a warning, and runs the function **eagerly**
# for inputs that match none of the cached versions. Results stay right; the speed-up is
# gone, silently unless you read the log. Ten distinct name strings:


# %%
def by_name(x, name):
    return x + len(name) if name.startswith("add") else x * len(name)


print("recompile_limit:", torch._dynamo.config.recompile_limit)
reset()
counter = compile_counter()
bn = torch.compile(by_name, backend=counter)
names = [f"add{'_' * i}" for i in range(10)]
with captured_logs(recompiles=True) as logs:
    results_right = all(torch.equal(bn(torch.ones(3), name), by_name(torch.ones(3), name)) for name in names)
print("10 names -> compiles:", counter.frame_count, "| all results right:", results_right)
warning = logs.require("hit config.recompile_limit", "the recompile-limit warning")
print("warning:", warning[0].strip())
print(logs.require("last reason:", "the last recompile reason")[0].split("  #")[0].strip())
claim(
    counter.frame_count == torch._dynamo.config.recompile_limit and results_right,
    "compiles stop at the limit, and the calls past it still return right results (eagerly)",
)

# %% [markdown]
# The limit is per function (per code object), and dynamo counts *every* cached version:
# a function that legitimately needs many (say, one per dtype × device) can get a higher
# limit with `torch._dynamo.config.recompile_limit = 16`, ideally for a block only with
# `torch._dynamo.config.patch(recompile_limit=16)`. To make hitting the limit an error
# instead, set `torch._dynamo.config.fail_on_recompile_limit_hit = True` (see *Common
# mistakes*).

# %% [markdown]
# ## Recompiles on purpose only: `torch.compiler.set_stance` (optional)
#
# After a warm-up you often know that every input the function will see has been compiled
# for. `torch.compiler.set_stance` (a function, a context manager or a decorator) tells the
# compiler what to do if a recompile is needed all the same:
#
# * `"fail_on_recompile"`: raise an error instead of compiling. Use it in your tests, or
#   around a steady-state loop, to catch a recompile the moment it happens. It refuses a
#   function's very first compile too, so the warm-up must run outside the block.
# * `"eager_on_recompile"`: run that call eagerly instead of compiling; inputs that match a
#   compiled version still run compiled code.
#
# Warm up on float32, then send a float64 tensor under each stance:

# %%
reset()
counter = compile_counter()
f_c = torch.compile(f, backend=counter)
f_c(torch.ones(1000))  # the warm-up: one compile, for float32

with torch.compiler.set_stance("fail_on_recompile"):
    f_c(torch.ones(1000))  # same guards: runs the compiled version
    try:
        f_c(torch.ones(1000, dtype=torch.float64))
        failure = None
    except RuntimeError as exc:
        failure = exc
print("fail_on_recompile, float64 call raised a RuntimeError:", failure is not None)
print("  the message says it detected a recompile:", "detected recompile" in str(failure).lower())
print("  and names the failing guard (dtype):", "dtype mismatch" in str(failure))
print("compiles so far:", counter.frame_count)

x64 = torch.ones(1000, dtype=torch.float64)
with torch.compiler.set_stance("eager_on_recompile"):
    out64 = f_c(x64)  # no compiled version matches: runs eagerly, compiles nothing
print(
    "eager_on_recompile, float64 result right:", torch.equal(out64, f(x64)), "| compiles so far:", counter.frame_count
)

f_c(x64)  # outside the block the default stance is back: this call compiles
print("default stance again, same call -> compiles:", counter.frame_count)
claim(
    failure is not None and counter.frame_count == 2,
    "each stance held for its block only: no compile inside, one after",
)

# %% [markdown]
# Why the warm-up comes first: under `"fail_on_recompile"` a function that was never compiled
# raises too, since its first compile is a compile all the same.

# %%
reset()
never_compiled = torch.compile(f, backend=compile_counter())
with torch.compiler.set_stance("fail_on_recompile"):
    try:
        never_compiled(torch.ones(1000))
        refused = False
    except RuntimeError:
        refused = True
print("first call ever, under fail_on_recompile, raised:", refused)

# %% [markdown]
# ## Starting over: `torch.compiler.reset()`
#
# `torch.compiler.reset()` drops every compiled version of every function (and dynamo's
# memory of sizes it has seen), so the next call compiles as if for the first time. Use it
# between experiments and in tests; in production code you rarely need it.

# %%
reset()
counter = compile_counter()
f_c = torch.compile(f, backend=counter)
f_c(torch.ones(10))
f_c(torch.ones(10))
print("before reset, compiles:", counter.frame_count)
torch.compiler.reset()
f_c(torch.ones(10))
print("after reset, one more call -> compiles:", counter.frame_count)

# %% [markdown]
# ## Common mistakes
#
# **Marking a dimension dynamic, then specialising it.** `mark_dynamic` is a promise that
# the code works for any size. A branch that pins that size to one value breaks the promise, and dynamo
# refuses with a `ConstraintViolationError` that tells you what to do instead. (The
# `captured_logs()` block only keeps torch's long log of the same error out of the notebook.)


# %% tags=["version-specific", "raises-exception"]
def first_or_rest(x):
    if x.shape[0] == 1000:
        return x + 1
    return x - 1


reset()
batch = torch.ones(1000)
torch._dynamo.mark_dynamic(batch, 0)
with captured_logs():
    torch.compile(first_or_rest, backend="eager")(batch)

# %% [markdown]
# Use `torch._dynamo.maybe_mark_dynamic(x, 0)` when specialisation is acceptable, or write
# the branch with tensor operations (module 11).
#
# **Silent eager fallback.** A function that gets a new Python value on every call (a step
# counter used in an `if`, a string key, a shape you did not expect) recompiles until the
# limit and then runs eagerly, as shown above. In your own tests, make that an error:

# %% tags=["version-specific", "raises-exception"]
reset()
with torch._dynamo.config.patch(recompile_limit=2, fail_on_recompile_limit_hit=True), captured_logs():
    bn = torch.compile(by_name, backend="eager")
    for name in names[:3]:
        bn(torch.ones(3), name)

# %% [markdown]
# **Comparing the wrong counter.** `counter.frame_count` counts the graphs *one* backend
# compiled. Two `torch.compile` wrappers of the same function share dynamo's cache (it lives
# on the function's code object), so a second wrapper with another backend adds entries
# that count toward the same limit. Reset between experiments, as this notebook does.
#
# ## Key points
#
# * Guards check dtype, device (dispatch keys), shape, stride and the Python values the
#   trace depended on, and global state (grad mode, thread count, default dtype); a failed guard means a recompile, reported by `TORCH_LOGS=recompiles`.
# * Count compiles with the counting backend (`compile_counter()`), not by guessing.
# * A recompile with inductor costs a compile: from hundreds of milliseconds to seconds with
#   an empty inductor cache, far less when the cache holds the code already.
# * A second size makes dynamo compile a dynamic kernel (sizes as arguments) that serves
#   later sizes; `dynamic=False/True` and `mark_dynamic` choose explicitly; a dynamic size of
#   0 or 1 still gets a graph of its own, unless `mark_unbacked` makes the size unbacked.
# * `dynamic=None` keeps `assume_static_by_default` and `automatic_dynamic_shapes` on (static
#   first, dynamic after a size changes); `dynamic=True` turns the first off, `dynamic=False`
#   the second. `mark_dynamic` adds a guard (size at least 2) and raises if a branch pins the size
#   to one value (`==`); a comparison such as `>` only adds a guard.
# * Python values that steer branches are constants: one compile per value seen.
# * Past `recompile_limit` (8 by default) the function runs eagerly with a logged warning;
#   `torch.compiler.set_stance("fail_on_recompile")` turns any recompile into an error and
#   `"eager_on_recompile"` runs eagerly instead; `torch.compiler.reset()` starts over.
#
# ## Further reading
#
# * [Dealing with recompilations](https://docs.pytorch.org/docs/stable/compile/programming_model.recompilation.html),
#   the PyTorch guide: dynamic shapes, constants, `TORCH_LOGS=recompiles`.
# * [`torch.compiler.set_stance`](https://docs.pytorch.org/docs/stable/generated/torch.compiler.set_stance.html)
#   and the recipe [Dynamic compilation control with `torch.compiler.set_stance`](https://docs.pytorch.org/tutorials/recipes/torch_compiler_set_stance_tutorial.html).
# * [`torch.compile` troubleshooting](https://pytorch.org/docs/stable/torch.compiler_troubleshooting):
#   compile times, recompilations, the logs.
# * [`torch.compile` API reference](https://docs.pytorch.org/docs/stable/generated/torch.compile.html):
#   `dynamic=` and the recompile limit.
#
# The last cell deletes this notebook's private inductor cache.

# %%
import shutil

shutil.rmtree(cache_dir, ignore_errors=True)
print("private cache removed:", not os.path.exists(cache_dir))

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 25 statements of this lesson are tested facts; all pass on torch 2.13.0. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“must be a <code>Tensor</code> with this dispatch key set (the device: <code>CPU</code>, and autograd support for it), dtype <code>torch.float32</code>, <code>requires_grad=False</code>, size <code>[1000]</code> and stride <code>[1]</code>”</td><td>✓</td></tr>
# <tr><td>“Two compiles for two dtypes: dynamo keeps both versions”</td><td>✓</td></tr>
# <tr><td>“it marks the dimensions that changed as dynamic and compiles a graph that takes the size as an input (this is <code>automatic_dynamic_shapes</code>, on by default)”</td><td>✓</td></tr>
# <tr><td>“<code>dynamic=False</code>: always static, one compile per distinct shape.”</td><td>✓</td></tr>
# <tr><td>“a size of 0 or 1 gets a constant instead, even with <code>dynamic=True</code>”</td><td>✓</td></tr>
# <tr><td>“<code>torch._dynamo.decorators.mark_unbacked(x, dim)</code> asks for more: the size becomes an unbacked symbol”</td><td>✓</td></tr>
# <tr><td>“Dynamo traces without knowing its value and guards only that it is not negative”</td><td>✓</td></tr>
# <tr><td>“an <code>if</code> on the size cannot go into the graph (it splits the function at that line, module 11, or raises with <code>fullgraph=True</code>)”</td><td>✓</td></tr>
# <tr><td>“each new value compiles once (two strings that take the same branch still compile twice)”</td><td>✓</td></tr>
# <tr><td>“Python numbers used only in arithmetic behave like sizes: the first value is specialised, the second makes the argument dynamic”</td><td>✓</td></tr>
# <tr><td>“Past <code>recompile_limit</code> (8 by default) the function runs eagerly with a logged warning”</td><td>✓</td></tr>
# <tr><td>“Two <code>torch.compile</code> wrappers of the same function share dynamo&#x27;s cache (it lives on the function&#x27;s code object), so a second wrapper with another backend adds entries that count toward the same limit.”</td><td>✓</td></tr>
# <tr><td>“It refuses a function&#x27;s very first compile too”</td><td>✓</td></tr>
# <tr><td>“<code>&quot;eager_on_recompile&quot;</code>: run that call eagerly instead of compiling; inputs that match a compiled version still run compiled code.”</td><td>✓</td></tr>
# <tr><td>“(a function, a context manager or a decorator)”</td><td>✓</td></tr>
# <tr><td>“<code>torch.compiler.reset()</code> drops every compiled version of every function (and dynamo&#x27;s memory of sizes it has seen)”</td><td>✓</td></tr>
# <tr><td>“A branch that pins that size to one value breaks the promise, and dynamo refuses with a <code>ConstraintViolationError</code>”</td><td>✓</td></tr>
# <tr><td>“Besides the arguments, dynamo guards on global state: grad mode, the thread count (<code>torch.set_num_threads</code>), the default dtype and a few more”</td><td>✓</td></tr>
# <tr><td>“A comparison such as <code>x.shape[0] &gt; 50</code> only adds a guard (the size stays a symbol: this graph serves every size above 50); a branch that pins the size to one value (<code>x.shape[0] == 100</code> taken with a size of 100, or <code>!= 100</code> not taken) makes dynamo raise”</td><td>✓</td></tr>
# <tr><td>“To make hitting the limit an error instead, set <code>torch._dynamo.config.fail_on_recompile_limit_hit = True</code>”</td><td>✓</td></tr>
# <tr><td>“<code>dynamic=True</code> sets <code>assume_static_by_default=False</code>: sizes are symbols from the first compile”</td><td>✓</td></tr>
# <tr><td>“<code>dynamic=False</code> sets <code>automatic_dynamic_shapes=False</code>: each new size recompiles a static graph”</td><td>✓</td></tr>
# <tr><td>“<code>dynamic=None</code> keeps both defaults: static on the first call, automatic dynamic after a recompile caused by a size change”</td><td>✓</td></tr>
# <tr><td>“adds a guard of its own: the size is at least 2, which is how lengths 0 and 1 are sent to other graphs”</td><td>✓</td></tr>
# <tr><td>“<code>torch._dynamo.maybe_mark_dynamic</code> is the same mark without the promise”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/10_recompilation.ipynb](../exercises/10_recompilation.ipynb) ·
# **Previous:** [09 · torch.compile: fusion and overhead](09_compile_fusion.ipynb) ·
# **Next:** [11 · Graph breaks](11_graph_breaks.ipynb)
