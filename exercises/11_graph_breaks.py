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
# *Module 11 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/11_graph_breaks.ipynb) · previous: [10 · Recompilation and dynamic shapes](10_recompilation.ipynb) · next: [12 · Compiling NumPy code](12_compiling_numpy.ipynb)

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
# # 11 · Graph breaks: exercises
#
# Practice for the lesson [11 · Graph breaks](../notebooks/11_graph_breaks.ipynb): reading
# `torch._dynamo.explain`, rewriting code that breaks the graph so that it compiles whole, and
# keeping opaque NumPy code inside one graph as a custom operator.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("11.3")` shows the
# next hint. Each exercise stands alone.
#
# From 11.3 to 11.6, the check runs your function through `one_graph(fn)`: your function
# compiled with `fullgraph=True` (tracing only, so it is quick). A graph break then shows up in
# the check's line as the real error, e.g. `Unsupported: Data-dependent branching`. 11.7
# keeps NumPy code inside one graph (its check compiles with a backend that only counts
# graphs); 11.8 keeps outputs across CUDA-graph replays (its check uses a CPU stand-in).

# %%
import torch

from torchcourse import check, hint
from torchcourse.grading.exercises.m11 import branchy, clean, item_if, item_then_break, one_graph

# %% [markdown]
# ### 11.1 · Count graphs and breaks (warm-up)
#
# Write `graph_report(fn, x)` that returns the tuple `(graph_count, graph_break_count)` that
# `torch._dynamo.explain` reports for `fn` called on `x`. The check tries it on functions
# from the lesson's families (`clean`, `branchy`, `item_then_break`, `item_if`, imported above:
# look at their source with `??branchy`).


# %%
def graph_report(fn, x):
    # YOUR CODE HERE
    raise NotImplementedError


check("11.1", graph_report)


# %% [markdown]
# ### 11.2 · Why did it break?
#
# Write `first_break_reason(fn, x)` that returns the **first line** of the first break
# reason `explain` records for `fn(x)`, or `None` when it records none. Careful: the lesson
# showed a reason can be recorded while `graph_break_count` is 0.


# %%
def first_break_reason(fn, x):
    # YOUR CODE HERE
    raise NotImplementedError


check("11.2", first_break_reason)


# %% [markdown]
# ### 11.3 · Branch-free with `torch.where`
#
# This function scales `x` into `[-1, 1]` only when it is out of range, and breaks the graph
# doing so:
#
# ```python
# def soft_clip(x):
#     m = x.abs().max()
#     if m > 1:
#         return x / m
#     return x
# ```
#
# Rewrite it without the `if`, so that it compiles into one graph. Same values, same dtype.


# %%
def soft_clip(x):
    # YOUR CODE HERE
    raise NotImplementedError


check("11.3", one_graph(soft_clip))


# %% [markdown]
# ### 11.4 · Both branches in the graph with `torch.cond`
#
# Rewrite this with `torch.cond`, so that the graph holds both branches and picks one at run
# time:
#
# ```python
# def share_or_shift(x):
#     if x.sum() > 0:
#         return x / x.sum()
#     return x - x.min()
# ```


# %%
def share_or_shift(x):
    # YOUR CODE HERE
    raise NotImplementedError


check("11.4", one_graph(share_or_shift))


# %% [markdown]
# ### 11.5 · Standardise without `.item()`
#
# This standardises `x`, but divides by 1 instead of a tiny standard deviation. Under
# `fullgraph=True` it fails: the `if` needs the value of a captured scalar.
#
# ```python
# def safe_standardise(x):
#     s = x.std().item()
#     if s < 1e-3:
#         s = 1.0
#     return (x - x.mean()) / s
# ```
#
# Rewrite it so that it compiles into one graph and gives the same values (one input is
# nearly constant, one exactly constant).


# %%
def safe_standardise(x):
    # YOUR CODE HERE
    raise NotImplementedError


check("11.5", one_graph(safe_standardise))


# %% [markdown]
# ### 11.7 · Opaque NumPy code inside one graph
#
# `bins_np(a)` labels each value of a 1-D float NumPy array with its bin among the edges 0.25,
# 0.5 and 0.75. It calls `np.digitize`, which `torch.compile` cannot trace: called in a
# compiled function, it breaks the graph.


# %%
import numpy as np


def bins_np(a):
    return np.digitize(a, [0.25, 0.5, 0.75])


# %% [markdown]
# Write `make_bins_op(name)` that registers, with `torch.library.custom_op`, an operator called
# `name` (a string such as `"mylib::bins"`; the check passes its own names) which takes a 1-D
# float tensor, runs `bins_np` on its values and returns the labels as an int64 tensor on the
# input's device. Give it a fake implementation and return the operator. Then
# `torch.compile(lambda t: op(t * 2) + 1)` makes **one graph with no graph break**, and the
# operator also answers on tensors that have no data (`meta` and fake tensors, the ones tracing
# uses) with the real output's shape and dtype.


# %%
def make_bins_op(name):
    # YOUR CODE HERE
    raise NotImplementedError


check("11.7", make_bins_op)


# %% [markdown]
# ### 11.8 · Outputs that survive the next replay
#
# On a GPU, a function compiled with `mode="reduce-overhead"` replays a CUDA graph, and each
# replay writes its result into the same output memory: an output kept from an earlier call
# changes at the next call. `step` is such a function. Write `run_all(step, xs)` that calls
# `step(x)` once for each tensor `x` in the list `xs` and returns the list of the results, each
# still holding its own call's values after all the calls. (The check passes a stand-in for
# `step` that reuses one output buffer as a replay does, so it runs on a CPU too.)


# %%
def run_all(step, xs):
    # YOUR CODE HERE
    raise NotImplementedError


check("11.8", run_all)


# %% [markdown]
# ### 11.6 · A piecewise loss without a loop (stretch)
#
# The Huber loss of a tensor `x` with threshold `delta` is the mean over elements of
# `0.5·v²` where `|v| <= delta` and `delta·(|v| − delta/2)` elsewhere. Written as a loop,
# with an `if` per element, it does not compile at all: the `if` breaks the graph inside the
# `for` loop, so Dynamo gives up on the whole function ("graph break in loop", `gb7000`) and
# runs it eagerly, one element at a time (`explain` reports 0 graphs):
#
# ```python
# def huber(x, delta):
#     total = 0.0
#     for v in x.flatten():
#         total = total + (0.5 * v * v if v.abs() <= delta else delta * (v.abs() - 0.5 * delta))
#     return total / x.numel()
# ```
#
# Write `huber(x, delta)` as one tensor expression that returns a 0-d tensor of `x`'s dtype.


# %%
def huber(x, delta):
    # YOUR CODE HERE
    raise NotImplementedError


check("11.6", one_graph(huber))

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [11 · Graph breaks](../notebooks/11_graph_breaks.ipynb) ·
# **Previous:** [10 · Recompilation and dynamic shapes](10_recompilation.ipynb) ·
# **Next:** [12 · Compiling NumPy code](12_compiling_numpy.ipynb)
