"""Facts lesson 11 (graph breaks) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import inspect
import re
import warnings

import pytest
import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

from tests.facts import fact


def _step(x):
    y = x * 1.5 + 0.5
    m = y.mean()
    if m > 0:
        y = y - m
    else:
        y = y + 1
    return torch.relu(y) * 3


def _counted(fn):
    torch._dynamo.reset()
    counter = CompileCounter()
    return torch.compile(fn, backend=counter), counter


def _explain(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return torch._dynamo.explain(fn)(*args)


@fact(
    "11",
    "if-on-tensor-two-graphs",
    "It runs and gives the eager answer, but it produced **two** graphs: everything up to `m > 0`, then the rest.",
)
def _():
    compiled, counter = _counted(_step)
    x = torch.rand(100)
    assert torch.allclose(compiled(x), _step(x)) and counter.frame_count == 2
    compiled(-x - 1)  # the other branch: its own resume graph
    assert counter.frame_count == 3


@fact("11", "graph-break-count-is-graphs-minus-1", "`graph_count - 1` (that is how torch 2.13 computes it)")
def _():
    assert "graph_break_count = graph_count - 1" in inspect.getsource(torch._dynamo.eval_frame.explain)

    def item_if(x):
        if x.sum().item() > 0:
            return x * 2
        return x

    e = _explain(item_if, -torch.rand(8))
    assert (e.graph_count, e.graph_break_count, len(e.break_reasons)) == (1, 0, 1)


@fact(
    "11",
    "ops-per-graph-functions-only",
    "`y.mean()` is missing from `ops_per_graph`: it is a *method* call, and `ops_per_graph` keeps only function calls.",
)
def _():
    e = _explain(_step, torch.rand(100))
    first = e.graphs[0]
    methods = [n.target for n in first.graph.nodes if n.op == "call_method"]
    assert methods == ["mean"]
    assert "mean" not in [getattr(op, "__name__", str(op)) for op in e.ops_per_graph[0]]
    assert len(e.ops_per_graph[0]) == len([n for n in first.graph.nodes if n.op == "call_function"])


@fact(
    "11",
    "explain-resets-dynamo",
    "It calls `torch._dynamo.reset()` before and after tracing, so every function you compiled earlier in the "
    "session is compiled again on its next call.",
)
def _():
    compiled, counter = _counted(lambda x: x.sin() + 1)
    x = torch.rand(4)
    compiled(x), compiled(x)
    assert counter.frame_count == 1
    _explain(lambda x: x.cos(), x)
    compiled(x)
    assert counter.frame_count == 2


@fact(
    "11", "unsupported-is-runtimeerror", "The error is a `torch._dynamo.exc.Unsupported`, a subclass of `RuntimeError`."
)
def _():
    torch._dynamo.reset()
    assert issubclass(torch._dynamo.exc.Unsupported, RuntimeError)
    with pytest.raises(torch._dynamo.exc.Unsupported, match=r"gb0170"):
        torch.compile(_step, fullgraph=True, backend="eager")(torch.rand(8))


@fact(
    "11",
    "break-messages-carry-codes",
    "Every graph-break message carries a **code** (in torch 2.13; 2.10's log had none)",
)
def _():
    from torch._dynamo.exc import get_gbid_documentation_link

    for gb_type, code in [
        ("Data-dependent branching", "gb0170"),
        ("Unsupported Tensor.item() call with capture_scalar_outputs=False", "gb0124"),
        ("Skip calling `torch.compiler.disable()`d function", "gb0098"),
    ]:
        assert get_gbid_documentation_link(gb_type).endswith(f"/{code}.html")


@fact(
    "11",
    "cond-sizes-may-differ",
    "must return the same structure, with tensors of the same dtype, device and number of dimensions; "
    "their sizes may differ (below).",
)
def _():
    torch._dynamo.reset()
    x = torch.rand(8)

    def head_or_all(x):
        return torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: x[:3] * 2, (x,))

    compiled, counter = _counted(head_or_all)
    assert compiled(x).shape == (8,) and compiled(-x).shape == (3,) and counter.frame_count == 1
    with pytest.raises(RuntimeError, match="expected same dtype"):
        torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: x.long(), (x,))
    with pytest.raises(RuntimeError, match="expected same dim"):
        torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: x.reshape(2, 4) * 2, (x,))


@fact(
    "11",
    "cond-result-size-is-a-ranged-symbol",
    "Dynamo gives it a symbol with the range of the two sizes (here between 3 and 8), and one graph serves both "
    "outcomes",
)
def _():
    from torch._dynamo.testing import EagerAndRecordGraphs

    def head_or_all(x):
        return torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: x[:3] * 2, (x,))

    torch._dynamo.reset()
    backend = EagerAndRecordGraphs()
    compiled = torch.compile(head_or_all, fullgraph=True, backend=backend)
    x = torch.rand(8)
    compiled(x), compiled(-x)
    (graph,) = backend.graphs
    assert re.search(r"u\d+ >= 3", graph.code) and re.search(r"u\d+ <= 8", graph.code)


@fact(
    "11",
    "cond-refuses-aliasing",
    "A branch may not return one of its operands, or a view of one, as it is: `torch.cond` refuses the aliasing",
)
def _():
    torch._dynamo.reset()
    x = torch.rand(8)
    with pytest.raises(RuntimeError, match="aliasing"):
        torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: x[:3], (x,))
    assert torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: x.clone(), (x,)).shape == (8,)


@fact(
    "11",
    "cond-outside-compile-traces",
    "it traces both branches with Dynamo on its first call (the same rules apply, the same errors come, see "
    "*Common mistakes*) and then runs the traced code, through Dynamo's guards, on every call.",
)
def _():
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    x = torch.rand(8)

    def plus(x):
        return x + 1

    def times(x):
        return x * 2

    torch.cond(x.sum() > 0, plus, times, (x,))
    assert counters["stats"]["unique_graphs"] == 1  # traced by Dynamo, outside any torch.compile
    torch.cond(x.sum() > 0, plus, times, (x,))
    assert counters["stats"]["unique_graphs"] == 1  # second call: the traced code, no new trace
    assert "_hop_compile_and_call" in inspect.getsource(torch.cond)


@fact(
    "11",
    "fullgraph-captures-scalars",
    "`fullgraph=True` switches scalar capture on by itself, so `item` compiles whole with `fullgraph=True` even "
    "with the setting left at `False`",
)
def _():
    torch._dynamo.reset()

    def item(x):
        y = x.sin()
        return y.cos() * y.sum().item()

    x = torch.rand(8)
    assert torch._dynamo.config.capture_scalar_outputs is False
    assert torch.allclose(torch.compile(item, fullgraph=True, backend="eager")(x), item(x))
    assert _explain(item, x).graph_count == 2  # without fullgraph: a break at .item()


@fact(
    "11",
    "captured-scalar-if-breaks-or-raises",
    "(With `capture_scalar_outputs=True` and no `fullgraph`, the same `if` is a graph break instead.)",
)
def _():
    def standardise_item(x):
        s = x.std().item()
        if s < 1e-3:
            s = 1.0
        return (x - x.mean()) / s

    x = torch.rand(8)
    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        e = _explain(standardise_item, x)
    assert e.graph_count == 2 and len(e.break_reasons) == 1
    torch._dynamo.reset()
    with pytest.raises(Exception, match="Could not guard on data-dependent expression"):
        torch.compile(standardise_item, fullgraph=True, backend="eager")(x)


@fact(
    "11",
    "reorderable-print-shows-later-inplace-change",
    "a tensor that the function changes in place after the `print` shows its changed value, because the call now "
    "runs after the graph",
)
def _():
    printed = []

    def log(*args):
        printed.append(float(args[-1]))

    def mutated(x):
        y = x * 2
        log("y[0] =", y[0])
        y.add_(100)
        return y

    def kept(x):
        y = x * 2
        log("y[0] =", y[0])
        return y + 100

    for fn in (mutated, kept):
        compiled, counter = _counted(fn)
        with torch._dynamo.config.patch(reorderable_logging_functions={log}):
            compiled(torch.ones(2))
        assert counter.frame_count == 1  # no break at the logging call
    assert printed == [102.0, 2.0]


@fact(
    "11",
    "disable-recursive",
    "By default the functions it calls are not compiled either; `torch.compiler.disable(fn, recursive=False)` "
    "skips only `fn` itself.",
)
def _():
    def inner(y):
        return y.sin()

    def outer(y):
        return inner(y) + 1

    frames = {}
    for recursive in (True, False):
        skipped = torch.compiler.disable(outer, recursive=recursive)
        compiled, counter = _counted(lambda x, skipped=skipped: skipped(x * 2) * 3)
        compiled(torch.rand(4))
        frames[recursive] = counter.frame_count
    assert frames == {True: 2, False: 3}  # recursive=False: inner() is compiled as its own graph


@fact(
    "11",
    "float32-sum-guard-4096",
    "inductor adds up more than 4096 float32 numbers in chunks of 4096 (a cascade sum, for accuracy), and `mean` "
    "is such a sum, so the code it generates guards on `n <= 4096`",
)
def _():
    from torch._inductor.codegen import cpp

    source = inspect.getsource(cpp.CppKernel.need_use_acc_helper)
    assert 'reduction_type == "sum" and dtype == torch.float' in source
    assert "chunk_size = 4096" in source and "guard_or_false(sympy.Gt(reduction_size, chunk_size))" in source
    assert "CascadeSumHelper" in inspect.getsource(cpp.CppKernel._acc_helper_init)
    # mean is decomposed into a sum divided by n
    from torch._refs import mean as ref_mean

    assert "prims.sum" in inspect.getsource(ref_mean) and "true_divide(result, nelem)" in inspect.getsource(ref_mean)


@fact(
    "11",
    "inductor-bakes-thread-count",
    "inductor writes the count in force at compile time into its C++ kernels "
    "(`#pragma omp parallel num_threads(...)`), and a later `torch.set_num_threads` does not change it.",
)
def _():
    from torch._inductor import config
    from torch._inductor.codegen import cpp
    from torch._inductor.utils import parallel_num_threads

    assert 'f"#pragma omp parallel num_threads({threads})"' in inspect.getsource(cpp)
    assert config.cpp.threads < 1 and config.cpp.dynamic_threads is False
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        assert parallel_num_threads() == 1
    finally:
        torch.set_num_threads(before)


@fact(
    "11",
    "branch-free-one-kernel-two-passes",
    "Branch-free is one kernel that passes over `x` twice, first for the mean, then computing `y` again from `x` "
    "(it never stores `y`): 8 bytes read, 4 written, one new tensor.",
)
def _():
    from torch._inductor.utils import run_and_get_code

    def step_where(x):
        y = x * 1.5 + 0.5
        m = y.mean()
        y = torch.where(m > 0, y - m, y + 1)
        return torch.relu(y) * 3

    torch._dynamo.reset()
    x = torch.rand(10_000)
    out, (code,) = run_and_get_code(torch.compile(step_where, dynamic=True), x)
    assert torch.allclose(out, step_where(x), atol=1e-5)
    call = code[code.index("def call(") :]
    assert len(re.findall(r"^\s*cpp_fused_\w+\(", call, re.M)) == 1  # one kernel
    assert len(re.findall(r"empty_strided_cpu\(\(s\w+, \)", call)) == 1  # one new n-element tensor
    kernel = code[: code.index("def call(")]
    assert len(re.findall(r"loadu\(in_ptr0 \+", kernel)) == 4  # x read in both loops (full and tail vectors)
