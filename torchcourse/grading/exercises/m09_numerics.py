"""Module 09's checks, exercises 09.9 and 09.10: comparing compiled and eager results with the
dtype's tolerance, and compiled dropout that draws eager's numbers. The exercises are declared
in ``m09``."""

from __future__ import annotations

import torch

from torchcourse.grading.base import Case, Rule, _tensors
from torchcourse.grading.compare import describe
from torchcourse.grading.exercises._inputs import generator
from torchcourse.grading.exercises._solutions import solution

# --- 09.9 agree within the dtype's tolerance ------------------------------------------------------

agree = solution("09", "agree")

# torch.testing.assert_close's defaults (rtol, atol) per dtype, torch/testing/_comparison.py
_TOLERANCES = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
}


def _moved(expected, factor, where=None):
    """``expected`` moved by ``factor`` times the dtype's allowed difference (atol + rtol·|expected|),
    everywhere or at the indices ``where``; computed in float64, then rounded to the dtype."""
    rtol, atol = _TOLERANCES[expected.dtype]
    e = expected.double()
    step = factor * (atol + rtol * e.abs())
    if where is not None:
        mask = torch.zeros_like(e, dtype=torch.bool)
        mask[where] = True
        step = torch.where(mask, step, torch.zeros_like(step))
    return (e + step).to(expected.dtype)


def _last_bits(expected):
    """Every element one float step away from ``expected`` (what another summation order gives)."""
    return torch.nextafter(expected, torch.full_like(expected, float("inf")))


def _agree_cases():
    cases = []
    for k, dtype in enumerate((torch.float32, torch.float64, torch.float16, torch.bfloat16)):
        g = generator(990 + k)
        big = (torch.rand(6, generator=g, dtype=torch.float64) * 900 + 100).to(dtype)  # 100..1000: rtol decides
        small = (torch.rand(8, generator=g, dtype=torch.float64) * 1e-6).to(dtype)  # near 0: atol decides
        cases += [
            (_last_bits(big), big),  # True: the last bits differ
            (big.clone(), big),  # True: identical
            (_moved(big, 0.5), big),  # True: half the allowed difference
            (_moved(big, 3.0, where=2), big),  # False: one element three times too far
            (_moved(small, 0.5), small),  # True: within atol near zero
        ]
    cases += _scaled_by_expected()
    g = generator(999)
    x = torch.randn(3, 4, generator=g).t()  # a transposed (non-contiguous) pair
    cases += [(_last_bits(x), x), (_moved(x, 4.0, where=(1, 2)), x)]
    return cases


def _scaled_by_expected():
    """Two pairs just outside the allowed difference atol + rtol·|expected| and just inside
    atol + rtol·|actual| (False: assert_close scales rtol by the expected value, not the actual one)."""
    big = torch.linspace(100, 1000, 6, dtype=torch.float64)
    just_over = 1 + 5e-8  # beyond the limit by less than rtol·|difference|
    float64 = (_moved(big, just_over, where=2), big)
    expected = torch.linspace(0, 1e-6, 8)
    expected[3] = 0.0
    actual = expected.clone()
    actual[3] = torch.nextafter(torch.tensor(1e-5), torch.tensor(1.0))  # the next float32 above atol
    return [float64, (actual, expected)]


def _agree_scaled_by_actual(actual, expected):  # rtol times |actual|, not |expected|
    rtol, atol = _TOLERANCES[expected.dtype]
    a, e = actual.double(), expected.double()
    return bool(((a - e).abs() <= atol + rtol * a.abs()).all())


def _agree_bool(args, got):
    if not isinstance(got, bool):
        return f"return a Python bool (True or False), got {describe(got)}"
    return None


def _agree_equal(actual, expected):
    return torch.equal(actual, expected)  # exact equality: last-bit differences fail


def _agree_allclose_defaults(actual, expected):
    return torch.allclose(actual, expected)  # rtol=1e-5, atol=1e-8 for every dtype


def _agree_float32_everywhere(actual, expected):
    return torch.allclose(actual, expected, rtol=1.3e-6, atol=1e-5)  # float32's tolerance for every dtype


def _agree_rtol_only(actual, expected):
    rtol = {torch.float16: 1e-3, torch.bfloat16: 1.6e-2, torch.float32: 1.3e-6}.get(actual.dtype, 1e-7)
    return bool(((actual - expected).abs() <= rtol * expected.abs()).all())


# --- 09.10 compiled dropout with eager's random numbers -------------------------------------------

compiled_dropout = solution("09", "compiled_dropout")


