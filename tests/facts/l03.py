"""Facts lesson 03 (strides) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from tests.facts import fact


def _same_buffer(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


def _row_major(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(math.prod(shape[d + 1 :]) for d in range(len(shape)))


@fact(
    "03",
    "position-formula",
    "`stride()` (how many storage elements to skip to move by one along each dimension)",
)
def _():
    base = torch.arange(60.0)
    view = base[5:].view(5, 11)[1:, ::3].t()  # an offset, a step and a transpose
    flat = base.as_strided((60,), (1,), 0)
    for i in range(view.shape[0]):
        for j in range(view.shape[1]):
            position = view.storage_offset() + i * view.stride(0) + j * view.stride(1)
            assert flat[position] == view[i, j]


@fact(
    "03",
    "fresh-tensor-row-major",
    "the last index moves fastest, so the last stride is 1 and each stride is the product of the sizes to its right",
)
def _():
    for shape in [(2, 3, 4), (5,), (7, 1, 3), (2, 3, 4, 5)]:
        for make in (torch.zeros, torch.empty, torch.ones):
            assert make(shape).stride() == _row_major(shape)
    b = torch.zeros(2, 3, 4)
    assert b.numpy().strides == tuple(4 * s for s in b.stride())  # NumPy counts bytes


@fact("03", "transpose-swaps-strides", "Transposing copies nothing: it swaps the sizes *and* the strides")
def _():
    c = torch.zeros(2, 3, 4)
    t = c.transpose(0, 2)
    assert t.shape == (4, 3, 2) and t.stride() == (1, 4, 12) and _same_buffer(t, c)
    assert c.permute(0, 2, 1).stride() == (12, 1, 4)


@fact(
    "03",
    "contiguous-definition",
    "A tensor is contiguous when its strides are the row-major strides of its shape (a dimension of size 1 may "
    "have any stride: nothing ever steps along it)",
)
def _():
    m = torch.arange(12.0).view(3, 4)
    assert m.is_contiguous() and not m.t().is_contiguous() and not m[:, 1:3].is_contiguous()
    odd = torch.empty(3, 1).t()  # shape (1, 3), strides (1, 1), not (3, 1)
    assert odd.stride() == (1, 1) and odd.is_contiguous()


@fact(
    "03",
    "contiguous-returns-self",
    "`contiguous()` returns the tensor itself when it already is, and otherwise copies the elements into a fresh "
    "row-major storage",
)
def _():
    m = torch.arange(12.0).view(3, 4)
    assert m.contiguous() is m
    c = m.t().contiguous()
    assert not _same_buffer(c, m) and c.stride() == (3, 1)


@fact(
    "03",
    "view-fails-reshape-copies",
    "`reshape` returns a view when it can and a copy when it must",
)
def _():
    m = torch.arange(12.0).view(3, 4)
    assert _same_buffer(m.reshape(6, 2), m) and not _same_buffer(m.t().reshape(12), m)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        m.t().view(12)


@fact(
    "03",
    "view-splits-non-contiguous",
    "`view` does work on some non-contiguous tensors: `m.t().view(2, 2, 3)` only splits a dimension, and returns "
    "a view",
    rival="view accepts any non-contiguous tensor with the right number of elements: `m.t().view(12)`, which "
    "would merge two dimensions, raises",
)
def _():
    m = torch.arange(12.0).view(3, 4)
    v = m.t().view(2, 2, 3)
    assert not m.t().is_contiguous() and _same_buffer(v, m) and v.stride() == (2, 1, 4)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        m.t().view(12)


@fact("03", "expand-stride-zero", "`expand` repeats a dimension of size 1 by giving it **stride 0**")
def _():
    row = torch.tensor([1.0, 2.0, 3.0])
    tall = row.expand(1000, 3)
    assert tall.stride() == (0, 1) and tall.untyped_storage().nbytes() == 12 and _same_buffer(tall, row)
    assert row.repeat(1000, 1).untyped_storage().nbytes() == 12_000


@fact(
    "03",
    "broadcast-never-copies",
    "the smaller operand is expanded with stride 0, never copied",
)
def _():
    from torchcourse.grading.rules import allocations

    matrix, row = torch.zeros(1000, 3), torch.arange(3.0)
    assert allocations(lambda: matrix + row) == [12_000, -12_000]  # the result, nothing else

    class Ops(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.names = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.names.append(str(func))
            return func(*args, **(kwargs or {}))

    with Ops() as ops:
        matrix + row
    assert ops.names == ["aten.add.Tensor"]


@fact(
    "03",
    "unfold-windows-overlap",
    "the window dimension has stride 1, and so does the position inside a window",
)
def _():
    signal = torch.tensor([1.0, 3.0, 2.0, 5.0, 4.0, 6.0, 8.0, 7.0])
    windows = signal.unfold(0, 3, 1)
    assert windows.shape == (6, 3) and windows.stride() == (1, 1) and _same_buffer(windows, signal)
    assert torch.equal(windows, signal.as_strided((6, 3), (1, 1)))


@fact(
    "03",
    "overlap-write-not-caught",
    "overlap like this one it lets through, and PyTorch does not warn you",
)
def _():
    z = torch.zeros(6)
    assert torch._debug_has_internal_overlap(z.unfold(0, 3, 1)) == 2  # "too hard": let through
    z.unfold(0, 3, 1).add_(1)
    assert z.tolist() == [1.0, 2.0, 3.0, 3.0, 2.0, 1.0]


@fact(
    "03",
    "channels-last-strides",
    "`channels_last` keeps the `(N, C, H, W)` shape but stores the channels of one pixel next to each other",
)
def _():
    x = torch.arange(120.0).view(2, 3, 4, 5)
    cl = x.to(memory_format=torch.channels_last)
    assert cl.shape == x.shape and cl.stride() == (60, 1, 15, 3) and torch.equal(cl, x)
    assert not cl.is_contiguous() and cl.is_contiguous(memory_format=torch.channels_last)


@fact(
    "03",
    "no-negative-strides",
    "PyTorch has no negative strides, so `torch.from_numpy` refuses such an array (so do `torch.tensor` and "
    "`torch.as_tensor`, module 02; `torch.flip` copies)",
    rival="`from_numpy` refuses any array that is not contiguous: `np.arange(10)[::2]`, stride 2, is wrapped "
    "and shared; only the negative stride is refused, by `as_strided` as well",
)
def _():
    for make in (torch.from_numpy, torch.tensor, torch.as_tensor):
        with pytest.raises(ValueError, match="negative"):
            make(np.arange(5)[::-1])
    t = torch.arange(5.0)
    assert not _same_buffer(t.flip(0), t)
    every_other = np.arange(10)[::2]
    wrapped = torch.from_numpy(every_other)
    assert wrapped.stride() == (2,) and np.shares_memory(wrapped.numpy(), every_other)
    with pytest.raises(RuntimeError, match="Negative strides are not supported"):
        t.as_strided((5,), (-1,), 4)


@fact(
    "03",
    "as-strided-checks-bounds",
    "`as_strided` trusts the numbers you give it, but it does check that the last element fits in the storage",
)
def _():
    with pytest.raises(RuntimeError, match="requiring a storage size of 28 are out of bounds for storage of size 24"):
        torch.arange(6.0).as_strided((3, 3), (2, 1))
    overlapping = torch.arange(6.0).as_strided((2, 3), (2, 1))  # within bounds: nothing else is checked
    assert overlapping.tolist() == [[0.0, 1.0, 2.0], [2.0, 3.0, 4.0]]


@fact(
    "03",
    "contiguous-is-not-a-copy",
    "So it is not a way to get a copy: whether a write into its result reaches the original depends on the "
    "input's strides.",
    rival="whether the input is itself a view of another tensor decides: `m[1:]` and `m.t()` are both views of "
    "`m`, yet `m[1:].contiguous()` is `m[1:]` (a write reaches `m`) and `m.t().contiguous()` is a copy",
)
def _():
    m = torch.arange(12.0).view(3, 4)
    y = m.contiguous()
    assert y is m
    y[0, 0] = -1.0
    assert m[0, 0] == -1.0
    yt = m.t().contiguous()
    yt[0, 0] = -2.0
    assert m[0, 0] == -1.0
    tail = m[1:]  # a view of m, with row-major strides
    assert _same_buffer(tail, m) and tail.contiguous() is tail
    tail.contiguous()[0, 0] = -3.0
    assert m[1, 0] == -3.0
    # size-1 dimensions may have any stride and still count as contiguous: no copy either
    odd = torch.arange(3.0).as_strided((3, 1), (1, 7))
    assert odd.is_contiguous() and odd.contiguous() is odd


@fact(
    "03",
    "permute-moves-strides",
    "permute moves each dimension's stride along with its size and computes nothing new",
)
def _():
    nhwc = torch.zeros(8, 32, 32, 3)
    nchw = nhwc.permute(0, 3, 1, 2)
    assert nchw.stride() == (3072, 1, 96, 3) and not nchw.is_contiguous()
    assert nchw.data_ptr() == nhwc.data_ptr()


@fact(
    "03",
    "overlapping-add-counts-each-window",
    "Positions that appear in several windows are updated once per window.",
)
def _():
    import warnings

    for dt in (torch.float32, torch.int64):
        z = torch.zeros(6, dtype=dt)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            z.unfold(0, 3, 1).add_(1)
        assert z.tolist() == [1, 2, 3, 3, 2, 1]
