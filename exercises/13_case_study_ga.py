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
# *Module 13 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/13_case_study_ga.ipynb) · previous: [12 · Compiling NumPy code](12_compiling_numpy.ipynb) · next: [14 · Autograd as a calculus engine](14_autograd_calculus.ipynb)

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
# # 13 · Case study: genetic-algorithm fitness: exercises
#
# Exercises for the lesson [13 · Case study: genetic-algorithm fitness](../notebooks/13_case_study_ga.ipynb):
# fitness functions and the operators of a genetic algorithm, each written for the whole
# population at once.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("13.3")` shows the
# next hint for exercise 13.3. Exercises go from warm-up to stretch; each one stands alone.
# No Python loops over individuals: every answer is a few tensor expressions.
# (The worked answers are in `solutions/`; the notebook in `exercises/` is generated from it
# with the answers taken out.)

# %%
import math

import torch

from torchcourse import check, hint
from torchcourse.bench.workloads import ga

# %% [markdown]
# ### 13.1 · Gene sums without the int64 copy (warm-up)
#
# `population` is an int8 tensor of shape `(N, G)`: N chromosomes of G genes in 1..24.
# Write `gene_sums(population)` that returns each chromosome's sum as an **int32** tensor
# of shape `(N,)`, without the 8-byte-per-gene copy that a plain `.sum(dim=1)` makes.


# %%
def gene_sums(population):
    # YOUR CODE HERE
    raise NotImplementedError


check("13.1", gene_sums)


# %% [markdown]
# ### 13.2 · Feasible points of function 2
#
# `points` is a float64 tensor of shape `(N, 3)`, one `(x, y, z)` per row. Write
# `feasible2_mask(points)` that returns a bool tensor of shape `(N,)`: True where
# `x ≥ 1, 3 < y ≤ 7, z < 0, x + y + z ≥ 3` and `x² + z² ≤ 10` all hold. The check includes
# points exactly on each boundary.


# %%
def feasible2_mask(points):
    # YOUR CODE HERE
    raise NotImplementedError


check("13.2", feasible2_mask)


# %% [markdown]
# ### 13.3 · The cost of function 3
#
# Write `fitness3(points)` that returns, for each row `(x, y, z)`, the cost
# `f = sin x + x² − 2 cos y + y² + z²` where `x ≥ 0, 0 ≤ y ≤ π, z ≤ 5, x + z ≥ 1` and
# `cos y + z ≥ 0.5` hold, and `+inf` where they do not (float64, shape `(N,)`).


# %%
def fitness3(points):
    # YOUR CODE HERE
    raise NotImplementedError


check("13.3", fitness3)


# %% [markdown]
# ### 13.4 · Binary tournaments
#
# `cost` has shape `(N,)` (lower is better, `inf` for infeasible individuals) and `pairs`
# shape `(M, 2)`: each row names two individuals by index. Write `tournament(cost, pairs)`
# that returns the **index** of each row's winner, shape `(M,)`: the one with the lower
# cost, the first of the two on a tie.


# %%
def tournament(cost, pairs):
    # YOUR CODE HERE
    raise NotImplementedError


check("13.4", tournament)


# %% [markdown]
# ### 13.5 · Mutation without touching the parents
#
# Write `mutate(pop, mask, noise)` that returns a new population: `pop + noise` where the
# bool tensor `mask` is True, `pop` unchanged elsewhere. All three have shape `(N, 3)`.
# The caller's `pop` must not change.


# %%
def mutate(pop, mask, noise):
    # YOUR CODE HERE
    raise NotImplementedError


check("13.5", mutate)


# %% [markdown]
# ### 13.6 · The k best individuals
#
# Write `best_k(pop, cost, k)` that returns the rows of `pop` with the k lowest costs,
# best first: shape `(k, 3)`.


# %%
def best_k(pop, cost, k):
    # YOUR CODE HERE
    raise NotImplementedError


check("13.6", best_k)


# %% [markdown]
# ### 13.8 · Fitness and selection in one graph
#
# Write `select_parents(pop, pairs)` for function 2: compute each individual's cost with
# `ga.fitness2_torch(pop)` (`inf` where infeasible), let each row of `pairs` (shape `(M, 2)`)
# pick the individual with the lower cost (the first of the two on a tie, as in 13.4), and
# return `(parents, parents' cost)`, shapes `(M, 3)` and `(M,)`. Write it so that
# `torch.compile(select_parents, fullgraph=True)` captures it as **one graph**: no Python `if`
# on a tensor's value, no `.item()` or `.tolist()`, even for a population in which nothing is
# feasible. Then the whole step compiles into fused kernels, as in the lesson.


# %%
def select_parents(pop, pairs):
    # YOUR CODE HERE
    raise NotImplementedError


check("13.8", select_parents)


# %% [markdown]
# ### 13.7 · One whole generation (stretch)
#
# Write `ga_generation(pop, cost, pairs, blend, mutate, noise)` for function 2, the step
# of the lesson's GA, and return `(children, children's cost)`:
#
# 1. parents `a` and `b` win binary tournaments over `pairs[:, 0:2]` and `pairs[:, 2:4]`
#    (lower cost wins, the first on a tie);
# 2. `children = blend * pop[a] + (1 − blend) * pop[b]`;
# 3. add `noise` where `mutate` is True;
# 4. elitism: row 0 of the children is the best individual of `pop`;
# 5. the cost is `ga.fitness2_torch(children)`.
#
# Shapes: `pop`, `blend`, `mutate`, `noise` are `(N, 3)`, `cost` is `(N,)`, `pairs` is `(N, 4)`.


# %%
def ga_generation(pop, cost, pairs, blend, mutate, noise):
    # YOUR CODE HERE
    raise NotImplementedError


check("13.7", ga_generation)

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [13 · Case study: genetic-algorithm fitness](../notebooks/13_case_study_ga.ipynb) ·
# **Previous:** [12 · Compiling NumPy code](12_compiling_numpy.ipynb) ·
# **Next:** [14 · Autograd as a calculus engine](14_autograd_calculus.ipynb)
