"""Facts lesson 12 (compiling NumPy code) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import math
import re
import sys

import numpy as np
import pytest
import torch
from torch._dynamo.testing import CompileCounter
from torch._inductor.utils import run_and_get_code

from tests.facts import fact


def _eager(fn):
    torch._dynamo.reset()
    return torch.compile(fn, backend="eager")


@fact(
    "12",
    "default-float-read-once",
    "the setting is read **once per process**, the first time compiled code needs a default dtype",
)
def _():
    from torch._numpy import _dtypes_impl

    saved, before = _dtypes_impl._default_dtypes, torch._dynamo.config.numpy_default_float
    try:
        _dtypes_impl._default_dtypes = None  # as in a fresh process
        torch._dynamo.config.numpy_default_float = "float64"
        assert _dtypes_impl.default_dtypes().float_dtype == torch.float64
        torch._dynamo.config.numpy_default_float = "float32"
        assert _dtypes_impl.default_dtypes().float_dtype == torch.float64  # cached: the change is ignored
    finally:
        _dtypes_impl._default_dtypes, torch._dynamo.config.numpy_default_float = saved, before


@fact("12", "scalars-come-back-as-0d-arrays", "Results that NumPy returns as scalars come back as 0-d arrays.")
def _():
    out = _eager(lambda x: x.sum())(np.arange(3.0))
    assert type(out) is np.ndarray and out.shape == () and out.dtype == np.float64
    assert isinstance(np.arange(3.0).sum(), np.floating)


@fact(
    "12",
    "nep50-weak-python-numbers",
    "Adding 100 to an int8 array stays int8 and wraps around past 127; a `np.float64` scalar turns a float32 "
    "array into float64, where a Python float does not",
)
def _():
    wrapped = _eager(lambda a: a + 100)(np.array([100, 1], np.int8))
    assert wrapped.dtype == np.int8 and wrapped.tolist() == [-56, 101]
    assert _eager(lambda a: a + 1.5)(np.ones(2, np.float32)).dtype == np.float32
    assert _eager(lambda a: a + np.float64(1.5))(np.ones(2, np.float32)).dtype == np.float64


@fact(
    "12",
    "out-of-range-python-int-is-an-error",
    "a value that does not fit that dtype at all, such as 1000 for int8, is an error",
)
def _():
    with pytest.raises(OverflowError):
        np.array([1], np.int8) + 1000
    with pytest.raises(Exception, match="1000|out of bounds|overflow"):
        _eager(lambda a: a + 1000)(np.array([1], np.int8))


@fact(
    "12",
    "new-float-dtypes-follow-torch",
    "Dividing integer arrays gives float64 in NumPy and float32 compiled (PyTorch's default float, whatever "
    "`numpy_default_float` says); the square root of int8 values gives NumPy's smallest fitting float, float16, "
    "and float64 compiled.",
)
def _():
    ints = np.arange(3)
    assert (ints / 2).dtype == np.float64 and _eager(lambda a: a / 2)(ints).dtype == np.float32
    assert np.sqrt(ints.astype(np.int8)).dtype == np.float16
    assert _eager(np.sqrt)(ints.astype(np.int8)).dtype == np.float64


@fact(
    "12",
    "wrap-numpy-uncompiled-runs-numpy",
    "Called without `torch.compile`, the wrapper converts CPU tensors to NumPy arrays and back and NumPy runs "
    "the code; a tensor that requires grad or lives on a GPU is refused, as `.numpy()` refuses it.",
)
def _():
    wrapped = torch.compiler.wrap_numpy(lambda a: np.sqrt(a) + 1)
    out = wrapped(torch.tensor([0.0, 4.0]))
    assert isinstance(out, torch.Tensor) and out.tolist() == [1.0, 3.0]
    with pytest.raises(RuntimeError, match="requires grad"):
        wrapped(torch.ones(2, requires_grad=True))


@fact(
    "12",
    "numpy-refuses-requires-grad",
    "Outside `torch.compile`, `.numpy()` really converts, and it refuses a tensor that requires grad",
)
def _():
    t = torch.ones(3)
    assert np.shares_memory(t.numpy(), t.numpy())  # a view of the tensor's memory, not a copy
    with pytest.raises(RuntimeError, match="requires grad"):
        torch.ones(3, requires_grad=True).numpy()


@fact(
    "12",
    "loop-count-compiles-new-graph",
    "The number of iterations is baked into the graph, so a different number compiles a new graph.",
    rival="the graph keeps the loop and only a guard on the Python int `n` (as on any Python argument) sends a "
    "new count elsewhere: the graphs for 2, 4 and 6 iterations hold 2, 4 and 6 sin operations, the loop unrolled",
)
def _():
    def repeat(x, n):
        for _ in range(n):
            x = np.sin(x)
        return x

    torch._dynamo.reset()
    counter = CompileCounter()
    fn = torch.compile(repeat, backend=counter)
    x = np.arange(3.0)
    for n in (2, 4, 2):
        fn(x, n)
    assert counter.frame_count == 2
    ops = []

    def keep(gm, example_inputs):
        ops.append(sum("sin" in str(node.target) for node in gm.graph.nodes if node.op == "call_function"))
        return gm.forward

    torch._dynamo.reset()
    fn = torch.compile(repeat, backend=keep)
    for n in (2, 4, 6, 4):
        fn(x, n)
    torch._dynamo.reset()
    assert ops == [2, 4, 6]  # one graph per count, each with the loop written out


@fact(
    "12",
    "rows-bitcast-lane-by-lane",
    "From rows: two int64 vector loads, a mask and a shift, a narrowing to int32, and the bit cast, for which "
    "inductor (torch 2.13) has no vector form. An operation without one is done one lane at a time",
)
def _():
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    if not pick_vec_isa():
        pytest.skip("inductor generates no vector code on this CPU")
    from torchcourse.bench.workloads import kmeans as km

    torch._dynamo.reset()
    X = torch.rand(64, 2)
    W, c = km.linear_scores(torch.tensor([[0.2, 0.2], [0.8, 0.8]]))
    _, (rows_code, *_) = run_and_get_code(torch.compile(km._rows_kernel), X, W, c, torch.empty(64, dtype=torch.int8))
    _, (cols_code, *_) = run_and_get_code(
        torch.compile(km._columns_kernel), km.to_columns(X), W, c, torch.empty(64, dtype=torch.int8)
    )
    assert re.search(r"tmpbuf_out\[i\] = c10::bit_cast<float>\(tmpbuf0\[i\]\)", rows_code)
    assert "bit_cast" not in cols_code and "tmpbuf" not in cols_code


@fact(
    "12",
    "stride-2-gathered-one-float-at-a-time",
    "`X[:, 0]` is a stride-2 view, and the compiled NumPy loop fills each vector from it one float at a time",
)
def _():
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    if not pick_vec_isa():
        pytest.skip("inductor generates no vector code on this CPU")
    from torchcourse.bench.workloads import kmeans as km

    torch._dynamo.reset()
    X, means = km.make_blobs(64, dtype=np.float32)
    _, (code, *_) = run_and_get_code(torch.compile(km.assign_numpy), X, means)
    assert re.search(r"tmpbuf\[x0_inner\] = in_ptr0\[static_cast<int64_t>\(2L\*x0 \+ 2L\*x0_inner\)\]", code)


@fact(
    "12",
    "fresh-output-faults-above-mmap-threshold",
    "glibc's `malloc` first looks for a free stretch its heap already holds. A block above its *mmap threshold* "
    "(128 KiB at first, rising up to 32 MiB) that does not fit there gets fresh pages from the operating system, "
    "which go back when the block is freed, so each such call pays one page fault per 4 KiB page on first touch.",
    rival="a fresh output costs only allocator bookkeeping, the same at every size: in a fresh process a 40 MiB "
    "output faults in one page per 4 KiB on every call, and the same bytes written into a buffer kept between "
    "calls fault almost none",
)
def _():
    import platform

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("glibc's allocator: Linux with glibc only")
    import resource

    from tests.facts import faults_of_a_large_malloc, page_faults_in_a_fresh_process

    nbytes = 40 * 2**20  # above the 32 MiB the threshold can reach
    pages = nbytes // resource.getpagesize()
    setup = f"import torch\nn = {nbytes}\nkept = torch.empty(n, dtype=torch.int8); kept.fill_(0)"
    fresh = page_faults_in_a_fresh_process(setup, "torch.empty(n, dtype=torch.int8).fill_(1)")
    assert min(fresh) >= pages, fresh  # every page, on every call
    kept = page_faults_in_a_fresh_process(setup, "kept.fill_(1)")
    assert max(kept) < 16, kept  # the same bytes written into a buffer kept between calls
    stretch = faults_of_a_large_malloc(after_a_free_stretch=True)
    assert max(stretch) < 16, stretch  # "first looks for a free stretch": 40 MiB from the heap, no fresh pages


@fact(
    "12",
    "thread-count-change-recompiles",
    "Changing torch's thread count makes each compiled function compile once more (dynamo's guards include the "
    "thread count: the recompile log says `GLOBAL_STATE changed: num_threads`)",
    rival="the second compile comes from the argument or from the first call's warm-up, not from the thread "
    "count: the very same tensor is passed again, the recompile reason names num_threads, and a third call at "
    "the new count compiles nothing",
)
def _():
    torch._dynamo.reset()
    counter = CompileCounter()
    fn = torch.compile(lambda x: x * 2, backend=counter)
    x = torch.ones(4)
    before = torch.get_num_threads()
    other = 1 if before != 1 else 2
    from torchcourse.compiletools import captured_logs

    try:
        fn(x)
        torch.set_num_threads(other)
        with captured_logs(recompiles=True) as logs:
            fn(x)
        fn(x)
    finally:
        torch.set_num_threads(before)
    assert counter.frame_count == 2
    assert "GLOBAL_STATE changed: num_threads" in logs.text


@fact(
    "12",
    "np-random-is-torchs-generator",
    "it fills a tensor from **torch's** random generator, and `np.random.seed(s)` there calls "
    "`torch.manual_seed(s)`. NumPy's own generator is never read.",
    rival="the compiled code reads NumPy's generator, only seeded or consumed differently: NumPy's state is the "
    "same before and after the call, and the numbers are torch.rand's after torch.manual_seed(3)",
)
def _():
    def draw(n):
        np.random.seed(3)
        return np.random.rand(n)

    np.random.seed(99)
    state = np.random.get_state()[1].copy()
    compiled = _eager(draw)(4)
    assert np.array_equal(np.random.get_state()[1], state)  # NumPy's generator: neither seeded nor read
    torch.manual_seed(3)
    assert np.array_equal(compiled, torch.rand(4, dtype=torch.float64).numpy())
    assert not np.allclose(compiled, draw(4))  # NumPy's numbers for the same seed


@fact(
    "12",
    "inductor-random-seeded-from-torch",
    "With the default backend the numbers can differ again: for `np.random.randn` inductor generates its own "
    "random-number code, seeded from torch's generator on every call.",
    rival="inductor calls eager torch's randn, or bakes a seed into the code when it compiles: the code holds its "
    "own randn_cpu, its numbers are not eager torch's, the same torch seed repeats them and another seed, with "
    "no recompile, changes them",
)
def _():
    def jitter(x):
        return x + np.random.randn(*x.shape)

    torch._dynamo.reset()
    compiled = torch.compile(jitter)
    torch.manual_seed(0)
    first, code = run_and_get_code(compiled, np.zeros(3))
    assert re.search(r"\brandn_cpu\(", "\n".join(code))  # generated C++, not a call of aten.randn
    torch.manual_seed(0)
    assert np.array_equal(first, compiled(np.zeros(3)))  # seeded from torch's generator
    torch.manual_seed(0)
    assert not np.allclose(first, torch.randn(3, dtype=torch.float64).numpy())  # not eager torch's numbers
    torch.manual_seed(1)
    assert not np.allclose(first, compiled(np.zeros(3)))  # read from torch's generator at each call
    torch._dynamo.reset()


@fact(
    "12",
    "np-random-traced-functions",
    "Only the functions `torch._numpy.random` implements are traced this way: `seed`, `rand`, `randn`, "
    "`random_sample` (and its names `random` and `sample`), `uniform`, `normal`, `randint`, `choice` and "
    "`shuffle`. Any other `np.random` call, such as `np.random.standard_normal` or a `np.random.default_rng()` "
    "generator, is not traced: it breaks the graph and runs in NumPy, with NumPy's numbers",
)
def _():
    import torch._numpy.random as tnr

    assert set(tnr.__all__) == {
        "seed",
        *("rand", "randn", "random_sample", "random", "sample"),
        *("uniform", "normal", "randint", "choice", "shuffle"),
    }
    assert tnr.random is tnr.random_sample and tnr.sample is tnr.random_sample
    for fn in (
        lambda x: x * 2 + np.random.standard_normal(x.shape),
        lambda x: x * 2 + np.random.default_rng(0).random(x.shape),
    ):
        torch._dynamo.reset()
        torch._dynamo.utils.counters.clear()  # reset() keeps them: an earlier break would satisfy the assert
        counter = CompileCounter()
        np.random.seed(4)
        got = torch.compile(fn, backend=counter)(np.ones(3))
        np.random.seed(4)
        assert np.allclose(got, fn(np.ones(3)))  # NumPy's numbers
        assert counter.frame_count >= 1
        assert torch._dynamo.utils.counters["graph_break"]


@fact(
    "12",
    "use-numpy-random-stream-breaks",
    "`torch._dynamo.config.use_numpy_random_stream = True` asks for NumPy's numbers everywhere: dynamo then "
    "refuses to trace every `np.random` call and breaks the graph there, so NumPy itself draws them.",
    rival="torch traces the call with a NumPy-compatible stream of its own, in one graph: the function splits "
    "into two graphs at the call, and its numbers are NumPy's for the same NumPy seed",
)
def _():
    assert torch._dynamo.config.use_numpy_random_stream is False  # the default

    def noisy(x):
        y = x * 2
        return (y + np.random.rand(3)).sum()

    torch._dynamo.reset()
    counter = CompileCounter()
    with torch._dynamo.config.patch(use_numpy_random_stream=True):
        np.random.seed(0)
        got = torch.compile(noisy, backend=counter)(np.ones(3))
    torch._dynamo.reset()
    np.random.seed(0)
    assert counter.frame_count == 2 and np.isclose(got, noisy(np.ones(3)))


@fact(
    "12",
    "numpy-functions-that-break",
    "Three kinds of code end a graph: a NumPy function it lacks (in torch 2.13 `np.polyval`, `np.isin`, "
    "`np.digitize`, `np.partition` and `np.trapezoid`, among others), a dtype a tensor cannot hold (strings, "
    "Python objects), and a method whose result is not an array (`.tolist()` of floats). Dynamo runs such a "
    "call in plain NumPy and compiles the code before and after it as separate graphs",
)
def _():
    import torch._numpy as tnp

    from torchcourse.compiletools import captured_logs

    names = ("polyval", "isin", "digitize", "partition", "trapezoid")
    assert not any(hasattr(tnp, n) for n in names)
    x = np.linspace(-1.0, 1.0, 5)
    calls = [
        lambda v: np.polyval([1.0, 2.0], v * 2) + 1,
        lambda v: np.isin(v * 2, [0.0]) | True,
        lambda v: np.digitize(v * 2, [0.0]) + 1,
        lambda v: np.partition(v * 2, 2) + 1,
        lambda v: np.trapezoid(v * 2) + 1,
        lambda v: np.array((v * 2).tolist()) + 1,
    ]
    for fn in calls:
        torch._dynamo.reset()
        counter = CompileCounter()
        with captured_logs():
            got = torch.compile(fn, backend=counter)(x)
        assert counter.frame_count == 2 and np.array_equal(got, fn(x))  # before and after the call
    for fn in (lambda v: (v * 2).astype(str), lambda v: np.array([v * 2, "a"], dtype=object)):
        torch._dynamo.reset()
        torch._dynamo.utils.counters.clear()
        with captured_logs():
            torch.compile(fn, backend=CompileCounter())(x)
        assert sum(torch._dynamo.utils.counters["graph_break"].values()) >= 1


_VECTOR_TYPE = re.compile(r"<\d+ x (float|double|i\d+)>")


@fact(
    "12",
    "numba-vectorises-innermost-loop",
    "In the Numba loop as its users write it, the innermost loops run over the coordinates and the means and carry "
    "the best distance from one mean to the next, so the loop over the points is not made into vector code",
    rival="Numba leaves these loops scalar for the data's sake (float32 columns, an int8 store) or never vectorises "
    "such kernels: the same columns and the same int8 output, with the loop over the two means written out, "
    "become vector code",
)
def _():
    pytest.importorskip("numba")
    import numba

    from torchcourse.bench import peers

    X = np.random.default_rng(0).random((2, 512), dtype=np.float32)
    W, c = X[:, :2].copy(), np.zeros(2, np.float32)
    kmeans, fitness2 = numba.njit(peers._kmeans_cols), numba.njit(peers._fitness2_cols)  # one thread: plain loops
    kmeans(X, W, c, np.empty(512, np.int8))
    loop = numba.njit(peers._kmeans_loop)
    loop(np.ascontiguousarray(X.T), W.T.copy())
    fitness2(X[:, :170].astype(np.float64).repeat(3, axis=0)[:3], np.empty(170))
    vector_lines = {
        f: sum(bool(_VECTOR_TYPE.search(line)) for line in "\n".join(f.inspect_llvm().values()).splitlines())
        for f in (kmeans, loop, fitness2)
    }
    assert vector_lines[kmeans] == 0 and vector_lines[loop] == 0 and vector_lines[fitness2] > 0
    unrolled = numba.njit(peers._kmeans_cols2)  # the loop over the means written out: vector code
    unrolled(X, W, c, np.empty(512, np.int8))
    assert any(_VECTOR_TYPE.search(line) for line in "\n".join(unrolled.inspect_llvm().values()).splitlines())


@fact(
    "12",
    "jax-kmeans-writes-distances",
    "computes the distances in one fused loop, without NumPy's `(k, n, d)` array of differences, but at the "
    "benchmark's size it still writes the `(k, n)` distances",
)
def _():
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    f = jax.jit(lambda X, M: jnp.argmin(jnp.linalg.norm(X - M[:, None], axis=2), axis=0))
    n = 10_000_000  # the benchmark's size (compiled from shapes only: nothing this big is made)
    text = f.lower(jax.ShapeDtypeStruct((n, 2), jnp.float32), jax.ShapeDtypeStruct((2, 2), jnp.float32))
    entry = text.compile().as_text().split("ENTRY", 1)[1]
    made = [line for line in entry.splitlines() if "fusion(" in line]
    assert any(f"f32[2,{n}]" in line.split("fusion(")[0] for line in made)  # the (k, n) distances
    assert not any(f"f32[2,{n},2]" in line.split("fusion(")[0] for line in made)  # no (k, n, d) array


@fact(
    "12",
    "compiled-numpy-mutates-inputs-in-place",
    "an in-place operation on an argument changes the caller's array, and a slice it returns is a view of the input",
)
def _():
    def bump(x):
        x += 1
        return x * 2

    for backend in ("eager", "inductor"):
        torch._dynamo.reset()
        a = np.zeros(3)
        torch.compile(bump, backend=backend)(a)
        assert a.tolist() == [1.0, 1.0, 1.0]
        torch._dynamo.reset()
        head = torch.compile(lambda x: x[:2], backend=backend)(a)
        assert np.shares_memory(head, a)


@fact(
    "12",
    "compiled-cumsum-keeps-int8",
    "Compiled NumPy keeps the input's dtype (`torch._numpy` passes `dtype=a.dtype` when you give none), so the "
    "running total wraps past 127 without a word.",
    rival="it is PyTorch's own promotion rule (then torch.cumsum of int8 would stay int8 too; it gives int64)",
    upstream="pytorch/pytorch#198056 (np.cumsum(int8) overflows in int8 under torch.compile); once torch._numpy "
    "widens like NumPy, lesson 12's cumsum cell, its prediction 12.p3 and this sentence change",
)
def _():
    genes = np.ones(300, np.int8)
    out = _eager(lambda a: np.cumsum(a))(genes)
    assert out.dtype == np.int8 and out[-1] == 44  # 300 wraps to 44
    assert np.cumsum(genes).dtype == np.int64  # NumPy widens
    assert torch.cumsum(torch.from_numpy(genes), 0).dtype == torch.int64  # so does torch itself
    assert _eager(lambda a: np.sum(a))(genes).dtype == np.int64  # np.sum widens compiled too
    assert _eager(lambda a: np.sum(a))(np.ones(3, np.uint8)).dtype == np.int64  # NumPy: uint64
    assert np.sum(np.ones(3, np.uint8)).dtype == np.uint64
    assert _eager(lambda a: np.cumprod(a))(np.full(3, 100, np.int8)).dtype == np.int8


def _inner_loop(obj: str) -> list[str]:
    """The mnemonics of the first loop (a backward jump) in the function `kernel` of an object file."""
    import subprocess

    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj], capture_output=True, text=True).stdout
    # With more than one thread, inductor wraps the loop in `#pragma omp parallel`: GCC outlines its
    # body into `kernel._omp_fn.0`, and `kernel` itself holds only the call into the OpenMP runtime.
    label = "<kernel._omp_fn.0>:" if "<kernel._omp_fn.0>:" in text else "<kernel>:"
    body = text[text.index(label) :].split("\n\n")[0].splitlines()[1:]
    insns = [(int(a, 16), op.split()) for a, op in (ln.split(":", 1) for ln in body if re.match(r"\s+[0-9a-f]+:", ln))]
    for i, (addr, op) in enumerate(insns):
        if len(op) > 1 and op[0].startswith("j") and re.fullmatch(r"[0-9a-f]+", op[1]) and int(op[1], 16) < addr:
            start = next(j for j, (a, _) in enumerate(insns) if a == int(op[1], 16))
            return [o[0] for _, o in insns[start : i + 1]]
    return []


def _kmeans_broadcasts(threads: int) -> dict[str, list[str]]:
    """The inner loop of inductor's K-Means kernel compiled at ``threads`` threads, as generated
    ("plain") and with its int8 output pointer declared ``__restrict__`` ("restrict")."""
    import shutil
    import tempfile
    from pathlib import Path

    from torch._inductor.cpp_builder import CppBuilder, CppTorchOptions
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    if shutil.which("objdump") is None or not pick_vec_isa():
        pytest.skip("needs objdump and a vector ISA inductor uses")
    from torchcourse.bench.workloads import kmeans as km

    C = torch.rand(2, 4096)
    means = torch.tensor([[5.0, 5.0], [10.0, 10.0]])
    out = torch.empty(4096, dtype=torch.int8)
    before = torch.get_num_threads()
    torch.set_num_threads(threads)  # inductor emits an OpenMP parallel region only above one thread
    try:
        torch._dynamo.reset()
        _, (code, *_) = run_and_get_code(lambda: km.assign_best(C, means, out))
    finally:
        torch.set_num_threads(before)
        torch._dynamo.reset()
    source = code[code.index("#include <torch/csrc/inductor/cpp_prefix.h>") :].split("''')")[0]
    assert "int8_t* out_ptr" in source
    assert ("#pragma omp parallel" in source) == (threads > 1), "inductor's parallel region is not where expected"
    loops = {}
    with tempfile.TemporaryDirectory() as d:
        for name, text in [
            ("plain", source),
            ("restrict", re.sub(r"int8_t\* (out_ptr\d)", r"int8_t* __restrict__ \1", source)),
        ]:
            (Path(d) / f"{name}.cpp").write_text(text)
            opts = CppTorchOptions(vec_isa=pick_vec_isa(), compile_only=True)
            builder = CppBuilder(name=name, sources=[str(Path(d) / f"{name}.cpp")], BuildOption=opts, output_dir=d)
            builder.build()
            loops[name] = _inner_loop(builder.get_target_file_path())
    assert all(loops.values()), "no loop found in the kernel's machine code"
    return loops


@fact(
    "12",
    "kmeans-loop-reloads-means-because-of-aliasing",
    "They never change inside the loop, but the loop also stores through an `int8_t*`, and GCC (like Clang) assumes "
    "that a store through a character type, `int8_t` included, may change any object, the means included, so the "
    "compiler must assume a store can change them. Declare the output `__restrict__` (it aliases nothing) and the "
    "same C++, compiled at one thread, has the broadcasts moved out of the loop",
    rival="the compiler reloads them for want of registers or by its own choice (then __restrict__ on the output "
    "would leave the broadcasts in the loop)",
)
def _():
    loops = _kmeans_broadcasts(1)
    broadcasts = {k: sum("broadcast" in op for op in v) for k, v in loops.items()}
    assert broadcasts["plain"] >= 4 and broadcasts["restrict"] == 0, broadcasts
    assert len(loops["restrict"]) < len(loops["plain"])


@fact(
    "12",
    "kmeans-restrict-does-not-reach-the-openmp-region",
    "With more than one thread, inductor puts the loop inside an OpenMP parallel region, and there the same "
    "`__restrict__` leaves the broadcasts in the loop (with GCC, which moves the region's body into a function of "
    "its own, `kernel._omp_fn.0`, where the qualifier does not take effect)",
)
def _():
    import subprocess

    cxx = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout
    if "Free Software Foundation" not in cxx:
        pytest.skip("the sentence is about GCC; this C++ compiler is another")
    loops = _kmeans_broadcasts(2)
    broadcasts = {k: sum("broadcast" in op for op in v) for k, v in loops.items()}
    assert broadcasts["plain"] >= 4 and broadcasts["restrict"] >= 4, broadcasts


@fact(
    "12",
    "inductor-no-fma-by-flag",
    "inductor compiles with `-ffp-contract=off`, so `x * w + b` stays a multiply and an add, rounded twice as "
    "eager torch rounds it, on a CPU that has FMA (the same command line passes `-mfma`)",
    rival="the CPU or the vector ISA inductor targets has no FMA (then -mfma would be missing from its flags)",
)
def _():
    from torch._inductor import config
    from torch._inductor.cpp_builder import _get_ffast_math_flags
    from torch._inductor.cpu_vec_isa import pick_vec_isa

    assert config.cpp.enable_floating_point_contract_flag == "off"
    assert "ffp-contract=off" in _get_ffast_math_flags()
    isa = pick_vec_isa()
    if isa and str(isa).startswith(("avx2", "avx512")) and sys.platform != "win32":
        assert "-mfma" in isa.build_arch_flags().split()  # FMA is there for the compiler to use


@fact(
    "12",
    "sum-starts-with-an-add-of-zero",
    "Inductor keeps that add (its code has a vector of `0.0` added to each first product), and the C++ compiler may "
    "not drop it, since `x + 0.0` is not `x` when `x` is `-0.0`",
    rival="inductor folds `0 + t` away and the adds counted are all the score's own (then its code would hold no "
    "add of a 0.0 vector)",
)
def _():
    def score(a, b, w):
        return sum(x * w[i] for i, x in enumerate((a, b)))

    torch.compiler.reset()
    try:
        _, code = run_and_get_code(torch.compile(score), torch.randn(64), torch.randn(64), torch.randn(2))
    finally:
        torch.compiler.reset()
    src = "\n".join(code)
    zero = re.search(r"auto (tmp\d+) = static_cast<float>\(0\.0\);", src)
    assert zero, src[-3000:]
    vec = re.search(rf"auto (tmp\d+) = at::vec::Vectorized<float>\({zero.group(1)}\);", src)
    name = vec.group(1) if vec else zero.group(1)
    assert re.search(rf"= tmp\d+ \+ {name};", src), src[-3000:]
    assert math.copysign(1.0, -0.0 + 0.0) == 1.0  # x + 0.0 turns -0.0 into +0.0: not an identity
