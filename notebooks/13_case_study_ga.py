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
# *Module 13 of 00–15 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/13_case_study_ga.ipynb) · previous: [12 · Compiling NumPy code](12_compiling_numpy.ipynb) · next: [14 · Autograd as a calculus engine](14_autograd_calculus.ipynb)

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
# # 13 · Case study: genetic-algorithm fitness
#
# A genetic algorithm (GA) scores every individual of a large population each generation,
# so its *fitness function* is where the time goes. A published blog post, "Making NumPy go
# faster with pytorch.compile" (measured on a laptop CPU and laptop GPU), timed three
# fitness functions on a population of 900,000 in pure Python, NumPy and `torch.compile`.
# This notebook repeats that study on the course's machine, finds a memory trap hidden in
# one of its variants (an int8 sum that quietly allocates eight times its input), and ends
# with a whole GA, selection, crossover and mutation, running on tensors as one compiled
# step per generation.
#
# **Objectives.** After this notebook you can:
# 1. write one fitness function five ways (pure Python, NumPy, compiled NumPy, torch eager,
#    compiled torch) and check that they agree before timing them;
# 2. time them honestly, scale a measurement to a published problem size and say so;
# 3. spot and avoid the int8 → int64 promotion that multiplies memory by 8;
# 4. vectorise a GA generation (tournaments, blend crossover, mutation, elitism) and
#    compile it once.
#
# **Prerequisites.** 05 (vectorisation and timing), 09 (compile overhead), 12 (compiling
# NumPy code).
#
# **Time.** 35 min teaching, 30 min exercises.

# %% [markdown]
# ## One implementation, imported
#
# Every variant lives in `torchcourse/workloads/ga.py`; this lesson, the exercises and the
# course's benchmark import it, so the code you read here is the code that is timed. The
# first fitness function is the simplest: a chromosome is 1,000 integer genes in 1..24,
# and its fitness is their sum.

# %%
import inspect

import matplotlib.pyplot as plt
import numpy as np
import torch

from torchcourse import gpu_skip_message, has_gpu, measure, pick_device, time_once
from torchcourse.workloads import ga

for fn in (ga.sum_python, ga.sum_numpy_apply, ga.sum_numpy, ga.sum_torch_naive, ga.sum_torch):
    body = inspect.getsource(fn).split('"""')[-1].strip()
    print(f"{fn.__name__:16s} {body}")


# %% [markdown]
# The compiled variants are `torch.compile` applied to two of these:
# `ga.sum_numpy_compiled = torch.compile(ga.sum_numpy)` compiles the *NumPy* code (module 12),
# `ga.sum_torch_compiled = torch.compile(ga.sum_torch)` the torch code.
#
# A short helper keeps the timings cheap on a 2-core machine (5 repeats, each about
# 50 ms): the numbers are noisy but the orders of magnitude are not.


# %%
def timed(fn):
    return measure(fn, repeat=5, budget=0.05)


# %% [markdown]
# ## Example 1: the sum of 1,000 genes
#
# The published population is 900,000 chromosomes: 900 MB even in int8. To stay within
# this course's memory and time budget we use **one tenth, 90,000 chromosomes**, and scale
# times by 10 to set them beside the published ones (a sum over bytes grows linearly with
# the bytes). int8 is the right storage: each gene fits in a byte.

