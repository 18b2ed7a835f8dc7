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
# *Module 01 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/01_data_to_tensors.ipynb) · previous: [00 · Start here](00_start_here.ipynb) · next: [02 · Storage and views](02_storage_and_views.ipynb)

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
# # 01 · From data to tensors
#
# Whatever you compute with PyTorch (a linear solve, a simulation, a neural network) works
# on numbers only, packed into tensors. So the first job is always the same: turn the data
# you have, a photo, a table, a text, into a tensor of the right shape and dtype. In this
# notebook you do that with three real files from the course's `data/` folder, then learn
# the functions that create tensors from nothing, how to index and slice them, and why a
# tensor of a million numbers takes several times less memory than a Python list of them.
#
# **Objectives.** After this notebook you can:
# 1. load a photo, a CSV table and a text into tensors, and explain each shape and dtype;
# 2. create tensors with `arange`, `linspace`, `logspace`, seeded `rand`/`randn`/`randperm`,
#    `zeros`/`ones`/`eye`/`empty`, the `*_like` functions and `from_numpy`;
# 3. read a tensor's `size()`, `dim()` and `numel()`, and index and slice it, with `None`,
#    `...` and negative indices, using `flip` where Python would use a negative step;
# 4. measure the bytes a Python list of floats needs against a tensor of the same numbers.
#
# **Prerequisites.** [00 · Start here](00_start_here.ipynb): shape, dtype and device.
#
# **Time.** 40 min teaching, 35 min exercises.

# %%
import sys

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib_inline.backend_inline import set_matplotlib_formats

from torchcourse import claim, data_path, predict, reveal

set_matplotlib_formats("jpeg", pil_kwargs={"quality": 85})  # photos: JPEG keeps this notebook small

# %% [markdown]
# ## Why numbers?
#
# A photo is a grid of brightness values, a table row is a handful of measurements, a text is
# a sequence of symbols. Once each of them is a tensor, the same fast operations (add,
# multiply, sum, matmul) work on all of them, on a CPU or a GPU. The recipe is always:
# **read the file → NumPy array or Python list → tensor → the shape and dtype your
# computation wants.**

# %% [markdown]
# ## An image: H × W × C bytes → C × H × W floats
#
# `data/grace_hopper.jpg` is the official US Navy portrait of Rear Admiral Grace Hopper
# (public domain). Pillow decodes the JPEG; `np.array` turns it into an array and
# `torch.from_numpy` wraps that array as a tensor without copying. (Use `np.array`, which
# gives a writable copy, rather than `np.asarray`: Pillow's buffer is read-only, and PyTorch
# warns about tensors it cannot write to.)

# %%
from PIL import Image

img = torch.from_numpy(np.array(Image.open(data_path("grace_hopper.jpg"))))
print("shape:", tuple(img.shape), "| dtype:", img.dtype)
print("top-left pixel (R, G, B):", img[0, 0].tolist())
print("smallest and largest value:", img.min().item(), img.max().item())

# %% [markdown]
# The file stores **height × width × channels** (600 rows, 512 columns, red/green/blue), each
# value a byte from 0 to 255: `torch.uint8`. PyTorch's convolutions and torchvision's image
# functions want **channels × height × width**, and torchvision takes float images to lie in
# [0, 1]. `permute(2, 0, 1)` reorders the
# dimensions (new dim 0 = old dim 2, ...) and dividing by 255 gives float32:

# %%
chw = img.permute(2, 0, 1).float() / 255
print("shape:", tuple(chw.shape), "| dtype:", chw.dtype)
print("top-left pixel, now per channel:", chw[:, 0, 0])

# %% [markdown]
# Look at the three channels separately, each drawn as grey levels (white = 1). The blue
# background is bright in the blue channel and dark in the red one; her face and the flag's
# red stripes are brightest in red; the navy uniform is dark in all three.

# %%
fig, axes = plt.subplots(1, 4, figsize=(11, 3.4))
axes[0].imshow(img)
axes[0].set_title(f"photo {tuple(img.shape)} uint8")
for ax, channel, name in zip(axes[1:], chw, ["red", "green", "blue"]):
    ax.imshow(channel, cmap="gray", vmin=0, vmax=1)
    ax.set_title(f"chw[{'rgb'.index(name[0])}]: {name}, {tuple(channel.shape)}")
