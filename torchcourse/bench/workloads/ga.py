"""Genetic-algorithm fitness functions in five variants, and a vectorised GA (module 13).

The case study of module 13 (after the blog post "Making NumPy go faster with
pytorch.compile", docs/reference-figures.md section B) times the same three fitness functions
written five ways: pure Python, NumPy, NumPy compiled by ``torch.compile``, torch eager and
torch compiled. Lessons, exercises and the benchmark import them from here, so every number
measures the same code.

1. ``sum``: a chromosome is 1,000 int genes in 1..24; its fitness is their sum.
   Bytes moved: the population once (``N * 1000`` bytes in int8).
2. ``f2(x, y, z) = x² + 2y² + 3z² + 4xy − 5yz`` on ``x ≥ 1, 3 < y ≤ 7, z < 0, x+y+z ≥ 3,
   x² + z² ≤ 10``. Its infimum over that set is 31, approached at the corner (1, 3, 0).
3. ``f3(x, y, z) = sin x + x² − 2 cos y + y² + z²`` on ``x ≥ 0, 0 ≤ y ≤ π, z ≤ 5,
   x + z ≥ 1, cos y + z ≥ 0.5``.

For 2 and 3 a point is a row ``(x, y, z)`` of an ``(N, 3)`` float64 array; its *cost* is
``f`` where the constraints hold and ``+inf`` where they do not, so minimising the cost
never picks an infeasible point. (The post scores a chromosome as ``−f``; we minimise ``f``
itself, which ranks feasible points the same way.) Bytes moved: 24 B read + 8 B written
per point.

The ``*_compiled`` names are ``torch.compile`` wrappers: nothing compiles until the first
call, and a first call in a process costs seconds (see module 09).
"""

from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch

GENES = 1_000
GENE_LOW, GENE_HIGH = 1, 24  # inclusive
PUBLISHED_POPULATION = 900_000

# ---------------------------------------------------------------- 1: sum of genes


def gene_population(n: int, genes: int = GENES, seed: int = 0) -> torch.Tensor:
    """``n`` chromosomes of ``genes`` int8 genes in 1..24 (seeded, on the CPU).

    int8 because each gene fits in a byte: 900,000 chromosomes take 900 MB instead of 7.2 GB.
    """
    g = torch.Generator().manual_seed(seed)
    return torch.randint(GENE_LOW, GENE_HIGH + 1, (n, genes), generator=g, dtype=torch.int8)


def sum_python(population: list[list[int]]) -> list[int]:
    """Pure Python: one ``sum`` per chromosome, on nested lists."""
    return [sum(chromosome) for chromosome in population]


def sum_numpy_apply(population: np.ndarray) -> np.ndarray:
    """NumPy, but one Python-level call per row (``apply_along_axis``): the slow NumPy."""
    return np.apply_along_axis(np.sum, 1, population)


def sum_numpy(population: np.ndarray) -> np.ndarray:
    """NumPy, one vectorised reduction. NumPy accumulates int8 in int64 without a copy."""
    return population.sum(axis=1)


def sum_torch_naive(population: torch.Tensor) -> torch.Tensor:
    """torch eager, as first written: the int8 sum promotes to int64, and eager torch
    first casts the whole input to int64 (8 bytes per gene: 8x the input's memory)."""
    return population.sum(dim=1)


def sum_torch(population: torch.Tensor) -> torch.Tensor:
    """torch with an explicit accumulator: sums of at most 24,000 fit in int32.
    Eager torch still casts the input (4x); compiled, the cast fuses into the reduction."""
    return population.sum(dim=1, dtype=torch.int32)


sum_numpy_compiled = torch.compile(sum_numpy)
sum_torch_compiled = torch.compile(sum_torch)

# ---------------------------------------------------------------- 2: constrained quadratic


def f2(x, y, z):
    """x² + 2y² + 3z² + 4xy − 5yz for Python floats, NumPy arrays or tensors alike."""
    return x**2 + 2 * y**2 + 3 * z**2 + 4 * x * y - 5 * y * z


def constraints2(x, y, z) -> list:
    """The constraints of function 2, one element-wise condition each."""
    return [x >= 1, y > 3, y <= 7, z < 0, x + y + z >= 3, x**2 + z**2 <= 10]


def feasible2(x, y, z):
    """The constraints of function 2 (element-wise; works on floats, arrays, tensors)."""
    return functools.reduce(operator.and_, constraints2(x, y, z))


