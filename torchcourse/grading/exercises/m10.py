"""Module 10 "Recompilation and dynamic shapes": read guards, count compiles, choose dynamic.

Every check counts compiles with dynamo's counting backend (no inductor), so it takes
well under a second. Dynamo keeps its cache and its memory of seen sizes on a function's
*code object* and its memory of seen sizes under the function's file, line and name until
``torch.compiler.reset()``; the references and probes below reset around themselves, so a
reference run never changes what the learner's run sees.
"""

from __future__ import annotations

import torch

from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises.m10_rules import GraphsCompiled, Measures, _counter, _fresh
from torchcourse.grading.exercises.m10_serve import (
    RanCompiled,
    _batch_sizes,
    _serve_cases,
    _serve_concatenated,
    _serve_default,
    _serve_dynamic_true,
    _serve_eager,
    _serve_eager_small,
    _serve_mark_dynamic,
    _serve_reversed,
    serve,
)
from torchcourse.grading.rules import Holds, IsView

_LIMIT_AT_IMPORT = torch._dynamo.config.recompile_limit


# --- 10.1 ------------------------------------------------------------------------------
# Recompile reasons exactly as TORCH_LOGS=recompiles prints them in torch 2.13.
REASONS = {
    "- 0/0: tensor 'x' dtype mismatch. expected Float, actual Double": "dtype",
    "- 0/0: tensor 'x' size mismatch at index 0. expected 2000, actual 1000": "shape",
    "- 0/0: tensor 'x' stride mismatch at index 0. expected 4, actual 1": "shape",
    (
        "- 0/0: tensor 'x' dispatch key set mismatch. expected DispatchKeySet(CPU, BackendSelect, "
        "ADInplaceOrView, AutogradCPU), actual DispatchKeySet(Meta, BackendSelect, ADInplaceOrView, "
        "AutogradMeta)"
    ): "device",
    "- 0/1: tensor 'x' requires_grad mismatch. expected requires_grad=0": "requires_grad",
    "- 0/0: mode == 'relu'": "value",
    "- 0/7: name == 'add_______'": "value",
    "- 0/2: tensor 'batch' size mismatch at index 1. expected 64, actual 32": "shape",
    # Python values whose names are guard words: dynamo prints these for f(x, device, size)
    "- 0/0: device == 'cpu'": "value",
    "- 0/1: size == 2": "value",
}


guard_kind = solution("10", "guard_kind")


def _guard_kind_no_device(reason):
    return "value" if "dispatch key" in reason else guard_kind(reason)


def _guard_kind_size_only(reason):
    return "value" if "stride" in reason else guard_kind(reason)


def _guard_kind_keywords_anywhere(reason):  # a value guard on an argument named device or size is still a value
    for word, kind in (("dispatch", "device"), ("device", "device"), ("size", "shape"), ("stride", "shape")):
        if word in reason:
            return kind
    return guard_kind(reason)


# --- 10.2 ------------------------------------------------------------------------------
count_compiles = solution("10", "count_compiles")


def _count_compiles_reference(fn, calls):
    # The answer above, isolated: dynamo remembers the sizes a function has seen (keyed by its
    # file, line and name, so even a copy shares them) until torch.compiler.reset(). Resetting
    # before and after leaves the learner's run exactly the state a fresh notebook has.
    torch.compiler.reset()
    try:
        return count_compiles(_fresh(fn), calls)
    finally:
        torch.compiler.reset()


def _sin_plus(x):
    return torch.sin(x) + 1


def _act(x, mode):
    if mode == "relu":
        return torch.relu(x)
    if mode == "tanh":
        return torch.tanh(x)
    return torch.sigmoid(x)


def _count_cases():
    f = torch.float64
    return [
        (
            _fresh(_sin_plus),
            [(torch.ones(10),), (torch.ones(10, dtype=f),), (torch.ones(10),), (torch.ones(10, dtype=f),)],
        ),
        (_fresh(_sin_plus), [(torch.ones(n),) for n in (5, 6, 7, 8)]),
        (_fresh(_act), [(torch.ones(4), m) for m in ("relu", "tanh", "relu", "sigmoid", "tanh")]),
    ]


def _count_distinct_signatures(fn, calls):
    return len({tuple((a.shape, a.dtype) if isinstance(a, torch.Tensor) else a for a in args) for args in calls})


def _count_uncalled(fn, calls):
    counter = _counter()
    torch.compile(fn, backend=counter)
    return counter.frame_count


# --- 10.3 ------------------------------------------------------------------------------
compiles_by_setting = solution("10", "compiles_by_setting")