for ax in axes:
    ax.axis("off")
plt.tight_layout()
plt.show()

# %% [markdown]
# Code that processes images takes a **batch**: one more dimension in front, N × C × H × W.
# `unsqueeze(0)` (or indexing with `None`) makes a batch of one; `torch.stack` puts several
# images of the same shape into one batch. Here: the photo and its mirror image.

# %%
one = chw.unsqueeze(0)
two = torch.stack([chw, chw.flip(-1)])
print("batch of one:", tuple(one.shape), "| batch of two:", tuple(two.shape))
print("same as chw[None]:", torch.equal(one, chw[None]))

# %% [markdown]
# A batch is one tensor, so it moves to the fastest device in one call. Load and convert on
# the CPU, then move the finished batch (on a machine without a GPU, `pick_device()` is the
# CPU and `.to` returns the same tensor):

# %%
from torchcourse import pick_device

device = pick_device()
batch = two.to(device)
print(tuple(batch.shape), batch.dtype, "| on the chosen device:", batch.device.type == device.type)

# %% [markdown]
# ## A table: CSV text → a normalised float tensor
#
# `data/iris.csv` holds R. A. Fisher's Iris measurements (1936): 150 flowers, four lengths in
# cm and the species. The `csv` module reads it as strings; the four numeric columns become a
# float32 tensor, and the species names become integer **class ids** (a tensor cannot hold
# strings).

# %%
import csv

with open(data_path("iris.csv"), newline="") as f:
    header, *rows = list(csv.reader(f))
print(header)
print(rows[0], "...", len(rows), "rows")

features = torch.tensor([[float(v) for v in row[:4]] for row in rows])
species = sorted({row[4] for row in rows})
labels = torch.tensor([species.index(row[4]) for row in rows])
print("features:", tuple(features.shape), features.dtype, "| labels:", tuple(labels.shape), labels.dtype)
print("species:", species, "| rows per class:", torch.bincount(labels).tolist())

# %% [markdown]
# The columns live on different scales: petal width averages about 1 cm, sepal length about
# 6 cm (the column means printed below). Many computations (distances, gradient descent) go better when every column
# has mean 0 and standard deviation 1. Reducing with `dim=0` goes **down** the rows, giving one
# number per column, and broadcasting subtracts it from every row:

# %%
mean, std = features.mean(dim=0), features.std(dim=0)
normalised = (features - mean) / std
print("column means:", mean.round(decimals=3))
print("column stds: ", std.round(decimals=3))
print(
    "after: every |mean| < 1e-6:",
    normalised.mean(dim=0).abs().max().item() < 1e-6,
    "| stds:",
    normalised.std(dim=0).round(decimals=4),
)

# %% [markdown]
# A standard deviation has two definitions: divide the sum of squared deviations by `n` (the
# population's) or by `n − 1` (the sample's, Bessel's correction). NumPy and PyTorch picked
# differently.
#
# **Predict 01.p1.** Is `features.std(dim=0)` equal to NumPy's `np.std(features.numpy(), axis=0)`?
# `True` or `False`.

# %%
predict("01.p1", None)  # replace None with your prediction

# %%
numpy_std = torch.from_numpy(np.std(features.numpy(), axis=0))
print("PyTorch's std:", std.round(decimals=4))
print("NumPy's std:  ", numpy_std.round(decimals=4))
print("PyTorch with correction=0:", features.std(dim=0, correction=0).round(decimals=4))
reveal(
    "01.p1",
    torch.allclose(std, numpy_std),
    why="torch.std divides by n - 1 by default (correction=1), np.std by n (ddof=0): with 150 rows they "
    "differ by a factor sqrt(150/149). Pass correction=0 in PyTorch, or ddof=1 in NumPy, to agree.",
)

# %% [markdown]
# The picture shows what normalising did: each column's 150 values, before (in cm) and after
# (in standard deviations). The shape of each cloud is the same; only its position and scale
# changed. The gap in the petal columns is the setosa species.

