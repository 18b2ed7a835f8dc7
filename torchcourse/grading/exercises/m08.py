"""Module 08 "nn.Module as a container for computation": parameters, buffers, state_dict.

A check compares values, so exercises that build a module return what matters about it:
its output, its buffers (``dict(m.named_buffers())``) or its ``state_dict`` keys. A
parameter where a buffer belongs, or a plain attribute, then shows as a missing key.
"""

from __future__ import annotations

import types
import warnings

import torch
from torch import nn

from torchcourse.grading.checks import Exercise
from torchcourse.grading.compare import compare
from torchcourse.grading.exercises._inputs import randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises._types import python_int
from torchcourse.grading.rules import Case, Holds, Rule

# ---------------------------------------------------------------------------- 08.1


count_trainable = solution("08", "count_trainable")


class _WithBuffers(nn.Module):
    """A parameter, a persistent buffer and a non-persistent buffer (built on meta: no data)."""

    def __init__(self, device="meta"):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(3, 2, device=device))
        self.table = nn.Buffer(torch.empty(10, device=device))
        self.cache = nn.Buffer(torch.empty(4, 4, device=device), persistent=False)


def _count_cases():
    frozen = nn.Sequential(nn.Linear(5, 3, device="meta"), nn.Linear(3, 2, device="meta"))
    frozen[0].requires_grad_(False)
    net = nn.Sequential(
        nn.Linear(5, 3, device="meta"), nn.BatchNorm1d(3, device="meta"), nn.Linear(3, 1, device="meta")
    )
    tied = nn.Sequential(nn.Embedding(10, 4, device="meta"), nn.Linear(4, 10, device="meta"))
    tied[1].weight = tied[0].weight  # one weight used twice: an optimiser trains its 40 numbers once
    return [(nn.Linear(3, 4, device="meta"),), (net,), (frozen,), (_WithBuffers(),), (tied,)]


# ---------------------------------------------------------------------------- 08.2


unsaved_buffers = solution("08", "unsaved_buffers")


class _Unsorted(nn.Module):
    """Two unsaved buffers registered out of alphabetical order, and an unsaved None buffer
    (registered, but nothing for .to() to move and nothing for named_buffers() to yield)."""

    def __init__(self):
        super().__init__()
        self.zeta = nn.Buffer(torch.empty(2, device="meta"), persistent=False)
        self.alpha = nn.Buffer(torch.empty(3, device="meta"), persistent=False)
        self.register_buffer("empty_slot", None, persistent=False)
        self.kept = nn.Buffer(torch.empty(1, device="meta"))


def _unsaved_cases():
    nested = nn.Sequential(
        _WithBuffers(), nn.BatchNorm1d(2, device="meta"), nn.Sequential(nn.Linear(2, 2, device="meta"), _WithBuffers())
    )
    return [(_WithBuffers(),), (nested,), (nn.BatchNorm1d(4, device="meta"),), (_Unsorted(),)]


# ---------------------------------------------------------------------------- 08.3


_Standardise = solution("08", "Standardise")


def _with_class(fn, name, cls):
    """The solution's function ``fn`` with the class it builds (``name``) replaced by ``cls``:
    the wrong answers below are the reference answer run on a wrong module."""
    return types.FunctionType(fn.__code__, {**fn.__globals__, name: cls}, fn.__name__)


def _inspect_with(cls):
    return _with_class(inspect_standardise, "Standardise", cls)


inspect_standardise = solution("08", "inspect_standardise")


class _StandardisePlain(_Standardise):
    def __init__(self, data):
        nn.Module.__init__(self)
        self.mean = data.mean(dim=0)
        self.std = data.std(dim=0)


class _StandardiseParameters(_Standardise):
    def __init__(self, data):
        nn.Module.__init__(self)
        self.mean = nn.Parameter(data.mean(dim=0))
        self.std = nn.Parameter(data.std(dim=0))


class _StandardiseBiased(_Standardise):
    def __init__(self, data):
        nn.Module.__init__(self)
        self.mean = nn.Buffer(data.mean(dim=0))
        self.std = nn.Buffer(data.std(dim=0, correction=0))


