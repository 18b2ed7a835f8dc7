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
# *Module 15 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/15_distributed_tensors.ipynb) · previous: [14 · Autograd as a calculus engine](14_autograd_calculus.ipynb) · next: [16 · Advanced indexing: masks, gather and scatter](16_indexing.ipynb)

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
# # 15 · Distributed tensors
#
# One process has one memory and one device. When a matrix no longer fits, or one GPU is
# too slow, you split the work over several processes, on one machine or on many, and
# they exchange data with *collectives*: all-reduce, all-gather, reduce-scatter,
# broadcast. `torch.distributed` provides them, and `DTensor` builds on them: a tensor
# whose pieces live on different processes, which you use like an ordinary tensor while
# PyTorch inserts the communication. In this notebook you start real processes on your
# machine with `torchrun`, on the CPU with the `gloo` back end, and check every
# distributed result against the one-process answer.
#
# **Objectives.** After this notebook you can:
# 1. launch a script on several processes with `torchrun` and read each rank's output;
# 2. say what `all_reduce`, `all_gather`, `reduce_scatter` and `broadcast` leave on each rank;
# 3. shard a matrix by rows or columns with `distribute_tensor`, `Shard` and `Replicate`
#    on a `DeviceMesh`, and predict each rank's local shape;
# 4. run a distributed matmul and reduction, say which collective each needs, and check the result;
# 5. wrap pieces each rank already holds with `DTensor.from_local` and move between placements
#    with `redistribute`, naming the collective each move costs;
# 6. explain what changes when the same script runs on several machines with GPUs.
#
# **Prerequisites.** Tensors, shapes and `torch.chunk` (modules 01-03), matrix products.
#
# **Time.** 35 min teaching, 30 min exercises.

# %% [markdown]
# ## Processes, ranks and a process group
#
# A distributed job is several copies of the *same script*, each a separate operating-system
# process with its own memory. Each copy has a **rank** (0, 1, ..., world size - 1) and
# decides what to do from it. The processes join a **process group**, which needs a
# **back end** to move bytes: `gloo` runs on CPUs (TCP, even between machines), `nccl`
# moves GPU memory between NVIDIA GPUs.
#
# `torchrun` (also spelled `python -m torch.distributed.run`) starts the copies and tells
# each one who it is through environment variables: `RANK`, `WORLD_SIZE`, `LOCAL_RANK`,
# `MASTER_ADDR`, `MASTER_PORT`. `dist.init_process_group("gloo")` reads them.
#
# A notebook is a single process, so the course writes the script text to a temporary
# directory and runs torchrun on it: `torchcourse.distributed.run_script(source, nproc)`.
# It prints each rank's output **in rank order** (the ranks run at the same time, so their
# prints would otherwise interleave differently on every run), turns a failing or stuck
# rank into one clear error, and never leaves a process running behind the notebook.
#
# It also sets `OMP_NUM_THREADS=1` in every rank. Each process would otherwise start as
# many compute threads as the machine has cores: 4 ranks × 2 threads on a 2-core machine
# are 8 threads taking turns on 2 cores, and a kernel split over threads finishes only when
# its last thread, perhaps one waiting for a core, does. One thread per rank matches ranks
# to cores (torchrun itself sets 1 and prints a warning when you do not choose).
#
# One more thing the helper does for you: some torch versions make gloo print
# `[Gloo] Rank 0 is connected to 1 peer ranks ...` into each rank's output when the group
# forms. That line is connection bookkeeping, not your script's output, so `run_script`
# leaves it out of `stdout` (it stays in `result.raw_stdout`).

# %% [markdown]
# ## Collectives
#
# The script below gives every rank a small tensor built from its rank, then calls the four
# most used collectives. Each one is called by **every** rank: a collective that only some
# ranks enter waits for the others until the group's time-out, 30 minutes by default, and
# only then fails.

