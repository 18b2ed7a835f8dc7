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
# *Module 00 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/00_start_here.ipynb) · next: [01 · From data to tensors](01_data_to_tensors.ipynb)

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
# # 00 · Start here
#
# PyTorch is usually introduced as a deep-learning framework. This course treats it as
# what it also is: a fast array library with a GPU back end, a compiler and automatic
# differentiation. You will look inside tensors (storage, strides, dtypes), solve
# linear systems, move work to a GPU, and make NumPy-style code faster with
# `torch.compile`, measuring every claim as you go.
#
# This first notebook shows how the course works and checks that your machine is ready.
#
# **Objectives.** After this notebook you can:
# 1. run a notebook cell by cell and restart it cleanly;
# 2. read the preflight report and know what your machine can and cannot do;
# 3. create a tensor and read its shape, dtype and device;
# 4. solve an exercise, read its check's verdict, and ask for a hint.
#
# **Prerequisites.** Python (functions, lists, loops). No PyTorch yet.
#
# **Time.** 25 min teaching, 15 min exercises.

# %% [markdown]
# ## How the course is organised
#
# Every module comes as three notebooks with the same number:
#
# | folder | what | you... |
# |---|---|---|
# | `notebooks/` | the lesson | read and run it top to bottom |
# | `exercises/` | exercises with empty answers | write your answers here |
# | `solutions/` | the same exercises, answered | look only after trying |
#
# The modules, in teaching order (this table is read from the course's own index, so it is
# always current):

# %%
from IPython.display import Markdown

from torchcourse.authoring.course import markdown_table

Markdown(markdown_table())

# %% [markdown]
# Every notebook of the course starts with a **setup cell**: in JupyterLab it is the collapsed
# code cell above the title (click it to see the code). On your own machine it installs
# nothing and says so; on Google Colab, where only the notebook is opened, it fetches the
# course and installs its helper package. Run it first, like any other cell.
#
# ## Running a notebook
#
# A notebook is a list of cells. Run the selected cell with **Shift+Enter**; the number in
# `[ ]` beside a cell says in which order cells ran. Cells share one Python process (the
# *kernel*), so a variable defined in one cell is visible in later ones:

# %%
greeting = "tensors"
print(f"Hello, {greeting}!")

# %% [markdown]
# Because the kernel remembers everything, running cells out of order can leave it in a
# state no reader can reproduce. When in doubt use **Kernel → Restart Kernel and Run All
# Cells**: every notebook of the course is made to run top to bottom that way, in under
# 5 minutes on a 2-core CPU.

# %% [markdown]
# ## The preflight: is this machine ready?
#
# The preflight reports your Python and PyTorch versions, your CPU cores and the GPUs it
# finds, whether `torch.compile` works here (it compiles a tiny function to find out), free
# memory and a measured copy bandwidth. Lines marked `✓` passed; lines marked `!` are notes,
# not errors: without a GPU, for instance, the GPU cells of the course say what they skipped
# and carry on. Only a `✗` line stops the course. The same report runs from a terminal with
# `python -m torchcourse.preflight`.
#
# The report depends on your machine, so its output differs from the one stored here; the
# line after it is what must hold everywhere.

# %%
# NBVAL_IGNORE_OUTPUT
from torchcourse import preflight

items = preflight.run()
print(preflight.report(items))

# %%
can_run = not any(item.fatal and not item.ok for item in items)
print("The course can run here:", can_run)

# %% [markdown]
# ## Your first tensors
#
# A tensor is an n-dimensional array of numbers of one type, living on one device.
# Three attributes describe it: `shape` (how many numbers along each dimension), `dtype`
# (what kind of number) and `device` (which memory it lives in).

# %%
import torch

from torchcourse import claim

t = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(t)
print("shape:", t.shape, "| dtype:", t.dtype, "| device:", t.device)
claim(t.dtype == torch.float32, "a tensor built from Python floats gets the default dtype, float32")