# %%
fig, axes = plt.subplots(1, 2, figsize=(11, 3.4))
gen = torch.Generator().manual_seed(0)
jitter = (torch.rand(features.shape, generator=gen) - 0.5) * 0.3
for ax, data, title in [(axes[0], features, "raw (cm)"), (axes[1], normalised, "normalised (mean 0, std 1)")]:
    for k in range(len(species)):
        rows_k = labels == k
        ax.scatter((torch.arange(4) + jitter[rows_k]).flatten(), data[rows_k].flatten(), s=6, label=species[k])
    ax.set_xticks(range(4), [h.replace("_cm", "") for h in header[:4]], fontsize=8)
    ax.set_title(title)
    ax.grid(alpha=0.3)
axes[0].legend(fontsize=8)
plt.tight_layout()
plt.show()

# %% [markdown]
# ## A text: characters → token ids → one-hot vectors
#
# `data/zen_of_python.txt` is "The Zen of Python" (PEP 20, public domain). To compute with a
# text, give each distinct character a number: the **vocabulary** is the sorted set of its
# characters, and each character becomes its position in that list, its **token id**.

# %%
text = data_path("zen_of_python.txt").read_text()
vocab = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(vocab)}
ids = torch.tensor([stoi[ch] for ch in text])
print(len(text), "characters,", len(vocab), "distinct")
print(repr(text[:31]))
print(ids[:31])

# %% [markdown]
# The mapping goes back too, which is how you check it:

# %%
decoded = "".join(vocab[i] for i in ids[:31].tolist())
print(repr(decoded), decoded == text[:31])
print("id of 'T':", stoi["T"], "| id of 'e':", stoi["e"])

# %% [markdown]
# An id is a label, not a quantity: `"e"` (the larger id printed above) is not "more" than
# `"T"`. A **one-hot**
# vector says "which one" without an order: a row of zeros with a single 1 at the id.
# `torch.nn.functional.one_hot` builds one row per character:

# %%
import torch.nn.functional as F

onehot = F.one_hot(ids, num_classes=len(vocab))
print("one-hot:", tuple(onehot.shape), onehot.dtype)
print("row of 'T':", onehot[0].tolist())
print(
    "each row sums to 1:",
    bool((onehot.sum(dim=1) == 1).all()),
    "| argmax gives the ids back:",
    torch.equal(onehot.argmax(dim=1), ids),
)
id_bytes, onehot_bytes = ids.numel() * ids.element_size(), onehot.numel() * onehot.element_size()
print(f"memory: ids {id_bytes:,} B, one-hot {onehot_bytes:,} B, {onehot_bytes / id_bytes:.0f} times as much")

# %% [markdown]
# Notice the cost printed on the last line: one-hot rows take as many times the memory of the
# ids as the vocabulary has characters. Models therefore keep the ids and look rows up
# (`nn.Embedding`) instead of multiplying by one-hot matrices.

# %% [markdown]
# ## Creating tensors from nothing
#
# Often you need a tensor that no file gives you: a grid of sample points, random input
# data, an identity matrix. `torch.tensor` copies any nested list or number; `arange`
# counts with a step and **excludes** the end (in exact arithmetic: see below), `linspace`
# takes the number of points and **includes** both ends, `logspace` spaces points evenly in
# the exponent.

# %%
print(torch.tensor([[1, 2], [3, 4]]))
print(torch.arange(5), torch.arange(1, 2, 0.25))
print(torch.linspace(0, 1, 5))
print(torch.logspace(0, 3, 4))  # 10**0 ... 10**3

# %% [markdown]
# `arange` computes its length as `ceil((end − start) / step)` in floating point, and 0.1 has no
# exact binary value.
#
# **Predict 01.p2.** How many elements has `torch.arange(1, 1.3, 0.1)`? Write a whole number.

# %%
predict("01.p2", None)  # replace None with your prediction

