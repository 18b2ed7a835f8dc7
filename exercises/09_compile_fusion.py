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
# *Module 09 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/09_compile_fusion.ipynb) · previous: [08 · nn.Module as a container for computation](08_modules_and_buffers.ipynb) · next: [10 · Recompilation and dynamic shapes](10_recompilation.ipynb)

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
# # 09 · torch.compile: fusion and overhead: exercises
#
# Practice for the lesson [09 · torch.compile: fusion and overhead](../notebooks/09_compile_fusion.ipynb):
# choosing `torch.compile`'s arguments, counting the bytes fusion saves, deciding when a
# compile pays off, counting the operations dynamo captures, writing code that fuses, and
# comparing compiled with eager results.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("09.3")` shows the
# next hint for exercise 09.3. Exercises go from warm-up to stretch; each one stands alone.
# The checks run inductor only in 09.7 and 09.10, whose answers are about inductor (each of
# their compiles takes a second or more); everywhere else a compile is needed they use the counting
# backend, which generates no code.

# %%
import math

import torch

from torchcourse import check, hint

# %% [markdown]
# ### 09.1 · The right torch.compile arguments (warm-up)
#
# Write `compile_kwargs(goal)` that returns the keyword arguments (a dict) to pass to
# `torch.compile` for each of these goals:
#
# * `"compile one kernel per input size, never a dynamic one"`
# * `"raise an error instead of splitting the function at a graph break"`
# * `"cut kernel-launch overhead on a GPU with CUDA graphs"`
# * `"autotune matrix multiplications, without CUDA graphs"`
# * `"capture the graph but run it with eager PyTorch, generating no code"`
#
# Return only the argument(s) the goal needs, e.g. `{"mode": "..."}`. The check also passes
# your dict to `torch.compile` to make sure it accepts it.


# %%
def compile_kwargs(goal):
    # YOUR CODE HERE
    raise NotImplementedError


check("09.1", compile_kwargs)


# %% [markdown]
# ### 09.2 · Bytes moved, eager and fused
#
# `(a * b + c).sum()` over three tensors of `n` elements, each element `itemsize` bytes.
# Write `traffic(n, itemsize)` that returns `(eager_bytes, fused_bytes)`: the bytes read
# plus written to memory by eager PyTorch (one kernel per operation, each intermediate
# written and read back) and by one fused kernel. Ignore the one-element result of `sum`.


# %%
def traffic(n, itemsize):
    # YOUR CODE HERE
    raise NotImplementedError


check("09.2", traffic)


# %% [markdown]
# ### 09.3 · Break-even number of calls
#
# A compiled function's first call takes `t_first` seconds (compile and run); each later
# call takes `t_compiled`; the eager function takes `t_eager` per call. Write
# `break_even_calls(t_first, t_eager, t_compiled)` that returns the smallest number of calls
# `k` (an `int`, at least 1) after which the compiled version's total time is no more than
# the eager one's, or `None` if compiling never pays off.


# %%
def break_even_calls(t_first, t_eager, t_compiled):
    # YOUR CODE HERE
    raise NotImplementedError


check("09.3", break_even_calls)


# %% [markdown]
# ### 09.4 · Count the operations in the captured graph
#
# Write `graph_op_count(fn, x)` that returns how many operations dynamo captures in the
# graph of `fn` when called on `x`. Use the counting backend
# `torch._dynamo.testing.CompileCounter` (it compiles nothing, so it is quick).


# %%
def graph_op_count(fn, x):
    # YOUR CODE HERE
    raise NotImplementedError


check("09.4", graph_op_count)


# %% [markdown]
# ### 09.5 · Hit or miss: an integral as one fused expression
#
# Points `(x, y)` uniform in the unit square estimate $\int_0^1 e^{-x^2}\,dx \approx 0.7468$
# as the fraction of points under the curve, $y \le e^{-x^2}$. Write `hit_or_miss(x, y)`
# that returns that fraction as a 0-d float32 tensor, in one tensor expression (no Python
# loop, no `.item()`): the form `torch.compile` fuses into a single kernel.


# %%
def hit_or_miss(x, y):
    # YOUR CODE HERE
    raise NotImplementedError


