"""Facts lesson 11 (graph breaks) states about torch, each asserted on the installed torch."""

from __future__ import annotations

import inspect
import operator
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
    rival="the break comes from the reduction `y.mean()` (or from anything before the `if`): the first graph "
    "holds the mean and the comparison and ends there, the break is reported at the line `if m > 0:`, and the "
    "same code without the `if` is one graph",
)
def _():
    compiled, counter = _counted(_step)
    x = torch.rand(100)
    assert torch.allclose(compiled(x), _step(x)) and counter.frame_count == 2
    compiled(-x - 1)  # the other branch: its own resume graph
    assert counter.frame_count == 3
    e = _explain(_step, x)  # (explain resets dynamo: after the counts)
    first = [n.target for n in e.graphs[0].graph.nodes if n.op.startswith("call")]
    assert first[-2:] == ["mean", operator.gt]  # the graph ends at m > 0
    assert e.break_reasons[0].user_stack[-1].line.strip() == "if m > 0:"

    def no_if(x):
        y = x * 1.5 + 0.5
        m = y.mean()
        return torch.relu(y - m) * 3

    assert _explain(no_if, x).graph_count == 1


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
    rival="the mean is left out because it is a reduction (or the last operation before the break): written as "
    "the function call torch.mean(y), the same mean is listed",
)
def _():
    e = _explain(_step, torch.rand(100))
    first = e.graphs[0]
    methods = [n.target for n in first.graph.nodes if n.op == "call_method"]
    assert methods == ["mean"]
    assert "mean" not in [getattr(op, "__name__", str(op)) for op in e.ops_per_graph[0]]
    assert len(e.ops_per_graph[0]) == len([n for n in first.graph.nodes if n.op == "call_function"])

    def step_function_mean(x):
        y = x * 1.5 + 0.5
        m = torch.mean(y)
        if m > 0:
            y = y - m
        return torch.relu(y) * 3

    listed = [getattr(op, "__name__", str(op)) for op in _explain(step_function_mean, torch.rand(100)).ops_per_graph[0]]
    assert "mean" in listed


