"""Cases, probes and wrong answers for module 17's checks (``m17``); 17.5's are in ``m17_ship``."""

from __future__ import annotations

import math
import types
from pathlib import Path

import torch
from torch.export import Dim, export

from torchcourse.grading.base import Case, Rule
from torchcourse.grading.calls import aten_ops

ROOT = Path(__file__).resolve().parents[3]


def fresh(fn):
    """A copy of ``fn`` with its own code object, hence an empty dynamo cache."""
    return types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)


def fresh_artefacts() -> None:
    """Forget the cache artefacts this process recorded, so a save holds only what follows."""
    from torch.compiler._cache import CacheArtifactManager

    CacheArtifactManager.clear()


# --- models ----------------------------------------------------------------------------------
class Scorer(torch.nn.Module):
    def __init__(self, features: int = 100):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.linspace(-1, 1, features))

    def forward(self, x):
        return torch.softmax(torch.sin(x) * self.weight + 1, dim=-1)


class Counting(torch.nn.Module):
    """Two inputs, two outputs, a buffer updated in place (an extra, lifted output)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros(()))
        self.scale = torch.nn.Parameter(torch.tensor(2.0))

    def forward(self, x, y):
        self.calls.add_(1)
        return x * self.scale + y, (x - y).abs().sum()


class Triple(torch.nn.Module):
    def forward(self, a, b, c):
        return a + b * c


class Softmaxer(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1) * 2


def _x(rows, cols, seed):
    return torch.randn(rows, cols, generator=torch.Generator().manual_seed(seed))


# --- 17.1 ------------------------------------------------------------------------------------
def io_cases():
    return [
        (export(Scorer(), (_x(8, 100, 1),)),),
        (export(Counting(), (_x(4, 3, 2), _x(4, 3, 3))).run_decompositions(),),
        (export(Triple(), (_x(2, 2, 4), _x(2, 2, 5), _x(2, 2, 6))),),
    ]


def io_all_specs(program):
    return len(program.graph_signature.input_specs), len(program.graph_signature.output_specs)


def io_placeholders(program):
    placeholders = [n for n in program.graph.nodes if n.op == "placeholder"]
    return len(placeholders), len(program.graph_signature.user_outputs)


def io_lifted_outputs(program):
    return len(program.graph_signature.user_inputs), len(program.graph_signature.output_specs)


# --- 17.2 ------------------------------------------------------------------------------------
class Pair(torch.nn.Module):
    def forward(self, x, y):
        return x.sum() + y.sum()


def range_cases():
    pair_shapes = {"x": {0: Dim("rows", min=2, max=64)}, "y": {0: Dim("rows2", min=3, max=50), 1: Dim("k", max=9)}}
    return [
        (export(Scorer(), (_x(8, 100, 7),), dynamic_shapes={"x": {0: Dim("batch", min=1, max=64)}}),),
        (export(Scorer(), (_x(8, 100, 8),)),),
        (export(Pair(), (_x(6, 4, 9), _x(5, 7, 10)), dynamic_shapes=pair_shapes),),
        (export(Softmaxer(), (_x(5, 3, 11),), dynamic_shapes={"x": {0: Dim("n", min=4, max=300)}}),),
        # the first input static, the second dynamic: the first range constraint is not the batch's
        (export(Pair(), (_x(6, 4, 19), _x(5, 7, 20)), dynamic_shapes={"x": None, "y": {0: Dim("m", max=99)}}),),
    ]


class NotRun(Rule):
    """ "Do not call it", judged by behaviour: the answer runs again on a fresh program while the aten
    operations dispatched are counted. Reading the program's graph, signature and range_constraints
    dispatches none; running it (its module, its graph module, an interpreter) dispatches some."""

    name = "not run"

    def judge(self, case: Case) -> str | None:
        try:
            ops = aten_ops(case.fn, case.fresh())
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        if ops:
            return (
                f"your function ran the program ({ops} aten operations dispatched while it ran): read the "
                "sizes from the program's inputs and range_constraints, do not call it"
            )
        return None


def range_first_constraint(program):
    bounds = next(iter(program.range_constraints.values()), None)
    if bounds is None:
        first = [n for n in program.graph.nodes if n.op == "placeholder"]
        size = [n for n in first if n.name == program.graph_signature.user_inputs[0]][0].meta["val"].shape[0]
        return int(size), int(size)
    return int(bounds.lower), int(bounds.upper)


def range_example_only(program):
    (example,) = program.example_inputs[0][:1]
    return example.shape[0], example.shape[0]


def range_from_zero(program):
    lower, upper = range_first_constraint(program)
    return 0, upper


def range_after_a_run(program):
    program.module()(*program.example_inputs[0])  # runs the program first: "do not call it"
    return _batch_bounds(program)


# --- 17.3 ------------------------------------------------------------------------------------
def batch_cases():
    return [(Scorer(6), _x(8, 6, 12)), (Softmaxer(), _x(5, 4, 13))]


def any_batch_runs(args, got):
    model, x = args
    if not isinstance(got, torch.export.ExportedProgram):
        return f"your function returned {type(got).__name__}; return the ExportedProgram that torch.export.export gives"
    runs = got.module()
    for b in (1, 2, 7, 4096):
        xb = torch.linspace(-2, 2, b * x.shape[1]).reshape(b, x.shape[1])
        try:
            out = runs(xb)
        except Exception as exc:  # noqa: BLE001 - the refusal is what the message reports
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return f"your program refused a batch of {b} ({first[:120]}); it must accept every size from 1 to 4096"
        if not torch.allclose(out, model(xb), atol=1e-6):
            return f"your program's result for a batch of {b} differs from the model's"
    try:
        runs(torch.ones(3, x.shape[1] + 1))
    except Exception:  # noqa: BLE001 - refused, as it should be
        lower, upper = _batch_bounds(got)
        if (lower, upper) != (1, 4096):
            shown = "no upper bound" if upper == math.inf else upper
            return f"your program's range_constraints give the batch [{lower}, {shown}]; the contract is [1, 4096]"
        return None
    return "your program accepted a different number of columns: declare only dimension 0 dynamic"


def _batch_bounds(program):
    """(lower, upper) of dimension 0 of the program's first user input, from its range_constraints."""
    name = program.graph_signature.user_inputs[0]
    node = next(n for n in program.graph.nodes if n.op == "placeholder" and n.name == name)
    size = node.meta["val"].shape[0]
    if isinstance(size, int):
        return size, size
    bounds = program.range_constraints[size.node.expr]
    return _int_or_inf(bounds.lower), _int_or_inf(bounds.upper)


