"""Module 09 "torch.compile: fusion and overhead": compile options, traffic, break-even, graphs."""

from __future__ import annotations

import math
import types

import torch

from torchcourse.grading.checks import Exercise
from torchcourse.grading.compare import describe
from torchcourse.grading.exercises._counts import byte_counts_message
from torchcourse.grading.exercises._inputs import generator, randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.rules import Calls, Holds, MemoryLimit, NoLoop

# --- 09.1 ------------------------------------------------------------------------------
GOALS = (
    "compile one kernel per input size, never a dynamic one",
    "raise an error instead of splitting the function at a graph break",
    "cut kernel-launch overhead on a GPU with CUDA graphs",
    "autotune matrix multiplications, without CUDA graphs",
    "capture the graph but run it with eager PyTorch, generating no code",
)


compile_kwargs = solution("09", "compile_kwargs")


def _accepted_by_torch_compile(args, got):
    try:
        torch.compile(lambda t: t, **got)  # only wraps: nothing is compiled until a call
    except Exception as exc:  # noqa: BLE001 - any rejection is the learner's to see
        return f"torch.compile rejects these arguments ({type(exc).__name__}: {str(exc).splitlines()[0]})"
    return None


# What each goal needs, as effective settings (a mode stands for the inductor options it sets,
# torch._inductor.list_mode_options): any dict that sets them, and nothing more, is right, so
# {"options": {"triton.cudagraphs": True}} answers the CUDA-graphs goal as well as the mode does.
_NEEDS = {
    GOALS[0]: ({"dynamic": False},),
    GOALS[1]: ({"fullgraph": True},),
    GOALS[2]: ({"triton.cudagraphs": True},),
    GOALS[3]: ({"max_autotune": True}, {"max_autotune_gemm": True}),
    GOALS[4]: ({"backend": "eager"},),
}
_ALSO_FINE = {GOALS[3]: {"coordinate_descent_tuning", "max_autotune", "max_autotune_gemm"}}
_DEFAULTS = {"dynamic": None, "fullgraph": False, "backend": "inductor", "disable": False}


def _backend_name(backend):
    """A backend passed as the function torch registers under a name (``torch._dynamo.lookup_backend("eager")``,
    ``torch._dynamo.backends.debugging.eager``) is that named backend: the same choice as the string."""
    if isinstance(backend, str) or not callable(backend):
        return backend
    for name in torch._dynamo.list_backends(exclude_tags=()):
        try:
            if torch._dynamo.lookup_backend(name) is backend:
                return name
        except Exception:  # noqa: BLE001, S112 - a backend whose module cannot load is not this one
            continue
    return backend


def _effective_settings(kwargs):
    """torch.compile keyword arguments as the settings they amount to (defaults dropped)."""
    settings = {}
    for key, value in kwargs.items():
        if key == "backend":
            value = _backend_name(value)
        if key == "mode":
            if value not in (None, "default"):
                settings.update(torch._inductor.list_mode_options(value))
        elif key == "options":
            settings.update(value or {})
        elif _DEFAULTS.get(key, object()) != value:
            settings[key] = value
    return {k: v for k, v in settings.items() if v not in (False, None) or k in ("dynamic",)}


def _goal_met(args, got):
    (goal,) = args
    if not isinstance(got, dict):
        return f"return a dict of keyword arguments for torch.compile, got {describe(got)}"
    try:
        settings = _effective_settings(got)
    except Exception as exc:  # noqa: BLE001 - an unknown mode or a non-dict options
        return (
            f"torch.compile cannot use {got!r} ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
        )
    needs = next((n for n in _NEEDS[goal] if all(settings.get(k, object()) == v for k, v in n.items())), None)
    if needs is None:
        return f"{got!r} does not {goal}"
    if goal == GOALS[3] and settings.get("triton.cudagraphs"):
        return f"{got!r} also turns on CUDA graphs; the goal is to autotune without them"
    extra = sorted(set(settings) - set(needs) - _ALSO_FINE.get(goal, set()))
    if extra:
        return f"{got!r} also sets {', '.join(extra)}, which this goal does not need; return only what it needs"
    return None


def _options_kwargs(goal):
    """Right, written with options= instead of a mode where a mode is the reference's answer."""
    return {
        GOALS[2]: {"options": {"triton.cudagraphs": True}},
        GOALS[3]: {"options": {"max_autotune": True}},
    }.get(goal, compile_kwargs(goal))