@fact(
    "11",
    "explain-resets-dynamo",
    "It calls `torch._dynamo.reset()` before and after tracing, so every function you compiled earlier in the "
    "session is compiled again on its next call.",
    rival="explain clears only what it traces and leaves other functions' compiled code alone: a function "
    "compiled before, unrelated to the one explained, compiles again on its next call with the same input",
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
    since=(2, 13),
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
    rival="the `.item()` never breaks this function, so fullgraph has nothing to switch: without fullgraph, and "
    "with the setting still False, the same function is two graphs",
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
    rival="the logging call runs where it stands and only keeps a reference to the tensor: a call that ran before "
    "`add_` would read 2 (as eager does, and as the version without the in-place change shows), not 102",
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
    mutated(torch.ones(2))  # eager: the call runs before add_
    assert printed[-1] == 2.0


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
    since=(2, 13),
    rival="any dynamic reduction recompiles once its size grows enough (a size bucket, automatic dynamic): "
    "compiled with dynamic=True, a float32 mean compiles again when n passes 4096, with the recompile reason "
    "naming 4096, while the same float64 mean, which gets no cascade sum, serves every size with one graph",
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
    from torch._dynamo.utils import counters

    from torchcourse.compiletools import captured_logs

    graphs = {}
    for dtype in (torch.float32, torch.float64):
        torch._dynamo.reset()
        counters.clear()
        mean = torch.compile(lambda x: x.mean(), dynamic=True)
        with captured_logs(recompiles=True) as logs:
            for n in (100, 5000, 9000):
                mean(torch.ones(n, dtype=dtype))
        graphs[dtype] = (counters["stats"]["unique_graphs"], "4096" in logs.text)
    torch._dynamo.reset()
    assert graphs == {torch.float32: (2, True), torch.float64: (1, False)}, graphs


@fact(
    "11",
    "new-thread-count-recompiles",
    "dynamo's guards include the thread count, so the next call compiles again for the new count (the recompile "
    "reason reads `GLOBAL_STATE changed: num_threads`)",
    since=(2, 13),
    rival="the kernel compiled for the old count keeps running after torch.set_num_threads (then the second call "
    "would compile nothing and no recompile reason would name num_threads)",
)
def _():
    from torchcourse.compiletools import captured_logs

    def step(x):
        return torch.relu(x * 1.5 + 0.5) * 3

    threads = torch.get_num_threads()
    counter = CompileCounter()
    torch.compiler.reset()
    try:
        compiled = torch.compile(step, backend=counter)
        torch.set_num_threads(2)
        compiled(torch.ones(8))
        with captured_logs(recompiles=True) as logs:
            torch.set_num_threads(1)
            compiled(torch.ones(8))
            compiled(torch.ones(8))
    finally:
        torch.set_num_threads(threads)
        torch.compiler.reset()
    assert counter.frame_count == 2 and "GLOBAL_STATE changed: num_threads" in logs.text


@fact(
    "11",
    "inductor-bakes-thread-count",
    "inductor writes the count in force at compile time into its C++ kernels (`#pragma omp parallel num_threads(...)`)",
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


# --- opaque code inside one graph: custom operators, allow_in_graph -------------------------------


def _numpy_poly_op(name, with_fake=True, runs=None):
    import numpy as np

    @torch.library.custom_op(name, mutates_args=())
    def poly(x: torch.Tensor) -> torch.Tensor:
        if runs is not None:
            runs.append(1)
        return torch.from_numpy(np.polyval([0.5, -1.0, 2.0], x.numpy(force=True))).to(x.dtype)

    if with_fake:
        poly.register_fake(lambda x: torch.empty_like(x))
    return poly


@fact(
    "11",
    "custom-op-one-opaque-node",
    "`torch.library.custom_op` registers your Python function as an operator (here `course::poly`) that the "
    "graph calls as one opaque node.",
)
def _():
    poly = _numpy_poly_op("facts11::poly_node")
    graphs = []

    def keep(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch._dynamo.reset()
    torch.compile(lambda x: poly(x * 2 - 1).sqrt(), backend=keep)(torch.rand(5))
    assert len(graphs) == 1
    targets = [n.target for n in graphs[0].graph.nodes if n.op == "call_function"]
    assert torch.ops.facts11.poly_node.default in targets  # one node; nothing of NumPy's inside
    assert not any("polyval" in str(t) for t in targets)


@fact(
    "11",
    "np-polyval-not-traced",
    "`np.polyval` is one: `torch.compile` translates most NumPy calls, not this one",
)
def _():
    import numpy as np
    import torch._numpy as tnp

    assert not hasattr(tnp, "polyval")
    fn, counter = _counted(lambda x: torch.from_numpy(np.polyval([1.0, 2.0], (x * 2).numpy())) + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn(torch.rand(4))
    assert counter.frame_count >= 2  # the call broke the graph


@fact(
    "11",
    "fake-tensors-and-register-fake",
    "tracing runs on *fake* tensors, which carry a shape, a dtype and a device but no data. The **fake "
    "implementation**, registered with `register_fake`, computes exactly that: the output's shape, dtype and "
    "device from the inputs'.",
)
def _():
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

    runs = []
    poly = _numpy_poly_op("facts11::poly_fake", runs=runs)
    with FakeTensorMode():
        out = poly(torch.empty(10**12, dtype=torch.float64))
    assert isinstance(out, FakeTensor) and out.shape == (10**12,) and out.dtype == torch.float64
    assert out.device.type == "cpu" and runs == []  # the real function never ran
    assert poly(torch.empty(3, device="meta")).device.type == "meta" and runs == []


@fact(
    "11",
    "no-fake-compile-fails",
    "Without a fake implementation the compiler has no way to learn the output's shape, and compiling fails "
    "with an error that says so",
    rival="compiling fails because the operator's body (NumPy) cannot be traced: the same operator, unchanged, "
    "compiles once a fake implementation is registered",
)
def _():
    poly = _numpy_poly_op("facts11::poly_nofake", with_fake=False)
    torch._dynamo.reset()
    with pytest.raises(Exception, match="(?i)fake"):  # 2.13: "There was no fake impl registered for ..."
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.compile(lambda x: poly(x * 2) + 1, backend="eager")(torch.rand(4))
    poly.register_fake(lambda x: torch.empty_like(x))
    torch._dynamo.reset()
    x = torch.rand(4)
    out = torch.compile(lambda x: poly(x * 2) + 1, backend="eager", fullgraph=True)(x)
    torch._dynamo.reset()
    assert torch.allclose(out, poly(x * 2) + 1)


@fact(
    "11",
    "opcheck-compares-fake-and-real",
    "`torch.library.opcheck(op, args)` runs the real operator and its fake on the same inputs and fails when "
    "they disagree.",
)
def _():
    good = _numpy_poly_op("facts11::poly_good")
    torch.library.opcheck(good, (torch.rand(4),), test_utils=("test_faketensor",))
    liar = _numpy_poly_op("facts11::poly_liar", with_fake=False)
    liar.register_fake(lambda x: x.new_empty(()))  # the wrong shape
    with pytest.raises(Exception, match="test_faketensor failed"):
        torch.library.opcheck(liar, (torch.rand(4),), test_utils=("test_faketensor",))


@fact(
    "11",
    "allow-in-graph-promise",
    "Its docstring states the promise you make: the inputs and outputs are tensors (or ints, floats, bools, "
    "lists and tuples of them), every tensor `fn` uses is passed in as an input, and otherwise the behaviour is "
    "undefined.",
)
def _():
    doc = " ".join(torch.compiler.allow_in_graph.__doc__.split())
    assert "Failure to adhere results in undefined behavior" in doc
    assert "The inputs to ``fn`` must be Proxy-able types in the FX graph" in doc
    assert "The outputs to ``fn`` must be Proxy-able types" in doc
    assert "all Tensors used inside of ``fn`` must be passed directly as inputs" in doc


@fact(
    "11",
    "allow-in-graph-run-on-fakes-and-traced",
    "It is not a custom operator: Dynamo still *runs* `fn` on fake tensors to learn its outputs, and the "
    "backend (AOTAutograd, then inductor) traces through it.",
)
def _():
    import numpy as np

    doc = " ".join(torch.compiler.allow_in_graph.__doc__.split())
    assert "| allow_in_graph | opaque callable | trace inside |" in doc
    assert "| custom op | opaque callable | opaque callable |" in doc
    seen = []

    @torch.compiler.allow_in_graph
    def spy(y):
        seen.append(type(y).__name__)
        return y * 2

    torch._dynamo.reset()
    torch.compile(lambda x: spy(x + 1), backend="aot_eager")(torch.rand(3))
    assert "FakeTensor" in seen  # run on fake tensors (Dynamo), traced by AOTAutograd
    allowed = torch.compiler.allow_in_graph(lambda x: torch.from_numpy(np.sort(x.numpy())))
    torch._dynamo.reset()
    with pytest.raises(Exception, match=r"\.numpy\(\)"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.compile(lambda x: allowed(x * 2), backend="eager")(torch.rand(3))


@fact(
    "11",
    "allow-in-graph-side-effects-at-trace",
    "And Python side effects inside it run when the function is *traced*, not when the compiled code runs.",
)
def _():
    runs = [0]

    @torch.compiler.allow_in_graph
    def counted(y):
        runs[0] += 1
        return y * 2

    torch._dynamo.reset()
    fn = torch.compile(lambda x: counted(x + 1) - 1, backend="aot_eager")
    fn(torch.rand(3))
    after_first = runs[0]
    for _ in range(3):
        fn(torch.rand(3))
    assert after_first >= 1 and runs[0] == after_first


# --- mode="reduce-overhead": CUDA graphs --------------------------------------------------------


def _cudagraph_trees_source() -> str:
    import torch._inductor.cudagraph_trees as trees

    return inspect.getsource(trees)


@fact(
    "11",
    "cudagraph-static-inputs-copied",
    "An input that is not already at a recorded address (parameters and buffers are; a new input tensor is "
    "not) is copied into a static buffer before each replay.",
)
def _():
    import torch._inductor.cudagraph_trees as trees

    copy = inspect.getsource(trees.CUDAGraphNode._copy_inputs_and_remove_from_src)
    assert "_foreach_copy_" in copy
    if "non_static_input_idx" not in copy:  # torch 2.15: a list made of the non-static inputs (and a few more)
        assert "self.input_copy_idxs" in copy
        assert re.search(
            r"input_copy_idxs[^=]*= LevelList\(\s*OrderedSet\(self\.non_static_input_idx\)",
            (inspect.getsource(trees.CUDAGraphNode.__init__)),
        )
    run = inspect.getsource(trees.CUDAGraphNode.run)
    assert "_copy_inputs_and_remove_from_src" in run
    # parameters and buffers are static inputs: dynamo marks them, and the node keeps their addresses
    assert "static_input_idxs" in inspect.getsource(trees.CUDAGraphNode.__init__)


@fact(
    "11",
    "cudagraph-outputs-overwritten",
    "Reading an output of an earlier iteration after a later replay raises `RuntimeError: Error: accessing "
    "tensor output of CUDAGraphs that has been overwritten by a subsequent run.`",
)
def _():
    source = " ".join(_cudagraph_trees_source().replace('"\n', "").split())
    assert "Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run." in (
        source.replace('" "', "")
    )


@fact(
    "11",
    "cudagraph-mark-step-begin",
    "Each call of the compiled function starts a new iteration; when that guess is wrong (two calls within one "
    "step), `torch.compiler.cudagraph_mark_step_begin()` marks where an iteration starts.",
)
def _():
    doc = " ".join(torch.compiler.cudagraph_mark_step_begin.__doc__.split())
    assert "A new iteration is started on each invocation of torch.compile" in doc
    assert "rand_foo() + rand_foo()" in doc  # the docs' example: two calls in one step


@fact(
    "11",
    "cudagraph-skipped-on-cpu",
    'A graph that touches a CPU tensor is not recorded: inductor skips CUDA graphs for it ("skipping '
    'cudagraphs due to cpu device"), counts the skip, and runs it as ordinary compiled code.',
)
def _():
    from torch._dynamo.utils import counters
    from torch._inductor.cudagraph_utils import check_multiple_devices_or_any_cpu_nodes

    node = torch.fx.Graph().placeholder("x")
    msg = check_multiple_devices_or_any_cpu_nodes({torch.device("cpu"): node})
    assert msg.startswith("skipping cudagraphs due to cpu device")
    torch._dynamo.reset()
    counters.clear()
    fn = torch.compile(lambda x: (x * 1.5 + 0.5).relu() * 3, mode="reduce-overhead")
    x = torch.rand(100)
    assert torch.allclose(fn(x), (x * 1.5 + 0.5).relu() * 3)
    assert counters["inductor"]["cudagraph_skips"] >= 1
