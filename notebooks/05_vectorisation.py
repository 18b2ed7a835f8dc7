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
# *Module 05 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/05_vectorisation.ipynb) · previous: [04 · Dtypes](04_dtypes.ipynb) · next: [06 · Linear algebra](06_linear_algebra.ipynb)

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
# # 05 · Vectorisation and measuring speed
#
# A Python loop that touches a tensor one element at a time can be thousands of times
# slower than one call that processes the whole tensor. That gap is the most important
# performance fact in PyTorch (and NumPy), and it shapes how you write every computation:
# whole-array expressions, broadcasting instead of copies, reductions along dimensions.
# In this notebook you measure the gap yourself, and you learn to measure *honestly*
# (warm-up, repeats, min and median, threads, GPU synchronisation), because a speed claim is
# only as good as the timing behind it.
#
# **Objectives.** After this notebook you can:
# 1. time code with warm-up and repeats, read min and median, and use
#    `torch.utils.benchmark.Timer` (knowing it runs on 1 thread unless told otherwise);
# 2. explain why a Python loop over tensor elements is slow, and slower still on a GPU;
# 3. predict the shape of a broadcast, or the error it raises, from the broadcasting rules;
# 4. reduce over one or several dimensions, with `keepdim=True` to broadcast back.
#
# **Prerequisites.** [03 · Strides](03_strides.ipynb) (views, `expand`) and
# [04 · Dtypes](04_dtypes.ipynb).
#
# **Time.** 35 min teaching, 35 min exercises.

# %%
import inspect

import matplotlib.pyplot as plt
import torch

from torchcourse import claim, format_seconds, gpu_skip_message, measure, pick_device, predict, reveal, time_once
from torchcourse.bench.workloads.sums import bytes_moved, loop_sum, make_input, time_sums, vectorised_sum

# Every timing in this notebook runs on one thread (the Timer section says why);
# ALL_THREADS remembers what PyTorch would use by default.
ALL_THREADS = torch.get_num_threads()
torch.set_num_threads(1)

# %% [markdown]
# ## One sum, two ways
#
# The code of this experiment is in `torchcourse/bench/workloads/sums.py`. Here is the slow version: a Python loop that reads one
# element per iteration.

# %%
print(inspect.getsource(loop_sum))

# %% [markdown]
# The fast version is one call, `t.sum()`: a single C++ kernel reads every element once.
# Both read the same bytes (`t.numel() * t.element_size()`), and both give the same
# answer, up to the rounding of a different order of additions:

# %%
t = make_input(100_000)  # 1e5 float64 values in [0, 1), seeded
slow, fast = loop_sum(t), vectorised_sum(t)
print(f"loop:       {slow.item():.4f}")
print(f"vectorised: {fast.item():.4f}")
print("same result:", torch.allclose(slow, fast), "| bytes read by each:", bytes_moved(t))

# %% [markdown]
# ## How to time code
#
# A single stopwatch reading lies in three ways:
#
# 1. **The first call is special.** It may allocate memory, fill caches, load a library or
#    (on a GPU) initialise the device. Run the code once untimed: a *warm-up*.
# 2. **The machine is noisy.** Other programs, frequency scaling and the operating system
#    interrupt your code. Repeat the measurement and look at the **min** (the run that was
#    disturbed least: the best estimate of what the code itself costs) and the **median**
#    (a typical run). A large gap between them says the machine was busy.
# 3. **GPUs run asynchronously.** A call on a GPU returns as soon as the kernel is queued; the
#    clock must stop only after `torch.accelerator.synchronize()` (the device-agnostic spelling of
#    `torch.cuda.synchronize()`), or you time the launch, not the work.
#
# And say how many threads ran: PyTorch spreads one operation over several cores, so the same code
# takes different times at different thread counts.
#
# The course's `measure(fn)` does all three: one warm-up call, then it picks how many calls
# make a repeat last about `budget` seconds (so the clock's own resolution does not matter),
# runs `repeat` repeats, synchronises the device before starting and before stopping the
# clock, and returns every repeat's seconds-per-call with `min` and `median`. `time_once(fn)`
# times a single call, for one-off costs.

# %%
print("measure" + str(inspect.signature(measure)))
print("time_once" + str(inspect.signature(time_once)))

# %% [markdown]
# Here is `measure` on the vectorised sum of the tensor above. Look at the spread of the
# seven repeats: on a quiet machine they agree within a few percent; on a busy one the median
# drifts above the min, and the last line says by how much. Timings change from run to run,
# so your numbers will differ from anyone else's.

