"""Facts lesson 05 (vectorisation and measuring speed) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import inspect

import pytest
import torch
from torch.profiler import ProfilerActivity, profile
from torch.utils.benchmark import Timer

from tests.facts import dispatched_ops, fact


@fact(
    "05",
    "index-is-0d-view",
    "`t[i]` is not a Python float: it is a new tensor, a 0-dimensional view",
    rival="the loop is slow because of Python's bytecode alone, as any loop is: each step of `for i in "
    "range(n): total = total + t[i]` also dispatches two ATen operations (a select that makes the view, an add "
    "on one number), 2n for n elements, where the same loop over a list of floats dispatches none",
)
def _():

    t = torch.arange(5.0)
    e = t[2]
    assert isinstance(e, torch.Tensor) and e.dim() == 0 and e._base is t
    assert e.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()

    def loop(values, n):
        total = 0.0
        for i in range(n):
            total = total + values[i]
        return total

    for n in (4, 40):
        x = torch.rand(n)
        with dispatched_ops() as over_tensor:
            loop(x, n)
        with dispatched_ops() as over_list:
            loop(x.tolist(), n)
        assert over_tensor.ops.count("select") == n and over_tensor.ops.count("add") == n
        assert over_list.ops == []


@fact("05", "timer-one-thread", "**Timer runs on 1 thread unless you say otherwise**")
def _():
    assert Timer("x + 1", globals={"x": torch.ones(2)}).timeit(1).task_spec.num_threads == 1


@fact(
    "05",
    "timer-synchronises-accelerator",
    "Its clock synchronises the GPU for you, through `torch.accelerator.synchronize()`",
    since=(2, 13),
)
def _():
    from torch.utils.benchmark.utils import timer as timer_module

    assert "torch.accelerator.synchronize()" in inspect.getsource(timer_module.timer)


@fact("05", "measurement-repr-has-address", "its text begins with the object's memory address")
def _():
    m = Timer("x + 1", globals={"x": torch.ones(2)}).timeit(1)
    assert repr(m).startswith("<torch.utils.benchmark.utils.common.Measurement object at 0x")


@fact("05", "broadcast-is-stride-0-view", "a size 1 is stretched to the other size (as a stride-0 view, no copy)")
def _():
    row = torch.arange(3.0)
    stretched = row.expand(5, 3)
    assert stretched.stride() == (0, 1) and stretched.data_ptr() == row.data_ptr()
    assert torch.broadcast_shapes((5, 1), (1, 4)) == (5, 4)
    with pytest.raises(RuntimeError):
        torch.broadcast_shapes((5, 3), (5,))


@fact(
    "05",
    "argmax-one-dim-amax-several",
    "`argmax`/`argmin` take one `dim` (they return positions along it); `amax`/`amin` take several. "
    "`max(dim=...)` returns both values and indices.",
)
def _():
    x = torch.arange(24.0).reshape(2, 3, 4)
    assert x.amax(dim=(0, 2)).shape == (3,)
    with pytest.raises(TypeError):
        x.argmax(dim=(0, 2))
    values, indices = x.max(dim=1)
    assert values.shape == indices.shape == (2, 4) and indices.dtype == torch.int64


@fact("05", "keepdim-keeps-size-1", "`keepdim=True` keeps each reduced dimension with size 1")
def _():
    w = torch.ones(3, 2)
    assert w.sum(dim=1, keepdim=True).shape == (3, 1) and w.sum(dim=1).shape == (3,)


@fact("05", "int64-sum-wraps", "past 2**63 − 1 an int64 sum wraps around silently")
def _():
    assert torch.tensor([2**62, 2**62]).sum().item() == -(2**63)


@fact(
    "05",
    "int8-sum-copies-to-int64",
    "on the CPU, before it reduces, `sum` converts the whole *input* to int64: an int8 tensor is copied at "
    "eight times its size",
    rival="the int64 result or the accumulators take the memory: aten::to, the conversion, holds 8 bytes per "
    "input element for a result of one 8-byte number",
)
def _():
    ones8 = torch.ones(1_000_000, dtype=torch.int8)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        ones8.sum()
    to_events = [e for e in prof.key_averages() if e.key == "aten::to"]
    assert to_events and to_events[0].cpu_memory_usage >= 8 * ones8.numel()


@fact(
    "05",
    "column-minus-vector-is-outer",
    "Aligned from the right, `(4, 1)` and `(4,)` are *compatible*: every size pairs with a 1.",
)
def _():
    pred, target = torch.arange(4.0).reshape(4, 1), torch.arange(4.0)
    assert (pred - target).shape == (4, 4)  # silently: no error, no warning
    assert torch.broadcast_shapes((4, 1), (4,)) == (4, 4)
    # the same for every dtype and for an empty batch: (0, 1) against (0,) is (0, 0)
    assert (torch.ones(4, 1, dtype=torch.int8) - torch.ones(4, dtype=torch.int8)).shape == (4, 4)
    assert torch.broadcast_shapes((0, 1), (0,)) == (0, 0)


@fact(
    "05",
    "inplace-cannot-broadcast-output",
    "`col_means -= table` would have to grow `col_means` from `(3,)` to `(5, 3)` in place, so it raises; "
    "the other way round, `table -= col_means`, is fine",
    rival="an in-place operation refuses broadcasting altogether: `table -= col_means` broadcasts `col_means` and "
    "runs; only growing the written tensor is refused",
)
def _():
    col, table = torch.zeros(3), torch.ones(5, 3)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        col -= table
    assert col.eq(0).all()  # refused before anything was written
    table -= col
    assert table.shape == (5, 3)


@fact(
    "05",
    "int-sum-dtype-ignores-values",
    "`sum` of any integer or bool tensor accumulates in int64 unless you pass dtype=",
)
def _():
    for dt in (torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64):
        assert torch.ones(4, 3, dtype=dt).sum().dtype == torch.int64
        assert torch.ones(0, dtype=dt).sum().dtype == torch.int64
    for dt in (torch.uint16, torch.uint32, torch.uint64):  # even uint64: its sum is int64
        assert torch.ones(4, dtype=dt).sum().dtype == torch.int64
