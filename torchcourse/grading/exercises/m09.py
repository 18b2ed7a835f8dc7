"""Module 09 "torch.compile: fusion and overhead": compile options, traffic, break-even, graphs,
kernels, speed-up, and compiled-vs-eager numerics. The checks' helpers live in ``m09_rules``
(09.1 to 09.6), ``m09_kernels`` (09.7, 09.8) and ``m09_numerics`` (09.9, 09.10)."""

from __future__ import annotations

import math

import torch

from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises.m09_kernels import (
    _call_sites,
    _every_mention,
    _graph_op_names,
    _kernel_cases,
    _kernel_count_metric,
    _kernel_property,
    _speedup_cases,
    _speedup_no_warmup,
    _speedup_property,
    _speedup_warmup_timed,
    _unique_names,
    kernel_names,
    speedup,
)
from torchcourse.grading.exercises.m09_numerics import (
    ByInductor,
    _agree_allclose_defaults,
    _agree_bool,
    _agree_cases,
    _agree_equal,
    _agree_float32_everywhere,
    _agree_rtol_only,
    _agree_scaled_by_actual,
    _dropout_aot_eager,
    _dropout_cases,
    _dropout_compiled_then_eager,
    _dropout_eager_into_compiled,
    _dropout_leaves_freezing,
    _dropout_left_on,
    _dropout_no_fallback,
    _dropout_outside,
    _dropout_warmed_up_first,
    _same_as_eager,
    agree,
    compiled_dropout,
)
from torchcourse.grading.exercises.m09_rules import (  # noqa: F401 - GOALS and _options_kwargs: for the tests
    _CHUNKED,
    GOALS,
    _accepted_by_torch_compile,
    _break_even_strict,
    _chunk_cases,
    _goal_met,
    _graph_cases,
    _graph_count_frames,
    _graph_count_uncalled,
    _hit_cases,
    _options_kwargs,
    _pi_chunked_drop_tail,
    _pi_chunked_mean_of_means,
    _pi_chunked_strict,
    _pi_unchunked,
    _scalar_float32,
    _traffic_bytes,
    _wrong_kwargs_dynamic_for_breaks,
    _wrong_kwargs_full_autotune,
    _wrong_kwargs_underscore,
    break_even_calls,
    compile_kwargs,
    graph_op_count,
    hit_or_miss,
    pi_chunked,
    traffic,
)
from torchcourse.grading.rules import Calls, Holds, NoLoop

