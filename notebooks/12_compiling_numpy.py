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
# *Module 12 of 00–16 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/12_compiling_numpy.ipynb) · previous: [11 · Graph breaks](11_graph_breaks.ipynb) · next: [13 · Case study: genetic-algorithm fitness](13_case_study_ga.ipynb)

# %% tags=["course-setup"] jupyter={"source_hidden": true}
# Course setup. On your own machine this cell installs nothing. On Google Colab it fetches
# the course and installs its helper package, torchcourse, once per session.
# Colab runtime: CPU is enough; a GPU (Runtime > Change runtime type > T4 GPU) also runs the GPU cells.
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
# 2. predict how dtypes and NumPy scalars behave under compile (NEP 50, 0-d arrays,
#    `numpy_default_float`) and where they differ from NumPy;
# 3. keep data on the device with a tensor-in, tensor-out function (`torch.compiler.wrap_numpy`);
# 4. compile a loop body rather than a loop;
# 5. compute achieved GB/s, set it beside the machine's copy bandwidth, and explain what
#    limits each variant.
#
# **Prerequisites.** [09 · torch.compile: fusion and overhead](09_compile_fusion.ipynb),
# [04 · Dtypes](04_dtypes.ipynb) (promotion), [11 · Graph breaks](11_graph_breaks.ipynb).
#
# **Time.** 35 min teaching, 35 min exercises.

# %%
import os
import re
import subprocess
import sys
import tempfile