# %%
# NBVAL_IGNORE_OUTPUT
timing = measure(lambda: t.sum(), budget=0.05)  # 7 repeats of about 0.05 s each
print(timing, f"on {torch.get_num_threads()} thread(s)")
print("calls per repeat:", timing.number)
print("every repeat:", ", ".join(format_seconds(s) for s in timing.times))
print(f"the median is {timing.median / timing.min - 1:.0%} above the min on this run")

# %% [markdown]
# ## The loop against the vectorised sum
#
# The published figure (M.-H. Burle's PyTorch-tensors webinar, 2022, a laptop CPU; see
# [docs/reference-figures.md](../docs/reference-figures.md), C): summing
# 1e6 float64 values took **1.37 s** in a Python loop and **191.26 µs** with `sum()`, about
# **7,163×**. Now yours. `time_sums` measures both at sizes from 10 to 10 million elements.
# The loop costs microseconds per element, so it stops at 1e5 elements (a tenth of the
# published size; 1e6 would add seconds): its time grows in proportion to the size, as the
# plot below shows, so ten times the 1e5 time estimates the 1e6 loop.
#
# Both run on one thread, like every timing in this notebook: the loop can only use one
# core anyway, and the `Timer` section below shows why one thread is the fair default.
#
# **Predict 05.p1.** At 100,000 float64 elements, how many times slower than `t.sum()` is the
# Python loop on your machine? Write a number; within a factor of 3 counts as right.

# %%
predict("05.p1", None)  # replace None with your prediction

# %%
# NBVAL_IGNORE_OUTPUT
sizes = [10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000]
rows = time_sums(sizes)
print(f"{'n':>10} {'loop (min)':>12} {'sum() (min)':>12} {'loop/sum':>9} {'sum GB/s':>9}")
for r in rows:
    loop = format_seconds(r.loop.min) if r.loop else "skipped"
    ratio = f"{r.ratio:,.0f}x" if r.ratio else ""
    print(f"{r.n:>10,} {loop:>12} {format_seconds(r.vectorised.min):>12} {ratio:>9} {r.vectorised_gbps:>9.1f}")
reveal(
    "05.p1",
    rows[sizes.index(100_000)].ratio,
    within=3.0,
    why="each loop step builds a 0-d tensor and dispatches one addition (microseconds), while the "
    "kernel spends a fraction of a nanosecond per element: thousands of times, more on a fast core.",
)

# %%
# NBVAL_IGNORE_OUTPUT
by_n = {r.n: r for r in rows}
loop_1e6 = 10 * by_n[100_000].loop.min  # estimated: the loop's time is linear in n
sum_1e6 = by_n[1_000_000].vectorised.min
print(
    f"1e6 float64, this machine:  loop ≈ {format_seconds(loop_1e6)} (10 × the 1e5 loop), "
    f"sum() {format_seconds(sum_1e6)}: ≈ {loop_1e6 / sum_1e6:,.0f}x"
)
print("1e6 float64, published:     loop 1.37 s, sum() 191 µs: ≈ 7,163x (laptop CPU)")
print(
    f"per element: loop {format_seconds(by_n[100_000].loop.min / 100_000)}, sum() {format_seconds(sum_1e6 / 1_000_000)}"
)

# %% [markdown]
# The cell below checks what the rest of this notebook relies on, with margins wide enough for
# any machine: at 1e5 elements the loop is more than a hundred times slower than the vectorised sum
# (the table gives your ratio at every size; the published one is 7,163x), and per element the
# vectorised sum costs a few nanoseconds or less, while the loop costs roughly a microsecond or more: that
# per-element cost is what you pay for every element you touch from Python. At 10 or 100 elements
# the ratio is much smaller: there the vectorised call costs its fixed overhead, not its elements
# (the plot below shows it). On a busy machine every repeat of either can be paused while other
# programs run; the min of several repeats is the least disturbed one, which is why the table uses it.

# %%
loop_per_element = by_n[100_000].loop.min / 100_000
sum_per_element = by_n[10_000_000].vectorised.min / 10_000_000
# Python loop (a microsecond per element) vs one kernel (nanoseconds): >100x on any CPU, at 1 thread.
claim(by_n[100_000].ratio > 100, "the Python loop over 1e5 elements is more than 100x slower than t.sum()")
claim(loop_per_element > 100 * sum_per_element, "per element, the loop costs more than 100x the vectorised sum")
# 10 ns per float64 is 0.8 GB/s, far below any CPU's memory bandwidth, even at one thread.
claim(sum_per_element < 10e-9, "the vectorised sum of 1e7 elements costs less than 10 ns per element")

# %% [markdown]
# On log–log axes the picture is clearer than the table. Straight lines of slope 1 mean
# "time proportional to size":

