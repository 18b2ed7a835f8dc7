"""Facts lesson 10 (recompilation and dynamic shapes) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import pytest
import torch
from torch._dynamo.testing import CompileCounter

from tests.facts import fact
from torchcourse.compiletools import captured_logs


def f(x):
    return torch.sin(x) * 2 + 1


def by_name(x, name):
    return x + len(name) if name.startswith("add") else x * len(name)


def _compiles(fn, calls, **kwargs) -> int:
    """Graphs the counting backend receives for fn called once with each argument tuple."""
    torch.compiler.reset()
    counter = CompileCounter()
    compiled = torch.compile(fn, backend=counter, **kwargs)
    for args in calls:
        compiled(*args)
    torch.compiler.reset()
    return counter.frame_count


@fact(
    "10",
    "tensor-guard",
    "must be a `Tensor` with this *dispatch key set* (the device: `CPU`, and autograd support for it), dtype "
    "`torch.float32`, `requires_grad=False`, size `[1000]` and stride `[1]`",
)
def _():
    torch.compiler.reset()
    with captured_logs(guards=True) as logs:
        torch.compile(f, backend="eager")(torch.ones(1000))
    torch.compiler.reset()
    guard = logs.require("TENSOR_MATCH")[0]
    for part in (
        "DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU)",
        "torch.float32",
        "requires_grad=False",
        "size=[1000]",
        "stride=[1]",
    ):
        assert part in guard


@fact(
    "10",
    "one-version-per-dtype",
    "Two compiles for two dtypes: dynamo keeps both versions",
    rival="a recompile replaces the version it failed (a cache of one), or it was caused by something else than the "
    "dtype: four calls alternating the dtypes compile twice, not four times, and the one recompile reason is the "
    "tensor guard's dtype mismatch",
)
def _():
    calls = [(torch.ones(10, dtype=d),) for d in (torch.float32, torch.float64, torch.float32, torch.float64)]
    with captured_logs(recompiles=True) as logs:
        assert _compiles(f, calls) == 2
    reasons = [line.strip() for line in logs.text.splitlines() if line.strip().startswith("- ")]
    assert reasons == ["- 0/0: tensor 'x' dtype mismatch. expected Float, actual Double"], reasons


@fact(
    "10",
    "automatic-dynamic",
    "it marks the dimensions that changed as *dynamic* and compiles a graph that takes the size as an input (this "
    "is `automatic_dynamic_shapes`, on by default)",
    rival="dynamo keeps a static graph per size and these sizes happen to fit two of them: the second graph takes "
    "the sizes as symbolic inputs and serves two more sizes, and with automatic_dynamic_shapes off the same four "
    "sizes compile four times",
)
def _():
    assert torch._dynamo.config.automatic_dynamic_shapes is True
    kinds = []

    def backend(gm, example_inputs):
        values = [n.meta["example_value"] for n in gm.graph.nodes if n.op == "placeholder"]
        kinds.append(any(isinstance(v, torch.SymInt) for v in values))
        return gm.forward

    torch.compiler.reset()
    compiled = torch.compile(f, backend=backend)
    for n in (1000, 500, 250, 1500):
        compiled(torch.ones(n, n))
    torch.compiler.reset()
    assert kinds == [False, True]  # static first, then one graph taking the sizes
    with torch._dynamo.config.patch(automatic_dynamic_shapes=False):
        assert _compiles(f, [(torch.ones(n, n),) for n in (1000, 500, 250, 1500)]) == 4


@fact("10", "static-one-per-shape", "`dynamic=False`: always static, one compile per distinct shape.")
def _():
    calls = [(torch.ones(n),) for n in (100, 200, 300, 400, 200)]
    assert _compiles(f, calls, dynamic=False) == 4
    assert _compiles(f, calls, dynamic=True) == 1


@fact("10", "zero-one-specialised", "a size of 0 or 1 gets a constant instead, even with `dynamic=True`")
def _():
    assert _compiles(f, [(torch.ones(n),) for n in (100, 200, 1, 0, 1, 0)], dynamic=True) == 3


@fact(
    "10",
    "mark-unbacked-no-zero-one",
    "`torch._dynamo.decorators.mark_unbacked(x, dim)` asks for more: the size becomes an *unbacked* symbol",
)
def _():
    first = torch.ones(100)
    torch._dynamo.decorators.mark_unbacked(first, 0)
    assert _compiles(f, [(first,)] + [(torch.ones(n),) for n in (200, 1, 0)]) == 1


@fact(
    "10",
    "unbacked-guarded-not-negative",
    "Dynamo traces without knowing its value and guards only that it is not negative",
)
def _():
    x = torch.ones(100)
    torch._dynamo.decorators.mark_unbacked(x, 0)
    torch.compiler.reset()
    with captured_logs(guards=True) as logs:
        torch.compile(f, backend="eager")(x)
    torch.compiler.reset()
    assert "size=[None]" in logs.require("TENSOR_MATCH")[0]
    assert logs.grep(r"0 <= L\['x'\]\.size\(\)\[0\]")


@fact(
    "10",
    "unbacked-branch-breaks",
    "an `if` on the size cannot go into the graph (it splits the function at that line, module 11, or raises with "
    "`fullgraph=True`)",
)
def _():
    def branch(x):
        if x.shape[0] == 5:
            return x + 1
        return x - 1

    def marked():
        x = torch.ones(100)
        torch._dynamo.decorators.mark_unbacked(x, 0)
        return x

    torch.compiler.reset()
    counter = CompileCounter()
    assert torch.equal(torch.compile(branch, backend=counter)(marked()), torch.zeros(100))
    assert counter.frame_count == 2  # split at the if
    torch.compiler.reset()
    with pytest.raises(Exception, match="data-dependent"):
        torch.compile(branch, backend="eager", fullgraph=True)(marked())
    torch.compiler.reset()


@fact(
    "10",
    "python-values-guarded-by-value",
    "each new value compiles once (two strings that take the same branch still compile twice)",
    rival='dynamo guards on the branch the value took, not on the value: "tanh" and "sigmoid" take the same '
    "branch yet compile separately (three compiles for three values, not two for two branches), and a value seen "
    "before compiles nothing",
)
def _():
    def activation(x, mode):
        if mode == "relu":
            return torch.relu(x)
        return torch.tanh(x)

    calls = [(torch.ones(3), m) for m in ("relu", "tanh", "sigmoid", "relu", "tanh")]
    assert _compiles(activation, calls) == 3


@fact(
    "10",
    "numbers-like-sizes",
    "Python *numbers* used only in arithmetic behave like sizes: the first value is specialised, the second makes "
    "the argument dynamic",
    rival="a Python number is guarded by its value like a string (one compile per value): four values compile "
    "twice, the second graph serving the third and fourth",
)
def _():
    def scale(x, k):
        return x * k

    for values in ((2, 3, 4, 5), (0.5, 1.5, 2.5, 3.5)):
        assert _compiles(scale, [(torch.ones(3), k) for k in values]) == 2


@fact(
    "10",
    "recompile-limit-then-eager",
    "Past `recompile_limit` (8 by default) the function runs eagerly with a logged warning",
)
def _():
    assert torch._dynamo.config.recompile_limit == 8
    torch.compiler.reset()
    counter = CompileCounter()
    compiled = torch.compile(by_name, backend=counter)
    names = [f"add{'_' * i}" for i in range(10)]
    with captured_logs(recompiles=True) as logs:
        right = all(torch.equal(compiled(torch.ones(3), s), by_name(torch.ones(3), s)) for s in names)
    torch.compiler.reset()
    assert counter.frame_count == 8 and right
    assert logs.require("hit config.recompile_limit")


@fact(
    "10",
    "wrappers-share-the-limit",
    "Two `torch.compile` wrappers of the same function share dynamo's cache (it lives on the function's code "
    "object), so a second wrapper with another backend adds entries that count toward the same limit.",
    rival="each wrapper keeps its own cache with its own limit of 8: the second wrapper compiles 3 of its 7 new "
    "values, and the function's code object holds 8 entries from the two wrappers together",
)
def _():
    torch.compiler.reset()
    first, second = CompileCounter(), CompileCounter()
    a, b = torch.compile(by_name, backend=first), torch.compile(by_name, backend=second)
    with captured_logs(recompiles=True):
        for i in range(5):
            a(torch.ones(3), "add" + "_" * i)
        for i in range(5, 12):
            b(torch.ones(3), "add" + "_" * i)
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    entries = len(_debug_get_cache_entry_list(by_name.__code__))
    torch.compiler.reset()
    assert (first.frame_count, second.frame_count) == (5, 3) and entries == 8


@fact("10", "fail-on-recompile-refuses-first-compile", "It refuses a function's very first compile too")
def _():
    torch.compiler.reset()
    with torch.compiler.set_stance("fail_on_recompile"), pytest.raises(RuntimeError, match="Detected recompile"):
        torch.compile(f, backend="eager")(torch.ones(3))
    torch.compiler.reset()


@fact(
    "10",
    "eager-on-recompile",
    '`"eager_on_recompile"`: run that call eagerly instead of compiling; inputs that match a compiled version still '
    "run compiled code.",
)
def _():
    torch.compiler.reset()
    counter = CompileCounter()
    compiled = torch.compile(f, backend=counter)
    compiled(torch.ones(3))
    ran = []
    with torch.compiler.set_stance("eager_on_recompile"):
        out64 = compiled(torch.ones(3, dtype=torch.float64))  # no version matches: eager
        compiled(torch.ones(3))  # the float32 version
        ran.append(counter.frame_count)
    torch.compiler.reset()
    assert ran == [1] and torch.equal(out64, f(torch.ones(3, dtype=torch.float64)))


@fact("10", "set-stance-three-forms", "(a function, a context manager or a decorator)")
def _():
    torch.compiler.reset()
    counter = CompileCounter()
    compiled = torch.compile(f, backend=counter)

    @torch.compiler.set_stance("force_eager")
    def decorated():
        return compiled(torch.ones(3))

    decorated()
    with torch.compiler.set_stance("force_eager"):
        compiled(torch.ones(3))
    torch.compiler.set_stance("force_eager")
    try:
        compiled(torch.ones(3))
    finally:
        torch.compiler.set_stance("default")
    assert counter.frame_count == 0
    compiled(torch.ones(3))
    torch.compiler.reset()
    assert counter.frame_count == 1


@fact(
    "10",
    "reset-forgets-sizes",
    "`torch.compiler.reset()` drops every compiled version of every function (and dynamo's memory of sizes it has "
    "seen)",
)
def _():
    torch.compiler.reset()
    counter = CompileCounter()
    compiled = torch.compile(f, backend=counter)
    compiled(torch.ones(10))
    compiled(torch.ones(20))  # dynamic now
    torch.compiler.reset()
    compiled(torch.ones(30))  # static again: sizes forgotten
    compiled(torch.ones(30))
    compiled(torch.ones(40))  # a second size: dynamic again
    torch.compiler.reset()
    assert counter.frame_count == 4


@fact(
    "10",
    "mark-dynamic-then-specialise-raises",
    "A branch that pins that size to one value breaks the promise, and dynamo refuses with a "
    "`ConstraintViolationError`",
)
def _():
    from torch.fx.experimental.symbolic_shapes import ConstraintViolationError

    def first_or_rest(x):
        if x.shape[0] == 1000:
            return x + 1
        return x - 1

    batch = torch.ones(1000)
    torch._dynamo.mark_dynamic(batch, 0)
    torch.compiler.reset()
    with captured_logs(), pytest.raises(ConstraintViolationError):
        torch.compile(first_or_rest, backend="eager")(batch)
    torch.compiler.reset()


@fact(
    "10",
    "global-state-guards",
    "Besides the arguments, dynamo guards on global state: grad mode, the thread count (`torch.set_num_threads`), "
    "the default dtype and a few more",
    since=(2, 13),
    rival="the recompile comes from the argument, not from global state (a float64 default, say, would make the "
    "argument float64): the same tensor, made before the change, is passed again, and the reason names the "
    "global state",
)
def _():
    def f(x):
        return x.sin() + 1

    threads = torch.get_num_threads()
    changes = {
        "grad_mode": (lambda: torch.set_grad_enabled(False), lambda: torch.set_grad_enabled(True)),
        "num_threads": (lambda: torch.set_num_threads(1), lambda: torch.set_num_threads(2)),
        "default_dtype": (
            lambda: torch.set_default_dtype(torch.float64),
            lambda: torch.set_default_dtype(torch.float32),
        ),
    }
    try:
        for name, (change, undo) in changes.items():
            torch.compiler.reset()
            counter = CompileCounter()
            compiled = torch.compile(f, backend=counter)
            torch.set_num_threads(2)
            x = torch.ones(3)
            compiled(x)
            with captured_logs(recompiles=True) as logs:
                change()
                try:
                    compiled(x)  # the same float32 tensor: only the global state changed
                finally:
                    undo()
            assert counter.frame_count == 2 and f"GLOBAL_STATE changed: {name}" in logs.text, name
    finally:
        torch.set_num_threads(threads)
        torch.compiler.reset()


@fact(
    "10",
    "comparison-on-marked-size-guards",
    "A comparison such as `x.shape[0] > 50` only adds a guard (the size stays a symbol: this graph serves "
    "every size above 50); a branch that pins the size to one value (`x.shape[0] == 100` taken with a size of 100, or "
    "`!= 100` not taken) makes dynamo raise",
    rival="any branch on a marked size raises (then `>`, `<` and a `!=` that is taken would raise too)",
)
def _():
    from torch.fx.experimental.symbolic_shapes import ConstraintViolationError

    def outcome(op):
        ns: dict = {}
        exec(f"def b(x):\n    if x.shape[0] {op}:\n        return x + 1\n    return x - 1\n", ns)
        torch.compiler.reset()
        x = torch.ones(100)
        torch._dynamo.mark_dynamic(x, 0)
        counter = CompileCounter()
        try:
            with captured_logs():
                torch.compile(ns["b"], backend=counter)(x)
        except ConstraintViolationError:
            return "raises"
        finally:
            torch.compiler.reset()
        return counter.frame_count

    for op in ("> 500", "> 50", "< 50", "!= 50", ">= 7"):
        assert outcome(op) == 1, op
    for op in ("== 100", "!= 100"):
        assert outcome(op) == "raises", op


@fact(
    "10",
    "fail-on-recompile-limit-hit",
    "To make hitting the limit an error instead, set `torch._dynamo.config.fail_on_recompile_limit_hit = True`",
)
def _():
    from torch._dynamo.exc import FailOnRecompileLimitHit

    torch.compiler.reset()
    compiled = torch.compile(by_name, backend="eager")
    with torch._dynamo.config.patch(recompile_limit=2, fail_on_recompile_limit_hit=True), captured_logs():
        with pytest.raises(FailOnRecompileLimitHit):
            for name in ("add", "add_", "add__"):
                compiled(torch.ones(3), name)
    torch.compiler.reset()


@fact(
    "10",
    "dynamic-true-is-assume-static-off",
    "`dynamic=True` sets `assume_static_by_default=False`: sizes are symbols from the first compile",
)
def _():
    from torch._dynamo.eval_frame import make_set_enable_dynamic

    assert torch._dynamo.config.assume_static_by_default is True  # the default
    calls = [(torch.ones(n),) for n in (100, 200, 300, 1, 0, 200)]
    assert _compiles(f, calls, dynamic=True) == 3
    with torch._dynamo.config.patch(assume_static_by_default=False):
        assert _compiles(f, calls) == 3
    revert = make_set_enable_dynamic(True)()  # what torch.compile(dynamic=True) applies around each call
    try:
        assert torch._dynamo.config.assume_static_by_default is False
        assert torch._dynamo.config.automatic_dynamic_shapes is True
    finally:
        revert()


@fact(
    "10",
    "dynamic-false-is-automatic-off",
    "`dynamic=False` sets `automatic_dynamic_shapes=False`: each new size recompiles a static graph",
)
def _():
    from torch._dynamo.eval_frame import make_set_enable_dynamic

    calls = [(torch.ones(n),) for n in (100, 200, 300, 1, 0, 200)]
    assert _compiles(f, calls, dynamic=False) == 5
    with torch._dynamo.config.patch(automatic_dynamic_shapes=False):
        assert _compiles(f, calls) == 5
    revert = make_set_enable_dynamic(False)()
    try:
        assert torch._dynamo.config.automatic_dynamic_shapes is False
        assert torch._dynamo.config.assume_static_by_default is True
    finally:
        revert()


@fact(
    "10",
    "dynamic-none-keeps-defaults",
    "`dynamic=None` keeps both defaults: static on the first call, automatic dynamic after a recompile caused by a "
    "size change",
)
def _():
    assert torch._dynamo.config.assume_static_by_default is True
    assert torch._dynamo.config.automatic_dynamic_shapes is True
    calls = [(torch.ones(n),) for n in (100, 200, 300, 1, 0, 200)]
    assert _compiles(f, calls) == 4


@fact(
    "10",
    "mark-dynamic-guard-at-least-two",
    "adds a guard of its own: the size is at least 2, which is how lengths 0 and 1 are sent to other graphs",
    rival="the tensor guard's size entry sends 0 and 1 elsewhere: it holds no size (None) for the marked "
    "dimension, and the separate guard 2 <= size is the one that fails for them",
)
def _():
    x = torch.ones(100)
    torch._dynamo.mark_dynamic(x, 0)
    torch.compiler.reset()
    with captured_logs(guards=True) as logs:
        torch.compile(f, backend="eager")(x)
    torch.compiler.reset()
    assert "size=[None]" in logs.require("TENSOR_MATCH")[0]
    assert logs.grep(r"2 <= L\['x'\]\.size\(\)\[0\]")
    marked = torch.ones(100)
    torch._dynamo.mark_dynamic(marked, 0)
    assert _compiles(f, [(marked,)] + [(torch.ones(n),) for n in (1, 0, 50)]) == 3


@fact(
    "10",
    "maybe-mark-dynamic-no-promise",
    "`torch._dynamo.maybe_mark_dynamic` is the same mark without the promise",
)
def _():
    def first_or_rest(x):
        if x.shape[0] == 1000:
            return x + 1
        return x - 1

    x = torch.ones(1000)
    torch._dynamo.maybe_mark_dynamic(x, 0)
    torch.compiler.reset()
    out = torch.compile(first_or_rest, backend="eager")(x)  # specialises quietly: no error
    torch.compiler.reset()
    assert torch.equal(out, x + 1)
    y = torch.ones(100)
    torch._dynamo.maybe_mark_dynamic(y, 0)
    assert _compiles(f, [(y,)] + [(torch.ones(n),) for n in (200, 300)]) == 1  # no branch: dynamic from the start
