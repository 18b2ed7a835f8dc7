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
# *Module 01 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/01_data_to_tensors.ipynb) · previous: [00 · Start here](00_start_here.ipynb) · next: [02 · Storage and views](02_storage_and_views.ipynb)

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
# # 01 · From data to tensors: exercises
#
# Practice for the lesson [01 · From data to tensors](../notebooks/01_data_to_tensors.ipynb):
# images, tables and texts as tensors, creation functions, flipping instead of negative
# steps, and the bytes a Python list costs.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("01.3")` shows the
# next hint for exercise 01.3. Exercises go from warm-up to stretch; each one stands alone.
# (The worked answers are in `solutions/`; the notebook in `exercises/` is generated from it
# with the answers taken out.)

# %%
import csv
import sys

import torch
import torch.nn.functional as F

from torchcourse import check, data_path, hint

# %% [markdown]
# ### 01.1 · A photo as channels × height × width floats (warm-up)
#
# An image file decodes to a `uint8` tensor of shape `(H, W, C)`. Write `to_chw_float(img)`
# that returns it as **float32** of shape `(C, H, W)` with values in [0, 1] (divide by 255).
# The check uses small random "images" with 1, 3 and 4 channels.


# %%
def to_chw_float(img):
    # YOUR CODE HERE
    raise NotImplementedError


check("01.1", to_chw_float)


# %% [markdown]
# ### 01.2 · A grid of sample points per decade (warm-up)
#
# Measurements are often taken at points spread evenly on a log scale. Write
# `decades(lo, hi, per_decade)` that returns float64 points from `10**lo` to `10**hi`, both
# included, with `per_decade` steps in each factor of ten. `decades(0, 2, 2)` is
# `[1, 3.162..., 10, 31.62..., 100]`. Compute them in float64: float32 points converted
# afterwards have the float64 dtype but only float32's 7 digits, and the check wants all 15.


# %%
def decades(lo, hi, per_decade):
    # YOUR CODE HERE
    raise NotImplementedError


check("01.2", decades)


# %% [markdown]
# ### 01.3 · Normalise the columns of a table
#
# `table` has one row per sample and one column per measurement, as the Iris table in the
# lesson. Write `standardise_columns(table)` that returns a table whose every column has
# mean 0 and standard deviation 1 (PyTorch's default `std`). Leave `table` unchanged.


# %%
def standardise_columns(table):
    # YOUR CODE HERE
    raise NotImplementedError


check("01.3", standardise_columns)


# %% [markdown]
# ### 01.4 · Characters to token ids
#
# Write `char_ids(text)` that returns the text's characters as an int64 tensor of token ids,
# where the vocabulary is the **sorted** set of the text's characters and a character's id is
# its position in it. For `"abba"` the vocabulary is `['a', 'b']` and the ids `[0, 1, 1, 0]`.
# A character is a character, not a byte: `"café"` has 4 ids. An empty text gives an empty
# int64 tensor.


# %%
def char_ids(text):
    # YOUR CODE HERE
    raise NotImplementedError


check("01.4", char_ids)


# %% [markdown]
# ### 01.5 · One-hot rows as floats
#
# Write `one_hot_float(ids, vocab_size)` that returns the one-hot encoding of an int64 tensor
# of ids (of any shape) as **float32**, with a last dimension of size `vocab_size`, even when
# the largest id in `ids` is smaller than `vocab_size - 1`.


# %%
def one_hot_float(ids, vocab_size):
    # YOUR CODE HERE
    raise NotImplementedError


check("01.5", one_hot_float)


# %% [markdown]
# ### 01.6 · Mirror a batch of images
#
# Write `mirror(batch)` that takes a batch of images `(N, C, H, W)` and returns each image
# mirrored left to right (the first column becomes the last). Remember what PyTorch does with
# a negative slice step.


# %%
def mirror(batch):
    # YOUR CODE HERE
    raise NotImplementedError


check("01.6", mirror)


# %% [markdown]
# ### 01.7 · Boxed floats vs an unboxed tensor, in bytes
#
# `values` is a Python list of floats, each its own float object (as `tensor.tolist()` or a
# file reader makes them). Write `list_and_tensor_bytes(values)` that returns a tuple of two
# ints: the bytes the list needs (the list object itself **plus** every float object it
# points to, by `sys.getsizeof`; equal values are still separate objects) and the bytes of the
# data of a float32 tensor holding the same numbers.


# %%
def list_and_tensor_bytes(values):
    # YOUR CODE HERE
    raise NotImplementedError


check("01.7", list_and_tensor_bytes)

# %% [markdown]
# For the 600 numbers of the Iris table (your function, on the real file). A list built item
# by item, as here, keeps some spare slots for growth, so it is a little bigger than the one
# `tolist()` made in the lesson.

# %%
with open(data_path("iris.csv"), newline="") as f:
    iris_values = [float(v) for row in list(csv.reader(f))[1:] for v in row[:4]]
try:
    boxed, unboxed = list_and_tensor_bytes(iris_values)
    print(f"list: {boxed:,} bytes | float32 tensor: {unboxed:,} bytes | ratio {boxed / unboxed:.1f}x")
except NotImplementedError:
    print("(answer 01.7 first)")


# %% [markdown]
# ### 01.8 · A CSV table to features, labels and class names (stretch)
#
# `lines` are the lines of a CSV file (as `path.read_text().splitlines()` gives them): a
# header, then rows whose last column is a class name and whose other columns are numbers.
# Write `parse_table(lines)` that returns a tuple `(features, labels, names)`:
# * `features`: float32, one row per data row, one column per numeric column;
# * `names`: the list of distinct class names, **sorted**;
# * `labels`: int64, the position of each row's class in `names`.
#
# The check feeds it rows of `data/iris.csv` in a shuffled order and a small table of animals.


# %%
def parse_table(lines):
    # YOUR CODE HERE
    raise NotImplementedError


check("01.8", parse_table)

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [01 · From data to tensors](../notebooks/01_data_to_tensors.ipynb) ·
# **Previous:** [00 · Start here](00_start_here.ipynb) ·
# **Next:** [02 · Storage and views](02_storage_and_views.ipynb)
