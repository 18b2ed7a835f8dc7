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


@fact(
    "04",
    "int-sum-casts-whole-input",
    "On the CPU, `sum` first *casts the whole input* to the result dtype",
    rival="the 8x is the reduction's own int64 output or per-thread accumulators: the largest allocation is made "
    "by aten::to, it is sized by the input (8 bytes a gene) where the output holds 8 bytes a row, and "
    "dtype=torch.int16 shrinks it to 2 bytes a gene",
)
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
    rival="the float64 sum needs wide accumulators, not a copy: the largest allocation is aten::to's, twice the "
    "input's bytes, for a result of 8 bytes",
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
    rival="torch's cumsum is more accurate because it adds in blocks or pairs, as `sum` does, not in a wider "
    "running total: its float32 result equals a float64 running sum rounded at each position, bit for bit",
)
def _():
    x = torch.rand(2_000_000, generator=torch.Generator().manual_seed(1))
    exact = torch.cumsum(x.double(), 0)[-1].item()
    torch_err = abs(torch.cumsum(x, 0)[-1].item() - exact) / exact
    numpy_err = abs(float(np.cumsum(x.numpy())[-1]) - exact) / exact
    assert torch_err < torch.finfo(torch.float32).eps < numpy_err / 10
    assert torch.equal(torch.cumsum(x, 0), torch.cumsum(x.double(), 0).float())  # a double running total


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
    rival="norm avoids the overflow by scaling the vector by its largest element before squaring (as BLAS's nrm2 "
    "does), in float16: on random float16 vectors it equals the float32 norm rounded to float16 every time, "
    "which the scaled float16 formula misses on many of them",
)
def _():
    v = torch.full((4,), 300.0, dtype=torch.float16)
    assert v.norm().item() == 600.0
    assert (v**2).sum().sqrt().isinf().item()
    g = torch.Generator().manual_seed(0)
    scaled_misses = 0
    for _ in range(200):
        w = (torch.randn(int(torch.randint(2, 40, (1,), generator=g)), generator=g) * 300).half()
        assert torch.equal(w.norm(), torch.linalg.vector_norm(w.float()).half())
        top = w.abs().max()
        scaled_misses += not torch.equal(((w / top) ** 2).sum().sqrt() * top, w.norm())
    assert scaled_misses > 20, scaled_misses  # the rival's arithmetic would show


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


# ---- the default dtype, complex numbers, assert_close ---------------------------------------------


class _default:
    """Sets the default dtype for a with block and puts the previous one back."""

    def __init__(self, dtype):
        self.dtype = dtype

    def __enter__(self):
        self.before = torch.get_default_dtype()
        torch.set_default_dtype(self.dtype)

    def __exit__(self, *exc):
        torch.set_default_dtype(self.before)


@fact("04", "default-dtype-is-global", "It is global state: a cell that sets it changes every cell after it")
def _():
    def elsewhere():
        return torch.ones(1).dtype

    with _default(torch.float64):
        assert elsewhere() == torch.float64
    assert elsewhere() == torch.float32


@fact(
    "04",
    "default-dtype-must-be-floating",
    "The default must be a floating-point dtype: `torch.set_default_dtype(torch.int64)` raises a `TypeError`.",
)
def _():
    with pytest.raises(TypeError, match="floating-point"):
        torch.set_default_dtype(torch.int64)
    assert torch.get_default_dtype() == torch.float32


@fact(
    "04",
    "default-leaves-integers-and-numpy",
    "It does not touch integers (`torch.tensor([1, 2])` and `arange(3)` stay int64), nor a NumPy array's own "
    "dtype: `from_numpy` and `as_tensor` keep float32 as float32 here, and float64 as float64 under any default.",
)
def _():
    a32, a64 = np.ones(2, dtype=np.float32), np.ones(2)
    for default in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        with _default(default):
            assert torch.tensor([1, 2]).dtype == torch.arange(3).dtype == torch.int64
            for make in (torch.from_numpy, torch.as_tensor, torch.tensor):
                assert make(a32).dtype == torch.float32 and make(a64).dtype == torch.float64


