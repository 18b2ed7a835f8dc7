"""Facts lesson 04 (dtypes) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.profiler import ProfilerActivity, profile

from tests.facts import fact


def _largest_allocation(fn):
    """(bytes, op name) of the largest net allocation any op (with its children) holds, as in the lesson."""
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    events = prof.key_averages()
    peak = max(e.cpu_memory_usage for e in events)
    return peak, next(e.key for e in events if e.cpu_memory_usage == peak)


@fact("04", "to-returns-same-tensor", "`.to` returns the *same* tensor when nothing changes")
def _():
    t = torch.tensor([1.0, 2.0])
    assert t.to(torch.float32) is t
    assert t.to(torch.float32, copy=True) is not t


@fact("04", "float-to-int-truncates", "Float to integer casts **truncate toward zero**")
def _():
    assert torch.tensor([-1.7, 1.7, 2.5]).int().tolist() == [-1, 1, 2]


@fact(
    "04",
    "integer-reductions-int64",
    "`sum`, `prod` and `cumsum` of an integer or bool tensor return **int64** so that they (almost) "
    "cannot overflow (`max` and `min` keep the input's dtype)",
)
def _():
    for dt in (torch.int8, torch.uint8, torch.int16, torch.int32, torch.bool):
        t = torch.ones(4, dtype=dt)
        assert t.sum().dtype == t.prod().dtype == t.cumsum(0).dtype == torch.int64
        assert t.max().dtype == t.min().dtype == dt


@fact("04", "int-sum-casts-whole-input", "On the CPU, `sum` first *casts the whole input* to the result dtype")
def _():
    genes = torch.ones(1000, 1000, dtype=torch.int8)
    peak, op = _largest_allocation(lambda: genes.sum(dim=1))
    assert op == "aten::to" and peak >= 8 * genes.numel()
    peak16, _ = _largest_allocation(lambda: genes.sum(dim=1, dtype=torch.int16))
    assert 2 * genes.numel() <= peak16 < 4 * genes.numel()


@fact(
    "04",
    "float64-sum-copies-input",
    "on the CPU it first converts the whole input to a float64 copy, twice the input's bytes, and only then adds",
)
def _():
    x = torch.rand(1_000_000)
    peak, op = _largest_allocation(lambda: x.sum(dtype=torch.float64))
    assert op == "aten::to" and peak >= 2 * x.numel() * 4
    assert x.sum(dtype=torch.float64).dtype == torch.float64


@fact(
    "04",
    "cpu-cumsum-float32-accumulates-wider",
    "PyTorch's CPU `cumsum` accumulates float32 in higher precision, so it would hide the effect",
)
def _():
    x = torch.rand(2_000_000, generator=torch.Generator().manual_seed(1))
    exact = torch.cumsum(x.double(), 0)[-1].item()
    torch_err = abs(torch.cumsum(x, 0)[-1].item() - exact) / exact
    numpy_err = abs(float(np.cumsum(x.numpy())[-1]) - exact) / exact
    assert torch_err < torch.finfo(torch.float32).eps < numpy_err / 10


@fact(
    "04",
    "int-with-python-float-is-default-float",
    "an integer tensor combined with a Python float, or divided with `/`, becomes the *default* float "
    "dtype, float32, not float64",
)
def _():
    i = torch.tensor([1, 2], dtype=torch.int32)
    assert torch.result_type(i, 2.5) == torch.get_default_dtype() == torch.float32
    assert (i / i).dtype == (i + 0.5).dtype == torch.float32


@fact("04", "matmul-does-not-promote", "Elementwise operations promote; `matmul` does not")
def _():
    counts, weights = torch.tensor([[1, 2], [3, 4]]), torch.tensor([[0.5], [0.25]])
    assert (counts * weights.T).dtype == torch.float32
    with pytest.raises(RuntimeError):
        counts @ weights


@fact("04", "creation-checks-range", "creation checks the range, arithmetic does not")
def _():
    with pytest.raises(RuntimeError):
        torch.tensor([300], dtype=torch.uint8)
    assert (torch.tensor([250], dtype=torch.uint8) + 300).item() == 38


@fact(
    "04",
    "float16-norm-accumulates-wider",
    "`norm` of a float16 vector accumulates internally in float32, while the textbook `sqrt(sum(v**2))` "
    "overflows in the squares",
)
def _():
    v = torch.full((4,), 300.0, dtype=torch.float16)
    assert v.norm().item() == 600.0
    assert (v**2).sum().sqrt().isinf().item()


@fact(
    "04",
    "cpu-autocast-keeps-reductions-bf16",
    "a `sum`, `softmax`, `cumsum` or `layer_norm` under CPU autocast stays bfloat16",
)
def _():
    b = torch.randn(4, 4).bfloat16()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        outs = [b.sum(), torch.softmax(b, 0), b.cumsum(0), torch.nn.functional.layer_norm(b, (4,))]
        assert torch.nn.functional.mse_loss(b, b).dtype == torch.float32  # a loss is on the CPU's float32 list
    assert all(o.dtype == torch.bfloat16 for o in outs)


@fact("04", "cuda-switch-has-no-bf16", 'the CUDA switch has no `"bf16"` value: setting one raises an error')
def _():
    with pytest.raises(RuntimeError):
        torch.backends.cuda.matmul.fp32_precision = "bf16"
    assert torch.backends.cuda.matmul.fp32_precision == "none"
