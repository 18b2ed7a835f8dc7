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
    rival="the allocations are the reduction's own result and accumulators, not a copy of the input: eager's "
    "allocation grows with the input's bytes (8 bytes a gene for int64, 4 for int32) while the result holds one "
    "number a row, and compiled, the same int32 sum allocates only that result",
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
    rival="indexing with any tensor breaks the graph: the one-element index `cost.argmin(dim=0, keepdim=True)` "
    "compiles whole with fullgraph=True; only the 0-d one is read as a Python integer (_local_scalar_dense, "
    "what .item() calls)",
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
    rival="compiled code ignores the seed and draws fresh numbers each call (then no seed would make compiled runs "
    "repeat): the same seed gives the same compiled numbers twice, and other numbers than eager's",
)
def _():
    torch._dynamo.reset()
    torch.manual_seed(0)
    eager = torch.rand(8)
    draw = torch.compile(lambda: torch.rand(8))
    torch.manual_seed(0)
    compiled = draw()
    torch.manual_seed(0)
    again = draw()
    torch._dynamo.reset()
    assert not torch.equal(eager, compiled) and torch.equal(compiled, again)


@fact(
    "13",
    "int8-accumulator-wraps",
    "a sum of 1,000 genes up to 24 needs 15 bits, so int8 silently wraps around",
    rival="the int8 result is wrong for another reason than wrapping (such as compiled code's lane bug): eager's "
    "int8 sum of 1,000 genes of 24 is exactly 24,000 reduced modulo 256 into int8's range",
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
    rival="the error comes from the chained comparison asking for the truth of a tensor (as `and` does): Python "
    "parses `1 & y` as one operand of `x >= ... > 3`, the float expression fails on bitwise_and before any "
    "comparison runs, and only with integer tensors, where `&` works, does the chain's truth-value error come",
)
def _():
    import ast

    y = torch.tensor([4.0])
    with pytest.raises(RuntimeError, match="bitwise_and"):
        1 & y
    tree = ast.parse("x >= 1 & y > 3", mode="eval").body
    assert isinstance(tree, ast.Compare) and [type(op) for op in tree.ops] == [ast.GtE, ast.Gt]
    assert isinstance(tree.comparators[0], ast.BinOp) and isinstance(tree.comparators[0].op, ast.BitAnd)
    x, y = torch.tensor([0.5, 2.0, 1.5]), torch.tensor([4.0, 5.0, 1.0])
    with pytest.raises(RuntimeError, match="bitwise_and"):
        x >= 1 & y > 3  # noqa: B015
    xi, yi = x.long(), y.long()
    with pytest.raises(RuntimeError, match="Boolean value of Tensor"):
        xi >= 1 & yi > 3  # noqa: B015
    assert ((x >= 1) & (y > 3)).tolist() == [False, True, False]


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


@fact(
    "13",
    "columns-rewrite-vector-sin",
    "On columns, the loop inductor generates for function 3 calls `sin` and `cos` on whole vectors of points",
)
def _():
    _needs_vector_code()
    from torchcourse.bench.workloads import ga

    C = ga.to_columns(ga.random_points(1024, ga.BOX3, seed=3))
    torch._dynamo.reset()
    _, (code, *_) = run_and_get_code(torch.compile(ga._fitness3_columns), C, torch.empty(1024, dtype=torch.float64))
    assert ".sin()" in code and ".cos()" in code and "std::sin(" not in code


@fact(
    "13",
    "word-sum-never-carries",
    "a gene is at most 24, so a lane holds at most 125 x 2 x 24 = 6,000 over a chromosome and never carries into "
    "the next",
    rival="lanes do carry and the carries happen to cancel in the final sum: at the largest genes each of the four "
    "16-bit lanes holds exactly 6,000 on its own",
)
def _():
    from torchcourse.bench.workloads import ga

    pop = torch.full((2, ga.GENES), ga.GENE_HIGH, dtype=torch.int8)
    assert ga.GENES // 8 * 2 * ga.GENE_HIGH == 6_000 < 2**16
    w = pop.view(torch.int64)
    lanes = ((w & ga._LANES) + ((w >> 8) & ga._LANES)).sum(dim=1)
    assert [(int(lanes[0]) >> s) & 0xFFFF for s in (0, 16, 32, 48)] == [6_000] * 4
    assert ga.sum_best(pop).tolist() == [24_000, 24_000]