# An empty inductor cache, set before anything compiles: the first compile below is a cold one.
os.environ["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="inductor-12-")

import matplotlib.pyplot as plt
import numpy as np
import torch
from torch._dynamo.utils import counters

from torchcourse import claim, gpu_skip_message, pick_device
from torchcourse.compiletools import captured_logs, compile_counter, reset
from torchcourse.timing import copy_bandwidth, format_seconds, interleaved, measure, time_once
from torchcourse.workloads import kmeans as km

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
reset()  # forget compiled functions (and zero torch's counters); the cache on disk stays
_, t_warm = time_once(lambda: torch.compile(km.assign_numpy)(X, means))
t_comp64 = measure(lambda: assign_compiled(X, means), repeat=5)
print(f"first call, cold cache: {format_seconds(t_first)}; warm cache: {format_seconds(t_warm)}")
print("compiled, float64:", t_comp64, f"-> {t_numpy64.min / t_comp64.min:.1f}x NumPy")

# %%
claim(counters["inductor"]["fxgraph_cache_hit"] >= 1, "the warm compile took its kernel from the inductor cache")
claim(t_warm < t_first / 2, "with a warm cache the first call takes less than half the cold one")
claim(t_comp64.min * 4 < t_numpy64.min, "compiled, the float64 step is more than 4x faster than NumPy")

# %% [markdown]
# One kernel replaces NumPy's chain of temporaries: `X - means[:, None]` (a `(2, N, 2)`
# array), its square, the `(2, N)` distances, then `argmin` over them. Here is the heart of the
# generated loop: a vectorised square root per mean (`tmp…` are SIMD registers holding 16 or
# 8 points, depending on your CPU and the dtype), and one store of the labels:

# %% tags=["version-specific"]
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
t_numpy32 = measure(lambda: km.assign_numpy(X32, means32), repeat=5)
t_comp32 = measure(lambda: assign_compiled(X32, means32), repeat=5)
print("NumPy, float32:   ", t_numpy32)
print("compiled, float32:", t_comp32, f"-> {t_numpy32.min / t_comp32.min:.1f}x NumPy float32")

# %%
claim(t_comp32.min < t_comp64.min, "compiled, float32 is faster than float64")

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
claim(
    differs["np.arange(3) / 2"] == (np.float64, np.float32)
    and differs["np.sqrt(int8 array)"] == (np.float16, np.float64),
    "integer division and the square root of int8 give other float dtypes compiled than in NumPy",
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
# into a tensor-in, tensor-out one. It is meant to be compiled with `fullgraph=True` (it does
# not work without `torch.compile`); the tensors can live on any device:


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
# once, so it is limited by memory traffic. The least traffic any implementation needs is
# "read X once, write one label per point": `km.min_bytes` computes it (24 bytes a point for
# float64 in and int64 out, 8 + 8 = 16 in float32). The practical ceiling is the bandwidth of a
# large copy, measured now, in this run:

# %%
# NBVAL_IGNORE_OUTPUT
bw = copy_bandwidth()
print(f"copy bandwidth: {bw:.1f} GB/s (read + write)")

# %% [markdown]
# The course's rewrite, `km.assign_rows`, goes after each cost in turn (its docstring has the
# derivation):
#
# * **no temporaries and no square root**: the nearest mean maximises the linear score
#   `x·m_j − |m_j|²/2`, two multiply-adds per mean; ordering by distance needs no `sqrt`;
# * **int8 labels instead of int64**: 1 byte written per point instead of 8, so 9 bytes a
#   point in float32 instead of 16;
# * **an output buffer you pass in**: give the same `out` on every call and the step
#   allocates nothing (the table below measures what that is worth on your machine);
# * **SIMD loads of interleaved pairs**: `X[:, 0]` is a stride-2 view, which the generated loop
#   gathers one float at a time. A float32 pair is one 64-bit word, so the rewrite loads `X`
#   as int64 (contiguous, vectorised) and splits each word into its two floats with bit casts.
#
# The last point is where the rows layout still costs. In the CPU code inductor generates, the
# int32 → float32 bit cast goes one lane at a time through a small buffer on the stack, and the
# C++ compiler writes that buffer in two halves and reads it back whole, which stalls the
# core (`perf annotate` on the generated kernel shows it). The loop ends up limited by the
# CPU rather than by memory. The remedy is module 03's: a copy into a contiguous layout pays
# off when the data is read many times afterwards, and K-Means reads the same points once per
# iteration.
#
# * **store the points as columns**: `km.to_columns(X)` copies the `(n, 2)` points into a
#   `(2, n)` tensor, one contiguous row per coordinate. The same loop then loads two plain
#   float32 vectors, with nothing to gather or bit-cast. The copy is paid once per fit, not
#   once per step. `km.assign_best` takes the columns.
#
# Both must agree with NumPy exactly:

# %%
out = torch.empty(N, dtype=torch.int8)
by_rows = km.assign_rows(Xt, means_t, out)
print("rows: same labels as NumPy:", torch.equal(by_rows.long(), torch.from_numpy(labels)))
print("wrote into the buffer we passed:", by_rows.data_ptr() == out.data_ptr(), by_rows.dtype)
columns, t_columns = time_once(lambda: km.to_columns(Xt))
print("columns:", tuple(Xt.shape), "->", tuple(columns.shape), "strides", columns.stride())
best = km.assign_best(columns, means_t, out)
print("columns: same labels as NumPy:", torch.equal(best.long(), torch.from_numpy(labels)))

# %%
# NBVAL_IGNORE_OUTPUT
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
        f"{km.min_bytes(1, xd, od):>8} {gbps:>6.2f} {gbps / bw:>7.0%}"
    )
print(f"one-off to_columns copy: {format_seconds(t_columns)} = {t_columns / t_best.min:.0f} steps on columns")
print(f"a fresh int8 output on every call took {t_rows_fresh.min / t_rows.min - 1:+.0%} against the reused buffer")

# %%
# the three timed again on one thread, taking turns, so that they all see the same load
best_comp32, best_rows, best_columns = interleaved(
    [
        lambda: assign_compiled(X32, means32),
        lambda: km.assign_rows(Xt, means_t, out),
        lambda: km.assign_best(columns, means_t, out),
    ],
    number=3,
    threads=1,
)
claim(
    best_columns < best_rows,
    "on columns the rewrite is faster than on rows",
    f"one thread: columns {format_seconds(best_columns)}, rows {format_seconds(best_rows)}",
)
claim(
    best_columns < best_comp32,
    "the rewrite on columns is faster than compiled NumPy float32",
    f"one thread: columns {format_seconds(best_columns)}, compiled NumPy float32 {format_seconds(best_comp32)}",
)
claim(
    max(achieved["NumPy float64"], achieved["NumPy float32"]) < 0.1 * bw,
    "NumPy reaches less than a tenth of the copy bandwidth",
)

# %% [markdown]
# GB/s here counts only the unavoidable bytes (NumPy really moves several times more through
# its temporaries, which is exactly why it is slow). The same numbers as a picture, against the
# copy bandwidth:

# %%
# NBVAL_IGNORE_OUTPUT
fig, ax = plt.subplots(figsize=(7, 3))
names = list(achieved)
ax.barh(names, [achieved[n] for n in names], color=["#999999"] * 2 + ["#4c72b0"] * 2 + ["#dd8452"] * 2 + ["#55a868"])
ax.axvline(bw, color="k", ls="--", label=f"copy bandwidth ({bw:.1f} GB/s)")
ax.set(xlabel="achieved GB/s (minimum bytes / time)", title=f"K-Means assignment, {N:,} points")
ax.invert_yaxis()
ax.legend(loc="upper right")
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
#   per mean. It moves the fewest bytes, but the bit cast that splits each pair costs CPU time
#   per point, so on a CPU it does not reach the copy line. The fresh-versus-reused lines
#   differ by no more than run-to-run noise, either way round: the memory allocator hands the
#   same block back call after call, so an allocation per call costs next to nothing here.
# * **The rewrite on columns** moves the same bytes with nothing left to do per point but the
#   arithmetic, so it gets closest to the copy line. At this notebook's 2 million points the
#   columns take 16 MB, which can stay in the processor's cache from one call to the next; the
#   share can then pass 100%, because the copy line is the limit of main memory and a cache is
#   faster. The benchmark's 20 million points (160 MB) are what measure against main memory:
#   see its stored run at the end of this notebook.
#
# ### Our numbers beside the published ones
#
# The published figures (Quansight / PyTorch blog, PyTorch 2.1, 20M points) are for other
# hardware; compare the *factors*, not the times.

# %%
# NBVAL_IGNORE_OUTPUT
from IPython.display import Markdown

ours = lambda t: f"{t_numpy64.min / t.min:.0f}x"  # noqa: E731
Markdown(
    "\n".join(
        [
            "| variant | published (AMD 3970X, 32 cores; RTX 2060) | this run ("
            + f"{torch.get_num_threads()} threads, {N:,} points) |",
            "|---|---|---|",
            f"| NumPy float64 | 1.26 s (20M points) | {format_seconds(t_numpy64.min)} |",
            f"| compiled NumPy | 9x on 1 core, 57x on 32 cores | {ours(t_comp64)} (float64), {ours(t_comp32)} (float32) |",
            f"| course's rewrite, rows, float32, int8, reused output | not published | {ours(t_rows)}, {achieved['rows, reused int8 output'] / bw:.0%} of copy bandwidth |",
            f"| course's best: the rewrite on columns | not published | {ours(t_best)}, {achieved['columns, reused int8'] / bw:.0%} of copy bandwidth |",
            "| CUDA, NumPy arrays in and out | 8x (float64), 11x (float32) | see the CUDA cell |",
            "| CUDA, tensors kept on the GPU, float32 | 200x over NumPy float32 | see the CUDA cell |",
        ]
    )
)

# %% [markdown]
# ### At the published size: the course's benchmark
#
# `make bench` (`python -m torchcourse.bench`) times the same functions from
# `torchcourse.workloads.kmeans` at the published 20 million points, beside the machine's
# limits measured in the same run. The course keeps one full run on a 2-core machine in
# `docs/benchmarks/cpu-2core.md`; here are its K-Means rows (run `make bench` to get yours),
# and the share of the copy bandwidth the two rewrites reached there:

# %%
from IPython.display import display

from torchcourse import ROOT

bench_md = (ROOT / "docs" / "benchmarks" / "cpu-2core.md").read_text().splitlines()
header = [line for line in bench_md if line.startswith(("Machine:", "Limits"))]
rows = [
    line for line in bench_md if line.startswith("| group") or line.startswith("|---") or line.startswith("| k-means")
]
display(Markdown("\n".join(header + [""] + rows)))


def share_of_copy(variant):
    """The '% of copy' figure of a k-means row of the stored benchmark."""
    row = next(line for line in rows if line.startswith(f"| k-means | {variant}"))
    return int(re.search(r"\((\d+)%\)", row).group(1))


stored = {"rows": share_of_copy("course's rewrite, rows"), "columns": share_of_copy("course's best, columns")}
print(f"stored run, 20M points: rows {stored['rows']}% of the copy bandwidth, columns {stored['columns']}%")
claim(
    stored["columns"] > stored["rows"],
    "in the stored run at 20M points, columns come closer to the copy line than rows",
)

# %% [markdown]
# ## Common mistakes
#
# **Running the wrapper uncompiled on a tensor `.numpy()` refuses.** Outside
# `torch.compile`, `.numpy()` really converts, and it refuses a tensor that requires grad (or
# one that lives on a GPU):

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
#
# ## Key points
#
# * `torch.compile` takes NumPy code as it is and returns NumPy arrays; check the answer
#   against NumPy once, then measure. `TORCH_LOGS=output_code` shows the code it generated.
# * The first compile with an empty inductor cache is cold; with a warm cache the same
#   compile skips the C++ compiler and costs much less.
# * Under compile, NumPy scalars act as 0-d arrays and promotion follows NEP 50 (Python numbers
#   weak, NumPy scalars strong). New float dtypes follow PyTorch: integer division gives
#   float32, `np.sqrt` of int8 gives float64. `numpy_default_float` is read once per process:
#   set it first.
# * A tensor-in, tensor-out function (`torch.compiler.wrap_numpy`, or `.numpy()` inside the
#   compiled region) keeps data on the device.
# * Loops are unrolled and every new iteration count compiles a new graph: compile the loop body.
# * Memory-bound code is judged in GB/s against the measured copy bandwidth. Fewer bytes
#   (float32 in, int8 out), no temporaries and a layout the loop reads contiguously move a
#   kernel toward the line. A reused output buffer saves one allocation per call; on a CPU that
#   is usually lost in timing noise.
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

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/12_compiling_numpy.ipynb](../exercises/12_compiling_numpy.ipynb) ·
# **Previous:** [11 · Graph breaks](11_graph_breaks.ipynb) ·
# **Next:** [13 · Case study: genetic-algorithm fitness](13_case_study_ga.ipynb)