def _compiles_by_setting_guess(sizes):
    distinct = len(set(sizes))
    return distinct, min(distinct, 2), 1


def _compiles_by_setting_simulated(sizes):
    """The rules simulated, nothing compiled: right values, but not measured."""
    seen, default, dynamic_graph = set(), 0, False
    for n in sizes:
        if n in seen:
            continue
        if n in (0, 1) or not seen:  # sizes 0 and 1 always get a graph of their own; so does the first size
            default += 1
        elif not dynamic_graph:  # a second size: one dynamic graph from then on
            default, dynamic_graph = default + 1, True
        seen.add(n)
    dynamic = len(seen & {0, 1}) + any(n > 1 for n in seen)
    return len(seen), default, dynamic


def _compiles_by_setting_no_reset(sizes):
    def f(x):
        return torch.sin(x) + 1

    def frames(dynamic):
        counter = _counter()
        compiled = torch.compile(f, backend=counter, dynamic=dynamic)
        for n in sizes:
            compiled(torch.ones(n))
        return counter.frame_count

    torch.compiler.reset()  # once, not between the settings
    return tuple(frames(dynamic) for dynamic in (False, None, True))


# --- 10.4 ------------------------------------------------------------------------------
mark_batch_dynamic = solution("10", "mark_batch_dynamic")


def _batch_probe(x):
    return (x * 2).sum(dim=1)


def _one_graph_for_all_batches(args, got):
    if not isinstance(got, torch.Tensor):
        return None  # the comparison already reported it
    torch.compiler.reset()  # the probe must not remember sizes from an earlier case
    try:
        return _probe_batches(got)
    finally:
        torch.compiler.reset()


def _probe_batches(got):
    counter = _counter()
    probe = torch.compile(_fresh(_batch_probe), backend=counter)
    probe(got)
    rows, cols = got.shape
    for b in (rows + 1, rows + 5):
        probe(torch.ones(b, cols, dtype=got.dtype))
    if counter.frame_count != 1:
        return (
            f"a compiled function called with your tensor and then with other batch sizes compiled "
            f"{counter.frame_count} graphs; with dimension 0 marked dynamic it compiles 1"
        )
    probe(torch.ones(rows, cols + 3, dtype=got.dtype))
    if counter.frame_count != 2:
        return "a new number of columns did not recompile: mark only dimension 0 (the batch), not every dimension"
    return None


def _mark_all(x):
    for d in range(x.dim()):
        torch._dynamo.mark_dynamic(x, d)
    return x


def _mark_columns(x):
    torch._dynamo.mark_dynamic(x, 1)
    return x


def _batch_cases():
    from torchcourse.grading.exercises._inputs import randn

    return [(randn(8, 3, seed=101),), (randn(32, 5, seed=102, dtype=torch.float64),)]


# --- 10.5 ------------------------------------------------------------------------------
compiles_past_limit = solution("10", "compiles_past_limit")


def _past_limit_restored_to_default(n_names, limit):
    """Measures, then sets the limit back to a value it assumes, not to the one it found."""
    result = compiles_past_limit(n_names, limit)
    torch._dynamo.config.recompile_limit = _LIMIT_AT_IMPORT
    return result


def _limit_restored(args, got):
    now = torch._dynamo.config.recompile_limit
    if now != _LIMIT_AT_IMPORT:
        torch._dynamo.config.recompile_limit = _LIMIT_AT_IMPORT  # put it back for the rest of the notebook
        return (
            f"torch._dynamo.config.recompile_limit is {now} after your function ran (it was "
            f"{_LIMIT_AT_IMPORT}); change it only inside `with torch._dynamo.config.patch(...)`"
        )
    return None


# --- 10.6 ------------------------------------------------------------------------------
graph_kinds = solution("10", "graph_kinds")


def _graph_kinds_naive(sizes):
    seen = []
    for n in sizes:
        if n not in seen:
            seen.append(n)
    return ["static"] + (["dynamic"] if len(seen) > 1 else [])


def _graph_kinds_per_size(sizes):
    out, seen = [], set()
    for n in sizes:
        if n not in seen:
            out.append("static" if not seen else "dynamic")
            seen.add(n)
    return out


