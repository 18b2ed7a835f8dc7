"""Facts lesson 13 (case study: genetic-algorithm fitness) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import torch
from torch._dynamo.utils import counters
from torch._inductor.utils import run_and_get_code
from torch.profiler import ProfilerActivity, profile

from tests.facts import fact


def _allocated(fn) -> int:
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        fn()
    return sum(e.self_cpu_memory_usage for e in prof.key_averages() if e.self_cpu_memory_usage > 0)


def _needs_vector_code():
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    if not pick_vec_isa():
        pytest.skip("inductor generates no vector code on this CPU")


@fact(
    "13",
    "int-sum-accumulates-in-int64",
    "`torch.sum` of integers accumulates in int64, and so does NumPy's `sum`",
)
def _():
    assert torch.ones(3, dtype=torch.int8).sum().dtype == torch.int64
    assert np.ones(3, dtype=np.int8).sum().dtype == np.int64


@fact(
    "13",
    "eager-int32-sum-copies-at-4x",
    "`dtype=torch.int32` halves the copy in eager mode; compiled, the conversion fuses into the reduction and no "
    "copy is made at all.",
)
def _():
    pop = torch.ones(2_000, 500, dtype=torch.int8)
    assert _allocated(lambda: pop.sum(dim=1)) >= 8 * pop.numel()
    assert 4 * pop.numel() <= _allocated(lambda: pop.sum(dim=1, dtype=torch.int32)) < 8 * pop.numel()
    torch._dynamo.reset()
    compiled = torch.compile(lambda p: p.sum(dim=1, dtype=torch.int32))
    compiled(pop)
    assert _allocated(lambda: compiled(pop)) <= 4 * len(pop) + 64  # the result only


@fact(
    "13",
    "compiled-numpy-sum-is-int64",
    "Compiling the NumPy function keeps NumPy's int64; compiled torch was given int32.",
)
def _():
    torch._dynamo.reset()
    out = torch.compile(lambda a: a.sum(axis=1), backend="eager")(np.ones((4, 8), np.int8))
    assert isinstance(out, np.ndarray) and out.dtype == np.int64


@fact(
    "13",
    "int8-to-int64-widening-is-scalar",
    "For AVX2 and AVX-512 it has a conversion from int8 to int32 written with vector instructions (one "
    "instruction widens a vector of genes), and none from int8 to int64: that pair falls back to the library's "
    "generic version, which stores the vector to a buffer on the stack, converts one element at a time, and loads "
    "the result back",
)
def _():
    vec = Path(torch.__file__).parent / "include" / "ATen" / "cpu" / "vec"
    for header in (vec / "vec256" / "vec256_convert.h", vec / "vec512" / "vec512_convert.h"):
        text = re.sub(r"\s+", " ", header.read_text())
        assert "struct VecConvert<int32_t, 1, int8_t, 1>" in text
        assert "VecConvert<int64_t, 2, int8_t, 1>" not in text
        assert not re.search(r"VecConvert< ?int64_t, 2, src_t, 1, typename std::enable_if_t<is_8bit", text)
    generic = re.sub(r"\s+", " ", (vec / "vec_convert.h").read_text())
    assert "src.store(src_buf);" in generic and "dst_buf[i] = static_cast<dst_t>(src_buf[i]);" in generic


@fact(
    "13",
    "int64-sum-kernel-uses-that-conversion",
    "Both loops read a vector of genes at a time (16 with AVX-512). They differ in the line that widens those int8 "
    "genes to the accumulator's type",
)
def _():
    _needs_vector_code()
    pop = torch.ones(64, 1000, dtype=torch.int8)
    torch._dynamo.reset()
    _, (code32, *_) = run_and_get_code(torch.compile(lambda p: p.sum(dim=1, dtype=torch.int32)), pop)
    torch._dynamo.reset()
    _, (code64, *_) = run_and_get_code(torch.compile(lambda p: p.sum(dim=1, dtype=torch.int64)), pop)
    assert "at::vec::convert<int32_t>(tmp0)" in code32
    assert "at::vec::convert<int64_t,2,int8_t,1>(tmp0)" in code64


@fact(
    "13",
    "zero-d-index-graph-breaks",
    "indexing with the 0-d tensor `cost.argmin()` would call `.item()` inside the compiled code, a graph break",
)
def _():
    pop, cost = torch.randn(8, 3), torch.randn(8)
    torch._dynamo.reset()
    counters.clear()
    torch.compile(lambda p, c: p[c.argmin()], backend="eager")(pop, cost)
    assert any("_local_scalar_dense" in reason for reason in counters["graph_break"])
    torch._dynamo.reset()
    keep = torch.compile(lambda p, c: p[c.argmin(dim=0, keepdim=True)], backend="eager", fullgraph=True)
    assert torch.equal(keep(pop, cost)[0], pop[cost.argmin()])


@fact(
    "13",
    "compiled-and-eager-rng-differ",
    "compiled and eager code draw different random streams, so the same seed inside them would give different runs",
)
def _():
    torch._dynamo.reset()
    torch.manual_seed(0)
    eager = torch.rand(8)
    torch.manual_seed(0)
    compiled = torch.compile(lambda: torch.rand(8))()
    assert not torch.equal(eager, compiled)


@fact(
    "13",
    "int8-accumulator-wraps",
    "a sum of 1,000 genes up to 24 needs 15 bits, so int8 silently wraps around",
)
def _():
    genes = torch.full((1, 1000), 24, dtype=torch.int8)
    assert genes.sum(dim=1, dtype=torch.int32).item() == 24_000
    assert genes.sum(dim=1, dtype=torch.int8).item() == (24_000 + 128) % 256 - 128


@fact(
    "13",
    "ampersand-binds-tighter",
    "`&` binds tighter than `>=`, so `x >= 1 & y > 3` means `x >= (1 & y) > 3`, and torch refuses the `&` of a "
    "float tensor",
)
def _():
    y = torch.tensor([4.0])
    with pytest.raises(RuntimeError, match="bitwise_and"):
        1 & y


@fact(
    "13",
    "stride-3-rows-not-vectorised",
    "for these stride-3 loads inductor (torch 2.13) writes a plain loop over the points that calls `std::sin` and "
    "`std::cos` once per point",
)
def _():
    _needs_vector_code()
    from torchcourse.bench.workloads import ga

    points = ga.random_points(1024, ga.BOX3, seed=3)  # (n, 3) rows
    torch._dynamo.reset()
    _, (rows_code, *_) = run_and_get_code(torch.compile(ga.fitness3_torch), points)
    assert "std::sin(" in rows_code and "std::cos(" in rows_code and ".sin()" not in rows_code
    torch._dynamo.reset()
    columns = points.T.contiguous().T  # the same (n, 3) values stored column by column
    _, (columns_code, *_) = run_and_get_code(torch.compile(ga.fitness3_torch), columns)
    assert ".sin()" in columns_code and ".cos()" in columns_code  # what columns would buy: vector loads
