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
# *Module 12 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/12_compiling_numpy.ipynb) · previous: [11 · Graph breaks](11_graph_breaks.ipynb) · next: [13 · Case study: genetic-algorithm fitness](13_case_study_ga.ipynb)

# %% tags=["course-setup"] jupyter={"source_hidden": true}
# Course setup. On your own machine this cell installs nothing. On Google Colab it fetches
# the course and installs its helper package, torchcourse, once per session.
# Colab runtime: CPU is enough; a GPU (Runtime > Change runtime type > T4 GPU) also runs the GPU cells.
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
# *Outputs made with torch 2.13.0+cpu on AMD EPYC (2 cores, CPU only), 2026-11-28.*

# %% [markdown]
# # 12 · Compiling NumPy code
#
# `torch.compile` also accepts plain NumPy code. It translates the NumPy calls into PyTorch
# operations, fuses them into one loop (C++ on a CPU, Triton on a GPU) and hands NumPy arrays
# back. You keep your NumPy code; the temporaries NumPy would build disappear. This notebook
# takes one real kernel, the assignment step of K-Means, through every variant: NumPy, the
# same function compiled, float32, tensors in and out, a GPU when there is one, and finally
# a rewrite that is measured against the memory bandwidth of your own machine.
#
# **Objectives.** After this notebook you can:
# 1. compile a NumPy function, check it returns the same answer, and read the code generated
#    for it (`TORCH_LOGS=output_code`);
# 2. predict how dtypes, NumPy scalars and `np.random` behave under compile (NEP 50, 0-d arrays,
#    `numpy_default_float`, torch's random generator) and where they differ from NumPy, and
#    rewrite the NumPy calls that break the graph;
# 3. keep data on the device with a tensor-in, tensor-out function (`torch.compiler.wrap_numpy`);
# 4. compile a loop body rather than a loop;
# 5. compute achieved GB/s, set it beside the memory limit that matches the kernel's traffic
#    (read, write or copy bandwidth, measured on your machine), and explain what limits each
#    variant.
#
# **Prerequisites.** [09 · torch.compile: fusion and overhead](09_compile_fusion.ipynb),
# [04 · Dtypes](04_dtypes.ipynb) (promotion), [11 · Graph breaks](11_graph_breaks.ipynb).
#
# **Time.** 50 min teaching, 50 min exercises.

# %%
import os
import re
import subprocess
import sys
import tempfile

# An empty inductor cache, set before anything compiles: the first compile below is a cold one.
cache_dir = tempfile.mkdtemp(prefix="inductor-12-")  # deleted by the last cell
os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir

import matplotlib.pyplot as plt
import numpy as np
import torch
from torch._dynamo.utils import counters

from torchcourse import claim, gpu_skip_message, pick_device, predict, reveal
from torchcourse.bench.workloads import kmeans as km
from torchcourse.compiletools import captured_logs, compile_counter, compile_stats, needs_compiler, reset
from torchcourse.timing import format_seconds, interleaved, measure, memory_limits, time_once

# %% [markdown]
# ## The workload
#
# K-Means alternates two steps; the expensive one assigns every point to its nearest mean.
# In NumPy it is one line (this is `km.assign_numpy`, the course's single copy of it):
#
# ```python
# def assign_numpy(X, means):
#     return np.argmin(np.linalg.norm(X - means[:, None], axis=2), axis=0)
# ```
#
# The published benchmark ([docs/reference-figures.md](../docs/reference-figures.md),
# section A) uses 20 million 2-D points in two Gaussian blobs around (5, 5) and (10, 10). To
# keep this notebook's run short on a 2-core laptop we use **2 million**; the course's
# benchmark (`make bench`) runs the full 20 million with the same functions.

# %%
N = 2_000_000
X, means = km.make_blobs(N)  # float64, like NumPy's default
labels = km.assign_numpy(X, means)
print("X:", X.shape, X.dtype, "| means:", means.tolist())
print("labels:", labels.shape, labels.dtype, "| points per cluster:", np.bincount(labels).tolist())

# %%
fig, ax = plt.subplots(figsize=(4.2, 4))
sample = slice(None, None, 2000)  # 1,000 of the points
ax.scatter(*X[sample].T, c=labels[sample], cmap="coolwarm", s=6)
ax.scatter(*means.T, c="k", marker="x", s=80, label="means")
ax.plot([2, 13], [13, 2], "k--", lw=0.8, label="equal distance")
ax.set(xlabel="x₀", ylabel="x₁", title="Nearest mean of each point (1 in 2,000 shown)", aspect="equal")
ax.legend(loc="upper left")
plt.show()

# %% [markdown]
# Points left of the dashed line are nearer (5, 5), the rest nearer (10, 10). Now the NumPy
# time, the baseline for everything below:

# %%
# NBVAL_IGNORE_OUTPUT
t_numpy64 = measure(lambda: km.assign_numpy(X, means), repeat=5)
print("NumPy, float64:", t_numpy64)

# %% [markdown]
# ## Compile the NumPy function
#
# Pass the NumPy function to `torch.compile` unchanged. The arrays go in, an array comes out.
# The first call traces, generates C++ and compiles it. The inductor cache this notebook
# started with is empty, so this first compile is **cold** (and, first in the process, it
# also loads the compiler itself). We capture the generated code on the way: `captured_logs`
# switches on the same `output_code` log as `TORCH_LOGS=output_code`, and collects it.

# %%
assign_compiled = km.compiled_numpy()  # torch.compile(km.assign_numpy)
with captured_logs(output_code=True) as logs:
    labels_c, t_first = time_once(lambda: assign_compiled(X, means))
print("returns:", type(labels_c).__name__, labels_c.dtype)
print("same labels as NumPy:", np.array_equal(labels_c, labels))
print("generated kernels:", len(logs.require(r"^cpp_fused\w* = async_compile", "the generated C++ kernel")))

# %% [markdown]
# Now the same compile with a **warm** cache: `reset()` makes torch forget every compiled
# function, but the cache directory on disk keeps the generated kernels, so compiling
# `assign_numpy` again skips the C++ compiler.

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("timing the compiled function, cold, warm and per call")
reset()  # forget compiled functions (and zero torch's counters); the cache on disk stays
_, t_warm = time_once(lambda: torch.compile(km.assign_numpy)(X, means))
t_comp64 = measure(lambda: assign_compiled(X, means), repeat=5)
print(f"first call, cold cache: {format_seconds(t_first)}; warm cache: {format_seconds(t_warm)}")
print("compiled, float64:", t_comp64, f"-> {t_numpy64.min / t_comp64.min:.1f}x NumPy")

# %%
needs_compiler("the claims about inductor's cache and a warm compile")
claim(counters["inductor"]["fxgraph_cache_hit"] >= 1, "the warm compile took its kernel from the inductor cache")
# A cold first call runs the C++ compiler (seconds); a warm one loads a cached kernel (a fraction
# of a second): far more than 2x apart on any CPU.
claim(t_warm < t_first / 2, "with a warm cache the first call takes less than half the cold one")

# %% [markdown]
# One kernel replaces NumPy's chain of temporaries: `X - means[:, None]` (a `(2, N, 2)`
# array), its square, the `(2, N)` distances, then `argmin` over them. Here is the heart of the
# generated loop: a vectorised square root per mean and one store of the labels. The `tmp…`
# are vectors of as many points as one SIMD register holds in float32 (16 with AVX-512, 8
# with AVX2: the vector width inductor picked for your CPU, printed first); a vector of as many
# float64 or int64 values spans two registers:

# %% tags=["version-specific"]
# NBVAL_IGNORE_OUTPUT
needs_compiler("the vector width inductor picks and the loop it generated")
from torch._inductor.cpu_vec_isa import pick_vec_isa

isa = pick_vec_isa()
print(f"vector instructions inductor uses here: {isa or 'none'}, {isa.nelements() if isa else 1} float32 per vector")
signature = logs.require(r'extern "C"', "the C++ kernel's signature")[0]
kernel = logs.text[logs.text.index(signature) :]
body = [line.strip() for line in kernel.splitlines() if ".sqrt()" in line or "store(out_ptr0" in line]
claim(body, "the generated loop has square roots and a store of the labels", show=False)
print("\n".join(body))

# %% [markdown]
# Outside a notebook this log is one environment variable away:
# `TORCH_LOGS=output_code python your_script.py` prints every generated kernel to stderr
# (`torch._logging.set_logs(output_code=True)` does the same from inside a script). The next
# cell runs a three-line script that way, in a fresh process (a few seconds), and counts the
# kernels in what it printed:

# %%
needs_compiler("the kernels a script prints with TORCH_LOGS=output_code")
script = "import numpy as np, torch\nprint(torch.compile(lambda x: np.sqrt(x) + 1)(np.arange(4.0)))"
run = subprocess.run(
    [sys.executable, "-c", script], capture_output=True, text=True, env={**os.environ, "TORCH_LOGS": "output_code"}
)
print("the script printed:", run.stdout.strip())
kernels = re.findall(r"\bcpp_fused\w* = async_compile", run.stderr)  # each log line has a prefix
print("kernels in its stderr:", len(kernels))
claim(kernels, "TORCH_LOGS=output_code printed the generated kernel to stderr")

# %% [markdown]
# ## float64 or float32
#
# NumPy computes in float64 by default. Give the compiled function float32 arrays and it
# computes in float32: half the bytes to read, twice the numbers per SIMD instruction. The
# labels do not change here (no point sits within float32 rounding of the boundary).

# %%
X32, means32 = X.astype(np.float32), means.astype(np.float32)
print("same labels in float32:", np.array_equal(assign_compiled(X32, means32), labels))

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("timing the compiled function in float32")
t_numpy32 = measure(lambda: km.assign_numpy(X32, means32), repeat=5)
t_comp32 = measure(lambda: assign_compiled(X32, means32), repeat=5)
print("NumPy, float32:   ", t_numpy32)
print("compiled, float32:", t_comp32, f"-> {t_numpy32.min / t_comp32.min:.1f}x NumPy float32")

# %% [markdown]
# Arrays that the compiled code *creates* (`np.ones(3)`, `np.linspace`, a mean of booleans)
# get the dtype `torch._dynamo.config.numpy_default_float` names, `"float64"` by default,
# as in NumPy. Set it to `"float32"` to make a whole program float32. One trap, measured in
# torch 2.13: the setting is read **once per process**, the first time compiled code needs a
# default dtype. Here the first use happens with the default, and changing the setting
# afterwards has no effect:


# %%
def plus_ones(x):
    return x + np.ones(3)


