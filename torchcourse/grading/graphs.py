"""What torch.compile makes of an answer: graphs, breaks and recompiles counted with a
backend that generates no code, and the :class:`Graph` rule built on them."""

from __future__ import annotations

import inspect
import types
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from torchcourse.grading.base import Case, Rule

# ------------------------------------------------------------------ compiled graphs


@dataclass
class GraphFacts:
    graphs: int = 0  # graphs compiled over all calls
    breaks: int = 0  # graph breaks
    recompiles: int = 0  # graphs compiled after the first call
    ops: list[str] = field(default_factory=list)  # every call_function target, subgraphs included
    error: str | None = None  # what compiling raised (e.g. fullgraph=True at a break)


def _fresh_code(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` with its own code object: dynamo caches per code object, so every count starts at zero."""
    if isinstance(fn, types.FunctionType):
        return types.FunctionType(fn.__code__.replace(), fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    return fn


def graph_facts(fn: Callable[..., Any], calls: list[tuple], fullgraph: bool = False) -> GraphFacts:
    """Compile ``fn`` with a counting backend (no code generation) and call it on each args tuple."""
    from torch._dynamo.utils import counters

    from torchcourse.compiletools import captured_logs

    facts = GraphFacts()
    graphs: list[torch.fx.GraphModule] = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiled = torch.compile(_fresh_code(inspect.unwrap(fn)), backend=backend, fullgraph=fullgraph)
    breaks_before = sum(counters["graph_break"].values())
    try:
        with captured_logs():
            for i, args in enumerate(calls):
                compiled(*args)
                if i == 0:
                    first = len(graphs)
    except Exception as exc:  # noqa: BLE001 - reported as a fact
        facts.error = f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"
        first = len(graphs)
    facts.graphs = len(graphs)
    facts.recompiles = len(graphs) - first
    facts.breaks = sum(counters["graph_break"].values()) - breaks_before
    for gm in graphs:
        for mod in gm.modules():
            if isinstance(mod, torch.fx.GraphModule):
                facts.ops += [
                    getattr(n.target, "__name__", str(n.target)) for n in mod.graph.nodes if n.op == "call_function"
                ]
    return facts


@dataclass
class Graph(Rule):
    """Facts about the compiled graph of the answer: one graph (no break), and ops it must contain."""

    max_graphs: int | None = 1
    contains: tuple[str, ...] = ()
    how: str = ""
    name = "compiled graph"
    every_case = False

    def judge(self, case: Case) -> str | None:
        facts = graph_facts(case.fn, [case.fresh()], fullgraph=self.max_graphs == 1)
        if facts.error:
            return (
                f"your function does not compile into one graph ({facts.error}); "
                "remove the Python branch on tensor values"
            )
        if self.max_graphs is not None and facts.graphs > self.max_graphs:
            return f"your function compiles into {facts.graphs} graphs ({facts.breaks} graph breaks); make it one graph"
        for op in self.contains:
            if op not in facts.ops:
                return f"the compiled graph has no {op}; {self.how or f'use {op}'}"
        return None