def _wrong_kwargs_underscore(goal):
    out = dict(compile_kwargs(goal))
    if "mode" in out:
        out["mode"] = out["mode"].replace("-", "_")
    return out


def _wrong_kwargs_dynamic_for_breaks(goal):
    if goal.startswith("raise an error"):
        return {"dynamic": False}
    return compile_kwargs(goal)


def _wrong_kwargs_full_autotune(goal):
    out = dict(compile_kwargs(goal))
    if out.get("mode") == "max-autotune-no-cudagraphs":
        out["mode"] = "max-autotune"
    return out


# --- 09.2 ------------------------------------------------------------------------------
traffic = solution("09", "traffic")


def _traffic_bytes(args, got):
    """09.2 asks for "the bytes": whole numbers, as ints or as floats with that value."""
    return byte_counts_message(got, traffic(*args))


# --- 09.3 ------------------------------------------------------------------------------
break_even_calls = solution("09", "break_even_calls")


def _break_even_strict(t_first, t_eager, t_compiled):
    """Strictly less than eager: a tie, where the totals are equal, is already 'no more than'."""
    if t_compiled >= t_eager:
        return None
    return max(1, math.floor((t_first - t_compiled) / (t_eager - t_compiled)) + 1)


# --- 09.4 ------------------------------------------------------------------------------
graph_op_count = solution("09", "graph_op_count")


def _graph_count_frames(fn, x):
    from torch._dynamo.testing import CompileCounter

    counter = CompileCounter()
    torch.compile(fn, backend=counter)(x)
    return counter.frame_count  # graphs, not operations


def _graph_count_uncalled(fn, x):
    from torch._dynamo.testing import CompileCounter

    counter = CompileCounter()
    torch.compile(fn, backend=counter)  # never called: nothing captured
    return counter.op_count


def _softplus_chain(x):
    return torch.log1p(torch.exp(-x.abs())) + x.clamp(min=0)


def _normalise(x):
    return (x - x.mean()) / x.std()


def _square_sum(x):
    return (x * x).sum()


def _fresh(fn):
    """A copy of ``fn`` with its own code object: dynamo caches compiled graphs per code
    object, so each check starts from an empty cache (and never reaches the recompile limit)."""
    return types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def _graph_cases():
    return [
        (_fresh(_square_sum), randn(50, seed=91)),
        (_fresh(_normalise), randn(8, 8, seed=92)),
        (_fresh(_softplus_chain), randn(30, seed=93, dtype=torch.float64)),
    ]


# --- 09.5 ------------------------------------------------------------------------------
hit_or_miss = solution("09", "hit_or_miss")


def _uniform_pairs():
    out = []
    for seed, n in ((95, 1000), (96, 4096), (97, 777)):
        g = generator(seed)
        out.append((torch.rand(n, generator=g), torch.rand(n, generator=g)))
    return out


def _hit_cases():
    """The uniform samples, and points on the curve itself: at x = 0, y = 1 = e^0 exactly in every
    precision, a hit for y <= e^{-x²} (and a miss for y < e^{-x²})."""
    g = generator(94)
    x, y = torch.rand(40, generator=g), torch.rand(40, generator=g)
    x[:6], y[:6] = 0.0, 1.0
    x[6:8], y[6:8] = torch.tensor([0.5, 1.0]), 1.0  # on the top edge, beyond the curve: misses
    return [*_uniform_pairs(), (x, y)]


# --- 09.6 ------------------------------------------------------------------------------
pi_chunked = solution("09", "pi_chunked")


def _chunk_cases():
    cases = [(x, y, chunk) for (x, y), chunk in zip(_uniform_pairs(), (300, 1024, 1000))]
    g = generator(98)
    cases.append((torch.rand(3000, generator=g), torch.rand(3000, generator=g), 128))
    cases.append((torch.rand(5, generator=g), torch.rand(5, generator=g), 1))  # chunks of one sample
    x, y = torch.rand(21, generator=g), torch.rand(21, generator=g)
    x[:5], y[:5] = torch.tensor([1.0, 0.0, 1.0, 0.0, 1.0]), torch.tensor([0.0, 1.0, 0.0, 1.0, 1.0])
    cases.append((x, y, 4))  # on the circle, x² + y² = 1 exactly: inside for <= 1 (the last one is outside)
    return cases


