"""Module 12's rules and case builders for the exercises 12.3-12.8 (imported by m12.py).

Points around random means, the nearest-mean property of 12.5, the reused-buffer rule of 12.6, the
12.7 cases (NumPy functions whose compiled dtype, shape or type may differ from NumPy's)
and the counting backend, tensor inputs and meta-device run of 12.8.
"""

from __future__ import annotations

import types

import numpy as np
import torch

from torchcourse.bench.workloads import kmeans as km
from torchcourse.grading.compare import compare, describe
from torchcourse.grading.exercises._inputs import generator, randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.rules import Case, Rule


def _points(n: int, k: int, seed: int, dtype=torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` 2-D points scattered around ``k`` random means, and those means."""
    g = generator(seed)
    means = torch.rand(k, 2, generator=g, dtype=torch.float64) * 10
    X = means[torch.randint(0, k, (n,), generator=g)] + torch.randn(n, 2, generator=g, dtype=torch.float64)
    return X.to(dtype), means.to(dtype)


def _nearest(X, means):
    return ((X[None, :, :] - means[:, None, :]) ** 2).sum(-1).argmin(0)


def _nearest_mean_property(args, got):
    """12.5 defines its goal by a property: (X @ W + c).argmax(dim=1) is the nearest mean of each
    row of X. Any (W, c) that does that passes (e.g. twice the reference's W and c)."""
    (means,) = args
    k, d = means.shape
    if not (isinstance(got, (tuple, list)) and len(got) == 2):
        return f"return a pair (W, c), got {describe(got)}"
    W, c = got
    for name, t, shape in (("W", W, (d, k)), ("c", c, (k,))):
        if not isinstance(t, torch.Tensor):
            return f"{name} should be a tensor of shape {shape}, got {describe(t)}"
        if tuple(t.shape) != shape:
            return f"{name} should have shape {shape} (means has shape {(k, d)}), got {tuple(t.shape)}"
    g = generator(1205)
    m64 = means.detach().double()
    spread = float(m64.std()) if m64.numel() > 1 else 1.0
    X64 = torch.cat(
        [
            m64[torch.randint(0, k, (200,), generator=g)]
            + torch.randn(200, d, generator=g, dtype=torch.float64) * spread,
            torch.randn(50, d, generator=g, dtype=torch.float64) * 10 * (spread + 1),  # far away
        ]
    )
    dist = ((X64[:, None, :] - m64[None]) ** 2).sum(-1)
    nearest = dist.argmin(1)
    two = dist.topk(min(2, k), dim=1, largest=False).values
    clear = (two[:, -1] - two[:, 0]) > 1e-3 * (1 + two[:, 0]) if k > 1 else torch.ones(len(X64), dtype=torch.bool)
    try:
        picked = (X64.to(means.dtype) @ W.detach().to(means.dtype) + c.detach().to(means.dtype)).argmax(dim=1)
    except Exception as exc:  # noqa: BLE001
        return f"(X @ W + c) failed with your W and c ({type(exc).__name__}: {exc})"
    bad = (clear & (picked != nearest)).nonzero().flatten()
    if bad.numel():
        i = int(bad[0])
        point = [round(v, 3) for v in X64[i].tolist()]
        return (
            f"(X @ W + c).argmax(dim=1) picks mean {int(picked[i])} for {bad.numel()} of {int(clear.sum())} test "
            f"points, e.g. the point {point}, whose nearest mean is {int(nearest[i])}"
        )
    return None


def _returns_out(args: tuple, got) -> str | None:
    """Like PyTorch's out= arguments, the function returns the buffer it filled."""
    if got is not args[0]:
        return "out holds the right labels, but return out itself (as out.copy_(...) does), not a new tensor"
    return None


class KeepsBuffer(Rule):
    """12.6 "writes into the preallocated tensor out, in place, reusing one buffer": the labels land
    in out's own memory. Judged on a fresh run: out keeps its storage (an ``out.set_(...)`` or
    ``out.data = ...`` swaps in new memory and leaves the buffer as it was), and a view of out
    taken before the call sees the labels."""

    name = "into the buffer"

    def judge(self, case: Case) -> str | None:
        out, X, means = case.fresh()
        pointer, before = out.untyped_storage().data_ptr(), out[:]
        try:
            case.fn(out, X, means)
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        if out.untyped_storage().data_ptr() != pointer:
            return (
                "out now points at new memory (its storage was swapped, e.g. by set_ or .data =), so the "
                "buffer the caller allocated was never written; write into it: out.copy_(labels) or out[:] = labels"
            )
        msg = compare(before, _nearest(X, means).to(torch.int8))
        if msg:
            return f"a view of out taken before the call does not see the labels ({msg}); write into out's own memory"
        return None


def _into_set(out, X, means):
    return out.set_(_nearest(X, means).to(torch.int8))


def _into_data(out, X, means):
    out.data = _nearest(X, means).to(torch.int8)
    return out


def _into_cases():
    cases = []
    for n, k, seed in ((40, 2, 10), (25, 3, 11), (8, 5, 12)):
        X, means = _points(n, k, seed)
        cases.append((torch.full((n,), -1, dtype=torch.int8), X, means))
    return cases


class CountingBackend:
    """A torch.compile backend that counts the graphs it is given and runs them as they are."""

    def __init__(self) -> None:
        self.graphs = 0

    def __call__(self, gm, example_inputs):
        self.graphs += 1
        return gm.forward


def _centre(x):
    return x - x.mean(axis=0)


_TENSOR_INPUTS = {
    km.assign_numpy: lambda: [_points(30, 3, seed=21), _points(1, 1, seed=22, dtype=torch.float64)],
    _centre: lambda: [(randn(5, 3, seed=23),), (randn(4, 2, seed=24, dtype=torch.float64).T,)],
}


def _on_tensors_outside(np_fn, backend):
    """NumPy arrays cross the boundary: np_fn compiled, the conversions in eager Python around it."""
    compiled = torch.compile(np_fn, backend=backend)
    return lambda *ts: torch.from_numpy(np.asarray(compiled(*(t.numpy() for t in ts))))


def _on_tensors_cases():
    return [(km.assign_numpy, CountingBackend()), (_centre, CountingBackend())]


def _on_tensors_property(args, got):
    """12.8: the returned function takes tensors and returns a tensor equal to the NumPy result,
    and calling it compiles exactly one graph with the backend it was given. It also runs on
    tensors on the ``meta`` device, which has no CPU copy of the data, as a GPU tensor has none:
    a compiled function that takes and returns tensors runs there (the NumPy code is traced as
    torch operations on the tensors' own device), one that converts to NumPy arrays outside the
    compiled code (``.numpy()``) cannot."""
    np_fn, backend = args
    if not callable(got) or isinstance(got, type):
        return f"return the compiled function, got {describe(got)}"
    for inputs in _TENSOR_INPUTS[np_fn]():
        backend.graphs = 0
        # every case compiles afresh for its own backend: keep dynamo from giving up after 8 of them
        with torch._dynamo.config.patch(recompile_limit=10_000, accumulated_recompile_limit=1_000_000):
            try:
                out = got(*[t.clone() for t in inputs])
            except Exception as exc:  # noqa: BLE001
                text = (str(exc).strip().splitlines() or [""])[0]
                return f"calling your function on tensors raised {type(exc).__name__}: {text}"
        expected = torch.from_numpy(np.asarray(np_fn(*[t.numpy() for t in inputs])))
        shapes = ", ".join(str(tuple(t.shape)) for t in inputs)
        if not isinstance(out, torch.Tensor):
            return f"given tensors, your function returns {describe(out)}; it should return a tensor (tensors out)"
        msg = compare(out, expected)
        if msg:
            return f"on tensors of shape {shapes}: {msg}"
        if backend.graphs == 0:
            return "calling your function compiled no graph; compile it with torch.compile(..., backend=backend)"
        if backend.graphs > 1:
            return f"calling your function compiled {backend.graphs} graphs (graph breaks); make it one graph"
    return _on_device(got, np_fn, backend)


def _on_device(got, np_fn, backend):
    """12.8, with the first inputs on the meta device: a tensor of the NumPy result's shape, on meta,
    from one graph. (Meta stands for a GPU: the data never comes to the CPU.)"""
    inputs = _TENSOR_INPUTS[np_fn]()[0]
    expected = torch.from_numpy(np.asarray(np_fn(*[t.numpy() for t in inputs])))
    backend.graphs = 0
    with torch._dynamo.config.patch(recompile_limit=10_000, accumulated_recompile_limit=1_000_000):
        try:
            out = got(*[t.to("meta") for t in inputs])
        except Exception as exc:  # noqa: BLE001
            text = (str(exc).strip().splitlines() or [""])[0].rstrip(".")
            return (
                f"on tensors that are not on the CPU (the meta device, as a GPU's would be) your function raised "
                f"{type(exc).__name__}: {text}; tensors in, tensors out means the NumPy code runs inside the "
                "compiled function, on the tensors' device (convert inside it, or use torch.compiler.wrap_numpy)"
            )
    if not isinstance(out, torch.Tensor) or out.device.type != "meta":
        where = f"a tensor on {out.device}" if isinstance(out, torch.Tensor) else describe(out)
        return (
            f"given tensors on the meta device (standing for a GPU's), your function returns {where}; "
            "keep the data on the tensors' device: run the NumPy code inside the compiled function"
        )
    msg = compare(out, expected.to("meta"))
    if msg:
        return f"on meta tensors: {msg}"
    if backend.graphs != 1:
        return f"on meta tensors, calling your function compiled {backend.graphs} graphs; make it one graph"
    return None


# --- 12.7 what the compiled NumPy function returns ----------------------------------------------


def _nd_total(x):
    return x.sum()


def _nd_centred(x):
    return x - x.mean(axis=0)


def _nd_scaled(x):
    return x * 2.5


def _nd_max_int(x):
    return np.max(x)


def _nd_norms(x):
    return np.linalg.norm(x, axis=-1)


def _nd_halved(x):
    return x / 2  # int32: NumPy gives float64, the compiled code float32


def _nd_cumulative(x):
    return np.cumsum(x)  # int8: NumPy gives int64, the compiled code int8


def _fresh(f):
    """``f`` with its own code object, so no compiled graph is reused from an earlier call."""
    return types.FunctionType(f.__code__.replace(), f.__globals__, f.__name__, f.__defaults__, f.__closure__)


compiled_kind = solution("12", "compiled_kind")


def _kind_cases():
    rng = np.random.default_rng(1207)
    return [
        (_fresh(_nd_total), rng.standard_normal(5).astype(np.float32)),
        (_fresh(_nd_total), rng.standard_normal((2, 3)).astype(np.float16)),
        (_fresh(_nd_total), rng.integers(-9, 9, (2, 2), dtype=np.int8)),
        (_fresh(_nd_centred), rng.standard_normal((4, 3))),
        (_fresh(_nd_centred), rng.integers(0, 9, (3, 2), dtype=np.int16)),
        (_fresh(_nd_scaled), rng.standard_normal(3).astype(np.float32)),
        (_fresh(_nd_max_int), rng.integers(-5, 5, (1, 4), dtype=np.int32)),
        (_fresh(_nd_norms), rng.standard_normal((3, 2)).astype(np.float32)),
        (_fresh(_nd_norms), rng.standard_normal((1, 1))),
        (_fresh(_nd_halved), rng.integers(-9, 9, 4, dtype=np.int32)),
        (_fresh(_nd_cumulative), rng.integers(-9, 9, 5, dtype=np.int8)),
    ]


def _kind_of_eager_as_array(np_fn, x):
    """NumPy's own result made an array: right wherever only the scalar differs, not the dtype."""
    out = np.asarray(np_fn(x))
    return out.dtype, out.shape, type(out)


def _kind_property(args, got):
    """12.7 compares each of the three parts with what the compiled function really returned."""
    np_fn, x = args
    if not (isinstance(got, (tuple, list)) and len(got) == 3):
        return f"return a triple (dtype, shape, type), got {describe(got)}"
    dtype, shape, kind = compiled_kind(np_fn, x.copy())
    if not isinstance(got[0], np.dtype) or got[0] != dtype:
        return f"the dtype should be the NumPy dtype {dtype!r}, got {describe(got[0])}"
    if not isinstance(got[1], tuple) or got[1] != shape:
        return f"the shape should be {shape}, got {describe(got[1])}"
    if got[2] is not kind:
        eager = type(np_fn(x.copy()))
        told = " (that is what the NumPy function returns without compiling it)" if got[2] is eager else ""
        name = f"{got[2].__module__}.{got[2].__name__}" if isinstance(got[2], type) else describe(got[2])
        return f"the compiled function returns a numpy.{kind.__name__}, got {name}{told}"
    return None
