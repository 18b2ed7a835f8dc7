"""Facts lesson 02 (storage and views) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

from tests.facts import fact


def _same_buffer(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


@fact(
    "02",
    "storage-is-untyped-bytes",
    "The storage knows nothing about shape or dtype: it is just `nbytes()` bytes",
)
def _():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    s = t.untyped_storage()
    assert isinstance(s, torch.UntypedStorage) and s.nbytes() == 24
    assert torch.tensor([1, 258], dtype=torch.int16).untyped_storage().tolist() == [1, 0, 2, 1]  # bytes, low first


@fact(
    "02",
    "typed-storage-warns-once",
    "it returns a `TypedStorage`, which is deprecated, and the first call in a process warns",
)
def _():
    from torch import storage as storage_module

    t = torch.ones(2)
    storage_module._reset_warn_typed_storage_removal()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = t.storage()
        t.storage()
    assert isinstance(first, torch.TypedStorage)
    deprecations = [w for w in caught if "TypedStorage is deprecated" in str(w.message)]
    assert len(deprecations) == 1  # once per process, even with the "always" filter


@fact(
    "02",
    "data-ptr-first-element",
    "`t.data_ptr()` is the memory address of the tensor's first element; `t.untyped_storage().data_ptr()` is "
    "the address of the start of the buffer",
)
def _():
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    row = t[1]
    assert row.storage_offset() == 3 and _same_buffer(row, t)
    assert row.data_ptr() == row.untyped_storage().data_ptr() + 3 * t.element_size()


@fact(
    "02",
    "which-ops-view",
    "Most operations that only rearrange elements return views: basic slicing, `view`, `reshape` (when it can), "
    "`t()`/`transpose`, `unsqueeze`, `expand`, `diagonal`",
)
def _():
    t = torch.arange(6.0).reshape(2, 3)
    for v in (t[1], t[:, 1], t.view(3, 2), t.reshape(6), t.t(), t.transpose(0, 1), t.unsqueeze(0), t.expand(4, 2, 3)):
        assert v._is_view() and _same_buffer(v, t)
    assert t.diagonal()._is_view()


@fact(
    "02",
    "advanced-indexing-and-flip-copy",
    'Operations that compute new values, and indexing with a list or a mask ("advanced indexing"), copy; '
    "so does `flip`",
)
def _():
    t = torch.arange(6.0).reshape(2, 3)
    for c in (t[[0, 1]], t[t > 2], t * 1, t.clone(), t.flip(1)):
        assert not c._is_view() and not _same_buffer(c, t)


@fact(
    "02",
    "in-place-keeps-buffer",
    "Methods ending in an underscore (`add_`, `mul_`, `zero_`, `clamp_`, ...) and the augmented operators "
    "(`+=`, `*=`) write into the existing storage",
)
def _():
    a = torch.zeros(4)
    v = a[:2]
    before = a.untyped_storage().data_ptr()
    a.add_(1)
    a += 1
    a *= 2
    assert a.untyped_storage().data_ptr() == before and v.tolist() == [4.0, 4.0]
    a = a + 1
    assert a.untyped_storage().data_ptr() != before and v.tolist() == [4.0, 4.0]


@fact(
    "02",
    "detach-shares-clone-copies",
    "`clone()` copies the numbers into a new storage. `detach()` does the opposite: it shares the storage and "
    "drops only the autograd history",
)
def _():
    x = torch.ones(3, requires_grad=True)
    d, c = x.detach(), x.clone()
    assert _same_buffer(d, x) and not d.requires_grad and d.grad_fn is None
    assert not _same_buffer(c, x) and c.requires_grad and type(c.grad_fn).__name__ == "CloneBackward0"
    d.zero_()
    assert x.detach().tolist() == [0.0, 0.0, 0.0]


@fact(
    "02",
    "as-tensor-shares-unless-dtype",
    "`torch.as_tensor(...)` shares when it can and copies when it must, for instance when you ask for another dtype",
)
def _():
    n = np.arange(4.0)
    assert np.shares_memory(torch.as_tensor(n).numpy(), n)
    assert not np.shares_memory(torch.as_tensor(n, dtype=torch.float32).numpy(), n)
    assert not np.shares_memory(torch.tensor(n).numpy(), n)


@fact(
    "02",
    "numpy-refuses-requires-grad",
    "**Tensors that require grad.** NumPy knows nothing of autograd, so PyTorch refuses",
    rival="PyTorch refuses because it cannot hand that memory to NumPy: `w.detach().numpy()` shares the very "
    "same memory (a write through it shows in `w`); only the autograd flag differs, and a non-leaf that requires "
    "grad is refused too",
)
def _():
    w = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"detach\(\)\.numpy\(\)"):
        w.numpy()
    with pytest.raises(TypeError, match="meta device type tensor to numpy"):
        torch.ones(2, device="meta").numpy()
    with pytest.raises(RuntimeError, match=r"detach\(\)\.numpy\(\)"):
        (w * 2).numpy()  # not a leaf, its own fresh memory: refused all the same
    arr = w.detach().numpy()
    arr[0] = 5.0
    assert w[0].item() == 5.0


@fact(
    "02",
    "from-numpy-storage-covers-the-array",
    "`torch.from_numpy` wraps exactly the memory the array covers, so two tensors made from overlapping NumPy "
    "slices get two storages that start at different addresses",
    rival="the storages start apart because from_numpy copied the slice into memory of its own: a write through "
    "the tail shows in the whole, and the tail's storage begins 16 bytes (two float64) into the whole's",
)
def _():
    n = np.arange(6.0)
    whole, tail = torch.from_numpy(n), torch.from_numpy(n[2:])
    assert whole.untyped_storage().nbytes() == 48 and tail.untyped_storage().nbytes() == 32
    assert tail.untyped_storage().data_ptr() == whole.untyped_storage().data_ptr() + 16
    tail[0] = -1.0
    assert whole[2].item() == -1.0  # shared, not copied


@fact(
    "02",
    "leaf-in-place-refused",
    "A tensor you created with `requires_grad=True` is a leaf of the autograd graph",
)
def _():
    p = torch.ones(3, requires_grad=True)
    assert p.is_leaf
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        p.add_(1)
    with torch.no_grad():
        p.add_(1)
    assert p.detach().tolist() == [2.0, 2.0, 2.0]


@fact(
    "02",
    "expanded-write-refused-by-stride-check",
    "It comes from a check on the strides, which finds a dimension of stride 0",
    rival="a check of the real memory overlap (two elements at one address), or of the values written: the "
    "overlapping unfold view, which has no stride 0, is let through and written, while the stride-0 view is "
    "refused even for a write of zeros that changes nothing",
)
def _():
    # aten/src/ATen/MemoryOverlap.cpp: has_internal_overlap is Yes (1) only for a size > 1 dim of stride 0,
    # TooHard (2) for other overlap, which assert_no_internal_overlap lets through.
    bias = torch.zeros(3)
    grid = bias.expand(2, 3)
    assert torch._debug_has_internal_overlap(grid) == 1
    assert torch._debug_has_internal_overlap(torch.zeros(6).unfold(0, 3, 1)) == 2
    for write in (lambda: grid.add_(torch.zeros(2, 3)), lambda: grid.copy_(torch.zeros(2, 3)), lambda: grid.mul_(1)):
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            write()
    z = torch.zeros(6)
    windows = z.unfold(0, 3, 1)  # overlapping memory, strides (1, 1)
    assert 0 not in windows.stride()
    windows.add_(1)  # no error: real overlap is not what the check looks for
    assert z.tolist() == [1.0, 2.0, 3.0, 3.0, 2.0, 1.0]


@fact(
    "02",
    "fill-and-zero-skip-the-check",
    "`fill_` and `zero_`, which write one value everywhere, skip it, and write through to `bias`",
)
def _():
    bias = torch.zeros(3)
    grid = bias.expand(2, 3)
    grid.fill_(1.0)
    assert bias.tolist() == [1.0, 1.0, 1.0]
    grid.zero_()
    assert bias.tolist() == [0.0, 0.0, 0.0]


@fact(
    "02",
    "reshape-copies-silently-view-raises",
    "`reshape` decides at run time, from the strides; `view` always returns a view or raises.",
    rival="reshape copies whenever its input is not contiguous: `m.t()` is not contiguous, yet "
    "`m.t().reshape(2, 2, 3)` is a view (a write through it reaches `m`), because its strides allow one",
)
def _():
    t = torch.arange(6.0).reshape(2, 3)
    flat = t.t().reshape(6)
    assert flat.untyped_storage().data_ptr() != t.untyped_storage().data_ptr()
    flat[0] = 100.0
    assert t[0, 0] == 0.0  # the write did not reach t
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.t().view(6)
    # and the same call is a view when the strides allow it
    assert t.reshape(6).untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
    m = torch.arange(12.0).view(3, 4)
    split = m.t().reshape(2, 2, 3)  # not contiguous, but only a dimension is split
    assert not m.t().is_contiguous() and split.untyped_storage().data_ptr() == m.untyped_storage().data_ptr()
    split[0, 0, 0] = -1.0
    assert m[0, 0] == -1.0


@fact(
    "02",
    "negative-strides-refused-by-every-way-in",
    "`n[::-1]` is a NumPy view that reads its buffer backwards: a negative stride, which a tensor cannot have",
    rival="the ways in refuse any NumPy view that is not contiguous or does not own its buffer: `n[::2]` (a view, "
    "stride 2, not contiguous) goes in, and `from_numpy` and `as_tensor` share it",
)
def _():
    backwards = np.arange(4.0)[::-1]
    for make in (torch.tensor, torch.as_tensor, torch.from_numpy, lambda a: torch.as_tensor(a, dtype=torch.float32)):
        with pytest.raises(ValueError, match="negative"):
            make(backwards)
    assert torch.tensor(backwards.copy()).tolist() == [3.0, 2.0, 1.0, 0.0]
    forwards = np.arange(8.0)[::2]
    assert not forwards.flags.c_contiguous and not forwards.flags.owndata
    assert torch.tensor(forwards).tolist() == [0.0, 2.0, 4.0, 6.0]
    for make in (torch.from_numpy, torch.as_tensor):
        shared = make(forwards)
        assert shared.stride() == (2,) and np.shares_memory(shared.numpy(), forwards)
    # a 2-D array with one negative stride, and an int array, too
    with pytest.raises(ValueError, match="negative"):
        torch.tensor(np.arange(6).reshape(2, 3)[:, ::-1])


@fact(
    "02",
    "numpy-write-bypasses-version-counter",
    "A write through NumPy bypasses PyTorch, so the counter stays put.",
    rival="autograd checks the saved tensor's values (then the NumPy write would raise like the detach write)",
)
def _():
    w = torch.ones(3, requires_grad=True)
    y = (w * w).sum()
    w.detach().numpy()[0] = 5.0
    assert w._version == 0
    y.backward()
    assert w.grad.tolist() == [10.0, 2.0, 2.0]  # silently wrong: the function was evaluated at w = 1
    w2 = torch.ones(3, requires_grad=True)
    y2 = (w2 * w2).sum()
    w2.detach()[0] = 5.0
    assert w2._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y2.backward()
