"""Module 08 "nn.Module as a container for computation": parameters, buffers, state_dict.

A check compares values, so exercises that build a module return what matters about it:
its output, its buffers (``dict(m.named_buffers())``) or its ``state_dict`` keys. A
parameter where a buffer belongs, or a plain attribute, then shows as a missing key.
The rules that watch a module run live in ``m08_rules.py``, the inputs (the modules and
networks the checks build) in ``m08_cases.py``.
"""

from __future__ import annotations

import types

import torch
from torch import nn

from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises._inputs import randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises._types import python_int
from torchcourse.grading.exercises.m08_cases import (
    _count_cases,
    _eval_keeps_graph,
    _eval_known_types,
    _eval_library_families,
    _eval_no_restore,
    _eval_norm_and_dropout_layers,
    _freeze_by_class_name,
    _freeze_by_name,
    _freeze_cases,
    _freeze_children_only,
    _freeze_everything_in_place,
    _freeze_exact_classes,
    _freeze_norm_base,
    _lazy_cases,
    _linear_cases,
    _net,
    _no_grad_in_place,
    _restore_cases,
    _restore_children_only,
    _restore_in_reverse,
    _restore_top_flag,
    _standardise_cases,
    _train_then_freeze,
    _unsaved_cases,
    _warm_up_then_predict,
)
from torchcourse.grading.exercises.m08_rules import (
    BatchNormFrozen,
    BuffersUnchanged,
    ModeRestored,
    _PKeptAfterFirstCall,
    _predict_extra,
    _RunsInInferenceMode,
    _StandardiseSaved,
    returns_the_model,
)
from torchcourse.grading.rules import Holds, NoGradHistory

# ---------------------------------------------------------------------------- 08.1


count_trainable = solution("08", "count_trainable")


# ---------------------------------------------------------------------------- 08.2


unsaved_buffers = solution("08", "unsaved_buffers")


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


# ---------------------------------------------------------------------------- 08.4


linear_from_state = solution("08", "linear_from_state")


def _fresh_linear(state, x):
    out_features, in_features = state["weight"].shape
    return nn.Linear(in_features, out_features)(x)  # built, never loaded


def _always_bias(state, x):
    out_features, in_features = state["weight"].shape
    layer = nn.Linear(in_features, out_features)
    layer.load_state_dict(state)
    return layer(x)


def _default_dtype_linear(state, x):
    """Right sizes and bias, but built in the default dtype: load_state_dict copies a float64 state
    into float32 parameters."""
    out_features, in_features = state["weight"].shape
    layer = nn.Linear(in_features, out_features, bias="bias" in state)
    layer.load_state_dict(state)
    return layer(x)


# ---------------------------------------------------------------------------- 08.5


predict = solution("08", "predict")


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


# ---------------------------------------------------------------------------- 08.7 and 08.8


predict_as_found = solution("08", "predict_as_found")


freeze_batchnorm = solution("08", "freeze_batchnorm")


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
        wrong=[
            _fresh_linear,
            _always_bias,
            lambda state, x: x @ state["weight"] + state.get("bias", 0),
            _default_dtype_linear,
        ],
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
        "08.7",
        "Predict, and leave the model as you found it",
        predict_as_found,
        cases=_restore_cases,
        rules=[BuffersUnchanged(), NoGradHistory(), ModeRestored()],
        hints=[
            "eval() switches every sub-module; torch.no_grad() (or inference_mode) switches autograd off. "
            "Neither remembers what the flags were before.",
            "Record m.training for every m in model.modules() before eval(), and set each flag back afterwards "
            "(m.training = flag: m.train(flag) would also reset that module's children). A try/finally puts them "
            "back even if the call raises.",
        ],
        wrong=[
            _eval_no_restore,
            _restore_top_flag,
            _restore_children_only,
            _restore_in_reverse,
            _no_grad_in_place,
            _eval_keeps_graph,
            _warm_up_then_predict,
            _eval_known_types,
            _eval_library_families,
            _eval_norm_and_dropout_layers,
        ],
        rtol=1e-5,
        atol=1e-5,
    ),
    Exercise(
        "08.8",
        "Freeze the BatchNorm layers for fine-tuning",
        freeze_batchnorm,
        cases=_freeze_cases,
        property=returns_the_model,
        rules=[BatchNormFrozen()],
        hints=[
            "model.modules() yields the model and every module inside it, at any depth.",
            "isinstance(m, nn.modules.batchnorm._BatchNorm) is true for BatchNorm1d, 2d, 3d and their subclasses; "
            "call m.eval() on those only, and return the model.",
        ],
        wrong=[
            _freeze_everything_in_place,
            _freeze_by_name,
            _freeze_children_only,
            _freeze_exact_classes,
            _freeze_norm_base,
            _train_then_freeze,
            _freeze_by_class_name,
        ],
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