# %%
ns = [r.n for r in rows]
fig, ax = plt.subplots(figsize=(6.5, 4))
looped = [r for r in rows if r.loop]
ax.loglog([r.n for r in looped], [r.loop.min for r in looped], "o-", label="Python loop (loop_sum)")
ax.loglog(
    [1e5, 1e6], [by_n[100_000].loop.min, loop_1e6], "o:", color="C0", alpha=0.6, label="loop, extrapolated to 1e6"
)
ax.loglog(ns, [r.vectorised.min for r in rows], "s-", label="vectorised (t.sum())")
ax.loglog([1e6, 1e6], [1.37, 191.26e-6], "k*", markersize=10, label="published, laptop CPU (1e6)")
ax.set(
    xlabel="number of float64 elements",
    ylabel="seconds per sum (min of repeats)",
    title="Summing a tensor: loop vs vectorised, one thread",
)
ax.grid(alpha=0.3, which="both")
ax.legend()
plt.show()

# %% [markdown]
# Read the plot from left to right:
#
# * the **loop** is a straight line: every element costs the same microseconds, from 10
#   elements to 100,000;
# * the **vectorised** sum is flat at first: below some ten thousand elements you pay only
#   the fixed cost of one call (Python → dispatcher → kernel, a microsecond or a few), whatever
#   the size; then it turns into a line too, limited by how fast the bytes arrive (the
#   `sum GB/s` column above). On most CPUs its GB/s is highest for tensors of some hundred kB to
#   several MB and falls for the largest. Cache is the usual suspect, but a table alone does not
#   show it: what decides is the limit below. A row that reads faster than main memory can deliver
#   on this thread can only have been served from the CPU's caches; where yours falls depends on
#   their sizes.
#
# The cell below sets the largest row beside the limit that matches its traffic: a sum only reads,
# so its limit is the read bandwidth of main memory, measured here by summing a 256 MiB tensor on
# one thread (`torchcourse.timing.read_bandwidth`).
#
# %%
# NBVAL_IGNORE_OUTPUT
from torchcourse.timing import read_bandwidth

read_limit = read_bandwidth()  # GB/s of a 256 MiB float32 sum, on this notebook's one thread
largest = by_n[10_000_000]
print(
    f"sum of 1e7 float64 (80 MB), one thread: {largest.vectorised_gbps:.1f} GB/s, "
    f"{largest.vectorised_gbps / read_limit:.0%} of the read limit measured now ({read_limit:.1f} GB/s)"
)
fastest = max(rows, key=lambda r: r.vectorised_gbps)
print(
    f"fastest row: n = {fastest.n:,} ({fastest.nbytes / 1e6:g} MB), {fastest.vectorised_gbps:.1f} GB/s, "
    f"{fastest.vectorised_gbps / read_limit:.1f}x the main-memory read limit"
)
if fastest.vectorised_gbps > 1.2 * read_limit:
    print("that row read faster than main memory delivers on this thread: it came from cache")
else:
    print("no row beat the main-memory read limit by 20% on this run: nothing here shows a cache effect")

# %% [markdown]
# So vectorise, and also: do few large operations rather than many small ones, because
# each call has a fixed cost. The table above shows it in numbers:

# %%
# NBVAL_IGNORE_OUTPUT
ten, thousand_input = make_input(10), make_input(1_000)
fixed = measure(lambda: ten.sum(), repeat=15, budget=0.01).min  # more repeats: a steadier min
thousand = measure(lambda: thousand_input.sum(), repeat=15, budget=0.01).min
print(f"t.sum() of 10 elements: {format_seconds(fixed)}; of 1,000: {format_seconds(thousand)}")
print(f"100 times more elements cost {thousand / fixed:.1f}x the time on this run.")

# %% [markdown]
# ## Why the loop is slow
#
# `t[i]` is not a Python float: it is a new tensor, a 0-dimensional view with its own
# Python object, shape, stride and storage reference. Each loop step builds one, dispatches
# an addition through PyTorch's operator machinery for a single number, and runs Python
# bytecode around it. The arithmetic itself, one addition, is the smallest part: the
# vectorised sum does all 1e5 additions in the time of a few loop steps.

# %%
element = t[0]
print(
    type(element).__name__,
    "| dim:",
    element.dim(),
    "| shares t's storage:",
    element.untyped_storage().data_ptr() == t.untyped_storage().data_ptr(),
)
print("as a Python float:", type(element.item()).__name__)