def _dropout_cases():
    out = []
    for seed, (shape, p) in enumerate((((40,), 0.5), ((6, 7), 0.2), ((5, 9), 0.8))):
        g = generator(1000 + seed)
        out.append((torch.randn(*shape, generator=g), p, 7 + seed))
    return out


def _eager_dropout(x, p, seed):
    torch.manual_seed(seed)
    return torch.nn.functional.dropout(x, p, training=True)


def _same_as_eager(args, got):
    x, p, seed = args
    expected = _eager_dropout(x, p, seed)
    if (
        not isinstance(got, torch.Tensor)
        or got.shape != expected.shape
        or got.dtype != expected.dtype
        or got.device != expected.device
    ):
        want = f"a {expected.dtype} tensor of shape {tuple(expected.shape)} on {expected.device}"
        return f"return the dropout result, {want}; got {describe(got)}"
    if not torch.equal(got, expected):
        dropped = int(((got == 0) != (expected == 0)).sum())
        return (
            f"your result differs from eager dropout after torch.manual_seed({seed}): {dropped} element(s) are "
            "dropped in one and kept in the other; compiled code draws other random numbers unless it is told "
            "to draw eager's"
        )
    return None


def _inductor_graphs() -> int:
    from torch._dynamo.utils import counters

    c = counters["inductor"]
    return int(c["fxgraph_cache_miss"] + c["fxgraph_cache_hit"] + c["fxgraph_cache_bypass"])


class ByInductor(Rule):
    """ "compiled by torch.compile with its default backend": the answer runs again from a fresh dynamo
    state while the graphs inductor compiles (or finds in its cache) are counted; none means the answer
    ran eagerly or with another backend. Also: inductor's settings are as the answer found them:
    ``fallback_random`` after the answer's first run, and every setting around the second.

    The result must come from the compiled code. In that second run every tensor the compiled code
    returns is overwritten with marker values (``_marker``), which no dropout produces: an answer that
    returns the compiled result, or a copy of it (the text forbids no copy), returns the marker; one
    that returns eager's numbers computed outside the compiled code (even written into the compiled
    result's memory) does not. A storage pointer cannot tell a ``.clone()`` from such a recomputation."""

    name = "compiled by inductor"
    every_case = False  # each run compiles with inductor: judged on the first case

    def judge(self, case: Case) -> str | None:
        import torch._inductor.config as inductor_config

        found = inductor_config.fallback_random
        if found:  # the answer's first run left it on
            inductor_config.fallback_random = False
            return (
                "torch._inductor.config.fallback_random is True after your function ran (it was False); "
                "change it only for the compile, e.g. `with torch._inductor.config.patch(fallback_random=True):`"
            )
        import torch._inductor.compile_fx as inductor_entry

        from torchcourse.grading.isolation import _config, settings_at_start

        settings = _config(inductor_config)
        at_start = settings_at_start(inductor_config) or settings  # outside a check: around the second run only
        left_first = sorted(k for k, v in at_start.items() if settings.get(k, v) != v)
        if left_first:
            return (
                f"your function changed inductor's setting(s) {', '.join(left_first)} and left them so; leave "
                "inductor's settings as you found them: change one only for the compile, e.g. "
                "`with torch._inductor.config.patch(fallback_random=True):`"
            )
        torch.compiler.reset()
        before = _inductor_graphs()
        given, graphs, outputs = inductor_entry.compile_fx, [], []

        def recording(gm, *args, **kwargs):  # every graph dynamo hands to inductor
            graphs.append(gm)
            compiled = given(gm, *args, **kwargs)

            def run(*inputs):  # what the compiled code returns, overwritten with the marker
                out = compiled(*inputs)
                for t in _tensors(out):
                    _mark(t)
                outputs.append(out)
                return out

            return run

        inductor_entry.compile_fx = recording
        try:
            again = case.fn(*case.fresh())
        except Exception as exc:  # noqa: BLE001 - an answer that works once only is the answer's failure
            return (
                f"your function raised {type(exc).__name__} when the check called it again after "
                "torch.compiler.reset(); it must work on every call, as a learner's notebook calls it"
            )
        finally:
            inductor_entry.compile_fx = given
            compiled = _inductor_graphs() - before
            inductor_config.fallback_random = found
            now = _config(inductor_config)
            left = sorted(k for k, v in settings.items() if now.get(k, v) != v)
            for key in left:
                setattr(inductor_config, key, settings[key])
            torch.compiler.reset()
        if left:
            return (
                f"your function changed inductor's setting(s) {', '.join(left)} and left them so; leave inductor's "
                "settings as you found them: change one only for the compile, e.g. "
                "`with torch._inductor.config.patch(fallback_random=True):`"
            )
        if compiled == 0:
            return (
                "inductor compiled nothing while your function ran: compile the dropout with torch.compile and its "
                "default backend (inductor), not eagerly or with another backend"
            )
        if graphs and not any(_draws_random(gm) for gm in graphs):
            return (
                "the graphs inductor compiled draw no random numbers: the dropout ran outside the compiled function; "
                "compile the function that calls dropout"
            )
        if isinstance(again, torch.Tensor) and again.numel() and not _is_marked(again):
            return (
                "the tensor your function returns does not hold what the compiled code produced: return the "
                "compiled function's result (a copy of it is fine), not a dropout computed again outside it"
            )
        return None