class _StandardiseNotSaved(_Standardise):
    def __init__(self, data):
        nn.Module.__init__(self)
        self.register_buffer("mean", data.mean(dim=0), persistent=False)
        self.register_buffer("std", data.std(dim=0), persistent=False)


class _StandardiseKeepdim(_Standardise):
    def __init__(self, data):
        nn.Module.__init__(self)
        self.mean = nn.Buffer(data.mean(dim=0, keepdim=True))  # shape (1, features), not (features,)
        self.std = nn.Buffer(data.std(dim=0, keepdim=True))


class _StandardiseSaved(Rule):
    """08.3 says the statistics "must be saved": both names are in state_dict()."""

    name = "saved in state_dict"
    early = True

    def judge(self, case):
        saved = case.got.get("saved") if isinstance(case.got, dict) else None
        if isinstance(saved, list) and not {"mean", "std"} <= set(saved):
            missing = sorted({"mean", "std"} - set(saved))
            return (
                f"state_dict() does not hold {' and '.join(missing)}, so it would not be saved: register it as a "
                "persistent buffer (the default; not persistent=False)"
            )
        return None


def _standardise_cases():
    return [
        (randn(50, 3, seed=800) * 2 + 1, randn(4, 3, seed=801)),
        (randn(20, 5, seed=802, dtype=torch.float64) * 0.5 - 3, randn(2, 5, seed=803, dtype=torch.float64)),
        (randn(8, 1, seed=804), randn(6, 1, seed=805)),
    ]


# ---------------------------------------------------------------------------- 08.4


linear_from_state = solution("08", "linear_from_state")


def _linear_cases():
    return [
        ({"weight": randn(4, 3, seed=810), "bias": randn(4, seed=811)}, randn(5, 3, seed=812)),
        ({"weight": randn(2, 6, seed=813), "bias": randn(2, seed=814)}, randn(1, 6, seed=815)),
        ({"weight": randn(3, 3, seed=816)}, randn(2, 3, seed=817)),
    ]  # a layer saved with bias=False


def _fresh_linear(state, x):
    out_features, in_features = state["weight"].shape
    return nn.Linear(in_features, out_features)(x)  # built, never loaded


def _always_bias(state, x):
    out_features, in_features = state["weight"].shape
    layer = nn.Linear(in_features, out_features)
    layer.load_state_dict(state)
    return layer(x)


# ---------------------------------------------------------------------------- 08.5


predict = solution("08", "predict")


def _net(seed, n_in, n_out):
    """A small network in training mode, with seeded weights and running statistics."""
    net = nn.Sequential(
        nn.Linear(n_in, 8, device="meta"),
        nn.BatchNorm1d(8, device="meta"),
        nn.ReLU(),
        nn.Dropout(0.5),
        nn.Linear(8, n_out, device="meta"),
    )
    net.to_empty(device="cpu")  # real memory, no use of the global random generator
    with torch.no_grad():
        for i, p in enumerate(net.parameters()):
            p.copy_(randn(*p.shape, seed=seed + i))
        net[1].running_mean.copy_(randn(8, seed=seed + 10))
        net[1].running_var.copy_(randn(8, seed=seed + 11).abs() + 0.5)
        net[1].num_batches_tracked.fill_(100)
    return net


def _predict_extra(args, got):
    if isinstance(got, torch.Tensor) and not got.is_inference():
        return (
            "the values are right but the result is not an inference tensor: "
            "run the module inside `with torch.inference_mode():`"
        )
    return None


class _RunsInInferenceMode(Rule):
    """08.5's "no autograd bookkeeping at all": every layer of the network runs with inference
    mode on (seen by a hook on each sub-module), not only the copy that is returned."""

    name = "inference mode"

    def judge(self, case: Case) -> str | None:
        module, *rest = case.fresh()
        if not isinstance(module, nn.Module):
            return None
        seen: list[bool] = []
        hooks = [
            m.register_forward_pre_hook(lambda mod, inp: seen.append(torch.is_inference_mode_enabled()))
            for m in module.modules()
        ]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                case.fn(module, *rest)
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        finally:
            for h in hooks:
                h.remove()
        if not all(seen):
            return (
                "the network ran outside inference mode (with autograd's bookkeeping on), even if what you return "
                "is an inference tensor; call the module itself inside `with torch.inference_mode():`"
            )
        return None