# %%
SCALE1 = 10
pop = ga.gene_population(ga.PUBLISHED_POPULATION // SCALE1)
pop_np = pop.numpy()  # the same memory, seen by NumPy
print("population:", tuple(pop.shape), pop.dtype, f"{pop.nbytes / 1e6:.0f} MB")
print("first chromosome starts:", pop[0, :8].tolist())

# %% [markdown]
# Pure Python and `apply_along_axis` call Python once per chromosome, so we time them on a
# 3,000-chromosome subsample and extrapolate (labelled as such). Before any timing, every
# variant must give the same sums:

# %%
SUB = 3_000
sub_list = pop_np[:SUB].tolist()
reference = ga.sum_numpy(pop_np)
agree = {
    "python (subsample)": ga.sum_python(sub_list) == reference[:SUB].tolist(),
    "numpy apply_along_axis (subsample)": np.array_equal(ga.sum_numpy_apply(pop_np[:SUB]), reference[:SUB]),
    "torch eager, int32 sum": torch.equal(ga.sum_torch(pop).long(), torch.from_numpy(reference)),
}
for name, ok in agree.items():
    print(f"numpy == {name}: {ok}")

# %% [markdown]
# Now the timings, with the eager int8 sum and the two compiled variants (their results
# are checked in the cell after the table). A first call includes compiling, so it is timed
# apart from the later calls. The table scales our times to the published population and
# puts the blog post's published figures (laptop CPU) beside them.

# %%
# NBVAL_IGNORE_OUTPUT
rows1 = []  # (variant, seconds at 900,000 (ours, scaled), published seconds)
t = timed(lambda: ga.sum_python(sub_list))
rows1.append(("pure Python *", t.min * ga.PUBLISHED_POPULATION / SUB, 6.91))
t = timed(lambda: ga.sum_numpy_apply(pop_np[:SUB]))
rows1.append(("NumPy apply_along_axis *", t.min * ga.PUBLISHED_POPULATION / SUB, 5.19))
rows1.append(("NumPy sum(axis=1)", timed(lambda: ga.sum_numpy(pop_np)).min * SCALE1, 0.51))
out_np_c, first_np = time_once(lambda: ga.sum_numpy_compiled(pop_np))
rows1.append(("compiled NumPy, later calls", timed(lambda: ga.sum_numpy_compiled(pop_np)).min * SCALE1, 0.41))
out_naive, once = time_once(lambda: ga.sum_torch_naive(pop))
rows1.append(("torch eager sum(dim=1), int8", once * SCALE1, 2.52))
rows1.append(("torch eager sum(dim=1, dtype=int32)", timed(lambda: ga.sum_torch(pop)).min * SCALE1, None))
out_t_c, first_t = time_once(lambda: ga.sum_torch_compiled(pop))
rows1.append(("compiled torch, later calls", timed(lambda: ga.sum_torch_compiled(pop)).min * SCALE1, 0.067))


def show(rows):
    print(f"{'variant':38s} {'ours, s':>10s} {'published, s':>13s}")
    for name, ours, published in rows:
        pub = f"{published:13.3f}" if published is not None else f"{'-':>13s}"
        print(f"{name:38s} {ours:10.3f} {pub}")


show(rows1)
print("* timed on a 3,000-chromosome subsample, extrapolated to 900,000; the rest timed on 90,000 x 10")
print(
    f"first calls, compile included, at 90,000 (not scaled: compiling does not grow with the data): "
    f"compiled NumPy {first_np:.1f} s, compiled torch {first_t:.1f} s; published at 900,000: 0.59 s, 4.10 s"
)
print(f"(this machine: {torch.get_num_threads()} threads)")

# %%
print("numpy == torch eager int8 sum:", torch.equal(out_naive, torch.from_numpy(reference)))
print("numpy == compiled numpy:", np.array_equal(out_np_c, reference))
print("numpy == compiled torch:", torch.equal(out_t_c.long(), torch.from_numpy(reference)))

# %% [markdown]
# Read the table from the output above, not from memory. On the course's 2-core test
# machine the Python-level variants (pure Python, `apply_along_axis`) are several times
# slower than one NumPy reduction, and so is the eager int8 torch sum (the next section
# shows why). Compiling the NumPy function does not beat NumPy here: it keeps NumPy's
# int64 accumulator. Compiled torch with an int32 accumulator is the fastest variant, a few
# times faster than NumPy. Its first call costs seconds (module 09): a fitness function
# called once is not worth compiling; one called every generation may be. The published
# laptop shows compiled torch 7x ahead of NumPy; a sum is memory-bound, so how far ahead
# depends on cores and memory bandwidth.

# %% [markdown]
# ## The int8 sum trap
#
# `torch.sum` of integers accumulates in int64, and so does NumPy's `sum`: 1,000 genes of
# at most 24 would overflow int8. The difference is *how*. NumPy converts small blocks as it
# goes; eager torch first converts the **whole input** to int64, a temporary copy 8x the
# size of the population. The profiler's memory events show it (`ga.bytes_allocated`
# sums the bytes torch's allocator handed out during a call):

# %%
print(
    "int8 sum gives:", torch.ones(3, dtype=torch.int8).sum().dtype, "| NumPy's:", np.ones(3, dtype=np.int8).sum().dtype
)
part = pop[:10_000]  # a slice is enough to see the ratio
for name, fn in [
    ("eager sum(dim=1)", lambda: ga.sum_torch_naive(part)),
    ("eager sum(dim=1, dtype=torch.int32)", lambda: ga.sum_torch(part)),
    ("compiled sum(dim=1, dtype=torch.int32)", lambda: ga.sum_torch_compiled(pop)),
]:
    ratio = ga.bytes_allocated(fn) / (pop.nbytes if "compiled" in name else part.nbytes)
    print(f"{name:40s} allocates {ratio:.1f} bytes per input byte")

# %% [markdown]
# At the published size the first line is a 7.2 GB temporary for a 900 MB population: on
# a 16 GB laptop that is the difference between a run and a swap storm. `dtype=torch.int32`
# halves the copy in eager mode; compiled, the conversion fuses into the reduction and no
# copy is made at all. An accumulator must still be wide enough: a sum of 1,000 genes up to
# 24 needs 15 bits, so int8 silently wraps around:

# %%
print("int32 sums:", ga.sum_torch(pop[:4]).tolist())
print("int8 sums: ", pop[:4].sum(dim=1, dtype=torch.int8).tolist())

# %% [markdown]
# ## Examples 2 and 3: constrained fitness
#
# The other two functions score a point `(x, y, z)` under constraints. The cost is `f`
# where the constraints hold and `+inf` where they do not, so a minimiser never picks an
# infeasible point. (The post scores `−f`; minimising `f` ranks points the same way.)
#
# * function 2: `f = x² + 2y² + 3z² + 4xy − 5yz` with `x ≥ 1, 3 < y ≤ 7, z < 0,
#   x + y + z ≥ 3, x² + z² ≤ 10`;
# * function 3: `f = sin x + x² − 2 cos y + y² + z²` with `x ≥ 0, 0 ≤ y ≤ π, z ≤ 5,
#   x + z ≥ 1, cos y + z ≥ 0.5`.
#
# Pure Python needs an `if` per point; NumPy and torch replace it with `where`, the same
# shape of code in both libraries:

# %%
for fn in (ga.fitness2_python, ga.fitness2_numpy, ga.fitness2_torch):
    print(inspect.getsource(fn).split('"""')[-1].strip(), "\n")

# %% [markdown]
# These points are cheap (24 bytes each), so we use the **published size, 900,000
# points**, drawn uniformly in a box larger than the feasible set; pure Python runs on a
# 90,000-point subsample and is extrapolated. The points are float64, NumPy's default.

# %%
N = ga.PUBLISHED_POPULATION
SUB2 = 90_000
cases = {
    2: (
        ga.random_points(N, ga.BOX2, seed=2),
        ga.fitness2_python,
        ga.fitness2_numpy,
        ga.fitness2_numpy_compiled,
        ga.fitness2_torch,
        ga.fitness2_torch_compiled,
    ),
    3: (
        ga.random_points(N, ga.BOX3, seed=3),
        ga.fitness3_python,
        ga.fitness3_numpy,
        ga.fitness3_numpy_compiled,
        ga.fitness3_torch,
        ga.fitness3_torch_compiled,
    ),
}
for k, (pts, py, fnp, fnp_c, ft, ft_c) in cases.items():
    ref = fnp(pts.numpy())
    print(f"function {k}: {np.isfinite(ref).mean():.1%} of the points are feasible; best cost {ref.min():.4f}")
    print("  python == numpy (subsample):", np.allclose(py(pts[:SUB2].tolist()), ref[:SUB2], rtol=1e-12, atol=0))
    print("  numpy == torch eager:", np.allclose(ft(pts).numpy(), ref, rtol=1e-12, atol=0))

# %% [markdown]
# Pure Python and NumPy agree to the last bits (`x**2` and `x*x` may round differently
# in the last place, hence `allclose` with `rtol=1e-12`). Now the five variants, timed;
# the correctness lines come out of the same cell's results, in the cell below it.

# %%
# NBVAL_IGNORE_OUTPUT
published = {2: (0.270, 0.048, 0.0062, 0.0037), 3: (0.240, 0.082, 0.0368, 0.0226)}
rows, outputs = {}, {}
for k, (pts, py, fnp, fnp_c, ft, ft_c) in cases.items():
    pts_np, pts_list = pts.numpy(), pts[:SUB2].tolist()
    pub = published[k]
    r = [
        ("pure Python *", timed(lambda: py(pts_list)).min * N / SUB2, pub[0]),
        ("NumPy (np.where)", timed(lambda: fnp(pts_np)).min, pub[1]),
    ]
    out_np_c, first = time_once(lambda: fnp_c(pts_np))
    r.append(("compiled NumPy, first call", first, None))
    r.append(("compiled NumPy, later calls", timed(lambda: fnp_c(pts_np)).min, pub[2]))
    r.append(("torch eager", timed(lambda: ft(pts)).min, None))
    out_t_c, first = time_once(lambda: ft_c(pts))
    r.append(("compiled torch, first call", first, None))
    r.append(("compiled torch, later calls", timed(lambda: ft_c(pts)).min, None))
    rows[k], outputs[k] = r, (out_np_c, out_t_c)
    print(f"function {k}, 900,000 points")
    show(r)
print("* timed on 90,000 points, extrapolated to 900,000; published 'compiled' is the compiled NumPy function")

# %%
for k, (pts, py, fnp, *_rest) in cases.items():
    ref = fnp(pts.numpy())
    out_np_c, out_t_c = outputs[k]
    print(
        f"function {k}: numpy == compiled numpy: {np.allclose(out_np_c, ref, rtol=1e-12, atol=0)}, "
        f"numpy == compiled torch: {np.allclose(out_t_c.numpy(), ref, rtol=1e-12, atol=0)}"
    )

# %% [markdown]
# Compiling has more to work with here than in the sum: each fitness is about twenty
# element-wise operations, and NumPy or eager torch writes every intermediate (`x**2`,
# `4*x*y`, each comparison) to memory, while the compiled kernel reads each point once and
# writes one number. On the course's 2-core test machine, when it is otherwise idle, the
# compiled variants beat NumPy by a factor of about four to six; on a busy machine the margin
# swings from run to run, so read your own output above. Eager torch sits in between: it runs
# each of the twenty element-wise operations as its own parallel kernel, each writing a fresh
# intermediate to memory, and on a small, busy machine that thread start-up and allocation can
# even push it behind NumPy. Fusion removes exactly that overhead.
#
# On a GPU the published laptop runs the compiled functions in 0.055 s, 3.7 ms and
# 22.6 ms. The cell below runs them on yours, if there is one:

# %%
# NBVAL_IGNORE_OUTPUT
device = pick_device()
if has_gpu():
    # Apple's MPS has no float64: there the points go over as float32, compared less tightly
    dtype, rtol, atol = (torch.float32, 1e-4, 1e-5) if device.type == "mps" else (torch.float64, 1e-12, 0.0)
    for k, (pts, _py, fnp, _c, _ft, ft_c) in cases.items():
        pts_gpu = pts.to(device, dtype)
        t = measure(lambda: ft_c(pts_gpu), repeat=5, device=device)
        same = np.allclose(ft_c(pts_gpu).cpu().double().numpy(), fnp(pts.numpy()), rtol=rtol, atol=atol)
        print(f"function {k} compiled on {device}: {t} (numpy == GPU: {same})")
else:
    print(gpu_skip_message("the GPU runs of the compiled fitness functions"))

# %% [markdown]
# All three examples in one picture: our times, scaled to 900,000, beside the published
# laptop's (log scale; the picture is redrawn from your run's numbers).

# %%
fig, axes = plt.subplots(1, 3, figsize=(11, 3.4))
for ax, (title, r) in zip(axes, [("1: sum of genes", rows1), ("2: quadratic", rows[2]), ("3: trigonometric", rows[3])]):
    r = [row for row in r if "first call" not in row[0]]  # compile times are not per-call costs
    names = [
        row[0].replace(" (np.where)", "").replace(", later calls", "").replace("torch eager ", "eager ") for row in r
    ]
    y = np.arange(len(r))
    ax.barh(y - 0.2, [row[1] for row in r], height=0.4, label="ours (2-core CPU)")
    ax.barh(y + 0.2, [row[2] if row[2] else np.nan for row in r], height=0.4, label="published (laptop CPU)")
    ax.set(yticks=y, yticklabels=names, xscale="log", title=title, xlabel="seconds for 900,000")
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=7)
    ax.xaxis.set_minor_formatter(plt.NullFormatter())