@fact(
    "13",
    "jax-arrays-immutable",
    "a jitted JAX function returns a new array every call: JAX arrays are immutable, and only an input "
    "*donated* to the function (`jax.jit(f, donate_argnums=...)`, which the benchmark does not do) lets XLA "
    "write the result into that input's buffer",
)
def _():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    x = jnp.zeros(3)
    with pytest.raises(TypeError):
        x[0] = 1.0
    f = jax.jit(lambda a: a + 1)
    assert f(x) is not f(x)
    plain = jnp.zeros(1000)
    assert f(plain).unsafe_buffer_pointer() != plain.unsafe_buffer_pointer()
    donated = jnp.zeros(1000)
    where = donated.unsafe_buffer_pointer()
    g = jax.jit(lambda out, a: out.at[:].set(a + 1), donate_argnums=0)
    assert g(donated, plain).unsafe_buffer_pointer() == where


@fact(
    "13",
    "every-tool-compiles-at-first-call",
    "Every one of these tools compiles at the first call",
)
def _():
    from torch._dynamo.testing import CompileCounter

    counter = CompileCounter()
    torch._dynamo.reset()
    f = torch.compile(lambda a: a + 1, backend=counter)
    assert counter.frame_count == 0
    f(torch.ones(3))
    assert counter.frame_count == 1
    numba = pytest.importorskip("numba")
    g = numba.njit(lambda a: a + 1)
    assert g.signatures == []
    g(np.ones(3))
    g(np.zeros(5))  # same types, another shape: no new compile
    assert len(g.signatures) == 1
    g(np.ones(3, np.float32))
    assert len(g.signatures) == 2
    jax = pytest.importorskip("jax")
    traced = []
    h = jax.jit(lambda a: traced.append(1) or a + 1)
    assert traced == []
    h(np.ones(3))
    h(np.ones(3))
    assert traced == [1]


@fact(
    "13",
    "ampersand-of-masks-casts",
    "turns each `&` of two float64 comparisons into mask casts, while a select of one comparison stays a vector blend",
)
def _():
    _needs_vector_code()
    from torchcourse.preflight import version_tuple

    if version_tuple(torch.__version__)[:2] != (2, 13):
        pytest.skip("the sentence names torch 2.13's code generation")
    from torchcourse.bench.workloads import ga

    C = ga.to_columns(ga.random_points(1024, ga.BOX2, seed=2))
    out = torch.empty(1024, dtype=torch.float64)

    def anded(C, out):
        x, y, z = C[0], C[1], C[2]
        out.copy_(torch.where(ga.feasible2(x, y, z), ga.f2(x, y, z), torch.inf))

    codes = {}
    for name, kernel in (("and", anded), ("each", ga._fitness2_columns)):
        torch._dynamo.reset()
        _, (codes[name], *_) = run_and_get_code(torch.compile(kernel), C, out)
    assert codes["and"].count(".template cast<int32_t") >= 2 * 5  # two casts for each of the five `&`
    assert ".template cast<int32_t" not in codes["each"] and codes["each"].count("blendv(") >= 6


@fact(
    "13",
    "wrap-numpy-passes-gradients",
    "a function wrapped with `torch.compiler.wrap_numpy` and compiled passes gradients through its NumPy code",
)
def _():
    f = torch.compile(torch.compiler.wrap_numpy(lambda x: np.sum(x**2)), fullgraph=True)
    x = torch.randn(3, dtype=torch.float64, requires_grad=True)
    f(x).backward()
    assert torch.allclose(x.grad, 2 * x)


