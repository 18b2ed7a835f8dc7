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
# *Module 12 of 00–15 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/12_compiling_numpy.ipynb) · previous: [11 · Graph breaks](11_graph_breaks.ipynb) · next: [13 · Case study: genetic-algorithm fitness](13_case_study_ga.ipynb)

# %% tags=["course-setup"] jupyter={"source_hidden": true}
# Course setup. On your own machine this cell installs nothing. On Google Colab it fetches
# the course and installs its helper package, torchcourse, once per session.
# Colab runtime: CPU is enough; a GPU (Runtime > Change runtime type > T4 GPU) also runs the GPU cells.
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
# 1. compile a NumPy function and check it returns the same answer;
# 2. predict how dtypes and NumPy scalars behave under compile (NEP 50, 0-d arrays,
#    `numpy_default_float`);
# 3. keep data on the device with a tensor-in, tensor-out wrapper;
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
import tempfile

# An empty inductor cache, set before anything compiles: every compile below is a real one.
os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="inductor-12-"))

import matplotlib.pyplot as plt
import numpy as np
import torch

from torchcourse import gpu_skip_message, pick_device
from torchcourse.compiletools import captured_logs, compile_counter, reset
from torchcourse.timing import copy_bandwidth, format_seconds, measure, time_once
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
# The published benchmark (REFERENCE_FIGURES.md, section A) uses 20 million 2-D points in two
# Gaussian blobs around (5, 5) and (10, 10). To keep this notebook's run short on a 2-core
# laptop we use **2 million**; the course's benchmark (`make bench`) runs the full 20 million
# with the same functions.

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
# The first call traces, generates C++ and compiles it (the first compile of a session costs
# 10-20 s on a 2-core machine); we capture the generated code on the way.

# %%
assign_compiled = km.compiled_numpy()  # torch.compile(km.assign_numpy)
with captured_logs(output_code=True) as logs:
    labels_c, t_first = time_once(lambda: assign_compiled(X, means))
print("returns:", type(labels_c).__name__, labels_c.dtype)
print("same labels as NumPy:", np.array_equal(labels_c, labels))
print("generated kernels:", len(logs.grep(r"^cpp_fused\w* = async_compile")))

# %%
# NBVAL_IGNORE_OUTPUT
t_comp64 = measure(lambda: assign_compiled(X, means), repeat=5)
print(f"first call (compile): {format_seconds(t_first)}")
print("compiled, float64:", t_comp64, f"-> {t_numpy64.min / t_comp64.min:.1f}x NumPy")

# %% [markdown]
# One kernel replaces NumPy's chain of temporaries: `X - means[:, None]` (a `(2, N, 2)`
# array), its square, the `(2, N)` distances, then `argmin` over them. Here is the heart of the
# generated loop: a vectorised square root per mean (`tmp…` are SIMD registers holding 16 or
# 8 points, depending on your CPU and the dtype), and one store of the labels:

# %%
kernel = logs.text[logs.text.index('extern "C"') :]
body = [line.strip() for line in kernel.splitlines() if ".sqrt()" in line or "store(out_ptr0" in line]
print("\n".join(body))

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
print("default:", torch.compile(plus_ones, backend="eager")(z32).dtype)
torch._dynamo.config.numpy_default_float = "float32"
reset()
print("set after the first use:", torch.compile(plus_ones, backend="eager")(z32).dtype)
torch._dynamo.config.numpy_default_float = "float64"

# %% [markdown]
# In a fresh process, set before any compile, it works (the cell starts one, which takes a few
# seconds):

# %%
import subprocess
import sys

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
# **Promotion follows NEP 50** (a Python number does not widen an array or a NumPy scalar).
# NumPy 2 follows NEP 50 too, so these agree; with NumPy 1.x, eager results could differ.


# %%
def add_float(a):
    return a + 3.0


for arg in (np.float32(3), np.arange(3, dtype=np.float16)):
    eager, compiled = add_float(arg), torch.compile(add_float, backend="eager")(arg)
    print(f"{type(arg).__name__:8} eager -> {np.result_type(eager)}, compiled -> {compiled.dtype}")

# %% [markdown]
# **A difference to know about:** dividing integer arrays. NumPy gives float64; compiled, in
# torch 2.13, the result is float32 (PyTorch's default float), whatever `numpy_default_float`
# says. Check dtypes when your code divides integers.


# %%
def half(k):
    return np.arange(k) / 2


print("eager:   ", half(3).dtype)
print("compiled:", torch.compile(half, backend="eager")(3).dtype)