handles, labels = axes[0].get_legend_handles_labels()
fig.legend(handles, labels, loc="upper center", ncol=2, fontsize=8)
fig.tight_layout(rect=(0, 0, 1, 0.92))
plt.show()

# %% [markdown]
# ## A whole GA on tensors
#
# With a fast fitness the rest of the GA becomes the bottleneck unless it too works on the
# whole population at once. `ga.ga_step` is one generation with no Python loop over
# individuals:

# %%
print(inspect.getsource(ga.ga_step).split('"""')[-1].strip())

# %% [markdown]
# Two design choices make it compile well and reproduce exactly:
#
# * **every random number comes in as an argument**, drawn by `ga.run_ga` from a seeded
#   `torch.Generator` outside the compiled code (compiled and eager code draw different
#   random streams, so the same seed inside them would give different runs);
# * **the shapes never change** (same population size every generation), so it compiles
#   once and never recompiles (`dynamic=False`); the count below proves it.
#
# (Note `cost.argmin(dim=0, keepdim=True)`: indexing with the 0-d tensor `cost.argmin()`
# would call `.item()` inside the compiled code, a graph break, module 11.)
#
# Run it on function 2: 8,192 individuals, 60 generations, compiled. As a check, the
# first 10 generations run once more in eager mode: the populations must be identical.
# `compile_stats` counts the graphs compiled and the graph breaks on the way.