# %%
COLLECTIVES = r"""
import os
import sys

import torch
import torch.distributed as dist

dist.init_process_group("gloo")           # reads RANK, WORLD_SIZE, MASTER_ADDR/PORT from torchrun
rank, world = dist.get_rank(), dist.get_world_size()
print(f"rank {rank} of {world}, compute threads: {torch.get_num_threads()}")

x = torch.tensor([rank + 1.0, 10.0 * (rank + 1)])      # this rank's own data
print("mine:          ", x.tolist())

y = x.clone()
dist.all_reduce(y, op=dist.ReduceOp.SUM)                # in place: every rank gets the sum
print("all_reduce:    ", y.tolist())

parts = [torch.empty_like(x) for _ in range(world)]
dist.all_gather(parts, x)                               # every rank gets every rank's x
print("all_gather:    ", torch.cat(parts).tolist())

big = torch.arange(2.0 * world) + 100 * rank            # two numbers per rank
out = torch.empty(2)
dist.reduce_scatter(out, list(big.chunk(world)))        # sum over ranks; rank r keeps chunk r
print("rs_input:      ", big.tolist())
print("reduce_scatter:", out.tolist())

b = x.clone()
dist.broadcast(b, src=0)                                # everyone gets rank 0's tensor
print("broadcast:     ", b.tolist())

dist.barrier()                                          # wait for every rank, then tear down
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)                                             # skip the interpreter's teardown (see "Common mistakes")
"""

# %% [markdown]
# Launch it on two processes. The launch takes a few seconds: each rank imports torch and
# the ranks meet at a rendezvous before the first line of real work.

# %%
from torchcourse.distributed import run_script

collectives = run_script(COLLECTIVES, nproc=2)
collectives.print_ranks()

# %% [markdown]
# Read it rank by rank: both ranks hold the same `all_reduce` sum and the same `all_gather`
# list, while `reduce_scatter` left each rank a *different* piece of the sum. How long the
# launch took depends on your machine; almost all of it is start-up (each rank imports
# torch and joins the rendezvous), not the four collectives.

# %%
# NBVAL_IGNORE_OUTPUT
print(f"2-process launch: {collectives.seconds:.1f} s, start-up included")

# %% [markdown]
# The same results in a picture, drawn from what the ranks printed: each rank's data
# before (left) and after (right) each collective.

# %%
import ast
import re

import matplotlib.pyplot as plt
import torch

from torchcourse import claim, predict, reveal


def parse(text):
    """{name: list} from lines such as 'all_reduce:     [3.0, 30.0]'."""
    found = re.findall(r"^(\w+):\s+(\[.*\])$", text, flags=re.MULTILINE)
    return {name: ast.literal_eval(values) for name, values in found}


ranks = [parse(collectives.stdout[r]) for r in sorted(collectives.stdout)]
panels = [("all_reduce", "mine"), ("all_gather", "mine"), ("reduce_scatter", "rs_input"), ("broadcast", "mine")]


def fmt(values):
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"


what = {
    "all_reduce": "everyone gets the sum",
    "all_gather": "everyone gets everything",
    "reduce_scatter": "rank r gets piece r of the sum",
    "broadcast": "everyone gets rank 0's data",
}
fig, ax = plt.subplots(figsize=(13, 4.2))
for row, (op, before) in enumerate(panels):
    yy = len(panels) - 1 - row
    ax.text(0.0, yy + 0.18, op, fontsize=11, weight="bold", va="center")
    ax.text(0.0, yy - 0.18, what[op], fontsize=8.5, va="center", color="0.35")
    for r, data in enumerate(ranks):
        x0 = 0.27 + r * 0.4
        ax.text(x0 - 0.01, yy, f"rank {r}", ha="right", va="center", fontsize=9)
        ax.text(
            x0,
            yy,
            fmt(data[before]),
            va="center",
            fontsize=9,
            family="monospace",
            bbox={"boxstyle": "round", "fc": "#56B4E9", "alpha": 0.35},
        )
        ax.annotate("", xy=(x0 + 0.21, yy), xytext=(x0 + 0.178, yy), arrowprops={"arrowstyle": "->"})
        ax.text(
            x0 + 0.22,
            yy,
            fmt(data[op]),
            va="center",
            fontsize=9,
            family="monospace",
            bbox={"boxstyle": "round", "fc": "#E69F00", "alpha": 0.35},
        )
ax.set(xlim=(0, 1.03), ylim=(-0.6, len(panels) - 0.4))
ax.axis("off")
ax.set_title("Each rank's data before (blue) and after (orange) a collective, 2 processes")
plt.show()

# %% [markdown]
# Each of these is one line of ordinary tensor code when all the data sits in one process.
# That is how you test a distributed program: compute the same thing in one process and
# compare. The exercises ask you to write these simulations yourself.

