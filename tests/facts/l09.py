"""Facts lesson 09 (torch.compile: fusion and overhead) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import pytest
import torch
import torch._inductor
import torch._inductor.config
from torch._dynamo.testing import CompileCounter
from torch._dynamo.utils import counters

from tests.facts import fact
from torchcourse.bench.workloads import montecarlo as mc
from torchcourse.compiletools import captured_logs


def _output_code(fn, *args) -> str:
    """The output_code log of a fresh inductor compile of fn(*args)."""
    torch.compiler.reset()
    with captured_logs(output_code=True) as logs:
        fn_c = torch.compile(fn)
        fn_c(*args)
    torch.compiler.reset()
    return logs.text


@fact(
    "09",
    "dynamo-graph-is-python-level",
    "Dynamo first captures the function as an FX graph of the Python-level operations it ran",
)
def _():
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch.compiler.reset()
    torch.compile(mc.pi_from_samples, backend=backend)(*mc.samples(100))
    torch.compiler.reset()
    targets = [n.target for n in graphs[0].graph.nodes if "call" in n.op]
    assert "float" in targets and "mean" in targets  # Tensor methods, as the Python code called them
    assert not any(isinstance(t, torch._ops.OpOverload) for t in targets)  # no aten.* operations yet


@fact(
    "09",
    "seven-operations",
    "Eager runs one kernel per operation (seven, counted below)",
    rival="the compiled code is faster because its C++ arithmetic beats eager's kernels: eager dispatches seven "
    "ATen kernels and five of them write a new tensor of n elements, where inductor's code for the same function "
    "is one kernel that allocates only the one-number result, so the two differ in passes over memory",
)
def _():
    import re

    from torch._inductor.utils import run_and_get_code
    from torch.utils._python_dispatch import TorchDispatchMode

    torch.compiler.reset()
    counter = CompileCounter()
    torch.compile(mc.pi_from_samples, backend=counter)(*mc.samples(100))
    torch.compiler.reset()
    assert counter.frame_count == 1 and counter.op_count == 7

    class Kernels(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.outputs = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            out = func(*args, **(kwargs or {}))
            self.outputs.append(out.numel())
            return out

    x, y = mc.samples(1000)
    with Kernels() as eager:
        mc.pi_from_samples(x, y)
    assert len(eager.outputs) == 7 and eager.outputs.count(1000) == 5  # five n-element intermediates
    torch.compiler.reset()
    _, (code,) = run_and_get_code(torch.compile(mc.pi_from_samples), x, y)
    torch.compiler.reset()
    call = code[code.index("def call(") :]
    assert len(re.findall(r"^\s*cpp_fused_\w+\(", call, re.M)) == 1  # one kernel
    assert re.findall(r"empty_strided_cpu\(([^)]*\))", call) == ["()"]  # one allocation: the 0-d result


@fact(
    "09",
    "torch-logs-beats-set-logs",
    "starting Python with `TORCH_LOGS=output_code` does the same, and then takes precedence over `set_logs`",
)
def _():
    dynamo_logger = logging.getLogger("torch._dynamo")
    before = dynamo_logger.level
    os.environ["TORCH_LOGS"] = ""
    try:
        torch._logging.set_logs(dynamo=logging.DEBUG)  # ignored: the variable is set
        assert dynamo_logger.level == before
    finally:
        del os.environ["TORCH_LOGS"]
        torch._logging.set_logs()


@fact("09", "vector-width", "16 floats per step with AVX-512, 8 with AVX2, 4 with Arm's NEON")
def _():
    from torch._inductor import cpu_vec_isa

    assert cpu_vec_isa.VecAVX512().nelements(torch.float) == 16
    assert cpu_vec_isa.VecAVX2().nelements(torch.float) == 8
    assert cpu_vec_isa.VecNEON().nelements(torch.float) == 4


@fact(
    "09",
    "mm-is-aten-mm",
    "calls `extern_kernels.mm`, which is ATen's own `mm`, the kernel eager mode runs",
    rival="inductor writes its own matmul loop, which happens to run as fast as ATen's: the generated code calls "
    "extern_kernels.mm, and that name is torch.mm itself",
)
def _():
    from torch._inductor.select_algorithm import extern_kernels

    code = _output_code(lambda a, b: a @ b, torch.rand(32, 32), torch.rand(32, 32))
    assert "extern_kernels.mm(" in code
    assert extern_kernels.mm is torch.mm


@fact(
    "09",
    "compiled-rand-is-philox",
    "(Philox; eager's CPU generator is a Mersenne Twister)",
    rival="the compiled code draws from eager's Mersenne Twister, only in another order: it calls "
    "normalized_rand_cpu, which inductor's C++ prefix defines with Philox4_32, while eager's CPU generator holds an "
    "mt19937 engine",
)
def _():
    code = _output_code(lambda t: t + torch.rand(t.shape), torch.zeros(5))
    assert "normalized_rand_cpu(" in code
    header = Path(torch.__file__).parent / "include" / "torch" / "csrc" / "inductor" / "cpp_prefix.h"
    definition = header.read_text().split("inline float normalized_rand_cpu", 1)[1][:200]
    assert "Philox4_32" in definition
    cpu_generator = Path(torch.__file__).parent / "include" / "ATen" / "CPUGeneratorImpl.h"
    assert "at::mt19937 engine_;" in cpu_generator.read_text()  # eager's CPU generator


@fact(
    "09",
    "compiled-rand-follows-seed",
    "the same seed gives the same compiled draws run after run",
    rival="the compiled kernel carries a seed fixed when it was compiled: the same compiled function, with no "
    "recompile, draws other numbers after another seed",
)
def _():
    def noisy(t):
        return t + torch.rand(t.shape)

    torch.compiler.reset()
    compiled = torch.compile(noisy)
    torch.manual_seed(0)
    first = compiled(torch.zeros(5))
    torch.manual_seed(0)
    again = compiled(torch.zeros(5))
    torch.manual_seed(0)
    eager = noisy(torch.zeros(5))
    torch.manual_seed(1)
    other = compiled(torch.zeros(5))
    torch.compiler.reset()
    assert torch.equal(first, again) and not torch.equal(first, eager)
    assert not torch.equal(first, other)  # the seed is read at each call


@fact(
    "09",
    "fallback-random-draws-eagers-numbers",
    "set inductor's `fallback_random` option: the compiled code then calls eager's random operations instead of "
    "generating its own",
)
def _():
    def noisy(t):
        return t + torch.rand(t.shape)

    torch.manual_seed(0)
    eager = noisy(torch.zeros(5))
    torch.compiler.reset()
    with torch._inductor.config.patch(fallback_random=True):
        torch.manual_seed(0)
        compiled = torch.compile(noisy)(torch.zeros(5))
    torch.compiler.reset()
    assert torch.equal(eager, compiled)


@fact("09", "reduce-overhead-does-nothing-on-cpu", "**On the CPU there are no CUDA graphs**: the option does nothing")
def _():
    x, y = mc.samples(1000)
    torch.compiler.reset()
    counters.clear()
    out = torch.compile(mc.pi_from_samples, mode="reduce-overhead")(x, y)
    skipped = counters["inductor"]["cudagraph_skips"]
    torch.compiler.reset()
    assert skipped == 1 and torch.equal(out, mc.pi_from_samples(x, y))


@fact(
    "09",
    "lite-mode-falls-back",
    "`lite` (newer than `torch.compile`'s docstring, which does not list it yet) sets `fallback_by_default`",
)
def _():
    assert torch._inductor.list_mode_options()["lite"]["fallback_by_default"] is True
    assert "lite" not in torch.compile.__doc__
    assert torch._inductor.list_mode_options()["reduce-overhead"] == {"triton.cudagraphs": True}


@fact(
    "09", "thread-count-in-generated-code", "Inductor writes the thread count into the C++ it generates", since=(2, 13)
)
def _():
    x, y = mc.samples(100_000)
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        one = _output_code(mc.pi_from_samples, x, y)
        torch.set_num_threads(2)
        two = _output_code(mc.pi_from_samples, x, y)
    finally:
        torch.set_num_threads(threads)
    assert "#pragma omp" not in one
    assert "#pragma omp parallel" in two and "tmp_acc0_arr[2]" in two


def _recompiles_on_new_thread_count() -> tuple[int, str]:
    """Graphs compiled and the recompile log when one wrapper is called at 2 threads, then at 1."""
    threads = torch.get_num_threads()
    counter = CompileCounter()
    torch.compiler.reset()
    try:
        compiled = torch.compile(mc.pi_from_samples, backend=counter)
        x, y = mc.samples(1000)
        torch.set_num_threads(2)
        compiled(x, y)
        with captured_logs(recompiles=True) as logs:
            torch.set_num_threads(1)
            compiled(x, y)
    finally:
        torch.set_num_threads(threads)
        torch.compiler.reset()
    return counter.frame_count, logs.text


@fact(
    "09",
    "thread-count-is-guarded-and-keyed",
    "dynamo's guards include the thread count (a new count alone makes it compile again, with the reason "
    "`GLOBAL_STATE changed: num_threads`), and so does the key of inductor's on-disk cache",
    since=(2, 13),
    rival="the compiled version built for two threads is reused after set_num_threads(1) unless reset() is called "
    "(then the same wrapper would compile once, not twice, and no recompile reason would name num_threads)",
)
def _():
    import inspect

    from torch._inductor.codecache import FxGraphHashDetails

    graphs, log = _recompiles_on_new_thread_count()
    assert graphs == 2 and "GLOBAL_STATE changed: num_threads" in log
    assert "cpp_runtime_thread_count = parallel_num_threads()" in inspect.getsource(FxGraphHashDetails)


@fact("09", "compile-wants-a-callable", "`torch.compile(f(x))` calls `f` first and hands over a tensor")
def _():
    with pytest.raises(AssertionError, match="A callable function is expected"):
        torch.compile(torch.ones(3))


@fact("09", "modes-use-hyphens", "Modes use hyphens, not underscores; the message lists the valid ones")
def _():
    with pytest.raises(RuntimeError, match="Unrecognized mode=reduce_overhead, should be one of: .*reduce-overhead"):
        torch.compile(mc.pi_from_samples, mode="reduce_overhead")


@fact(
    "09",
    "fresh-pages-above-32-mib",
    "Above, a call faults in every page of its output",
    rival="a new tensor costs more than a reused one by bookkeeping alone, at any size: in a fresh process, after "
    "the lesson's warm-up, a 40 MiB product faults in about one page per 4 KiB of its output, and at 8 MiB, where "
    "malloc hands the freed block back, far fewer",
)
def _():
    if not sys.platform.startswith("linux"):
        pytest.skip("glibc's mmap threshold: a Linux fact")
    import resource

    from tests.facts import page_faults_in_a_fresh_process

    pages = 40 * 2**20 // resource.getpagesize()
    setup = "\n".join(
        [
            "import torch",
            "small, large = torch.ones(8 * 2**20 // 4), torch.ones(40 * 2**20 // 4)",
            "for _ in range(3): small * small; large * large  # warm-up, as the lesson's timing does",
        ]
    )
    large = page_faults_in_a_fresh_process(setup, "large * large")
    assert min(large) > pages // 2, large  # 40 MiB: fresh pages, every call
    # 8 MiB usually reuses the freed block; glibc may trim the heap's top, so only "fewer" is a fact
    small = page_faults_in_a_fresh_process(setup, "small * small")
    assert max(small) < min(large) // 2, (small, large)


@fact(
    "09",
    "malloc-looks-in-its-heap-first",
    "glibc's `malloc` first looks for a free stretch its heap already holds. A large block that does not fit "
    "there comes fresh from the operating system",
    rival="a block above the mmap threshold always comes fresh from the operating system: a 40 MiB malloc (above "
    "the 32 MiB the threshold can reach) in a fresh process faults in every page, and the same malloc after a free "
    "60 MiB stretch was left inside the heap faults none",
)
def _():
    import platform

    if platform.libc_ver()[0] != "glibc":
        pytest.skip("glibc's allocator: Linux with glibc only")
    import resource

    from tests.facts import faults_of_a_large_malloc

    fresh = faults_of_a_large_malloc(after_a_free_stretch=False)
    assert min(fresh) >= 40 * 2**20 // resource.getpagesize(), fresh
    stretch = faults_of_a_large_malloc(after_a_free_stretch=True)
    assert max(stretch) < 16, stretch


@fact(
    "09",
    "assert-close-default-tolerances",
    "by default, `rtol=1.3e-6, atol=1e-5` for float32, `rtol=1e-7, atol=1e-7` for float64, `rtol=1e-3, atol=1e-5` "
    "for float16 and `rtol=1.6e-2, atol=1e-5` for bfloat16",
)
def _():
    for dtype, rtol, atol in (
        (torch.float32, 1.3e-6, 1e-5),
        (torch.float64, 1e-7, 1e-7),
        (torch.float16, 1e-3, 1e-5),
        (torch.bfloat16, 1.6e-2, 1e-5),
    ):
        expected = torch.tensor([100.0, 1000.0], dtype=torch.float64)
        allowed = atol + rtol * expected
        for factor, agree in ((0.5, True), (3.0, False)):
            e = expected.to(dtype)
            a = (e.double() + factor * allowed).to(dtype)
            try:
                torch.testing.assert_close(a, e)
                agreed = True
            except AssertionError:
                agreed = False
            assert agreed is agree, (dtype, factor)


@fact(
    "09",
    "compile-debug-read-at-start",
    "Two environment variables record what the compiler did, read when torch starts",
)
def _():
    source = Path(torch._inductor.config.__file__).read_text()
    assert 'enabled = os.environ.get("TORCH_COMPILE_DEBUG", "0") == "1"' in source  # a module-level default
    import torch._logging._internal as logging_internal

    assert logging_internal.TRACE_ENV_VAR == "TORCH_TRACE"
    assert "os.environ.get(TRACE_ENV_VAR" in Path(logging_internal.__file__).read_text()


@fact(
    "09",
    "compile-debug-dir-in-cwd",
    "`TORCH_COMPILE_DEBUG=1` writes a directory `torch_compile_debug/run_<time>-pid_<pid>/` in the working directory",
)
def _():
    import torch._dynamo.config as dynamo_config

    if "TORCH_COMPILE_DEBUG_DIR" not in os.environ:
        assert dynamo_config.default_debug_dir_root() == os.path.join(os.getcwd(), "torch_compile_debug")
    from torch._dynamo.utils import get_debug_dir

    assert "run_" in get_debug_dir() and "-pid_" in get_debug_dir()


@fact(
    "09",
    "fallback-random-dropout",
    "dropout compiled draws another mask than eager with the same seed",
)
def _():
    def drop(t):
        return torch.nn.functional.dropout(t, p=0.5, training=True)

    ones = torch.ones(4, 6)
    torch.manual_seed(0)
    eager = drop(ones)
    torch.compiler.reset()
    torch.manual_seed(0)
    compiled = torch.compile(drop)(ones)
    torch.compiler.reset()
    with torch._inductor.config.patch(fallback_random=True):
        torch.manual_seed(0)
        fallback = torch.compile(drop)(ones)
    torch.compiler.reset()
    assert not torch.equal(compiled, eager) and torch.equal(fallback, eager)


_PROBE_BUILDS = """
import subprocess, time
from torch._inductor import cpp_builder, cpu_vec_isa