# %%
from torchcourse.compiletools import compile_stats

before = compile_stats()
result, seconds_compiled = time_once(lambda: ga.run_ga(ga.fitness2_torch, generations=60, seed=0, keep=(0, 3, 10)))
short, seconds_short = time_once(lambda: ga.run_ga(ga.fitness2_torch, generations=10, seed=0))
eager, seconds_eager = time_once(lambda: ga.run_ga(ga.fitness2_torch, generations=10, seed=0, compile=False))
x, y, z = result.best.tolist()
print(f"best cost {result.best_cost:.3f} at (x, y, z) = ({x:.3f}, {y:.3f}, {z:.3f})")
print(
    "feasible:",
    bool(ga.feasible2(*result.best)),
    "| compiled == eager (10 generations):",
    torch.equal(short.population, eager.population),
)
after = compile_stats()
print(
    "graphs compiled for 70 compiled generations:",
    after["unique_graphs"] - before["unique_graphs"],
    "| graph breaks:",
    after["graph_breaks"] - before["graph_breaks"],
)

# %%
# NBVAL_IGNORE_OUTPUT
print(f"60 generations compiled: {seconds_compiled:.2f} s (the first call compiles the step)")
print(f"10 generations: compiled {seconds_short:.3f} s, eager {seconds_eager:.3f} s")