z32 = np.zeros(3, np.float32)
before = torch.compile(plus_ones, backend="eager")(z32).dtype
print("default:", before)
torch._dynamo.config.numpy_default_float = "float32"
reset()
after = torch.compile(plus_ones, backend="eager")(z32).dtype
print("set after the first use:", after)
torch._dynamo.config.numpy_default_float = "float64"
claim(before == after == np.float64, "setting numpy_default_float after its first use changed nothing")

# %% [markdown]
# In a fresh process, set before any compile, it works (the cell starts one, which takes a few
# seconds):

# %%
script = """
import numpy as np, torch
torch._dynamo.config.numpy_default_float = "float32"
f = torch.compile(lambda x: x + np.ones(3), backend="eager")
print("set first:", f(np.zeros(3, np.float32)).dtype)
"""
print(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True).stdout.strip())

# %% [markdown]
# ## NumPy semantics under compile: what changes
#
# Compiled NumPy code is run by PyTorch's implementation of the NumPy API, and a few things
# differ from NumPy itself. Each line below runs the same expression eagerly (NumPy) and
# compiled.
#
# **NumPy scalars become 0-d arrays.** `np.int32(2) * [1, 2, 3]`: for NumPy 2 a NumPy
# integer times a list *repeats the list*; compiled, the scalar acts as a 0-d array and the
# list as an array, so you get element-wise multiplication. Results that NumPy returns as
# scalars come back as 0-d arrays.


# %%
def scale(u):
    return u * [1, 2, 3]


def total(x):
    return x.sum()


u = np.int32(2)
print("eager:   ", repr(scale(u)))
print("compiled:", repr(torch.compile(scale, backend="eager")(u)))
x3 = np.arange(3.0)
print("eager:   ", repr(total(x3)))
print("compiled:", repr(torch.compile(total, backend="eager")(x3)))

# %% [markdown]
# **Arrays go in shared, not copied.** The compiled function works on your arrays' memory, as
# the NumPy function does: an in-place operation on an argument changes the caller's array,
# and a slice it returns is a view of the input.
#
# **Predict 12.p1.** `bump` below does `x += 1`, then returns `x * 2`. After the *compiled*
# `bump(a)`, is `a` still all zeros? Write True or False.

# %%
predict("12.p1", None)  # replace None with your prediction


# %%
def bump(x):
    x += 1
    return x * 2


a = np.zeros(3)
torch.compile(bump, backend="eager")(a)  # the default backend (inductor) does the same
still_zeros = bool((a == 0).all())
print("after the compiled bump(a), a =", a)
head = torch.compile(lambda x: x[:2], backend="eager")(a)
print("the returned slice shares memory with a:", np.shares_memory(head, a))
reveal(
    "12.p1",
    still_zeros,
    why="the compiled code reads and writes the caller's array itself, as NumPy does; "
    "copy first (`x = x.copy()`) when the input must stay as it was.",
)
claim(
    not still_zeros and np.shares_memory(head, a),
    "the compiled in-place add changed the caller's array, and the returned slice is a view of it",
)

# %% [markdown]
# **Promotion follows NEP 50.** A Python number is *weak*: it takes the dtype of the array
# it meets (a value that does not fit that dtype at all, such as 1000 for int8, is an error).
# A NumPy scalar is *strong*: it is a typed value and promotes like an array. NumPy 2 follows
# NEP 50 as well, so NumPy and compiled code agree on the cases below, and each shows a
# visible consequence. Adding 100 to an int8 array stays int8 and wraps around past 127; a
# `np.float64` scalar turns a float32 array into float64, where a Python float does not
# (NumPy 1.x looked at the *values* of scalars instead, and kept that last result float32):

# %%
nep50 = {
    "int8 [100, 1] + 100": (lambda a: a + 100, np.array([100, 1], np.int8)),
    "float32 [1, 2] + 1.5": (lambda a: a + 1.5, np.array([1, 2], np.float32)),
    "float32 [1, 2] + np.float64(1.5)": (lambda a: a + np.float64(1.5), np.array([1, 2], np.float32)),
}
results = {}
for name, (fn, arg) in nep50.items():
    eager, compiled = fn(arg), torch.compile(fn, backend="eager")(arg)
    results[name] = (eager.dtype, compiled.dtype)
    print(f"{name:33} eager {eager.tolist()} {eager.dtype}, compiled {compiled.tolist()} {compiled.dtype}")
claim(
    results["int8 [100, 1] + 100"] == (np.int8, np.int8)
    and results["float32 [1, 2] + 1.5"] == (np.float32, np.float32)
    and results["float32 [1, 2] + np.float64(1.5)"] == (np.float64, np.float64),
    "NEP 50 in both: the Python int and float do not widen the arrays, the np.float64 scalar does",
)

# %% [markdown]
# **Where compiled code differs from NumPy:** results that need a *new* float dtype. PyTorch's
# NumPy follows PyTorch's rules there. Dividing integer arrays gives float64 in NumPy and
# float32 compiled (PyTorch's default float, whatever `numpy_default_float` says); the square
# root of int8 values gives NumPy's smallest fitting float, float16, and float64 compiled. The
# values agree; the bytes per element, and the precision, do not. Check dtypes when your code
# turns integers into floats.
#
#
# **Predict 12.p2.** Compiled, what dtype does `np.arange(3) / 2` return? Write `"float32"` or
# `"float64"`.

# %%
predict("12.p2", None)  # replace None with your prediction


# %%
def half(k):
    return np.arange(k) / 2


def root(a):
    return np.sqrt(a)


ints8 = np.arange(3, dtype=np.int8)
differs = {
    "np.arange(3) / 2": (half(3).dtype, torch.compile(half, backend="eager")(3).dtype),
    "np.sqrt(int8 array)": (root(ints8).dtype, torch.compile(root, backend="eager")(ints8).dtype),
}
for name, (eager, compiled) in differs.items():
    print(f"{name:20} eager {eager}, compiled {compiled}")
reveal(
    "12.p2",
    str(differs["np.arange(3) / 2"][1]),
    choices=("float32", "float64"),
    why="true division of integers makes a new float dtype, and compiled NumPy takes PyTorch's default "
    "float for it, float32, not NumPy's float64.",
)
claim(
    differs["np.arange(3) / 2"] == (np.float64, np.float32)
    and differs["np.sqrt(int8 array)"] == (np.float16, np.float64),
    "integer division and the square root of int8 give other float dtypes compiled than in NumPy",
)

# %% [markdown]
# The same holds for **running sums of small integers**, and there the numbers change too.
# NumPy's `np.cumsum` of an int8 array accumulates in int64, and so does torch's own
# `torch.cumsum`. Compiled NumPy keeps the input's dtype (`torch._numpy` passes `dtype=a.dtype`
# when you give none), so the running total wraps past 127 without a word. `np.sum` of int8
# widens to int64 compiled as in NumPy (of uint8 to int64, where NumPy gives uint64);
# `np.cumsum` and `np.cumprod` do not widen at all. Give the accumulator yourself:
# `np.cumsum(a, dtype=np.int64)`.
#
# **Predict 12.p3.** Compiled, what dtype does `np.cumsum` of an int8 array return? Write
# `"int8"`, `"int16"`, `"int32"` or `"int64"`.

# %%
predict("12.p3", None)  # replace None with your prediction


# %%
def running_total(a):
    return np.cumsum(a)


genes = np.ones(300, np.int8)
eager_total = running_total(genes)
compiled_total = torch.compile(running_total, backend="eager")(genes)
widened = torch.compile(lambda a: np.cumsum(a, dtype=np.int64), backend="eager")(genes)
print(f"NumPy:                    {eager_total.dtype}, last value {eager_total[-1]}")
print(f"compiled:                 {compiled_total.dtype}, last value {compiled_total[-1]}")
print(f"compiled, dtype=np.int64: {widened.dtype}, last value {widened[-1]}")
reveal(
    "12.p3",
    str(compiled_total.dtype),
    choices=("int8", "int16", "int32", "int64"),
    why="torch._numpy's cumsum keeps the input's dtype when none is given, unlike NumPy and torch.cumsum "
    "(both int64), so 300 ones end at 300 - 256 = 44.",
)
claim(
    eager_total[-1] == 300 and compiled_total.dtype == np.int8 and compiled_total[-1] == 44 and widened[-1] == 300,
    "compiled, np.cumsum of int8 stayed int8 and wrapped; with dtype=np.int64 it matched NumPy",
)

# %% [markdown]
# ## `np.random` under compile: torch's generator
#
# Compiled, `np.random.rand` is not NumPy's function but PyTorch's version of it in
# `torch._numpy.random`: it fills a tensor from **torch's** random generator, and
# `np.random.seed(s)` there calls `torch.manual_seed(s)`. NumPy's own generator is never read.
# The same seed therefore gives other numbers than NumPy. The `eager` backend runs the traced
# torch operations as they are, so its numbers are those of `torch.rand` after
# `torch.manual_seed(0)`:


# %%
def draw(n):
    np.random.seed(0)
    return np.random.rand(n)


numpy_draw = draw(3)
compiled_draw = torch.compile(draw, backend="eager")(3)
torch.manual_seed(0)
torch_draw = torch.rand(3, dtype=torch.float64).numpy()
print(f"{'NumPy:':39}", np.round(numpy_draw, 4))
print(f"{'compiled:':39}", np.round(compiled_draw, 4))
print(f"{'torch.manual_seed(0), then torch.rand:':39}", np.round(torch_draw, 4))
claim(
    not np.allclose(numpy_draw, compiled_draw) and np.array_equal(compiled_draw, torch_draw),
    "with the same seed, the compiled function drew torch's numbers, not NumPy's",
)

# %% [markdown]
# With the default backend the numbers can differ again: for `np.random.randn` inductor
# generates its own random-number code, seeded from torch's generator on every call. What holds
# for every backend: to make compiled NumPy code reproducible, seed **torch** before the call.
# `np.random.seed` outside the compiled function seeds only NumPy's generator, which the
# compiled code never reads:


# %%
def jitter(x):
    return x + 0.1 * np.random.randn(*x.shape)


jitter_compiled = torch.compile(jitter)  # inductor: one real compile
zeros4 = np.zeros(4)
np.random.seed(1)
a = jitter_compiled(zeros4)
np.random.seed(1)
b = jitter_compiled(zeros4)
torch.manual_seed(1)
c = jitter_compiled(zeros4)
torch.manual_seed(1)
d = jitter_compiled(zeros4)
print("np.random.seed(1) before each call, same numbers:   ", np.array_equal(a, b))
print("torch.manual_seed(1) before each call, same numbers:", np.array_equal(c, d))
claim(
    not np.array_equal(a, b) and np.array_equal(c, d),
    "only torch.manual_seed makes two calls of the compiled function draw the same numbers",
)