def _marker(t: torch.Tensor) -> torch.Tensor:
    """Values no dropout of the check's inputs produces: 0.25, 1.25, 2.25, ... in t's shape and dtype."""
    return (torch.arange(t.numel(), dtype=torch.float64) + 0.25).reshape(t.shape).to(device=t.device, dtype=t.dtype)


def _mark(t: torch.Tensor) -> None:
    if t.is_floating_point() and t.numel():
        with torch.inference_mode(t.is_inference()), torch.no_grad():
            t.copy_(_marker(t))


def _is_marked(t: torch.Tensor) -> bool:
    return t.is_floating_point() and torch.equal(t.detach(), _marker(t))


def _draws_random(gm) -> bool:
    """Whether an FX graph calls a random operation (dropout, bernoulli, rand...)."""
    for node in gm.graph.nodes:
        if node.op in ("call_function", "call_method", "call_module"):
            name = str(getattr(node.target, "__name__", node.target)).lower()
            if any(word in name for word in ("dropout", "bernoulli", "rand")):
                return True
    return False


# Each wrong answer compiles its own inner function: dynamo caches graphs per code object, so one
# answer's graph (compiled with or without fallback_random) never serves another.


def _dropout_no_fallback(x, p, seed):
    def drop(t):
        return torch.nn.functional.dropout(t, p, training=True)

    torch.manual_seed(seed)
    return torch.compile(drop)(x)


def _dropout_aot_eager(x, p, seed):
    def drop(t):
        return torch.nn.functional.dropout(t, p, training=True)

    torch.manual_seed(seed)
    return torch.compile(drop, backend="aot_eager")(x)  # eager's numbers, but not inductor


def _dropout_left_on(x, p, seed):
    def drop(t):
        return torch.nn.functional.dropout(t, p, training=True)

    torch._inductor.config.fallback_random = True  # and never set back
    torch.manual_seed(seed)
    return torch.compile(drop)(x)


def _dropout_leaves_freezing(x, p, seed):
    def drop(t):
        return torch.nn.functional.dropout(t, p, training=True)

    torch._inductor.config.freezing = True  # another setting, never set back
    torch.manual_seed(seed)
    with torch._inductor.config.patch(fallback_random=True):
        return torch.compile(drop)(x)


def _dropout_outside(x, p, seed):
    compiled = torch.compile(lambda t: t * 1)  # inductor compiles something, but not the dropout
    torch.manual_seed(seed)
    return torch.nn.functional.dropout(compiled(x), p, training=True)


def _dropout_compiled_then_eager(x, p, seed):
    def drop(t):
        return torch.nn.functional.dropout(t, p, training=True)

    with torch._inductor.config.patch(fallback_random=True):
        torch.manual_seed(seed)
        torch.compile(drop)(x)  # compiled, and its result thrown away
    torch.manual_seed(seed)
    return torch.nn.functional.dropout(x, p, training=True)  # eager's numbers, from eager


def _dropout_warmed_up_first(x, p, seed):
    def drop(t):
        return torch.nn.functional.dropout(t, p, training=True)

    compiled = torch.compile(drop)
    compiled(x)  # a warm-up call compiles the graph before the option is on
    with torch._inductor.config.patch(fallback_random=True):
        torch.manual_seed(seed)
        return compiled(x)


def _dropout_eager_into_compiled(x, p, seed):
    def drop(t):
        return torch.nn.functional.dropout(t, p, training=True)

    out = torch.compile(drop)(x)  # inductor's own numbers
    torch.manual_seed(seed)
    return out.copy_(torch.nn.functional.dropout(x, p, training=True))  # eager's, in the compiled result's memory
