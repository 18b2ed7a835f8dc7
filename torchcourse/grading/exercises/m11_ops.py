"""Module 11's checks for opaque code kept inside one graph (11.7) and for outputs kept across
CUDA-graph replays (11.8); imported by m11.py.

11.7 hands the answer a fresh operator name on every call (:class:`OpName`: the reference and the
answer register different operators, so neither replaces the other's implementation), then runs
the returned operator on real tensors, compiles a caller with a counting backend, and calls it on
``meta`` and fake tensors. 11.8 passes a stand-in for a ``mode="reduce-overhead"`` function that
writes every result into one output buffer, as a CUDA-graph replay does, so it runs on the CPU.
"""

from __future__ import annotations

import itertools
import warnings

import torch

from torchcourse.compiletools import captured_logs
from torchcourse.grading.compare import compare, describe
from torchcourse.grading.exercises._solutions import solution

_numbers = itertools.count()


class OpName(str):
    """An operator name (``"course_ex::bins_<n>"``); every copy is a new, unused name."""

    def __new__(cls) -> OpName:
        return super().__new__(cls, f"course_ex::bins_{next(_numbers)}")

    def __deepcopy__(self, memo) -> OpName:
        return OpName()

    def __copy__(self) -> OpName:
        return OpName()


def _bins_np(a):
    """The NumPy function the exercise gives (read when a check runs: the solutions import m11)."""
    return solution("11", "bins_np")(a)


def _op_cases():
    return [(OpName(),)]


def _values_cases() -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(1107)
    return [
        torch.tensor([0.1, 0.25, 0.5, 0.6, 0.75, 0.9]),  # values on the edges
        torch.tensor([-2.0, 3.0, 0.0]),  # below the first edge, above the last
        torch.rand(20, generator=g, dtype=torch.float64),
        torch.rand(12, generator=g)[::3],  # not contiguous
        torch.zeros(0),
    ]


def _first_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"


