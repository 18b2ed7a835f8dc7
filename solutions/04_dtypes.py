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
# *Module 04 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/04_dtypes.ipynb) · previous: [03 · Strides](03_strides.ipynb) · next: [05 · Vectorisation and measuring speed](05_vectorisation.ipynb)

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
# # 04 · Dtypes: exercises
#
# Practice for the lesson [04 · Dtypes](../notebooks/04_dtypes.ipynb): converting from NumPy,
# sizes in bytes, casting on purpose, integer overflow and accumulators, float accuracy, the
# default dtype, complex numbers, and comparing floats with tolerances that fit their dtype.
# In this module **the dtype is part of every answer**: each check compares dtypes as well as
# values, so a right number in the wrong dtype gets a `✗`.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("04.3")` shows the
# next hint for exercise 04.3. Exercises go from warm-up to stretch; each one stands alone.
# (The worked answers are in `solutions/`; the notebook in `exercises/` is generated from it
# with the answers taken out.)

# %%
import cmath
import math

import torch

from torchcourse import check, hint

# %% [markdown]
# ### 04.1 · From NumPy, in float32 (warm-up)
#
# Data often arrives as NumPy arrays, which are float64 (or int64) by default. Write
# `to_float32_tensor(a)` that returns the array's values as a **float32** tensor, for any
# NumPy array of numbers: a reversed view such as `a[::-1]` and big-endian data read from a
# file (dtype `'>f8'`) included.


# %%
def to_float32_tensor(a):
    ### BEGIN SOLUTION
    # astype makes a new float32 array in the machine's byte order with positive strides,
    # which from_numpy accepts (it refuses negative strides and a foreign byte order)
    return torch.from_numpy(a.astype("float32"))
    ### END SOLUTION


check("04.1", to_float32_tensor)


# %% [markdown]
# ### 04.2 · Bytes of a tensor (warm-up)
#
# Write `nbytes(t)` that returns, as a Python `int`, how many bytes the elements of `t` occupy
# (elements times bytes per element). The check uses float32, float64, bfloat16, int8, bool and
# int16 tensors, and views that show only part of their storage.


# %%
def nbytes(t):
    ### BEGIN SOLUTION
    return t.numel() * t.element_size()
    ### END SOLUTION


check("04.2", nbytes)


# %% [markdown]
# ### 04.3 · The mean of integer counts
#
# `t` is an integer tensor of counts (int64, int32 or uint8, any shape). Write `mean_counts(t)`
# that returns the mean of all its elements as a **0-dimensional float64 tensor**, computed in
# float64 all the way (the check compares 12 digits). (Some counts are above 2²⁴, where float32
# can no longer hold every integer, and some totals above 2³¹, where an int32 sum overflows.)


# %%
def mean_counts(t):
    ### BEGIN SOLUTION
    return t.double().mean()  # or t.mean(dtype=torch.float64)
    ### END SOLUTION


check("04.3", mean_counts)


# %% [markdown]
# ### 04.4 · The smallest integer dtype
#
# Write `smallest_int_dtype(lo, hi)` that returns the smallest **signed** integer dtype
# (`torch.int8`, `torch.int16`, `torch.int32` or `torch.int64`) that can hold every integer from
# `lo` to `hi`, both included. Tip: `torch.iinfo(dtype).min` and `.max` give the ranges, so
# none needs typing in.
# For example `smallest_int_dtype(0, 200)` is `torch.int16`.


# %%
def smallest_int_dtype(lo, hi):
    ### BEGIN SOLUTION
    for dtype in (torch.int8, torch.int16, torch.int32, torch.int64):
        info = torch.iinfo(dtype)
        if info.min <= lo and hi <= info.max:
            return dtype
    raise ValueError(f"[{lo}, {hi}] does not fit in int64")
    ### END SOLUTION


check("04.4", smallest_int_dtype)


# %% [markdown]
# ### 04.5 · Brighten an image without wrap-around
#
# `img` is a uint8 image (values 0..255) and `amount` a Python int, positive or negative. Write
# `brighten(img, amount)` that adds `amount` to every pixel, **saturating** at 0 and 255 (a pixel
# of 250 brightened by 60 becomes 255, not 54), and returns a **uint8** image. Leave `img` unchanged.


# %%
def brighten(img, amount):
    ### BEGIN SOLUTION
    return (img.int() + amount).clamp(0, 255).to(torch.uint8)
    ### END SOLUTION


check("04.5", brighten)


# %% [markdown]
# ### 04.6 · Gene totals in int16
#
# `genes` is an int8 tensor of shape `(N, G)`: N chromosomes of G ≤ 1000 genes, each gene a value
# from 1 to 24. Write `gene_totals(genes)` that returns the total of each chromosome (shape `(N,)`)
# as an **int16** tensor, the smallest dtype that cannot overflow here. Ask `sum` for that dtype
# directly, so that no tensor wider than int16 is made on the way: casting an int64 result (or an
# int32 or float one) afterwards gives the same numbers, but only after a copy of the genes 4 or 8
# times their size (the lesson measured the 8x of int64).