# %% [markdown]
# Time each part on its own, over the same 1e5 elements: the Python loop with an empty body, the
# loop that only builds `t[i]`, the loop that only adds a ready-made 0-d tensor to the total, and
# the whole `loop_sum`. The four take turns, round after round, so a busy moment slows all of them
# alike (`torchcourse.timing.interleaved`):

# %%
# NBVAL_IGNORE_OUTPUT
from torchcourse.timing import interleaved

n_loop = t.shape[0]
element = t[0]


def bare_loop():
    for i in range(n_loop):
        pass


def index_only():
    for i in range(n_loop):
        t[i]


def add_only():
    total = torch.zeros((), dtype=t.dtype)
    for i in range(n_loop):
        total += element


labels = ["empty Python loop", "t[i] only", "total += (0-d tensor) only", "loop_sum(t)"]
parts = dict(zip(labels, interleaved([bare_loop, index_only, add_only, lambda: loop_sum(t)], rounds=3)))
for name, seconds in parts.items():
    print(f"{name:>27}: {format_seconds(seconds / n_loop):>9} per element")
both = parts["t[i] only"] + parts["total += (0-d tensor) only"]
print(f"t[i] and the addition together: {both / parts['loop_sum(t)']:.0%} of loop_sum's time")

# %%
# Python bytecode for an empty loop step costs tens of ns; building a tensor or dispatching an add
# costs hundreds: >5x on any CPU, at any load (the four take turns).
claim(parts["t[i] only"] > 5 * parts["empty Python loop"], "building t[i] costs more than 5x an empty loop step")
claim(
    parts["total += (0-d tensor) only"] > 5 * parts["empty Python loop"],
    "one dispatched addition costs more than 5x an empty loop step",
)
# The parts are the loop's own work minus a few ns of bytecode: well above half of it on any CPU.
both = parts["t[i] only"] + parts["total += (0-d tensor) only"]
claim(both > 0.6 * parts["loop_sum(t)"], "building t[i] and the addition account for most of the loop's time")

# %% [markdown]
# The two tensor operations, building `t[i]` and dispatching one addition, account for the loop's
# time (the last line above); the Python loop around them is a small part, and reading 8 bytes per
# element is smaller still. The cost is per element and per call, not per byte.
#
# If you really must loop in Python, loop over Python numbers: `t.tolist()` converts the
# whole tensor in one call, and Python's own `sum` over floats skips the per-element
# tensor overhead. It is still far from one vectorised call:

# %%
# NBVAL_IGNORE_OUTPUT
t_loop = by_n[100_000].loop  # measured above, on the same 1e5 elements
t_list = measure(lambda: sum(t.tolist()), repeat=5, budget=0.05)
t_vec = measure(lambda: t.sum(), repeat=5, budget=0.05)
for name, tm in [("loop over tensor elements", t_loop), ("sum(t.tolist())", t_list), ("t.sum()", t_vec)]:
    print(f"{name:>26}: {format_seconds(tm.min):>9}  ({tm.min / t_vec.min:,.0f}x t.sum())")

# %%
print("sum(t.tolist()) agrees:", abs(sum(t.tolist()) - t.sum().item()) < 1e-6)
# ~1 µs of tensor work per element vs tens of ns for a Python float; a Python float add vs a
# vector kernel's fraction of a ns: both ratios are ~100x, so 10x holds on any CPU at 1 thread.
claim(t_loop.min > 10 * t_list.min, "looping over Python floats is more than 10x faster than over tensor elements")
claim(t_list.min > 10 * t_vec.min, "sum(t.tolist()) is still more than 10x slower than t.sum()")

# %% [markdown]
# ### On a GPU the loop is slower still (optional)
#
# On a GPU every `total += t[i]` is a kernel launch: several microseconds of CPU-side work
# plus a queue entry, for one addition. The GPU's thousands of cores sit idle. The published
# figures (same webinar, laptop GPU): the 1e6 loop took **4.54 s** on the GPU, *slower* than
# its 1.37 s on the CPU, while the GPU's `sum()` took **50.62 µs**, about **89,688×** faster
# than its loop. The next cell measures it when a GPU is present (on 10,000 elements, to keep
# it short) and says what it skipped otherwise.

# %%
# NBVAL_IGNORE_OUTPUT
device = pick_device()
message = gpu_skip_message("timing the element-by-element loop on the GPU")
if message:
    print(message)
else:
    dtype = torch.float32 if device.type == "mps" else torch.float64  # MPS has no float64
    tg = make_input(10_000, dtype=dtype, device=device)
    gpu_loop = measure(lambda: loop_sum(tg), repeat=3, number=1, device=device)
    gpu_sum = measure(lambda: tg.sum(), device=device)
    print(
        f"{device.type}, 1e4 {dtype}: loop {format_seconds(gpu_loop.min)} "
        f"({format_seconds(gpu_loop.min / 10_000)} per element), sum() {format_seconds(gpu_sum.min)}"
    )

