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
# *Module 04 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/04_dtypes.ipynb) · previous: [03 · Strides](03_strides.ipynb) · next: [05 · Vectorisation and measuring speed](05_vectorisation.ipynb)

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
# # 04 · Dtypes
#
# Every tensor holds numbers of one type, its *dtype*. The dtype fixes how many bytes each
# element takes, which values it can hold, and how exactly arithmetic rounds. Get it wrong
# and nothing crashes: an integer quietly wraps around, a float16 quietly becomes `inf`, a
# sum over an `int8` tensor quietly allocates eight times the input. This module makes
# those quiet events visible, and sets PyTorch's rules beside NumPy's, which differ in
# places that matter.
#
# **Objectives.** After this notebook you can:
# 1. read a dtype's size, range and precision from `element_size()`, `torch.finfo` and `torch.iinfo`;
# 2. cast on purpose (`.to`, `.type`, `.double()`), change the default dtype without leaking it, and
#    predict a result's dtype with `torch.result_type`, complex dtypes included, and where PyTorch and
#    NumPy 2 (NEP 50) disagree;
# 3. spot integer overflow and the memory cost of integer reductions, and fix both with `dtype=`;
# 4. estimate float32, float16 and bfloat16 rounding errors, avoid catastrophic cancellation, and compare
#    float results with `torch.testing.assert_close` and tolerances measured for their dtype;
# 5. say what `torch.set_float32_matmul_precision` and the newer `fp32_precision` switches (TF32, bfloat16)
#    change, on a GPU and on a CPU.
#
# **Prerequisites.** [01 · From data to tensors](01_data_to_tensors.ipynb) (creating tensors, NumPy
# interop). Floating-point numbers as "a mantissa and an exponent" is enough; we measure the rest.
#
# **Time.** 55 min teaching, 50 min exercises.

# %%
import math

import matplotlib.pyplot as plt
import numpy as np
import torch

from torchcourse import claim, predict, reveal

# %% [markdown]
# ## float32 by default, float64 in NumPy
#
# PyTorch creates floating-point tensors as `float32` (4 bytes); NumPy creates `float64`
# (8 bytes). Converting from NumPy keeps NumPy's dtype, so a tensor's dtype tells you where
# it came from:

# %%
a = np.array([0.1, 0.2])
print("NumPy array:          ", a.dtype)
print("torch.tensor(list):   ", torch.tensor([0.1, 0.2]).dtype)
print("torch.from_numpy(a):  ", torch.from_numpy(a).dtype)
print("torch.tensor(a):      ", torch.tensor(a).dtype)
print("default dtype:        ", torch.get_default_dtype())
print("from_numpy(a) + torch.tensor([1.0]):", (torch.from_numpy(a) + torch.tensor([1.0])).dtype)

# %% [markdown]
# The two defaults store different numbers. `0.1` has no exact binary form; float32 keeps
# about 7 significant digits of it, float64 about 16. Printing with 20 digits shows what is
# really stored:

# %%
print(f"float32: {torch.tensor(0.1, dtype=torch.float32).item():.20f}")
print(f"float64: {torch.tensor(0.1, dtype=torch.float64).item():.20f}")

# %% [markdown]
# The last line is the common surprise: one float64 array from NumPy turns everything it touches
# into float64 (twice the memory, and on consumer GPUs many times slower arithmetic), while your own
# tensors are float32.
# Decide the dtype once, where data enters, e.g. `torch.from_numpy(a).float()` or
# `torch.as_tensor(a, dtype=torch.float32)`.

# %% [markdown]
# ### Changing the default: `torch.set_default_dtype`
#
# `torch.set_default_dtype(torch.float64)` makes float64 the default for the whole process, and
# `torch.get_default_dtype()` reads it back. It is global state: a cell that sets it changes every
# cell after it, so set it inside `try` and put the old value back in `finally`, which runs even
# when the code in between raises. What does it change, and what not? One table, made under the
# float64 default, with the default put back afterwards:

# %%
a32 = np.array([0.5, 0.25], dtype=np.float32)
saved = torch.get_default_dtype()
torch.set_default_dtype(torch.float64)
try:
    under_float64 = [
        ("torch.zeros(2)", torch.zeros(2)),
        ("torch.tensor([0.1, 0.2])", torch.tensor([0.1, 0.2])),
        ("torch.tensor(2.5)", torch.tensor(2.5)),
        ("torch.tensor([1, 2]) / 2", torch.tensor([1, 2]) / 2),
        ("torch.tensor([1j])", torch.tensor([1j])),
        ("torch.tensor([1, 2])", torch.tensor([1, 2])),
        ("torch.arange(3)", torch.arange(3)),
        ("torch.from_numpy(float32 array)", torch.from_numpy(a32)),
        ("torch.as_tensor(float32 array)", torch.as_tensor(a32)),
    ]
finally:
    torch.set_default_dtype(saved)
print(f"{'under set_default_dtype(float64)':<34}dtype")
for text, made in under_float64:
    print(f"{text:<34}{made.dtype}")
print("default dtype afterwards:", torch.get_default_dtype())
# by construction (dtypes): the same on every machine
claim(under_float64[1][1].dtype == torch.float64, "Python floats become float64 tensors under the float64 default")
claim(under_float64[4][1].dtype == torch.complex128, "the complex default follows: complex128")
claim(under_float64[6][1].dtype == torch.int64, "integer tensors stay int64")
claim(under_float64[7][1].dtype == torch.float32, "a NumPy array keeps its own dtype")
claim(torch.get_default_dtype() == saved, "the default dtype is back to what it was")

# %% [markdown]
# The default decides every dtype that nobody named: float factories (`zeros`, `ones`, `rand`,
# `arange(3.0)`), Python floats turned into tensors (`torch.tensor(2.5)`, and an integer tensor
# divided with `/`), and the complex default, which is its complex partner (complex64 beside
# float32, complex128 beside float64). It does not touch integers (`torch.tensor([1, 2])` and
# `arange(3)` stay int64), nor a NumPy array's own dtype: `from_numpy` and `as_tensor` keep
# float32 as float32 here, and float64 as float64 under any default. The default must be a
# floating-point dtype: `torch.set_default_dtype(torch.int64)` raises a `TypeError`.
# Changing it for a whole program is rarely what you want; passing `dtype=` where a tensor is made
# says the same thing locally (exercise 04.9 wraps the `try`/`finally` above in a function).

# %% [markdown]
# ## The dtype table
#
# `t.element_size()` gives the bytes per element; `torch.finfo(dtype)` describes a floating
# type (largest value, `eps` = the gap between 1 and the next number, smallest normal number `tiny`)
# and `torch.iinfo(dtype)` an integer type (min and max). One loop builds the whole table:

# %%
DTYPES = [
    torch.float64,
    torch.float32,
    torch.float16,
    torch.bfloat16,
    torch.int64,
    torch.int32,
    torch.int16,
    torch.int8,
    torch.uint8,
    torch.bool,
]

print(f"{'dtype':<15}{'bytes':>6}{'min':>22}{'max':>22}{'eps':>11}{'tiny':>11}")
for dt in DTYPES:
    size = torch.empty(0, dtype=dt).element_size()
    if dt.is_floating_point:
        fi = torch.finfo(dt)
        print(f"{dt!s:<15}{size:>6}{fi.min:>22.4g}{fi.max:>22.4g}{fi.eps:>11.3g}{fi.tiny:>11.3g}")
    elif dt == torch.bool:
        print(f"{dt!s:<15}{size:>6}{'False':>22}{'True':>22}")
    else:
        ii = torch.iinfo(dt)
        print(f"{dt!s:<15}{size:>6}{ii.min:>22}{ii.max:>22}")

# %% [markdown]
# Read it row by row. `float16` and `bfloat16` both take 2 bytes but spend them differently:
# float16 has the finer `eps` (more mantissa bits) but tops out at 65504; bfloat16 keeps
# float32's range (3.4e38) with a coarse `eps` of 1/128. Below `tiny`, float16 can still hold
# a few smaller (subnormal) numbers, down to about 6e-8, and then everything becomes 0.
# `bool` takes a whole byte.
#
# ## Memory footprint per dtype
#
# Bytes per element times the number of elements is the memory a tensor needs; a 2-byte dtype
# halves it compared with float32, and halves the bytes every operation on it reads and writes.
# Here is the footprint of a 10-million-element tensor (a 1000x10000 table):

