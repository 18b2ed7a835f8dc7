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
# *Module 02 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/02_storage_and_views.ipynb) · previous: [01 · From data to tensors](01_data_to_tensors.ipynb) · next: [03 · Strides](03_strides.ipynb)

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
# # 02 · Storage and views: exercises
#
# Practice for the lesson [02 · Storage and views](../notebooks/02_storage_and_views.ipynb):
# views versus copies, in-place updates, and sharing memory with NumPy.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("02.3")` shows the
# next hint for exercise 02.3. The checks here also look at memory: some want a **view**
# (sharing the input's storage), some a **copy**, and some want you to change the input
# **in place** and return it, as PyTorch's own `add_` does. Exercises go from warm-up to
# stretch; each one stands alone.

# %%
import torch

from torchcourse import check, hint

# %% [markdown]
# ### 02.1 · The last column, as a view (warm-up)
#
# Write `last_column(t)` that returns the last column of a 2-D tensor `t` as a **view**:
# shape `(rows,)`, sharing `t`'s storage, so no number is copied.


# %%
def last_column(t):
    ### BEGIN SOLUTION
    return t[:, -1]
    ### END SOLUTION


check("02.1", last_column)


# %% [markdown]
# ### 02.2 · An independent copy (warm-up)
#
# Write `independent_copy(t)` that returns a tensor with the same values as `t` that shares
# **no** memory with it (writing into the result must leave `t` alone) and carries no
# autograd history.


# %%
def independent_copy(t):
    ### BEGIN SOLUTION
    return t.detach().clone()
    ### END SOLUTION


check("02.2", independent_copy)


# %% [markdown]
# ### 02.3 · Clear the negatives in place
#
# Write `zero_negatives_(t)` that sets every negative element of `t` to zero **in place**
# (written into `t`'s own memory, so the caller's tensor and every other view of that memory
# see the change; `t` keeps its storage) and returns `t`. The trailing underscore in the name
# follows PyTorch's convention for in-place functions. The check also passes a slice of a
# larger tensor.


# %%
def zero_negatives_(t):
    ### BEGIN SOLUTION
    t.clamp_(min=0)
    return t
    ### END SOLUTION


check("02.3", zero_negatives_)


# %% [markdown]
# ### 02.4 · Wrap a NumPy array without copying
#
# Write `wrap_array(a)` that returns a tensor with `a`'s values and dtype that **shares**
# `a`'s memory, so that a write on either side shows on the other. The check uses float64,
# float32 and int32 arrays.


# %%
def wrap_array(a):
    ### BEGIN SOLUTION
    return torch.from_numpy(a)
    ### END SOLUTION


check("02.4", wrap_array)


# %% [markdown]
# ### 02.5 · Scale each row in place
#
# `m` is a 2-D tensor of shape `(n, k)` and `factors` a 1-D tensor of length `n`. Write
# `scale_rows_(m, factors)` that multiplies row `i` of `m` by `factors[i]` **in place** (in
# `m`'s own memory, as in 02.3) and returns `m`. (Some inputs are square, so a wrong broadcast does not always fail loudly.)


# %%
def scale_rows_(m, factors):
    ### BEGIN SOLUTION
    m.mul_(factors.unsqueeze(1))
    return m
    ### END SOLUTION


check("02.5", scale_rows_)


# %% [markdown]
# ### 02.6 · Paint a border through views
#
# Write `set_border_(img, value)` that sets the first and last rows and the first and last
# columns of the 2-D tensor `img` to `value`, **in place** (in `img`'s own memory, as in
# 02.3), and returns `img`. The inside must keep its values.


# %%
def set_border_(img, value):
    ### BEGIN SOLUTION
    img[0] = value
    img[-1] = value
    img[:, 0] = value
    img[:, -1] = value
    return img
    ### END SOLUTION


check("02.6", set_border_)


# %% [markdown]
# ### 02.7 · Which tensors share memory? (stretch)
#
# `tensors` is a list of tensors. Write `shares_with_first(tensors)` that returns a list of
# booleans, one for each tensor after the first: `True` when it uses the **same storage** as
# `tensors[0]` (a view of it, or the tensor it is a view of, even one that starts elsewhere
# in the buffer), `False` when it has its own. For `[t, t[1], t.clone()]` the answer is
# `[True, False]`.


# %%
def shares_with_first(tensors):
    ### BEGIN SOLUTION
    first = tensors[0].untyped_storage().data_ptr()
    return [t.untyped_storage().data_ptr() == first for t in tensors[1:]]
    ### END SOLUTION


check("02.7", shares_with_first)

# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [02 · Storage and views](../notebooks/02_storage_and_views.ipynb) ·
# **Previous:** [01 · From data to tensors](01_data_to_tensors.ipynb) ·
# **Next:** [03 · Strides](03_strides.ipynb)