# %% [markdown]
# ## `torch.utils.benchmark.Timer`
#
# PyTorch ships its own timer. You give it a statement as a string, plus the variables it
# uses in `globals`. `blocked_autorange()` warms up, picks a block size (how many runs per
# measurement) so the timer's overhead is negligible, and measures blocks until
# `min_run_time` seconds have passed (the block-size search doubles as the warm-up). Its clock
# synchronises the GPU for you, through `torch.accelerator.synchronize()`.
#
# It returns a `Measurement`. Print its fields (`median`, `mean`, `iqr`, `times`,
# `number_per_run`, `task_spec.num_threads`), not the object itself: its text begins
# with the object's memory address, which changes every run.

# %%
from torch.utils.benchmark import Timer

big = make_input(1_000_000)
m1 = Timer("big.sum()", globals={"big": big}).blocked_autorange(min_run_time=0.2)
print("threads used by default:", m1.task_spec.num_threads)
# by construction: Timer's default num_threads
claim(m1.task_spec.num_threads == 1, "torch.utils.benchmark.Timer runs on one thread by default")

# %% [markdown]
# **Timer runs on 1 thread unless you say otherwise**, while PyTorch itself uses all the
# cores it finds (`torch.get_num_threads()`; the first code cell saved that number as
# `ALL_THREADS` before switching this notebook to one thread). Single-thread numbers are
# reproducible and compare code fairly; they are not what your program gets. Pass
# `num_threads=` to measure with more:

# %%
# NBVAL_IGNORE_OUTPUT
mN = Timer("big.sum()", globals={"big": big}, num_threads=ALL_THREADS).blocked_autorange(min_run_time=0.2)
for m in (m1, mN):
    print(
        f"Timer, {m.task_spec.num_threads} thread(s): median {format_seconds(m.median)}, "
        f"IQR {format_seconds(m.iqr)}, {len(m.times)} blocks of {m.number_per_run} runs"
    )
print(f"measure, {torch.get_num_threads()} thread(s): {measure(lambda: big.sum(), budget=0.05)}")
if ALL_THREADS == 1:
    print("PyTorch uses one thread here anyway, so both Timer lines measure the same thing.")
else:
    faster = "faster" if mN.median < m1.median else "slower"
    print(f"On this run {ALL_THREADS} threads were {faster} than one: {mN.median / m1.median:.2g}x its median time.")

# %% [markdown]
# On an idle machine with several cores, more threads make a large sum faster. On a busy
# machine the reverse can happen: a parallel kernel waits at its end for every thread, and
# a thread the operating system has paused makes everyone wait, so the many-thread line can
# come out *slower*; the last line above says which happened on this run. That is why this
# notebook times on one thread, and why the course's timings say how many threads they used.
#
# `measure` and `Timer` report the same quantity, seconds per call after a warm-up, so the
# one-thread lines above should be close; use whichever reads better. `Timer` adds `Compare`
# tables and instruction counts (`collect_callgrind`); `measure` takes any Python callable
# and keeps every repeat.

# %% [markdown]
# ## Broadcasting
#
# Vectorised code needs operands of matching shapes, and broadcasting makes shapes match
# without copying data. The rules, applied to two shapes:
#
# 1. line the shapes up **from the right** (prepend 1s to the shorter one);
# 2. in each position the sizes must be **equal, or one of them 1**;
# 3. a size 1 is stretched to the other size (as a stride-0 view, no copy).
#
# | shape of `a` | shape of `b` | result |
# |---|---|---|
# | `(5, 3)` | `(3,)` | `(5, 3)`: `b` is repeated for every row |
# | `(5, 1)` | `(1, 4)` | `(5, 4)`: every pair |
# | `(2, 1, 3)` | `(4, 3)` | `(2, 4, 3)` |
# | `(5, 3)` | `(5,)` | error: 3 and 5 in the last position |
#
# A typical use: centre each column of a table by subtracting the column means.

# %%
torch.manual_seed(0)
table = torch.randn(5, 3) * torch.tensor([1.0, 10.0, 100.0]) + torch.tensor([0.0, 50.0, -20.0])
col_means = table.mean(dim=0)  # shape (3,)
centred = table - col_means  # (5, 3) - (3,) -> (5, 3)
print("shapes:", tuple(table.shape), "-", tuple(col_means.shape), "->", tuple(centred.shape))
print("column means after centring:", centred.mean(dim=0).abs().max().item() < 1e-4)

