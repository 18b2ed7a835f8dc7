# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] tags=["course-nav"]
# *Module 11 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/11_graph_breaks.ipynb) · previous: [10 · Recompilation and dynamic shapes](10_recompilation.ipynb) · next: [12 · Compiling NumPy code](12_compiling_numpy.ipynb)

# %% tags=["course-setup"] jupyter={"source_hidden": true}
# Course setup. On your own machine this cell installs nothing. On Google Colab it fetches
# the course and installs its helper package, torchcourse, once per session.
# Colab runtime: CPU is enough for this module.
import sys

course_ready = True
if "google.colab" in sys.modules:
    import os
    import shutil
    import subprocess

    home = os.environ.get("TORCHCOURSE_HOME", "/content/pytorch-course")
    repo = os.environ.get("TORCHCOURSE_REPO", "")
    if not os.path.isdir(home):
        if not repo:
            course_ready = False
            print(
                "Missing: the course's git address. Run os.environ['TORCHCOURSE_REPO'] = "
                "'<the course git URL>' in a cell, then this cell again."
            )
        else:
            git = ["git", "clone", "--quiet", "--depth", "1", repo, home]
            pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "-e", home]
            for step in (git, pip):
                done = subprocess.run(step, capture_output=True, text=True)
                if done.returncode:
                    course_ready = False
                    shutil.rmtree(home, ignore_errors=True)
                    why = (done.stderr.strip().splitlines() or ["no message"])[-1]
                    print(f"Missing: the course, not fetched from {repo} ({step[0]}: {why}). Run this cell again.")
                    break
    if course_ready:
        sys.path.insert(0, home)
        print("Colab: the course is in", home)
else:
    print("Local run: nothing to install.")
if course_ready:
    # A note on stderr when this torch is not 2.13.0 (the one the stored outputs were made with),
    # saying whether it is supported; an error naming what is missing when it is too old.
    from torchcourse.preflight import check_torch

    _ = check_torch()

# %% [markdown] tags=["outputs-stamp"]
# *Outputs made with torch 2.13.0+cpu on Intel(R) Xeon(R) Processor (2 cores, CPU only), 2026-11-28.*

# %% [markdown]
# # 11 · Graph breaks
#
# `torch.compile` reads your Python function and records the tensor operations it meets
# into a *graph*, which the compiler then fuses into fast code. Some Python it cannot record:
# an `if` that depends on the *values* in a tensor, a `print`, a clock, a `.item()`. There
# it stops, compiles what it has, runs that piece of Python normally, and starts a new graph
# after it. That split is a **graph break**. Nothing fails and the results stay right, but
# each break costs a trip back to Python and cuts a fusion in two. This notebook shows where
# breaks come from in torch 2.13, how to see them, and how to write the same computation so
# that it compiles into one graph.
#
# **Objectives.** After this notebook you can:
# 1. name the four usual causes of a graph break, find them with `torch._dynamo.explain`,
#    and look a break up by the code (`gb0170`, ...) its message carries;
# 2. read `explain`'s fields: what `ops_per_graph` lists and what it leaves out, and why
#    `break_reasons` can be non-empty when `graph_break_count` is 0;
# 3. turn breaks into errors with `fullgraph=True`, keep a function out of the graph on
#    purpose with `torch.compiler.disable`, or keep opaque code inside it as a custom operator
#    with a fake implementation (and know what `allow_in_graph` promises);
# 4. remove a data-dependent branch with `torch.where` or `torch.cond`, and keep
#    `.item()` inside the graph with `capture_scalar_outputs`;
# 5. measure what a break costs per call, and say what CUDA graphs (`mode="reduce-overhead"`)
#    require of the code they record.
#
# **Prerequisites.** [09 · torch.compile: fusion and overhead](09_compile_fusion.ipynb)
# (what a graph and a fused kernel are), [10 · Recompilation](10_recompilation.ipynb)
# (guards).
#
# **Time.** 45 min teaching, 45 min exercises.

# %%
import os
import re
import tempfile
import time
import warnings

# An empty inductor cache, set before anything compiles: the first compile below is a cold one.
cache_dir = tempfile.mkdtemp(prefix="inductor-11-")  # deleted by the last cell
os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir

import matplotlib.pyplot as plt
import torch

from torchcourse import claim, predict, reveal
from torchcourse.compiletools import captured_logs, compile_counter, compile_stats, needs_compiler, reset
from torchcourse.preflight import version_tuple
from torchcourse.timing import interleaved, measure, memory_limits, time_once

_ = torch.manual_seed(0)

# %% [markdown]
# ## A break you do not see
#
# `step` is a small piece of numerical code: a transform, a correction that depends on the
# mean, another transform. The `if` asks a question about the data (`m > 0` where `m` is a
# tensor), and the answer is only known when the code runs.


# %%
def step(x):
    y = x * 1.5 + 0.5
    m = y.mean()
    if m > 0:
        y = y - m
    else:
        y = y + 1
    return torch.relu(y) * 3


# %% [markdown]
# Compile it with the counting backend from module 09 (it records graphs and generates no
# code, so a call costs only Dynamo's tracing) and call it once.
#
# **Predict 11.p1.** How many graphs will dynamo produce for this one call of `step`? Write a
# whole number.

# %%
predict("11.p1", None)  # replace None with your prediction

# %%
counter = compile_counter()
step_counted = torch.compile(step, backend=counter)
x_pos, x_neg = torch.rand(1000), -torch.rand(1000) - 1  # mean of y > 0, and < 0

print("same as eager:", torch.allclose(step_counted(x_pos), step(x_pos)))
print("graphs so far:", counter.frame_count)
claim(counter.frame_count == 2, "the `if` on a tensor split `step` into two graphs")
reveal(
    "11.p1",
    counter.frame_count,
    why="`m > 0` needs the value of a tensor, which exists only when the code runs: dynamo ends "
    "the graph before the `if`, runs it in Python, and starts a new graph for what follows.",
)

# %% [markdown]
# It runs and gives the eager answer, but it produced **two** graphs: everything up to `m > 0`,
# then the rest.
# %% [markdown]
# Dynamo compiled the part after the `if` only for the branch that ran.
#
# **Predict 11.p2.** Now call it with data that takes the other branch, then with both inputs
# again. How many graphs in all (counting the two so far)? Write a whole number.

# %%
predict("11.p2", None)  # replace None with your prediction

# %%
step_counted(x_neg)
print("graphs after the other branch:", counter.frame_count)
step_counted(x_pos), step_counted(x_neg)
print("graphs after calling both again:", counter.frame_count)
claim(counter.frame_count == 3, "the other branch added one graph, and calling both again compiled nothing")
reveal(
    "11.p2",
    counter.frame_count,
    why="the part before the `if` is the same graph for both inputs; the other branch's rest is "
    "a third graph, and afterwards every path is cached.",
)