EXERCISES = [
    Exercise(
        "09.1",
        "The right torch.compile arguments (warm-up)",
        compile_kwargs,
        cases=lambda: [(goal,) for goal in GOALS],
        property=_goal_met,
        hints=[
            "torch._inductor.list_mode_options() lists the modes and the options each one sets.",
            "fullgraph=True turns a graph break into an error; backend='eager' runs the captured graph "
            "without code generation; modes are spelt with hyphens.",
        ],
        wrong=[
            _wrong_kwargs_underscore,
            _wrong_kwargs_full_autotune,
            _wrong_kwargs_dynamic_for_breaks,
            lambda goal: {**compile_kwargs(goal), "fullgraph": True},  # more than each goal needs
        ],
        rules=[Holds(_accepted_by_torch_compile)],
    ),
    Exercise(
        "09.2",
        "Bytes moved, eager and fused",
        traffic,
        cases=lambda: [(1000, 4), (10_000_000, 4), (123, 8), (64, 2)],
        property=_traffic_bytes,
        hints=[
            "In eager mode each operation reads its inputs from memory and writes its result to memory.",
            "Eager: a*b reads 2n and writes n elements; + c reads 2n and writes n; sum reads n. "
            "Fused: each input is read once. Multiply element counts by itemsize.",
        ],
        wrong=[
            lambda n, itemsize: (5 * n * itemsize, 3 * n * itemsize),
            lambda n, itemsize: (7 * n, 3 * n),
            lambda n, itemsize: (7 * n * itemsize, 4 * n * itemsize),
        ],
    ),
    Exercise(
        "09.3",
        "Break-even number of calls",
        break_even_calls,
        cases=lambda: [
            (20.0, 0.4, 0.04),
            (1.05, 0.3, 0.2),
            (4.10, 2.52, 0.067),
            (0.5, 1.0, 0.1),
            (5.0, 0.01, 0.02),
            (3.0, 0.05, 0.05),
            (1.0, 0.5, 0.25),  # a tie: after 3 calls both took 1.5 s, "no more than" holds at 3
            (0.8, 1.0, 1.0),  # no faster per call, but after 1 call compiled spent 0.8 s, eager 1.0 s
        ],
        hints=[
            "After k calls eager has spent k·t_eager; compiled has spent t_first + (k-1)·t_compiled "
            "(the first call compiles and runs).",
            "Solve for the smallest integer k (math.ceil), at least 1; if a compiled call is not faster "
            "than an eager one, compiling never pays off (unless the first call already costs no more than "
            "an eager one): return None.",
        ],
        wrong=[
            lambda t_first, t_eager, t_compiled: (
                None if t_compiled >= t_eager else math.ceil(t_first / (t_eager - t_compiled))
            ),
            lambda t_first, t_eager, t_compiled: (
                None if t_compiled >= t_eager else max(1, int((t_first - t_compiled) / (t_eager - t_compiled)))
            ),
            lambda t_first, t_eager, t_compiled: (
                math.ceil((t_first - t_compiled) / (t_eager - t_compiled)) if t_compiled != t_eager else None
            ),
            _break_even_strict,
            lambda t_first, t_eager, t_compiled: (  # None before looking at the first call
                None if t_compiled >= t_eager else max(1, math.ceil((t_first - t_compiled) / (t_eager - t_compiled)))
            ),
        ],
    ),
    Exercise(
        "09.4",
        "Count the operations in the captured graph",
        graph_op_count,
        cases=_graph_cases,
        hints=[
            "torch._dynamo.testing.CompileCounter() is a backend that compiles nothing and counts: "
            "pass it as torch.compile(fn, backend=counter).",
            "Nothing is captured until the compiled function is called; then read counter.op_count "
            "(counter.frame_count counts graphs, not operations).",
        ],
        wrong=[_graph_count_frames, _graph_count_uncalled],
        compiles=True,
    ),
    Exercise(
        "09.5",
        "Hit or miss: an integral as one fused expression",
        hit_or_miss,
        cases=_hit_cases,
        rules=[
            NoLoop(),
            Calls(forbid=("to Python",), why="keep the estimate a tensor: one tensor expression, no .item()"),
            Holds(_scalar_float32),
        ],
        hints=[
            "A point (x, y) in the unit square is a hit when it lies under the curve: y <= exp(-x²).",
            "The fraction of hits is the mean of a 0/1 tensor: turn the bool mask into float32 before taking the mean.",
        ],
        wrong=[
            lambda x, y: (y <= torch.exp(-x * x)).sum(),
            lambda x, y: (y >= torch.exp(-x * x)).float().mean(),
            lambda x, y: (y <= torch.exp(-x) ** 2).float().mean(),
            lambda x, y: (y < torch.exp(-x * x)).float().mean(),  # a point on the curve is under it
        ],
    ),
    Exercise(
        "09.7",
        "Name the kernels inductor generates",
        kernel_names,
        cases=_kernel_cases,
        property=_kernel_property,
        hints=[
            "with captured_logs(output_code=True) as logs: compile fn with torch.compile(fn) and call it on x "
            "(the compile happens on the first call).",
            "Each generated kernel is defined on a line `cpp_fused_... = async_compile...` (`triton_...` on a "
            'GPU): logs.grep(r"^(cpp_fused|triton)\\w* = async_compile") finds those lines; keep the part '
            "before ' = '.",
        ],
        wrong=[_kernel_count_metric, _graph_op_names, _every_mention, _unique_names, _call_sites],
        needs_compiler=True,
        compiles=True,
    ),
    Exercise(
        "09.8",
        "Speed-up, measured warm",
        speedup,
        cases=_speedup_cases,
        property=_speedup_property,
        hints=[
            "The first call of a compiled function compiles it: seconds, not microseconds. Call each function "
            "once before you start the clock.",
            "Then read clock(), make repeat calls of eager_fn, read clock(); the same for compiled_fn; return "
            "eager seconds / compiled seconds.",
        ],
        wrong=[
            _speedup_no_warmup,
            _speedup_warmup_timed,
            lambda eager_fn, compiled_fn, x, repeat, clock: 1 / speedup(eager_fn, compiled_fn, x, repeat, clock),
        ],
    ),
    Exercise(
        "09.9",
        "Compiled and eager: agree within the dtype's tolerance",
        agree,
        cases=_agree_cases,
        rules=[Holds(_agree_bool)],
        hints=[
            "Exact equality is too strict (another summation order changes the last bits) and one tolerance "
            "for every dtype is wrong: float16 keeps about 3 decimal digits, float64 about 16.",
            "torch.testing.assert_close(actual, expected) uses the dtype's default rtol and atol and raises "
            "AssertionError when they do not agree: turn that into True or False.",
        ],
        wrong=[
            _agree_equal,
            _agree_allclose_defaults,
            _agree_float32_everywhere,
            _agree_rtol_only,
            _agree_scaled_by_actual,
        ],
    ),
    Exercise(
        "09.10",
        "Compiled dropout that draws eager's numbers",
        compiled_dropout,
        cases=_dropout_cases,
        property=_same_as_eager,
        rules=[ByInductor()],
        hints=[
            "Inductor generates its own random numbers inside the kernel; one of its options makes the compiled "
            "code call eager's random operations instead (see the lesson's section on debugging numerics).",
            "torch._inductor.config.patch(fallback_random=True) as a `with` block around the first call of the "
            "compiled function (the option is read when the graph is compiled), torch.manual_seed(seed) just "
            "before that call.",
        ],
        wrong=[
            _dropout_no_fallback,
            _dropout_aot_eager,
            _dropout_left_on,
            _dropout_leaves_freezing,
            _dropout_warmed_up_first,
            _dropout_outside,
            _dropout_compiled_then_eager,
            _dropout_eager_into_compiled,
        ],
        needs_compiler=True,
        compiles=True,
    ),
    Exercise(
        "09.6",
        "Monte Carlo π in chunks (stretch)",
        pi_chunked,
        cases=_chunk_cases,
        rules=[_CHUNKED, Holds(_scalar_float32)],
        hints=[
            "range(0, n, chunk) gives the start of every chunk, the last one possibly shorter; "
            "slicing past the end is safe.",
            "Add up the *counts* of points inside (exact integers) and divide once by n at the end: "
            "averaging per-chunk means weights a short last chunk wrongly.",
        ],
        wrong=[_pi_chunked_drop_tail, _pi_chunked_mean_of_means, _pi_unchunked, _pi_chunked_strict],
    ),
]
