"""Module 13 "Case study: genetic-algorithm fitness": fitness functions and GA operators on tensors."""

from __future__ import annotations

import math
import warnings

import torch

from torchcourse.bench.workloads import ga
from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises._inputs import randint
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises.m13_cases import (
    _best_k_cases,
    _feasible2_cases,
    _fitness3_cases,
    _gene_cases,
    _generation_cases,
    _mutate_cases,
    _squeezed_gather,
    _tournament_cases,
)
from torchcourse.grading.families import FAMILIES
from torchcourse.grading.rules import Case, Graph, NoLoop, Rule, below_bytes_per_element

gene_sums = solution("13", "gene_sums")


feasible2_mask = solution("13", "feasible2_mask")


fitness3 = solution("13", "fitness3")


tournament = solution("13", "tournament")


mutate = solution("13", "mutate")


best_k = solution("13", "best_k")


ga_generation = solution("13", "ga_generation")


# ------------------------------------------------------------------ inputs


_NO_INT64_COPY = below_bytes_per_element(
    8,
    "your function needed {measured} bytes at its peak, as much as an int64 copy of the population "
    "(8 bytes a gene): pass the accumulator type to sum, sum(dim=1, dtype=...), instead of casting afterwards",
)


def _no_elitism(pop, cost, pairs, blend, mutate, noise):
    a = torch.where(cost[pairs[:, 0]] <= cost[pairs[:, 1]], pairs[:, 0], pairs[:, 1])
    b = torch.where(cost[pairs[:, 2]] <= cost[pairs[:, 3]], pairs[:, 2], pairs[:, 3])
    children = torch.where(mutate, blend * pop[a] + (1 - blend) * pop[b] + noise, blend * pop[a] + (1 - blend) * pop[b])
    return children, ga.fitness2_torch(children)


def _worst_parents(pop, cost, pairs, blend, mutate, noise):
    return ga_generation(pop, -cost, pairs, blend, mutate, noise)


# --- 13.8 fitness and selection in one graph ---------------------------------------------------------


select_parents = solution("13", "select_parents")


def _select_cases():
    cases = []
    for n, m, seed in ((12, 12, 61), (40, 25, 62), (1, 3, 63)):
        pop = ga.random_points(n, ga.BOX2, seed=seed)
        pop[0] = torch.tensor([1.2, 3.3, -0.3], dtype=torch.float64)  # one feasible point
        if n > 3:
            pop[3] = pop[0]  # a finite tie between two different individuals
        pairs = randint(0, n, m, 2, seed=seed + 100)
        if n > 3:
            pairs[0] = torch.tensor([3, 0])
        cases.append((pop, pairs))
    infeasible = torch.tensor([[0.0, 0.0, 1.0], [0.5, 1.0, 1.0], [0.1, 0.2, 0.3]], dtype=torch.float64)
    cases.append((infeasible, torch.tensor([[0, 1], [2, 1], [1, 1]])))  # every cost is inf: ties throughout
    return cases


def _select_with_branch(pop, pairs):
    cost = ga.fitness2_torch(pop)
    if torch.isinf(cost).all():  # nothing feasible: any parent will do
        return pop[pairs[:, 0]], cost[pairs[:, 0]]
    winners = torch.where(cost[pairs[:, 0]] <= cost[pairs[:, 1]], pairs[:, 0], pairs[:, 1])
    return pop[winners], cost[winners]


class _PythonNumbers(torch.overrides.TorchFunctionMode):
    """The torch-level calls that turn a tensor into Python numbers (.item(), .tolist(), int(t), ...).

    Only a TorchFunctionMode: a TorchDispatchMode around an answer that uses torch.cond leaves
    Dynamo's cache so that the answer's next plain call fails."""

    NAMES = frozenset(n for n in FAMILIES["to Python"] if not n.startswith("aten::"))

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in self.NAMES:
            self.found.append(name)
        return func(*args, **(kwargs or {}))


class _NoPythonNumbers(Rule):
    """13.8's "no .item() or .tolist()": the answer never turns a tensor into Python numbers, even
    where torch.compile would still capture one graph around it."""

    name = "no .item() or .tolist()"

    def judge(self, case: Case) -> str | None:
        args = case.fresh()
        rec = _PythonNumbers()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with rec:
                    case.fn(*args)
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        if rec.found:
            shown = {"__int__": "int(tensor)", "__float__": "float(tensor)", "__bool__": "bool(tensor)"}
            what = shown.get(rec.found[0], rec.found[0].strip("_"))
            return (
                f"your function calls {what}, which turns a tensor into Python numbers; the task asks for no "
                ".item() or .tolist(): keep every value a tensor"
            )
        return None