# %%
mine = [torch.tensor(d["mine"]) for d in ranks]
rs_in = [torch.tensor(d["rs_input"]) for d in ranks]
print(
    "all_reduce     == sum of all ranks:       ",
    all(torch.equal(torch.tensor(d["all_reduce"]), torch.stack(mine).sum(0)) for d in ranks),
)
print(
    "all_gather     == all ranks concatenated: ",
    all(torch.equal(torch.tensor(d["all_gather"]), torch.cat(mine)) for d in ranks),
)
print(
    "reduce_scatter == chunk r of the sum:     ",
    all(
        torch.equal(torch.tensor(d["reduce_scatter"]), torch.stack(rs_in).sum(0).chunk(len(ranks))[r])
        for r, d in enumerate(ranks)
    ),
)
print(
    "broadcast      == rank 0's data:          ", all(torch.equal(torch.tensor(d["broadcast"]), mine[0]) for d in ranks)
)
simulated = {
    "all_reduce": [torch.stack(mine).sum(0)] * len(ranks),
    "all_gather": [torch.cat(mine)] * len(ranks),
    "reduce_scatter": list(torch.stack(rs_in).sum(0).chunk(len(ranks))),
    "broadcast": [mine[0]] * len(ranks),
}
claim(
    all(torch.equal(torch.tensor(d[op]), simulated[op][r]) for op in simulated for r, d in enumerate(ranks)),
    "every rank's result of all four collectives equals the one-process simulation",
)

# %% [markdown]
# ## DTensor: one tensor, its pieces on several ranks
#
# Calling collectives by hand is error-prone. `torch.distributed.tensor` offers `DTensor`:
# a tensor *spread over a `DeviceMesh`* (a grid of ranks, here one row of them) with one
# **placement** per mesh dimension:
#
# | placement | each rank holds |
# |---|---|
# | `Shard(0)` | a block of rows (split like `torch.chunk`) |
# | `Shard(1)` | a block of columns |
# | `Replicate()` | the whole tensor |
# | `Partial()` | a full-size tensor whose *sum over ranks* is the value (a pending all-reduce) |
#
# `distribute_tensor(t, mesh, [Shard(0)])` cuts `t` up: it takes rank 0's copy of `t` and
# scatters the pieces (for `[Replicate()]` it broadcasts rank 0's copy). `dt.to_local()` is
# this rank's piece, an ordinary tensor; `dt.full_tensor()` gathers the whole value on every
# rank. Operations on DTensors run on the local pieces and insert collectives only where
# needed. `CommDebugMode` counts which collectives an operation ran, so you can see that for
# yourself.
#
# The script builds `W` (9×5) and `x` (5×3) from the same seed on every rank, so each rank
# can also compute the one-process answer and compare.
#
# **Predict 15.p1.** `W_cols` holds `W` split by columns (`Shard(1)`), `x_rows` holds `x` split
# by rows (`Shard(0)`). How many collectives does the product `W_cols @ x_rows` run on each rank?
# Write a whole number.

# %%
predict("15.p1", None)  # replace None with your prediction

# %%
DTENSOR = r'''
import os
import sys

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import Replicate, Shard, distribute_tensor
from torch.distributed.tensor.debug import CommDebugMode

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
mesh = init_device_mesh("cpu", (world,))                 # one row of `world` ranks


def comms(mode):
    """Which collectives ran, e.g. {'all_reduce': 1}."""
    return {str(op).split(".")[-1]: n for op, n in mode.get_comm_counts().items()}


def close(a, b):
    """torch.testing.assert_close's verdict (module 04): tolerances from the dtype."""
    try:
        torch.testing.assert_close(a, b)
    except AssertionError:
        return False
    return True


torch.manual_seed(0)                                     # same W and x on every rank
W, x = torch.randn(9, 5), torch.randn(5, 3)

W_rows = distribute_tensor(W, mesh, [Shard(0)])          # rank r keeps a block of rows
W_cols = distribute_tensor(W, mesh, [Shard(1)])          # rank r keeps a block of columns
x_rep = distribute_tensor(x, mesh, [Replicate()])
x_rows = distribute_tensor(x, mesh, [Shard(0)])
print("W", tuple(W_rows.shape), "| local by rows", tuple(W_rows.to_local().shape),
      "| local by columns", tuple(W_cols.to_local().shape))

with CommDebugMode() as mode:
    y = W_rows @ x_rep                                   # each rank: its rows of W @ all of x
print("rows @ replicated:", y.placements, "local", tuple(y.to_local().shape), "comms", comms(mode))
with CommDebugMode() as mode:
    full = y.full_tensor()                               # every rank gets all 9 rows
print("  full_tensor:", comms(mode), "close:", close(full, W @ x))

with CommDebugMode() as mode:
    y2 = W_cols @ x_rows                                 # each rank: a full-size partial product
print("cols @ rows:      ", y2.placements, "local", tuple(y2.to_local().shape), "comms", comms(mode))
with CommDebugMode() as mode:
    full2 = y2.full_tensor()                             # the pending sum: one all-reduce
print("  full_tensor:", comms(mode), "close:", close(full2, W @ x))

with CommDebugMode() as mode:
    total, row_sums = W_rows.sum(), W_rows.sum(dim=1)    # reductions on the local rows
print("sum():", total.placements, "| sum(dim=1):", row_sums.placements, "| comms", comms(mode))
print("  close:", close(total.full_tensor(), W.sum()),
      close(row_sums.full_tensor(), W.sum(dim=1)))
dist.barrier()                  # every rank done before any tears down (see "Common mistakes")
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)                     # skip the interpreter's teardown (see "Common mistakes")
'''