# %%
steps = torch.arange(1, 1.3, 0.1)
print(steps, "| length:", len(steps), "| (1.3 - 1) / 0.1 =", (1.3 - 1) / 0.1)
print("linspace(1, 1.2, 3):", torch.linspace(1, 1.2, 3))
reveal(
    "01.p2",
    len(steps),
    why="(1.3 - 1) / 0.1 is 3.0000000000000004 in floating point, and its ceiling is 4: the 'excluded' "
    "end 1.3 comes in. With a fractional step, use linspace and say how many points you want.",
)

# %% [markdown]
# Random tensors come from a generator. Seed it and you get the same numbers on every run
# (on the CPU, with the same PyTorch release; GPUs and other releases may draw other numbers): `rand` is uniform in [0, 1),
# `randn` standard normal, `randint` integers, `randperm` a shuffled `arange`.

# %%
torch.manual_seed(0)
a = torch.rand(3)
torch.manual_seed(0)
b = torch.rand(3)
print(a, "| same after reseeding:", torch.equal(a, b))
gen = torch.Generator().manual_seed(42)  # a private generator: other code cannot disturb it
print(torch.randn(2, 3, generator=gen))
print(torch.randint(0, 10, (5,), generator=gen), torch.randperm(6, generator=gen))

# %% [markdown]
# Constant tensors: `zeros`, `ones`, `full`, `eye` (identity matrix). `empty` only reserves
# memory: its values are whatever bytes were there, so never read them before writing. The
# `*_like` functions copy the shape, dtype and device of another tensor: the right way to
# make "a buffer like this one".

# %%
print(torch.zeros(2, 3), torch.eye(3), sep="\n")
buf = torch.empty(2, 3)  # uninitialised: do not print its values
print("empty:", tuple(buf.shape), buf.dtype)
like = torch.ones_like(chw)
print("ones_like(chw):", tuple(like.shape), like.dtype, "| zeros_like(labels):", torch.zeros_like(labels[:4]))

# %% [markdown]
# `torch.from_numpy` **shares** the NumPy array's memory (writing through one changes the
# other), while `torch.tensor` **copies**. Keep the difference in mind; module 02 looks at
# shared storage in detail.

# %%
arr = np.arange(4.0)
shared, copied = torch.from_numpy(arr), torch.tensor(arr)
arr[0] = 100.0
print("from_numpy:", shared, "| tensor:", copied)

# %% [markdown]
# Both keep NumPy's dtype, and NumPy's default float is float64, while PyTorch's is float32.
#
# **Predict 01.p3.** What dtype is `features - torch.tensor(np.zeros(4))` (`features` is the float32
# Iris table)? One of `"float32"`, `"float64"`.

# %%
predict("01.p3", None)  # replace None with your prediction

# %%
from_np = torch.tensor(np.zeros(4))
mixed = features - from_np
print("torch.tensor(np.zeros(4)):", from_np.dtype, "| torch.tensor([0.0] * 4):", torch.tensor([0.0] * 4).dtype)
print("features - torch.tensor(np.zeros(4)):", mixed.dtype, f"({mixed.element_size()} bytes per number)")
reveal(
    "01.p3",
    mixed.dtype,
    choices=("float32", "float64"),
    why="an array from NumPy arrives as float64, and a float64 tensor with dimensions widens a float32 one "
    "(a 0-d one or a Python float would not): the table silently doubles in size and runs slower. Convert "
    "at the border: torch.tensor(arr, dtype=torch.float32).",
)

# %% [markdown]
# ## Size, dimensions, number of elements
#
# `size()` (the same as `.shape`) gives every dimension, `size(d)` one of them (negative `d`
# counts from the end), `dim()` how many there are and `numel()` how many numbers in all.

# %%
for name, t in [("img", img), ("chw", chw), ("two", two), ("features", features), ("ids", ids)]:
    print(f"{name:9} size={tuple(t.size())!s:18} dim={t.dim()} numel={t.numel():>7} last size={t.size(-1)}")

# %% [markdown]
# ## Indexing and slicing
#
# Indexing works as for NumPy arrays, one entry per dimension: an integer picks one
# position (and removes that dimension), a slice `start:stop:step` keeps a range,
# negative numbers count from the end, `...` stands for "all the remaining dimensions",
# and `None` inserts a new dimension of size 1.