# %% [markdown]
# (`claim` is the course's way of tying a sentence to the output: it prints `checked:` and
# the sentence when this run supports it, and stops with an error when it does not.)
#
# `t.shape` is a `torch.Size`, which is a tuple. `t.dim()` counts dimensions and
# `t.numel()` counts elements. Arithmetic works element by element, and reductions such
# as `sum` can run over one dimension: `t.sum(dim=0)`.
#
# ## Predict, then run
#
# Before some cells, the course asks you what the next cell will show. Write your guess
# in place of `None` and run the cell: `predict` records it. The cell after it measures the
# answer *in your run*, on your machine and your PyTorch, and `reveal` says whether you were
# right and why. Unanswered, it shows the answer anyway; a wrong guess is where you learn most.
#
# **Predict 00.p1.** `t` has shape `(2, 3)`: two rows, three columns. How many numbers does
# `t.sum(dim=0)` hold? Write a whole number.

# %%
from torchcourse import predict, reveal

predict("00.p1", None)  # replace None with your prediction

# %%
print("dim:", t.dim(), "| numel:", t.numel())
print("t * 10 =", t * 10)
column_sums = t.sum(dim=0)
print("t.sum(dim=0):", column_sums)
reveal(
    "00.p1",
    column_sums.numel(),
    why="The dimension you reduce over disappears: `dim=0` sums down the columns, leaving one number per column. "
    "`t.sum(dim=1)` would leave one per row.",
)

# %% [markdown]
# Code in this course never hard-codes a device. It asks once for the best one with the
# course's `pick_device()` (a GPU when there is one, else the CPU), creates tensors there,
# and the results stay on that device:

# %%
from torchcourse import describe_device, pick_device

device = pick_device()
x = torch.linspace(0, 2 * torch.pi, 200, device=device)
y = torch.sin(x) * torch.exp(-x / 4)
print("computed on the chosen device:", y.device.type == device.type)
claim(y.device == x.device, "the result of an operation lives on the device of its inputs")

# %% [markdown]
# PyTorch's own device-agnostic API for the same question is `torch.accelerator`:
# `torch.accelerator.is_available()` says whether an accelerator (a CUDA or ROCm GPU, Apple's
# MPS, Intel's XPU, ...) can be used, and `torch.accelerator.current_accelerator(check_available=True)`
# names it, or returns `None` when none can be used (without the argument it names the
# accelerator this build of PyTorch was made for, even on a machine without that device). Module 07 uses it in depth. What this machine
# has (the output depends on the machine):

# %%
# NBVAL_IGNORE_OUTPUT
print("torch.accelerator.is_available():", torch.accelerator.is_available())
print(
    "torch.accelerator.current_accelerator(check_available=True):",
    torch.accelerator.current_accelerator(check_available=True),
)
print("this machine's device:", describe_device(device))

# %% [markdown]
# Tensors plot with matplotlib once they are on the CPU (`.cpu()` is a no-op when they
# already are). Look at the picture: 200 samples of a damped sine wave, computed in one
# vectorised expression.

# %%
import matplotlib.pyplot as plt

fig, ax = plt.subplots(figsize=(6, 2.5))
ax.plot(x.cpu(), y.cpu(), marker=".", markersize=3, linewidth=0.8)
ax.set(xlabel="x", ylabel="sin(x)·exp(-x/4)", title="200 values computed in one tensor expression")
ax.grid(alpha=0.3)
plt.show()

# %% [markdown]
# ## Exercises, checks and hints
#
# Each exercise asks you to write a small function. Under it, a **check** runs your
# function on several inputs, compares the result with a reference answer, and prints
# one line:
#
# * `✓` your function agrees with the reference on every input;
# * `✗` it does not, and the line says what differed first (shape, dtype, device, values,
#   a view where a copy was needed, an input you changed in place, or the error your
#   function raised);
# * `…` not attempted yet: the function still holds its placeholder.
#
# Here is exercise 00.1 ("return the numbers 0 to n-1 as a float32 *column*") answered
# three ways. First untouched, as you find it in `exercises/`:

# %%
from torchcourse import check, hint


def column_of(n):
    # YOUR CODE HERE
    raise NotImplementedError


check("00.1", column_of)