dtensor2 = run_script(DTENSOR, nproc=2)
dtensor2.print_ranks()

# %% [markdown]
# What to read in it:
#
# * **Sharding by rows**: 9 rows over 2 ranks is 5 + 4 (`torch.chunk` rounds the block size
#   up); by columns, 5 columns become 3 + 2.
# * **Row-sharded matmul**: `W_rows @ x_rep` ran *no* collective: each rank owns whole rows of
#   `W` and all of `x`, so it computes its rows of the product alone. The result stays
#   sharded by rows; only `full_tensor()` communicates (an all-gather).
# * **Column-sharded matmul**: each rank multiplies its columns of `W` by its rows of `x`,
#   which gives a *full-size* 9×3 matrix that is only part of the sum: placement
#   `Partial(sum)`. Turning it into the value costs an all-reduce.
# * **Reductions**: `sum()` over everything is `Partial` too (each rank summed its rows),
#   while `sum(dim=1)` sums within rows and stays `Shard(0)`; neither communicated yet.
# * Every `close: True` compares with `W @ x` or `W.sum()` computed in one process, with
#   `assert_close`'s float32 tolerance (module 04): the sums run in another order.
#
# The cell below reads those lines back from both ranks and checks the collective counts
# this list describes:


# %%
def lines_starting(result, prefix):
    """For each rank, in rank order: its output lines that start with `prefix` (indentation ignored)."""
    return [
        [ln.strip() for ln in result.stdout[r].splitlines() if ln.strip().startswith(prefix)]
        for r in sorted(result.stdout)
    ]


matmuls = lines_starting(dtensor2, "rows @ replicated") + lines_starting(dtensor2, "cols @ rows")
gathers = [[ln.split(" close:")[0] for ln in rank] for rank in lines_starting(dtensor2, "full_tensor")]
out2 = "".join(dtensor2.stdout.values())
claim(all(ln.endswith("comms {}") for rank in matmuls for ln in rank), "both matmuls ran no collective on any rank")
cols_line = lines_starting(dtensor2, "cols @ rows")[0][0]
reveal(
    "15.p1",
    sum(ast.literal_eval(re.search(r"comms (\{.*?\})", cols_line).group(1)).values()),
    why="each rank multiplies the columns of W it has by the rows of x it has, a full-size partial product, "
    "and stops there: the result is Partial(sum). The all-reduce is paid later, when a value is needed "
    "(full_tensor, redistribute), and only once.",
)
claim(
    gathers == [["full_tensor: {'all_gather_into_tensor': 1}", "full_tensor: {'all_reduce': 1}"]] * len(gathers),
    "full_tensor() cost one all-gather for the Shard(0) product and one all-reduce for the Partial one",
)
claim(
    out2.count("close: True") == 3 * len(dtensor2.stdout) and "False" not in out2,
    "every DTensor result matches the one-process answer on every rank",
)

