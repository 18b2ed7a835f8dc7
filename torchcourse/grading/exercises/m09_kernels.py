"""Module 09's checks, exercises 09.7 and 09.8: the kernels inductor generates, a speed-up measured
warm. The exercises themselves are declared in ``m09``."""

from __future__ import annotations

import math

import torch

from torchcourse.grading.compare import describe
from torchcourse.grading.exercises._inputs import randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises.m09_rules import _fresh

# --- 09.7 the kernels inductor generates for a function ---------------------------------------------


kernel_names = solution("09", "kernel_names")


def _k_pointwise(x):
    return (x.sin() + 1).relu() * 2


def _k_standardise(x):
    return (x - x.mean()) / x.std()


def _k_around_matmul(x):
    y = x.sin()
    return (y @ y.T).relu()


def _k_two_graphs(x):
    y = (x.sin() + 1).relu()
    torch._dynamo.graph_break()  # two graphs, each defining its own kernel, both named after sin, add, relu
    return (y.sin() + 2).relu()  # another constant: another graph, not a cache hit on the first


def _k_one_kernel_called_twice(x):
    q = torch.mm(x.sin() + 1, x)
    return q, q.sin() + 1  # the same fused sin-and-add: one kernel defined, called on x and on q


def _kernel_cases():
    return [
        (_fresh(_k_pointwise), randn(8, 8, seed=971)),
        (_fresh(_k_standardise), randn(64, seed=972)),
        (_fresh(_k_around_matmul), randn(6, 4, seed=973)),  # two kernels around the library's matmul
        (_fresh(_k_two_graphs), randn(5, 3, seed=974)),  # a graph break: one kernel per graph, one name twice
        (_fresh(_k_one_kernel_called_twice), randn(4, 4, seed=975)),  # defined once, called twice: one entry
    ]


def _kernel_property(args, got):
    """09.7: the answer's list equals the kernels inductor writes for a fresh compile of fn."""
    fn, x = args
    if not isinstance(got, (list, tuple)) or not all(isinstance(name, str) for name in got):
        return f"return a list of kernel names (strings), got {describe(got)}"
    expected = kernel_names(_fresh(fn), x.clone())
    if list(got) == list(dict.fromkeys(expected)) != expected:
        return (
            f"inductor generated the kernels {expected} for this function: it has a graph break, each graph defines "
            f"its own kernels, two of them under the same name; list each kernel the log defines, got {list(got)}"
        )
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


def _unique_names(fn, x):
    """Each name once: two graphs' kernels with the same name become one."""
    return list(dict.fromkeys(kernel_names(fn, x)))


def _every_mention(fn, x):
    import re

    from torchcourse.compiletools import captured_logs

    with captured_logs(output_code=True) as logs:
        torch.compile(fn)(x)
    return re.findall(r"\b(?:cpp_fused|triton)\w*", logs.text)


def _call_sites(fn, x):
    """The names where the kernels are called, not where they are defined."""
    from torchcourse.compiletools import captured_logs

    with captured_logs(output_code=True) as logs:
        torch.compile(fn)(x)
    return [line.strip().split("(")[0] for line in logs.grep(r"^\s+(cpp_fused|triton)\w*\(")]


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
