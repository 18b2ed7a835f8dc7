"""Facts lesson 01 (from data to tensors) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from tests.facts import dispatched_ops, fact


def _same_memory(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


@fact(
    "01",
    "from-numpy-shares-tensor-copies",
    "`torch.from_numpy` shares the NumPy array's memory (writing through one changes the other), while "
    "`torch.tensor` copies",
)
def _():
    arr = np.arange(4.0)
    shared, copied = torch.from_numpy(arr), torch.tensor(arr)
    arr[0] = 100.0
    assert shared[0].item() == 100.0 and copied[0].item() == 0.0
    shared[1] = -1.0
    assert arr[1] == -1.0


@fact(
    "01",
    "read-only-array-warns",
    "Pillow's buffer is read-only, and PyTorch warns about tensors it cannot write to",
    rival="PyTorch warns because the tensor would share memory it did not allocate (np.asarray keeps Pillow's "
    "buffer), read-only or not: a writable array that shares its memory wraps without a word, and a private "
    "copy of the pixels marked read-only brings the warning",
)
def _():
    import subprocess

    # torch warns once per process, so the two cases run in a fresh one, writable first
    script = """
import warnings
import numpy as np
import torch
from PIL import Image
from torchcourse import data_path

def warns(arr):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        shared = torch.from_numpy(arr)
    assert shared.untyped_storage().data_ptr() == arr.ctypes.data  # shared, not copied, either way
    return any("not writable" in str(w.message) for w in seen)

with Image.open(data_path("grace_hopper.jpg")) as im:
    assert not np.asarray(im).flags.writeable and np.array(im).flags.writeable
    pixels = np.array(im)