@fact(
    "04",
    "complex-default-is-partner",
    "the complex default, which is its complex partner (complex64 beside float32, complex128 beside float64)",
)
def _():
    for default, partner in ((torch.float32, torch.complex64), (torch.float64, torch.complex128)):
        with _default(default):
            assert torch.tensor([1j]).dtype == torch.tensor(1 + 0j).dtype == partner
            assert torch.result_type(torch.tensor([1]), 1j) == partner


@fact(
    "04",
    "real-imag-are-views",
    "`.real` and `.imag` give the two parts as real tensors (views that share the complex tensor's memory)",
)
def _():
    for dtype, part in ((torch.complex64, torch.float32), (torch.complex128, torch.float64)):
        z = torch.tensor([3 + 4j, 1 - 1j], dtype=dtype)
        assert z.real.dtype == z.imag.dtype == part and z.real._base is z and z.imag._base is z
        z.imag[0] = 7.0  # writing through the view changes z
        assert z[0].item() == 3 + 7j


@fact(
    "04",
    "complex64-with-float64-is-complex128",
    "a complex64 tensor with a float64 tensor gives **complex128**, a dtype neither operand has.",
)
def _():
    c64, f64 = torch.ones(2, dtype=torch.complex64), torch.ones(2, dtype=torch.float64)
    assert (c64 + f64).dtype == torch.result_type(c64, f64) == torch.complex128
    assert torch.promote_types(torch.complex64, torch.float64) == torch.complex128
    assert (c64 + torch.ones(2)).dtype == torch.complex64


@fact(
    "04",
    "python-complex-partner",
    "a Python complex raises an integer or float tensor to the complex partner of its own precision "
    "(of the default float for integers)",
)
def _():
    assert (torch.ones(2) * 1j).dtype == torch.complex64
    assert (torch.ones(2, dtype=torch.float64) * 1j).dtype == torch.complex128
    assert (torch.ones(2, dtype=torch.int64) * 1j).dtype == torch.complex64
    with _default(torch.float64):
        assert (torch.ones(2, dtype=torch.int64) * 1j).dtype == torch.complex128


@fact(
    "04",
    "eig-is-always-complex",
    "`torch.linalg.eig` and `eigvals` always return a complex dtype, even for a real matrix",
)
def _():
    for dtype, partner in ((torch.float32, torch.complex64), (torch.float64, torch.complex128)):
        sym = torch.tensor([[2.0, 1.0], [1.0, 2.0]], dtype=dtype)  # real eigenvalues 1 and 3
        values, vectors = torch.linalg.eig(sym)
        assert values.dtype == vectors.dtype == torch.linalg.eigvals(sym).dtype == partner
        assert (values.imag == 0).all()


@fact(
    "04",
    "allclose-same-tolerances-every-dtype",
    "`torch.allclose(a, b)` uses the same tolerances for every dtype (`rtol=1e-05`, `atol=1e-08`)",
)
def _():
    one = 1.0
    for dtype in (torch.float64, torch.float32):
        assert torch.allclose(torch.tensor([one + 0.9e-5], dtype=dtype), torch.tensor([one], dtype=dtype))
        assert not torch.allclose(torch.tensor([one + 1.2e-5], dtype=dtype), torch.tensor([one], dtype=dtype))
    step = torch.tensor([1.0078125], dtype=torch.bfloat16)  # the next bfloat16 after 1
    assert not torch.allclose(step, torch.tensor([1.0], dtype=torch.bfloat16))
    assert torch.allclose(torch.tensor([1e-8]), torch.tensor([0.0])) and not torch.allclose(
        torch.tensor([3e-8]), torch.tensor([0.0])
    )


def _passes(actual, expected):
    try:
        torch.testing.assert_close(actual, expected)
    except AssertionError:
        return False
    return True