# %% [markdown]
# Only the functions `torch._numpy.random` implements are traced this way: `seed`, `rand`,
# `randn`, `random_sample` (and its names `random` and `sample`), `uniform`, `normal`,
# `randint`, `choice` and `shuffle`. Any other `np.random` call, such as
# `np.random.standard_normal` or a `np.random.default_rng()` generator, is not traced: it breaks
# the graph and runs in NumPy, with NumPy's numbers (the next section shows such breaks).
#
# `torch._dynamo.config.use_numpy_random_stream = True` asks for NumPy's numbers everywhere:
# dynamo then refuses to trace every `np.random` call and breaks the graph there, so NumPy
# itself draws them. You get NumPy's stream at the price of a break per call:


# %%
def noisy_total(x):
    y = x * 2
    z = y + np.random.rand(3)
    return z.sum()


torch._dynamo.config.use_numpy_random_stream = True
reset()
counter = compile_counter()
with captured_logs(graph_breaks=True) as logs:
    np.random.seed(0)
    streamed = torch.compile(noisy_total, backend=counter)(np.ones(3))
torch._dynamo.config.use_numpy_random_stream = False
breaks = compile_stats()["graph_breaks"]
reset()
np.random.seed(0)
in_numpy = noisy_total(np.ones(3))
logs.require("use_numpy_random_stream", "the reason dynamo gives for the break")
print(f"graphs: {counter.frame_count}, graph breaks: {breaks}")
print("same number as NumPy with the same seed:", bool(np.isclose(streamed, in_numpy)))
claim(
    counter.frame_count == 2 and breaks == 1 and np.isclose(streamed, in_numpy),
    "with use_numpy_random_stream the np.random call broke the graph and drew NumPy's numbers",
)

# %% [markdown]
# ## NumPy code that breaks the graph
#
# `torch._numpy` implements most of NumPy's array functions, not all of them. Three kinds of
# code end a graph: a NumPy function it lacks (in torch 2.13 `np.polyval`, `np.isin`,
# `np.digitize`, `np.partition` and `np.trapezoid`, among others), a dtype a tensor cannot
# hold (strings, Python objects), and a method whose result is not an array (`.tolist()` of
# floats). Dynamo runs such a call in plain NumPy and compiles the code before and after it as
# separate graphs, so nothing fuses across it. `compile_stats()` counts graphs and breaks, and
# the captured `graph_breaks` log says why:


# %%
def features(x):
    z = (x - x.mean()) / x.std()
    p = np.polyval([0.5, -1.0, 2.0], z)  # 0.5 z² - z + 2
    return np.isin(np.round(p), [2.0, 3.0])


xs = np.linspace(-2, 3, 11)
reset()
with captured_logs(graph_breaks=True) as logs:
    flags = torch.compile(features, backend=compile_counter())(xs)
stats = compile_stats()
print(f"graphs: {stats['unique_graphs']}, graph breaks: {stats['graph_breaks']}")
print("same as NumPy:", np.array_equal(flags, features(xs)))
claim(stats["graph_breaks"] == 2, "each of the two NumPy functions missing from torch._numpy broke the graph")

# %% tags=["version-specific"]
reasons = logs.require(r"Can't find numpy", "the break reasons")
print("missing from torch._numpy:", re.findall(r"<function (\w+) at", "\n".join(reasons)))

# %% [markdown]
# A string or object dtype and a `.tolist()` of floats break the graph the same way, and so does
# an `np.random` function `torch._numpy.random` lacks:

# %%
others = {
    "(x * 2).astype(str)": lambda x: (x * 2).astype(str),
    "np.array((x * 2).tolist()) + 1": lambda x: np.array((x * 2).tolist()) + 1,
    "x + np.random.standard_normal(x.shape)": lambda x: x + np.random.standard_normal(x.shape),
}
broke = {}
for name, fn in others.items():
    reset()
    with captured_logs():
        torch.compile(fn, backend=compile_counter())(xs)
    broke[name] = compile_stats()["graph_breaks"]
    print(f"{name:40} graph breaks: {broke[name]}")
claim(all(n >= 1 for n in broke.values()), "each of these broke the graph")

# %% [markdown]
# To keep one graph, write the same computation with functions `torch._numpy` has. A polynomial
# is a few multiplications and additions (Horner's rule); membership in a short list is a
# broadcast comparison with every value, then `any`:


# %%
def features_one_graph(x):
    z = (x - x.mean()) / x.std()
    p = (0.5 * z - 1.0) * z + 2.0  # Horner's rule for 0.5 z² - z + 2
    return (np.round(p)[:, None] == np.array([2.0, 3.0])).any(axis=1)


reset()
flags = torch.compile(features_one_graph, backend=compile_counter())(xs)
stats = compile_stats()
print(f"graphs: {stats['unique_graphs']}, graph breaks: {stats['graph_breaks']}")
print("same as the NumPy original:", np.array_equal(flags, features(xs)))
claim(
    stats == {"unique_graphs": 1, "graph_breaks": 0} and np.array_equal(flags, features(xs)),
    "the rewrite compiles into one graph with no break and gives the same answer",
)

# %% [markdown]
# ## Tensors in, tensors out: keep the data on the device
#
# The compiled function takes NumPy arrays, which live in CPU memory. On a GPU that means a
# copy to the device and back on every call. The fix is a function that takes and returns
# tensors and calls `.numpy()` *inside* the compiled region: there `.numpy()` is traced, not
# executed, so the data stays where it is (`km.assign_tensors`):
#
# ```python
# def assign_tensors(X, means):
#     return torch.from_numpy(assign_numpy(X.numpy(), means.numpy()))
# ```

# %%
Xt, means_t = torch.from_numpy(X32), torch.from_numpy(means32)  # shares memory, no copy
assign_t = km.compiled_tensors()
labels_t = assign_t(Xt, means_t)
print("returns:", type(labels_t).__name__, labels_t.dtype, labels_t.device)
print("same labels:", torch.equal(labels_t, torch.from_numpy(labels)))

# %% [markdown]
# PyTorch ships that wrapper: the decorator `torch.compiler.wrap_numpy` turns a NumPy function
# into a tensor-in, tensor-out one. It is meant to be compiled with `fullgraph=True`: only then
# does the NumPy code run as torch operations, on the tensors' own device and with autograd.
# Called without `torch.compile`, the wrapper converts CPU tensors to NumPy arrays and back and
# NumPy runs the code; a tensor that requires grad or lives on a GPU is refused, as `.numpy()`
# refuses it.


# %%
@torch.compile(fullgraph=True)
@torch.compiler.wrap_numpy
def assign_wrapped(X, means):
    return np.argmin(np.linalg.norm(X - means[:, None], axis=2), axis=0)


labels_w = assign_wrapped(Xt, means_t)
print("wrap_numpy returns:", type(labels_w).__name__, labels_w.dtype, labels_w.device)
print("same labels:", torch.equal(labels_w, labels_t))
claim(
    isinstance(labels_w, torch.Tensor) and torch.equal(labels_w, labels_t),
    "wrap_numpy made the NumPy function take and return tensors",
)


# %% [markdown]
# Tensors in means autograd works through NumPy code too: the gradient of
# `np.sum(a * a)` is `2a`.


# %%
@torch.compile(fullgraph=True, backend="eager")
@torch.compiler.wrap_numpy
def sum_of_squares(a):
    return np.sum(a * a)


v = torch.arange(4.0, requires_grad=True)
sum_of_squares(v).backward()
print("gradient through NumPy code:", v.grad.tolist())
claim(torch.equal(v.grad, 2 * v.detach()), "the gradient through the NumPy function is 2a")

# %% [markdown]
# On a CUDA machine the next cell times the three GPU variants of the published benchmark:
# NumPy arrays in and out under `torch.device("cuda")` (compiled code runs on the GPU, the
# arrays are copied there and back), and tensors kept on the GPU. Here it says what it
# skipped.

# %%
# NBVAL_IGNORE_OUTPUT
device = pick_device()
skip = gpu_skip_message("the CUDA timings of the K-Means step")
if skip or device.type != "cuda":
    print(skip or f"The published CUDA variants need CUDA; this machine has {device.type}: skipped.")
else:
    reset()
    numpy_on_gpu = torch.compile(km.assign_numpy)
    with torch.device("cuda"):
        numpy_on_gpu(X32, means32)
        t_gpu_np = measure(lambda: numpy_on_gpu(X32, means32), device="cuda", repeat=5)
    Xg, mg = Xt.cuda(), means_t.cuda()
    on_gpu = torch.compile(km.assign_tensors)
    print("GPU tensors agree:", torch.equal(on_gpu(Xg, mg).cpu(), labels_t))
    t_gpu_t = measure(lambda: on_gpu(Xg, mg), device="cuda", repeat=5)
    print("CUDA, NumPy arrays in and out:", t_gpu_np, f"-> {t_numpy32.min / t_gpu_np.min:.0f}x NumPy float32")
    print("CUDA, tensors stay on the GPU:", t_gpu_t, f"-> {t_numpy32.min / t_gpu_t.min:.0f}x NumPy float32")

# %% [markdown]
# ## Compile the loop body, not the loop
#
# Dynamo *unrolls* Python loops: a function that runs 8 iterations of K-Means becomes a graph
# holding 8 copies of the iteration. The number of iterations is baked into the graph, so a
# different number compiles a new graph. One compiled function, one counter, three iteration
# counts, then one of them again:


# %%
def kmeans_fit(X, means, iters):
    for _ in range(iters):
        labels = np.argmin(np.linalg.norm(X - means[:, None], axis=2), axis=0)
        onehot = labels == np.arange(len(means))[:, None]  # (k, n) booleans
        means = (onehot @ X) / onehot.sum(axis=1, keepdims=True)
    return means


def kmeans_iteration(X, means):
    labels = np.argmin(np.linalg.norm(X - means[:, None], axis=2), axis=0)
    onehot = labels == np.arange(len(means))[:, None]
    return (onehot @ X) / onehot.sum(axis=1, keepdims=True)


# %% [markdown]
# **Predict 12.p4.** The cell calls the compiled `kmeans_fit` with 2, 4, 8 and then 4 iterations
# again. How many graphs does Dynamo compile in all? Write a whole number.