# %% [markdown]
# Dynamo says why it split in its `graph_breaks` log (`TORCH_LOGS=graph_breaks`, or
# `torch._logging.set_logs(graph_breaks=True)` in a notebook). That log goes to stderr; the
# course's `captured_logs` switches it on for a block and collects it, so you can read the part
# that matters: the reason, your line, and a link.

# %% tags=["version-specific"]
reset()
with captured_logs(graph_breaks=True) as logs:
    torch.compile(step, backend=compile_counter())(x_pos)
print(logs.require(r"Graph Break Reason", "the graph-break reason")[0].strip())
print(logs.require(r"^\s*if m > 0:", "the line of step that broke the graph")[-1].strip())
# the graph_breaks log links each break to a page by its code (torch 2.13 does; 2.10 did not yet)
if version_tuple(torch.__version__) >= (2, 13, 0):
    print(logs.require(r"gb\d{4}", "the link to the graph-break page")[0].strip())

# %% [markdown]
# Every graph-break message carries a **code** (in torch 2.13; 2.10's log had none), here
# `gb0170`, in a link to a page that
# explains that kind of break with examples and the usual workarounds. Search for the code
# rather than the wording: reasons are reworded between torch releases more often than codes
# change (though a break can get a new, more specific code in a later release).
#
# ## `torch._dynamo.explain`: the report
#
# `torch._dynamo.explain(fn)(*args)` traces `fn` on those arguments (no code generation) and
# returns a report. It calls `torch._dynamo.reset()` before and after tracing, so every function
# you compiled earlier in the session is compiled again on its next call. The fields you use most:
#
# | field | what |
# |---|---|
# | `graph_count` | graphs produced on this call |
# | `graph_break_count` | `graph_count - 1` (that is how torch 2.13 computes it) |
# | `break_reasons` | one entry per break, `.reason` (text) and `.user_stack` (where) |
# | `ops_per_graph` | per graph, the *functions* it calls (FX `call_function` nodes: `torch.relu`, `*`, `>`); method calls such as `y.mean()` are not listed |
# | `graphs` | the graphs themselves (FX `GraphModule`s), every node included |

# %%
report = torch._dynamo.explain(step)(x_pos)
print("graph_count:", report.graph_count)
print("graph_break_count:", report.graph_break_count)
print("break at line:", report.break_reasons[0].user_stack[-1].line)
print("ops_per_graph:", [[getattr(op, "__name__", str(op)) for op in ops] for ops in report.ops_per_graph])

# %% [markdown]
# `y.mean()` is missing from `ops_per_graph`: it is a *method* call, and `ops_per_graph`
# keeps only function calls. The graphs in `report.graphs` hold every node, and module 09's
# counting backend counts all three kinds of call (function, method, module), so its
# `op_count` is one higher:


# %%
def calls_in(graph_module):
    """'kind:name' for every call node of an FX graph (function, method or module)."""
    nodes = [n for n in graph_module.graph.nodes if n.op.startswith("call_")]
    return [f"{n.op.removeprefix('call_')}:{getattr(n.target, '__name__', n.target)}" for n in nodes]


for i, graph in enumerate(report.graphs):
    print(f"graph {i}:", calls_in(graph))
counter = compile_counter()
torch.compile(step, backend=counter)(x_pos)
n_listed = sum(len(ops) for ops in report.ops_per_graph)
n_calls = sum(len(calls_in(g)) for g in report.graphs)
print(
    f"ops_per_graph lists {n_listed} operations, the graphs hold {n_calls} calls, CompileCounter counted {counter.op_count}"
)
claim(
    counter.op_count == n_calls == n_listed + 1,
    "ops_per_graph leaves out the method call y.mean(), which the graphs and CompileCounter include",
)

# %% [markdown]
# ## The four usual causes
#
# A data-dependent `if`, `print`, a clock (`time.time()`) and `.item()` (a tensor turned into
# a Python number). The helper below runs `explain` quietly (the `.item()` and clock breaks
# also print warnings to stderr), collects the `graph_breaks` log on the way, and prints one
# row per function with the graph-break code its message carried.


# %% tags=["version-specific"]
def if_on_data(x):
    y = x.sin()
    if y.sum() > 0:
        return y.cos()
    return y


def prints(x):
    y = x.sin()
    print("  (printed from inside prints)")
    return y.cos()


def clock(x):
    y = x.sin()
    t0 = time.time()
    return y.cos(), t0


def item(x):
    y = x.sin()
    s = y.sum().item()
    return y.cos() * s


def quiet_explain(fn, *args):
    """explain() with torch's logs and warnings kept out of the notebook; returns the report
    and the graph-break codes (gbNNNN) the graph_breaks log mentioned."""
    with captured_logs(graph_breaks=True) as logs, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = torch._dynamo.explain(fn)(*args)
    return report, sorted(set(re.findall(r"gb\d{4}", logs.text)))


x = torch.rand(8)
for fn in (if_on_data, prints, clock, item):
    e, codes = quiet_explain(fn, x)
    print(f"{fn.__name__:11} graphs={e.graph_count} breaks={e.graph_break_count}  code={', '.join(codes)}")
    coded = len(codes) == 1 or version_tuple(torch.__version__) < (2, 13, 0)  # 2.10 logs no codes
    claim(e.graph_count == 2 and coded, f"{fn.__name__}: two graphs around one coded break", show=False)

# %% [markdown]
# Each function produced two graphs around its break, and each kind of break has its own
# code. `print` and `time.time` are plain Python that Dynamo will not put in a graph, and
# `.item()` breaks only because a setting says so (you will switch it below).
#
# ### When `break_reasons` and `graph_break_count` disagree
#
# `graph_break_count` is computed as `graph_count - 1`, but a piece of code with no tensor
# operation in it produces no graph, while its break reason is still recorded. In torch 2.13
# this still happens. `item_if` breaks at `.item()`; when the data takes the `return x` path,
# nothing after the break is a tensor operation.
#
# **Predict 11.p3.** On the input whose sum is negative (the `return x` path), what will
# `graph_break_count` say? Write a whole number.

# %%
predict("11.p3", None)  # replace None with your prediction


# %%
def item_if(x):
    if x.sum().item() > 0:
        return x * 2
    return x  # no tensor operation after the break on this path


found = {}
for label, arg in (("sum > 0", x), ("sum < 0", -x)):
    e, _ = quiet_explain(item_if, arg)
    found[label] = (e.graph_count, e.graph_break_count, len(e.break_reasons))
    print(
        f"item_if, {label}: graph_count={e.graph_count} graph_break_count={e.graph_break_count} "
        f"len(break_reasons)={len(e.break_reasons)}"
    )
claim(found["sum < 0"] == (1, 0, 1), "on the second input graph_break_count is 0 while one break reason is recorded")
reveal(
    "11.p3",
    found["sum < 0"][1],
    why="graph_break_count is graph_count - 1, and the piece after the break holds no tensor "
    "operation, so it makes no graph: one graph, a count of 0, one recorded break.",
)

