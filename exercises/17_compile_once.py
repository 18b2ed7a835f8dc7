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
# *Module 17 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/17_compile_once.ipynb) · previous: [16 · Advanced indexing: masks, gather and scatter](16_indexing.ipynb)

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
# *Outputs made with torch 2.13.0+cpu on Intel(R) Xeon(R) Processor (2 cores, CPU only), 2026-11-28.*

# %% [markdown]
# # 17 · Compile once: caches, export and ahead-of-time: exercises
#
# Practice for the lesson [17 · Compile once: caches, export and ahead-of-time](../notebooks/17_compile_once.ipynb):
# reading an `ExportedProgram`, exporting with a dynamic batch, making a branch exportable,
# shipping a compile cache and writing an AOTInductor package.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("17.3")` shows the
# next hint for exercise 17.3. Exercises go from warm-up to stretch; each one stands alone.
# 17.1 to 17.4 only export (a second or so each); 17.5 compiles and its check starts a fresh
# Python process, and 17.6 runs AOTInductor: those two checks take tens of seconds.

# %%
import torch
from torch.export import Dim, export

from torchcourse import check, hint

# %% [markdown]
# ### 17.1 · Count a program's inputs and outputs (warm-up)
#
# An `ExportedProgram` lifts parameters and buffers into graph inputs, and, once its
# operations are decomposed to the core set (`program.run_decompositions()`), a buffer the
# model updates in place becomes an extra graph output. Write `io_counts(program)` that
# returns `(number of user inputs, number of user outputs)`: the arguments a caller passes
# and the values it gets back, not the lifted ones.


# %%
def io_counts(program):
    # YOUR CODE HERE
    raise NotImplementedError


check("17.1", io_counts)


# %% [markdown]
# ### 17.2 · The batch sizes a program accepts
#
# Write `batch_range(program)` that returns `(smallest, largest)`, two Python `int`s: the batch
# sizes (dimension 0 of the program's first user input) that the program accepts. For a
# dimension exported as static, both are the example's size. Read them from the program (its
# inputs and its `range_constraints`, whose bounds are sympy numbers), do not call it.


# %%
def batch_range(program):
    # YOUR CODE HERE
    raise NotImplementedError


check("17.2", batch_range)


# %% [markdown]
# ### 17.3 · Export for every batch size
#
# Write `export_any_batch(model, x)` that exports `model` with the example `x` (a 2-d
# tensor: a batch of rows) with this contract: batch sizes from 1 to 4096 (the program's
# `range_constraints` say exactly that range), the number of columns fixed. The check runs
# your program's `.module()` on batches of several sizes and on a wrong number of columns,
# and reads its range constraints.


# %%
def export_any_batch(model, x):
    # YOUR CODE HERE
    raise NotImplementedError


check("17.3", export_any_batch)


# %% [markdown]
# ### 17.4 · Make a branch exportable
#
# `torch.export` refuses this function, since its `if` depends on the values in `x`:
#
# ```python
# def leaky_or_flip(x):
#     if x.mean() > 0:
#         return torch.where(x > 0, x, 0.1 * x)
#     return -x
# ```
#
# Write `leaky_or_flip_exportable(x)` that returns the same values for every `x` and that
# `torch.export.export` accepts. The check puts your function in an `nn.Module`, exports it,
# and runs the program on inputs of both kinds.


# %%
def leaky_or_flip_exportable(x):
    # YOUR CODE HERE
    raise NotImplementedError


check("17.4", leaky_or_flip_exportable)


# %% [markdown]
# ### 17.5 · Ship a compile cache
#
# Write `ship_cache(fn, x)` that compiles `fn` with `torch.compile` (default backend),
# makes sure the compiled code exists for `x`, and returns the cache artefacts as `bytes`,
# ready to be written to a file. The check starts a fresh Python process with a new
# inductor cache directory (it holds no compiled code, only inductor's CPU probe programs),
# loads your bytes there, compiles `fn` on `x` and looks whether that compile hit the FX
# graph cache.


# %%
def ship_cache(fn, x):
    # YOUR CODE HERE
    raise NotImplementedError


check("17.5", ship_cache)


# %% [markdown]
# ### 17.6 · Deploy with AOTInductor (stretch)
#
# Write `deploy(program, directory)` that compiles the exported `program` with AOTInductor
# into a package file inside `directory` (a `pathlib.Path`), and returns a callable loaded
# from that file. The check loads the package file it finds in `directory` itself, runs both
# it and your callable on several batch sizes, and counts the graphs dynamo compiles
# meanwhile (none, for a package).


# %%
def deploy(program, directory):
    # YOUR CODE HERE
    raise NotImplementedError


check("17.6", deploy)

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [17 · Compile once: caches, export and ahead-of-time](../notebooks/17_compile_once.ipynb) ·
# **Previous:** [16 · Advanced indexing: masks, gather and scatter](16_indexing.ipynb)