def _select_with_item(pop, pairs):
    cost = ga.fitness2_torch(pop)
    _ = cost.sum().item()  # torch.compile may still capture one graph: .item() is what the text forbids
    winners = torch.where(cost[pairs[:, 0]] <= cost[pairs[:, 1]], pairs[:, 0], pairs[:, 1])
    return pop[winners], cost[winners]


def _elite_is_row_0(pop, cost, pairs, blend, mutate, noise):
    children, _ = ga_generation(pop, cost, pairs, blend, mutate, noise)
    children = torch.cat([pop[:1], children[1:]])  # row 0 of pop, not the best individual
    return children, ga.fitness2_torch(children)


# The module's text: "No Python loops over individuals", judged by behaviour (work that grows
# with the population, whatever spells the loop).
NO_LOOP = NoLoop()


EXERCISES = [
    Exercise(
        "13.1",
        "Gene sums without the int64 copy",
        gene_sums,
        cases=_gene_cases,
        rules=[_NO_INT64_COPY, NO_LOOP],
        hints=[
            "Sum along the genes, dim=1, one number per chromosome.",
            "sum accepts dtype=: the accumulator (and the result) type. The largest sum is 24 × 1000: "
            "which integer type holds it without being 8 bytes?",
        ],
        wrong=[
            lambda population: population.sum(dim=1),
            lambda population: population.sum(dim=1, dtype=torch.int8),
            lambda population: population.sum(dim=0, dtype=torch.int32),
            lambda population: population.sum(dim=1).to(torch.int32),  # right numbers, after the int64 copy
        ],
    ),
    Exercise(
        "13.2",
        "Feasible points of function 2",
        feasible2_mask,
        cases=_feasible2_cases,
        rules=[NO_LOOP],  # the text: no Python loops over individuals
        hints=[
            "Split the columns with x, y, z = points.unbind(1), then combine comparisons with & "
            "(each comparison in parentheses).",
            "Mind the strict inequalities: 3 < y and z < 0, but y <= 7, x >= 1, x + y + z >= 3, x² + z² <= 10.",
        ],
        wrong=[
            lambda p: (
                (p[:, 0] >= 1)
                & (p[:, 1] >= 3)
                & (p[:, 1] <= 7)
                & (p[:, 2] < 0)
                & (p.sum(1) >= 3)
                & (p[:, 0] ** 2 + p[:, 2] ** 2 <= 10)
            ),
            lambda p: (p[:, 0] >= 1) & (p[:, 1] > 3) & (p[:, 1] <= 7) & (p[:, 2] < 0) & (p.sum(1) >= 3),
            lambda p: feasible2_mask(p.float()),  # float32 rounds points near a boundary onto it
            lambda p: (
                (p[:, 0] >= 1)
                & (p[:, 1] > 3)
                & (p[:, 1] <= 7)
                & (p[:, 2] <= 0)
                & (p.sum(1) >= 3)
                & (p[:, 0] ** 2 + p[:, 2] ** 2 <= 10)
            ),
        ],
    ),
    Exercise(
        "13.3",
        "The cost of function 3",
        fitness3,
        cases=_fitness3_cases,
        rules=[NO_LOOP],  # the text: no Python loops over individuals
        hints=[
            "Compute f for every point, build the feasibility mask, then torch.where(mask, f, torch.inf).",
            "The constraints are x ≥ 0, 0 ≤ y ≤ π (math.pi), z ≤ 5, x + z ≥ 1 and cos y + z ≥ 0.5; all include "
            "their boundary.",
        ],
        wrong=[
            lambda p: torch.sin(p[:, 0]) + p[:, 0] ** 2 - 2 * torch.cos(p[:, 1]) + p[:, 1] ** 2 + p[:, 2] ** 2,
            lambda p: -fitness3(p),
            lambda p: torch.where(p[:, 1] < math.pi, fitness3(p), torch.inf),
            lambda p: torch.where(torch.cos(p[:, 1]) + p[:, 2] > 0.5, fitness3(p), torch.inf),  # strict
        ],
    ),
    Exercise(
        "13.4",
        "Binary tournaments",
        tournament,
        cases=_tournament_cases,
        rules=[NO_LOOP],  # the text: no Python loops over individuals
        hints=[
            "cost[pairs[:, 0]] and cost[pairs[:, 1]] are the two contestants' costs, one pair per row.",
            "Return population *indices* (from pairs), not costs; lower cost wins, and on a tie the first "
            "contestant (pairs[:, 0]) wins, so compare with <=.",
        ],
        wrong=[
            lambda cost, pairs: cost[pairs].argmin(dim=1),
            lambda cost, pairs: torch.where(cost[pairs[:, 0]] >= cost[pairs[:, 1]], pairs[:, 0], pairs[:, 1]),
            lambda cost, pairs: torch.where(cost[pairs[:, 0]] < cost[pairs[:, 1]], pairs[:, 0], pairs[:, 1]),
            lambda cost, pairs: torch.minimum(cost[pairs[:, 0]], cost[pairs[:, 1]]),
            _squeezed_gather,
        ],
    ),
    Exercise(
        "13.5",
        "Mutation without touching the parents",
        mutate,
        cases=_mutate_cases,
        rules=[NO_LOOP],  # the text: no Python loops over individuals
        hints=[
            "torch.where(mask, a, b) picks a where mask is True and b elsewhere, element by element.",
            "pop[mask] += noise[mask] changes the caller's population in place; build a new tensor instead.",
        ],
        wrong=[lambda pop, mask, noise: pop + noise, lambda pop, mask, noise: torch.where(mask, pop, pop + noise)],
    ),
    Exercise(
        "13.6",
        "The k best individuals",
        best_k,
        cases=_best_k_cases,
        rules=[NO_LOOP],  # the text: no Python loops over individuals
        domain=lambda pop, cost, k: pop.shape[0] >= k >= 1,  # the text: k of the population's rows
        hints=[
            "torch.argsort(cost) gives the indices that sort the costs, lowest first.",
            "Index the population's rows with the first k of those indices: the result has shape (k, 3).",
        ],
        wrong=[
            lambda pop, cost, k: pop[torch.argsort(cost, descending=True)[:k]],
            lambda pop, cost, k: torch.argsort(cost)[:k],
            lambda pop, cost, k: pop[:k],
        ],
    ),
    Exercise(
        "13.8",
        "Fitness and selection in one graph",
        select_parents,
        cases=_select_cases,
        rules=[
            Graph(max_graphs=1),
            _NoPythonNumbers(),
        ],
        hints=[
            "cost = ga.fitness2_torch(pop); then each row of pairs picks the index with the lower cost "
            "(torch.where, as in 13.4), and you index pop and cost with the winners.",
            "A Python `if` on a tensor's value (or .item(), .tolist()) forces torch.compile to leave the "
            "graph; torch.where handles every case, even when no individual is feasible.",
        ],
        wrong=[
            _select_with_branch,
            lambda pop, pairs: (lambda c, w: (pop[w], c[w]))(
                ga.fitness2_torch(pop),
                torch.where(
                    ga.fitness2_torch(pop)[pairs[:, 0]] < ga.fitness2_torch(pop)[pairs[:, 1]], pairs[:, 0], pairs[:, 1]
                ),
            ),
            lambda pop, pairs: (pop[pairs[:, 0]], ga.fitness2_torch(pop)[pairs[:, 0]]),
            _select_with_item,
        ],
    ),
    Exercise(
        "13.7",
        "One whole generation (stretch)",
        ga_generation,
        cases=_generation_cases,
        rules=[NO_LOOP],  # the text: no Python loops over individuals
        hints=[
            "Four steps: two tournaments (pairs[:, 0:2] and pairs[:, 2:4]) give parents a and b; "
            "children = blend * pop[a] + (1 - blend) * pop[b]; mutation adds noise where mutate is True; "
            "child 0 is replaced by the best individual of pop.",
            "Return (children, ga.fitness2_torch(children)). Elitism: pop[cost.argmin()] goes in row 0 "
            "(torch.cat, or clone and assign).",
        ],
        wrong=[
            _no_elitism,
            _worst_parents,
            lambda pop, cost, pairs, blend, mutate, noise: ga_generation(pop, cost, pairs, 1 - blend, mutate, noise),
            _elite_is_row_0,
        ],
    ),
]