# %% [markdown]
# Same function, same break; on the second input the count says 0. Read `break_reasons`,
# not only the count, when you hunt for breaks.

# %% [markdown]
# ## `fullgraph=True`: breaks become errors
#
# While you tune a function you usually want to *know* about a break rather than live with
# it. `torch.compile(fn, fullgraph=True)` refuses to split: the first break raises, with the
# explanation, hints, the link with the graph-break code, and the line in your code.

# %% tags=["version-specific", "raises-exception"]
torch.compile(step, fullgraph=True, backend="eager")(x_pos)

# %% [markdown]
# The error is a `torch._dynamo.exc.Unsupported`, a subclass of `RuntimeError`. In code (a
# test of your own, say) catch it and read the code rather than matching the wording:


# %%
def graph_break_code(err):
    """The graph-break code (gbNNNN) that a torch.compile error message names."""
    found = re.search(r"gb\d{4}", str(err))
    claim(found is not None, "the error message names its graph-break code", show=False)
    return found.group()


try:
    torch.compile(step, fullgraph=True, backend="eager")(x_pos)
except RuntimeError as err:
    print(type(err).__name__, "| a RuntimeError:", isinstance(err, RuntimeError), "| code:", graph_break_code(err))

# %% [markdown]
# Read the hints: make the code branch-free, or use `torch.cond`. Both follow.
#
# ## Fix 1: branch-free with `torch.where`
#
# Compute both outcomes and select one with `torch.where(condition, a, b)`. Both sides are
# computed, which is cheap for element-wise work like this; in exchange the whole function is
# one graph, fused end to end.


# %%
def step_where(x):
    y = x * 1.5 + 0.5
    m = y.mean()
    y = torch.where(m > 0, y - m, y + 1)
    return torch.relu(y) * 3


e = torch._dynamo.explain(step_where)(x_pos)
print("graphs:", e.graph_count, "| breaks:", e.graph_break_count)
print(
    "same as step, both branches:",
    torch.allclose(step_where(x_pos), step(x_pos)) and torch.allclose(step_where(x_neg), step(x_neg)),
)
print(
    "fullgraph compile works:",
    torch.allclose(torch.compile(step_where, fullgraph=True, backend="eager")(x_neg), step(x_neg)),
)
claim(e.graph_count == 1, "step_where compiles into one graph")

# %% [markdown]
# ## Fix 2: `torch.cond`, a branch inside the graph
#
# When a branch is expensive, or the two branches do very different work, computing both is
# wasteful. `torch.cond(pred, true_fn, false_fn, operands)` puts *both* branches into the
# graph as subgraphs and decides at run time. The branches take the operands as arguments
# and must return the same structure, with tensors of the same dtype, device and number of
# dimensions; their sizes may differ (below). A branch may not return one of its operands, or a
# view of one, as it is: `torch.cond` refuses the aliasing (return `y.clone()` instead).


# %%
def step_cond(x):
    y = x * 1.5 + 0.5
    m = y.mean()
    y = torch.cond(m > 0, lambda y, m: y - m, lambda y, m: y + 1, (y, m))
    return torch.relu(y) * 3


e = torch._dynamo.explain(step_cond)(x_pos)
print("graphs:", e.graph_count, "| breaks:", e.graph_break_count)
print(
    "same as step, both branches:",
    torch.allclose(step_cond(x_pos), step(x_pos)) and torch.allclose(step_cond(x_neg), step(x_neg)),
)
print("calls in the graph:", calls_in(e.graphs[0]))

# %% [markdown]
# The graph holds a single `cond` call where the `if` used to be (`getitem` takes its result
# apart).
#
# The two branches may return different sizes. Then the result's size is known only at run
# time: Dynamo gives it a symbol with the range of the two sizes (here between 3 and 8), and one
# graph serves both outcomes:


# %%
def head_or_all(x):
    return torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: x[:3] * 2, (x,))


counter = compile_counter()
head_or_all_c = torch.compile(head_or_all, fullgraph=True, backend=counter)
print("x.sum() > 0:", tuple(head_or_all_c(x).shape), "| x.sum() < 0:", tuple(head_or_all_c(-x).shape))
print("graphs:", counter.frame_count)
claim(
    head_or_all_c(x).shape != head_or_all_c(-x).shape and counter.frame_count == 1,
    "one graph returns either size",
)

# %% [markdown]
# (`x[:3]` alone would be refused: it is a view of the operand. `x[:3] * 2` is a new tensor.)
#
# `torch.cond` also works outside `torch.compile`, but it is not a plain `if` there: it traces
# both branches with Dynamo on its first call (the same rules apply, the same errors come, see
# *Common mistakes*) and then runs the traced code, through Dynamo's guards, on every call. Time
# `step_cond` called eagerly against `step` with its `if`, taking turns on one thread:

# %%
# NBVAL_IGNORE_OUTPUT
with_if, with_cond = interleaved([lambda: step(x_pos), lambda: step_cond(x_pos)], number=20, threads=1)
print(f"eager, 1000 elements: step (an if) {with_if * 1e6:.0f} µs, step_cond (torch.cond) {with_cond * 1e6:.0f} µs")

# %%
# A guarded call through Dynamo costs far more than the few µs of six small eager kernels (over
# 10x on the AMD EPYC that made these outputs): 2x holds on any CPU, at one thread, taking turns.
claim(
    with_cond > 2 * with_if,
    "outside torch.compile, torch.cond costs more per call than a plain if",
    f"if {with_if * 1e6:.0f} µs, torch.cond {with_cond * 1e6:.0f} µs",
)

# %% [markdown]
# So `torch.cond` is made for code you compile: one version of the code then serves both
# branches in one graph.
#
# ## `.item()` and `capture_scalar_outputs`
#
# `.item()` returns a Python number whose value is unknown while tracing. By default Dynamo
# breaks there. With `torch._dynamo.config.capture_scalar_outputs = True` it keeps the number
# in the graph as a symbol instead:

# %%
for capture in (False, True):
    with torch._dynamo.config.patch(capture_scalar_outputs=capture):
        e, _ = quiet_explain(item, x)
    print(f"capture_scalar_outputs={capture}: graphs={e.graph_count} breaks={e.graph_break_count}")

# %% [markdown]
# Worth knowing in torch 2.13: `fullgraph=True` switches scalar capture on by itself, so
# `item` compiles whole with `fullgraph=True` even with the setting left at `False`:

# %%
print("capture_scalar_outputs setting:", torch._dynamo.config.capture_scalar_outputs)
out = torch.compile(item, fullgraph=True, backend="eager")(x)
print("item() under fullgraph=True works, same as eager:", torch.allclose(out, item(x)))

# %% [markdown]
# A captured number can flow into tensor arithmetic, but a Python `if` on it is a
# data-dependent branch again: a graph break with the setting alone, and under `fullgraph=True`
# an error (see *Common mistakes*). The branch-free rewrites above are the cure there too.
#
# `print` has a similar switch: functions listed in
# `torch._dynamo.config.reorderable_logging_functions` are moved after the graph instead of
# breaking it. Dynamo keeps the arguments as they were at the call, but a tensor that the
# function changes in place after the `print` shows its changed value, because the call now
# runs after the graph:

# %%
with torch._dynamo.config.patch(reorderable_logging_functions={print}):
    e, _ = quiet_explain(prints, x)
print("prints, with print reorderable: graphs =", e.graph_count)

# %% [markdown]
# ## A break on purpose: `torch.compiler.disable`
#
# Sometimes a function should *not* be compiled: Python bookkeeping, I/O, a call into a
# library Dynamo cannot trace, code that would break the graph many times over. Decorate it
# with `@torch.compiler.disable`. A compiled caller then stops tracing at the call, runs the
# function as ordinary Python on every call, and resumes tracing after it: one break you
# chose, in place of whatever breaks tracing it would have caused. (By default the functions
# it calls are not compiled either; `torch.compiler.disable(fn, recursive=False)` skips only
# `fn` itself.)

# %%
recorded = []


@torch.compiler.disable
def record(y):
    recorded.append(round(float(y.max()), 3))  # Python bookkeeping, run eagerly every call


def step_recorded(x):
    y = x * 1.5 + 0.5
    record(y)
    return torch.relu(y - y.mean()) * 3


counter = compile_counter()
step_recorded_c = torch.compile(step_recorded, backend=counter)
for _ in range(3):
    out = step_recorded_c(x_pos)
print("record() ran on every call:", len(recorded) == 3, recorded)
print("graphs:", counter.frame_count)
print("same as eager:", torch.allclose(out, step_recorded(x_pos)))
claim(counter.frame_count == 2, "the disabled call costs one break: two graphs, compiled once")
try:
    torch.compile(step_recorded, fullgraph=True, backend="eager")(x_pos)
except RuntimeError as err:
    print("under fullgraph=True it is an error too, code:", graph_break_code(err))

# %% [markdown]
# Its code differs from the data-dependent `if`'s, and its message says exactly which
# function was skipped. `torch.compiler.disable` is the tool for code you have decided to
# leave in Python; for code you want fast, the rewrites above remove the break instead.

# %% [markdown]
# ## Opaque code inside one graph: a custom operator
#
# `torch.compiler.disable` keeps code in Python at the price of a break. When the opaque code is
# a tensor function, say a NumPy routine that Dynamo cannot trace (`np.polyval` is one:
# `torch.compile` translates most NumPy calls, not this one), you can keep it **inside** the
# graph as a custom operator. `torch.library.custom_op` registers your Python function as an
# operator (here `course::poly`) that the graph calls as one opaque node. To put that node in
# a graph, the compiler must know what the operator returns without running it: tracing runs
# on *fake* tensors, which carry a shape, a dtype and a device but no data. The **fake
# implementation**, registered with `register_fake`, computes exactly that: the output's shape,
# dtype and device from the inputs'.

# %%
import numpy as np

numpy_runs = [0]  # how many times the NumPy body really ran


@torch.library.custom_op("course::poly", mutates_args=())
def poly(x: torch.Tensor) -> torch.Tensor:
    """0.5 x² - x + 2, evaluated by NumPy's np.polyval."""
    numpy_runs[0] += 1
    values = np.polyval([0.5, -1.0, 2.0], x.numpy(force=True))
    return torch.from_numpy(values).to(device=x.device, dtype=x.dtype)


@poly.register_fake
def _(x):
    return torch.empty_like(x)  # same shape, dtype and device as x; no data computed


@torch.compiler.disable
def poly_disabled(x):
    return torch.from_numpy(np.polyval([0.5, -1.0, 2.0], x.numpy(force=True))).to(x.dtype)


def poly_plain(x):
    return torch.from_numpy(np.polyval([0.5, -1.0, 2.0], x.numpy(force=True))).to(x.dtype)


def scored(p):
    def score(x):
        y = x * 2 - 1
        return p(y).sqrt() + y

    return score


counts = {}
for name, p in (("custom op", poly), ("torch.compiler.disable", poly_disabled), ("plain NumPy call", poly_plain)):
    reset()
    counter = compile_counter()
    with captured_logs():
        out = torch.compile(scored(p), backend=counter)(x_pos)
    counts[name] = (counter.frame_count, compile_stats()["graph_breaks"])
    same = torch.allclose(out, scored(p)(x_pos))
    if name != "plain NumPy call":
        print(f"{name:23} graphs: {counts[name][0]}, graph breaks: {counts[name][1]}, same as eager: {same}")
print(f"{'plain NumPy call':23} breaks the graph: {counts['plain NumPy call'][1] >= 1}, same as eager: {same}")
claim(
    counts["custom op"] == (1, 0) and counts["torch.compiler.disable"] == (2, 1) and counts["plain NumPy call"][1] >= 1,
    "the custom op kept one graph; compiler.disable and the plain NumPy call each broke it",
)

# %% [markdown]
# What the fake implementation buys: under fake tensors the operator answers with the right
# shape and dtype **without running NumPy**, even for a tensor far larger than memory would
# hold (a fake tensor allocates nothing). The same holds on the `meta` device:

# %%
from torch._subclasses.fake_tensor import FakeTensorMode

before = numpy_runs[0]
with FakeTensorMode():
    huge = torch.empty(10**12)  # 4 TB as real float32; a fake tensor has no data
    out = poly(huge)
print("under fake tensors:", type(out).__name__, tuple(out.shape), out.dtype)
print("on meta:", poly(torch.empty(3, 2, device="meta")).shape)
print("NumPy body runs meanwhile:", numpy_runs[0] - before)
claim(numpy_runs[0] == before and tuple(out.shape) == (10**12,), "the fake answered without running NumPy")

# %% [markdown]
# Without a fake implementation the compiler has no way to learn the output's shape, and
# compiling fails with an error that says so (see Common mistakes below). A fake must agree
# with the real operator on shape, dtype and device: `torch.library.opcheck(op, args)` runs the
# real operator and its fake on the same inputs and fails when they disagree.
#
# ### `torch.compiler.allow_in_graph`: not traced, but not opaque (optional)
#
# `allow_in_graph(fn)` tells Dynamo not to trace inside `fn` and to put the call in the graph as
# it is. Its docstring states the promise you make: the inputs and outputs are tensors (or ints,
# floats, bools, lists and tuples of them), every tensor `fn` uses is passed in as an input, and
# otherwise the behaviour is undefined. It is not a custom operator: Dynamo still *runs* `fn` on
# fake tensors to learn its outputs, and the backend (AOTAutograd, then inductor) traces through
# it. So `fn` must be a pure tensor function. NumPy inside it fails at once:


# %% tags=["version-specific"]
@torch.compiler.allow_in_graph
def poly_allowed(x):
    return torch.from_numpy(np.polyval([0.5, -1.0, 2.0], x.numpy(force=True))).to(x.dtype)