check("09.5", hit_or_miss)


# %% [markdown]
# ### 09.7 · Name the kernels inductor generates
#
# Write `kernel_names(fn, x)`: compile `fn` with `torch.compile(fn)` (inductor, the default
# backend), call it on `x`, and return the list of the kernels inductor generated for it, read
# as in the lesson from the `output_code` log: each kernel is defined on a line
# `cpp_fused_<ops>_<n> = async_compile...` (`triton_...` on a GPU); return the name on each of
# those lines, in the order the log defines them: one entry per kernel, counted where it is
# defined, not where it is called. A function with a graph break compiles into several graphs,
# each defining its own kernels, so the same name can come twice. `captured_logs(output_code=True)`
# collects the log lines, and its `grep(pattern)` returns the lines matching a regular
# expression. The name lists the operations fused into the kernel; a matrix product runs in a
# library kernel (`extern_kernels.mm`) and is not among them.


# %%
from torchcourse.compiletools import captured_logs


def kernel_names(fn, x):
    # YOUR CODE HERE
    raise NotImplementedError


check("09.7", kernel_names)


# %% [markdown]
# ### 09.8 · Speed-up, measured warm
#
# Write `speedup(eager_fn, compiled_fn, x, repeat, clock)` returning how many times faster
# `compiled_fn(x)` runs than `eager_fn(x)`: **call each function once untimed** first (the
# first call of a compiled function compiles it, which takes seconds), then time **`repeat`
# calls of each** with `clock()` (such as `time.perf_counter`), and return
# `eager seconds / compiled seconds` (above 1 when the compiled function is faster). The check
# passes functions and a clock that run in fake time and counts the calls.


# %%
def speedup(eager_fn, compiled_fn, x, repeat, clock):
    # YOUR CODE HERE
    raise NotImplementedError


check("09.8", speedup)


# %% [markdown]
# ### 09.9 · Compiled and eager: agree within the dtype's tolerance
#
# A compiled reduction may add the numbers up in another order than eager, so the two results
# can differ in their last bits, and by how much depends on the dtype. Write
# `agree(actual, expected)` for two tensors of the same shape and floating dtype (`float16`,
# `bfloat16`, `float32` or `float64`; finite values) that returns `True` when they agree within
# the tolerances `torch.testing.assert_close` uses by default for that dtype, `False` otherwise:
# a Python `bool`.


# %%
def agree(actual, expected):
    # YOUR CODE HERE
    raise NotImplementedError


check("09.9", agree)


# %% [markdown]
# ### 09.10 · Compiled dropout that draws eager's numbers
#
# Write `compiled_dropout(x, p, seed)` that computes `torch.nn.functional.dropout(x, p,
# training=True)` in a function compiled by `torch.compile` with its default backend
# (inductor), after `torch.manual_seed(seed)`, so that the result equals, bit for bit, what
# eager `dropout` returns after the same `torch.manual_seed(seed)`. Leave inductor's settings
# as you found them (the check looks).


# %%
def compiled_dropout(x, p, seed):
    # YOUR CODE HERE
    raise NotImplementedError


check("09.10", compiled_dropout)


# %% [markdown]
# ### 09.6 · Monte Carlo π in chunks (stretch)
#
# Fusion keeps intermediates out of memory. Without a compiler you can bound their size by
# hand: work through the samples in chunks. Write `pi_chunked(x, y, chunk)` that estimates π
# from the samples `x, y` (as in the lesson, `4 · fraction with x² + y² ≤ 1`) while never
# building a temporary tensor longer than `chunk`. Return a 0-d float32 tensor; `n` need not
# be a multiple of `chunk`.


# %%
def pi_chunked(x, y, chunk):
    # YOUR CODE HERE
    raise NotImplementedError


check("09.6", pi_chunked)

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [09 · torch.compile: fusion and overhead](../notebooks/09_compile_fusion.ipynb) ·
# **Previous:** [08 · nn.Module as a container for computation](08_modules_and_buffers.ipynb) ·
# **Next:** [10 · Recompilation and dynamic shapes](10_recompilation.ipynb)