# %%
n = 10_000_000
names = [str(dt).replace("torch.", "") for dt in DTYPES]
megabytes = [n * torch.empty(0, dtype=dt).element_size() / 1e6 for dt in DTYPES]
for name, mb in zip(names, megabytes):
    print(f"{name:>9}: {mb:5.0f} MB")

fig, ax = plt.subplots(figsize=(8, 2.8))
colours = ["tab:blue" if dt.is_floating_point else "tab:orange" for dt in DTYPES]
bars = ax.bar(names, megabytes, color=colours)
ax.bar_label(bars, fmt="%.0f")
ax.set(ylabel="MB", title="Memory for 10 million elements (blue: floating point)")
ax.tick_params(axis="x", labelsize=8)
ax.set_ylim(0, 95)
plt.show()

# %% [markdown]
# ## Casting: `.to`, `.type`, `.double()`
#
# Three spellings convert a tensor to another dtype; the original is unchanged. `.to(dtype)` is the general one (it also moves between devices);
# `.double()`, `.float()`, `.half()`, `.bfloat16()`, `.long()`, `.int()` are shortcuts;
# `.type(dtype)` is the older spelling (called with no argument it returns a type *name*).

# %%
t = torch.tensor([-1.7, 0.5, 1.7, 2.5])
print(t.to(torch.float64))
print(t.double())
print(t.type(torch.int32))
print("t.type() with no argument:", t.type())

# %% [markdown]
# Float to integer casts **truncate toward zero** (`-1.7 → -1`, `1.7 → 1`); round first when
# you mean rounding.
#
# **Predict 04.p1.** `t` is already float32. Is `t.to(torch.float32)` a new tensor? Write `"new"`
# or `"same"` (the very same object).

# %%
predict("04.p1", None)  # replace None with your prediction

# %%
print("truncate:", t.int().tolist(), "| round first:", t.round().int().tolist())
print("t.to(float32) is t:", t.to(torch.float32) is t)
print("t.to(float32, copy=True) is t:", t.to(torch.float32, copy=True) is t)
reveal(
    "04.p1",
    "same" if t.to(torch.float32) is t else "new",
    choices=("new", "same"),
    why="`.to` returns the input itself when dtype and device already match: writing to the result writes to t.",
)

# %% [markdown]
# So `.to` returns the *same* tensor when nothing changes, and the result shares memory with the
# input; ask for `copy=True` when you need a separate tensor.
#
# A float outside the integer type's range, or NaN, raises nothing either: the cast gives whatever
# the CPU's conversion happens to produce (C++ leaves it undefined), so the same line can print other
# numbers on another CPU or on a GPU. Replace NaN and clamp before you cast:

# %%
# NBVAL_IGNORE_OUTPUT
wild = torch.tensor([300.0, -1.0, float("nan")])
print("float32 -> uint8, no error:", wild.to(torch.uint8).tolist())
print("NaN replaced and clamped first:", wild.nan_to_num(0.0).clamp(0, 255).to(torch.uint8).tolist())

# %% [markdown]
# ## Promotion: which dtype does `a + b` have?
#
# When the operands' dtypes differ, PyTorch *promotes* them to a common dtype first.
# `torch.promote_types(d1, d2)` answers for two dtypes; `torch.result_type(a, b)` answers for
# actual operands (tensors or Python numbers). The rules in one sentence: the result takes the
# highest *category* (bool < integer < floating < complex) among the operands, and within a
# category a tensor with dimensions outranks a 0-dimensional tensor, which outranks a Python
# number. Python numbers and 0-d tensors only matter when they raise the category: then a 0-d
# tensor brings its own dtype, and a Python float brings the default dtype (float32).
#
# **Predict 04.p2.** An int8 tensor plus the Python int 1000 (which int8 cannot hold): what dtype
# is the result? Write one of `"int8"`, `"int16"`, `"int64"`, `"float32"`.

# %%
predict("04.p2", None)  # replace None with your prediction

# %%
i8 = torch.tensor([1, 2], dtype=torch.int8)
f16 = torch.tensor([1.0, 2.0], dtype=torch.float16)
cases = [
    ("promote_types(uint8, int8)", torch.promote_types(torch.uint8, torch.int8)),
    ("promote_types(int64, float16)", torch.promote_types(torch.int64, torch.float16)),
    ("promote_types(float16, bfloat16)", torch.promote_types(torch.float16, torch.bfloat16)),
    ("int8 tensor + 1000 (Python int)", torch.result_type(i8, 1000)),
    ("int8 tensor + int64 0-d tensor", torch.result_type(i8, torch.tensor(5))),
    ("int8 tensor + int64 1-d tensor", torch.result_type(i8, torch.tensor([5]))),
    ("int8 tensor + 2.5 (Python float)", torch.result_type(i8, 2.5)),
    ("int8 tensor + float64 0-d tensor", torch.result_type(i8, torch.tensor(2.5, dtype=torch.float64))),
    ("float16 tensor + float64 0-d tensor", torch.result_type(f16, torch.tensor(2.0, dtype=torch.float64))),
    ("int8 tensor / int8 tensor", (i8 / i8).dtype),
]
for text, dtype in cases:
    print(f"{text:<38} -> {dtype}")
reveal(
    "04.p2",
    torch.result_type(i8, 1000),
    choices=("int8", "int16", "int64", "float32"),
    why="a Python int is the weakest operand: it cannot raise an integer tensor's dtype, even when it does not fit.",
)

# %% [markdown]
# Three rows deserve a second look. `float16 + bfloat16` gives float32: neither 2-byte type can
# hold the other. An `int8` tensor plus the Python int 1000 stays `int8` (1000 does not fit!). And
# an integer tensor combined with a Python float, or divided with `/`, becomes the *default* float
# dtype, float32, not float64.
#
# ### Side by side with NumPy 2 (NEP 50)
#
# NumPy 2 adopted [NEP 50](https://numpy.org/neps/nep-0050-scalar-promotion.html): Python numbers
# are "weak" (they take the array's dtype, as in PyTorch), but NumPy *scalars* such as
# `np.float64(2)` are strong, and a Python int that does not fit the array's dtype is an error
# instead of a silent wrap. The helper below runs the same expression in both libraries and
# prints the result's dtype and value, or the error:


# %%
def outcome(fn):
    """Run fn() and describe its result (dtype and values) or the error it raised."""
    try:
        r = fn()
    except Exception as exc:  # noqa: BLE001 - any error is an outcome to show
        return f"{type(exc).__name__}: {exc}"
    values = r.tolist()
    dtype = str(r.dtype).replace("torch.", "")
    return f"{dtype} {values}"


side_by_side = [
    (
        "uint8 [250] + 300",
        lambda: torch.tensor([250], dtype=torch.uint8) + 300,
        lambda: np.array([250], dtype=np.uint8) + 300,
    ),
    (
        "int8 [100] + 100",
        lambda: torch.tensor([100], dtype=torch.int8) + 100,
        lambda: np.array([100], dtype=np.int8) + 100,
    ),
    (
        "int8 [1] + int64 scalar 1",
        lambda: torch.tensor([1], dtype=torch.int8) + torch.tensor(1),
        lambda: np.array([1], dtype=np.int8) + np.int64(1),
    ),
    (
        "float32 [1] + float64 scalar 2",
        lambda: torch.tensor([1.0]) + torch.tensor(2.0, dtype=torch.float64),
        lambda: np.array([1.0], dtype=np.float32) + np.float64(2.0),
    ),
    (
        "float32 [1] + Python float 2.0",
        lambda: torch.tensor([1.0]) + 2.0,
        lambda: np.array([1.0], dtype=np.float32) + 2.0,
    ),
    (
        "int32 [1] + Python float 2.5",
        lambda: torch.tensor([1], dtype=torch.int32) + 2.5,
        lambda: np.array([1], dtype=np.int32) + 2.5,
    ),
    ("int64 [1] / 2", lambda: torch.tensor([1]) / 2, lambda: np.array([1]) / 2),
]
print(f"{'expression':<32}{'PyTorch':<16}NumPy 2")
for text, torch_fn, numpy_fn in side_by_side:
    print(f"{text:<32}{outcome(torch_fn):<16}{outcome(numpy_fn)}")

# %% [markdown]
# Read the rows top to bottom:
#
# * `uint8 [250] + 300`: PyTorch casts 300 to uint8 (300 − 256 = 44) and wraps `250 + 44` to 38;
#   NumPy 2 refuses the out-of-range Python int.
# * `int8 [100] + 100`: 100 fits in int8, so both libraries compute in int8, and both wrap to −56.
# * A **NumPy scalar** (`np.int64`, `np.float64`) promotes like an array in NumPy 2; a **0-d tensor**
#   in PyTorch stays weak within its category. So `float32 + float64 scalar` is float64 in NumPy and
#   float32 in PyTorch.
# * Integers meeting a float: PyTorch goes to its default float (float32), NumPy to float64.
#
# When `torch.compile` compiles NumPy code (module 12), NumPy's rules apply to that code.