reset()
try:
    with captured_logs():
        torch.compile(scored(poly_allowed), backend=compile_counter())(x_pos)
    failed = None
except Exception as err:  # Dynamo wraps the fake-tensor failure in its own error
    failed = err
print("allow_in_graph with NumPy inside raised:", failed is not None)
print("because .numpy() is not supported on a fake tensor:", ".numpy() is not supported" in str(failed))
claim(failed is not None, "compiling the allowed function with NumPy inside failed")

# %% [markdown]
# And Python side effects inside it run when the function is *traced*, not when the compiled
# code runs. Here a counter in the function body, compiled with `backend="aot_eager"` (AOTAutograd
# traces, as it does before inductor, and no code is generated):

# %%
body_runs = [0]


@torch.compiler.allow_in_graph
def doubled(y):
    body_runs[0] += 1  # Python, not a tensor operation
    return y * 2


doubled_c = torch.compile(lambda x: doubled(x + 1) - 1, backend="aot_eager")
seen = []
for _ in range(4):
    doubled_c(x_pos)
    seen.append(body_runs[0])
print("the body ran while the first call was traced:", seen[0] >= 1)
print("body runs during the 3 later calls:", seen[-1] - seen[0])
claim(seen[0] >= 1 and seen[1:] == [seen[0]] * 3, "the Python body ran while tracing, never on later calls")

# %% [markdown]
# Three tools, then: `torch.compiler.disable` for Python that must run every call (one break);
# a custom operator with a fake for opaque tensor code (no break; the compiler never looks
# inside); `allow_in_graph` only for a pure tensor function that Dynamo fails to trace.

# %% [markdown]
# ## What a break costs
#
# Now compile for real (inductor) and time three versions of the same computation: eager,
# compiled with the break, compiled branch-free. `dynamic=True` compiles kernels that take the
# size as a parameter instead of one kernel per size. Not quite one for *every* size: on a CPU,
# inductor adds up more than 4096 float32 numbers in chunks of 4096 (a cascade sum, for
# accuracy), and `mean` is such a sum, so the code it generates guards on `n <= 4096`: each
# version compiles once more when the sweep first passes 4096 elements, and then never again.
# The comparison runs on one thread: timings on a busy machine are steadier that way, and one
# thread keeps the comparison between the three versions fair. Set the thread count *before*
# compiling: inductor writes the count in force at compile time into its C++ kernels
# (`#pragma omp parallel num_threads(...)`). A later `torch.set_num_threads` does not edit those
# kernels, but it does not leave them running either: dynamo's guards include the thread count,
# so the next call compiles again for the new count (the recompile reason reads `GLOBAL_STATE
# changed: num_threads`). Setting it first saves that second compile.
#
# First, what compiling costs. The first `torch.compile` call in a process loads inductor and
# starts its C++ toolchain, whatever it compiles, and the first in this notebook's new cache
# directory runs inductor's CPU probe too (module 09 times it): a one-line function pays that
# below. The
# notebook started with an empty inductor cache, so the compiles after it are **cold**: they
# generate C++ and run the C++ compiler, once per graph (two graphs with the break, one
# branch-free). `reset()` then forgets the compiled functions but leaves the cache on disk, and
# compiling the same code again is **warm**: the compiled graphs come from the cache.

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("what compiling with inductor costs, cold and warm")
reset()
threads = torch.get_num_threads()
torch.set_num_threads(1)  # before compiling: inductor's C++ kernels use the count set at compile time
x_small = torch.rand(100)
_, first_ever = time_once(lambda: torch.compile(lambda t: t + 1)(x_small))
print(f"first compile in this process (t + 1, one small kernel): {first_ever:.2f} s")
first_call = {}
for cache in ("cold", "warm"):
    reset()  # forget compiled code; the inductor cache directory stays
    step_broken = torch.compile(step, dynamic=True)
    step_fused = torch.compile(step_where, dynamic=True)
    _, first_call[cache, "break"] = time_once(lambda: step_broken(x_small))
    _, first_call[cache, "fused"] = time_once(lambda: step_fused(x_small))
for cache in ("cold", "warm"):
    print(
        f"first call, {cache} cache: with the break {first_call[cache, 'break']:.2f} s (two graphs), "
        f"branch-free {first_call[cache, 'fused']:.2f} s (one graph)"
    )

# %%
# A warm compile skips the C++ compiler, the largest part of a cold one: 2x holds on any CPU.
needs_compiler("the claim about a warm compile")
claim(
    first_call["warm", "break"] < first_call["cold", "break"] / 2,
    "with a warm inductor cache, compiling step again takes less than half the cold time",
)

# %%
needs_compiler("the recompiles of inductor's kernels over sizes")
sizes = [10**k for k in range(2, 8)]
inputs = {n: torch.rand(n) for n in sizes}
graphs_before = compile_stats()["unique_graphs"]
print(
    "compiled versions agree with eager at every size:",
    all(torch.allclose(f(inputs[n]), step(inputs[n]), atol=1e-5) for n in sizes for f in (step_broken, step_fused)),
)
new_graphs = compile_stats()["unique_graphs"] - graphs_before
print("graphs compiled during the sweep over six sizes:", new_graphs)
claim(new_graphs == 2, "the sweep recompiled the graph holding `mean` once per version, not once per size")

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("timing the compiled versions against eager")
variants = {"eager": step, "compiled, graph break": step_broken, "compiled, branch-free": step_fused}
times = {
    name: [measure(lambda: f(inputs[n]), repeat=5, budget=0.05).min for n in sizes] for name, f in variants.items()
}
print(f"{'n':>9} " + " ".join(f"{name:>24}" for name in variants))
for i, n in enumerate(sizes):
    print(f"{n:>9} " + " ".join(f"{times[name][i] * 1e6:>21.1f} µs" for name in variants))
torch.set_num_threads(threads)

# %% [markdown]
# What the table shows, checked again with the three versions taking turns, so that a busy
# moment on the machine slows all of them alike:


# %%
needs_compiler("the claims about the compiled versions' speed")


def interleaved_min(fns, x, number):
    """Best time per call of each function on x, the functions taking turns (see interleaved)."""
    return interleaved([lambda fn=fn: fn(x) for fn in fns], number=number)


torch.set_num_threads(1)
eager, broken, fused = interleaved_min(list(variants.values()), inputs[sizes[0]], number=200)
# The break runs the branch-free version's work plus a second guarded graph call and a Python
# resume, and two graph calls cost more than six tiny eager kernels: 1.7x to 2.5x measured on
# Intel and AMD CPUs, at one thread, so 1.2x holds on any CPU.
claim(
    broken > 1.2 * max(fused, eager),
    "at 100 elements the version with the break is the slowest of the three",
    f"eager {eager * 1e6:.1f} µs, break {broken * 1e6:.1f} µs, branch-free {fused * 1e6:.1f} µs",
)
eager, broken, fused = interleaved_min(list(variants.values()), inputs[sizes[-1]], number=1)
at_large = {"eager": eager, "compiled, graph break": broken, "compiled, branch-free": fused}
# Each version moves more bytes and creates more new tensors than the one before it (counted
# below): the order holds on any CPU, however far apart your memory makes them.
claim(
    fused < broken < eager,
    "at 10 million elements branch-free is the fastest and eager the slowest",
    f"eager {eager * 1e3:.1f} ms, break {broken * 1e3:.1f} ms, branch-free {fused * 1e3:.1f} ms",
)
torch.set_num_threads(threads)