def _graph_then_copy(module, x):
    module.eval()
    y = module(x)  # autograd records the whole forward pass
    with torch.inference_mode():
        return y.clone()


def _no_grad_predict(module, x):
    module.eval()
    with torch.no_grad():
        return module(x)


def _train_mode_predict(module, x):
    with torch.inference_mode():
        return module(x)


# ---------------------------------------------------------------------------- 08.6


_LazyProjection = solution("08", "LazyProjection")


def _inspect_lazy_with(cls):
    return _with_class(inspect_lazy, "LazyProjection", cls)


inspect_lazy = solution("08", "inspect_lazy")


class _PlainP(_LazyProjection):
    def __init__(self, A):
        nn.Module.__init__(self)
        self.A = nn.Buffer(A)
        self.P = None


class _PersistentP(_LazyProjection):
    def __init__(self, A):
        nn.Module.__init__(self)
        self.A = nn.Buffer(A)
        self.register_buffer("P", None)


class _EagerP(_LazyProjection):
    def __init__(self, A):
        nn.Module.__init__(self)
        self.A = nn.Buffer(A)
        self.register_buffer("P", A @ torch.linalg.pinv(A), persistent=False)


class _RecomputedP(_LazyProjection):
    def forward(self, x):
        return x @ (self.A @ torch.linalg.pinv(self.A)).T


class _RebuiltP(_LazyProjection):
    def forward(self, x):
        self.register_buffer("P", self.A @ torch.linalg.pinv(self.A), persistent=False)  # on every call
        return x @ self.P.T


class _PKeptAfterFirstCall(Rule):
    """08.6's "built on the first call ... kept afterwards": a second call uses the P of the first.
    The check catches the module that ``inspect_lazy`` builds and calls (a global forward hook),
    changes its A in place and calls it again on the same x: a P that is kept gives the first output
    again, a P rebuilt on every call follows the new A."""

    name = "P kept after the first call"

    def judge(self, case: Case) -> str | None:
        calls: list[tuple[nn.Module, tuple, object]] = []
        hook = nn.modules.module.register_module_forward_hook(lambda m, inp, out: calls.append((m, inp, out)))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                case.fn(*case.fresh())
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        finally:
            hook.remove()
        if not calls or not isinstance(calls[-1][2], torch.Tensor):
            return None
        module, inputs, out = calls[-1]  # the outermost module's hook runs last
        A = getattr(module, "A", None)
        if not isinstance(A, torch.Tensor):
            return None
        first = out.detach().clone()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with torch.no_grad():
                    A.copy_(A.flip(0))  # rows reversed: another column space
                second = module(*inputs)
        except Exception:  # noqa: BLE001
            return None
        if compare(second, first, rtol=1e-4, atol=1e-5) is not None:
            return (
                "P is built again on a later call (a second call, after A changed, projected onto the new A): "
                "build P only when it is None, on the first call, and keep it"
            )
        return None


def _lazy_cases():
    return [
        (randn(30, 4, seed=820), randn(5, 30, seed=821)),
        (randn(12, 3, seed=822, dtype=torch.float64), randn(3, 12, seed=823, dtype=torch.float64)),
        (randn(6, 6, seed=824), randn(2, 6, seed=825)),
    ]