def _chunk_limit(args):
    """A temporary longer than ``chunk`` is at least ``4 * (chunk + 1)`` bytes in float32; allow a
    float64 temporary of ``chunk`` samples (8 bytes each), no more. Judged where the samples are
    more than twice as long as a chunk, so an unchunked float32 temporary cannot hide under it."""
    x, _, chunk = args
    return 8 * chunk if isinstance(x, torch.Tensor) and x.numel() > 2 * chunk else None


_CHUNKED = MemoryLimit(
    limit=_chunk_limit,
    measure="largest",
    message="your function built a temporary of {measured} bytes, longer than one chunk of samples: "
    "work through x and y in slices x[start : start + chunk] and add up the counts",
)


def _pi_unchunked(x, y, chunk):
    return 4 * ((x * x + y * y) <= 1).float().mean()


def _pi_chunked_drop_tail(x, y, chunk):
    inside, n = 0, x.numel()
    for start in range(0, n - chunk, chunk):
        xs, ys = x[start : start + chunk], y[start : start + chunk]
        inside += int((xs * xs + ys * ys <= 1.0).sum())
    return torch.tensor(4.0 * inside / n, dtype=torch.float32)


def _pi_chunked_strict(x, y, chunk):
    inside = 0
    for start in range(0, x.numel(), chunk):
        xs, ys = x[start : start + chunk], y[start : start + chunk]
        inside += int((xs * xs + ys * ys < 1.0).sum())  # a point on the circle is inside too
    return torch.tensor(4.0 * inside / x.numel(), dtype=torch.float32)


def _pi_chunked_mean_of_means(x, y, chunk):
    means = [
        4.0 * ((x[s : s + chunk] ** 2 + y[s : s + chunk] ** 2) <= 1.0).float().mean()
        for s in range(0, x.numel(), chunk)
    ]
    return torch.stack(means).mean()


def _scalar_float32(args, got):
    if isinstance(got, torch.Tensor) and got.dim() != 0:
        return f"return a 0-dimensional tensor (one number), got shape {tuple(got.shape)}"
    return None


# --- 09.7 the kernels inductor generates for a function ---------------------------------------------


kernel_names = solution("09", "kernel_names")


def _k_pointwise(x):
    return (x.sin() + 1).relu() * 2


def _k_standardise(x):
    return (x - x.mean()) / x.std()


def _k_around_matmul(x):
    y = x.sin()
    return (y @ y.T).relu()


def _fresh(f):
    """``f`` with its own code object, so every compile starts afresh (dynamo caches per code object)."""
    return types.FunctionType(f.__code__.replace(), f.__globals__, f.__name__, f.__defaults__, f.__closure__)


def _kernel_cases():
    return [
        (_fresh(_k_pointwise), randn(8, 8, seed=971)),
        (_fresh(_k_standardise), randn(64, seed=972)),
        (_fresh(_k_around_matmul), randn(6, 4, seed=973)),  # two kernels around the library's matmul
    ]


def _kernel_property(args, got):
    """09.7: the answer's list equals the kernels inductor writes for a fresh compile of fn."""
    fn, x = args
    if not isinstance(got, (list, tuple)) or not all(isinstance(name, str) for name in got):
        return f"return a list of kernel names (strings), got {describe(got)}"
    expected = kernel_names(_fresh(fn), x.clone())
    if list(got) != expected:
        return f"inductor generated the kernel(s) {expected} for this function, got {list(got)}"
    return None


def _kernel_count_metric(fn, x):
    from torch._inductor import metrics

    metrics.reset()
    torch.compile(fn)(x)
    return metrics.generated_kernel_count


def _graph_op_names(fn, x):
    names = []

    def backend(gm, example_inputs):
        names.extend(str(n.target) for n in gm.graph.nodes if n.op == "call_function")
        return gm.forward

    torch.compile(fn, backend=backend)(x)
    return names


def _every_mention(fn, x):
    import re

    from torchcourse.compiletools import captured_logs

    with captured_logs(output_code=True) as logs:
        torch.compile(fn)(x)
    return re.findall(r"\b(?:cpp_fused|triton)\w*", logs.text)


# --- 09.8 speed-up, warm ------------------------------------------------------------------------------