# %% [markdown]
# Plotted as time per call against size (both axes logarithmic, lower is better):

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("the plot of the compiled versions' times")
fig, ax = plt.subplots(figsize=(6.5, 3.2))
for name, style in zip(variants, ("o-", "s-", "^-")):
    ax.loglog(sizes, [t * 1e6 for t in times[name]], style, label=name)
ax.set(xlabel="elements n", ylabel="µs per call (min of 5)", title="step() with and without its graph break (1 thread)")
ax.grid(alpha=0.3, which="both")
ax.legend()
plt.show()

# %% [markdown]
# * **Small tensors** (left): the call is overhead. The broken version pays for two graph
#   calls, two sets of guards and a return to Python in between, so it is the slowest there;
#   the branch-free version pays for one, and ends up close to eager: at this size compiling
#   does not pay anyway (module 09's break-even), whichever of the two wins on your run.
# * **Large tensors** (right): the time goes into the bytes each version moves and the new
#   tensors it creates. Eager runs six kernels over the `n` elements (`*`, `+`, `mean`, `-`,
#   `relu`, `*`; `m > 0` is a seventh on one number): it reads 24 and writes 20 bytes per
#   element and returns five new tensors of `n` elements. The break cuts
#   the fusion in two: the first graph writes `y` and the second reads it back, 8 bytes read and
#   8 written per element, two new tensors. Branch-free is one kernel that passes over `x`
#   twice, first for the mean, then computing `y` again from `x` (it never stores `y`): 8 bytes
#   read, 4 written, one new tensor. (Read the kernels yourself with `TORCH_LOGS=output_code`,
#   module 09.)
#
# A new tensor is not free when it is large. Time `x * 1.5` into a new tensor and into an
# existing one (`out=`), at four sizes, taking turns on one thread:

# %%
# NBVAL_IGNORE_OUTPUT
new_tensor_cost = {}
for n in (1_000_000, 4_000_000, 8_000_000, 10_000_000):
    xn, existing = torch.rand(n), torch.empty(n)
    fresh, reused = interleaved([lambda: xn * 1.5, lambda: torch.mul(xn, 1.5, out=existing)], threads=1)
    new_tensor_cost[n] = max(fresh - reused, 0.0)
    print(
        f"n = {n:>10,} ({4 * n / 2**20:4.1f} MiB): new tensor {fresh * 1e3:6.2f} ms, "
        f"existing {reused * 1e3:5.2f} ms, {fresh / reused:4.1f}x"
    )

# %% [markdown]
# On Linux, torch gets memory from glibc's `malloc`. A block above its *mmap threshold* (which
# grows with use, up to 32 MiB) comes fresh from the operating system and goes back on free,
# unless a free stretch the heap already holds can take it, and every 4 KiB page of a fresh
# block is zeroed by the operating system when first touched (a page fault). Smaller blocks
# are usually reused from memory freed by the previous call; glibc also hands a large free
# stretch at the top of its heap back to the system, so just below 32 MiB it depends on what
# else the heap holds. At 38 MiB a call pays, as the new tensor's extra time above shows on
# your machine; how much depends on your system (a virtual machine pays more per page fault).
# At 10 million float32, each of the five, two or one new tensors is 38 MiB, so each pays.
#
# Put the two together: the bytes each version moves, at the memory limit that matches its
# traffic (measured now on one thread, `torchcourse.timing.memory_limits`), plus the cost of
# its new tensors from the sweep above, against the time measured with the three taking turns:

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("the compiled versions' times against their bytes")
n = sizes[-1]
torch.set_num_threads(1)
limits = memory_limits()  # read, write and copy GB/s of 256 MiB buffers, on this one thread
torch.set_num_threads(threads)
# bytes read and written per element, and new n-element tensors per call, from the code each runs
traffic = {"eager": (24, 20, 5), "compiled, graph break": (8, 8, 2), "compiled, branch-free": (8, 4, 1)}
for name, (read, written, new) in traffic.items():
    kind, gbps = limits.for_traffic(read * n, written * n)
    moving = (read + written) * n / (gbps * 1e9)
    print(
        f"{name:>22}: {read * n / 1e6:3.0f} MB read + {written * n / 1e6:3.0f} MB written at the {kind} limit "
        f"({gbps:.0f} GB/s) {moving * 1e3:5.1f} ms + {new} new tensor(s) {new * new_tensor_cost[n] * 1e3:5.1f} ms "
        f"= {(moving + new * new_tensor_cost[n]) * 1e3:5.1f} ms; measured {at_large[name] * 1e3:5.1f} ms"
    )

# %% [markdown]
# Compare each sum with its measured time: what the sum leaves out is arithmetic and per-call
# overhead. The order of the three does not depend on your machine: each version moves more
# bytes *and* creates more new tensors than the one before it. How far apart they are does:
# your memory bandwidth sets the first part, your system's page faults the second.

# %% [markdown]
# ## `mode="reduce-overhead"`: what CUDA graphs require (optional)
#
# On an NVIDIA GPU, `torch.compile(fn, mode="reduce-overhead")` records each compiled graph's
# kernel launches once as a **CUDA graph** and then replays the recording with a single launch,
# which removes the launch overhead of many small kernels. A replay repeats exactly what was
# recorded, hence its rules:
#
# * **Static input addresses.** The recording reads fixed memory. An input that is not already
#   at a recorded address (parameters and buffers are; a new input tensor is not) is copied into
#   a static buffer before each replay.
# * **Outputs are overwritten by the next replay.** An output lives in memory the recording
#   owns. Reading an output of an earlier iteration after a later replay raises
#   `RuntimeError: Error: accessing tensor output of CUDAGraphs that has been overwritten by a
#   subsequent run.` Keep what you need with `out.clone()`. Each call of the compiled function
#   starts a new iteration; when that guess is wrong (two calls within one step),
#   `torch.compiler.cudagraph_mark_step_begin()` marks where an iteration starts.
# * **No CPU work inside.** A graph that touches a CPU tensor is not recorded: inductor skips
#   CUDA graphs for it ("skipping cudagraphs due to cpu device"), counts the skip, and runs it
#   as ordinary compiled code. A `.item()` inside is a graph break by default, as above.
#
# On a CPU the mode compiles as usual and records nothing. Here is the CPU run:

# %%
from torch._dynamo.utils import counters

