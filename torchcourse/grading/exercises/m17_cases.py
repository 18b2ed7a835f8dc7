"""Cases, probes and wrong answers for module 17's checks (``m17``).

The functions 17.5 compiles are defined here at module level, so the fresh process that grades
the shipped artefacts can import them by name.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
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


# --- 17.5 ------------------------------------------------------------------------------------
def wave(x):
    return torch.sin(x) * 2 + torch.cos(x)


def ship_cases():
    torch.compiler.reset()
    fresh_artefacts()
    return [(fresh(wave), _x(16, 16, 17))]


_PROBE = """
import sys, torch
from torch._dynamo.utils import counters
from torchcourse.grading.exercises import m17_cases
data_path, x_path, state_path = sys.argv[1:]
# The thread count, inductor's and functorch's settings and the deterministic flag are part of the
# FX graph cache key: the fresh process takes the learner's, or a learner who changed one earlier
# in the kernel (torch.set_num_threads, a config flag) would see a miss for a right answer.
state = torch.load(state_path, weights_only=False)
torch.set_num_threads(state["threads"])
torch._inductor.config.load_config(state["inductor"])
torch._functorch.config.load_config(state["functorch"])
torch._dynamo.config.load_config(state["dynamo"])
torch.fx.experimental._config.load_config(state["fx"])
torch._inductor.config.compile_threads = 1
torch.use_deterministic_algorithms(state["deterministic"], warn_only=state["warn_only"])
# The rest of the key's global settings (FxGraphHashDetails): set only what differs, as setting a
# flag to the value it has is not always a no-op.
torch.utils.deterministic.fill_uninitialized_memory = state["fill_uninitialized_memory"]
torch.set_default_dtype(state["default_dtype"])
matmul = torch.backends.cuda.matmul
for name, value in state["cuda_matmul"].items():
    if getattr(matmul, name) != value:
        setattr(matmul, name, value)
with open(data_path, "rb") as f:
    torch.compiler.load_cache_artifacts(f.read())
torch.compile(m17_cases.wave)(torch.load(x_path))
print(counters["inductor"]["fxgraph_cache_hit"], counters["inductor"]["fxgraph_cache_miss"])
"""


def fresh_process_hits(args, got):
    fn, x = args
    if got is None:
        return "your function returned None: nothing compiled before the save (torch.compile is lazy)"
    if not isinstance(got, bytes):
        return f"your function returned {type(got).__name__}; return the bytes of save_cache_artifacts()"
    with tempfile.TemporaryDirectory(prefix="torchcourse-17-5-") as work:
        data, x_path, cache = Path(work, "cache.bin"), Path(work, "x.pt"), Path(work, "cache")
        data.write_bytes(got)
        torch.save(x, x_path)
        state = Path(work, "state.pt")
        torch.save(
            {
                "threads": torch.get_num_threads(),
                # Live values, not save_config(): its cached dict misses a setting updated in place
                # (AOTInductor writes its device metadata into the inductor config, and the FX graph
                # cache key reads the live value: 17.5 after 17.6 missed for a right answer).
                "inductor": torch._inductor.config.get_serializable_config_copy(),
                "functorch": torch._functorch.config.get_serializable_config_copy(),
                "dynamo": torch._dynamo.config.get_serializable_config_copy(),
                "fx": torch.fx.experimental._config.get_serializable_config_copy(),
                "deterministic": torch.are_deterministic_algorithms_enabled(),
                "warn_only": torch.is_deterministic_algorithms_warn_only_enabled(),
                "fill_uninitialized_memory": torch.utils.deterministic.fill_uninitialized_memory,
                "default_dtype": torch.get_default_dtype(),
                "cuda_matmul": {
                    name: getattr(torch.backends.cuda.matmul, name)
                    for name in (
                        "fp32_precision",
                        "allow_fp16_reduced_precision_reduction",
                        "allow_bf16_reduced_precision_reduction",
                    )
                },
            },
            state,
        )
        cache.mkdir()
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(cache), TORCHINDUCTOR_COMPILE_THREADS="1")
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, str(data), str(x_path), str(state)],
            env=env,
            capture_output=True,
            text=True,
        )
    if done.returncode != 0:
        return "a fresh process could not load your bytes as cache artefacts"
    hits, misses = map(int, done.stdout.split()[-2:])
    if hits < 1 or misses:
        return (
            f"a fresh process that loaded your bytes compiled the function on x with {misses} FX graph cache "
            f"miss(es) and {hits} hit(s): the artefacts must hold the code compiled for this x"
        )
    return None


def ship_uncalled(fn, x):
    torch.compile(fn)
    saved = torch.compiler.save_cache_artifacts()
    return saved[0] if saved else None


def ship_pair(fn, x):
    torch.compile(fn)(x)
    return torch.compiler.save_cache_artifacts()


def ship_other_shape(fn, x):
    torch.compile(fn)(x[:2].contiguous())
    return torch.compiler.save_cache_artifacts()[0]


def ship_eager_backend(fn, x):
    torch.compile(fn, backend="eager")(x)
    saved = torch.compiler.save_cache_artifacts()
    return saved[0] if saved else None
