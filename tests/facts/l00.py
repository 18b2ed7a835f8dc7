"""Facts lesson 00 (start here) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import pytest
import torch

from tests.facts import fact


@fact("00", "python-floats-default-dtype", "a tensor built from Python floats gets the default dtype, float32")
def _():
    assert torch.get_default_dtype() == torch.float32
    assert torch.tensor([[1.0, 2.0], [3.0, 4.0]]).dtype == torch.float32
    torch.set_default_dtype(torch.float64)
    try:
        assert torch.tensor([1.0]).dtype == torch.float64  # "the default": it follows set_default_dtype
    finally:
        torch.set_default_dtype(torch.float32)


@fact("00", "shape-is-a-tuple", "`t.shape` is a `torch.Size`, which is a tuple")
def _():
    t = torch.zeros(2, 3)
    assert isinstance(t.shape, torch.Size) and isinstance(t.shape, tuple) and t.shape == (2, 3)


@fact("00", "sum-dim0-down-columns", "`dim=0` sums down the columns, leaving one number per column")
def _():
    t = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert t.sum(dim=0).tolist() == [5.0, 7.0, 9.0] and t.sum(dim=0).shape == (3,)
    assert t.sum(dim=1).tolist() == [6.0, 15.0]  # the rival reading, "dim=0 sums each row", gives this


@fact("00", "cpu-is-a-no-op", "(`.cpu()` is a no-op when they already are)")
def _():
    x = torch.ones(3)
    assert x.cpu() is x


@fact(
    "00",
    "devices-must-match",
    "The tensors of one operation must live on the same device: PyTorch does not copy a tensor to another "
    "device for you",
)
def _():
    with pytest.raises(RuntimeError, match="expected device meta"):
        torch.ones(2, device="meta") + torch.ones(2)
    with pytest.raises(RuntimeError):
        torch.ones(2) + torch.ones(2, device="meta")
    with pytest.raises(RuntimeError):  # not only elementwise ops
        torch.ones(2, device="meta") @ torch.ones(2)


@fact(
    "00",
    "zero-dim-cpu-tensor-joins-any-device",
    "a 0-dimensional CPU tensor (a single number, such as what `t.sum()` returns on the CPU) may join an "
    "elementwise operation (arithmetic, comparisons) with tensors on any device",
)
def _():
    # TensorIterator's compute_types takes the first non-CPU device as the common one and lets a 0-d CPU
    # input through when the op allows CPU scalars (binary and comparison ops do); CUDA kernels then
    # read its value on the host (iter.scalar_value) and pass it to the kernel as a number.
    on_meta = torch.ones(2, device="meta")
    scalar = torch.ones(3).sum()
    assert scalar.device.type == "cpu" and scalar.dim() == 0
    for result in (on_meta + scalar, scalar * on_meta, on_meta < scalar, torch.where(on_meta > 0, on_meta, scalar)):
        assert result.device.type == "meta"
    assert (on_meta * 3).device.type == "meta"  # a Python number takes the same path


@fact(
    "00",
    "one-element-1d-tensor-refused",
    "A one-element tensor with a dimension, `torch.tensor([3.0])`, is not a 0-d tensor and is refused",
)
def _():
    with pytest.raises(RuntimeError):
        torch.ones(2, device="meta") + torch.tensor([3.0])


@fact(
    "00",
    "current-accelerator-check-available",
    "`torch.accelerator.current_accelerator(check_available=True)` names it, or returns `None` when none can be used",
)
def _():
    built_for = torch.accelerator.current_accelerator()
    usable = torch.accelerator.current_accelerator(check_available=True)
    assert usable == (built_for if torch.accelerator.is_available() else None)


@fact(
    "00",
    "ragged-list-names-dim",
    "A tensor is rectangular: every row needs the same length. PyTorch says which dimension is ragged",
)
def _():
    with pytest.raises(ValueError, match="at dim 1"):
        torch.tensor([[1, 2], [3]])


@fact(
    "00",
    "integer-mean-refused",
    "The error is a `RuntimeError` whose message (`mean(): could not infer output dtype ...`) asks for a "
    "floating point dtype",
)
def _():
    with pytest.raises(RuntimeError, match=r"mean\(\): could not infer output dtype.*floating point"):
        torch.tensor([1, 2, 3]).mean()
    assert torch.tensor([1, 2, 3]).float().mean().item() == 2.0