reset()
cpu_ro = torch.compile(lambda x: (x * 1.5 + 0.5).relu() * 3, mode="reduce-overhead")
first_out = cpu_ro(x_pos)
first_copy = first_out.clone()
second_out = cpu_ro(x_pos + 1)
skips = counters["inductor"]["cudagraph_skips"]
print("CUDA graphs skipped (inductor's count):", skips)
print(
    "the second call wrote new memory; the first output kept its values:",
    first_out.data_ptr() != second_out.data_ptr() and torch.equal(first_out, first_copy),
)
claim(skips >= 1, "on CPU tensors inductor skipped CUDA graphs", needs_compiler=True)

# %% [markdown]
# On a CUDA GPU the next cell records and replays a graph, keeps one output across a replay to
# show the error, and keeps a clone instead. Without one it says what it skipped.

# %%
# NBVAL_IGNORE_OUTPUT
if not torch.cuda.is_available():
    print("No CUDA GPU here: skipped recording and replaying a CUDA graph, the error for an output")
    print("kept across a replay, and cudagraph_mark_step_begin. The CPU run above shows the skip.")
else:
    reset()
    xg = torch.rand(10_000, device="cuda")
    gpu_ro = torch.compile(lambda x: (x * 1.5 + 0.5).relu() * 3, mode="reduce-overhead")
    for _ in range(3):
        gpu_ro(xg)  # warm-up runs, then the recording
    kept = gpu_ro(xg)
    gpu_ro(xg)  # a new iteration: the replay overwrites kept's memory
    try:
        print(kept.sum())
    except RuntimeError as err:
        print("reading an output kept across a replay:", str(err).splitlines()[0])
    torch.compiler.cudagraph_mark_step_begin()
    safe = gpu_ro(xg).clone()
    torch.compiler.cudagraph_mark_step_begin()
    gpu_ro(xg)
    print("a clone survives the next replay:", torch.allclose(safe, (xg * 1.5 + 0.5).relu() * 3))
    print("CUDA graphs skipped:", counters["inductor"]["cudagraph_skips"])

# %% [markdown]
# ## Common mistakes
#
# **A Python `if` on a captured scalar.** Under `fullgraph=True`, `.item()` stays in the graph
# as a symbol, and an `if` on it asks for a value that does not exist at trace time. The error
# says so ("Could not guard on data-dependent expression"). (With `capture_scalar_outputs=True`
# and no `fullgraph`, the same `if` is a graph break instead.)


# %% tags=["version-specific", "raises-exception"]
def standardise_item(x):
    s = x.std().item()
    if s < 1e-3:
        s = 1.0
    return (x - x.mean()) / s


torch.compile(standardise_item, fullgraph=True, backend="eager")(x)

# %% [markdown]
# Fix: keep it a tensor, `s = torch.where(s < 1e-3, torch.ones_like(s), s)` (exercise 11.5).
#
# **`torch.cond` branches that disagree.** Both branches must return the same structure, and
# tensors of the same dtype, device and number of dimensions (only sizes may differ). Here one
# returns float32 and the other int64; called outside `torch.compile`, it fails the same way,
# in Dynamo's tracing:

# %% tags=["version-specific", "raises-exception"]
torch.cond(x.sum() > 0, lambda x: x * 2, lambda x: x.long(), (x,))

# %% [markdown]
# **An `if` on a tensor with several elements.** This fails already in eager mode; what you
# meant is an element-wise choice, `torch.where(x > 0.5, a, b)`:

# %% tags=["raises-exception"]
if x > 0.5:
    pass

# %% [markdown]
# **A custom operator without a fake implementation.** Compiling a call to it fails: the
# compiler traces with fake tensors and has no way to learn what the operator returns.


# %% tags=["version-specific", "raises-exception"]
@torch.library.custom_op("course::poly_nofake", mutates_args=())
def poly_nofake(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.polyval([0.5, -1.0, 2.0], x.numpy(force=True))).to(x.dtype)


torch.compile(scored(poly_nofake), backend="eager")(x_pos)

# %% [markdown]
# Fix: register one, `@poly_nofake.register_fake` on a function that returns
# `torch.empty_like(x)`, as for `poly` above.
#
# **Timing inside a compiled function.** `time.time()` in the function breaks the graph and
# measures the pieces, not the whole. Time from outside, with `measure` or `time_once`.
#
# ## Key points
#
# * A graph break splits a compiled function into graphs with Python between them. Results
#   stay right; you pay per call (extra graph calls, guards) and per element (lost fusion:
#   more bytes moved, more new tensors, and a large new tensor costs page faults).
# * Usual causes: an `if` on tensor values, `print`, clocks, `.item()`. Each break message
#   carries a code (`gb0170`, ...) and a link to a page about that kind of break.
# * `torch._dynamo.explain(fn)(x)` reports `graph_count`, `graph_break_count` (= graphs − 1)
#   and `break_reasons`; a reason can be recorded even when the count says 0. `ops_per_graph`
#   lists function calls only (no `y.mean()`); `graphs` has every node. `explain` resets Dynamo.
# * `fullgraph=True` turns the first break into an error with hints; in torch 2.13 it also
#   captures `.item()` scalars.
# * Remove branches with `torch.where` (both sides computed) or `torch.cond` (both branches in
#   the graph, one runs; their results may differ in size, not in dtype); keep numbers as 0-d
#   tensors instead of `.item()`.
# * `torch.compiler.disable` keeps a function out of the graph on purpose, at the price of one
#   break where it is called.
# * A custom operator (`torch.library.custom_op`) keeps opaque code, NumPy included, inside one
#   graph; its fake implementation (`register_fake`) gives the output's shape and dtype without
#   running it, and without one compiling fails. `allow_in_graph` is not opaque: the function is
#   run on fake tensors and traced by the backend, so it must be a pure tensor function, and its
#   Python side effects happen only while tracing.
# * `mode="reduce-overhead"` replays CUDA graphs: inputs are copied into static buffers, each
#   replay overwrites the previous outputs (`.clone()` what you keep), and a graph with CPU
#   tensors is not recorded (on a CPU nothing is).
# * The first compile with an empty inductor cache is cold and slow; the same compile with a
#   warm cache is much cheaper.
#
# ## Further reading
#
# * [Working with graph breaks](https://docs.pytorch.org/docs/stable/compile/programming_model.graph_breaks_index.html)
#   and [Use `fullgraph=True` to identify and eliminate graph breaks](https://docs.pytorch.org/docs/stable/compile/programming_model.fullgraph_true.html),
#   in the PyTorch documentation's `torch.compile` programming model.
# * [Disabling and suppressing errors](https://docs.pytorch.org/docs/stable/compile/programming_model.compiler_disable.html)
#   and the [`torch.compiler.disable`](https://docs.pytorch.org/docs/stable/generated/torch.compiler.disable.html)
#   reference (`recursive`, `reason`).
# * [`torch._logging.set_logs`](https://docs.pytorch.org/docs/stable/generated/torch._logging.set_logs.html):
#   the `graph_breaks` and `recompiles` switches, and how `TORCH_LOGS` takes precedence.
# * [Custom Python operators](https://docs.pytorch.org/tutorials/advanced/python_custom_ops.html)
#   (`torch.library.custom_op`, `register_fake`, `opcheck`) and the
#   [`torch.compiler.allow_in_graph`](https://docs.pytorch.org/docs/stable/generated/torch.compiler.allow_in_graph.html)
#   reference, whose table sets it beside custom operators.
# * [CUDAGraph Trees](https://docs.pytorch.org/docs/stable/torch.compiler_cudagraph_trees.html):
#   what `mode="reduce-overhead"` records, and `torch.compiler.cudagraph_mark_step_begin`.