# %% [markdown]
# A first attempt that forgets the column shape, and one that forgets the dtype. The
# check names the difference and the input where it showed up:


# %%
def column_of(n):
    return torch.arange(n, dtype=torch.float32)


check("00.1", column_of)


# %%
def column_of(n):
    return torch.arange(n).reshape(n, 1)


check("00.1", column_of)


# %% [markdown]
# Stuck? `hint(id)` shows the hints one at a time, so you can take only as much help as you
# need. Each call shows the next one:

# %%
hint("00.1")
hint("00.1")

# %% [markdown]
# And a right answer:


# %%
def column_of(n):
    return torch.arange(n, dtype=torch.float32).reshape(n, 1)


check("00.1", column_of)

# %% [markdown]
# Checks never crash the notebook. If your function raises, returns `None`, returns a
# NumPy array or a list, or quietly changes its input, the check reports it as a `✗`:


# %%
def column_of(n):
    return [float(i) for i in range(n)]


check("00.1", column_of)

# %% [markdown]
# ## Common mistakes
#
# **Ragged nested lists.** A tensor is rectangular: every row needs the same length.
# PyTorch says which dimension is ragged:

# %% tags=["raises-exception"]
torch.tensor([[1, 2], [3]])

# %% [markdown]
# **Mixing devices.** The tensors of one operation must live on the same device: PyTorch
# does not copy a tensor to another device for you. With a GPU you meet this as `cuda:0`
# versus `cpu`; here we show it with the `meta` device (shapes without data), which exists on
# every machine:

# %% tags=["raises-exception"]
torch.ones(2, device="meta") + torch.ones(2)

# %% [markdown]
# There is one exception, and you will meet it: a **0-dimensional CPU tensor** (a single
# number, such as what `t.sum()` returns on the CPU) may join an elementwise operation
# (arithmetic, comparisons) with tensors on any device. PyTorch reads its value on the CPU
# and hands it to the kernel as a plain number, as it does with a Python number, and the
# result lives on the other device. What about a one-element tensor with a dimension,
# `torch.tensor([3.0])`?
#
# **Predict 00.p2.** Does `torch.ones(2, device="meta") + torch.tensor([3.0])` raise an error?
# Write `True` or `False`.

# %%
predict("00.p2", None)  # replace None with your prediction

# %%
on_meta = torch.ones(2, device="meta")
print("meta tensor + 0-d CPU tensor:", (on_meta + torch.tensor(3.0)).device)
print("meta tensor * Python number: ", (on_meta * 3).device)
try:
    on_meta + torch.tensor([3.0])
    one_element_raises = False
except RuntimeError:
    one_element_raises = True
print("meta tensor + CPU tensor of shape (1,) raises RuntimeError:", one_element_raises)
reveal(
    "00.p2",
    one_element_raises,
    why="A one-element tensor with a dimension, `torch.tensor([3.0])`, is not a 0-d tensor and is refused: "
    "only a 0-d CPU tensor is read as a plain number.",
)

# %% [markdown]
# **Integer tensors and `mean`.** `torch.tensor([1, 2, 3])` holds integers (`int64`).
#
# **Predict 00.p3.** What does `torch.tensor([1, 2, 3]).mean()` give? Write one of
# `"int64"` (an integer tensor), `"float32"` (a float tensor) or `"RuntimeError"` (an error).

# %%
predict("00.p3", None)  # replace None with your prediction: "int64", "float32" or "RuntimeError"

# %% [markdown]
# The cell catches an error if there is one (`except RuntimeError` also catches its
# subclasses, such as `NotImplementedError`) and prints what happened:

# %%
try:
    mean_gives = str(torch.tensor([1, 2, 3]).mean().dtype).removeprefix("torch.")
except RuntimeError as err:
    mean_gives = "RuntimeError"
    print("it asks for a floating point dtype:", "floating point" in str(err))
print("mean of an int64 tensor gives:", mean_gives)
reveal(
    "00.p3",
    mean_gives,
    why="An average of integers is not an integer, so PyTorch refuses rather than guess. "
    "The error is a `RuntimeError` whose message (`mean(): could not infer output dtype ...`) asks for a floating point dtype.",
    choices=("int64", "float32", "RuntimeError"),
)