# %% [markdown]
# ## Tensors in, tensors out: keep the data on the device
#
# The compiled function takes NumPy arrays, which live in CPU memory. On a GPU that means a
# copy to the device and back on every call. The fix is a wrapper that takes and returns
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
# holding 8 copies of the iteration, and a different number of iterations compiles again.
# The counting backend shows the graph growing with the iteration count:


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
for iters in (2, 4, 8):
    counter = compile_counter()
    torch.compile(kmeans_fit, backend=counter)(Xs, start, iters)
    print(f"whole loop, {iters} iterations: {counter.frame_count} graph, {counter.op_count} operations")

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
# * **a reused output buffer**: a fresh output is a new allocation whose pages the kernel
#   faults in on first touch, every call. Pass the same `out` each time;
# * **SIMD loads of interleaved pairs**: `X[:, 0]` is a stride-2 view, which the generated loop
#   gathers one float at a time. A float32 pair is one 64-bit word, so the rewrite loads `X`
#   as int64 (contiguous, vectorised) and splits each word into its two floats with bit casts.
#
# The last point is where the rows layout still costs. In the CPU code inductor generates, the
# int32 → float32 bit cast goes one lane at a time through a small buffer on the stack, and the
# C++ compiler writes that buffer in two halves and reads it back whole, which stalls the
# core (`perf annotate` on the generated kernel shows it). The loop ends up limited by the
# CPU, not by memory: on the course's 2-core machine, at 20 million points, it takes 15 ms
# where a compiled sum that reads the same bytes takes under 5 ms. The remedy is module 03's:
# a copy into a contiguous layout pays off when the data is read many times afterwards, and
# K-Means reads the same points once per iteration.
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
# * **Compiled NumPy** fuses everything into one pass over `X` and runs on all cores, which is
#   where its large factor over NumPy comes from. What remains: a `sqrt` per point and mean,
#   stride-2 gathers of the coordinates, and a freshly allocated int64 output (8 bytes a
#   point) whose pages are faulted in on first touch, every call. The next cell measures that
#   last cost on its own.
# * **The rewrite on rows** reads 8 bytes and writes 1 byte a point, into memory that is
#   already mapped, with two multiply-adds per mean. It moves the fewest bytes, but the
#   bit cast that splits each pair costs CPU time per point, so on a CPU it stays well below
#   the copy line. The fresh-versus-reused rows show what the
#   allocation alone costs on your machine.
# * **The rewrite on columns** moves the same bytes with nothing left to do per point but the
#   arithmetic, so it runs close to the copy line: the course's benchmark measured 87% of
#   the copy bandwidth at 20 million points on its 2-core machine (41% for rows). At this
#   notebook's 2 million points the columns take 16 MB, which can stay in the processor's
#   cache from one call to the next; the share can then pass 100%, because the copy line is
#   the limit of main memory and a cache is faster. The benchmark's 20 million points (160 MB)
#   are what measure against main memory.
#
# %%
# NBVAL_IGNORE_OUTPUT
t_alloc = measure(lambda: np.ones(N, dtype=np.int64), repeat=7)
print(
    "allocate and first-touch a fresh int64 output:",
    t_alloc,
    f"= {t_alloc.min / t_comp32.min:.0%} of a compiled float32 call",
)

# %% [markdown]
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
# limits measured in the same run. The course keeps one full run from its 2-core CI machine in
# `docs/benchmarks/cpu-2core.md`; here are its K-Means rows (run `make bench` to get yours):

# %%
from torchcourse import ROOT

bench_md = (ROOT / "docs" / "benchmarks" / "cpu-2core.md").read_text().splitlines()
header = [line for line in bench_md if line.startswith(("Machine:", "Limits"))]
rows = [
    line for line in bench_md if line.startswith("| group") or line.startswith("|---") or line.startswith("| k-means")
]
Markdown("\n".join(header + [""] + rows))

# %% [markdown]
# ## Common mistakes
#
# **Calling the wrapper's body eagerly on a tensor that needs a copy.** Outside `torch.compile`,
# `.numpy()` really converts, and refuses when it cannot share memory, e.g. for a tensor that
# requires grad (or lives on a GPU):

# %% tags=["raises-exception"]
km.assign_tensors(torch.ones(4, 2, requires_grad=True), means_t)

# %% [markdown]
# Compile the wrapper (`km.compiled_tensors()`) or pass plain CPU tensors.
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
# **Timing the first call.** It includes tracing and C++ compilation (the cell above printed
# it); warm up, then measure.
#
# ## Key points
#
# * `torch.compile` takes NumPy code as it is and returns NumPy arrays; check the answer
#   against NumPy once, then measure.
# * Under compile, NumPy scalars act as 0-d arrays, promotion follows NEP 50, integer division
#   gives float32, and `numpy_default_float` is read once per process: set it first.
# * A tensor-in, tensor-out wrapper with `.numpy()` inside the compiled region keeps data on
#   the device.
# * Loops are unrolled: compile the loop body.
# * Memory-bound code is judged in GB/s against the measured copy bandwidth. Fewer bytes (float32
#   in, int8 out), no temporaries, and a reused output buffer are what move a kernel toward the line.

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/12_compiling_numpy.ipynb](../exercises/12_compiling_numpy.ipynb) ·
# **Previous:** [11 · Graph breaks](11_graph_breaks.ipynb) ·
# **Next:** [13 · Case study: genetic-algorithm fitness](13_case_study_ga.ipynb)