# %% [markdown]
# ## The same script on 4 processes
#
# Nothing in the script names the number of processes, so it runs unchanged on 4. Now the
# sizes no longer divide evenly: 9 rows in chunks of 3 leave **rank 3 with no rows at all**,
# and 5 columns in chunks of 2 give 2, 2, 1, 0. Empty shards are legal and every result
# still matches.
#
#
# **Predict 15.p2.** With 4 ranks and `Shard(0)`, how many of `W`'s 9 rows does rank 3 hold? Write
# a whole number.
#
# **Predict 15.p3.** And how many pieces does `torch.zeros(9).chunk(4)` return? Write a whole number.

# %%
predict("15.p2", None)  # replace None with your prediction
predict("15.p3", None)  # replace None with your prediction

# %%
dtensor4 = run_script(DTENSOR, nproc=4)
dtensor4.print_ranks()

# %%
rows4 = [
    ast.literal_eval(dtensor4.stdout[r].split("local by rows ")[1].split(" |")[0])[0] for r in sorted(dtensor4.stdout)
]
chunks = [len(c) for c in torch.zeros(9).chunk(4)]
print("rows held by ranks 0-3:", rows4, "| torch.zeros(9).chunk(4) gives", len(chunks), "chunks:", chunks)
claim(
    rows4 == chunks + [0] * (4 - len(chunks)),
    "each rank holds the rows torch.chunk gives it; rank 3, left without a chunk, holds none",
)
reveal(
    "15.p2",
    rows4[3],
    why="Shard splits like torch.chunk: blocks of ceil(9 / 4) = 3 rows, so ranks 0-2 take all 9 and rank 3 "
    "holds an empty (0, 5) block. It still takes part in every collective.",
)
reveal(
    "15.p3",
    len(chunks),
    why="chunk(4) asks for at most 4 pieces of ceil(9 / 4) = 3 elements; three pieces use them all, so it "
    "returns 3. Code that zips chunk's pieces with ranks must not assume one piece per rank.",
)
out4 = "".join(dtensor4.stdout.values())
claim(out4.count("close: True") == 3 * 4 and "False" not in out4, "every DTensor result still matches on 4 processes")

# %%
# NBVAL_IGNORE_OUTPUT
import os

print(f"2 processes: {dtensor2.seconds:.1f} s, 4 processes: {dtensor4.seconds:.1f} s (start-up included)")
slower = dtensor4.seconds > dtensor2.seconds
print(
    f"on this {os.cpu_count()}-core machine the 4-process launch was {'slower' if slower else 'not slower'} than the 2-process one"
)

# %% [markdown]
# On this tiny 9×5 matrix more ranks buy nothing: start-up and messages dominate the time,
# and on a machine with fewer cores than ranks the processes also take turns on the cores.
# Sharding pays when the tensor is too
# big for one process's memory or the work per rank is large next to the bytes exchanged.
# A ring all-reduce sends about 2(p-1)/p times the tensor's size per rank (exercise 15.6),
# so the bytes each rank sends barely grow with the number of ranks p; the number of steps,
# 2(p-1), does grow, and for a small tensor those steps' latency is most of the cost.
#
# The links decide what a byte costs. For scale, from NVIDIA's specifications: an H100 GPU
# has 900 GB/s of NVLink bandwidth to the other GPUs of its machine (both directions
# together, so 450 GB/s each way), while an NDR InfiniBand port between machines carries
# 400 Gb/s each way, that is 50 GB/s: nine times less.
# A distributed design counts bytes moved as carefully as FLOPs.

# %% [markdown]
# ## Pieces you already have, and moving between placements
#
# `distribute_tensor` starts from a whole tensor on rank 0. In real jobs each rank often
# *already* holds its piece: it loaded its own part of a file, or computed it. Two APIs cover
# that, and every change of layout after it:
#
# * `DTensor.from_local(local, mesh, [Shard(0)])` declares that this rank's `local` tensor is
#   its block of rows of a bigger tensor. Nothing is sent; the global shape is inferred by
#   assuming every rank holds a block of the same size (pass `shape=` and `stride=` when the
#   blocks differ). It checks nothing by default: with `[Replicate()]` it trusts that every rank
#   holds the same values, and if they differ each rank silently computes with its own
#   (`run_check=True` broadcasts the first rank's copy, at the cost of a collective).
# * `dt.redistribute(mesh, [new placement])` changes the layout and runs the collective that
#   the change needs. Each move is one of the collectives you met above.
#
# In the script each rank makes its own 2×3 block, `rank r`'s numbers starting at `10·r`,
# wraps it, gathers it to every rank and cuts it back; then a `Partial` tensor, whose value is
# the sum of every rank's local tensor, is turned into a replicated and a sharded one.

