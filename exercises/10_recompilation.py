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
# *Module 10 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/10_recompilation.ipynb) · previous: [09 · torch.compile: fusion and overhead](09_compile_fusion.ipynb) · next: [11 · Graph breaks](11_graph_breaks.ipynb)

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
# # 10 · Recompilation and dynamic shapes: exercises
#
# Practice for the lesson [10 · Recompilation and dynamic shapes](../notebooks/10_recompilation.ipynb):
# reading recompile reasons, counting compiles with the counting backend, choosing static
# or dynamic shapes, the recompile limit, a backend of your own, and one graph for batches of
# every size.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("10.3")` shows the
# next hint for exercise 10.3. Exercises go from warm-up to stretch; each one stands alone.
# Everything here counts compiles with dynamo's counting backend, so nothing waits for
# inductor. The checks call `torch.compiler.reset()`, so they also drop any function you
# compiled in this notebook (it simply compiles again on its next call).

# %%
import torch

from torchcourse import check, hint

# %% [markdown]
# ### 10.1 · Read a recompile reason (warm-up)
#
# `TORCH_LOGS=recompiles` gives, for each recompile, the guard that failed, e.g.
# `- 0/0: tensor 'x' dtype mismatch. expected Float, actual Double`. Write
# `guard_kind(reason)` that returns what changed: `"dtype"`, `"device"`, `"shape"` (size or
# stride), `"requires_grad"`, or `"value"` (a guard on a Python value, such as
# `mode == 'relu'`).


# %%
def guard_kind(reason):
    # YOUR CODE HERE
    raise NotImplementedError


check("10.1", guard_kind)


# %% [markdown]
# ### 10.2 · Count the compiles of a scenario
#
# Write `count_compiles(fn, calls)` that compiles `fn` with the counting backend
# (`torch._dynamo.testing.CompileCounter`), calls the compiled function once with each
# tuple of arguments in `calls`, in order, and returns how many graphs were compiled.


# %%
def count_compiles(fn, calls):
    # YOUR CODE HERE
    raise NotImplementedError


check("10.2", count_compiles)


# %% [markdown]
# ### 10.3 · static, default, dynamic: count them
#
# For `f(x) = torch.sin(x) + 1` called once on `torch.ones(n)` for each `n` in `sizes`,
# write `compiles_by_setting(sizes)` that returns the tuple of compile counts
# `(with dynamic=False, with dynamic=None, with dynamic=True)`. Measure, do not guess:
# sizes 0 and 1 hold surprises (the check counts the graphs your function compiles).


# %%
def compiles_by_setting(sizes):
    # YOUR CODE HERE
    raise NotImplementedError


check("10.3", compiles_by_setting)


# %% [markdown]
# ### 10.4 · One graph for every batch size
#
# A model sees batches of varying size but always the same number of features. Write
# `mark_batch_dynamic(x)` that marks dimension 0 of `x` (the batch) as dynamic, leaves the
# other dimensions static, and returns `x` itself. The check compiles a function, calls it
# with your tensor and then with other batch sizes, and counts the graphs.


# %%
def mark_batch_dynamic(x):
    # YOUR CODE HERE
    raise NotImplementedError


check("10.4", mark_batch_dynamic)


# %% [markdown]
# ### 10.5 · Past the recompile limit
#
# A function that branches on a string, `x + len(name) if name.startswith("add") else x *
# len(name)`, is called with `n_names` different names (`"add"`, `"add_"`, `"add__"`, ...).
# Write `compiles_past_limit(n_names, limit)` that returns how many graphs dynamo compiles
# when `torch._dynamo.config.recompile_limit` is `limit`. Measure it with the counting
# backend, and leave the setting as you found it (the check looks).


# %%
def compiles_past_limit(n_names, limit):
    # YOUR CODE HERE
    raise NotImplementedError


check("10.5", compiles_past_limit)


# %% [markdown]
# ### 10.7 · One graph for every batch, empty and single ones included
#
# A service receives batches of any number of rows, 0 and 1 included, always with the same
# number of columns. Write `serve(fn, batches)`: compile `fn` with `torch.compile`
# (`backend="eager"` keeps it quick: only the number of graphs matters here), call the compiled
# function once on each tensor of the list `batches`, in order (nothing else: `fn` need not
# work row by row), and return the list of results. Dynamo must compile exactly one graph for
# the whole list, whatever sizes it holds. The check runs your function again after
# `torch.compiler.reset()`, counts the graphs it compiles and sees which batches the compiled
# code runs on.


# %%
def serve(fn, batches):
    # YOUR CODE HERE
    raise NotImplementedError


check("10.7", serve)

# %% [markdown]
# ### 10.6 · Static or dynamic? Write a backend that tells (stretch)
#
# A backend is any function `backend(gm, example_inputs)` that receives the captured graph
# (a `torch.fx.GraphModule`) and returns a callable to run it. Write `graph_kinds(sizes)`:
# compile `f(x) = torch.sin(x) + 1` with a backend of your own that records, for every graph
# it receives, `"static"` or `"dynamic"` (does the graph take a symbolic size?); call it on
# `torch.ones(n)` for each `n` in `sizes`; return the list of records, in compile order.


# %%
def graph_kinds(sizes):
    # YOUR CODE HERE
    raise NotImplementedError


check("10.6", graph_kinds)


# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [10 · Recompilation and dynamic shapes](../notebooks/10_recompilation.ipynb) ·
# **Previous:** [09 · torch.compile: fusion and overhead](09_compile_fusion.ipynb) ·
# **Next:** [11 · Graph breaks](11_graph_breaks.ipynb)