class FakePair:
    """An eager function and its compiled version in fake time: call k of each lasts the k-th of its
    durations (the last repeats); the compiled one's first call includes its compile."""

    def __init__(self, eager_s, compiled_s) -> None:
        self.eager_s, self.compiled_s = list(eager_s), list(compiled_s)
        self.now = 0.0
        self.eager_calls = self.compiled_calls = 0

    def eager(self, x):
        self.now += self.eager_s[min(self.eager_calls, len(self.eager_s) - 1)]
        self.eager_calls += 1
        return x

    def compiled(self, x):
        self.now += self.compiled_s[min(self.compiled_calls, len(self.compiled_s) - 1)]
        self.compiled_calls += 1
        return x

    def clock(self):
        return self.now


speedup = solution("09", "speedup")


def _speedup_cases():
    d = 2.0**-12
    cases = []
    for eager_s, compiled_s, repeat, seed in (
        ([8 * d, 4 * d, 5 * d, 4 * d], [4.0, d, 2 * d], 5, 981),
        ([3 * d, 2 * d], [2.5, 3 * d, 4 * d, 3 * d], 4, 982),  # compiled is slower here
        ([16 * d], [1.5, d], 1, 983),
    ):
        pair = FakePair(eager_s, compiled_s)
        cases.append((pair.eager, pair.compiled, randn(3, seed=seed), repeat, pair.clock))
    return cases


def _timed(durations, first, repeat):
    return sum(durations[min(k, len(durations) - 1)] for k in range(first, first + repeat))


def _speedup_property(args, got):
    """09.8: one untimed call of each first, then `repeat` timed calls of each, eager / compiled."""
    eager_fn, compiled_fn, x, repeat, clock = args
    pair = eager_fn.__self__
    if (
        not isinstance(got, (int, float, torch.Tensor))
        or isinstance(got, bool)
        or (isinstance(got, torch.Tensor) and got.numel() != 1)
    ):
        return f"return the speed-up as a number, got {describe(got)}"
    got = float(got)  # a float32 tensor holds about 7 digits: compare to 1e-6
    for name, calls in (("eager_fn", pair.eager_calls), ("compiled_fn", pair.compiled_calls)):
        if calls != repeat + 1:
            return (
                f"{name} ran {calls} times; call each function once untimed (compiled_fn compiles on its first "
                f"call), then repeat={repeat} timed times ({repeat + 1} in all)"
            )
    eager_s = _timed(pair.eager_s, 1, repeat)
    compiled_s = _timed(pair.compiled_s, 1, repeat)
    expected = eager_s / compiled_s
    if math.isclose(got, expected, rel_tol=1e-6):
        return None
    if math.isclose(got, eager_s / _timed(pair.compiled_s, 0, repeat + 1), rel_tol=1e-6) or math.isclose(
        got, _timed(pair.eager_s, 0, repeat + 1) / _timed(pair.compiled_s, 0, repeat + 1), rel_tol=1e-6
    ):
        return "your compiled time includes its first call, which compiles; make that call before starting the clock"
    if math.isclose(got, 1 / expected, rel_tol=1e-6):
        return f"return eager time / compiled time (above 1 when compiled is faster): {expected:.4g}, got {got:.4g}"
    return f"expected a speed-up of {expected:.4g} (eager time / compiled time over the timed calls), got {got:.4g}"


def _speedup_no_warmup(eager_fn, compiled_fn, x, repeat, clock):
    def seconds(fn):  # repeat timed calls, nothing before them
        start = clock()
        for _ in range(repeat):
            fn(x)
        return clock() - start

    return seconds(eager_fn) / seconds(compiled_fn)


def _speedup_warmup_timed(eager_fn, compiled_fn, x, repeat, clock):
    def seconds(fn, warm_up_untimed):
        if warm_up_untimed:
            fn(x)
        start = clock()
        if not warm_up_untimed:
            fn(x)  # the warm-up call, but the clock is already running
        for _ in range(repeat):
            fn(x)
        return clock() - start

    return seconds(eager_fn, True) / seconds(compiled_fn, False)


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
        ],
        hints=[
            "After k calls eager has spent k·t_eager; compiled has spent t_first + (k-1)·t_compiled "
            "(the first call compiles and runs).",
            "Solve for the smallest integer k (math.ceil), at least 1; if a compiled call is not faster "
            "than an eager one, compiling never pays off: return None.",
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
        wrong=[_kernel_count_metric, _graph_op_names, _every_mention],
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
]
