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
# *Module 15 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/15_distributed_tensors.ipynb) · previous: [14 · Autograd as a calculus engine](14_autograd_calculus.ipynb) · next: [16 · Advanced indexing: masks, gather and scatter](16_indexing.ipynb)

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
# # 15 · Distributed tensors: exercises
#
# Exercises for the lesson [15 · Distributed tensors](../notebooks/15_distributed_tensors.ipynb):
# which rows a rank owns, what each collective leaves on each rank, how shards assemble,
# what a ring all-reduce costs, and sharded matrix products.
#
# They run in this notebook's single process: a Python list with one tensor per rank
# stands for the ranks (`tensors[r]` is what rank `r` holds). That is also how you test
# real distributed code: simulate it in one process, then compare with what the ranks
# print (the lesson does exactly that).
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("15.3")` shows the
# next hint for exercise 15.3. Exercises go from warm-up to stretch; each one stands alone.

# %%
import torch
from torch.distributed.tensor import Replicate, Shard

from torchcourse import check, hint

# %% [markdown]
# ### 15.1 · Which rows does a rank own? (warm-up)
#
# `distribute_tensor(w, mesh, [Shard(0)])` splits the rows of `w` the way `torch.chunk` does.
# Write `rows_owned(n_rows, world_size, rank)` that returns the `(start, stop)` row range
# (stop excluded) rank `rank` holds, as two Python ints. For 9 rows over 4 ranks the lesson
# printed 3, 3, 3 and 0 rows: rank 3 gets `(9, 9)`, an empty range. Use arithmetic, not
# `torch.chunk` itself.


# %%
def rows_owned(n_rows, world_size, rank):
    # YOUR CODE HERE
    raise NotImplementedError


check("15.1", rows_owned)


# %% [markdown]
# ### 15.2 · Simulate `all_reduce`
#
# `tensors[r]` is rank `r`'s tensor (all the same shape). Write `all_reduce(tensors)` that
# returns the list of what each rank holds after `dist.all_reduce(t, op=SUM)`. Each rank has
# its own memory, so give each rank its own tensor, and leave the inputs unchanged.


# %%
def all_reduce(tensors):
    # YOUR CODE HERE
    raise NotImplementedError


check("15.2", all_reduce)


# %% [markdown]
# ### 15.3 · Simulate `all_gather`
#
# Write `all_gather(tensors)` that returns, for each rank, the tensors of all ranks joined
# in rank order along dimension 0 (what `torch.cat` of the list filled by `dist.all_gather`
# gives). Rank `r`'s shape `(n, ...)` becomes `(world_size * n, ...)` on every rank.


# %%
def all_gather(tensors):
    # YOUR CODE HERE
    raise NotImplementedError


check("15.3", all_gather)


# %% [markdown]
# ### 15.4 · Simulate `reduce_scatter`
#
# Each rank holds a tensor whose first dimension is a multiple of the world size. After
# `reduce_scatter` (SUM), rank `r` holds the `r`-th of `world_size` equal pieces (along
# dimension 0) of the element-wise sum over ranks. Write `reduce_scatter(tensors)` that
# returns the list of the ranks' pieces.


# %%
def reduce_scatter(tensors):
    # YOUR CODE HERE
    raise NotImplementedError


check("15.4", reduce_scatter)


# %% [markdown]
# ### 15.5 · Assemble the full tensor from its shards
#
# `shards[r]` is rank `r`'s local tensor (`to_local()`) of a DTensor on a 1-D mesh with one
# placement: `Shard(0)`, `Shard(1)` or `Replicate()` (a shard may be empty). Write
# `assemble(shards, placement)` that returns the full tensor, what `full_tensor()` gives.
# `placement.dim` is the sharded dimension of a `Shard`.


# %%
def assemble(shards, placement):
    # YOUR CODE HERE
    raise NotImplementedError


check("15.5", assemble)


# %% [markdown]
# ### 15.6 · Bytes each rank sends in a ring all-reduce
#
# In a ring all-reduce over `p` ranks the tensor is cut into `p` chunks. First, in `p - 1`
# steps, each rank sends one chunk to its neighbour and adds the chunk it receives
# (a reduce-scatter); then, in `p - 1` more steps, the summed chunks travel round the ring
# (an all-gather). Write `ring_all_reduce_bytes(numel, element_size, world_size)` that
# returns how many bytes **each rank sends** in total, as a float (0.0 for one rank).


# %%
def ring_all_reduce_bytes(numel, element_size, world_size):
    # YOUR CODE HERE
    raise NotImplementedError


check("15.6", ring_all_reduce_bytes)


# %% [markdown]
# With your function: a float32 tensor of 100 million elements (400 MB) on 8 ranks makes each
# rank send 700 MB; on 1024 ranks, about 799 MB. The bytes per rank hardly grow with the
# number of ranks, which is why the ring all-reduce scales.

# %% [markdown]
# ### 15.7 · A row-sharded matmul from local shards
#
# `w_shards[r]` is rank `r`'s block of rows of a matrix `W` (`Shard(0)`, possibly empty) and
# every rank holds all of `x` (`Replicate()`). Write `row_sharded_matmul(w_shards, x)` that
# computes each rank's local product and returns the full `W @ x` assembled from them.
# Work from the local shards, as the ranks would, and never join them into `W`: building `W`
# first is what sharding avoids (the check watches for it).


# %%
def row_sharded_matmul(w_shards, x):
    # YOUR CODE HERE
    raise NotImplementedError


check("15.7", row_sharded_matmul)


# %% [markdown]
# ### 15.8 · A column-sharded matmul: partial sums (stretch)
#
# Now `W` is split by columns (`w_shards[r]`, `Shard(1)`) and `x` by rows (`x_shards[r]`,
# `Shard(0)`), with matching blocks on each rank. Write `col_sharded_matmul(w_shards, x_shards)`
# that returns `W @ x` from the ranks' local products. In the lesson this case printed
# `Partial(sum)`: think about what each local product is, and what `full_tensor()` had to do.


# %%
def col_sharded_matmul(w_shards, x_shards):
    # YOUR CODE HERE
    raise NotImplementedError


check("15.8", col_sharded_matmul)

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [15 · Distributed tensors](../notebooks/15_distributed_tensors.ipynb) ·
# **Previous:** [14 · Autograd as a calculus engine](14_autograd_calculus.ipynb) ·
# **Next:** [16 · Advanced indexing: masks, gather and scatter](16_indexing.ipynb)