# %%
predict("12.p4", None)  # replace None with your prediction

# %%
Xs, start = X[::1000], np.array([[4.0, 6.0], [9.0, 8.0]])  # 2,000 points, poor first means
counter = compile_counter()
fit = torch.compile(kmeans_fit, backend=counter)
for iters in (2, 4, 8, 4):
    ops_before = counter.op_count
    fit(Xs, start, iters)
    print(
        f"whole loop, {iters} iterations: graphs compiled so far {counter.frame_count}, "
        f"operations added {counter.op_count - ops_before}"
    )
reveal(
    "12.p4",
    counter.frame_count,
    why="the loop is unrolled, so the iteration count is part of the graph: 2, 4 and 8 each compile one; "
    "the second 4 finds its graph already compiled.",
)
claim(counter.frame_count == 3, "each new iteration count compiled a new graph; a count seen before did not")

# %% [markdown]
# Compile the body instead, and keep the loop in Python: one small graph, whatever the number
# of iterations, compiled once.

# %%
counter = compile_counter()
step = torch.compile(kmeans_iteration, backend=counter)
m = start
for _ in range(8):
    m = step(Xs, m)
print(f"loop body: {counter.frame_count} graph, {counter.op_count} operations")
print("same means as the unrolled loop:", np.allclose(m, kmeans_fit(Xs, start, 8)))
print("means after 8 iterations:", np.round(m, 1).tolist())
claim(counter.frame_count == 1, "the loop body compiled once for all 8 iterations")

# %% [markdown]
# ## The roofline: how close to the memory limit?
#
# The assignment step does a few arithmetic operations per point and must read every point
# once, so at best it is limited by memory traffic. The least traffic any implementation needs
# is "read X once, write one label per point": `km.min_bytes` computes it (24 bytes a point for
# float64 in and int64 out, 8 + 8 = 16 in float32).
#
# Which memory limit a kernel is held against depends on its mix of reads and writes. A kernel
# that only reads is held against the read bandwidth (measured with a large sum), one that only
# writes against the write bandwidth (a large fill), one that does both against the copy
# bandwidth (a large `copy_`, its bytes read and written counted together).
# `torchcourse.timing.memory_limits()` measures the three now, on 256 MiB buffers, larger than
# the caches of most CPUs, with all the threads torch uses:

# %%
# NBVAL_IGNORE_OUTPUT
limits = memory_limits()
print(
    f"read {limits.read_GBps:.1f} GB/s, write {limits.write_GBps:.1f} GB/s, "
    f"copy {limits.copy_GBps:.1f} GB/s (read + write), {torch.get_num_threads()} threads"
)

# %% [markdown]
# `Limits.for_traffic(bytes_read, bytes_written)` picks the limit that matches: the read limit
# when a kernel writes less than a tenth of what it reads, the write limit the other way round,
# the copy limit in between. Every K-Means variant writes at least one byte per eight it reads,
# so all of them are held against the copy limit:

# %%
for name, xd, od in [("float64 in, int64 out", np.float64, np.int64), ("float32 in, int8 out", np.float32, np.int8)]:
    read, written = 2 * np.dtype(xd).itemsize, np.dtype(od).itemsize
    print(f"{name}: {read} B read, {written} B written a point -> the {limits.for_traffic(read, written)[0]} limit")
copy_limit = limits.copy_GBps

# %% [markdown]
# The copy figure includes a cost that a kernel writing little hardly pays: before a CPU core
# stores to a line of memory it usually reads that line in first (write-allocate), so a copy
# moves more bytes than it counts. A kernel that reads 8 bytes and writes 1 can therefore pass
# the copy line straight from main memory, on its way to the read line.
#
# The course's rewrite, `km.assign_rows`, goes after each cost in turn (its docstring has the
# derivation):
#
# * **no temporaries and no square root**: the nearest mean maximises the linear score
#   `x·m_j − |m_j|²/2`, two multiply-adds per mean; ordering by distance needs no `sqrt`;
# * **int8 labels instead of int64**: 1 byte written per point instead of 8, so 9 bytes a
#   point in float32 instead of 16;
# * **an output buffer you pass in**: give the same `out` on every call and the step
#   allocates nothing (what that is worth depends on the size of the output: measured below);
# * **SIMD loads of interleaved pairs**: `X[:, 0]` is a stride-2 view, and the compiled NumPy
#   loop fills each vector from it one float at a time (a small loop that copies every other
#   float into a buffer on the stack, then one vector load from the buffer). A float32 pair is
#   one 64-bit word, so the rewrite loads `X` as int64 (contiguous, vectorised) and splits each
#   word into its two floats: a mask or a shift, then a bit cast from int32 to float32.
#
# A copy into another layout removes even that split; it pays off when the data is read many
# times afterwards (module 03), and K-Means reads the same points once per iteration:
#
# * **store the points as columns**: `km.to_columns(X)` copies the `(n, 2)` points into a
#   `(2, n)` tensor, one contiguous row per coordinate. The same loop then loads two plain
#   float32 vectors. The copy is paid once per fit, not once per step. `km.assign_best` takes
#   the columns.
#
# Both must agree with NumPy exactly. The cell keeps the code inductor generates for the two:

# %%
out = torch.empty(N, dtype=torch.int8)
with captured_logs(output_code=True) as rows_logs:
    by_rows = km.assign_rows(Xt, means_t, out)
print("rows: same labels as NumPy:", torch.equal(by_rows.long(), torch.from_numpy(labels)))
print("wrote into the buffer we passed:", by_rows.data_ptr() == out.data_ptr(), by_rows.dtype)
columns, t_columns = time_once(lambda: km.to_columns(Xt))
print("columns:", tuple(Xt.shape), "->", tuple(columns.shape), "strides", columns.stride())
with captured_logs(output_code=True) as columns_logs:
    best = km.assign_best(columns, means_t, out)
print("columns: same labels as NumPy:", torch.equal(best.long(), torch.from_numpy(labels)))

# %% [markdown]
# ### Rows or columns: the same bytes, different work per point
#
# Both versions read 8 bytes and write 1 byte a point. What differs is the work a core does to
# turn those bytes into two vectors of coordinates. From columns: two vector loads. From rows:
# two int64 vector loads, a mask and a shift, a narrowing to int32, and the bit cast, for which
# inductor (torch 2.13) has no vector form. An operation without one is done one lane at a time:
# the vector is stored to a buffer on the stack, each lane is converted, and the result is
# loaded back as a vector. Here are those lines in the two kernels compiled above:

# %% tags=["version-specific"]
# NBVAL_IGNORE_OUTPUT
print("rows:")
for line in dict.fromkeys(line.strip() for line in rows_logs.grep(r"loadu\(in_ptr|tmpbuf|bit_cast")):
    print("   ", line)
print("columns:")
for line in dict.fromkeys(line.strip() for line in columns_logs.grep(r"loadu\(in_ptr|tmpbuf|bit_cast")):
    print("   ", line)
rows_lane_by_lane = rows_logs.require(r"bit_cast<float>\(tmpbuf", "the rows kernel's bit cast")
claim(
    rows_lane_by_lane and not columns_logs.grep(r"bit_cast|tmpbuf"),
    "the rows kernel bit-casts one lane at a time through a stack buffer; the columns kernel loads plain vectors",
    show=False,
)

# %% [markdown]
# Whether that extra work costs time is decided by your CPU, not by the bytes. A core that is
# waiting for memory anyway has time to spare for a few more instructions per point. And how
# fast a load gets bytes that were just stored (store-to-load forwarding) differs between
# micro-architectures: some hand them over at once, others make the load wait, for example
# when it spans several smaller stores. So the ranking of rows and columns is your machine's.
# On the Intel Xeon that made the course's first outputs the columns ran 3.3x faster than the
# rows; on a 2-core AMD EPYC, at the published 20 million points, the two were within 3% of each
# other (rows 6.09 ms, columns 6.24 ms). The cells below measure yours.

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("the table of compiled variants' times and GB/s")
t_rows_fresh = measure(lambda: km.assign_rows(Xt, means_t), repeat=7)
t_rows = measure(lambda: km.assign_rows(Xt, means_t, out), repeat=7)
t_best = measure(lambda: km.assign_best(columns, means_t, out), repeat=7)
rows = [  # name, timing, dtype in, dtype out
    ("NumPy float64", t_numpy64, np.float64, np.int64),
    ("NumPy float32", t_numpy32, np.float32, np.int64),
    ("compiled NumPy float64", t_comp64, np.float64, np.int64),
    ("compiled NumPy float32", t_comp32, np.float32, np.int64),
    ("rows, fresh int8 output", t_rows_fresh, np.float32, np.int8),
    ("rows, reused int8 output", t_rows, np.float32, np.int8),
    ("columns, reused int8", t_best, np.float32, np.int8),
]
achieved = {}
print(f"{'variant':26} {'min time':>10} {'vs NumPy64':>10} {'B/point':>8} {'GB/s':>6} {'of copy':>8}")
for name, t, xd, od in rows:
    gbps = km.min_bytes(N, xd, od) / t.min / 1e9
    achieved[name] = gbps
    print(
        f"{name:26} {format_seconds(t.min):>10} {t_numpy64.min / t.min:>9.1f}x "
        f"{km.min_bytes(1, xd, od):>8} {gbps:>6.2f} {gbps / copy_limit:>7.0%}"
    )
print(f"one-off to_columns copy: {format_seconds(t_columns)} = {t_columns / t_best.min:.0f} steps on columns")
print(f"a fresh int8 output on every call took {t_rows_fresh.min / t_rows.min - 1:+.0%} against the reused buffer")

# %% [markdown]
# GB/s here counts only the unavoidable bytes (NumPy really moves several times more through
# its temporaries, which is exactly why it is slow). The table ran on all of torch's threads,
# one variant after the other. For comparisons, the next cell times the variants again on one
# thread, taking turns, so that a busy moment on your machine slows them all alike. Changing
# torch's thread count makes each compiled function compile once more (dynamo's guards include
# the thread count: the recompile log says `GLOBAL_STATE changed: num_threads`); each
# contender's untimed warm-up call pays for that, so the cell takes a few seconds:


# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("timing the compiled variants on one thread")


def calls(fn, k):
    """fn called k times: a longer timed unit for the fast variants."""
    return lambda: [fn() for _ in range(k)]