@fact(
    "04", "assert-close-default-table", "with these defaults (from torch's own table in `torch/testing/_comparison.py`)"
)
def _():
    from torch.testing._comparison import _DTYPE_PRECISIONS

    table = {  # the lesson's table: dtype -> (rtol, atol)
        torch.float16: (1e-3, 1e-5),
        torch.complex32: (1e-3, 1e-5),
        torch.bfloat16: (1.6e-2, 1e-5),
        torch.float32: (1.3e-6, 1e-5),
        torch.complex64: (1.3e-6, 1e-5),
        torch.float64: (1e-7, 1e-7),
        torch.complex128: (1e-7, 1e-7),
    }
    for dtype, (rtol, atol) in table.items():
        assert _DTYPE_PRECISIONS[dtype] == (rtol, atol), dtype
    for dtype, (rtol, atol) in table.items():  # and the rule |a - e| <= atol + rtol |e| holds at 1000 and at 0
        if dtype == torch.complex32:
            continue  # too few operators for complex32 on the CPU
        e = torch.tensor([1000.0, 0.0], dtype=torch.float64)
        inside = e + torch.tensor([0.6 * (atol + rtol * 1000), 0.6 * atol], dtype=torch.float64)
        outside = e + torch.tensor([1.6 * (atol + rtol * 1000), 0.0], dtype=torch.float64)
        if dtype not in (torch.float16, torch.bfloat16):  # these cannot hold the offsets at 1000 exactly
            assert _passes(inside.to(dtype), e.to(dtype)) and not _passes(outside.to(dtype), e.to(dtype)), dtype


@fact("04", "assert-close-checks-dtype", "checks shape, dtype and device too")
def _():
    assert not _passes(torch.ones(2), torch.ones(2, dtype=torch.float64))
    assert not _passes(torch.ones(2), torch.ones(1, 2))
    assert not _passes(torch.ones(2), torch.ones(2, device="meta"))
    assert torch.allclose(torch.ones(2), torch.ones(1, 2))  # allclose broadcasts


@fact(
    "04",
    "rtol-is-a-few-eps",
    "For the 16- and 32-bit floats `rtol` is a few `eps` of the dtype (float32: 11 eps, bfloat16: 2 eps), "
    "room for a few roundings, not for a long computation; float64's 1e-7 is far looser than its `eps` of 2.2e-16.",
)
def _():
    from torch.testing._comparison import _DTYPE_PRECISIONS

    ratios = {dt: _DTYPE_PRECISIONS[dt][0] / torch.finfo(dt).eps for dt in (torch.float32, torch.bfloat16)}
    assert round(ratios[torch.float32]) == 11 and round(ratios[torch.bfloat16]) == 2
    assert 1 <= _DTYPE_PRECISIONS[torch.float16][0] / torch.finfo(torch.float16).eps <= 5
    assert _DTYPE_PRECISIONS[torch.float64][0] / torch.finfo(torch.float64).eps > 1e8  # float64: far looser
    assert f"{torch.finfo(torch.float64).eps:.1e}" == "2.2e-16"


@fact(
    "04",
    "cast-out-of-range-raises-nothing",
    "A float outside the integer type's range, or NaN, raises nothing either",
)
def _():
    for src in (torch.float32, torch.float64, torch.float16):
        wild = torch.tensor([300.0, -1.0, float("nan"), 1e4], dtype=src)
        for dst in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64):
            wild.to(dst)  # no error, whatever values come back
    assert torch.tensor([float("nan"), 300.0]).nan_to_num(0.0).clamp(0, 255).to(torch.uint8).tolist() == [0, 255]


@fact(
    "04",
    "to-returns-self",
    "`.to` returns the input itself when dtype and device already match",
)
def _():
    for dtype in (torch.float32, torch.int8, torch.bool):
        t = torch.zeros(3, dtype=dtype)
        assert t.to(dtype) is t and t.to("cpu") is t and t.to(dtype, copy=True) is not t
    t = torch.zeros(2, 3).t()  # non-contiguous: still the same object
    assert t.to(torch.float32) is t


@fact(
    "04",
    "in-place-refuses-category-only",
    "PyTorch refuses to change the category (float into an integer tensor) in place",
)
def _():
    i8 = torch.tensor([100, 120], dtype=torch.int8)
    with pytest.raises(RuntimeError, match="can't be cast"):
        i8 += 0.5
    with pytest.raises(RuntimeError, match="can't be cast"):
        torch.tensor([True]).add_(1)  # int into bool: a category change too
    i8 += 1000  # same category: wraps without a word
    assert i8.dtype == torch.int8 and i8.tolist() == [(100 + 1000 + 128) % 256 - 128, (120 + 1000 + 128) % 256 - 128]
    i16 = torch.tensor([1], dtype=torch.int16)
    i16 += torch.tensor([70_000])  # a wider integer tensor in place: wraps too
    assert i16.dtype == torch.int16 and i16.item() == (1 + 70_000 + 2**15) % 2**16 - 2**15