# %%
print("pixel (0, 0) of the blue channel:", chw[2, 0, 0].item())
print("bottom-right pixel:", img[-1, -1].tolist())
print("chw[:, 100:300, 150:350]:", tuple(chw[:, 100:300, 150:350].shape))
print("every 4th row and column:", tuple(chw[:, ::4, ::4].shape))
print("chw[..., 0] (first column, every channel):", tuple(chw[..., 0].shape))
print("features[None]:", tuple(features[None].shape), "| features[:, None]:", tuple(features[:, None].shape))

# %% [markdown]
# Python reverses a list with a negative step, `xs[::-1]`. PyTorch refuses negative steps
# (a tensor view cannot have a negative stride; module 03 explains strides):

# %% tags=["raises-exception"]
img[:, ::-1]

# %% [markdown]
# `flip(dims)` reverses along the dimensions you name (it returns a copy). `flip(-1)` mirrors
# an image left-right, `flip(-2)` turns it upside down:

# %%
print(torch.arange(6).flip(0))
fig, axes = plt.subplots(1, 4, figsize=(11, 3.4))
views = [
    (img, "img"),
    (img[100:300, 150:350], "img[100:300, 150:350]"),
    (img.flip(1), "img.flip(1)  (W is dim 1)"),
    (chw.flip(-2).permute(1, 2, 0), "chw.flip(-2)  (H is dim -2)"),
]
for ax, (picture, title) in zip(axes, views):
    ax.imshow(picture)
    ax.set_title(title, fontsize=9)
    ax.axis("off")
plt.tight_layout()
plt.show()

# %% [markdown]
# ## Boxed Python floats vs unboxed tensor numbers
#
# A Python list does not hold numbers: it holds **pointers** (8 bytes each) to float
# **objects**, each a separate 24-byte box with a type pointer, a reference count and the
# 8-byte value. A tensor holds the raw values side by side, `element_size()` bytes each. Count
# the bytes for the 150 × 4 Iris numbers and for a million numbers:


# %%
def list_bytes(xs):
    """The list's own size (its pointer array) plus every distinct float object it points to."""
    return sys.getsizeof(xs) + sum(sys.getsizeof(x) for x in {id(x): x for x in xs}.values())


for t in [features.flatten(), torch.rand(1_000_000, generator=torch.Generator().manual_seed(0))]:
    xs = t.tolist()
    boxed = list_bytes(xs)
    for dtype in (torch.float32, torch.float64):
        unboxed = t.to(dtype).element_size() * t.numel()
        print(
            f"{t.numel():>9} floats: list {boxed:>10,} B | {dtype} tensor {unboxed:>9,} B | ratio {boxed / unboxed:.1f}x"
        )
per_float = list_bytes(xs) / len(xs)
print(f"bytes per number in the list: {per_float:.0f} (an 8-byte pointer + a {sys.getsizeof(1.5)}-byte float object)")
claim(per_float > 4 * 4, "a list costs more than 4 times the memory of a float32 tensor per number")

# %% [markdown]
# A Python float costs 32 bytes (pointer + box) against 4 in a float32 tensor and 8 in a
# float64 one: the ratios printed above. The boxes also cost time: summing the list means
# following a million pointers and checking and unboxing each float object, one at a time,
# while `t.sum()` runs one compiled loop over contiguous memory. The cell below times both with
# the built-in `sum` (a loop written in C, the fastest a list gets) and prints the ratio of the
# best times. It runs PyTorch on one thread, so that one core competes with one core, and the
# contenders take turns, round after round (`torchcourse.timing.interleaved`), so that a busy
# moment on your machine slows all of them alike. The times vary from machine to machine; the
# ratio is printed, and the claims under it use margins any machine meets.
#
# It also times a Python `for` loop over the elements of a tensor, the slowest way of all:
# each `t[i]` or each step of the loop makes a new 0-d tensor object. The published webinar
# figures (docs/reference-figures.md, section C, on a laptop CPU) are 1.37 s for such a loop
# over a 1e6-element float64 tensor against 191 µs for `t.sum()`, about 7,000x. The cell
# loops over the first 5,000 elements only, and compares the cost per element.