EXERCISES = [
    Exercise(
        "10.1",
        "Read a recompile reason (warm-up)",
        guard_kind,
        cases=lambda: [(r,) for r in REASONS],
        hints=[
            "Each reason names the guard that failed: 'dtype mismatch', 'size mismatch', 'stride mismatch', "
            "'requires_grad mismatch', 'dispatch key set mismatch', or a comparison of a Python value.",
            "The device is part of a tensor's dispatch key set (CPU, CUDA, Meta...): a dispatch-key mismatch "
            "means the tensor moved to another device. Size and stride both describe its shape.",
        ],
        wrong=[_guard_kind_no_device, _guard_kind_size_only, _guard_kind_keywords_anywhere],
    ),
    Exercise(
        "10.2",
        "Count the compiles of a scenario",
        _count_compiles_reference,
        cases=_count_cases,
        hints=[
            "torch._dynamo.testing.CompileCounter() is a backend that counts: torch.compile(fn, backend=counter).",
            "Call the compiled function with each tuple of arguments (compiled(*args)), then return "
            "counter.frame_count: one per graph compiled, recompiles included.",
        ],
        wrong=[lambda fn, calls: len(calls), _count_distinct_signatures, _count_uncalled],
        compiles=True,
    ),
    Exercise(
        "10.3",
        "static, default, dynamic: count them",
        compiles_by_setting,
        cases=lambda: [([100, 200, 300],), ([2, 1, 3],)],
        rules=[Measures(reported=sum)],
        hints=[
            "For each setting: a fresh CompileCounter, torch.compile(f, backend=counter, dynamic=...), one call "
            "per size, then counter.frame_count.",
            "Dynamo remembers the sizes a function has seen, even across torch.compile wrappers: call "
            "torch.compiler.reset() before each setting. With dynamic=None or True a size of 0 or 1 still "
            "gets a graph of its own.",
        ],
        wrong=[_compiles_by_setting_guess, _compiles_by_setting_no_reset, _compiles_by_setting_simulated],
        compiles=True,
    ),
    Exercise(
        "10.4",
        "One graph for every batch size",
        mark_batch_dynamic,
        cases=_batch_cases,
        hints=[
            "torch._dynamo.mark_dynamic(tensor, dim) marks one dimension of one tensor as dynamic, before "
            "the first compiled call sees it.",
            "The batch is dimension 0; leave the other dimensions static, and return the same tensor.",
        ],
        wrong=[lambda x: x, _mark_all, _mark_columns],
        rules=[IsView(), Holds(_one_graph_for_all_batches)],
    ),
    Exercise(
        "10.5",
        "Past the recompile limit",
        compiles_past_limit,
        cases=lambda: [(5, 3), (2, 4), (3, 1)],
        rules=[Measures(reported=lambda got: got, start_limit=_LIMIT_AT_IMPORT + 5), Holds(_limit_restored)],
        hints=[
            "Write a function that branches on a string argument, compile it with a CompileCounter, and call it "
            "with n_names different strings; count graphs with counter.frame_count.",
            "Set the limit only for the block: `with torch._dynamo.config.patch(recompile_limit=limit):`. "
            "Call torch.compiler.reset() first, so graphs from an earlier call do not count.",
        ],
        wrong=[
            lambda n_names, limit: n_names,
            lambda n_names, limit: limit,
            lambda n_names, limit: min(n_names, limit),  # right values, not measured
            _past_limit_restored_to_default,
        ],
        compiles=True,
    ),
    Exercise(
        "10.7",
        "One graph for every batch, empty and single ones included",
        serve,
        cases=_serve_cases,
        rules=[GraphsCompiled(1, sizes=_batch_sizes), RanCompiled()],
        hints=[
            "With dynamic=True or mark_dynamic a dynamic size is a symbol assumed to be at least 2: a batch of "
            "1 or 0 rows still gets a graph of its own. You need a size dynamo knows nothing about.",
            "torch._dynamo.decorators.mark_unbacked(batches[0], 0) before the first call makes dimension 0 an "
            "unbacked size: the graph compiled for the first batch serves every later size, 0 and 1 included.",
        ],
        wrong=[
            _serve_mark_dynamic,
            _serve_dynamic_true,
            _serve_default,
            _serve_eager,
            _serve_concatenated,
            _serve_eager_small,
            _serve_reversed,
        ],
        compiles=True,
    ),
    Exercise(
        "10.6",
        "Static or dynamic? Write a backend that tells (stretch)",
        graph_kinds,
        cases=lambda: [([2, 1, 3],), ([7, 7, 9, 11],)],
        hints=[
            "A backend is a function backend(gm, example_inputs) that returns something callable "
            "(gm.forward runs the graph as is). torch.compile calls it once per graph compiled.",
            "In gm.graph, each placeholder node's meta['example_value'] is what dynamo traced with: a "
            "dynamic graph has a torch.SymInt among them (the size), or a tensor whose shape holds one.",
        ],
        wrong=[_graph_kinds_naive, _graph_kinds_per_size],
        compiles=True,
    ),
]