EXERCISES = [
    Exercise(
        "08.1",
        "Count the trainable numbers",
        count_trainable,
        cases=_count_cases,
        hints=[
            "module.parameters() yields every parameter, through all sub-modules.",
            "Count numbers, not tensors (p.numel()), and only those with p.requires_grad; buffers are not parameters.",
        ],
        wrong=[
            lambda module: len(list(module.parameters())),
            lambda module: sum(p.numel() for p in module.parameters()),
            lambda module: sum(t.numel() for t in module.state_dict().values()),
            # a tied weight counted twice
            lambda module: sum(
                p.numel() for _, p in module.named_parameters(remove_duplicate=False) if p.requires_grad
            ),
            lambda module: torch.tensor(sum(p.numel() for p in module.parameters() if p.requires_grad)),  # a tensor
        ],
        rules=[Holds(python_int("the count"))],
    ),
    Exercise(
        "08.2",
        "Buffers that state_dict leaves out",
        unsaved_buffers,
        cases=_unsaved_cases,
        hints=[
            "module.named_buffers() yields every buffer with its dotted name, through sub-modules.",
            "state_dict() holds parameters and persistent buffers: the buffers missing from it are "
            "the non-persistent ones.",
        ],
        wrong=[
            lambda module: sorted(name for name, _ in module.named_buffers()),
            lambda module: sorted(module._non_persistent_buffers_set),
            lambda module: sorted(set(module.state_dict()) - {n for n, _ in module.named_parameters()}),
            lambda module: [n for n, _ in module.named_buffers() if n not in module.state_dict()],  # unsorted
        ],
    ),
    Exercise(
        "08.3",
        "Statistics as buffers",
        inspect_standardise,
        cases=_standardise_cases,
        rules=[_StandardiseSaved()],
        hints=[
            "The mean and the std are state, not trainable: register them as buffers "
            "(nn.Buffer or self.register_buffer), named mean and std.",
            "Column statistics: reduce over dim=0; torch's default std (with Bessel's correction).",
        ],
        wrong=[
            _inspect_with(_StandardisePlain),
            _inspect_with(_StandardiseParameters),
            _inspect_with(_StandardiseBiased),
            _inspect_with(_StandardiseNotSaved),
            _inspect_with(_StandardiseKeepdim),
        ],
    ),
    Exercise(
        "08.4",
        "Rebuild a layer from its state_dict",
        linear_from_state,
        cases=_linear_cases,
        hints=[
            "nn.Linear stores weight with shape (out_features, in_features), and bias only if it has one.",
            "Build nn.Linear(in_features, out_features, bias=...) and call load_state_dict(state). "
            "On the meta device with assign=True, no memory is allocated before loading.",
        ],
        wrong=[_fresh_linear, _always_bias, lambda state, x: x @ state["weight"] + state.get("bias", 0)],
        rtol=1e-5,
        atol=1e-5,
    ),
    Exercise(
        "08.5",
        "Predict in inference mode",
        predict,
        cases=lambda: [(_net(830, 3, 2), randn(4, 3, seed=831)), (_net(840, 5, 1), randn(2, 5, seed=841))],
        rules=[_RunsInInferenceMode(), Holds(_predict_extra)],
        hints=[
            "Dropout and BatchNorm behave differently in training: module.eval() switches them to "
            "evaluation behaviour.",
            "Then compute the output inside `with torch.inference_mode():`.",
        ],
        wrong=[_train_mode_predict, _no_grad_predict, lambda module, x: module.eval()(x), _graph_then_copy],
        rtol=1e-5,
        atol=1e-5,
    ),
    Exercise(
        "08.6",
        "A lazy projection buffer (stretch)",
        inspect_lazy,
        cases=_lazy_cases,
        rules=[_PKeptAfterFirstCall()],
        hints=[
            "In __init__, register P as a buffer holding None: self.register_buffer('P', None, ...). "
            "A None buffer is skipped by named_buffers() and state_dict().",
            "P is derived from A: make it non-persistent, so state_dict() keeps only A.",
            "In forward, build P = A @ pinv(A) only if self.P is None, and assign it to self.P: "
            "assigning to a registered buffer keeps it a buffer.",
        ],
        wrong=[
            _inspect_lazy_with(_PlainP),
            _inspect_lazy_with(_PersistentP),
            _inspect_lazy_with(_EagerP),
            _inspect_lazy_with(_RecomputedP),
            _inspect_lazy_with(_RebuiltP),
        ],
        rtol=1e-4,
        atol=1e-5,
    ),
]