# %%
def gene_totals(genes):
    ### BEGIN SOLUTION
    return genes.sum(dim=1, dtype=torch.int16)
    ### END SOLUTION


check("04.6", gene_totals)


# %% [markdown]
# ### 04.7 · Variance without cancellation
#
# `t` is a 1-D float32 tensor of measurements with a large offset (values near 10,000 with a
# spread of about 1). Write `variance(t)` that returns their **population** variance (divide by n)
# as a 0-dimensional **float32** tensor, accurate to 4 digits. The textbook shortcut
# `mean(x²) − mean(x)²` fails here; the check shows by how much if you try it.


# %%
def variance(t):
    ### BEGIN SOLUTION
    return ((t - t.mean()) ** 2).mean()  # or t.var(correction=0)
    ### END SOLUTION


check("04.7", variance)


# %% [markdown]
# ### 04.9 · Build in another default dtype, and put the default back
#
# `build` is a function with no arguments that makes some tensors (for example
# `lambda: torch.tensor([0.1, 0.2])`). Write `with_default_dtype(dtype, build)` that calls `build()`
# **once**, while the default dtype is `dtype` (a floating-point dtype), and returns what it returned
# (that same object). Afterwards the default dtype must be what it was before the call, **even when
# `build` raises**; its exception (that same exception object, not a new one) must still reach the
# caller.


# %%
def with_default_dtype(dtype, build):
    ### BEGIN SOLUTION
    before = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        return build()
    finally:
        torch.set_default_dtype(before)  # runs after return and after an exception alike
    ### END SOLUTION


check("04.9", with_default_dtype)


# %% [markdown]
# ### 04.10 · Rotate points with complex numbers
#
# `points` is a float32 or float64 tensor of shape `(N, 2)`, one point `(x, y)` a row, and
# `degrees` a Python float. Write `rotate(points, degrees)` that rotates every point about the
# origin by `degrees`, counter-clockwise, and returns the rotated points as a tensor of shape
# `(N, 2)` **in the dtype of `points`**, and as precise as that dtype: each coordinate within
# `16·eps·|p|` of the exact rotation (`eps` of that dtype, `|p|` the point's distance from the
# origin), so float64 points computed in float32 precision do not pass. Complex numbers make it one
# multiplication: the point x + iy times e^(iθ) is the rotated point.


# %%
def rotate(points, degrees):
    ### BEGIN SOLUTION
    z = torch.complex(points[:, 0], points[:, 1])  # complex64 from float32, complex128 from float64
    turned = z * cmath.exp(1j * math.radians(degrees))  # a Python complex: z keeps its dtype
    return torch.stack([turned.real, turned.imag], dim=1)
    ### END SOLUTION


check("04.10", rotate)


# %% [markdown]
# ### 04.11 · Close enough for its dtype?
#
# `got` and `want` are floating-point or complex tensors of the same shape and the same dtype.
# Write `close_enough(got, want)` that returns a Python `bool`: whether every element of `got` is
# within the tolerance **of their dtype** of the element of `want`, by the rule and the default
# tolerances of `torch.testing.assert_close` (the lesson's table): |got − want| ≤ atol + rtol × |want|,
# a NaN is never close (not even to a NaN), and an infinity only to the same infinity.


# %%
def close_enough(got, want):
    ### BEGIN SOLUTION
    try:
        torch.testing.assert_close(got, want)  # tolerances chosen from the dtype
    except AssertionError:
        return False
    return True
    ### END SOLUTION


check("04.11", close_enough)

# %% [markdown]
# ### 04.8 · Stable quadratic roots (stretch)
#
# `b` and `c` are float32 tensors of shape `(N,)`: N equations x² + bx + c = 0, each with two real
# roots, |b| between 100 and 10⁹. Write `quadratic_roots(b, c)` that returns a float32 tensor of
# shape `(N, 2)`: column 0 the root of **smaller** magnitude, column 1 the larger, each accurate to
# about 5 digits. The textbook formula loses the small root to cancellation, in float32 and, for
# |b| near 10⁹, in float64 too.


# %%
def quadratic_roots(b, c):
    ### BEGIN SOLUTION
    disc = torch.sqrt(b * b - 4 * c)
    q = -(b + torch.sign(b) * disc) / 2  # the large root: the two terms add, nothing cancels
    return torch.stack([c / q, q], dim=1)  # the roots multiply to c
    ### END SOLUTION


check("04.8", quadratic_roots)


# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [04 · Dtypes](../notebooks/04_dtypes.ipynb) ·
# **Previous:** [03 · Strides](03_strides.ipynb) ·
# **Next:** [05 · Vectorisation and measuring speed](05_vectorisation.ipynb)