# %%
REDISTRIBUTE = r"""
import os
import sys

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Partial, Replicate, Shard
from torch.distributed.tensor.debug import CommDebugMode

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
mesh = init_device_mesh("cpu", (world,))


def comms(mode):
    return {str(op).split(".")[-1]: n for op, n in mode.get_comm_counts().items()}


mine = torch.arange(6.0).reshape(2, 3) + 10 * rank       # this rank's own 2 rows
with CommDebugMode() as mode:
    rows = DTensor.from_local(mine, mesh, [Shard(0)])    # no data moves
print("from_local:              global", tuple(rows.shape), "local", tuple(rows.to_local().shape), "comms", comms(mode))

with CommDebugMode() as mode:
    everywhere = rows.redistribute(mesh, [Replicate()])  # every rank receives the others' rows
print("Shard(0) -> Replicate(): local", tuple(everywhere.to_local().shape), "comms", comms(mode))
print("  first column on this rank:", everywhere.to_local()[:, 0].tolist())

with CommDebugMode() as mode:
    back = everywhere.redistribute(mesh, [Shard(0)])     # each rank keeps its slice
print("Replicate() -> Shard(0): local", tuple(back.to_local().shape), "comms", comms(mode),
      "| same rows as before:", torch.equal(back.to_local(), mine))

pending = DTensor.from_local(torch.full((2 * world,), rank + 1.0), mesh, [Partial()])   # value: the sum over ranks
with CommDebugMode() as mode:
    summed = pending.redistribute(mesh, [Replicate()])
print("Partial -> Replicate():  comms", comms(mode), "local", summed.to_local().tolist())
with CommDebugMode() as mode:
    piece = pending.redistribute(mesh, [Shard(0)])
print("Partial -> Shard(0):     comms", comms(mode), "local", piece.to_local().tolist())

dist.barrier()
dist.destroy_process_group()
sys.stdout.flush()
os._exit(0)
"""

moves = run_script(REDISTRIBUTE, nproc=2)
moves.print_ranks()

# %% [markdown]
# What moved:
#
# * `from_local` ran no collective: it only attached a mesh and a placement to a tensor the
#   rank already had. The global shape, (4, 3), is 2 rows times 2 ranks.
# * **Shard → Replicate** is an all-gather: every rank receives the rows it lacks, here the
#   other rank's 6 numbers (with `p` ranks, `(p − 1)/p` of the tensor arrives at each rank).
# * **Replicate → Shard** moves nothing: every rank already has every row and keeps its own
#   slice, which is why it gets back exactly the block it started with.
# * **Partial → Replicate** is an all-reduce (every rank gets the sum, 1 + 2 = 3), and
#   **Partial → Shard** a reduce-scatter (every rank gets its piece of the sum).
#
# Redistributing is how you choose *when* to pay for communication: keep tensors sharded
# while each rank can work on its own piece, and gather or reduce only where a result needs
# the whole.

# %%
expected = {
    "from_local": {},
    "Shard(0) -> Replicate()": {"all_gather_into_tensor": 1},
    "Replicate() -> Shard(0)": {},
    "Partial -> Replicate()": {"all_reduce": 1},
    "Partial -> Shard(0)": {"reduce_scatter_tensor": 1},
}
seen = {
    move: [
        ast.literal_eval(re.search(r"comms (\{.*?\})", ln).group(1))
        for rank in lines_starting(moves, move)
        for ln in rank
    ]
    for move in expected
}
for move, per_rank in seen.items():
    print(f"{move:24s} collectives on ranks 0, 1: {per_rank}")
claim(
    all(per_rank == [expected[move]] * 2 for move, per_rank in seen.items()),
    "from_local and Replicate -> Shard moved nothing; the other three moves each ran one collective on every rank",
)
claim(
    all("same rows as before: True" in moves.stdout[r] for r in range(2)),
    "Replicate -> Shard gave every rank back exactly its own rows",
)