# %% [markdown]
# ## Complex numbers: complex64 and complex128 (optional)
#
# A complex tensor stores each element as two floats, the real and the imaginary part:
# `complex64` is two float32 (8 bytes), `complex128` two float64 (16 bytes). Python writes the
# imaginary unit `1j`. `.real` and `.imag` give the two parts as real tensors (views that share the
# complex tensor's memory), `.abs()` the modulus and `.angle()` the argument in radians:

# %%
z = torch.tensor([3 + 4j, 0 - 2j, -1 + 0j])
print("dtype:", z.dtype, "| bytes per element:", z.element_size())
print("real: ", z.real.tolist(), "| dtype:", z.real.dtype)
print("imag: ", z.imag.tolist())
print("abs:  ", z.abs().tolist())
print("angle:", [round(a, 4) for a in z.angle().tolist()])
print(".real is a view of z:", z.real._base is z)

# %% [markdown]
# Promotion adds complex as the top category, and the result's precision is the higher of the two:
# a complex64 tensor with a float64 tensor gives **complex128**, a dtype neither operand has.
# `torch.result_type` answers before you compute:

# %%
f32 = torch.ones(2)
f64 = torch.ones(2, dtype=torch.float64)
c64 = torch.ones(2, dtype=torch.complex64)
complex_cases = [
    ("float32 tensor with complex64 tensor", torch.result_type(f32, c64)),
    ("complex64 tensor with float64 tensor", torch.result_type(c64, f64)),
    ("complex64 tensor with float64 0-d tensor", torch.result_type(c64, torch.tensor(2.0, dtype=torch.float64))),
    ("float32 tensor with 1j (Python complex)", torch.result_type(f32, 1j)),
    ("float64 tensor with 1j", torch.result_type(f64, 1j)),
    ("int64 tensor with 1j", torch.result_type(torch.tensor([1]), 1j)),
]
for text, dtype in complex_cases:
    print(f"{text:<42} -> {dtype}")
# by construction (dtypes)
claim(complex_cases[1][1] == torch.complex128, "complex64 with float64 promotes to complex128")
claim(complex_cases[0][1] == torch.complex64, "float32 with complex64 stays complex64")

# %% [markdown]
# The rules are the ones of the previous section: a 0-d float64 tensor is weaker than a dimensioned
# complex64 one, so it cannot raise the precision; a Python complex raises an integer or float tensor
# to the complex partner of its own precision (of the default float for integers).
#
# You meet complex tensors without asking for them in module 06: `torch.linalg.eig` and `eigvals`
# always return a complex dtype, even for a real matrix, because a real matrix can have complex
# eigenvalues. A rotation by 30° moves every real vector, so none is an eigenvector; its
# eigenvalues are $e^{\pm i\pi/6}$, of modulus 1 and angle ±30°:

# %%
theta = math.pi / 6
rot = torch.tensor(
    [
        [math.cos(theta), -math.sin(theta)],
        [math.sin(theta), math.cos(theta)],
    ],
    dtype=torch.float64,
)
lam = torch.linalg.eigvals(rot)
print("rotation (float64) -> eigvals dtype:", lam.dtype)
print("moduli:", lam.abs().round(decimals=6).tolist())
print("angles in degrees:", sorted(round(math.degrees(a), 6) for a in lam.angle().tolist()))
sym = torch.tensor([[2.0, 1.0], [1.0, 2.0]], dtype=torch.float64)
print("symmetric matrix -> eig dtype:", torch.linalg.eig(sym).eigenvalues.dtype, "(imaginary parts 0)")
# by construction (dtypes)
claim(lam.dtype == torch.complex128, "eigvals of a real float64 matrix is complex128")

# %% [markdown]
# ## Integer overflow wraps silently
#
# Integer arithmetic in PyTorch is modular: past the maximum, values wrap around to the minimum,
# with no error and no warning. The same holds for NumPy *arrays*.

# %%
print("int8  127 + 1       ->", (torch.tensor([127], dtype=torch.int8) + 1).item())
print("uint8 0 - 1         ->", (torch.tensor([0], dtype=torch.uint8) - 1).item())
print("int32 2**31 - 1 + 1 ->", (torch.tensor([2**31 - 1], dtype=torch.int32) + 1).item())
pixels = torch.tensor([100, 200, 250], dtype=torch.uint8)
print("brighten uint8 pixels by 60:", (pixels + 60).tolist())

# %% [markdown]
# The brightened 200 and 250 became *dark* (4 and 54). The fix is to compute in a wider type and
# clamp before casting back, e.g. `(pixels.int() + 60).clamp(0, 255).to(torch.uint8)`; exercise 04.5
# asks you to write it.
#
# ### The int8 `sum` that allocates 8x its input
#
# Some reductions are the exception: `sum`, `prod` and `cumsum` of an integer or bool tensor
# return **int64** so that they (almost) cannot overflow (`max` and `min` keep the input's dtype).
# Take a population of 4,000 chromosomes of 1,000 genes, each gene a value 1..24 stored in one byte:

# %%
genes = torch.randint(1, 25, (4_000, 1_000), generator=torch.Generator().manual_seed(0), dtype=torch.int8)
totals = genes.sum(dim=1)
print("genes:", genes.dtype, f"{genes.numel() * genes.element_size() / 1e6:.0f} MB")
print("sum(dim=1):", totals.dtype, f"{totals.numel() * totals.element_size() / 1e3:.0f} kB for {totals.numel()} totals")
# by construction (dtypes): the same on every machine
claim(totals.dtype == torch.int64, "the sum of an int8 tensor is int64")
claim(genes.max().dtype == torch.int8, "max keeps the input's dtype, int8")

# %% [markdown]
# The result is small, but how does PyTorch *compute* it? The profiler can record every allocation
# (`profile_memory=True`). The helper below runs one call under it and reports the most memory any
# one operation (with the operations it calls) held at its end, which operation it was, and that size
# next to the input's.

# %%
import os

from torch.profiler import ProfilerActivity, profile


def largest_allocation(fn):
    """Bytes of the largest block allocated while fn() runs on the CPU, as the profiler records it."""
    saved_stderr = os.dup(2)  # the profiler logs two lines to C-level stderr per run: silence them
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 2)
        try:
            with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
                fn()
        finally:
            os.dup2(saved_stderr, 2)
            os.close(saved_stderr)
    events = prof.key_averages()
    peak = max(event.cpu_memory_usage for event in events)
    return peak, next(event.key for event in events if event.cpu_memory_usage == peak)


input_bytes = genes.numel() * genes.element_size()
peaks = {}
for label, fn in [
    ("sum(dim=1)", lambda: genes.sum(dim=1)),
    ("sum(dim=1, dtype=torch.int16)", lambda: genes.sum(dim=1, dtype=torch.int16)),
]:
    peak, op = largest_allocation(fn)
    peaks[label] = peak
    print(f"{label:<31} largest allocation {peak / 1e6:5.1f} MB = {peak / input_bytes:.0f}x the input, in {op}")
# by construction (bytes): the int64 copy is 8 bytes per element on every machine
claim(peaks["sum(dim=1)"] >= 8 * input_bytes, "the default sum allocates at least 8x the input's bytes")
claim(peaks["sum(dim=1, dtype=torch.int16)"] <= 2 * input_bytes, "with dtype=torch.int16 it allocates at most 2x")

# %% [markdown]
# On the CPU, `sum` first *casts the whole input* to the result dtype (that is the `aten::to`) and then
# reduces: 4 MB of genes cost a hidden 32 MB int64 copy. At the population size of a real
# genetic algorithm (900,000 x 1,000 genes, 0.9 GB) that is a 7.2 GB temporary. The fix is to ask
# for the smallest accumulator that cannot overflow. The largest possible total is 24 x 1000 =
# 24,000, which fits int16 (max 32,767), so `dtype=torch.int16` gives the same totals from a copy a
# quarter the size. Never go below that bound: `dtype=torch.int8` would wrap.

# %%
small = genes.sum(dim=1, dtype=torch.int16)
print("int16 totals equal the int64 ones:", torch.equal(small.long(), totals), "| dtype:", small.dtype)
print("largest possible total:", 24 * genes.shape[1], "<= int16 max:", torch.iinfo(torch.int16).max)
print("int8 accumulator wraps:", genes.sum(dim=1, dtype=torch.int8)[:4].tolist(), "vs", totals[:4].tolist())