def fitness2_python(points: list[tuple[float, float, float]]) -> list[float]:
    """Pure Python: a loop over points, an ``if`` per point."""
    out = []
    for x, y, z in points:
        if x >= 1 and 3 < y <= 7 and z < 0 and x + y + z >= 3 and x**2 + z**2 <= 10:
            out.append(x**2 + 2 * y**2 + 3 * z**2 + 4 * x * y - 5 * y * z)
        else:
            out.append(math.inf)
    return out


def fitness2_numpy(points: np.ndarray) -> np.ndarray:
    """NumPy: whole columns at once, ``np.where`` instead of ``if``."""
    x, y, z = points[:, 0], points[:, 1], points[:, 2]
    return np.where(feasible2(x, y, z), f2(x, y, z), np.inf)


def fitness2_torch(points: torch.Tensor) -> torch.Tensor:
    """torch: the same expression with ``torch.where``."""
    x, y, z = points.unbind(1)
    return torch.where(feasible2(x, y, z), f2(x, y, z), torch.inf)


fitness2_numpy_compiled = torch.compile(fitness2_numpy)
fitness2_torch_compiled = torch.compile(fitness2_torch)

# ---------------------------------------------------------------- 3: trigonometric


def f3(x, y, z, lib=torch):
    """sin x + x² − 2 cos y + y² + z²; ``lib`` is ``math``, ``np`` or ``torch``."""
    return lib.sin(x) + x**2 - 2 * lib.cos(y) + y**2 + z**2


def constraints3(x, y, z, lib=torch) -> list:
    """The constraints of function 3, one element-wise condition each."""
    return [x >= 0, y >= 0, y <= math.pi, z <= 5, x + z >= 1, lib.cos(y) + z >= 0.5]


def feasible3(x, y, z, lib=torch):
    """The constraints of function 3: x ≥ 0, 0 ≤ y ≤ π, z ≤ 5, x + z ≥ 1, cos y + z ≥ 0.5."""
    return functools.reduce(operator.and_, constraints3(x, y, z, lib))


def fitness3_python(points: list[tuple[float, float, float]]) -> list[float]:
    """Pure Python with the ``math`` module."""
    out = []
    for x, y, z in points:
        if x >= 0 and 0 <= y <= math.pi and z <= 5 and x + z >= 1 and math.cos(y) + z >= 0.5:
            out.append(math.sin(x) + x**2 - 2 * math.cos(y) + y**2 + z**2)
        else:
            out.append(math.inf)
    return out


def fitness3_numpy(points: np.ndarray) -> np.ndarray:
    x, y, z = points[:, 0], points[:, 1], points[:, 2]
    return np.where(feasible3(x, y, z, np), f3(x, y, z, np), np.inf)


def fitness3_torch(points: torch.Tensor) -> torch.Tensor:
    x, y, z = points.unbind(1)
    return torch.where(feasible3(x, y, z), f3(x, y, z), torch.inf)


fitness3_numpy_compiled = torch.compile(fitness3_numpy)
fitness3_torch_compiled = torch.compile(fitness3_torch)

# Boxes the random populations (and the GA's first generation) are drawn from: wider than
# the feasible sets, so a share of the points is infeasible, as in a real search.
BOX2 = ((0.0, 5.0), (0.0, 8.0), (-4.0, 2.0))
BOX3 = ((-1.0, 4.0), (-1.0, 4.0), (-2.0, 6.0))