# %% [markdown]
# ## Across machines, on GPUs
#
# The script above is already a multi-machine script. To run it on 2 machines with 8 GPUs
# each you start the *same* command on both (do not run it here):
#
# ```
# # on every machine, with a rendezvous server on host A:
# torchrun --nnodes 2 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint hostA:29500 \
#          --rdzv-id job42 script.py
# # or with a fixed layout: --node-rank 0 on host A, --node-rank 1 on host B,
# #   plus --master-addr hostA --master-port 29500
# ```
#
# torchrun on each machine starts 8 processes; the rendezvous gives them ranks 0-15
# (`RANK`), while `LOCAL_RANK` (0-7) says which GPU of *this* machine a process owns. What
# changes in the script:
#
# * the back end: `dist.init_process_group("nccl")` (or no argument: gloo for CPU tensors,
#   nccl for CUDA ones), and `torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))` first;
# * the mesh: `init_device_mesh("cuda", (2, 8), mesh_dim_names=("node", "gpu"))`: a 2-D mesh
#   lets you shard over the fast links inside a machine and replicate across the slower network;
# * the cost model: NVLink inside a machine, InfiniBand or Ethernet between machines, several
#   times slower per GPU than NVLink. Nothing else: placements, `distribute_tensor`, `full_tensor`
#   and the checks against the one-process result stay the same.
#
# Every machine must reach host A's port, run the same code and library versions, and see
# the same data (or the same seed).

# %% [markdown]
# ## Common mistakes
#
# **Calling a collective in a process that never joined a group.** In the notebook's own
# process there is no process group, and PyTorch says so:

# %% tags=["raises-exception"]
import torch.distributed as dist

dist.all_reduce(torch.ones(2))

# %% [markdown]
# **One rank fails.** Here rank 1 raises while rank 0 waits in `all_reduce` for it. When rank
# 1's process exits, its connections close; gloo notices and rank 0's `all_reduce` fails too,
# with "Connection closed by peer". torchrun notices the rank that exited with an error and
# stops the others, so rank 0 may also be stopped before it prints anything: which of the two
# comes first depends on timing. The error `run_script` raises does not: it names the rank
# that failed for a reason of its own, here rank 1 and its `ValueError`, and leaves out a
# rank that failed only because a peer died. A rank that hangs instead (a collective the
# others never enter, while every process stays alive) is stopped by the `timeout=` of
# `run_script` with an error that says so; either way no process is left behind.

# %% tags=["raises-exception"]
FAILING = r"""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
x = torch.ones(3)
if rank == 1:
    raise ValueError(f"rank {rank} could not load its part of the data")
dist.all_reduce(x)                          # rank 0 waits here for a rank that died
dist.destroy_process_group()
"""
run_script(FAILING, nproc=2, timeout=60)

# %% [markdown]
# The whole output of each rank is still there for you to read, in the exception's
# `.result` (`.stdout[rank]`, `.stderr[rank]`, `.launcher`), or call
# `run_script(..., check=False)` and test `result.ok` yourself.
#
# Other mistakes to recognise:
#
# * **A collective or `full_tensor()` inside `if rank == 0:`**: the other ranks never join, and
#   rank 0 waits until the time-out. Every rank calls every collective, in the same order.
# * **Different data per rank when it should be the same**: seed (or load) identically on every
#   rank, or let `distribute_tensor` send rank 0's data, as above.
# * **Tearing down while a peer still communicates**: a rank that reaches
#   `destroy_process_group()` and exits while another rank's collective is still in flight can
#   die at exit with `terminate called without an active exception` (exit code -6, SIGABRT),
#   *after* printing correct results: gloo's C++ objects are destroyed while the Python
#   interpreter shuts down. `dist.barrier()` before `destroy_process_group()` makes it rarer
#   but, on a busy machine, not impossible. That is why every script in this notebook ends
#   with `dist.barrier()`, `destroy_process_group()`, `sys.stdout.flush()` and `os._exit(0)`:
#   the results are printed, the group is destroyed, and the process exits without running
#   the interpreter's teardown.
# * **Oversubscribed cores**: N ranks each with all cores' worth of threads; set
#   `OMP_NUM_THREADS` (cores / ranks).