# %% [markdown]
# The copy costs time as well as memory. The next cell times the three calls, with NumPy's
# `sum(axis=1)` over the same bytes beside them: NumPy also returns int64, but it converts the
# input in small buffers as it goes instead of copying all of it first. Python's `tracemalloc`
# sees NumPy's allocations, so it can show the peak:

# %%
import tracemalloc

from torchcourse.timing import format_ratio, format_seconds, interleaved

genes_np = genes.numpy()  # shares memory with genes: the same bytes
print("NumPy totals equal PyTorch's:", np.array_equal(genes_np.sum(axis=1), totals.numpy()))
tracemalloc.start()
genes_np.sum(axis=1)
numpy_peak = tracemalloc.get_traced_memory()[1]
tracemalloc.stop()
print(
    f"NumPy's peak allocation: under a tenth of the input's {input_bytes / 1e6:.0f} MB:", numpy_peak < input_bytes / 10
)
# by construction: NumPy's buffered conversion holds a few buffers and the 32 kB result, not a copy
claim(numpy_peak < input_bytes / 10, "NumPy's sum(axis=1) allocates under a tenth of the input, no int64 copy")

# %% [markdown]
# **Predict 04.p3.** On one thread, which of the three calls is fastest: the default `sum(dim=1)`,
# `sum(dim=1, dtype=torch.int16)` or NumPy's `sum(axis=1)`? Write `"default"`, `"int16"` or `"numpy"`.

# %%
predict("04.p3", None)  # replace None with your prediction

# %%
# NBVAL_IGNORE_OUTPUT
# The three calls take turns, round after round, on one thread (NumPy's sum runs on one): a busy
# moment on the machine then slows all three alike instead of reordering them.
labels = ["torch sum(dim=1)", "torch sum(dim=1, dtype=torch.int16)", "NumPy sum(axis=1)"]
best = interleaved(
    [lambda: genes.sum(dim=1), lambda: genes.sum(dim=1, dtype=torch.int16), lambda: genes_np.sum(axis=1)],
    number=20,
    rounds=7,
    threads=1,
)
seconds = dict(zip(labels, best))
base = seconds["NumPy sum(axis=1)"]
for label, sec in seconds.items():
    print(f"{label:<37} min {format_seconds(sec):>9}  ({format_ratio(sec / base)} NumPy's)")
default, narrow = seconds["torch sum(dim=1)"], seconds["torch sum(dim=1, dtype=torch.int16)"]
print(
    f"On this run the default sum took {format_ratio(default / base)} NumPy's time "
    f"and {format_ratio(default / narrow)} the time of the int16 accumulator."
)
# comparative, safe margin: the default path writes and reads back 8 bytes per gene, the int16 one
# 2; a 32 MB copy against an 8 MB one is more work on any CPU, whatever its caches
claim(
    default > narrow,
    "the default sum (int64 copy) is slower than the int16 accumulator",
    f"{default=:.2e} {narrow=:.2e}",
)
fastest = {"torch sum(dim=1)": "default", "torch sum(dim=1, dtype=torch.int16)": "int16"}.get(
    min(seconds, key=seconds.get), "numpy"
)
reveal(
    "04.p3",
    fastest,
    choices=("default", "int16", "numpy"),
    why="the default path writes a whole int64 copy (8 bytes a gene) and reads it back; int16 moves 2 bytes a "
    "gene; NumPy reads each byte once but converts in small buffers, one element at a time, on one thread. "
    "How those bytes become time depends on your CPU's caches and conversion speed: the printed ratios are yours.",
)

# %% [markdown]
# What always holds is the traffic: per element, the default `sum` reads 1 byte, writes an 8-byte
# copy and reads it again; with `dtype=torch.int16` it writes and reads 2 bytes; NumPy reads the 1 byte
# once. How that becomes time depends on your CPU's caches, the number of threads and whatever else the
# machine is doing, so read the sentence printed above, not a number typed here; run the cell again and
# the ratios move. A published benchmark of genetic-algorithm fitness
# (900,000 chromosomes x 1,000 int8 genes, on a laptop CPU; see
# [docs/reference-figures.md](../docs/reference-figures.md), B) measured eager PyTorch `sum(dim=1)` at
# 2.52 s against NumPy's `sum(axis=1)` at 0.51 s: at that size the copy is a 7.2 GB temporary that
# must be written to main memory and read back. Module 13 takes that case study apart.

# %% [markdown]
# ## float32 accuracy
#
# `eps` is the gap between 1 and the next float, the relative spacing of the format: adding `eps/2`
# or less to 1 is lost entirely. For float32 `eps/2` is about 6e-8:
#
# **Predict 04.p4.** In float32, what is `16_777_216.0 + 1` (that is 2**24 + 1)? Write a whole number.

# %%
predict("04.p4", None)  # replace None with your prediction

# %%
one = torch.tensor(1.0)
eps = torch.finfo(torch.float32).eps
print("1 + eps   == 1:", (one + eps == one).item())
print("1 + eps/2 == 1:", (one + eps / 2 == one).item())
after = (torch.tensor(16_777_216.0) + 1).item()
print("float32 counts to 2**24 = 16777216, then:", after)
reveal(
    "04.p4",
    int(after),
    why="above 2**24 float32's spacing is 2: 16,777,217 is not representable and rounds (to even) back to 16,777,216.",
)

# %% [markdown]
# ### Summing many numbers
#
# Each addition rounds, so a long running sum drifts. Take 100,000 random float32 values in [0, 1)
# and compare four ways to add them against the exact sum (`math.fsum` over the same values, which
# tracks every rounding error and rounds only once, at the end). The first adds them one by one in a float32
# accumulator (a NumPy `float32` scalar; a Python float would quietly be float64, the second way):

# %%
x = torch.rand(100_000, generator=torch.Generator().manual_seed(0))
exact = math.fsum(x.tolist())


def loop_sum_float32(values):
    acc = np.float32(0.0)
    for v in values.numpy():  # each v is an np.float32: acc stays float32
        acc += v
    return float(acc)


def loop_sum_python(values):
    acc = 0.0
    for v in values.tolist():  # Python floats are float64
        acc += v
    return acc


def rel_error(value):
    return abs(value - exact) / exact


loop_error = rel_error(loop_sum_float32(x))
print(f"Python loop, float32 accumulator: relative error {loop_error:.1e}")
print(f"Python loop, Python floats:       relative error below 1e-12: {rel_error(loop_sum_python(x)) < 1e-12}")
print(f"x.sum() in float32:               relative error below 1e-6:  {rel_error(x.sum().item()) < 1e-6}")
print(f"x.double().sum() in float64:      relative error below 1e-12: {rel_error(x.double().sum().item()) < 1e-12}")
# Rounding, not timing: the loop's error is fixed (NumPy adds in order); the cascade's stays near
# 5e-8 at 1 or 2 threads and with AVX512, AVX2 or no vector unit, 40x below it, so 10x holds anywhere.
claim(
    rel_error(x.sum().item()) < loop_error / 10,
    "x.sum() in float32 is more than 10x closer to the exact sum than the float32 loop",
)

# %% [markdown]
# The float32 loop is off by about 2 in a million; `x.sum()` in float32 is more than ten times
# closer, because PyTorch's CPU `sum` does not add left to right: it sums short runs of elements
# separately and adds their totals in a tree (a *cascade*), so every partial sum stays small and so
# does every rounding. Each thread sums its own block of the tensor, so the last digits of a large
# float32 sum change with the number of threads; that is why the cell prints a bound. The values on
# your machine, at one thread and at all of them:

# %%
# NBVAL_IGNORE_OUTPUT
threads = torch.get_num_threads()
torch.set_num_threads(1)
one_thread = x.sum().item()
torch.set_num_threads(threads)
print(f"x.sum() float32, 1 thread:  {one_thread:.4f}, relative error {rel_error(one_thread):.1e}")
print(f"x.sum() float32, {threads} threads: {x.sum().item():.4f}, relative error {rel_error(x.sum().item()):.1e}")
print(f"exact:                      {exact:.4f}")

# %% [markdown]
# How does the error grow with the number of terms? NumPy's `cumsum` on float32 is a plain running
# sum, so one call gives the loop's result for every prefix length at once (PyTorch's CPU `cumsum`
# accumulates float32 in higher precision, so it would hide the effect). The reference is a float64
# running sum. The plot shows the relative error against the number of terms:

# %%
big = torch.rand(10_000_000, generator=torch.Generator().manual_seed(1))
reference = torch.cumsum(big.double(), 0)
running32 = torch.from_numpy(np.cumsum(big.numpy()))  # float32 running sum, like the loop
ns = np.unique(np.round(np.logspace(2, 7, 51)).astype(np.int64))  # 100 to 10 million, 10 per decade
loop_err = ((running32[ns - 1].double() - reference[ns - 1]).abs() / reference[ns - 1]).numpy()
sum_err = np.array([abs(big[:k].sum().item() - reference[k - 1].item()) / reference[k - 1].item() for k in ns])
for k in (1_000, 100_000, 10_000_000):
    i = int(np.searchsorted(ns, k))
    print(f"running float32 sum of {ns[i]:>10,} terms: relative error {loop_err[i]:.0e}")

fig, ax = plt.subplots(figsize=(7, 3.2))
ax.loglog(ns, np.maximum(loop_err, 1e-10), label="running sum in float32 (a Python loop)")
ax.loglog(ns, np.maximum(sum_err, 1e-10), ".", label="x.sum() in float32")
ax.axhline(torch.finfo(torch.float32).eps, color="grey", linestyle="--", label="float32 eps")
ax.set(xlabel="number of terms", ylabel="relative error", title="Adding uniform [0, 1) values in float32")
ax.legend(fontsize=8)
ax.grid(alpha=0.3, which="both")
plt.show()
eps32 = torch.finfo(torch.float32).eps
# Rounding, not timing: NumPy's running sum is the same on every CPU (about 170 eps at 1e7); the
# cascade sum stayed under 0.9 eps at 1 and 2 threads and at every vector width tried.
claim(loop_err[-1] > 100 * eps32, "the running float32 sum of 10 million terms is off by more than 100 eps")
claim(sum_err.max() < 2 * eps32, "x.sum() stays within 2 eps at every length")

# %% [markdown]
# The running sum's error grows with the number of terms, from about `eps` to over a hundred times `eps`
# (each new term is rounded to the spacing of an ever larger total); `x.sum()` stays near `eps` at every
# length (points at 1e-10 are exact sums). When a
# float32 total must be trustworthy, accumulate in float64: `x.sum(dtype=torch.float64)` returns the
# float64 sum. It has a cost you met with the int8 sum: on the CPU it first converts the whole input to
# a float64 copy, twice the input's bytes, and only then adds. The profiler shows it:

# %%
peak64, op64 = largest_allocation(lambda: big.sum(dtype=torch.float64))
big_bytes = big.numel() * big.element_size()
print(
    f"big.sum(dtype=torch.float64): largest allocation {peak64 / 1e6:.0f} MB = {peak64 / big_bytes:.0f}x the input, in {op64}"
)
error64 = abs(big.sum(dtype=torch.float64).item() - reference[-1].item()) / reference[-1].item()
print("relative error below 1e-12:", error64 < 1e-12)
# by construction: bytes of the float64 copy the CPU sum makes first
claim(peak64 >= 2 * big_bytes, "sum(dtype=torch.float64) of a float32 tensor allocates a float64 copy, 2x the input")

# %% [markdown]
# For a tensor too large to copy twice over, sum it in chunks (`big.split(1_000_000)`), each chunk with
# `dtype=torch.float64`, and add the chunk totals: the copy is then one chunk's size.
#
# ### Catastrophic cancellation
#
# Subtracting two nearly equal numbers keeps only their *difference*, and that difference carries
# the rounding errors of both: the relative error explodes. `(1 + x) - 1` should return `x`:

# %%
print(f"{'x':>8}{'(1+x)-1 float32':>18}{'rel. error':>12}{'(1+x)-1 float64':>18}{'rel. error':>12}")
for xv in [1e-2, 1e-4, 1e-6, 1e-8]:
    r32 = ((1 + torch.tensor(xv)) - 1).item()
    r64 = ((1 + torch.tensor(xv, dtype=torch.float64)) - 1).item()
    x32 = torch.tensor(xv).item()  # xv as float32 actually stores it
    print(f"{xv:>8.0e}{r32:>18.6e}{abs(r32 - x32) / x32:>12.1e}{r64:>18.6e}{abs(r64 - xv) / xv:>12.1e}")

# %% [markdown]
# At x = 1e-8 float32 returns 0: a 100 % error from one addition and one subtraction. Library
# functions built for this exist: `torch.expm1(x)` computes `exp(x) - 1` and `torch.log1p(x)` computes
# `log(1 + x)` without forming `1 + x`:

# %%
small_x = torch.tensor([1e-3, 1e-5, 1e-7])
print("exp(x) - 1:", (torch.exp(small_x) - 1).tolist())
print("expm1(x):  ", torch.expm1(small_x).tolist())

# %% [markdown]
# The quadratic formula is the classic case. For x² + bx + c = 0 with a large b, the root
# (−b + √(b² − 4c))/2 subtracts two nearly equal numbers. The stable form computes the large root
# q = −(b + sign(b)·√(b² − 4c))/2 first, where nothing cancels, and gets the small one as c/q
# (the product of the roots is c):

# %%
b, c = torch.tensor(1e4), torch.tensor(1.0)  # roots near -1e-4 and -1e4
disc = torch.sqrt(b * b - 4 * c)
naive_small = (-b + disc) / 2
q = -(b + torch.sign(b) * disc) / 2
stable_small = c / q
print("naive  small root, float32:", naive_small.item())
print("stable small root, float32:", f"{stable_small.item():.8e}")
print("true   small root (float64):", f"{(2 / (-1e4 - math.sqrt(1e8 - 4))):.8e}")

# %% [markdown]
# ## Comparing floats: `torch.testing.assert_close`
#
# After everything above, `a == b` is the wrong test for two float results: they are right when
# they are *close enough*, and how close depends on the dtype. `torch.allclose(a, b)` uses the
# same tolerances for every dtype (`rtol=1e-05`, `atol=1e-08`), far too tight for bfloat16 and
# loose for float64. `torch.testing.assert_close(actual, expected)` picks them from the dtype,
# checks shape, dtype and device too, and when it fails it raises an `AssertionError` saying how
# many elements differ and by how much. An element passes when
# |actual − expected| ≤ `atol` + `rtol` × |expected|, with these defaults (from torch's own
# table in `torch/testing/_comparison.py`):
#
# | dtype | `rtol` | `atol` |
# |---|---|---|
# | float16, complex32 | 1e-3 | 1e-5 |
# | bfloat16 | 1.6e-2 | 1e-5 |
# | float32, complex64 | 1.3e-6 | 1e-5 |
# | float64, complex128 | 1e-7 | 1e-7 |
#
# For the 16- and 32-bit floats `rtol` is a few `eps` of the dtype (float32: 11 eps, bfloat16: 2 eps),
# room for a few roundings, not for a long computation; float64's 1e-7 is far looser than its `eps`
# of 2.2e-16. The same two numbers, a relative 1e-6 apart, pass as float32 and fail as float64:


# %%
def close(actual, expected, **tolerances):
    """True when assert_close accepts, else the first line of its message and the relative difference."""
    try:
        torch.testing.assert_close(actual, expected, **tolerances)
    except AssertionError as err:
        lines = str(err).splitlines()
        relative = [line for line in lines if "relative" in line.lower()]
        return " ".join([lines[0], *relative[:1]])
    return True


for dt in (torch.float32, torch.float64):
    print(
        f"1000.001 against 1000.0 in {dt}:", close(torch.tensor([1000.001], dtype=dt), torch.tensor([1000.0], dtype=dt))
    )
print("float32 against float64:", close(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64)))
# by construction: float32 tolerance at 1000 is 1e-5 + 1.3e-6 * 1000 = 1.3e-3 > 1e-3; float64's 1e-4 < 1e-3
claim(close(torch.tensor([1000.001]), torch.tensor([1000.0])) is True, "a relative 1e-6 passes in float32")
claim(
    close(torch.tensor([1000.001], dtype=torch.float64), torch.tensor([1000.0], dtype=torch.float64)) is not True,
    "and fails in float64",
)

# %% [markdown]
# The defaults suit a result that is a few roundings from its expected value. A longer computation
# carries more error, so a test of it needs its own tolerance, and the way to choose it is to
# measure: compute the truth in float64, measure how far a correct float32 method lands from it,
# and give the tolerance a margin over that error, while staying well below the size of the
# mistakes you want to catch. The float32 running sum of the 100,000 values from above is a correct
# method, but 100,000 roundings leave it further from the truth than float32's default `rtol`:

# %%
truth = torch.tensor(exact, dtype=torch.float64)
running = torch.tensor(loop_sum_float32(x))  # float32, added left to right
running_error = abs(running.double() - truth).item() / truth.item()
print(f"running float32 sum: relative error {running_error:.1e} (float32 default rtol 1.3e-06)")
print("default float32 tolerances:", close(running, truth.float()))
rtol = 4 * running_error  # a margin of 4 over a correct method's own error
print(f"measured tolerance rtol = {rtol:.0e}:")
candidates = {
    "running sum": running,
    "x.sum()": x.sum(),
    "x.sort().values.sum()": x.sort().values.sum(),
    "sum without the largest value": x.sum() - x.max(),
}
verdicts = {name: close(value, truth.float(), rtol=rtol, atol=0.0) is True for name, value in candidates.items()}
for name, ok in verdicts.items():
    print(f"  {name:<31} close: {ok}")
# Rounding, not timing: the running sum is left to right on every CPU (error 2.3e-6); the cascade
# sums stay below 1e-7 at any thread count; the dropped value is about 1/50,000 = 2e-5 of the total.
claim(close(running, truth.float()) is not True, "the default float32 tolerances reject the correct running sum")
claim(all(verdicts[k] for k in list(verdicts)[:3]), "the three correct sums pass the measured tolerance")
claim(not verdicts["sum without the largest value"], "the sum that drops one value fails it")

# %% [markdown]
# From here on, where a lesson needs a tolerance it uses `assert_close`'s rule instead of a
# hand-picked `atol` (modules 06 and 08 show it; exercise 04.11 asks you for the rule). In
# float64 you rarely need to loosen it; in float32 measure first, as above, and set `rtol` (and
# `atol` for results near zero, where a relative tolerance means nothing) from the error.

# %% [markdown]
# ## float16 and bfloat16: when they break
#
# The two 2-byte floats halve memory and, on GPUs with tensor cores, multiply matmul speed. Each
# breaks in its own way. float16 **overflows** early: its largest value is 65504, so squaring 300
# already gives `inf`. bfloat16 keeps float32's range but only about **3 significant digits**:
# from 256 on, the gap between neighbours is 2, so 256 + 1 is 256. And very small numbers
# **underflow** to zero in float16.

# %%
print("float16 65504 + 16  :", (torch.tensor(65504.0, dtype=torch.float16) + 16).item())
print("float16 300 ** 2    :", (torch.tensor(300.0, dtype=torch.float16) ** 2).item())
print("bfloat16 300 ** 2   :", (torch.tensor(300.0, dtype=torch.bfloat16) ** 2).item())
print("bfloat16 256 + 1    :", (torch.tensor(256.0, dtype=torch.bfloat16) + 1).item())
print("float16  256 + 1    :", (torch.tensor(256.0, dtype=torch.float16) + 1).item())
print("float16 1e-8        :", torch.tensor(1e-8).half().item())
print(
    "1/3 in float16, bfloat16, float32:",
    [torch.tensor(1 / 3, dtype=dt).item() for dt in (torch.float16, torch.bfloat16, torch.float32)],
)

# %% [markdown]
# Library reductions protect you more than hand-written formulas: `norm` of a float16 vector
# accumulates internally in float32, while the textbook `sqrt(sum(v**2))` overflows in the squares:

# %%
v = torch.full((4,), 300.0, dtype=torch.float16)
print("v.norm():              ", v.norm().item())
print("(v ** 2).sum().sqrt(): ", (v**2).sum().sqrt().item())

# %% [markdown]
# The picture behind these numbers: the spacing between neighbouring representable values
# (`torch.nextafter(x, inf) - x`) grows with the magnitude, in steps, always at the same *relative*
# size `eps`. The plot shows it for the three formats; float16's line ends at 65504, and the dotted
# line marks a spacing of 1 (above it, the format can no longer count in whole numbers).

# %%
mags = torch.logspace(-4, 8, 400, dtype=torch.float64)
fig, ax = plt.subplots(figsize=(7, 3.5))
for dt, colour in [(torch.float16, "tab:red"), (torch.bfloat16, "tab:green"), (torch.float32, "tab:blue")]:
    xs = mags.to(dt)
    up = torch.nextafter(xs, torch.tensor(float("inf"), dtype=dt))
    ok = torch.isfinite(up)
    spacing = (up.double() - xs.double())[ok]
    ax.loglog(xs.double()[ok], spacing, color=colour, drawstyle="steps-post", label=str(dt).replace("torch.", ""))
ax.axhline(1.0, color="grey", linestyle=":")
ax.axvline(65504, color="tab:red", linestyle="--", linewidth=0.8)
ax.text(65504 * 1.3, 1e-8, "float16 max\n65504", color="tab:red", fontsize=8)
ax.set(xlabel="magnitude |x|", ylabel="gap to the next number", title="Spacing of representable numbers")
ax.legend()
ax.grid(alpha=0.3, which="both")
plt.show()

# %% [markdown]
# Read the plot at 256: the bfloat16 gap is 2, float16's 0.25, float32's 3e-5. The numbers under
# it, checked:

# %%
for dt in (torch.float16, torch.bfloat16, torch.float32):
    x256 = torch.tensor(256.0, dtype=dt)
    gap = (torch.nextafter(x256, torch.tensor(1e9, dtype=dt)) - x256).item()
    print(f"{dt!s:<15} gap above 256: {gap:g}")

# %% [markdown]
# The usual rule in practice: store and multiply in 16 bits, but **accumulate** (sums, norms,
# softmax denominators, optimizer states) in float32. `torch.autocast` applies part of this rule for
# you: inside it, matmuls and convolutions run in 16 bits, and a listed set of operations runs in
# float32. On CUDA that list includes `cumsum`, `log_softmax`, `norm` and `layer_norm`; the CPU's list is
# a different one, mostly losses, linear algebra and FFTs (a `sum`, `softmax`, `cumsum` or
# `layer_norm` under CPU autocast stays bfloat16), and optimizer states are up to you.

# %% [markdown]
# ## TF32, bfloat16 and the matmul precision switches (optional)
#
# NVIDIA GPUs from Ampere (A100, RTX 30xx) on have *TensorFloat-32* tensor cores: they multiply
# float32 matrices after rounding the inputs to a 10-bit mantissa (float16's precision, float32's
# range) and accumulate in float32. That makes float32 matmuls several times faster, with relative
# errors around 1e-4 to 1e-3 instead of 1e-6. Your tensors never change dtype: inputs and result stay
# float32; only the arithmetic inside the matmul is rounded more coarsely. PyTorch has two sets of
# switches for it.
#
# The older one is a single knob for float32 matmuls, `torch.set_float32_matmul_precision` (read it
# back with `torch.get_float32_matmul_precision()`):
#
# | setting | internal arithmetic of a float32 matmul, where a fast kernel exists |
# |---|---|
# | `"highest"` (the default) | float32 (23 stored mantissa bits) |
# | `"high"` | TF32 (10 bits), or each float32 split into two bfloat16 numbers |
# | `"medium"` | bfloat16 (7 bits); where no bfloat16 kernel exists, as `"high"` |
#
# The newer ones are `fp32_precision` attributes, one per backend and operation:
# `torch.backends.fp32_precision` (all backends), `torch.backends.cuda.matmul.fp32_precision`
# (cuBLAS matmuls on NVIDIA GPUs), `torch.backends.cudnn.conv.fp32_precision` (cuDNN convolutions;
# `.rnn` for recurrent layers) and `torch.backends.mkldnn.matmul.fp32_precision` (oneDNN, PyTorch's
# CPU library; also `.conv` and `.rnn`). Each holds `"ieee"` (plain float32), `"tf32"`, `"bf16"`
# (oneDNN only) or `"none"`, which means "take the setting of the level above": operation, then
# backend, then the generic switch. Here they are as a fresh PyTorch starts:

# %%
print("torch.get_float32_matmul_precision():       ", torch.get_float32_matmul_precision())
print("torch.backends.fp32_precision:              ", torch.backends.fp32_precision)
print("torch.backends.cuda.matmul.fp32_precision:  ", torch.backends.cuda.matmul.fp32_precision)
print("torch.backends.cudnn.conv.fp32_precision:   ", torch.backends.cudnn.conv.fp32_precision)
print("torch.backends.mkldnn.matmul.fp32_precision:", torch.backends.mkldnn.matmul.fp32_precision)