# %% [markdown]
# A column against a row gives every pair: here a multiplication table, and
# `torch.broadcast_shapes` answers the shape question without any data.

# %%
col = torch.arange(1, 4).reshape(3, 1)
row = torch.arange(1, 6).reshape(1, 5)
print(col * row)
print(torch.broadcast_shapes((2, 1, 3), (4, 3)))

# %% [markdown]
# The stretched operand is never copied: `expand` shows what broadcasting does inside, a
# view with stride 0 along the new dimension (module 03).

# %%
stretched = col_means.expand(5, 3)
print(
    "stride:",
    stretched.stride(),
    "| same storage:",
    stretched.untyped_storage().data_ptr() == col_means.untyped_storage().data_ptr(),
)

# %% [markdown]
# **A silent one: a column against a vector.** A model's predictions often come out as a column,
# shape `(4, 1)`, while the targets are a vector, shape `(4,)`. Aligned from the right, `(4, 1)`
# and `(4,)` are *compatible*: every size pairs with a 1.
#
# **Predict 05.p2.** What is the shape of `pred - target`? Write it as a tuple in a string, e.g.
# `"(4,)"`.

# %%
predict("05.p2", None)  # replace None with your prediction

# %%
pred = torch.tensor([[1.0], [2.0], [3.0], [4.0]])  # (4, 1)
target = torch.tensor([1.0, 2.0, 3.0, 4.0])  # (4,)
residual = pred - target
print(
    "shape:", tuple(residual.shape), "| mean squared error:", (residual**2).mean().item(), "(the right answer is 0.0)"
)
reveal(
    "05.p2",
    str(tuple(residual.shape)),
    why="(4, 1) against (1, 4) after the 1 is prepended: each size pairs with a 1, so both stretch and "
    "you get all 16 differences. No error, a wrong loss: flatten one side (`pred.squeeze(1)`) first.",
)

# %% [markdown]
# Put the rules together for a real computation: the distance from each of 4 points to
# each of 3 centres, both in 2-D. Insert size-1 dimensions with `None` so that
# `(4, 1, 2) - (1, 3, 2)` broadcasts to `(4, 3, 2)`, then reduce the last dimension:

# %%
points = torch.tensor([[0.0, 0.0], [1.0, 1.0], [4.0, 0.0], [3.0, 4.0]])
centres = torch.tensor([[0.0, 0.0], [4.0, 0.0], [0.0, 3.0]])
dist = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(dim=-1).sqrt()
print(dist.round(decimals=3))
print("nearest centre of each point:", dist.argmin(dim=1))

# %% [markdown]
# ## Reductions over one or several dimensions
#
# A reduction (`sum`, `mean`, `amax`, `std`, `argmax`, ...) collapses the dimensions you
# name with `dim=` and keeps the others. `dim` may be a tuple. For a batch of images
# `(N, C, H, W)`, the mean of each channel over all images and pixels reduces `(0, 2, 3)`:

# %%
x = torch.arange(24.0).reshape(2, 3, 4)
print("x.sum()            ->", x.sum())
print("x.sum(dim=0)       ->", tuple(x.sum(dim=0).shape))
print("x.sum(dim=(0, 2))  ->", x.sum(dim=(0, 2)))
print("x.amax(dim=-1)     ->", x.amax(dim=-1).tolist())

# %% [markdown]
# `keepdim=True` keeps each reduced dimension with size 1, so the result broadcasts back
# against the input. Normalising each row of a matrix to sum to 1:

# %%
w = torch.tensor([[1.0, 3.0], [2.0, 2.0], [0.0, 5.0]])
row_sums = w.sum(dim=1, keepdim=True)  # shape (3, 1), not (3,)
print(tuple(row_sums.shape))
print(w / row_sums)

# %% [markdown]
# Two things to know about reductions:
#
# * `argmax`/`argmin` take one `dim` (they return positions along it); `amax`/`amin` take
#   several. `max(dim=...)` returns both values and indices.
# * Summing integers promotes to `int64` (module 04): the sum of an `int8` tensor is an
#   `int64`, unless you pass `dtype=`.
#
# **Predict 05.p3.** `small` is a `(4, 3)` tensor of `int8` ones. What dtype is `small.sum()`?
# One of `"int8"`, `"int16"`, `"int32"`, `"int64"`.

# %%
predict("05.p3", None)  # replace None with your prediction