def _int_or_inf(bound):
    """A sympy bound as an int; ``math.inf`` for an unbounded one (``int_oo``, which int() refuses)."""
    try:
        return int(bound)
    except (TypeError, ValueError, AttributeError, OverflowError):
        return math.inf


def export_static(model, x):
    return export(model, (x,))


def export_all_dynamic(model, x):
    return export(model, (x,), dynamic_shapes={"x": {0: Dim.DYNAMIC, 1: Dim.DYNAMIC}})


def export_unbounded(model, x):
    return export(model, (x,), dynamic_shapes={"x": {0: Dim("batch")}})


def export_small_range(model, x):
    return export(model, (x,), dynamic_shapes={"x": {0: Dim("batch", min=1, max=1024)}})


def export_module_only(model, x):
    return export(model, (x,), dynamic_shapes={"x": {0: Dim("batch", min=1, max=4096)}}).module()


# --- 17.4 ------------------------------------------------------------------------------------
def leaky_or_flip(x):
    if x.mean() > 0:
        return torch.where(x > 0, x, 0.1 * x)
    return -x


def branch_cases():
    small = torch.tensor([[0.02, -0.01], [0.03, 0.0]])  # mean > 0 but sum < 1
    balanced = torch.tensor([[1.0, -1.0], [0.5, -0.5]])  # mean exactly 0: not > 0, so -x
    zeros = torch.zeros(2, 3)  # mean 0 and every element 0
    return [
        (_x(6, 5, 14).abs() - 0.5,),
        (-(_x(4, 7, 15).abs()) + 0.2,),
        (_x(3, 3, 16) + 1,),
        (small,),
        (balanced,),
        (zeros,),
    ]


class _Wrapped(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


class ExportsAndMatches(Rule):
    """The answer, put in an nn.Module, is accepted by torch.export.export, and the program gives
    leaky_or_flip's values on inputs of both signs."""

    name = "exportable"

    def judge(self, case: Case) -> str | None:
        from torchcourse.compiletools import captured_logs

        (x,) = case.fresh()
        try:
            with captured_logs():
                program = export(_Wrapped(case.fn), (x,))
        except Exception as exc:  # noqa: BLE001 - the refusal is the answer's failure
            return f"torch.export.export refused your function ({type(exc).__name__}); keep both branches in the graph"
        for sign in (1, -1):
            xs = sign * (x.abs() + 0.1)
            if not torch.allclose(program.module()(xs), leaky_or_flip(xs)):
                return "the exported program gives other values than leaky_or_flip for an input of the other sign"
        n = x.numel()  # values symmetric about 0, of x's shape: their mean is exactly 0
        balanced = (torch.arange(n, dtype=x.dtype) - (n - 1) / 2).reshape(x.shape)
        if not torch.allclose(program.module()(balanced), leaky_or_flip(balanced)):
            return "the exported program gives other values than leaky_or_flip for an input whose mean is exactly 0"
        return None


def leaky_if(x):
    return leaky_or_flip(x)


def leaky_always(x):
    return torch.where(x > 0, x, 0.1 * x)


def leaky_mean_at_least_zero(x):  # mean exactly 0 takes the wrong branch
    return torch.where(x.mean() >= 0, torch.where(x > 0, x, 0.1 * x), -x)


def leaky_sum_sign(x):
    return torch.cond(x.sum() > 1, lambda t: torch.where(t > 0, t, 0.1 * t), lambda t: -t, (x,))