# %%
# NBVAL_IGNORE_OUTPUT
from torchcourse.timing import format_seconds, interleaved

t = torch.rand(1_000_000, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
xs = t.tolist()
head = t[:5000]


def loop_sum(values):
    total = 0.0
    for v in values:  # each v is a new 0-d tensor
        total += v
    return total


list_s, tensor_s, loop_s = interleaved([lambda: sum(xs), lambda: t.sum(), lambda: loop_sum(head)], rounds=7, threads=1)
print(f"sum(list): {format_seconds(list_s)} | t.sum(): {format_seconds(tensor_s)} (best of 7 turns, one thread)")
print(f"ratio of the best times: {list_s / tensor_s:.0f}x")
list_ns, loop_ns = list_s / t.numel() * 1e9, loop_s / head.numel() * 1e9
print(f"per element: sum(list) {list_ns:.1f} ns, for loop over the tensor {loop_ns:,.0f} ns")

# %%
print("same sum:", abs(sum(xs) - t.sum().item()) < 1e-6 * t.numel())
# sum(list) reads a pointer and a 24-byte box per number and checks its type; t.sum() reads 8
# bytes per number in a vector loop: 3x holds on any CPU at one thread, the two taking turns.
claim(list_s > 3 * tensor_s, "t.sum() is more than 3 times faster than sum() of the list")
# A 0-d tensor per element and one dispatched addition cost hundreds of ns; sum() of a list a
# few ns per element: far more than 10x on any CPU.
claim(
    loop_ns > 10 * list_ns, "a Python loop over a tensor's elements is more than 10 times slower than sum() of a list"
)

# %% [markdown]
# ## Common mistakes
#
# **`reshape` instead of `permute`.** `img.reshape(3, 600, 512)` has the right shape but the
# wrong contents: it cuts the interleaved R, G, B, R, G, B, ... bytes into three blocks, so
# "channel 0" is a mixture of all three colours. Only `permute` moves dimensions:

# %%
wrong = img.reshape(3, 600, 512)
right = img.permute(2, 0, 1)
print("same shape:", wrong.shape == right.shape, "| same values:", torch.equal(wrong, right))
print("first 6 values of channel 0, reshape:", wrong[0, 0, :6].tolist())
print("first 6 values of channel 0, permute:", right[0, 0, :6].tolist())

# %% [markdown]
# **Arithmetic on `uint8`.** Bytes wrap around: 250 + 10 is 4, not 260. Brightening the photo
# before converting to float silently corrupts the bright pixels. Convert first:

# %%
print(torch.tensor([250], dtype=torch.uint8) + 10, torch.tensor([250], dtype=torch.uint8).float() + 10)

# %% [markdown]
# **A NumPy array with a negative stride.** NumPy allows `arr[::-1]` as a view; `from_numpy`
# cannot wrap it and says so. Copy it (`.copy()`) or flip in PyTorch instead:

# %% tags=["raises-exception"]
torch.from_numpy(np.arange(5)[::-1])

# %% [markdown]
# **One-hot of the wrong integer type.** `one_hot` wants int64 ids (`torch.long`); ids
# stored as int32 or as floats are refused:

# %% tags=["raises-exception"]
F.one_hot(ids.int(), num_classes=len(vocab))

# %% [markdown]
# **Forgetting `num_classes`.** Without it `one_hot` uses `ids.max() + 1` columns, so a text
# that lacks the last character of the vocabulary gets narrower rows than the rest:

# %%
print(F.one_hot(torch.tensor([0, 2])).shape, F.one_hot(torch.tensor([0, 2]), num_classes=len(vocab)).shape)

# %% [markdown]
# ## Key points
#
# * Every kind of data becomes numbers: images as N × C × H × W floats, tables as rows ×
#   columns floats plus integer class ids, texts as int64 token ids (and one-hot rows).
# * `permute` reorders dimensions, `reshape` does not; convert `uint8` to float before
#   arithmetic.
# * `arange` excludes its end (unless rounding lets it in: use `linspace` for fractional steps),
#   `linspace` includes it; seed random tensors; never read `empty`;
#   `from_numpy` shares memory, `torch.tensor` copies; both keep NumPy's float64, so convert at the
#   border.
# * `size()`, `dim()`, `numel()`; index with integers, slices, `...` and `None`; PyTorch refuses
#   negative steps, so use `flip`.
# * A Python float costs 32 bytes in a list, a float32 in a tensor 4: keep numbers unboxed,
#   and never loop over a tensor's elements in Python.

# %% [markdown]
# ## Further reading
#
# * Within this course: [16 · Advanced indexing](16_indexing.ipynb) goes beyond slicing: boolean
#   masks, integer-array indexing, `gather` and `scatter`, and which of them copy.
# * [`torch.from_numpy`](https://docs.pytorch.org/docs/stable/generated/torch.from_numpy.html):
#   the tensor and the array share memory; writing to one shows in the other.
# * [Tensor Views](https://docs.pytorch.org/docs/stable/tensor_view.html): which operations
#   (slicing, `permute`, `unsqueeze`, ...) return views instead of copies.
# * M.-H. Burle, [Everything you wanted to know (and more!) about PyTorch tensors](https://mint.westdri.ca/ai/wb_torchtensors.html)
#   (WestDRI webinar, 2022): the loop-versus-`sum` figures quoted above (docs/reference-figures.md, section C).

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 16 statements of this lesson are tested facts; all pass on torch 2.13.0. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“<code>torch.from_numpy</code> shares the NumPy array&#x27;s memory (writing through one changes the other), while <code>torch.tensor</code> copies”</td><td>✓</td></tr>
# <tr><td>“Pillow&#x27;s buffer is read-only, and PyTorch warns about tensors it cannot write to”</td><td>✓</td></tr>
# <tr><td>“on a machine without a GPU, <code>pick_device()</code> is the CPU and <code>.to</code> returns the same tensor”</td><td>✓</td></tr>
# <tr><td>“<code>arange</code> counts with a step and excludes the end (in exact arithmetic: see below), <code>linspace</code> takes the number of points and includes both ends, <code>logspace</code> spaces points evenly in the exponent”</td><td>✓</td></tr>
# <tr><td>“The <code>*_like</code> functions copy the shape, dtype and device of another tensor”</td><td>✓</td></tr>
# <tr><td>“PyTorch refuses negative steps (a tensor view cannot have a negative stride”</td><td>✓</td></tr>
# <tr><td>“<code>flip(dims)</code> reverses along the dimensions you name (it returns a copy)”</td><td>✓</td></tr>
# <tr><td>“an integer picks one position (and removes that dimension), a slice <code>start:stop:step</code> keeps a range, negative numbers count from the end, <code>...</code> stands for &quot;all the remaining dimensions&quot;, and <code>None</code> inserts a new dimension of size 1”</td><td>✓</td></tr>
# <tr><td>“it holds pointers (8 bytes each) to float objects, each a separate 24-byte box”</td><td>✓</td></tr>
# <tr><td>“each <code>t[i]</code> or each step of the loop makes a new 0-d tensor object”</td><td>✓</td></tr>
# <tr><td>“Arithmetic on <code>uint8</code>. Bytes wrap around: 250 + 10 is 4, not 260”</td><td>✓</td></tr>
# <tr><td>“<code>one_hot</code> wants int64 ids (<code>torch.long</code>); ids stored as int32 or as floats are refused”</td><td>✓</td></tr>
# <tr><td>“Without it <code>one_hot</code> uses <code>ids.max() + 1</code> columns”</td><td>✓</td></tr>
# <tr><td>“<code>arange</code> computes its length as <code>ceil((end − start) / step)</code> in floating point, and 0.1 has no exact binary value.”</td><td>✓</td></tr>
# <tr><td>“torch.std divides by n - 1 by default (correction=1), np.std by n (ddof=0)”</td><td>✓</td></tr>
# <tr><td>“an array from NumPy arrives as float64, and a float64 tensor with dimensions widens a float32 one”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/01_data_to_tensors.ipynb](../exercises/01_data_to_tensors.ipynb) ·
# **Previous:** [00 · Start here](00_start_here.ipynb) ·
# **Next:** [02 · Storage and views](02_storage_and_views.ipynb)