@fact(
    "13",
    "jax-as-text",
    "the program XLA made (`jax.jit(f).lower(x).compile().as_text()` prints it)",
)
def _():
    jax = pytest.importorskip("jax")
    text = jax.jit(lambda a: (a * 2).sum()).lower(np.ones(8, np.float32)).compile().as_text()
    assert "HloModule" in text and "ENTRY" in text


@fact(
    "13",
    "numba-sum-loop-vectorised",
    "The gene sums became vector code",
)
def _():
    pytest.importorskip("numba")
    import numba

    from torchcourse.bench import peers

    f = numba.njit(peers._sum_loop)  # one thread: the plain loop
    f(np.ones((4, 64), np.int8))
    ir = "\n".join(f.inspect_llvm().values())
    assert re.search(r"<\d+ x i8>", ir) and re.search(r"<\d+ x i64>", ir)  # bytes loaded and widened as vectors
    words = numba.njit(peers._sum_words)
    words(np.ones((4, 64), np.int8), np.empty(4, np.int32))
    assert re.search(r"<\d+ x i64>", "\n".join(words.inspect_llvm().values()))


@fact(
    "13",
    "jax-int8-sum-converts-to-int64",
    "it first converts the whole array to int64",
    rival="XLA widens each gene inside the reduction loop, as inductor does, and the sum is slow for another "
    "reason: in the compiled program's entry, a separate fusion reads the int8 parameter and writes a whole "
    "s64[N, 1000] array, which the reduction then reads",
)
def _():
    jax = pytest.importorskip("jax")
    x64 = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)  # as the benchmark runs it (peers.configure)
    try:
        text = jax.jit(lambda p: p.sum(axis=1)).lower(np.ones((4, 1000), np.int8)).compile().as_text()
    finally:
        jax.config.update("jax_enable_x64", x64)  # the float32-default fact runs in this process too
    assert re.search(r"s64\[4,1000\]", text) and "convert" in text  # the whole (N, 1000) array, as int64
    entry = text.split("ENTRY", 1)[1].splitlines()
    param = next(line.split("=")[0].strip() for line in entry if "s8[4,1000]" in line and "parameter(0)" in line)
    made = [line for line in entry if " fusion(" in line and line.split("=", 1)[1].strip().startswith("s64[4,1000]")]
    assert len(made) == 1 and f"fusion({param})" in made[0]  # written to memory as its own pass
    array = made[0].split("=")[0].strip()
    assert any(f"fusion({array}" in line for line in entry if line is not made[0])  # and read back by the sum


def _in_fresh_python(script: str, cache: str) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    subprocess.run([sys.executable, "-c", script], env=env, check=True, capture_output=True, cwd=cache)


@fact(
    "13",
    "numba-cache-per-types",
    "Numba's `cache=True` writes the machine code of a function to disk, one file for each combination of argument "
    "types it was called with",
)
def _():
    pytest.importorskip("numba")
    import tempfile

    script = (
        "import numpy as np, numba\n"
        "src = 'import numba\\n@numba.njit(cache=True)\\ndef twice(a):\\n    return a * 2\\n'\n"
        "open('kernel.py', 'w').write(src)\n"
        "import sys; sys.path.insert(0, '.')\n"
        "from kernel import twice\n"
        "twice(np.ones(3)); twice(np.ones(3, np.float32)); twice(np.ones(5))\n"
    )
    with tempfile.TemporaryDirectory() as cache:
        _in_fresh_python(script, cache)
        files = [p.suffix for p in Path(cache).rglob("*") if p.suffix in (".nbi", ".nbc")]
        assert files.count(".nbc") == 2 and files.count(".nbi") == 1