# %% [markdown]
# Fix: say what you want, `torch.tensor([1, 2, 3]).float().mean()` or
# `torch.tensor([1.0, 2.0, 3.0]).mean()`.

# %%
print(torch.tensor([1, 2, 3]).float().mean())

# %% [markdown]
# ## Your progress
#
# Every check and every prediction keeps its latest verdict, on this machine only: by default
# in the file `~/.torchcourse/progress.json` in your home folder, outside the course's files.
# Set the environment variable `TORCHCOURSE_PROGRESS` to another path to keep it elsewhere, or
# to `0` to keep nothing; the line under the table says where this session keeps it. `progress()` shows every module; `progress("00")` only this one (the
# exercises count those of the `exercises/` notebook, so here every check above counts as
# exercise 00.1, with its latest verdict, and the three predictions as you answered them):

# %%
from torchcourse import progress

progress("00")

# %% [markdown]
# ## Key points
#
# * Lessons in `notebooks/`, your work in `exercises/`, answers in `solutions/`.
# * Restart and run all when the kernel's state is in doubt; every notebook runs top to bottom.
# * The preflight (`python -m torchcourse.preflight`) tells what your machine can do.
# * A tensor has a `shape`, a `dtype` and a `device`; pick the device once, with `pick_device()`.
#   The tensors of one operation share a device; only a 0-d CPU tensor (or a Python number)
#   may join tensors on another device.
# * `check(id, fn)` prints `✓`, a specific `✗`, or `…`; `hint(id)` gives one hint at a time.
# * Predict before you run: `predict(id, guess)`, then `reveal` grades it on this run's measurement.
#   `progress()` shows what you have solved and predicted, module by module.
# * `claim(condition, sentence)` prints `checked:` when this run supports the sentence.

# %% [markdown]
# ## Further reading
#
# * [Tensor Attributes](https://pytorch.org/docs/2.0/tensor_attributes.html): `dtype`,
#   `device` and `layout`, the three attributes every tensor carries.
# * [`torch.accelerator.current_accelerator`](https://docs.pytorch.org/docs/stable/generated/torch.accelerator.current_accelerator.html)
#   and [`torch.accelerator.is_available`](https://pytorch.org/docs/stable/generated/torch.accelerator.is_available.html):
#   the device-agnostic way to find the accelerator.

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 10 statements of this lesson are tested facts; all pass on torch 2.13.0. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“a tensor built from Python floats gets the default dtype, float32”</td><td>✓</td></tr>
# <tr><td>“<code>t.shape</code> is a <code>torch.Size</code>, which is a tuple”</td><td>✓</td></tr>
# <tr><td>“<code>dim=0</code> sums down the columns, leaving one number per column”</td><td>✓</td></tr>
# <tr><td>“(<code>.cpu()</code> is a no-op when they already are)”</td><td>✓</td></tr>
# <tr><td>“The tensors of one operation must live on the same device: PyTorch does not copy a tensor to another device for you”</td><td>✓</td></tr>
# <tr><td>“a 0-dimensional CPU tensor (a single number, such as what <code>t.sum()</code> returns on the CPU) may join an elementwise operation (arithmetic, comparisons) with tensors on any device”</td><td>✓</td></tr>
# <tr><td>“A one-element tensor with a dimension, <code>torch.tensor([3.0])</code>, is not a 0-d tensor and is refused”</td><td>✓</td></tr>
# <tr><td>“<code>torch.accelerator.current_accelerator(check_available=True)</code> names it, or returns <code>None</code> when none can be used”</td><td>✓</td></tr>
# <tr><td>“A tensor is rectangular: every row needs the same length. PyTorch says which dimension is ragged”</td><td>✓</td></tr>
# <tr><td>“The error is a <code>RuntimeError</code> whose message (<code>mean(): could not infer output dtype ...</code>) asks for a floating point dtype”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/00_start_here.ipynb](../exercises/00_start_here.ipynb) ·
# **Next:** [01 · From data to tensors](01_data_to_tensors.ipynb)