def _compiled_caller(op, x):
    """``op(t * 2) + 1`` compiled with a counting backend: (graphs, breaks, op names, output)."""
    from torch._dynamo.utils import counters

    graphs: list[torch.fx.GraphModule] = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def caller(t):
        return op(t * 2) + 1

    before = sum(counters["graph_break"].values())
    with captured_logs(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = torch.compile(caller, backend=backend)(x)
    names = [str(n.target) for gm in graphs for n in gm.graph.nodes if n.op == "call_function"]
    return len(graphs), sum(counters["graph_break"].values()) - before, names, out


def _bins_op_property(args, got):
    """11.7: the returned operator gives bins_np's labels as an int64 tensor; ``op(t * 2) + 1``
    compiles into one graph with no break that calls the operator registered under ``name``;
    on ``meta`` and fake tensors it returns the right shape and dtype without data."""
    (name,) = args
    if not callable(got):
        return f"return the operator (the function torch.library.custom_op decorated), got {describe(got)}"
    for x in _values_cases():
        try:
            out = got(x.clone())
        except Exception as exc:  # noqa: BLE001
            return f"calling your operator on a tensor of shape {tuple(x.shape)} raised {_first_line(exc)}"
        msg = compare(out, torch.from_numpy(_bins_np(x.numpy())))
        if msg:
            return f"on {describe(x)}: {msg}"
    x = torch.tensor([0.05, 0.2, 0.3, 0.45])
    try:
        graphs, breaks, names, out = _compiled_caller(got, x.clone())
    except Exception as exc:  # noqa: BLE001
        if "fake" not in str(exc).lower():
            return f"compiling op(t * 2) + 1 raised {_first_line(exc)}"
        return (
            f"compiling op(t * 2) + 1 raised {_first_line(exc)}; the compiler traces with fake tensors "
            "(shapes, no data), so the operator needs a fake implementation (register_fake) that works on them"
        )
    if graphs != 1 or breaks:
        return (
            f"compiled, op(t * 2) + 1 makes {graphs} graph(s) with {breaks} graph break(s); register the "
            "NumPy code as a custom operator (torch.library.custom_op) so that it stays inside the graph"
        )
    op_name = name.replace("::", ".")
    if not any(n == op_name or n.startswith(op_name + ".") for n in names):
        return f"the compiled graph does not call an operator named {name!r}; register your operator under name"
    msg = compare(out, torch.from_numpy(_bins_np((x * 2).numpy())) + 1)
    if msg:
        return f"compiled, op(t * 2) + 1 gives other values: {msg}"
    return _fake_message(got)


def _fake_message(op) -> str | None:
    """The operator on tensors without data: ``meta`` and fake tensors of a few shapes."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    for n in (7, 0, 10**9):
        try:
            meta = op(torch.empty(n, device="meta"))
            with FakeTensorMode():
                fake = op(torch.empty(n))
        except Exception as exc:  # noqa: BLE001
            return (
                f"on a meta tensor of shape ({n},) (shape and dtype, no data, as tracing uses) your operator "
                f"raised {_first_line(exc)}; its fake implementation must build the output without the data"
            )
        for what, out in (("meta", meta), ("fake", fake)):
            if not isinstance(out, torch.Tensor) or tuple(out.shape) != (n,) or out.dtype != torch.int64:
                got = f"shape {tuple(out.shape)}, dtype {out.dtype}" if isinstance(out, torch.Tensor) else describe(out)
                return (
                    f"on a {what} tensor of shape ({n},) your operator says it returns {got}; the real one returns "
                    f"shape ({n},), dtype torch.int64: the fake implementation must give the real output's shape "
                    "and dtype"
                )
        if meta.device.type != "meta":
            return (
                f"on a meta tensor your operator returns a tensor on {meta.device}; the output belongs on the "
                "input's device (torch.empty_like(x, ...) or device=x.device)"
            )
    return None


# --- 11.8 outputs kept across replays --------------------------------------------------------


def _replay_fn(x):
    return (x * 1.5 + 0.5).relu() * 3


class ReplayStep:
    """Stands for ``torch.compile(fn, mode="reduce-overhead")`` on a GPU: each call writes its result
    into the same output buffer, as a CUDA-graph replay does, and returns that buffer."""

    def __init__(self, shape: tuple[int, ...], dtype: torch.dtype = torch.float32) -> None:
        self.out = torch.zeros(shape, dtype=dtype)
        self.calls = 0

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        self.out.copy_(_replay_fn(x))
        return self.out

    def __repr__(self) -> str:
        return f"ReplayStep(output buffer of shape {tuple(self.out.shape)})"


def _replay_cases():
    g = torch.Generator().manual_seed(1108)
    return [
        (ReplayStep((4,)), [torch.randn(4, generator=g) for _ in range(3)]),
        (ReplayStep((2, 3), torch.float64), [torch.randn(2, 3, generator=g, dtype=torch.float64) for _ in range(5)]),
        (ReplayStep((5,)), [torch.randn(5, generator=g)]),
    ]


def _replay_property(args, got):
    """11.8: one call per input, and a list whose i-th result holds step(xs[i])'s values after all calls."""
    step, xs = args
    if not isinstance(got, (list, tuple)):
        return f"return a list of the results, got {describe(got)}"
    if step.calls != len(xs):
        return f"your function called step {step.calls} time(s) for {len(xs)} input(s); call it once for each"
    if len(got) != len(xs):
        return f"return one result for each of the {len(xs)} inputs, got {len(got)}"
    for i, (x, out) in enumerate(zip(xs, got)):
        msg = compare(out, _replay_fn(x))
        if msg:
            kept = (
                isinstance(out, torch.Tensor)
                and out.untyped_storage().data_ptr() == step.out.untyped_storage().data_ptr()
            )
            why = " (it is the output buffer itself, which the later calls overwrote)" if kept else ""
            return f"result {i} no longer holds step(xs[{i}]){why}: {msg}"
    return None