# %% [markdown]
# ## Key points
#
# * A distributed job is N copies of one script; each learns its `RANK` and `WORLD_SIZE` from
#   `torchrun`, and joins a process group (`gloo` on CPUs, `nccl` on NVIDIA GPUs).
# * Collectives are called by every rank: `all_reduce` (everyone gets the sum), `all_gather`
#   (everyone gets everything), `reduce_scatter` (everyone gets one piece of the sum),
#   `broadcast` (everyone gets one rank's data).
# * A `DTensor` is a tensor with placements on a `DeviceMesh`: `Shard(d)` splits like
#   `torch.chunk` (uneven, possibly empty pieces), `Replicate()` copies, `Partial()` is a
#   pending sum; operations insert collectives only when the placements require them.
# * `DTensor.from_local` wraps pieces the ranks already hold, moving nothing;
#   `redistribute` changes placements and costs one collective: Shard → Replicate an
#   all-gather, Partial → Replicate an all-reduce, Partial → Shard a reduce-scatter,
#   Replicate → Shard nothing.
# * Check every distributed result against the one-process answer (`close: True`, `assert_close`'s rule),
#   printed in rank order.
# * The same script runs across machines: change the launch command, the back end and the
#   mesh's device, not the maths.

# %% [markdown]
# ## Further reading
#
# * [`torch.distributed.tensor` (DTensor)](https://docs.pytorch.org/docs/stable/distributed.tensor.html):
#   `DeviceMesh`, the placements, `distribute_tensor`, `DTensor.from_local`, `redistribute`,
#   `full_tensor`, and `CommDebugMode`.
# * [Distributed communication package, `torch.distributed`](https://pytorch.org/docs/stable/distributed.html):
#   back ends (gloo, NCCL, MPI), `init_process_group` and every collective.
# * [torchrun (Elastic Launch)](https://docs.pytorch.org/docs/stable/elastic/run.html): the
#   launcher's options, single-machine (`--standalone`) and multi-machine rendezvous, and the
#   environment variables it sets.

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 13 statements of this lesson are tested facts; all pass on torch 2.13.0. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“<code>distribute_tensor(t, mesh, [Shard(0)])</code> cuts <code>t</code> up: it takes rank 0&#x27;s copy of <code>t</code> and scatters the pieces (for <code>[Replicate()]</code> it broadcasts rank 0&#x27;s copy)”</td><td>✓</td></tr>
# <tr><td>“<code>Shard(d)</code> splits like <code>torch.chunk</code> (uneven, possibly empty pieces)”</td><td>✓</td></tr>
# <tr><td>“<code>W_rows @ x_rep</code> ran no collective: each rank owns whole rows of <code>W</code> and all of <code>x</code>, so it computes its rows of the product alone. The result stays sharded by rows; only <code>full_tensor()</code> communicates (an all-gather).”</td><td>✓</td></tr>
# <tr><td>“which gives a full-size 9×3 matrix that is only part of the sum: placement <code>Partial(sum)</code>. Turning it into the value costs an all-reduce.”</td><td>✓</td></tr>
# <tr><td>“<code>sum()</code> over everything is <code>Partial</code> too (each rank summed its rows), while <code>sum(dim=1)</code> sums within rows and stays <code>Shard(0)</code>; neither communicated yet.”</td><td>✓</td></tr>
# <tr><td>“Nothing is sent; the global shape is inferred by assuming every rank holds a block of the same size (pass <code>shape=</code> and <code>stride=</code> when the blocks differ).”</td><td>✓</td></tr>
# <tr><td>“<code>redistribute</code> changes placements and costs one collective: Shard → Replicate an all-gather, Partial → Replicate an all-reduce, Partial → Shard a reduce-scatter, Replicate → Shard nothing.”</td><td>✓</td></tr>
# <tr><td>“a collective that only some ranks enter waits for the others until the group&#x27;s time-out, 30 minutes by default, and only then fails”</td><td>✓</td></tr>
# <tr><td>“In the notebook&#x27;s own process there is no process group, and PyTorch says so”</td><td>✓</td></tr>
# <tr><td>“torchrun itself sets 1 and prints a warning when you do not choose”</td><td>✓</td></tr>
# <tr><td>“or no argument: gloo for CPU tensors, nccl for CUDA ones”</td><td>✓</td></tr>
# <tr><td>“chunk(4) asks for at most 4 pieces of ceil(9 / 4) = 3 elements; three pieces use them all”</td><td>✓</td></tr>
# <tr><td>“It checks nothing by default: with <code>[Replicate()]</code> it trusts that every rank holds the same values”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/15_distributed_tensors.ipynb](../exercises/15_distributed_tensors.ipynb) ·
# **Previous:** [14 · Autograd as a calculus engine](14_autograd_calculus.ipynb) ·
# **Next:** [16 · Advanced indexing: masks, gather and scatter](16_indexing.ipynb)
