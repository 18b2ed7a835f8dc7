"""Module 09's checks, exercises 09.1 to 09.6: compile options, traffic, break-even, captured
operations, fused expressions, chunks. The exercises themselves are declared in ``m09``."""

from __future__ import annotations

import math
import types

import torch

from torchcourse.grading.compare import describe
from torchcourse.grading.exercises._counts import byte_counts_message
from torchcourse.grading.exercises._inputs import generator, randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.rules import MemoryLimit

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