# %% [markdown]
# The constrained optimum is a corner: every term of `f` grows with `x`, `y` and `|z|` on
# the feasible set, so the infimum is `1 + 18 + 12 = 31` at `(1, 3, 0)`. Because `y > 3`
# and `z < 0` are strict, it is approached, never reached; the GA gets within a few
# hundredths. The picture shows how. Left: the gap between the cost and 31 (log scale);
# the best individual improves in steps, the mean follows as the population crowds into
# the corner. Right: the population in the (x, y) plane at generations 0, 3, 10 and 60.

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
gens = np.arange(1, len(result.history_best) + 1)
ax1.plot(gens, np.array(result.history_best) - 31, label="best cost − 31")
ax1.plot(gens, np.array(result.history_mean) - 31, label="mean cost of feasible individuals − 31")
ax1.set(xlabel="generation", ylabel="gap to the infimum 31", yscale="log", title="GA on function 2")
ax1.legend(fontsize=8)
snaps = {**result.snapshots, 60: result.population}
for gen, p in snaps.items():
    ax2.scatter(p[:, 0], p[:, 1], s=2, alpha=0.3, label=f"generation {gen}")
ax2.plot([1], [3], "k*", markersize=4, zorder=5, label="optimum (1, 3)")
ax2.set(xlabel="x", ylabel="y", xlim=(0.5, 3), ylim=(2.5, 5), title="population in the (x, y) plane (zoomed)")
ax2.legend(fontsize=8, markerscale=3, loc="upper right")
fig.tight_layout()
plt.show()