one_thread = dict(
    zip(
        ["NumPy float64", "compiled NumPy float64", "compiled NumPy float32", "rows", "columns"],
        interleaved(
            [
                lambda: km.assign_numpy(X, means),
                calls(lambda: assign_compiled(X, means), 5),
                calls(lambda: assign_compiled(X32, means32), 5),
                calls(lambda: km.assign_rows(Xt, means_t, out), 5),
                calls(lambda: km.assign_best(columns, means_t, out), 5),
            ],
            rounds=5,
            threads=1,
        ),
    )
)
for name in one_thread:
    one_thread[name] /= 1 if name == "NumPy float64" else 5
    print(f"{name:24} {format_seconds(one_thread[name]):>9} per call, one thread")
ratio = one_thread["rows"] / one_thread["columns"]
print(
    f"rows vs columns on this machine: rows take {ratio:.2f}x the time of columns"
    + (" (within 10%: the extra work per point hides here)" if 0.9 < ratio < 1.1 else "")
)

# %%
# NumPy makes four passes through temporaries; the compiled loop one: >4x on any CPU, one thread.
needs_compiler("the claims about the compiled variants' speed")
claim(
    4 * one_thread["compiled NumPy float64"] < one_thread["NumPy float64"],
    "compiled, the float64 step is more than 4x faster than NumPy",
    f"one thread: compiled {format_seconds(one_thread['compiled NumPy float64'])}, "
    f"NumPy {format_seconds(one_thread['NumPy float64'])}",
)
# float32 reads half the bytes and computes twice the points per instruction, with the same
# loop: faster on any CPU.
claim(
    one_thread["compiled NumPy float32"] < one_thread["compiled NumPy float64"],
    "compiled, float32 is faster than float64",
    f"one thread: float32 {format_seconds(one_thread['compiled NumPy float32'])}, "
    f"float64 {format_seconds(one_thread['compiled NumPy float64'])}",
)
# The columns loop does strictly less than compiled NumPy float32: the same reads, 1 byte
# written instead of 8, no gathers, no square roots. Faster on any CPU.
claim(
    one_thread["columns"] < one_thread["compiled NumPy float32"],
    "the rewrite on columns is faster than compiled NumPy float32",
    f"one thread: columns {format_seconds(one_thread['columns'])}, "
    f"compiled NumPy float32 {format_seconds(one_thread['compiled NumPy float32'])}",
)
# NumPy sits at 1% of the copy limit wherever it was measured: a 10x margin.
claim(
    max(achieved["NumPy float64"], achieved["NumPy float32"]) < 0.1 * copy_limit,
    "NumPy reaches less than a tenth of the copy bandwidth",
)

# %% [markdown]
# The same numbers as a picture, against the copy limit and the read limit:

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("the plot of the compiled variants' GB/s")
fig, ax = plt.subplots(figsize=(7, 3))
names = list(achieved)
ax.barh(names, [achieved[n] for n in names], color=["#999999"] * 2 + ["#4c72b0"] * 2 + ["#dd8452"] * 2 + ["#55a868"])
ax.axvline(copy_limit, color="k", ls="--", label=f"copy limit ({copy_limit:.1f} GB/s)")
ax.axvline(limits.read_GBps, color="k", ls=":", label=f"read limit ({limits.read_GBps:.1f} GB/s)")
ax.set(xlabel="achieved GB/s (minimum bytes / time)", title=f"K-Means assignment, {N:,} points")
ax.invert_yaxis()
ax.legend(loc="lower right", fontsize=8)
plt.show()

# %% [markdown]
# What limits each variant:
#
# * **NumPy** makes four passes over memory with temporaries several times the size of `X`,
#   one operation at a time, on one core. It is far below the line whatever the dtype.
# * **Compiled NumPy** fuses everything into one pass over `X`, with no temporaries; that is
#   one source of its factor over NumPy; running on all cores is the other (the published
#   figures, 9x on one core and 57x on 32, show both; this notebook does not measure the
#   split). What remains: a `sqrt` per point and mean,
#   stride-2 gathers of the coordinates, and an int64 output: 8 of the 16 bytes a point it
#   moves in float32 are labels written.
# * **The rewrite on rows** reads 8 bytes and writes 1 byte a point, with two multiply-adds
#   per mean, plus the split of each pair done one lane at a time. Whether that split keeps it
#   behind the columns is your CPU's answer (the one-thread line above).
# * **The rewrite on columns** moves the same bytes with nothing left to do per point but the
#   arithmetic. Its share of the copy limit can pass 100% for two reasons: it writes 1 byte per 8
#   it reads, so it pays little of the write-allocate cost that the copy figure includes; and
#   this notebook's 2 million points (16 MB) may stay in your CPU's cache from one call to the
#   next. Only a sweep over sizes tells which, on your machine.
#
# ### Where the bytes come from: a sweep over sizes (optional)
#
# A kernel limited by memory runs faster while its data fits in the CPU's caches, which deliver
# bytes faster than main memory, and falls to the main-memory limit once the data is several
# times larger than the last-level cache. A kernel limited by its own instructions runs at the
# same GB/s at every size. The cell below runs both rewrites on the first 2¹⁷ to 40·2²⁰ points
# (1.1 MiB to 360 MiB of traffic) of a larger sample, on one thread, taking turns, beside the
# one-thread read and copy limits and the cache sizes Linux reports. (At the smallest sizes a
# call's fixed cost, a few microseconds of Python and dispatch, is a good part of the time.)

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("the compiled rewrites' GB/s over sizes")
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