def random_points(n: int, box=BOX2, seed: int = 0, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """``n`` points drawn uniformly in ``box`` (one (low, high) per coordinate), seeded."""
    g = torch.Generator().manual_seed(seed)
    low = torch.tensor([b[0] for b in box], dtype=dtype)
    high = torch.tensor([b[1] for b in box], dtype=dtype)
    return low + (high - low) * torch.rand(n, len(box), generator=g, dtype=dtype)


# ---------------------------------------------------------------- the course's rewrites
# Module 12's treatment of K-Means, applied to the three fitness functions: the same formulas,
# read in the layout the compiled loop loads fastest, written into an output made once and
# reused (a fresh one costs an allocation and, above glibc's mmap threshold, a page fault per
# 4 KiB page on first touch, every call), with selects instead of branches.

_LANES = 0x00FF00FF00FF00FF  # the low byte of each 16-bit lane of an int64


def _sum_words(population: torch.Tensor, out: torch.Tensor) -> None:
    # Eight genes per int64 word; two masks and one shift leave four 16-bit lanes, each the sum
    # of two genes (at most 2 * 127). Summed over the row's words a lane never carries into the
    # next while genes <= 127 and genes per row <= 2048 (2 * 127 * 256 < 65536). No widening of
    # single bytes to int32: one load and four integer operations per eight genes.
    w = population.view(torch.int64)
    t = ((w & _LANES) + ((w >> 8) & _LANES)).sum(dim=1)
    out.copy_((t & 0xFFFF) + ((t >> 16) & 0xFFFF) + ((t >> 32) & 0xFFFF) + ((t >> 48) & 0xFFFF))


def _sum_int32(population: torch.Tensor, out: torch.Tensor) -> None:
    out.copy_(population.sum(dim=1, dtype=torch.int32))


def sum_best(population: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    """Fitness 1, the course's rewrite: each row's sum of non-negative int8 genes (0..127, as
    :func:`gene_population` makes them), as int32 written into ``out`` (reused across calls).

    Reads the population once (``N * genes`` bytes), writes 4 B a row. Rows of a multiple of 8
    contiguous genes, at most 2048 of them, are read as int64 words (:func:`_sum_words`);
    any other population falls back to a compiled int32 sum."""
    n, genes = population.shape
    if out is None:
        out = torch.empty(n, dtype=torch.int32, device=population.device)
    words = population.dtype == torch.int8 and population.is_contiguous() and genes % 8 == 0 and genes <= 2048
    _compiled_kernel(_sum_words if words else _sum_int32)(population, out)
    return out


def to_columns(points: torch.Tensor) -> torch.Tensor:
    """Points ``(N, 3)`` stored as columns, ``(3, N)``: one contiguous stream per coordinate.
    A copy; a GA makes its population in this layout once and keeps it."""
    return points.T.contiguous()


def _where_each(conditions: list[torch.Tensor], cost: torch.Tensor) -> torch.Tensor:
    # One select per constraint instead of one select of their `&`: inductor (torch 2.13) turns
    # each `&` of two float64 comparisons into mask casts, while a select stays a vector blend.
    for ok in conditions:
        cost = torch.where(ok, cost, torch.inf)
    return cost


def _fitness2_columns(C: torch.Tensor, out: torch.Tensor) -> None:
    x, y, z = C[0], C[1], C[2]
    out.copy_(_where_each(constraints2(x, y, z), f2(x, y, z)))


def _fitness3_columns(C: torch.Tensor, out: torch.Tensor) -> None:
    x, y, z = C[0], C[1], C[2]
    out.copy_(_where_each(constraints3(x, y, z), f3(x, y, z)))


_kernels: dict[Callable, Callable] = {}


def _compiled_kernel(kernel: Callable) -> Callable:
    if kernel not in _kernels:
        _kernels[kernel] = torch.compile(kernel)
    return _kernels[kernel]


def _columns(kernel: Callable, C: torch.Tensor, out: torch.Tensor | None) -> torch.Tensor:
    if C.dim() != 2 or C.shape[0] != 3:
        raise ValueError(f"takes the points as columns, (3, N): pass to_columns(points); got shape {tuple(C.shape)}")
    if out is None:
        out = torch.empty(C.shape[1], dtype=C.dtype, device=C.device)
    _compiled_kernel(kernel)(C, out)
    return out


def fitness2_best(C: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    """Fitness 2, the course's rewrite: the points as columns ``(3, N)`` (:func:`to_columns`),
    the cost written into ``out`` (reused across calls), one select per constraint.
    Same bytes as :func:`fitness2_numpy`'s minimum (24 B read, 8 B written a point), in
    contiguous vectors instead of stride-3 loads."""
    return _columns(_fitness2_columns, C, out)


def fitness3_best(C: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    """Fitness 3, the course's rewrite (as :func:`fitness2_best`): on columns the compiled loop
    evaluates ``sin`` and ``cos`` on vectors of points; on rows it calls them once a point."""
    return _columns(_fitness3_columns, C, out)


# ---------------------------------------------------------------- memory


def bytes_allocated(fn: Callable[[], object]) -> int:
    """Bytes the CPU allocator handed out while ``fn()`` ran (torch.profiler's memory events).

    Counts torch's allocations only (NumPy's are invisible to it). Why: ``torch.sum`` of int8
    quietly allocates an int64 copy of its input; this number shows it.
    """
    from torchcourse.profiling import profile_memory

    prof = profile_memory(fn)
    return int(sum(e.self_cpu_memory_usage for e in prof.key_averages() if e.self_cpu_memory_usage > 0))


# ---------------------------------------------------------------- the GA


def ga_step(
    pop: torch.Tensor,
    cost: torch.Tensor,
    pairs: torch.Tensor,
    blend: torch.Tensor,
    mutate: torch.Tensor,
    noise: torch.Tensor,
    fitness: Callable[[torch.Tensor], torch.Tensor],
) -> tuple[torch.Tensor, torch.Tensor]:
    """One generation for the whole population at once (no Python loop over individuals).

    * selection: binary tournaments; ``pairs[:, 0:2]`` and ``pairs[:, 2:4]`` are random
      indices, the one with the lower cost in each pair becomes a parent;
    * crossover: each gene of a child is ``w·a + (1−w)·b`` with ``w = blend`` (drawn in
      [-0.25, 1.25], so children can land slightly outside their parents' segment);
    * mutation: where ``mutate`` is True, add ``noise``;
    * elitism: child 0 is the best individual of the previous generation.

    Every random number comes in as a tensor, drawn by the caller from a seeded generator:
    compiled and eager code then give the same result (their own RNG streams differ).
    """
    a = torch.where(cost[pairs[:, 0]] <= cost[pairs[:, 1]], pairs[:, 0], pairs[:, 1])
    b = torch.where(cost[pairs[:, 2]] <= cost[pairs[:, 3]], pairs[:, 2], pairs[:, 3])
    children = blend * pop[a] + (1 - blend) * pop[b]
    children = torch.where(mutate, children + noise, children)
    elite = pop[cost.argmin(dim=0, keepdim=True)]  # (1, 3); pop[cost.argmin()] would call .item(): a graph break
    children = torch.cat([elite, children[1:]])
    return children, fitness(children)


@dataclass
class GAResult:
    """What :func:`run_ga` found: the best point and cost, and the history per generation."""

    best: torch.Tensor
    best_cost: float
    history_best: list[float] = field(default_factory=list)
    history_mean: list[float] = field(default_factory=list)  # mean cost of the feasible individuals
    feasible_share: list[float] = field(default_factory=list)
    population: torch.Tensor | None = None  # the last generation, (population, 3)
    snapshots: dict[int, torch.Tensor] = field(default_factory=dict)  # generation -> population


_compiled_steps: dict[Callable, Callable] = {}


def run_ga(
    fitness: Callable[[torch.Tensor], torch.Tensor] = fitness2_torch,
    *,
    box=BOX2,
    population: int = 8192,
    generations: int = 60,
    mutation_rate: float = 0.1,
    sigma: float = 0.5,
    decay: float = 0.93,
    seed: int = 0,
    compile: bool = True,
    keep: tuple[int, ...] = (),
) -> GAResult:
    """Minimise ``fitness`` (a cost: lower is better, +inf infeasible) with a vectorised GA.

    The population is a ``(population, 3)`` float64 tensor; each generation is one call of
    :func:`ga_step`, compiled once per fitness function when ``compile`` is True (static
    shapes: the same population size every generation, so no recompiles). The mutation's
    standard deviation starts at ``sigma`` and shrinks by ``decay`` per generation.
    Seeded: the same ``seed`` gives the same run, compiled or not, on any thread count.
    ``keep`` lists generations (0 = the random start) whose population is kept in ``snapshots``.
    """
    g = torch.Generator().manual_seed(seed)
    pop = random_points(population, box, seed=seed)
    cost = fitness(pop)
    step = ga_step
    if compile:
        if fitness not in _compiled_steps:
            _compiled_steps[fitness] = torch.compile(lambda *args: ga_step(*args, fitness=fitness), dynamic=False)
        step = _compiled_steps[fitness]
    else:
        step = lambda *args: ga_step(*args, fitness=fitness)  # noqa: E731
    result = GAResult(best=pop[0], best_cost=math.inf)
    if 0 in keep:
        result.snapshots[0] = pop
    n, d = pop.shape
    for gen in range(generations):
        pairs = torch.randint(0, n, (n, 4), generator=g)
        blend = torch.empty(n, d, dtype=pop.dtype).uniform_(-0.25, 1.25, generator=g)
        mutate = (
            torch.rand(n, d, generator=g, dtype=torch.float32) < mutation_rate
        )  # not the default dtype: same draws everywhere
        noise = torch.randn(n, d, generator=g, dtype=pop.dtype) * (sigma * decay**gen)
        pop, cost = step(pop, cost, pairs, blend, mutate, noise)
        ok = torch.isfinite(cost)
        result.history_best.append(float(cost.min()))
        result.history_mean.append(float(cost[ok].mean()) if bool(ok.any()) else math.inf)
        result.feasible_share.append(float(ok.double().mean()))
        if gen + 1 in keep:
            result.snapshots[gen + 1] = pop
    i = int(cost.argmin())
    result.best, result.best_cost = pop[i].clone(), float(cost[i])
    result.population = pop
    return result