# %% [markdown]
# Matmuls inherit `"none"` all the way up, so they compute in plain float32 (`"highest"`), while
# cuDNN convolutions say `"tf32"`: on an Ampere or newer GPU, float32 convolutions use TF32 by default
# and float32 matmuls do not. The old knob is a shortcut that writes the new switches, for the GPU and
# the CPU at once:

# %%
print(f"{'set_float32_matmul_precision':<30}{'cuda.matmul':<13}mkldnn.matmul")
for setting in ("high", "medium", "highest"):
    torch.set_float32_matmul_precision(setting)
    print(
        f"{setting!r:<30}{torch.backends.cuda.matmul.fp32_precision:<13}{torch.backends.mkldnn.matmul.fp32_precision}"
    )

# %% [markdown]
# `"medium"` means TF32 on the GPU (the CUDA switch has no `"bf16"` value: setting one raises an
# error) but bfloat16 on the CPU. What do these settings do on a CPU? TF32 is a format of NVIDIA's tensor cores; a CPU has no
# TF32 units in general, and oneDNN applies `"tf32"` only on processors that support it. So on most
# CPUs `"high"` changes nothing, which you can check on yours:

# %%
g = torch.Generator().manual_seed(0)
A = torch.randn(256, 256, generator=g)
B = torch.randn(256, 256, generator=g)
before = A @ B
torch.set_float32_matmul_precision("high")
after = A @ B
torch.set_float32_matmul_precision("highest")
print("CPU matmul identical under 'high':", torch.equal(before, after))

# %% [markdown]
# With the newer switches you can be more precise, e.g. allow TF32 in CUDA matmuls but forbid it in
# cuDNN convolutions. Neither touches the CPU, whose matmuls follow `torch.backends.mkldnn`:

# %%
torch.backends.cuda.matmul.fp32_precision = "tf32"  # CUDA matmuls may use TF32
torch.backends.cudnn.conv.fp32_precision = "ieee"  # cuDNN convolutions may not
on_cpu = A @ B
print(
    "cuda.matmul:", torch.backends.cuda.matmul.fp32_precision, "| cudnn.conv:", torch.backends.cudnn.conv.fp32_precision
)
print("CPU matmul identical:", torch.equal(on_cpu, before), "| result dtype:", on_cpu.dtype)
claim(torch.equal(on_cpu, before), "the CUDA and cuDNN switches leave a CPU matmul bit for bit unchanged")
claim(on_cpu.dtype == torch.float32, "the result of a float32 matmul stays float32 whatever the switches say")
torch.backends.cuda.matmul.fp32_precision = "none"  # back to inheriting
torch.backends.cudnn.conv.fp32_precision = "tf32"  # back to its default

# %% [markdown]
# bfloat16 is different: `"medium"`, or `torch.backends.mkldnn.matmul.fp32_precision = "bf16"`, lets
# oneDNN compute float32 matmuls in bfloat16 on CPUs where it has a fast bfloat16 path (recent x86
# server chips, some Arm chips); elsewhere nothing changes. The next cell measures the error of the
# same matmul under each setting, so its numbers depend on your CPU; its last line says which settings
# lowered the precision on yours.

# %%
# NBVAL_IGNORE_OUTPUT
exact_ab = A.double() @ B.double()


def matmul_error():
    return ((A @ B).double() - exact_ab).abs().max().item() / exact_ab.abs().max().item()


errors = {}
for setting in ("highest", "medium"):
    torch.set_float32_matmul_precision(setting)
    errors[f"set_float32_matmul_precision({setting!r})"] = matmul_error()
torch.set_float32_matmul_precision("highest")
for value in ("bf16", "tf32"):
    torch.backends.mkldnn.matmul.fp32_precision = value
    errors[f"mkldnn.matmul.fp32_precision = {value!r}"] = matmul_error()
torch.backends.mkldnn.matmul.fp32_precision = "none"
torch.set_float32_matmul_precision("highest")
for label, err in errors.items():
    print(f"{label:<42} max relative error {err:.1e}")
print("CPU capability:", torch.backends.cpu.get_cpu_capability())
full = errors["set_float32_matmul_precision('highest')"]
lowered = [label for label, err in errors.items() if err > 100 * full]
print(f"On this CPU, {' and '.join(lowered) if lowered else 'no setting'} lowered the precision of a float32 matmul.")

# %% [markdown]
# On a CUDA GPU the next cell measures the TF32 trade-off with the new switch: the error and the time
# of a float32 matmul with `"ieee"` and with `"tf32"`. Without one it says what it skipped.

# %%
# NBVAL_IGNORE_OUTPUT
from torchcourse import describe_device, gpu_skip_message, measure, pick_device

device = pick_device()
if device.type == "cuda":
    Ag = torch.randn(4096, 4096, device=device, generator=torch.Generator(device).manual_seed(0))
    Bg = torch.randn(4096, 4096, device=device, generator=torch.Generator(device).manual_seed(1))
    ref = Ag.double() @ Bg.double()
    seconds = {}
    for setting in ("ieee", "tf32"):
        torch.backends.cuda.matmul.fp32_precision = setting
        err = ((Ag @ Bg).double() - ref).abs().max().item() / ref.abs().max().item()
        timing = measure(lambda: Ag @ Bg, device=device)
        seconds[setting] = timing.min
        tflops = 2 * 4096**3 / timing.min / 1e12
        print(f"{describe_device(device)}, {setting!r:<6}: max rel. error {err:.1e}, {timing}, {tflops:.1f} TFLOP/s")
    torch.backends.cuda.matmul.fp32_precision = "none"
    print(f"TF32 made this float32 matmul {seconds['ieee'] / seconds['tf32']:.1f}x as fast (min against min).")
else:
    print(gpu_skip_message("the TF32 comparison") or "TF32 is a CUDA feature: skipped on this GPU.")

# %% [markdown]
# ## Common mistakes
#
# **The mean of integers.** `arange` without a float argument gives int64, and PyTorch will not
# guess a floating dtype for the mean:

# %%
try:
    torch.arange(5).mean()
except RuntimeError as err:  # NotImplementedError, a RuntimeError, in newer releases
    print("a RuntimeError:", isinstance(err, RuntimeError), "|", str(err).split(". ")[0])

# %% [markdown]
# Fix: `torch.arange(5.0).mean()`, `torch.arange(5).float().mean()`, or `torch.arange(5).mean(dtype=torch.float64)`.
#
# **Matmul of an integer and a float tensor.** Elementwise operations promote; `matmul` does not:

# %% tags=["raises-exception"]
counts = torch.tensor([[1, 2], [3, 4]])
weights = torch.tensor([[0.5], [0.25]])
counts @ weights

# %% [markdown]
# Fix: cast one side on purpose, `counts.float() @ weights`.
#
# **An in-place operation whose result does not fit.** `x += 0.5` must store the float result back
# into `x`'s integer storage, and PyTorch refuses to change the category (float into an integer
# tensor) in place:

# %% tags=["raises-exception"]
x_int = torch.arange(3)
x_int += 0.5

# %% [markdown]
# Fix: `x_int = x_int + 0.5` (a new float32 tensor), or create `x` as float from the start.
# Within a category nothing refuses: `int8_tensor += 1000` keeps int8 and wraps without a word.
#
# **A Python number that does not fit the requested dtype**, when you create a tensor:

# %% tags=["raises-exception"]
torch.tensor([100, 200, 300], dtype=torch.uint8)

# %% [markdown]
# (Yet `torch.tensor([250], dtype=torch.uint8) + 300` wraps silently, as the NEP 50 table showed:
# creation checks the range, arithmetic does not.)
#
# **Wrapping before clamping.** `(pixels + 60).clamp(0, 255)` raises no error but is still wrong:
# the sum wrapped before `clamp` ever saw it. Widen first, clamp, then cast back:

# %%
print("clamp after the wrap:", (pixels + 60).clamp(0, 255).tolist())
print("widen, clamp, cast:  ", (pixels.int() + 60).clamp(0, 255).to(torch.uint8).tolist())

# %% [markdown]
# **Mixing the old and the new precision switches.** Once a new `fp32_precision` switch says `"tf32"`
# (or `"bf16"`), the old getter cannot sum the state up in one word any more, and refuses:

# %% tags=["raises-exception"]
torch.backends.cuda.matmul.fp32_precision = "tf32"
torch.get_float32_matmul_precision()

# %% [markdown]
# Fix: use one set of switches in a program, preferably the new one. Setting the switch back to
# `"none"` (inherit) makes the old getter answer again:

# %%
torch.backends.cuda.matmul.fp32_precision = "none"
print(torch.get_float32_matmul_precision())

# %% [markdown]
# ## Key points
#
# * PyTorch's default float is float32 (4 bytes); NumPy's is float64. `from_numpy` keeps float64.
# * `element_size()`, `torch.finfo` and `torch.iinfo` give a dtype's bytes, range and `eps`.
# * Promotion: highest category wins; dimensioned tensors outrank 0-d tensors and Python numbers;
#   `torch.result_type` predicts it. NumPy 2 (NEP 50) differs for NumPy scalars, out-of-range
#   Python ints, and integers meeting floats (float64 there, float32 here).
# * `torch.set_default_dtype` changes float factories, Python floats and the complex default, not
#   integers nor NumPy arrays' dtypes; it is global, so restore it in a `finally:` block.
# * complex64 and complex128 hold pairs of float32 and float64; complex64 with float64 gives complex128.
#   `eig` and `eigvals` return complex dtypes even for real matrices.
# * Integer arithmetic wraps silently; integer `sum` returns int64, and on the CPU it first copies an
#   int8 input to int64 (8x its bytes). Pass the smallest safe accumulator with `dtype=`.
# * float32 keeps ~7 digits: long running sums drift, subtraction of close numbers cancels
#   (`expm1`, `log1p`, the stable quadratic formula). Accumulate in float64 when it matters
#   (`sum(dtype=torch.float64)` copies the input to float64 first: chunk a large one).
# * Compare floats with `torch.testing.assert_close`: its default tolerances follow the dtype; for a
#   long float32 computation, measure its error against float64 and set `rtol`/`atol` from it.
# * float16 overflows at 65504; bfloat16 has float32's range but 256 + 1 = 256. Accumulate in float32.
# * TF32 (10-bit mantissa) speeds up float32 matmuls on Ampere+ GPUs; tensors stay float32. Allow it
#   with `torch.backends.cuda.matmul.fp32_precision = "tf32"` (or the older
#   `set_float32_matmul_precision("high")`); cuDNN convolutions allow it by default
#   (`torch.backends.cudnn.conv.fp32_precision`). On a CPU, float32 matmuls follow
#   `torch.backends.mkldnn.matmul.fp32_precision`: `"bf16"` (or `"medium"`) can lower their precision
#   on CPUs with bfloat16 support. Use one set of switches, not both.

# %% [markdown]
# ## Further reading
#
# * [Tensor Attributes](https://docs.pytorch.org/docs/stable/tensor_attributes.html): the table of
#   dtypes, and the type promotion rules this notebook tested.
# * [`torch.result_type`](https://docs.pytorch.org/docs/stable/generated/torch.result_type.html) and
#   [`torch.promote_types`](https://docs.pytorch.org/docs/stable/generated/torch.promote_types.html).
# * [NEP 50, promotion rules for Python scalars](https://numpy.org/neps/nep-0050-scalar-promotion.html):
#   NumPy 2's side of the comparison.
# * [`torch.testing.assert_close`](https://docs.pytorch.org/docs/stable/testing.html): the default
#   tolerances per dtype and the closeness rule; [`torch.set_default_dtype`](https://docs.pytorch.org/docs/stable/generated/torch.set_default_dtype.html);
#   [Complex numbers](https://docs.pytorch.org/docs/stable/complex_numbers.html) in PyTorch.
# * [Numerical accuracy](https://docs.pytorch.org/docs/stable/notes/numerical_accuracy.html): PyTorch's
#   notes on float precision, extremal values, TF32 and reduced-precision reductions.
# * [`torch.set_float32_matmul_precision`](https://docs.pytorch.org/docs/stable/generated/torch.set_float32_matmul_precision.html)
#   and [TF32 on Ampere and later devices](https://docs.pytorch.org/docs/stable/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices)
#   (CUDA semantics), where the `fp32_precision` switches are described.
# * [docs/reference-figures.md](../docs/reference-figures.md), B: the published genetic-algorithm
#   timings quoted beside the int8 `sum`.

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 27 statements of this lesson are tested facts; all pass on torch 2.13.0. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“<code>.to</code> returns the same tensor when nothing changes”</td><td>✓</td></tr>
# <tr><td>“Float to integer casts truncate toward zero”</td><td>✓</td></tr>
# <tr><td>“<code>sum</code>, <code>prod</code> and <code>cumsum</code> of an integer or bool tensor return int64 so that they (almost) cannot overflow (<code>max</code> and <code>min</code> keep the input&#x27;s dtype)”</td><td>✓</td></tr>
# <tr><td>“On the CPU, <code>sum</code> first casts the whole input to the result dtype”</td><td>✓</td></tr>
# <tr><td>“on the CPU it first converts the whole input to a float64 copy, twice the input&#x27;s bytes, and only then adds”</td><td>✓</td></tr>
# <tr><td>“PyTorch&#x27;s CPU <code>cumsum</code> accumulates float32 in higher precision, so it would hide the effect”</td><td>✓</td></tr>
# <tr><td>“an integer tensor combined with a Python float, or divided with <code>/</code>, becomes the default float dtype, float32, not float64”</td><td>✓</td></tr>
# <tr><td>“Elementwise operations promote; <code>matmul</code> does not”</td><td>✓</td></tr>
# <tr><td>“creation checks the range, arithmetic does not”</td><td>✓</td></tr>
# <tr><td>“<code>norm</code> of a float16 vector accumulates internally in float32, while the textbook <code>sqrt(sum(v**2))</code> overflows in the squares”</td><td>✓</td></tr>
# <tr><td>“a <code>sum</code>, <code>softmax</code>, <code>cumsum</code> or <code>layer_norm</code> under CPU autocast stays bfloat16”</td><td>✓</td></tr>
# <tr><td>“the CUDA switch has no <code>&quot;bf16&quot;</code> value: setting one raises an error”</td><td>✓</td></tr>
# <tr><td>“It is global state: a cell that sets it changes every cell after it”</td><td>✓</td></tr>
# <tr><td>“The default must be a floating-point dtype: <code>torch.set_default_dtype(torch.int64)</code> raises a <code>TypeError</code>.”</td><td>✓</td></tr>
# <tr><td>“It does not touch integers (<code>torch.tensor([1, 2])</code> and <code>arange(3)</code> stay int64), nor a NumPy array&#x27;s own dtype: <code>from_numpy</code> and <code>as_tensor</code> keep float32 as float32 here, and float64 as float64 under any default.”</td><td>✓</td></tr>
# <tr><td>“the complex default, which is its complex partner (complex64 beside float32, complex128 beside float64)”</td><td>✓</td></tr>
# <tr><td>“<code>.real</code> and <code>.imag</code> give the two parts as real tensors (views that share the complex tensor&#x27;s memory)”</td><td>✓</td></tr>
# <tr><td>“a complex64 tensor with a float64 tensor gives complex128, a dtype neither operand has.”</td><td>✓</td></tr>
# <tr><td>“a Python complex raises an integer or float tensor to the complex partner of its own precision (of the default float for integers)”</td><td>✓</td></tr>
# <tr><td>“<code>torch.linalg.eig</code> and <code>eigvals</code> always return a complex dtype, even for a real matrix”</td><td>✓</td></tr>
# <tr><td>“<code>torch.allclose(a, b)</code> uses the same tolerances for every dtype (<code>rtol=1e-05</code>, <code>atol=1e-08</code>)”</td><td>✓</td></tr>
# <tr><td>“with these defaults (from torch&#x27;s own table in <code>torch/testing/_comparison.py</code>)”</td><td>✓</td></tr>
# <tr><td>“checks shape, dtype and device too”</td><td>✓</td></tr>
# <tr><td>“For the 16- and 32-bit floats <code>rtol</code> is a few <code>eps</code> of the dtype (float32: 11 eps, bfloat16: 2 eps), room for a few roundings, not for a long computation; float64&#x27;s 1e-7 is far looser than its <code>eps</code> of 2.2e-16.”</td><td>✓</td></tr>
# <tr><td>“A float outside the integer type&#x27;s range, or NaN, raises nothing either”</td><td>✓</td></tr>
# <tr><td>“<code>.to</code> returns the input itself when dtype and device already match”</td><td>✓</td></tr>
# <tr><td>“PyTorch refuses to change the category (float into an integer tensor) in place”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/04_dtypes.ipynb](../exercises/04_dtypes.ipynb) ·
# **Previous:** [03 · Strides](03_strides.ipynb) ·
# **Next:** [05 · Vectorisation and measuring speed](05_vectorisation.ipynb)