# %% [markdown]
# The last cell deletes this notebook's private inductor cache.

# %%
import shutil

shutil.rmtree(cache_dir, ignore_errors=True)
print("private cache removed:", not os.path.exists(cache_dir))

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 30 statements of this lesson are tested facts; all pass on torch 2.13.0. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“It runs and gives the eager answer, but it produced two graphs: everything up to <code>m &gt; 0</code>, then the rest.”</td><td>✓</td></tr>
# <tr><td>“<code>graph_count - 1</code> (that is how torch 2.13 computes it)”</td><td>✓</td></tr>
# <tr><td>“<code>y.mean()</code> is missing from <code>ops_per_graph</code>: it is a method call, and <code>ops_per_graph</code> keeps only function calls.”</td><td>✓</td></tr>
# <tr><td>“It calls <code>torch._dynamo.reset()</code> before and after tracing, so every function you compiled earlier in the session is compiled again on its next call.”</td><td>✓</td></tr>
# <tr><td>“The error is a <code>torch._dynamo.exc.Unsupported</code>, a subclass of <code>RuntimeError</code>.”</td><td>✓</td></tr>
# <tr><td>“Every graph-break message carries a code (in torch 2.13; 2.10&#x27;s log had none)”</td><td>✓</td></tr>
# <tr><td>“must return the same structure, with tensors of the same dtype, device and number of dimensions; their sizes may differ (below).”</td><td>✓</td></tr>
# <tr><td>“Dynamo gives it a symbol with the range of the two sizes (here between 3 and 8), and one graph serves both outcomes”</td><td>✓</td></tr>
# <tr><td>“A branch may not return one of its operands, or a view of one, as it is: <code>torch.cond</code> refuses the aliasing”</td><td>✓</td></tr>
# <tr><td>“it traces both branches with Dynamo on its first call (the same rules apply, the same errors come, see Common mistakes) and then runs the traced code, through Dynamo&#x27;s guards, on every call.”</td><td>✓</td></tr>
# <tr><td>“<code>fullgraph=True</code> switches scalar capture on by itself, so <code>item</code> compiles whole with <code>fullgraph=True</code> even with the setting left at <code>False</code>”</td><td>✓</td></tr>
# <tr><td>“(With <code>capture_scalar_outputs=True</code> and no <code>fullgraph</code>, the same <code>if</code> is a graph break instead.)”</td><td>✓</td></tr>
# <tr><td>“a tensor that the function changes in place after the <code>print</code> shows its changed value, because the call now runs after the graph”</td><td>✓</td></tr>
# <tr><td>“By default the functions it calls are not compiled either; <code>torch.compiler.disable(fn, recursive=False)</code> skips only <code>fn</code> itself.”</td><td>✓</td></tr>
# <tr><td>“inductor adds up more than 4096 float32 numbers in chunks of 4096 (a cascade sum, for accuracy), and <code>mean</code> is such a sum, so the code it generates guards on <code>n &lt;= 4096</code>”</td><td>✓</td></tr>
# <tr><td>“dynamo&#x27;s guards include the thread count, so the next call compiles again for the new count (the recompile reason reads <code>GLOBAL_STATE changed: num_threads</code>)”</td><td>✓</td></tr>
# <tr><td>“inductor writes the count in force at compile time into its C++ kernels (<code>#pragma omp parallel num_threads(...)</code>)”</td><td>✓</td></tr>
# <tr><td>“Branch-free is one kernel that passes over <code>x</code> twice, first for the mean, then computing <code>y</code> again from <code>x</code> (it never stores <code>y</code>): 8 bytes read, 4 written, one new tensor.”</td><td>✓</td></tr>
# <tr><td>“<code>torch.library.custom_op</code> registers your Python function as an operator (here <code>course::poly</code>) that the graph calls as one opaque node.”</td><td>✓</td></tr>
# <tr><td>“<code>np.polyval</code> is one: <code>torch.compile</code> translates most NumPy calls, not this one”</td><td>✓</td></tr>
# <tr><td>“tracing runs on fake tensors, which carry a shape, a dtype and a device but no data. The fake implementation, registered with <code>register_fake</code>, computes exactly that: the output&#x27;s shape, dtype and device from the inputs&#x27;.”</td><td>✓</td></tr>
# <tr><td>“Without a fake implementation the compiler has no way to learn the output&#x27;s shape, and compiling fails with an error that says so”</td><td>✓</td></tr>
# <tr><td>“<code>torch.library.opcheck(op, args)</code> runs the real operator and its fake on the same inputs and fails when they disagree.”</td><td>✓</td></tr>
# <tr><td>“Its docstring states the promise you make: the inputs and outputs are tensors (or ints, floats, bools, lists and tuples of them), every tensor <code>fn</code> uses is passed in as an input, and otherwise the behaviour is undefined.”</td><td>✓</td></tr>
# <tr><td>“It is not a custom operator: Dynamo still runs <code>fn</code> on fake tensors to learn its outputs, and the backend (AOTAutograd, then inductor) traces through it.”</td><td>✓</td></tr>
# <tr><td>“And Python side effects inside it run when the function is traced, not when the compiled code runs.”</td><td>✓</td></tr>
# <tr><td>“An input that is not already at a recorded address (parameters and buffers are; a new input tensor is not) is copied into a static buffer before each replay.”</td><td>✓</td></tr>
# <tr><td>“Reading an output of an earlier iteration after a later replay raises <code>RuntimeError: Error: accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run.</code>”</td><td>✓</td></tr>
# <tr><td>“Each call of the compiled function starts a new iteration; when that guess is wrong (two calls within one step), <code>torch.compiler.cudagraph_mark_step_begin()</code> marks where an iteration starts.”</td><td>✓</td></tr>
# <tr><td>“A graph that touches a CPU tensor is not recorded: inductor skips CUDA graphs for it (&quot;skipping cudagraphs due to cpu device&quot;), counts the skip, and runs it as ordinary compiled code.”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/11_graph_breaks.ipynb](../exercises/11_graph_breaks.ipynb) ·
# **Previous:** [10 · Recompilation and dynamic shapes](10_recompilation.ipynb) ·
# **Next:** [12 · Compiling NumPy code](12_compiling_numpy.ipynb)