builds, children = [], []
build, popen_init = cpp_builder.CppBuilder.build, subprocess.Popen.__init__


def counted_build(self, *args, **kwargs):
    builds.append(1)
    return build(self, *args, **kwargs)


def counted_popen(self, args, *rest, **kwargs):
    children.append(args)
    return popen_init(self, args, *rest, **kwargs)


cpp_builder.CppBuilder.build, subprocess.Popen.__init__ = counted_build, counted_popen
start = time.perf_counter()
isa = cpu_vec_isa.pick_vec_isa()
seconds = time.perf_counter() - start
loads = sum("LoadLibrary" in " ".join(map(str, a)) for a in children)  # the probe's children that load a program
print(len(builds), loads, seconds, isa)
"""


@fact(
    "09",
    "cpu-probe-builds-once-per-directory",
    "the CPU probe's C++ builds, which a later process using the same directory skips: the built programs are files "
    "in it",
    rival="the whole probe is a start-up cost of every process (then a second process on the same directory would "
    "build its C++ test programs again; it builds none, still loads each one in a child Python, and takes far less "
    "time), or nothing of it is (then the second would start no child)",
)
def _():
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache)

        def run() -> tuple[int, int, float, str]:
            done = subprocess.run(
                [sys.executable, "-c", _PROBE_BUILDS], env=env, capture_output=True, text=True, timeout=600
            )
            assert done.returncode == 0, done.stderr[-2000:]
            builds, loads, seconds, isa = done.stdout.strip().splitlines()[-1].split(" ", 3)
            return int(builds), int(loads), float(seconds), isa

        first, second = run(), run()
        assert any(Path(cache).rglob("*.so")), "the probe left no built program in the cache directory"
    assert first[0] >= 1, f"a process on an empty directory built no test program: {first}"
    assert second[0] == 0 and second[3] == first[3], f"a second process on the same directory: {second}, first {first}"
    assert second[1] >= 1, f"the second process loaded no test program in a child: {second}"
    assert second[2] < first[2] / 2, f"the second probe took {second[2]:.2f} s, the first {first[2]:.2f} s"