# %%
small = torch.ones(4, 3, dtype=torch.int8)
print(small.sum().dtype, small.sum(dim=0).dtype, small.sum(dim=0, dtype=torch.int16).dtype)
claim(small.sum().dtype == torch.int64, "the sum of an int8 tensor is int64")
reveal(
    "05.p3",
    small.sum().dtype,
    choices=("int8", "int16", "int32", "int64"),
    why="`sum` of any integer or bool tensor accumulates in int64 unless you pass dtype=: twelve int8 "
    "ones would fit in int8, but the result dtype never depends on the values.",
)

# %% [markdown]
# int64 makes overflow unlikely, not impossible: past 2**63 − 1 an int64 sum wraps around
# silently, like every integer operation:

# %%
huge = torch.tensor([2**62, 2**62])
wrapped = huge.sum()
print(f"{huge.dtype} sum: {wrapped.item()} | exact: {2**63}")
claim(wrapped.item() < 0, "an int64 sum past 2**63 - 1 wraps around to a negative number")

# %% [markdown]
# And the promotion costs memory. The result of a full sum is one 8-byte number, but on the
# CPU, before it reduces, `sum` converts the whole *input* to int64: an int8 tensor is copied at
# eight times its size. The profiler's memory records (`profile_memory=True`, wrapped in the
# course helper `bytes_allocated`) show what one call allocated:

# %%
from torchcourse.bench.workloads.ga import bytes_allocated

ones8 = torch.ones(1_000_000, dtype=torch.int8)
input_bytes = ones8.numel() * ones8.element_size()
result = ones8.sum()
for label, fn in [
    ("ones8.sum()", lambda: ones8.sum()),
    ("ones8.sum(dtype=torch.int16)", lambda: ones8.sum(dtype=torch.int16)),
]:
    allocated = bytes_allocated(fn)
    print(
        f"{label:<29} allocates {allocated / 1e6:.1f} MB = {allocated / input_bytes:.1f}x its {input_bytes / 1e6:.0f} MB input"
    )
print(f"the result: {result.numel() * result.element_size()} bytes of {result.dtype}")
claim(
    bytes_allocated(lambda: ones8.sum()) >= 8 * input_bytes, "the int8 sum allocates at least 8 bytes per input element"
)
claim(
    result.element_size() * result.numel() == 8,
    "the result is one 8-byte number, so the allocation is a copy of the input",
)

# %% [markdown]
# Pass the smallest accumulator that cannot overflow (`dtype=torch.int16` above, when the
# total fits) and the hidden copy shrinks with it.
# %% [markdown]
# ## Common mistakes
#
# **Shapes that do not broadcast.** Subtracting the row means `(5,)` from a `(5, 3)` table
# lines up 3 against 5 in the last position. PyTorch names the sizes and the position:

# %% tags=["raises-exception"]
table - table.mean(dim=1)

# %% [markdown]
# Fix: keep the reduced dimension, `table - table.mean(dim=1, keepdim=True)`.
#
# **The same mistake with a square matrix runs silently.** With a `(3, 3)` matrix the shapes
# broadcast, but `(3,)` lines up with the *columns*: every column is divided by one row's
# sum. No error, wrong numbers:

# %%
sq = torch.tensor([[1.0, 1.0, 2.0], [1.0, 3.0, 0.0], [2.0, 2.0, 4.0]])
wrong = sq / sq.sum(dim=1)
right = sq / sq.sum(dim=1, keepdim=True)
print("rows sum to 1 without keepdim:", torch.allclose(wrong.sum(dim=1), torch.ones(3)))
print("rows sum to 1 with keepdim:   ", torch.allclose(right.sum(dim=1), torch.ones(3)))

# %% [markdown]
# Test code on non-square inputs: a shape bug then fails loudly instead of quietly.
#
# **An in-place operation cannot broadcast its own output.** `col_means - table` broadcasts to
# `(5, 3)`, but `col_means -= table` would have to grow `col_means` from `(3,)` to `(5, 3)` in
# place, so it raises; the other way round, `table -= col_means`, is fine:

# %% tags=["raises-exception"]
col_means -= table

# %% [markdown]
#
# **Reducing over a dimension that is not there.** A 2-D tensor has dimensions 0 and 1
# (or -2 and -1):

# %% tags=["raises-exception"]
table.sum(dim=2)

# %% [markdown]
# **Printing a `Measurement`.** `print(Timer(...).blocked_autorange())` shows a readable
# summary, but it starts with `<torch.utils.benchmark.utils.common.Measurement object at
# 0x7f...>`, an address that changes every run. Print `m.median` and the other fields.
#
# **Timing once, without a warm-up.** The first call includes one-off costs; compare it
# with the min of repeated calls:

# %%
# NBVAL_IGNORE_OUTPUT
fresh = make_input(1_000_000, seed=1)
_, first = time_once(lambda: torch.cumsum(fresh, dim=0))
later = measure(lambda: torch.cumsum(fresh, dim=0))
print(f"first call {format_seconds(first)}, then {later}")
print(f"the first call took {first / later.min:.1f}x the min of the repeated calls on this run")

# %% [markdown]
# ## Key points
#
# * A Python loop over tensor elements pays microseconds per element; one vectorised call
#   pays a few microseconds once, then a nanosecond or less per element. Published: 1.37 s
#   vs 191 µs for 1e6 float64 (laptop CPU), and the loop is slower still on a GPU (4.54 s).
# * Time with a warm-up and repeats; report the min (the code's cost) and the median (a
#   typical run) and the number of threads; synchronise a GPU before reading the clock
#   (`torch.accelerator.synchronize()`). `measure` does all of this.
# * `torch.utils.benchmark.Timer` uses **1 thread** unless given `num_threads`; print its
#   Measurement's fields, not the object.
# * Broadcasting aligns shapes from the right; sizes must match or be 1; nothing is copied.
# * Reduce with `dim=` (an int or a tuple); `keepdim=True` lets the result broadcast back.
#   Test on non-square shapes so a wrong `dim` fails loudly.
# * An integer `sum` returns int64, which can still wrap, and first copies an int8 input at
#   eight times its size; pass `dtype=` for a smaller accumulator.

# %% [markdown]
# ## Further reading
#
# * Within this course: [16 · Advanced indexing](16_indexing.ipynb) drills the indexing a vectorised
#   rewrite needs (masks, `where`, `gather`, `scatter_add_`, `index_add_`), each without a loop.
# * [Benchmark Utils, `torch.utils.benchmark`](https://docs.pytorch.org/docs/2.13/benchmark_utils.html):
#   `Timer`, `Measurement`, `Compare`, for the PyTorch version these outputs were made with.
# * [PyTorch Benchmark recipe](https://docs.pytorch.org/tutorials/recipes/recipes/benchmark.html):
#   threads, warm-up and `blocked_autorange` step by step.
# * [Broadcasting semantics](https://docs.pytorch.org/docs/stable/notes/broadcasting.html): the rules
#   used above, with in-place caveats.
# * [Everything you wanted to know (and more) about PyTorch tensors](https://mint.westdri.ca/ai/wb_torchtensors.html)
#   (M.-H. Burle, 2022): the webinar whose loop and `sum()` timings this notebook quotes; the figures
#   and their hardware are in [docs/reference-figures.md](../docs/reference-figures.md), C.

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 12 statements of this lesson are tested facts; all pass on torch 2.13.0. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“<code>t[i]</code> is not a Python float: it is a new tensor, a 0-dimensional view”</td><td>✓</td></tr>
# <tr><td>“Timer runs on 1 thread unless you say otherwise”</td><td>✓</td></tr>
# <tr><td>“Its clock synchronises the GPU for you, through <code>torch.accelerator.synchronize()</code>”</td><td>✓</td></tr>
# <tr><td>“its text begins with the object&#x27;s memory address”</td><td>✓</td></tr>
# <tr><td>“a size 1 is stretched to the other size (as a stride-0 view, no copy)”</td><td>✓</td></tr>
# <tr><td>“<code>argmax</code>/<code>argmin</code> take one <code>dim</code> (they return positions along it); <code>amax</code>/<code>amin</code> take several. <code>max(dim=...)</code> returns both values and indices.”</td><td>✓</td></tr>
# <tr><td>“<code>keepdim=True</code> keeps each reduced dimension with size 1”</td><td>✓</td></tr>
# <tr><td>“past 263 − 1 an int64 sum wraps around silently”</td><td>✓</td></tr>
# <tr><td>“on the CPU, before it reduces, <code>sum</code> converts the whole input to int64: an int8 tensor is copied at eight times its size”</td><td>✓</td></tr>
# <tr><td>“Aligned from the right, <code>(4, 1)</code> and <code>(4,)</code> are compatible: every size pairs with a 1.”</td><td>✓</td></tr>
# <tr><td>“<code>col_means -= table</code> would have to grow <code>col_means</code> from <code>(3,)</code> to <code>(5, 3)</code> in place, so it raises; the other way round, <code>table -= col_means</code>, is fine”</td><td>✓</td></tr>
# <tr><td>“<code>sum</code> of any integer or bool tensor accumulates in int64 unless you pass dtype=”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/05_vectorisation.ipynb](../exercises/05_vectorisation.ipynb) ·
# **Previous:** [04 · Dtypes](04_dtypes.ipynb) ·
# **Next:** [06 · Linear algebra](06_linear_algebra.ipynb)
