"""Facts lesson 16 (advanced indexing) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.profiler import ProfilerActivity, profile
from torch.utils._python_dispatch import TorchDispatchMode

from tests.facts import fact


class _AtenOps(TorchDispatchMode):
    """The aten ops a block of Python dispatches, in order (only the top-level ones)."""

    def __init__(self) -> None:
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(func.overloadpacket.__name__)  # "index_put_", without the overload
        return func(*args, **(kwargs or {}))


def _shares(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


@fact(
    "16",
    "zero-dim-index-is-a-view",
    "So `x[torch.tensor(2)]` is a **view**, and an in-place method on it writes into `x`. NumPy draws the line "
    "elsewhere: `a[np.array(2)]` is advanced indexing there, and a copy.",
    rival="it is a view because it picks a single row: `x[torch.tensor([2])]`, the same row through a "
    "one-element index, is a copy made by aten index; the 0-d index is read as an integer and calls select",
)
def _():
    x = torch.arange(12).reshape(3, 4).clone()  # a tensor of its own, so ._base names it
    for dtype in (torch.int64, torch.int32):
        row = x[torch.tensor(2, dtype=dtype)]
        assert row._base is x and row.shape == (4,)
    x[torch.tensor(2)].mul_(10)
    assert x[2].tolist() == [80, 90, 100, 110]
    with _AtenOps() as seen:
        x[torch.tensor(1)]
    assert "select" in seen.ops and "index" not in seen.ops
    with _AtenOps() as seen:
        one = x[torch.tensor([1])]
    assert "index" in seen.ops and "select" not in seen.ops and not _shares(one, x)
    a = np.arange(12).reshape(3, 4)
    assert not np.shares_memory(a[np.array(2)], a)


@fact(
    "16",
    "zero-dim-bool-and-uint8-index-as-masks",
    "(int64 or int32, say; not bool or uint8, which index as masks)",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    for index in (torch.tensor(True), torch.tensor(1, dtype=torch.uint8)):
        picked = x[index]
        assert picked.shape == (1, 3, 4) and not _shares(picked, x)


@fact(
    "16",
    "tensor-index-copies-whatever-its-size",
    "Even `x[torch.tensor([2])]`, a single row picked by a one-element index tensor, is a copy",
    rival="how many numbers an index picks decides (one row: a view): the one-element index tensor copies, "
    "and the integer `x[1]`, the same one row, is a view",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    for picked in (x[torch.tensor([2])], x[[0, 2]], x[:, [1, 3]], x[x > 5], x.index_select(1, torch.tensor([3, 0]))):
        assert not _shares(picked, x)
    for view in (x[1], x[:, 2], x[::2, 1:], x[..., None]):
        assert _shares(view, x)


@fact(
    "16",
    "integer-beside-index-tensor-differs-from-numpy",
    "an integer beside an index tensor is applied first, as a `select`",
)
def _():
    a = np.arange(120).reshape(2, 3, 4, 5)
    t = torch.from_numpy(a)
    assert t[:, 1, :, [0, 2]].shape == (2, 4, 2) and a[:, 1, :, [0, 2]].shape == (2, 2, 4)
    assert torch.equal(t[:, 1, :, [0, 2]], t.select(1, 1)[:, :, [0, 2]])


@fact(
    "16",
    "mask-assignment-is-index-put-then-masked-fill",
    "torch 2.13 calls `index_put_`, which, for a boolean mask and one value, hands the work to `masked_fill_`; "
    "torch 2.15 calls `masked_fill_` directly",
)
def _():
    from torchcourse.preflight import version_tuple

    x = torch.tensor([[3.0, -1.0], [-2.0, 5.0]])
    with _AtenOps() as seen:
        x[x < 0] = 0.0
    direct = version_tuple(torch.__version__) >= (2, 15)
    assert seen.ops[-1] == ("masked_fill_" if direct else "index_put_") and x.tolist() == [[3.0, 0.0], [0.0, 5.0]]
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        x[x > 4] = 1.0
    names = [e.name for e in prof.events()]
    assert "aten::masked_fill_" in names and ("aten::index_put_" in names) != direct


@fact(
    "16",
    "mask-index-builds-int64-positions",
    "it first turns the mask into int64 positions with `nonzero`, 8 bytes for each `True`, then gathers with those",
    rival="x[mask] reads the mask directly, 1 byte an element, as it gathers: the profiler finds aten::nonzero "
    "inside aten::index, allocating exactly 8 bytes for each True",
)
def _():
    x = torch.rand(10_000)
    mask = torch.arange(10_000) % 4 == 0
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        x[mask]
    events = prof.events()
    assert any(e.name == "aten::nonzero" and e.cpu_parent and e.cpu_parent.name == "aten::index" for e in events)
    allocated = sum(e.self_cpu_memory_usage for e in prof.key_averages() if e.key == "aten::nonzero")
    assert allocated == 8 * int(mask.sum())


@fact(
    "16",
    "nonzero-synchronises-on-cuda",
    "the documentation of `torch.nonzero` warns that it synchronises host and device",
)
def _():
    assert "causes\n    host-device synchronization" in torch.nonzero.__doc__


@fact(
    "16",
    "where-one-argument-is-nonzero-tuple",
    "With one argument, `torch.where(cond)` is `cond.nonzero(as_tuple=True)`",
)
def _():
    cond = torch.tensor([[True, False, True], [False, False, True]])
    ours, theirs = torch.where(cond), cond.nonzero(as_tuple=True)
    assert len(ours) == len(theirs) == 2 and all(torch.equal(a, b) for a, b in zip(ours, theirs))
    assert cond.nonzero().shape == (3, 2)


@fact(
    "16",
    "plus-equal-counts-a-repeat-once",
    "A position that appears three times is written three times with the same value, so it counts **once**.",
    rival="the write keeps each position once (the index is deduplicated): index_put_ receives all five "
    "positions and five values, the three for position 1 all equal to 1",
)
def _():
    idx = torch.tensor([1, 3, 1, 0, 1])
    counts = torch.zeros(4, dtype=torch.int64)
    counts[idx] += 1
    assert counts.tolist() == [1, 1, 0, 1]
    writes = []

    class Writes(torch.utils._python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if func.overloadpacket.__name__ == "index_put_":
                writes.append((args[1][0].tolist(), args[2].tolist()))
            return func(*args, **(kwargs or {}))

    with Writes():
        torch.zeros(4, dtype=torch.int64)[idx] += 1
    assert writes == [([1, 3, 1, 0, 1], [1, 1, 1, 1, 1])]  # three writes of 1 to position 1
    ones = torch.ones_like(idx)
    assert torch.zeros(4, dtype=torch.int64).index_add_(0, idx, ones).tolist() == [1, 3, 0, 1]
    assert torch.zeros(4, dtype=torch.int64).index_put_((idx,), ones, accumulate=True).tolist() == [1, 3, 0, 1]
    assert torch.zeros(4, dtype=torch.int64).scatter_add_(0, idx, ones).tolist() == [1, 3, 0, 1]


@fact(
    "16",
    "gather-needs-same-ndim",
    "`index` needs as many dimensions as `src`",
)
def _():
    scores = torch.rand(4, 3)
    label = torch.tensor([1, 0, 2, 2])
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        scores.gather(1, label)
    assert scores.gather(1, label[:, None]).shape == (4, 1)


@fact(
    "16",
    "index-out-of-range-raises-slice-stops",
    "a slice silently stops at the end; an index tensor does not",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    assert x[1:10].shape == (2, 4)
    with pytest.raises(IndexError, match="out of bounds"):
        x[[0, 3]]


@fact(
    "16",
    "float-index-refused",
    "Index tensors must be integer or boolean.",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    with pytest.raises(IndexError, match="must be long, int, byte or bool"):
        x[torch.tensor([0.0, 2.0])]


@fact(
    "16",
    "tuple-subscript-is-basic",
    "`x[0, 2]` passes the tuple `(0, 2)`, so `x[(0, 2)]` is the same subscript, while `x[[0, 2]]` passes a list.",
    rival="torch reads a tuple in brackets as an index array, like a list: `x[(0, 2)]` is the 0-d view of entry "
    "(0, 2), the same as `x[0, 2]`, and only the list copies two rows",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    t, lst = x[(0, 2)], x[[0, 2]]
    assert t.shape == () and t.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    assert lst.shape == (2, 4) and lst.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    t.fill_(-5)
    assert x[0, 2] == -5


@fact(
    "16",
    "augmented-assign-is-get-add-set",
    "Python runs counts[idx] += 1 in three steps: read counts[idx] (a gather: a copy of the old values, all 0)",
    rival="`+=` on an advanced index is one in-place add visiting every occurrence, as index_add_ does "
    "(then counts[1] would be 3, and the ops would not be a gather, an add_ on its copy and an index_put_)",
)
def _():
    c = torch.zeros(4)
    with _AtenOps() as seen:
        c[torch.tensor([1, 3, 1, 0, 1])] += 1
    relevant = [op for op in seen.ops if op in ("index", "add", "index_put_", "add_", "index_add_", "index_put")]
    assert relevant == ["index", "add_", "index_put_"], seen.ops
    prev = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        for dt in (torch.int64, torch.float32):
            c = torch.zeros(4, dtype=dt)
            c[torch.tensor([1, 3, 1, 0, 1])] += 1
            assert c.tolist() == [1, 1, 0, 1]
    finally:
        torch.set_num_threads(prev)


@fact(
    "16",
    "index-put-duplicates-undefined",
    "the documentation of `index_put_` calls the result undefined when `accumulate=False`",
)
def _():
    doc = " ".join(torch.Tensor.index_put_.__doc__.split())
    assert "If accumulate is ``False``, the behavior is undefined if indices contain duplicate elements" in doc


@fact(
    "16",
    "accumulate-nondeterministic-on-gpu",
    "`torch.use_deterministic_algorithms(True)` makes them repeatable, at some speed.",
)
def _():
    doc = torch.use_deterministic_algorithms.__doc__
    for op in ("index_add", "scatter_add_", "index_put"):
        assert op in doc
    assert "accumulate=True" in doc


@fact(
    "16",
    "negative-index-only-in-subscript",
    "only the subscript x[...] wraps negative positions",
)
def _():
    x = torch.arange(12).reshape(3, 4)
    assert x[[-1]].tolist() == [[8, 9, 10, 11]] and x[torch.tensor([-1])].shape == (1, 4)
    with pytest.raises(IndexError):
        x.index_select(0, torch.tensor([-1]))
    with pytest.raises(RuntimeError, match="out of bounds"):
        x.gather(1, torch.full((3, 1), -1))
    with pytest.raises(RuntimeError, match="out of bounds"):
        torch.zeros(3).scatter_(0, torch.tensor([-1]), 1.0)
    with pytest.raises(IndexError):
        torch.zeros(3).index_add_(0, torch.tensor([-1]), torch.ones(1))


@fact(
    "16",
    "where-unused-branch-nan-reaches-grad",
    "under autograd, a NaN or inf from the unused branch still reaches the gradient",
)
def _():
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    (g,) = torch.autograd.grad(torch.where(x > 0, x.log(), 0.0).sum(), x)
    assert g[0].isnan() and g[1] == 1.0


@fact(
    "16",
    "nonzero-static-pads-or-cuts",
    "it returns exactly `k` rows, padded with -1, or cut short without a word when there are more",
)
def _():
    import warnings

    mask = torch.tensor([True, False, True, True])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        short = torch.nonzero_static(mask, size=2)
    assert short.tolist() == [[0], [2]]  # the third True is dropped silently
    assert torch.nonzero_static(mask, size=5).tolist() == [[0], [2], [3], [-1], [-1]]
    assert torch.nonzero_static(torch.zeros(2, 3, dtype=torch.bool), size=2).tolist() == [[-1, -1], [-1, -1]]
