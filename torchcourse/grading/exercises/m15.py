"""Module 15 "Distributed tensors": sharding arithmetic and collectives, simulated in one process.

Every exercise is checkable in the notebook's own process: a list of tensors stands for
"one tensor per rank", so the check is fast and needs no launch. The lesson runs the real
thing with torchrun and shows that the simulated answers are what the ranks compute.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import torch
from torch.distributed.tensor import Replicate, Shard
from torch.utils._python_dispatch import TorchDispatchMode

from torchcourse.grading.checks import Exercise
from torchcourse.grading.compare import describe, shares_memory
from torchcourse.grading.exercises._inputs import randint, randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.rules import Calls, Holds, Rule, allocations

rows_owned = solution("15", "rows_owned")


all_reduce = solution("15", "all_reduce")


all_gather = solution("15", "all_gather")


reduce_scatter = solution("15", "reduce_scatter")


assemble = solution("15", "assemble")


ring_all_reduce_bytes = solution("15", "ring_all_reduce_bytes")


row_sharded_matmul = solution("15", "row_sharded_matmul")


col_sharded_matmul = solution("15", "col_sharded_matmul")


# ---- inputs -----------------------------------------------------------------------------


def _rows_cases():
    return [(9, 4, 0), (9, 4, 2), (9, 4, 3), (10, 4, 3), (7, 2, 1), (8, 4, 2), (5, 4, 3), (6, 3, 1)]


def _per_rank(shapes_and_seeds, dtype=torch.float32):
    return [
        [randn(*shape, seed=seed + r, dtype=dtype) for r in range(world)] for world, shape, seed in shapes_and_seeds
    ]


def _reduce_cases():
    lists = _per_rank([(2, (3,), 10), (4, (2, 3), 20), (3, (5,), 30)])
    ints = [([randint(0, 9, 4, seed=40 + r, dtype=dtype) for r in range(3)],) for dtype in (torch.int64, torch.int32)]
    return [(ts,) for ts in lists] + ints  # int32 stays int32 on every rank; a plain sum makes it int64


def _gather_cases():
    lists = _per_rank([(2, (3,), 50), (4, (2, 3), 60), (3, (1, 4), 70)])
    return [(ts,) for ts in lists]


def _scatter_cases():
    lists = _per_rank([(2, (4,), 80), (4, (8, 2), 90), (3, (6,), 100)])
    return [(ts,) for ts in lists] + [([randint(-9, 9, 6, seed=105 + r, dtype=torch.int32) for r in range(3)],)]


def _shards(full, world, dim):
    """Each rank's local piece under Shard(dim), as DTensor makes them: torch.chunk, then
    empty pieces for the ranks torch.chunk left without one (9 rows over 4 ranks: 3, 3, 3, 0)."""
    pieces = [p.clone() for p in full.chunk(world, dim=dim)]
    empty = list(full.shape)
    empty[dim] = 0
    return pieces + [full.new_empty(empty) for _ in range(world - len(pieces))]


def _assemble_cases():
    full = randn(9, 5, seed=110)
    return [
        (_shards(full, 4, 0), Shard(0)),  # 3, 3, 3, 0 rows
        (_shards(full, 2, 1), Shard(1)),  # 3 + 2 columns
        ([full.clone() for _ in range(3)], Replicate()),
        (_shards(randn(4, 5, seed=111), 4, 1), Shard(1)),  # 2, 2, 1, 0 columns
        (_shards(randn(7, 2, seed=112), 2, 0), Shard(0)),
    ]


def _ring_cases():
    return [(1_000_000, 4, 2), (1_000_000, 4, 8), (4096, 2, 4), (123, 8, 3), (10, 4, 1), (10, 1, 3)]


def _row_matmul_cases():
    cases = []
    for m, k, n, world, seed in [(9, 5, 3, 4, 120), (6, 4, 2, 2, 121), (7, 3, 5, 3, 122)]:
        w = randn(m, k, seed=seed)
        cases.append((_shards(w, world, 0), randn(k, n, seed=seed + 50)))
    w = randn(5, 4, seed=123, dtype=torch.float64)
    cases.append((_shards(w, 2, 0), randn(4, 1, seed=124, dtype=torch.float64)))
    return cases


def _col_matmul_cases():
    cases = []
    for m, k, n, world, seed in [(4, 6, 3, 2, 130), (5, 9, 2, 4, 131), (3, 5, 5, 3, 132)]:
        w, x = randn(m, k, seed=seed), randn(k, n, seed=seed + 50)
        cases.append((_shards(w, world, 1), _shards(x, world, 0)))
    return cases


@dataclass
class _NoGather(Rule):
    """15.7 and 15.8: no rank's data meets another's before the local products are formed. Judged by
    behaviour, whatever gathers: no single op takes two shards of W (or of x) as inputs (cat,
    stack, column_stack, a sum of shards ...), and no block as large as W or x whole is allocated
    (a buffer the shards are copied into), where the largest block a right answer needs (``needed``:
    the stacked partial products in 15.8, the result in 15.7) is smaller than that. The arguments
    that are lists are the sharded ones; a single tensor (15.7's replicated x) is every rank's own."""

    needed: Callable[[tuple], int]  # (fresh args) -> bytes of the largest block a right answer allocates
    advice: str = "add up the ranks' local products"
    name = "no gather"

    def judge(self, case):
        args = case.fresh()
        shards = {}
        for name, part in zip("Wx", args):
            if isinstance(part, (list, tuple)):  # empty shards hold nothing to gather
                shards.update({t.untyped_storage().data_ptr(): (name, i) for i, t in enumerate(part) if t.numel()})
        mixed: list[str] = []

        class Watch(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                owners = {shards.get(a.untyped_storage().data_ptr()) for a in _flat_tensors(args)} - {None}
                for name in ("W", "x"):
                    if len({i for n, i in owners if n == name}) > 1 and not mixed:
                        mixed.append(f"{func.overloadpacket.__name__} takes several shards of {name}")
                return func(*args, **(kwargs or {}))

        try:
            with Watch():
                case.fn(*args)
        except Exception:  # noqa: BLE001 - the comparison reports the answer's own errors
            return None
        if mixed:
            return f"your function gathers: {mixed[0]}; {self.advice}, never join shards"
        fresh = case.fresh()
        wholes = [sum(t.nbytes for t in part) for part in fresh if isinstance(part, (list, tuple))]
        telling = [b for b in wholes if self.needed(fresh) < b]  # a right answer stays below these
        if not telling:
            return None  # memory cannot tell a gather from what a right answer allocates here
        whole = min(telling)
        largest = max([e for e in allocations(lambda: case.fn(*fresh)) if e > 0], default=0)
        if largest >= whole:
            return (
                f"your function allocates {largest:,} bytes at once, as much as W or x whole ({whole:,}); "
                f"{self.advice}, never copy the shards into one tensor"
            )
        return None


def _stacked_partials(args):
    """15.8: the ranks' partial products, each the full (m, n), stacked."""
    ws, xs = args
    return len(ws) * ws[0].shape[0] * xs[0].shape[1] * ws[0].element_size()


def _row_product(args):
    """15.7: the result W @ x, (rows of all shards, n)."""
    ws, x = args
    return sum(w.shape[0] for w in ws) * x.shape[1] * x.element_size()


def _int_pair(args, got):
    """15.1 asks for two Python ints: a tensor is not one (NumPy integers are ints by value)."""
    if isinstance(got, (tuple, list)):
        for name, value in zip(("start", "stop"), got):
            if isinstance(value, torch.Tensor):
                return f"{name} is a tensor; return two Python ints (int(...) of a tensor gives one)"
    return None


def _a_float(args, got):
    """15.6 asks for a float: an int (e.g. from //) is not one, even where the value is whole."""
    if isinstance(got, (bool, np.bool_)) or not isinstance(got, (float, np.floating)):
        return f"return the bytes as a float (e.g. 2 * (p - 1) / p * ...), got {describe(got)}"
    return None


def _flat_tensors(value):
    if isinstance(value, torch.Tensor):
        yield value
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _flat_tensors(v)


def _row_matmul_fill_w(ws, x):
    """Builds W first, by slice assignment: no op joins two shards, but W whole is allocated."""
    w = torch.empty(sum(s.shape[0] for s in ws), x.shape[0], dtype=x.dtype)
    start = 0
    for s in ws:
        w[start : start + s.shape[0]] = s
        start += s.shape[0]
    return w @ x


def _separate_buffers(args, got):
    """Each simulated rank owns its own memory: one shared tensor for all ranks is not a simulation."""
    if not isinstance(got, (list, tuple)):
        return None
    tensors = [t for t in got if isinstance(t, torch.Tensor) and t.numel() > 0]
    inputs = [t for t in args[0] if isinstance(t, torch.Tensor) and t.numel() > 0]
    for i, a in enumerate(tensors):
        for b in tensors[i + 1 :]:
            if shares_memory(a, b):
                return (
                    "two ranks' results share memory; each rank holds its own copy "
                    "(give every rank a fresh tensor, e.g. with .clone())"
                )
        for b in inputs:
            if shares_memory(a, b):
                return "a result shares memory with an input; return new tensors and leave the inputs as they were"
    return None


EXERCISES = [
    Exercise(
        "15.1",
        "Which rows does a rank own? (warm-up)",
        rows_owned,
        cases=_rows_cases,
        rules=[
            Calls(
                forbid=("split",),
                why="work the row counts out with arithmetic, not torch.chunk",
            ),
            Holds(_int_pair),
        ],
        hints=[
            (
                "Shard(0) splits like torch.chunk: every chunk has ceil(n_rows / world_size) rows, "
                "except the last ones, which get what is left (possibly nothing)."
            ),
            (
                "Rank r starts at r * chunk, clipped to n_rows; it stops chunk rows later, clipped too. "
                "Check with torch.arange(n_rows).chunk(world_size)."
            ),
        ],
        wrong=[
            lambda n, w, r: (r * (n // w), (r + 1) * (n // w)),
            lambda n, w, r: (r * (n // w) + min(r, n % w), (r + 1) * (n // w) + min(r + 1, n % w)),
            lambda n, w, r: (r * -(-n // w), (r + 1) * -(-n // w)),
            lambda n, w, r: tuple(torch.tensor(v) for v in rows_owned(n, w, r)),  # 0-d tensors, not ints
        ],
    ),
    Exercise(
        "15.2",
        "Simulate all_reduce",
        all_reduce,
        cases=_reduce_cases,
        hints=[
            "After all_reduce(SUM) every rank holds the element-wise sum of all ranks' tensors.",
            "torch.stack(tensors).sum(dim=0) is the sum; give each rank its own .clone() of it.",
        ],
        wrong=[
            lambda ts: torch.stack(ts).sum(dim=0),
            lambda ts: [torch.stack(ts).mean(dim=0) for _ in ts],
            lambda ts: [torch.stack(ts).sum(dim=0)] * len(ts),
            lambda ts: [torch.stack(ts).sum(dim=0).clone() for _ in ts],  # int32 comes back int64
        ],
        rules=[Holds(_separate_buffers)],
    ),
    Exercise(
        "15.3",
        "Simulate all_gather",
        all_gather,
        cases=_gather_cases,
        hints=[
            "After all_gather every rank holds every rank's tensor, in rank order, joined along dim 0.",
            "torch.cat (not torch.stack) joins along an existing dimension; one copy per rank.",
        ],
        wrong=[
            lambda ts: [torch.stack(ts) for _ in ts],
            lambda ts: [torch.cat(ts[::-1]) for _ in ts],
            lambda ts: [t.clone() for t in ts],
        ],
        rules=[Holds(_separate_buffers)],
    ),
    Exercise(
        "15.4",
        "Simulate reduce_scatter",
        reduce_scatter,
        cases=_scatter_cases,
        hints=[
            "reduce_scatter = a sum over ranks, then rank r keeps only the r-th chunk of that sum.",
            "Sum with torch.stack(tensors).sum(dim=0), then .chunk(len(tensors)) along dim 0.",
        ],
        wrong=[
            lambda ts: [t.chunk(len(ts))[r].clone() for r, t in enumerate(ts)],
            lambda ts: [torch.stack(ts).sum(dim=0) for _ in ts],
            lambda ts: [c.clone() for c in torch.stack(ts).mean(dim=0).chunk(len(ts))],
            lambda ts: [c.clone() for c in torch.stack(ts).sum(dim=0).chunk(len(ts))],  # int32 comes back int64
        ],
        rules=[Holds(_separate_buffers)],
    ),
    Exercise(
        "15.5",
        "Assemble the full tensor from its shards",
        assemble,
        cases=_assemble_cases,
        hints=[
            "Shard(d) cut the tensor along dimension d (placement.dim); Replicate() gave every rank all of it.",
            "torch.cat(shards, dim=placement.dim) undoes a Shard; for Replicate one copy is the whole tensor.",
        ],
        wrong=[
            lambda shards, p: torch.cat(shards),
            lambda shards, p: shards[0] if isinstance(p, Replicate) else torch.cat(shards, dim=1 - p.dim),
            lambda shards, p: torch.cat(shards, dim=getattr(p, "dim", 0)),
        ],
    ),
    Exercise(
        "15.6",
        "Bytes each rank sends in a ring all-reduce",
        ring_all_reduce_bytes,
        cases=_ring_cases,
        hints=[
            (
                "A ring all-reduce is a reduce-scatter (p - 1 steps) then an all-gather (p - 1 steps); "
                "in each step a rank sends one chunk of 1/p of the tensor."
            ),
            "Total per rank: 2 (p - 1) / p times the tensor's size in bytes (numel * element_size).",
        ],
        wrong=[
            lambda n, b, p: (p - 1) / p * n * b,
            lambda n, b, p: 2.0 * n * b,
            lambda n, b, p: 2.0 * (p - 1) * n * b,
            lambda n, b, p: 2 * (p - 1) * n * b // p,  # floor division: not a float, 13 for 13.33
            lambda n, b, p: int(2 * (p - 1) / p * n * b),
        ],
        rules=[Holds(_a_float)],
    ),
    Exercise(
        "15.7",
        "A row-sharded matmul from local shards",
        row_sharded_matmul,
        cases=_row_matmul_cases,
        rtol=1e-4,
        atol=1e-5,
        rules=[_NoGather(needed=_row_product, advice="join the ranks' local products w_r @ x")],
        hints=[
            "With W split by rows, rank r can compute its rows of W @ x alone: w_shard @ x.",
            "Stack the ranks' row blocks back in rank order with torch.cat along dim 0.",
        ],
        wrong=[
            lambda ws, x: ws[0] @ x,
            lambda ws, x: torch.cat([w @ x for w in ws[::-1]]),
            lambda ws, x: torch.cat([w @ x for w in ws], dim=1),
            lambda ws, x: torch.cat(ws) @ x,  # builds W first
            _row_matmul_fill_w,
        ],
    ),
    Exercise(
        "15.8",
        "A column-sharded matmul: partial sums (stretch)",
        col_sharded_matmul,
        cases=_col_matmul_cases,
        rtol=1e-4,
        atol=1e-5,
        rules=[_NoGather(needed=_stacked_partials)],
        hints=[
            "Rank r holds W's columns and x's rows of block r: w_r @ x_r is a full-size *partial* result.",
            "The answer is the sum of the ranks' partial products (what an all-reduce would compute).",
        ],
        wrong=[
            lambda ws, xs: torch.cat([w @ x for w, x in zip(ws, xs)]),
            lambda ws, xs: ws[0] @ xs[0],
            lambda ws, xs: torch.stack([w @ x for w, x in zip(ws, xs)]).mean(dim=0),
        ],
    ),
]
