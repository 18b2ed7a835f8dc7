"""Module 13's case builders: seeded populations, points, costs and pairs for each exercise."""

from __future__ import annotations

import math

import torch

from torchcourse.bench.workloads import ga
from torchcourse.grading.exercises._inputs import generator, randint, randn


def _gene_cases():
    full = torch.full((2, 1000), 24, dtype=torch.int8)  # the largest possible sums: 24,000
    return [
        (ga.gene_population(5, seed=1),),
        (ga.gene_population(3, 200, seed=2),),
        (ga.gene_population(1, 7, seed=3),),
        (full,),
        (ga.gene_population(300, 4, seed=4).T,),  # transposed: not contiguous
        (torch.ones(0, 9, dtype=torch.int8),),
        (torch.ones(3, 0, dtype=torch.int8),),
    ]


def _points(rows):
    return torch.tensor(rows, dtype=torch.float64)


def _feasible2_cases():
    boundary = _points(
        [
            [1.0, 3.0, -0.5],  # y = 3: infeasible (3 < y is strict)
            [1.0, 7.0, -1.0],  # y = 7: feasible
            [1.5, 4.0, 0.0],  # z = 0: infeasible (z < 0 is strict)
            [3.0, 4.0, -1.0],  # x² + z² = 10: feasible
            [3.0, 4.0, -1.5],  # x² + z² > 10: infeasible
            [1.0, 3.5, -1.5],  # x + y + z = 3: feasible
            [0.99, 5.0, -1.0],  # x < 1
            [1 - 1e-12, 5.0, -1.0],  # x just below 1: infeasible (float32 would round x to 1)
            [1.0, 3 + 1e-12, -0.5],  # y just above 3: feasible (float32 would round y to 3)
        ]
    )
    return [(ga.random_points(200, ga.BOX2, seed=11),), (boundary,), (ga.random_points(7, ga.BOX2, seed=12),)]


def _fitness3_cases():
    boundary = _points(
        [
            [0.5, math.pi, 2.0],  # y = π exactly: feasible
            [0.0, 1.0, 1.0],  # x = 0: feasible
            [0.5, 0.0, 0.5],  # x + z = 1: feasible
            [2.0, 1.0, 5.0],  # z = 5: feasible
            [2.0, 1.0, 5.5],  # z > 5
            [-0.1, 1.0, 2.0],  # x < 0
            [1.0, math.pi, 1.5],  # cos y + z = -1 + 1.5 = 0.5 exactly: feasible
            [2.0, 0.0, -0.5],  # cos y + z = 1 - 0.5 = 0.5 exactly: feasible
        ]
    )
    return [(ga.random_points(300, ga.BOX3, seed=13),), (boundary,)]


def _tournament_cases():
    cases = []
    for n, seed in ((10, 21), (50, 22)):
        cost = randn(n, seed=seed, dtype=torch.float64)
        cost[::4] = math.inf  # infeasible individuals, and ties between them
        cost[1] = cost[2]  # a finite tie
        pairs = randint(0, n, n, 2, seed=seed + 100)
        pairs[0] = torch.tensor([1, 2])
        pairs[1] = torch.tensor([0, 4])
        cases.append((cost, pairs))
    one_pair = torch.tensor([[2, 0]])  # M = 1: the result still has shape (1,), not ()
    cases.append((torch.tensor([0.5, math.inf, -1.0], dtype=torch.float64), one_pair))
    return cases


def _squeezed_gather(cost, pairs):
    """Right winners, but squeeze() without a dim makes a single pair's result 0-d."""
    return pairs.gather(1, cost[pairs].argmin(dim=1, keepdim=True)).squeeze()


def _mutate_cases():
    cases = []
    for n, seed in ((6, 31), (40, 32)):
        pop = randn(n, 3, seed=seed, dtype=torch.float64)
        mask = torch.rand(n, 3, generator=generator(seed + 1)) < 0.3
        noise = randn(n, 3, seed=seed + 2, dtype=torch.float64) * 0.1
        cases.append((pop, mask, noise))
    return cases


def _best_k_cases():
    return [
        (randn(10, 3, seed=41, dtype=torch.float64), randn(10, seed=42, dtype=torch.float64), 3),
        (randn(50, 3, seed=43), randn(50, seed=44), 10),
        (randn(5, 3, seed=45, dtype=torch.float64), randn(5, seed=46, dtype=torch.float64), 1),
    ]


def _generation_cases():
    cases = []
    for n, seed, best in ((16, 51, 0), (64, 52, 0), (24, 53, 13)):
        g = generator(seed)
        pop = ga.random_points(n, ga.BOX2, seed=seed)
        pop[best] = torch.tensor([1.2, 3.3, -0.3], dtype=torch.float64)  # at least one feasible point
        if best:  # the best individual is not row 0: elitism must look for it
            pop[0] = torch.tensor([0.0, 0.0, 1.0], dtype=torch.float64)  # infeasible
        cost = ga.fitness2_torch(pop)
        pairs = torch.randint(0, n, (n, 4), generator=g)
        blend = torch.empty(n, 3, dtype=torch.float64).uniform_(-0.25, 1.25, generator=g)
        mutate_mask = torch.rand(n, 3, generator=g) < 0.2
        noise = torch.randn(n, 3, generator=g, dtype=torch.float64) * 0.3
        cases.append((pop, cost, pairs, blend, mutate_mask, noise))
    return cases
