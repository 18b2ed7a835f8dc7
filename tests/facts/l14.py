"""Facts lesson 14 (autograd as a calculus engine) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import inspect

import pytest
import torch
from torch.func import grad, hessian, vmap
from torch.utils._python_dispatch import TorchDispatchMode

from tests.facts import fact

F64 = torch.float64


@fact(
    "14",
    "default-dtype-float64",
    "The last line makes float64 the default for new floating tensors in this notebook",
)
def _():
    before = torch.get_default_dtype()
    try:
        torch.set_default_dtype(F64)
        assert torch.tensor([1.0]).dtype == F64 and torch.linspace(0, 1, 3).dtype == F64
        assert torch.zeros(2).dtype == F64
        assert torch.tensor([1, 2]).dtype == torch.int64  # integers are not floating tensors
    finally:
        torch.set_default_dtype(before)


@fact(
    "14",
    "sum-gives-every-derivative",
    "Each `f[i]` depends only on `x[i]`, so the gradient of the sum with respect to `x` is exactly the vector "
    "of the 200 derivatives `f'(x[i])`",
    rival="the gradient of a sum is always the vector of each output's own derivative, whatever the function: "
    "for cumsum(sin(x)), whose outputs mix elements, it is not cos(x) but a sum over later outputs",
)
def _():
    x = torch.linspace(0, 4, 200, dtype=F64, requires_grad=True)
    (d,) = torch.autograd.grad(torch.sin(x).sum(), x)
    assert torch.equal(d, torch.cos(x.detach()))
    (mixed,) = torch.autograd.grad(torch.cumsum(torch.sin(x), 0).sum(), x)
    later = torch.arange(200, 0, -1, dtype=F64)  # x[i] reaches the 200 - i outputs from i on
    assert not torch.allclose(mixed, torch.cos(x.detach())) and torch.allclose(mixed, later * torch.cos(x.detach()))


@fact(
    "14",
    "grad-of-non-scalar",
    "Autograd needs a scalar to start from; sum first (or pass `grad_outputs`)",
)
def _():
    x = torch.linspace(0, 1, 5, dtype=F64, requires_grad=True)
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        torch.autograd.grad(x**2, x)
    (d,) = torch.autograd.grad(x**2, x, grad_outputs=torch.ones_like(x))
    assert torch.allclose(d, 2 * x.detach())


@fact(
    "14",
    "leaf-inplace-refused",
    "A Newton or descent update written `x -= step` on a tensor that requires grad is refused; update inside "
    "`torch.no_grad()` or build a new tensor",
)
def _():
    x = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x -= 0.1 * x
    with torch.no_grad():
        x -= 0.1 * x
    assert torch.allclose(x.detach(), torch.full((3,), 0.9)) and x.requires_grad and x.is_leaf


@fact(
    "14",
    "graph-freed-after-backward",
    "The graph is freed after the first pass; recompute the function (as `newton` above does each step) or "
    "pass `retain_graph=True`",
)
def _():
    x = torch.ones(3, requires_grad=True)
    y = (x**3).sum()
    torch.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        torch.autograd.grad(y, x)
    y = (x**3).sum()
    torch.autograd.grad(y, x, retain_graph=True)
    torch.autograd.grad(y, x)  # allowed once more


@fact("14", "no-grad-stops-recording", "`torch.no_grad()` stops recording")
def _():
    w = torch.ones(2, requires_grad=True)
    with torch.no_grad():
        y = w * 2
    assert not y.requires_grad and y.grad_fn is None and not y.is_inference()


@fact(
    "14",
    "inference-mode-skips-version-counters",
    "`torch.inference_mode()` also skips the bookkeeping autograd relies on to check saved tensors later "
    "(version counters, view tracking)",
)
def _():
    with torch.no_grad():
        normal = torch.ones(4) * 2
    assert normal._version == 0
    with torch.inference_mode():
        inf = torch.ones(4) * 2
        view = inf[:2]
    with pytest.raises(RuntimeError, match="do not track version counter"):
        _ = inf._version
    assert inf.is_inference() and view.is_inference() and view._base is None  # no view tracking


@fact(
    "14",
    "inference-tensors-not-saved-not-inplace",
    "its outputs, *inference tensors*, cannot be saved for a backward pass nor changed in place outside "
    "`inference_mode` (see *Common mistakes*); an operation that only reads them, such as `w + y_inf`, can "
    "still be recorded.",
)
def _():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    with torch.inference_mode():
        y_inf = w * 2
    (g,) = torch.autograd.grad((w + y_inf).sum(), w)  # add saves nothing: recorded and differentiated
    assert g.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        (w * y_inf).sum().backward()
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor outside InferenceMode"):
        y_inf.add_(1)


@fact(
    "14",
    "func-grad-is-a-function",
    "`grad(f)` is a new function that returns the gradient of `f`, and it composes with `vmap`",
)
def _():
    def f(v):
        return (v**2).sum()

    g = grad(f)
    assert callable(g) and torch.equal(g(torch.tensor([1.0, 2.0])), torch.tensor([2.0, 4.0]))
    points = torch.arange(6.0).reshape(2, 3)
    assert torch.equal(vmap(g)(points), 2 * points)
    assert vmap(hessian(f))(points).shape == (2, 3, 3)


@fact(
    "14",
    "dispatch-mode-sees-forward-and-backward",
    "A `TorchDispatchMode` sees every ATen operation that reaches PyTorch's kernels, forward and backward",
)
def _():
    seen = []

    class Names(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            seen.append(func.__name__)
            return func(*args, **(kwargs or {}))

    with Names():
        grad(lambda v: torch.relu(v).sum())(torch.tensor([-1.0, 2.0]))
    assert "relu.default" in seen and "threshold_backward.default" in seen


@fact(
    "14",
    "inductor-thread-count-at-compile-time",
    "Inductor writes the count in force into its C++ kernels (module 11), and Dynamo guards on it, so a later "
    "change would compile the step a second time",
    rival="a compiled function keeps the thread count it was compiled with whatever you set later (then setting "
    "it first would be the only way, and a later change would silently run the old count)",
)
def _():
    from torch._dynamo.testing import CompileCounter
    from torch._inductor.codegen import cpp
    from torch._inductor.utils import parallel_num_threads

    assert "torch.get_num_threads()" in inspect.getsource(parallel_num_threads)
    assert 'f"#pragma omp parallel num_threads({threads})"' in inspect.getsource(cpp)
    # the rival: under it, the second call would reuse the first graph (1 frame)
    before = torch.get_num_threads()
    torch._dynamo.reset()
    counter = CompileCounter()
    f = torch.compile(lambda t: t.sin() + 1, backend=counter)
    try:
        torch.set_num_threads(1)
        f(torch.ones(3))
        torch.set_num_threads(2)
        f(torch.ones(3))
    finally:
        torch.set_num_threads(before)
        torch._dynamo.reset()
    assert counter.frame_count == 2
    assert '"num_threads"' in torch._C._dynamo.guards.GlobalStateGuard().__getstate__()


@fact(
    "14",
    "kink-gets-a-convention",
    "Autograd does not refuse and does not warn: each operation's backward formula returns *some* number there.",
)
def _():
    import warnings

    x = torch.zeros((), dtype=F64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert torch.autograd.grad(x.abs(), x)[0].item() == 0.0  # sign(0)
        assert torch.autograd.grad(torch.relu(x), x)[0].item() == 0.0
        assert torch.autograd.grad(x.clamp(min=0), x)[0].item() == 1.0  # another kink, another convention
        assert torch.autograd.grad(x.sqrt(), x)[0].item() == float("inf")


@fact(
    "14",
    "where-nan-in-unused-branch",
    "the unused branch gets a zero gradient, and 0 times sqrt's NaN derivative is NaN",
    rival="where's backward sends no gradient at all into the branch it did not take (then the result would be 0)",
)
def _():
    x = torch.tensor([-1.0, 4.0], dtype=F64, requires_grad=True)
    (g,) = torch.autograd.grad(torch.where(x > 0, torch.sqrt(x), 0.0).sum(), x)
    assert g[0].isnan() and g[1].item() == 0.25
    safe = torch.where(x > 0, x, 1.0)
    (g2,) = torch.autograd.grad(torch.where(x > 0, torch.sqrt(safe), 0.0).sum(), x)
    assert g2.tolist() == [0.0, 0.25]
    # the same with torch.func.grad
    assert grad(lambda v: torch.where(v > 0, torch.sqrt(v), 0.0).sum())(x.detach())[0].isnan()


@fact(
    "14",
    "vmap-data-dependent-if-raises",
    "So a Python `if` on a value of the row cannot work: each row may want a different branch.",
    rival="vmap refuses any Python `if` in the function: an `if` on the row's shape, which is the same for every "
    "row, runs under vmap; and an `if` on the values raises even when every row would take the same branch",
)
def _():
    def f(v):
        return v.sin().sum() if v.sum() > 0 else v.cos().sum()

    assert grad(f)(torch.ones(2, dtype=F64)).shape == (2,)
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        vmap(grad(f))(torch.ones(5, 2, dtype=F64))
    # even when every row would take the same branch
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        vmap(f)(torch.ones(5, 2, dtype=F64))

    def by_shape(v):
        return v.sin().sum() if v.shape[0] > 1 else v.cos().sum()

    rows = torch.rand(5, 2, dtype=F64)
    assert torch.allclose(vmap(by_shape)(rows), rows.sin().sum(dim=1))