@fact(
    "13",
    "jax-persistent-cache-writes",
    "JAX's persistent cache writes XLA's compiled program to disk",
)
def _():
    pytest.importorskip("jax")
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        script = (
            "import jax, numpy as np\n"
            f"jax.config.update('jax_compilation_cache_dir', {cache + '/jax'!r})\n"
            "jax.config.update('jax_persistent_cache_min_compile_time_secs', 0.0)\n"
            "jax.config.update('jax_persistent_cache_min_entry_size_bytes', 0)\n"
            "jax.jit(lambda a: a * 2)(np.ones(3)).block_until_ready()\n"
        )
        _in_fresh_python(script, cache)
        assert any(p.is_file() for p in (Path(cache) / "jax").rglob("*"))


@fact(
    "13",
    "jax-float32-default",
    "JAX computes in float32 unless `jax_enable_x64` is set",
)
def _():
    jax = pytest.importorskip("jax")
    if jax.config.jax_enable_x64:
        pytest.skip("jax_enable_x64 is already set in this process")
    assert jax.numpy.ones(3).dtype == jax.numpy.float32
    assert jax.numpy.asarray(np.ones(3)).dtype == jax.numpy.float32  # even from a float64 NumPy array


def _avx2_int8_sums(rows: list[torch.Tensor]) -> list[int]:
    """Each row's int8 sum, compiled with inductor's AVX2 code: simdlen 256 makes inductor write it on any x86
    CPU with AVX2, an AVX-512 one too (whose own 512-bit code summed these right on an Intel Xeon, where the
    fact below once failed without it). Skips where inductor cannot write AVX2 code."""
    import platform

    from torch._inductor import config
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    if platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("AVX2 is x86 code")
    with config.patch({"cpp.simdlen": 256}):
        if str(pick_vec_isa()) != "avx2":
            pytest.skip("inductor cannot write AVX2 code on this CPU")
        torch._dynamo.reset()
        try:
            f = torch.compile(lambda p: p.sum(dim=1, dtype=torch.int8), dynamic=True)
            return [f(row).item() for row in rows]
        finally:
            torch._dynamo.reset()


@fact(
    "13",
    "compiled-int8-avx2-tail-ones",
    "n ones come out as n + 24·⌊n/8⌋, wrapped (15 ones as 39)",
    rival="the loop reads past the row or adds other garbage (then the totals would not follow 24 extra ones per "
    "step of 8 for every n, and would change with what lies after the row)",
    upstream="the same bug as compiled-int8-accumulator-wrong: once fixed, this formula and lesson 13's sentence go",
)
def _():
    sizes, rows = (8, 15, 16, 17, 31, 33, 100, 257), []
    for n in sizes:
        padded = torch.full((1, n + 64), 99, dtype=torch.int8)  # what lies after the row: 99s, not 1s
        padded[:, :n] = 1
        rows.append(padded[:, :n])
    wrap = lambda v: (v + 128) % 256 - 128  # noqa: E731
    expected = [wrap(n + 24 * (n // 8)) for n in sizes]
    assert _avx2_int8_sums(rows) == expected, (sizes, expected)


@fact(
    "13",
    "compiled-int8-accumulator-wrong",
    "In torch 2.13 the int8 sum inductor writes with AVX2 instructions mixes unused vector lanes into the total, so "
    "the result is not even the wrapped sum, and it can be wrong for sums that fit in int8",
    rival="the compiled sum only wraps as eager does, in another order (then it would equal eager: a wrapped "
    "sum is exact modulo 256 in any order)",
    upstream="not found tracked for sum; the same family as pytorch/pytorch#191499 (int8/uint8 min/max vectorised "
    "reductions polluted by inactive lanes, fix proposed in #191543). Once fixed, lesson 13's int8-accumulator "
    "cell and this sentence change",
)
def _():
    sizes = (15, 16, 17, 31, 33, 100)
    sums = _avx2_int8_sums([torch.ones(1, n, dtype=torch.int8) for n in sizes])
    wrong = [n for n, got in zip(sizes, sums) if got != n]
    assert wrong, "every compiled int8 sum of ones equalled eager's"