# %% [markdown]
# Printed to three decimals, the history is the same on one thread or sixteen, compiled or
# not:

# %%
print("best cost every 10 generations:", [round(v, 3) for v in result.history_best[::10]])
print("feasible share every 10 generations:", [round(v, 3) for v in result.feasible_share[::10]])

# %% [markdown]
# ## Common mistakes
#
# **Python's `and`/`if` on whole arrays.** The pure-Python fitness cannot be handed a
# tensor: `x >= 1 and y > 3` asks for the truth of a many-valued tensor. Use `&` (with
# parentheses) and `torch.where`:

# %% tags=["raises-exception"]
pts = ga.random_points(4)
ga.fitness2_python([pts.T])

# %% [markdown]
# **`&` without parentheses.** `&` binds tighter than `>=`, so `x >= 1 & y > 3` means
# `x >= (1 & y) > 3`, and torch refuses the `&` of a float tensor:

# %% tags=["raises-exception"]
x, y, z = pts.unbind(1)
x >= 1 & y > 3

# %% [markdown]
# **A NumPy array into the torch variant.** The torch functions call tensor methods;
# convert with `torch.from_numpy` (no copy) or use the NumPy variant:

# %% tags=["raises-exception"]
ga.fitness2_torch(pts.numpy())

# %% [markdown]
# **A silent one: the int8 sum.** No error at all, just 8x the memory (eager) or wrapped
# values (`dtype=torch.int8`). Give reductions an explicit accumulator: `sum(dtype=torch.int32)`.

# %% [markdown]
# ## Key points
#
# * Check that all variants agree before timing any of them; time Python loops on a
#   subsample and label the extrapolation.
# * NumPy beats Python loops by orders of magnitude; compiling helps most where many
#   element-wise operations fuse (functions 2 and 3), less for one memory-bound reduction.
# * `sum` of int8 accumulates in int64; eager torch materialises an int64 copy of the input
#   (8x memory). Pass `dtype=` and compile to avoid the copy.
# * A GA vectorises: tournaments, crossover and mutation are tensor expressions; pass the
#   random numbers in and keep shapes fixed, and the step compiles once and reproduces exactly.

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/13_case_study_ga.ipynb](../exercises/13_case_study_ga.ipynb) ·
# **Previous:** [12 · Compiling NumPy code](12_compiling_numpy.ipynb) ·
# **Next:** [14 · Autograd as a calculus engine](14_autograd_calculus.ipynb)