read_only = pixels.view()
read_only.flags.writeable = False
print(warns(pixels), warns(read_only))
"""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["False", "True"], done.stdout  # the flag decides, not the sharing


@fact(
    "01",
    "to-same-device-returns-self",
    "on a machine without a GPU, `pick_device()` is the CPU and `.to` returns the same tensor",
)
def _():
    t = torch.ones(2, 3)
    assert t.to(torch.device("cpu")) is t


@fact(
    "01",
    "arange-excludes-linspace-includes",
    "`arange` counts with a step and excludes the end (in exact arithmetic: see below), `linspace` takes the "
    "number of points and includes both ends, `logspace` spaces points evenly in the exponent",
)
def _():
    assert torch.arange(1, 2, 0.25).tolist() == [1.0, 1.25, 1.5, 1.75]
    assert torch.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert torch.logspace(0, 3, 4).tolist() == [1.0, 10.0, 100.0, 1000.0]


@fact(
    "01",
    "like-copies-shape-dtype-device",
    "The `*_like` functions copy the shape, dtype and device of another tensor",
)
def _():
    src = torch.zeros(2, 3, dtype=torch.int16, device="meta")
    for like in (torch.ones_like(src), torch.zeros_like(src), torch.empty_like(src), torch.full_like(src, 7)):
        assert (like.shape, like.dtype, like.device) == (src.shape, src.dtype, src.device)


@fact(
    "01",
    "negative-step-refused",
    "PyTorch refuses negative steps (a tensor view cannot have a negative stride",
    rival="the refusal is only a rule of the slicing syntax (Python's step parser), while a tensor could hold a "
    "negative stride: `as_strided`, which takes strides directly and no step, refuses a negative stride too",
)
def _():
    with pytest.raises(ValueError, match="step must be greater than zero"):
        torch.arange(6)[::-1]
    with pytest.raises(RuntimeError, match="Negative strides are not supported"):
        torch.arange(6.0).as_strided((3,), (-1,), 5)


@fact("01", "flip-copies", "`flip(dims)` reverses along the dimensions you name (it returns a copy)")
def _():
    t = torch.arange(6.0).view(2, 3)
    f = t.flip(-1)
    assert f.tolist() == [[2.0, 1.0, 0.0], [5.0, 4.0, 3.0]] and not _same_memory(f, t)


@fact(
    "01",
    "index-drops-dim-none-adds",
    "an integer picks one position (and removes that dimension), a slice `start:stop:step` keeps a range, "
    'negative numbers count from the end, `...` stands for "all the remaining dimensions", and `None` '
    "inserts a new dimension of size 1",
)
def _():
    x = torch.zeros(3, 600, 512)
    assert x[2].shape == (600, 512) and x[:, 100:300, 150:350].shape == (3, 200, 200)
    assert x[..., 0].shape == (3, 600) and x[None].shape == (1, 3, 600, 512) and x[:, None].shape == (3, 1, 600, 512)
    assert torch.equal(torch.arange(5)[-1], torch.tensor(4))


@fact(
    "01",
    "boxed-float-sizes",
    "it holds pointers (8 bytes each) to float objects, each a separate 24-byte box",
)
def _():
    xs = torch.rand(1000).tolist()
    assert sys.getsizeof(1.5) == 24
    assert sys.getsizeof(xs) == sys.getsizeof([]) + 8 * len(xs)  # tolist() allocates the exact length
    assert len({id(x) for x in xs}) == len(xs)  # one float object per element


@fact(
    "01",
    "loop-element-is-0d-tensor",
    "each `t[i]` or each step of the loop makes a new 0-d tensor object",
    rival="the loop is slow only because Python's interpreter loop is (sum() of a list loops in C): the loop over "
    "the tensor also makes one 0-d tensor and dispatches one ATen addition per element, n of each for n "
    "elements, where the same loop over the list's floats dispatches none",
)
def _():

    t = torch.arange(3.0, dtype=torch.float64)
    items = list(t)
    assert all(isinstance(v, torch.Tensor) and v.dim() == 0 for v in items)
    assert len({id(v) for v in items}) == len(items) and t[0] is not t[0]

    def loop_sum(values):  # the lesson's loop
        total = 0.0
        for v in values:
            total += v
        return total

    for n in (5, 50):
        x = torch.rand(n, dtype=torch.float64)
        with dispatched_ops() as over_tensor:
            loop_sum(x)
        with dispatched_ops() as indexing:
            [x[i] for i in range(n)]
        with dispatched_ops() as over_list:
            loop_sum(x.tolist())
        assert sum(op in ("add", "add_") for op in over_tensor.ops) == n  # one dispatched addition a step
        assert indexing.ops == ["select"] * n  # one new 0-d view a t[i]
        assert over_list.ops == []


@fact("01", "uint8-wraps", "**Arithmetic on `uint8`.** Bytes wrap around: 250 + 10 is 4, not 260")
def _():
    r = torch.tensor([250], dtype=torch.uint8) + 10
    assert r.dtype == torch.uint8 and r.item() == 4


@fact(
    "01",
    "one-hot-wants-int64",
    "`one_hot` wants int64 ids (`torch.long`); ids stored as int32 or as floats are refused",
)
def _():
    ids = torch.tensor([0, 2, 1])
    assert F.one_hot(ids, 3).dtype == torch.int64
    for dtype in (torch.int32, torch.float32):
        with pytest.raises(RuntimeError, match="LongTensor"):
            F.one_hot(ids.to(dtype), 3)


@fact("01", "one-hot-default-width", "Without it `one_hot` uses `ids.max() + 1` columns")
def _():
    assert F.one_hot(torch.tensor([0, 2])).shape == (2, 3)


@fact(
    "01",
    "arange-length-rounds-up",
    "`arange` computes its length as `ceil((end − start) / step)` in floating point, and 0.1 has no exact "
    "binary value.",
    rival="arange adds the step until a value reaches the end, and the drift of repeated additions lets 1.3 in: "
    "such a loop would stop at the float64 value 1.3000000000000003, past the end, yet arange returns it, "
    "and the length is ceil((1.3 - 1) / 0.1) = ceil(3.0000000000000004) = 4",
)
def _():
    import math

    assert (1.3 - 1) / 0.1 > 3 and math.ceil((1.3 - 1) / 0.1) == 4
    wide = torch.arange(1, 1.3, 0.1, dtype=torch.float64)
    assert wide[-1].item() == 1.3  # the end itself, not a value below it: no "stop at the end" loop emits it
    steps = torch.arange(1, 1.3, 0.1)
    assert len(steps) == 4 and abs(steps[-1].item() - 1.3) < 1e-6  # the "excluded" end is in
    assert len(torch.arange(1, 1.3, 0.1, dtype=torch.float64)) == 4  # not a float32 effect
    assert len(np.arange(1, 1.3, 0.1)) == 4  # NumPy does the same
    assert len(torch.arange(0, 1, 0.1)) == 10  # and other ends come out as expected


@fact(
    "01",
    "std-bessel-vs-numpy",
    "torch.std divides by n - 1 by default (correction=1), np.std by n (ddof=0)",
)
def _():
    x = torch.tensor([[1.0, 2.0], [3.0, 5.0], [0.0, 1.0]])
    assert not torch.allclose(x.std(dim=0), torch.from_numpy(np.std(x.numpy(), axis=0)))
    assert torch.allclose(x.std(dim=0, correction=0), torch.from_numpy(np.std(x.numpy(), axis=0)))
    assert torch.allclose(x.var(dim=0), torch.from_numpy(np.var(x.numpy(), axis=0, ddof=1)))


@fact(
    "01",
    "numpy-float64-promotes",
    "an array from NumPy arrives as float64, and a float64 tensor with dimensions widens a float32 one",
    rival="any float64 operand widens (or: coming from NumPy does): a 0-d float64 tensor made from NumPy leaves "
    "float32 alone, while a float64 tensor with dimensions made by torch itself widens just the same",
)
def _():
    f32 = torch.ones(3, 4)
    for make in (torch.tensor, torch.from_numpy, torch.as_tensor):
        from_np = make(np.zeros(4))
        assert from_np.dtype == torch.float64
        assert (f32 - from_np).dtype == torch.float64
    # a 0-d tensor or a NumPy scalar does not widen a 1-D float32 tensor: only dimensioned ones do
    assert (f32 - torch.tensor(np.float64(1.0))).dtype == torch.float32
    assert (f32 - torch.zeros(4, dtype=torch.float64)).dtype == torch.float64  # not NumPy's doing: the dims
    assert torch.tensor([0.0] * 4).dtype == torch.float32