caches = cache_sizes()
print("caches:", caches or "not reported on this system")
BIG = 40 * 2**20  # points: 320 MiB of float32 pairs
X_big = torch.randn(BIG, 2, generator=torch.Generator().manual_seed(1)) * 2 + 7.5
threads = torch.get_num_threads()
torch.set_num_threads(1)
limits_1 = memory_limits()
sweep = {}
print(f"{'traffic':>11s} {'rows':>6s} {'columns':>8s}  (GB/s, one thread)   rows/columns time")
for n in [2**k for k in range(17, 26)] + [BIG]:
    X_n = X_big[:n]
    C_n = km.to_columns(X_n)
    out_n = torch.empty(n, dtype=torch.int8)
    t_r, t_c = interleaved(
        [lambda: km.assign_rows(X_n, means_t, out_n), lambda: km.assign_best(C_n, means_t, out_n)],
        number=max(1, 2**22 // n),
        rounds=5,
    )
    sweep[n] = (9 * n / t_r / 1e9, 9 * n / t_c / 1e9)
    print(f"{9 * n / 2**20:7.1f} MiB {sweep[n][0]:6.1f} {sweep[n][1]:8.1f} {t_r / t_c:22.2f}x")
torch.set_num_threads(threads)
print(
    f"one-thread limits: read {limits_1.read_GBps:.1f} GB/s, copy {limits_1.copy_GBps:.1f} GB/s; "
    f"this notebook's {N:,} points are {9 * N / 2**20:.0f} MiB of traffic"
)

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("the plot of the compiled rewrites' GB/s over sizes")
mib = [9 * n / 2**20 for n in sweep]
fig, ax = plt.subplots(figsize=(7, 3.4))
ax.plot(mib, [v[0] for v in sweep.values()], "o-", color="#dd8452", label="rows")
ax.plot(mib, [v[1] for v in sweep.values()], "o-", color="#55a868", label="columns")
ax.axhline(limits_1.read_GBps, color="k", ls=":", label="read limit, one thread")
ax.axhline(limits_1.copy_GBps, color="k", ls="--", label="copy limit, one thread")
for level, size in caches.items():
    if level in ("L2", "L3") and size.endswith("K"):
        ax.axvline(int(size[:-1]) / 1024, color="grey", lw=0.8)
        ax.text(int(size[:-1]) / 1024, ax.get_ylim()[1] * 0.95, f" {level}", color="grey", fontsize=8, va="top")
ax.axvline(9 * N / 2**20, color="#4c72b0", lw=0.8, ls="-.", label=f"{N:,} points")
ax.set(
    xscale="log",
    xlabel="MiB of traffic per call (9 B a point)",
    ylabel="GB/s",
    title="The two rewrites by size, one thread",
)
ax.legend(fontsize=7, loc="best")
plt.show()

# %% [markdown]
# Read the two lines beside your cache sizes (grey). Where both lines fall once the traffic is
# several times your last-level cache, the fall is the cache at work; the right-hand end is
# main memory. Compare that end with the one-thread read and copy limits: one core alone may not
# keep main memory busy, and the rewrite, which mostly reads, can sit above the copy line there.
# Where the rows line stays below the columns line at every size, your core pays for the
# lane-by-lane split; where the two meet at the right-hand end, memory hides it there. The
# dash-dot line marks this notebook's 2 million points: left of your last-level cache, the table's share
# of the copy limit above counts cache, not main memory.
#
# ### A fresh output, or one you pass in (optional)
#
# What a fresh output costs depends on its size (module 09 measures it). On Linux, glibc's
# `malloc` first looks for a free stretch its heap already holds. A block above its *mmap
# threshold* (128 KiB at first, rising up to 32 MiB) that does not fit there gets fresh pages
# from the operating system, which go back when the block is freed, so each such call pays one
# page fault per 4 KiB page on first touch. A freed block below the
# threshold stays with the process and is often handed straight back to the next call, its
# pages in place (often, not always: glibc also returns free memory at the top of its heap to
# the system). The rewrite's int8 output is 2 MB at this notebook's 2 million points, 40 MiB at
# the sweep's largest size. The cell counts the page faults of three calls with a fresh output
# (`resource.getrusage`, Linux and macOS) and times fresh against reused on one thread, taking
# turns:

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("timing the compiled rewrite with a fresh and a reused output")
from torchcourse.timing import page_faults  # minor page faults of one call (None off Linux/macOS)

for n, X_n in [(N, Xt), (BIG, X_big)]:
    out_n = out if n == N else torch.empty(n, dtype=torch.int8)
    t_fresh, t_reused = interleaved(
        [lambda: km.assign_rows(X_n, means_t), lambda: km.assign_rows(X_n, means_t, out_n)],
        number=max(1, 2**22 // n),
        rounds=5,
        threads=1,
    )
    faults = [page_faults(lambda: km.assign_rows(X_n, means_t)) for _ in range(3)]
    print(
        f"{n:>10,} points, {n / 2**20:4.0f} MiB int8 output: fresh {format_seconds(t_fresh)}, "
        f"reused {format_seconds(t_reused)} ({t_fresh / t_reused:.2f}x); page faults of three calls "
        f"with a fresh output: {faults if faults[0] is not None else 'not counted'}"
    )
X_big = X_n = C_n = out_n = None  # free the 640 MiB of the sweep

# %% [markdown]
# Above the threshold a call faults in every page of its output (a 40 MiB output is
# 10,240 pages; the three counts above are yours), and a fresh output costs a multiple of a reused one. Below it, the count is
# often zero and a fresh output costs about what a reused one does. On other systems the
# allocator draws the line elsewhere. Compiled NumPy returns a fresh int64 array: 16 MB at 2 million
# points, 160 MB at the published 20 million.
#
# ### Our numbers beside the published ones
#
# The published figures (Quansight / PyTorch blog, PyTorch 2.1, 20M points) are for other
# hardware; compare the *factors*, not the times.

# %%
# NBVAL_IGNORE_OUTPUT
from IPython.display import Markdown

needs_compiler("this run's factors for the compiled variants, beside the published ones")
ours = lambda t: f"{t_numpy64.min / t.min:.0f}x"  # noqa: E731
Markdown(
    "\n".join(
        [
            "| variant | published (AMD 3970X, 32 cores; RTX 2060) | this run ("
            + f"{torch.get_num_threads()} threads, {N:,} points) |",
            "|---|---|---|",
            f"| NumPy float64 | 1.26 s (20M points) | {format_seconds(t_numpy64.min)} |",
            f"| compiled NumPy | 9x on 1 core, 57x on 32 cores | {ours(t_comp64)} (float64), {ours(t_comp32)} (float32) |",
            f"| course's rewrite, rows, float32, int8, reused output | not published | {ours(t_rows)}, {achieved['rows, reused int8 output'] / copy_limit:.0%} of the copy limit |",
            f"| course's best: the rewrite on columns | not published | {ours(t_best)}, {achieved['columns, reused int8'] / copy_limit:.0%} of the copy limit |",
            "| CUDA, NumPy arrays in and out | 8x (float64), 11x (float32) | see the CUDA cell |",
            "| CUDA, tensors kept on the GPU, float32 | 200x over NumPy float32 | see the CUDA cell |",
        ]
    )
)

# %% [markdown]
# ### At the published size: the course's benchmark (optional)
#
# `make bench` (`python -m torchcourse.bench`) times the same functions from
# `torchcourse.bench.workloads.kmeans` at the published 20 million points, beside the machine's
# limits measured in the same run. The course keeps one full run on a 2-core machine in
# `docs/benchmarks/cpu-2core.md`; here are its K-Means rows (run `make bench` to get yours).
# Read its machine line first: its ranking of rows and columns is that machine's.

# %%
# NBVAL_IGNORE_OUTPUT
from IPython.display import display

from torchcourse import ROOT

bench_md = (ROOT / "docs" / "benchmarks" / "cpu-2core.md").read_text().splitlines()
header = [line for line in bench_md if line.startswith(("Machine:", "Limits"))]
table = [
    line for line in bench_md if line.startswith("| group") or line.startswith("|---") or line.startswith("| k-means")
]
display(Markdown("\n".join(header + [""] + table)))

# %% [markdown]
# ## Common mistakes
#
# **Running the wrapper uncompiled on a tensor `.numpy()` refuses.** Outside
# `torch.compile`, `.numpy()` really converts, and it refuses a tensor that requires grad (or
# one that lives on a GPU). The same goes for a function wrapped with `torch.compiler.wrap_numpy`
# and called without `torch.compile`:

# %% tags=["raises-exception"]
km.assign_tensors(torch.ones(4, 2, requires_grad=True), means_t)

# %% [markdown]
# Compile the wrapper (`km.compiled_tensors()`, or `torch.compiler.wrap_numpy` under
# `torch.compile`) or pass plain CPU tensors.
#
# **An int8 output cannot hold every label.** int8 stops at 127, so the rewrite refuses more
# means than that instead of wrapping around silently:

# %% tags=["raises-exception"]
km.assign_rows(Xt[:10], torch.zeros(200, 2))

# %% [markdown]
# **Passing rows where columns are expected.** `assign_best` takes the `(2, n)` columns made by
# `km.to_columns`; given the `(n, 2)` points it says so instead of reading them the wrong way:

# %% tags=["raises-exception"]
km.assign_best(Xt[:10], means_t)

# %% [markdown]
# **Expecting a NumPy scalar back.** Compiled, `x.sum()` returns a 0-d array (see above):
# `float(result)` and `result.item()` work on both, `isinstance(result, np.floating)` does not.
#
# **Timing the first call.** It includes tracing and C++ compilation, cold or warm depending
# on the inductor cache (the cells above printed both); warm up, then measure.

# %% [markdown]
# ## What else would you pick? Numba and JAX (optional)
#
# Two other tools compile NumPy users' code. **Numba** compiles a Python function of loops
# over scalars (`@numba.njit(parallel=True)`, with `numba.prange` for the loop to split over
# threads) to machine code with LLVM. **JAX** (`jax.jit`) compiles a function written with
# `jax.numpy` by handing the whole array program to XLA, which fuses it into loops as inductor
# does. The course's benchmark runs both on this module's K-Means step beside the variants
# above (`make bench-peers` installs them into `.peers/venv`, apart from the course's
# environment): each tool as its users write it (a Numba loop over the points that computes
# each distance with `np.sqrt` and keeps the nearest with an `if`; `jax.jit` of
# `assign_numpy` with `jnp` for `np`) and with this module's rewrite (columns, linear scores,
# int8 labels; Numba writes them into a reused output). The same data, one process, one
# thread count for all, the variants taking turns; the labels are compared with NumPy's.
# The kept run (no Numba or JAX needed here):

# %%
import json

from torchcourse import ROOT

peer_run = json.loads((ROOT / "docs" / "benchmarks" / "peers-cpu-2core.json").read_text())
pm = peer_run["machine"]
print(f"recorded on {pm['cpu']} ({pm['cores']} cores, no GPU), every tool on {peer_run['threads']} thread")
print("versions:", ", ".join(f"{k} {v}" for k, v in peer_run["versions"].items()) + f", torch {pm['torch']}")
km_rows = {r["variant"]: r for r in peer_run["rows"] if r["group"] == "k-means"}
print(f"K-Means, {next(iter(km_rows.values()))['size']}")
for r in km_rows.values():
    print(
        f"  {r['tool']:6s} {r['variant']:38s} {format_seconds(r['min_s']):>9s} {r['x_numpy']:6.0f}x NumPy "
        f"{r['pct_of_limit']:5.0f}% of copy {r['cores_used']:4.2f} cores busy  labels {r['check']}"
    )

# %%
from torchcourse.bench.sidebyside_report import verdict

v = verdict(peer_run["rows"], "k-means")
print(
    f"course's fastest {format_seconds(v['course']['min_s'])}, fastest peer {format_seconds(v['peer']['min_s'])} "
    f"({v['peer']['tool']}: {v['peer']['variant']}): {v['verdict']} by the rule below"
)
km_gain = {}
for tool, as_written, rewrite in [
    ("torch.compile", "torch.compile of the NumPy code", "course's best (assign_best, columns)"),
    ("Numba", "Numba loop (njit parallel)", "Numba, course's rewrite"),
    ("JAX", "JAX jit of the NumPy code", "JAX, course's rewrite"),
]:
    km_gain[tool] = km_rows[as_written]["min_s"] / km_rows[rewrite]["min_s"]
    print(f"{tool:14s} the rewrite is {km_gain[tool]:.0f}x faster than the code as its users write it")
numpy_rewrite = km_rows["NumPy, course's rewrite (columns)"]["x_numpy"]
print(f"NumPy          the rewrite in NumPy, nothing compiled, is {numpy_rewrite:.0f}x faster than assign_numpy")
claim(
    all(gain > 1 for gain in km_gain.values()),
    "in the recorded run, the rewrite made the K-Means step faster under each of the three compilers",
)
claim(numpy_rewrite > 2, "in the recorded run, the rewrite written in NumPy was faster than assign_numpy, no compiler")
fixed_run = json.loads((ROOT / "docs" / "benchmarks" / "peers-cpu-2core-fixed.json").read_text())
jax_fixed = next(r for r in fixed_run["rows"] if r["variant"] == "JAX, course's rewrite")["min_s"]
jax_one = km_rows["JAX, course's rewrite"]["min_s"]
print(
    f"JAX's rewrite at one thread: {format_seconds(jax_one)} with the order shuffled each round (the kept run), "
    f"{format_seconds(jax_fixed)} with the variants in the same order every round (the run kept before it)"
)
claim(
    jax_fixed > 2 * jax_one,
    "in the recorded runs, JAX's K-Means rewrite took over twice as long when the variants took turns in a fixed order",
)

# %% [markdown]
# Every tool ran on one CPU (the process was pinned to it: XLA does not hold to a thread count
# in its flags; the *cores busy* column, CPU time over wall time, shows about one core each:
# its 1.06 and 1.11 on a single pinned CPU are measurement error of that size), and
# before every timed call the caches were emptied of the points, so every call read them from
# memory; module 13 says how. Each result has a cause you have met in this module.
#
# * **The algorithm moved every tool.** Linear scores instead of square roots, int8 labels
#   and columns made the step faster under each compiler (the gains above): they decide how
#   many bytes move and what the loop computes, whichever compiler writes the loop. They moved
#   NumPy too, with nothing compiled (the last line): the rewrite drops NumPy's `(k, n, d)`
#   array of differences and its square roots, work NumPy would otherwise do in full.
# * **Numba compiles the loop you write, as you wrote it.** LLVM's loop vectoriser works on
#   innermost loops. In the Numba loop as its users write it, the innermost loops run over
#   the coordinates and the means and carry the best distance from one mean to the next, so
#   the loop over the points is not made into vector code. The same holds for the rewrite if
#   its loop over the means is left to run (`_kmeans_cols` in `torchcourse/bench/peers.py`).
#   Written out for the benchmark's two means (`_kmeans_cols2`, the kernel the benchmark
#   times), the loop over the points is the innermost one and becomes vector code: Dynamo
#   does that writing out for torch (it unrolls Python loops, above), and JAX's tracing does
#   it for JAX. The run counted the vector instructions in each kernel's optimised LLVM IR:

# %%
numba_ir = peer_run["numba_ir"]
for k in ("kmeans_loop", "kmeans_cols", "kmeans_cols2"):
    print(f"Numba {k:13s} {numba_ir[k]['vector_ops']:3d} vector instructions, widest {numba_ir[k]['widest']} lanes")
claim(
    numba_ir["kmeans_loop"]["vector_ops"] == 0
    and numba_ir["kmeans_cols"]["vector_ops"] == 0
    and numba_ir["kmeans_cols2"]["vector_ops"] > 0,
    "in the recorded run, only the Numba kernel with its loop over the means written out has vector instructions",
)

# %% [markdown]
# * **JAX's rewrite row moved with the order the variants took turns in** (the last line
#   above), and it is the one row that clearly did. The run kept before this one took turns in
#   the same order every round, and there JAX's rewrite took 28.2 ms; a second run in that order
#   gave 21.4 ms, and with the order shuffled each round it is level with Numba's rewrite (the
#   course's `docs/benchmarks/peers-order-check.md` sets the runs side by side; at two threads
#   the row did not move, 8.83 ms fixed against 8.62 ms shuffled). Which variant runs just
#   before another can change its time, so the benchmark now shuffles the order; why JAX's row
#   was hit the hardest, these runs do not show.
# * **XLA fuses array code**, as inductor does: under `jax.jit`, `assign_numpy` through
#   `jax.numpy` computes the distances in one fused loop, without NumPy's `(k, n, d)` array
#   of differences, but at the benchmark's size it still writes the `(k, n)` distances and
#   reads them back for the `argmin`. That round trip is a small part of its time: at the run's
#   limits all of its traffic (the points, the distances out and back, int64 labels) is about
#   30 ms of its 402 ms, and where the rest goes the run does not measure. One default differs from NumPy's: JAX computes in float32
#   unless `jax_enable_x64` is set (the benchmark sets it; its K-Means rows are float32 for
#   every tool anyway).
# * **`torch.compile` keeps your NumPy code**, runs it on a GPU by a device switch (tensors
#   in, tensors out, above), and is the only one of the three that took `assign_numpy`
#   unchanged. Module 13 sets the three tools side by side on its fitness functions, with
#   what the first call costs in each and a rule for choosing.

# %% [markdown]
# ### Where a peer's loop is faster
#
# A row is called faster here only where its minimum and its median both say so and the margin
# exceeds the spread of both rows (median over minimum, over the run's 9 rounds); otherwise the
# two are a tie. Both loops run the same algorithm on the same bytes, so a difference lies in the
# loop each compiler wrote. The benchmark has a *probe* to look closer: inductor compiles the
# same loads and stores with none of the scores (`out.copy_(x0 + x1)`: the two float32 columns
# in, one int8 a point out), timed in the same rounds.

# %%
v = verdict(peer_run["rows"], "k-means")
probe = next(r for r in km_rows.values() if r["how"] == "probe")
ours, peer = v["course"], v["peer"]
for r in (probe, peer, ours):
    print(
        f"{r['variant']:48s} min {format_seconds(r['min_s']):>9s}, median {format_seconds(r['median_s']):>9s}"
        f" {r['pct_of_limit']:5.0f}% of {r['limit']}"
    )
print(f"verdict: {v['verdict']} (margin {v['margin']:.1%}, larger spread {v['spread']:.1%})")
from torchcourse.bench.sidebyside_report import ORDER_CHECK_RUNS

five = [json.loads((ROOT / "docs" / "benchmarks" / f).read_text()) for f, _ in ORDER_CHECK_RUNS]
lower = [
    verdict(r["rows"], "k-means")["peer"]["min_s"] < verdict(r["rows"], "k-means")["course"]["min_s"] for r in five
]
print(
    f"recorded runs (1 and 2 threads) in which the fastest peer's minimum was below the course's: {sum(lower)} of {len(five)}"
)
claim(all(lower), "in every recorded run, the fastest peer's K-Means minimum was below the course's")
claim(
    peer["how"] == "course's rewrite" and v["verdict"] == f"{peer['tool']} ahead",
    "in the recorded run, a peer's loop for the course's rewrite was ahead of the course's, beyond the spread",
)
claim(
    probe["min_s"] <= 1.1 * peer["min_s"],
    "inductor's loop moved the step's bytes (the probe) in at most 10% more time than the peer's whole step",
)
claim(ours["min_s"] > 1.2 * probe["min_s"], "the course's rewrite took over 20% longer than its bytes alone")

# %% [markdown]
# The margin is just beyond the spread: Numba is ahead at the rule's edge in this run, and the
# rule is a guard, not a statistical test (the runs keep no per-round times to pair). What every
# recorded run agrees on is the sign (the line above): at one thread and at two, in a fixed order
# and shuffled, the peer's minimum was the lower.
#
# So inductor's loop can move these bytes at the pace of the peer's whole step, and the peer
# computes the scores in about the time of the bytes alone. The arithmetic, then, need not cost
# time: what costs it is the code inductor generated for it, which the probe cannot show. The
# machine code can. The next cell compiles the probe too, finds the two kernels inductor built
# in this notebook's cache folder, disassembles them (`objdump`, from the binutils the C++
# compiler needs) and counts the instructions of each innermost loop.

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("the machine code of inductor's kernels")
import collections
import pathlib
import shutil

from torchcourse.bench import probes


def inner_loop(so):
    """The innermost loop of the kernel in a compiled .so: of the loops (a jump back) in `kernel`
    and its OpenMP parts that hold no other loop, the one with the most vector instructions."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(so)], capture_output=True, text=True).stdout
    best = []
    for block in text.split("\n\n"):
        if not re.match(r"[0-9a-f]+ <kernel[>.]", block):
            continue
        lines = (re.match(r"\s+([0-9a-f]+):\s+(\S+)\s*(.*)", line) for line in block.splitlines()[1:])
        insns = [(int(m[1], 16), m[2], m[3]) for m in lines if m]
        back = {i: int(t[1], 16) for i, (a, op, x) in enumerate(insns) if (t := re.match(r"([0-9a-f]+) <", x))}
        back = {i: t for i, t in back.items() if insns[i][1].startswith("j") and t < insns[i][0]}
        starts = {a: k for k, (a, _, _) in enumerate(insns)}
        for i, target in back.items():
            if target in starts and not any(starts[target] <= j < i for j in back):
                loop = insns[starts[target] : i + 1]
                if sum("mm" in x for *_, x in loop) > sum("mm" in x for *_, x in best):
                    best = loop
    return [op for _, op, _ in best]


def kernel_so(logs):
    """The .so inductor built (in this notebook's cache folder) from the C++ kernel in `logs`."""
    strip = lambda text: "\n".join(line.strip() for line in text.splitlines())  # noqa: E731
    source = strip(logs.text[logs.text.index('extern "C"') :].split("\n}\n")[0])
    cache = pathlib.Path(os.environ["TORCHINDUCTOR_CACHE_DIR"])
    return next(cpp.with_suffix(".so") for cpp in cache.rglob("*.main.cpp") if source in strip(cpp.read_text()))


with captured_logs(output_code=True) as probe_logs:
    torch.compile(probes.km_probe)(columns, out)
if shutil.which("objdump") is None:
    print("objdump not found (it comes with GNU binutils): nothing to count here")
else:
    loops = {"assign_best": inner_loop(kernel_so(columns_logs)), "probe": inner_loop(kernel_so(probe_logs))}
    for name, loop in loops.items():
        kinds = collections.Counter(loop)
        fma = sum(n for op, n in kinds.items() if "fmadd" in op)
        print(
            f"{name:12s} {len(loop):3d} instructions a loop iteration ({isa.nelements() if isa else 1} points): "
            f"{kinds['vbroadcastss']} broadcast loads, {kinds['vmulps']} multiplies, {fma} FMAs, "
            f"{kinds['vaddps']} adds"
        )

# %% [markdown]
# Read the loop of `assign_best` against the probe's. Where, as on the machine that made these
# outputs, it holds broadcast loads, separate multiplies and adds and no FMA, four things make
# the difference beside the scores themselves:
#
# * **the means are loaded again on every iteration.** Each broadcast reads from memory one of
#   the numbers the scores take from the means (their coordinates and an offset per mean).
#   They never change inside the loop, but the loop also stores through an
#   `int8_t*`, and GCC (like Clang) assumes that a store through a character type, `int8_t`
#   included, may change any object, the means included, so the compiler must assume a store
#   can change them. Declare the output `__restrict__` (it aliases
#   nothing) and the same C++, compiled at one thread, has the broadcasts moved out of the loop.
#   With more than one thread, inductor puts the loop inside an OpenMP parallel region, and
#   there the same `__restrict__` leaves the broadcasts in the loop (with GCC, which moves the
#   region's body into a function of its own, `kernel._omp_fn.0`, where the qualifier does not
#   take effect): the thread count this notebook runs at decides which loop the cell above read;
# * **no FMA**: inductor compiles with `-ffp-contract=off`, so `x * w + b` stays a multiply and
#   an add, rounded twice as eager torch rounds it, on a CPU that has FMA (the same command line
#   passes `-mfma`). Numba's loop has no FMA either (separate vector multiplies and adds, as
#   NumPy rounds), so this one does not explain why inductor trails Numba;
# * **each column is read twice**, once by each mean's multiply, and the comparison becomes a
#   1.0 or a 0.0 before the conversion to int8 that the probe shares;
# * **adds of zero**: the rewrite sums each score with Python's `sum(...)`, which starts from
#   the integer 0, so every score begins as `0 + x * w`. Inductor keeps that add (its code has a
#   vector of `0.0` added to each first product), and the C++ compiler may not drop it, since
#   `x + 0.0` is not `x` when `x` is `-0.0`.
#
# This is code generation, not memory and not the arithmetic a score needs: Numba's and JAX's
# rewrites both run the same scores in about the probe's time. What sets inductor's loop apart
# from Numba's is the broadcasts and the adds of zero inside it; Numba's loop, also without FMA,
# has its broadcasts outside. The course's `docs/benchmarks/gaps.md` tests each cause by
# patching inductor's generated C++ and counting again (`__restrict__` on the output takes the
# loop from 29 to 23 instructions for 8 points), with a script to rerun on yours. Whether these extra instructions cost time on your CPU depends on
# how many it can issue while it waits for memory; the table above is one CPU's answer, and
# there the gap to the probe (1.3x) sits at the verdict rule's edge at one thread and shrinks at
# two.

# %% [markdown]
# ## Key points
#
# * `torch.compile` takes NumPy code as it is and returns NumPy arrays; check the answer
#   against NumPy once, then measure. `TORCH_LOGS=output_code` shows the code it generated.
# * The first compile with an empty inductor cache is cold; with a warm cache the same
#   compile skips the C++ compiler and costs much less.
# * Under compile, NumPy scalars act as 0-d arrays and promotion follows NEP 50 (Python numbers
#   weak, NumPy scalars strong). New float dtypes follow PyTorch: integer division gives
#   float32, `np.sqrt` of int8 gives float64, `np.cumsum` of int8 stays int8 and wraps (give
#   `dtype=`). `numpy_default_float` is read once per process: set it first.
# * Arrays go in shared, not copied: an in-place operation inside the compiled function changes
#   the caller's array, and a returned slice is a view of it, as in NumPy.
# * Compiled, `np.random` draws from torch's generator: the same seed gives other numbers than
#   NumPy, and `torch.manual_seed` (not `np.random.seed`) before the call makes them repeat.
#   `use_numpy_random_stream = True` gives NumPy's numbers at the price of a graph break per call.
# * A NumPy function `torch._numpy` lacks, a string or object dtype, or a `.tolist()` breaks the
#   graph; `compile_stats()` and the `graph_breaks` log find it, and a rewrite with functions
#   `torch._numpy` has (Horner's rule, a broadcast comparison) keeps one graph.
# * A tensor-in, tensor-out function (`torch.compiler.wrap_numpy`, or `.numpy()` inside the
#   compiled region) keeps data on the device.
# * Loops are unrolled and every new iteration count compiles a new graph: compile the loop body.
# * Memory-bound code is judged in GB/s against the measured limit that matches its traffic
#   (`Limits.for_traffic`: read, write or copy). Fewer bytes (float32 in, int8 out) and no
#   temporaries move a kernel toward the line. A layout the loop reads contiguously saves work
#   per point; whether that work costs time is your CPU's answer, and a sweep over sizes that
#   crosses your cache size tells memory from cache.
# * A probe, the kernel's loads and stores without its arithmetic compiled the same way, times
#   the memory traffic alone. Beside Numba and JAX it showed inductor moving the K-Means bytes
#   as fast as the fastest peer, whose whole step took about the probe's time: the gap is in the
#   code generated for the scores (counted in the disassembly: the means reloaded every
#   iteration because the int8 output may alias them, no FMA under `-ffp-contract=off`), not in
#   memory. Call a tool faster only where minimum and median agree beyond the spread.
# * A reused output buffer saves an allocation per call: usually next to nothing below the C
#   library's threshold for fresh memory (glibc: up to 32 MiB), a page fault per 4 KiB page
#   on a call above it that the heap's free memory cannot take.
#
# ## Further reading
#
# * [Compiling NumPy code into C++ or CUDA via torch.compile](https://pytorch.org/blog/compiling-numpy-code/),
#   Evgeni Burovski, Ralf Gommers and Mario Lezcano, PyTorch blog: the K-Means benchmark and
#   the tips this notebook follows; its figures, with their hardware, are in
#   [docs/reference-figures.md](../docs/reference-figures.md), section A.
# * [`torch.compiler.wrap_numpy`](https://docs.pytorch.org/docs/main/generated/torch.compiler.wrap_numpy.html)
#   in the PyTorch reference, with an example on CUDA and with gradients.
# * [`torch._logging.set_logs`](https://docs.pytorch.org/docs/stable/generated/torch._logging.set_logs.html):
#   `output_code` and the other logs, and how `TORCH_LOGS` takes precedence.

# %% [markdown]
# The last cell deletes this notebook's private inductor cache.

# %%
import shutil

shutil.rmtree(cache_dir, ignore_errors=True)
print("private cache removed:", not os.path.exists(cache_dir))

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 25 statements of this lesson are tested facts, 1 tracking a known torch bug. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“the setting is read once per process, the first time compiled code needs a default dtype”</td><td>✓</td></tr>
# <tr><td>“Results that NumPy returns as scalars come back as 0-d arrays.”</td><td>✓</td></tr>
# <tr><td>“Adding 100 to an int8 array stays int8 and wraps around past 127; a <code>np.float64</code> scalar turns a float32 array into float64, where a Python float does not”</td><td>✓</td></tr>
# <tr><td>“a value that does not fit that dtype at all, such as 1000 for int8, is an error”</td><td>✓</td></tr>
# <tr><td>“Dividing integer arrays gives float64 in NumPy and float32 compiled (PyTorch&#x27;s default float, whatever <code>numpy_default_float</code> says); the square root of int8 values gives NumPy&#x27;s smallest fitting float, float16, and float64 compiled.”</td><td>✓</td></tr>
# <tr><td>“Called without <code>torch.compile</code>, the wrapper converts CPU tensors to NumPy arrays and back and NumPy runs the code; a tensor that requires grad or lives on a GPU is refused, as <code>.numpy()</code> refuses it.”</td><td>✓</td></tr>
# <tr><td>“Outside <code>torch.compile</code>, <code>.numpy()</code> really converts, and it refuses a tensor that requires grad”</td><td>✓</td></tr>
# <tr><td>“The number of iterations is baked into the graph, so a different number compiles a new graph.”</td><td>✓</td></tr>
# <tr><td>“From rows: two int64 vector loads, a mask and a shift, a narrowing to int32, and the bit cast, for which inductor (torch 2.13) has no vector form. An operation without one is done one lane at a time”</td><td>✓</td></tr>
# <tr><td>“<code>X[:, 0]</code> is a stride-2 view, and the compiled NumPy loop fills each vector from it one float at a time”</td><td>✓</td></tr>
# <tr><td>“glibc&#x27;s <code>malloc</code> first looks for a free stretch its heap already holds. A block above its mmap threshold (128 KiB at first, rising up to 32 MiB) that does not fit there gets fresh pages from the operating system, which go back when the block is freed, so each such call pays one page fault per 4 KiB page on first touch.”</td><td>✓</td></tr>
# <tr><td>“Changing torch&#x27;s thread count makes each compiled function compile once more (dynamo&#x27;s guards include the thread count: the recompile log says <code>GLOBAL_STATE changed: num_threads</code>)”</td><td>✓</td></tr>
# <tr><td>“it fills a tensor from torch&#x27;s random generator, and <code>np.random.seed(s)</code> there calls <code>torch.manual_seed(s)</code>. NumPy&#x27;s own generator is never read.”</td><td>✓</td></tr>
# <tr><td>“With the default backend the numbers can differ again: for <code>np.random.randn</code> inductor generates its own random-number code, seeded from torch&#x27;s generator on every call.”</td><td>✓</td></tr>
# <tr><td>“Only the functions <code>torch._numpy.random</code> implements are traced this way: <code>seed</code>, <code>rand</code>, <code>randn</code>, <code>random_sample</code> (and its names <code>random</code> and <code>sample</code>), <code>uniform</code>, <code>normal</code>, <code>randint</code>, <code>choice</code> and <code>shuffle</code>. Any other <code>np.random</code> call, such as <code>np.random.standard_normal</code> or a <code>np.random.default_rng()</code> generator, is not traced: it breaks the graph and runs in NumPy, with NumPy&#x27;s numbers”</td><td>✓</td></tr>
# <tr><td>“<code>torch._dynamo.config.use_numpy_random_stream = True</code> asks for NumPy&#x27;s numbers everywhere: dynamo then refuses to trace every <code>np.random</code> call and breaks the graph there, so NumPy itself draws them.”</td><td>✓</td></tr>
# <tr><td>“Three kinds of code end a graph: a NumPy function it lacks (in torch 2.13 <code>np.polyval</code>, <code>np.isin</code>, <code>np.digitize</code>, <code>np.partition</code> and <code>np.trapezoid</code>, among others), a dtype a tensor cannot hold (strings, Python objects), and a method whose result is not an array (<code>.tolist()</code> of floats). Dynamo runs such a call in plain NumPy and compiles the code before and after it as separate graphs”</td><td>✓</td></tr>
# <tr><td>“In the Numba loop as its users write it, the innermost loops run over the coordinates and the means and carry the best distance from one mean to the next, so the loop over the points is not made into vector code”</td><td title="(&#x27;/work/main/tests/facts/l12.py&#x27;, 402, &quot;Skipped: could not import &#x27;numba&#x27;: No module named &#x27;numba&#x27;&quot;)">skipped</td></tr>
# <tr><td>“computes the distances in one fused loop, without NumPy&#x27;s <code>(k, n, d)</code> array of differences, but at the benchmark&#x27;s size it still writes the <code>(k, n)</code> distances”</td><td title="(&#x27;/work/main/tests/facts/l12.py&#x27;, 431, &quot;Skipped: could not import &#x27;jax&#x27;: No module named &#x27;jax&#x27;&quot;)">skipped</td></tr>
# <tr><td>“an in-place operation on an argument changes the caller&#x27;s array, and a slice it returns is a view of the input”</td><td>✓</td></tr>
# <tr><td>“Compiled NumPy keeps the input&#x27;s dtype (<code>torch._numpy</code> passes <code>dtype=a.dtype</code> when you give none), so the running total wraps past 127 without a word.”<br><i>Tracks an upstream bug: pytorch/pytorch#198056 (np.cumsum(int8) overflows in int8 under torch.compile); once torch._numpy widens like NumPy, lesson 12&#x27;s cumsum cell, its prediction 12.p3 and this sentence change</i></td><td>✓</td></tr>
# <tr><td>“They never change inside the loop, but the loop also stores through an <code>int8_t*</code>, and GCC (like Clang) assumes that a store through a character type, <code>int8_t</code> included, may change any object, the means included, so the compiler must assume a store can change them. Declare the output <code>__restrict__</code> (it aliases nothing) and the same C++, compiled at one thread, has the broadcasts moved out of the loop”</td><td>✓</td></tr>
# <tr><td>“With more than one thread, inductor puts the loop inside an OpenMP parallel region, and there the same <code>__restrict__</code> leaves the broadcasts in the loop (with GCC, which moves the region&#x27;s body into a function of its own, <code>kernel._omp_fn.0</code>, where the qualifier does not take effect)”</td><td>✓</td></tr>
# <tr><td>“inductor compiles with <code>-ffp-contract=off</code>, so <code>x * w + b</code> stays a multiply and an add, rounded twice as eager torch rounds it, on a CPU that has FMA (the same command line passes <code>-mfma</code>)”</td><td>✓</td></tr>
# <tr><td>“Inductor keeps that add (its code has a vector of <code>0.0</code> added to each first product), and the C++ compiler may not drop it, since <code>x + 0.0</code> is not <code>x</code> when <code>x</code> is <code>-0.0</code>”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/12_compiling_numpy.ipynb](../exercises/12_compiling_numpy.ipynb) ·
# **Previous:** [11 · Graph breaks](11_graph_breaks.ipynb) ·
# **Next:** [13 · Case study: genetic-algorithm fitness](13_case_study_ga.ipynb)
