"""Facts lesson 15 (distributed tensors) states about torch, each asserted on the installed torch.

The DTensor facts run in this one process on torch's own "fake" process group
(``torch.testing._internal.distributed.fake_pg``): it plays any rank of any world size and moves
no data, so placements, local shapes and the collectives ``CommDebugMode`` counts are torch's real
ones, while the values are not (nothing here reads them).
"""

from __future__ import annotations

import datetime
import inspect
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import torch
import torch.distributed as dist

from tests.facts import fact


@contextmanager
def fake_mesh(rank: int, world: int) -> Iterator[object]:
    """A 1-D CPU device mesh of ``world`` ranks, seen from ``rank``, on the fake process group."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.testing._internal.distributed.fake_pg import FakeStore

    dist.init_process_group("fake", store=FakeStore(), rank=rank, world_size=world)
    try:
        yield init_device_mesh("cpu", (world,))
    finally:
        dist.destroy_process_group()


def comms(mode) -> dict[str, int]:
    """Which collectives a ``CommDebugMode`` saw, as the lesson's scripts print them."""
    return {str(op).split(".")[-1]: n for op, n in mode.get_comm_counts().items()}


@fact(
    "15",
    "distribute-tensor-scatters-from-rank-0",
    "`distribute_tensor(t, mesh, [Shard(0)])` cuts `t` up: it takes rank 0's copy of `t` and scatters the pieces "
    "(for `[Replicate()]` it broadcasts rank 0's copy)",
)
def _():
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor
    from torch.distributed.tensor.debug import CommDebugMode

    assert inspect.signature(distribute_tensor).parameters["src_data_rank"].default == 0
    with fake_mesh(rank=1, world=2) as mesh:
        with CommDebugMode() as mode:
            distribute_tensor(torch.ones(4, 3), mesh, [Shard(0)])
        assert comms(mode) == {"scatter_": 1}
        with CommDebugMode() as mode:
            distribute_tensor(torch.ones(4, 3), mesh, [Replicate()])
        assert comms(mode) == {"broadcast_": 1}


@fact(
    "15",
    "shard-splits-like-chunk",
    "`Shard(d)` splits like `torch.chunk` (uneven, possibly empty pieces)",
)
def _():
    from torch.distributed.tensor import Shard, distribute_tensor

    w = torch.zeros(9, 5)
    row_chunks = [len(c) for c in w.chunk(4)] + [0]  # 9 rows in chunks of 3: only 3 chunks
    col_chunks = [c.shape[1] for c in w.chunk(4, dim=1)] + [0]  # 5 columns in chunks of 2: 3 chunks
    for rank in range(4):
        with fake_mesh(rank=rank, world=4) as mesh:
            assert distribute_tensor(w, mesh, [Shard(0)]).to_local().shape == (row_chunks[rank], 5)
            assert distribute_tensor(w, mesh, [Shard(1)]).to_local().shape == (9, col_chunks[rank])
    assert row_chunks == [3, 3, 3, 0] and col_chunks == [2, 2, 1, 0]


@fact(
    "15",
    "row-sharded-matmul-runs-no-collective",
    "`W_rows @ x_rep` ran *no* collective: each rank owns whole rows of `W` and all of `x`, so it computes its "
    "rows of the product alone. The result stays sharded by rows; only `full_tensor()` communicates (an all-gather).",
    rival="a DTensor matmul never communicates, whatever the placements, until the value is asked for: with `x` "
    "sharded by rows too, so that no rank holds all of `x`, the same product runs an all-gather at once",
)
def _():
    from torch.distributed.tensor import Replicate, Shard, distribute_tensor
    from torch.distributed.tensor.debug import CommDebugMode

    with fake_mesh(rank=0, world=2) as mesh:
        w_rows = distribute_tensor(torch.ones(9, 5), mesh, [Shard(0)])
        x_rep = distribute_tensor(torch.ones(5, 3), mesh, [Replicate()])
        with CommDebugMode() as mode:
            y = w_rows @ x_rep
        assert comms(mode) == {} and y.placements == (Shard(0),)
        with CommDebugMode() as mode:
            y.full_tensor()
        assert comms(mode) == {"all_gather_into_tensor": 1}
        x_rows = distribute_tensor(torch.ones(5, 3), mesh, [Shard(0)])
        with CommDebugMode() as mode:
            w_rows @ x_rows
        assert comms(mode) == {"all_gather_into_tensor": 1}  # not all of x on each rank: gathered first


@fact(
    "15",
    "column-sharded-matmul-is-partial",
    "which gives a *full-size* 9×3 matrix that is only part of the sum: placement `Partial(sum)`. Turning it into "
    "the value costs an all-reduce.",
)
def _():
    from torch.distributed.tensor import Partial, Shard, distribute_tensor
    from torch.distributed.tensor.debug import CommDebugMode

    with fake_mesh(rank=0, world=2) as mesh:
        w_cols = distribute_tensor(torch.ones(9, 5), mesh, [Shard(1)])
        x_rows = distribute_tensor(torch.ones(5, 3), mesh, [Shard(0)])
        with CommDebugMode() as mode:
            y = w_cols @ x_rows
        assert comms(mode) == {} and y.placements == (Partial("sum"),) and y.to_local().shape == (9, 3)
        with CommDebugMode() as mode:
            y.full_tensor()
        assert comms(mode) == {"all_reduce": 1}


@fact(
    "15",
    "reductions-communicate-nothing-yet",
    "`sum()` over everything is `Partial` too (each rank summed its rows), while `sum(dim=1)` sums within rows and "
    "stays `Shard(0)`; neither communicated yet.",
)
def _():
    from torch.distributed.tensor import Partial, Shard, distribute_tensor
    from torch.distributed.tensor.debug import CommDebugMode

    with fake_mesh(rank=0, world=2) as mesh:
        w_rows = distribute_tensor(torch.ones(9, 5), mesh, [Shard(0)])
        with CommDebugMode() as mode:
            total, row_sums = w_rows.sum(), w_rows.sum(dim=1)
        assert comms(mode) == {}
        assert total.placements == (Partial("sum"),) and row_sums.placements == (Shard(0),)


@fact(
    "15",
    "from-local-sends-nothing-and-assumes-equal-blocks",
    "Nothing is sent; the global shape is inferred by assuming every rank holds a block of the same size "
    "(pass `shape=` and `stride=` when the blocks differ).",
)
def _():
    from torch.distributed.tensor import DTensor, Shard
    from torch.distributed.tensor.debug import CommDebugMode

    with fake_mesh(rank=0, world=4) as mesh:
        with CommDebugMode() as mode:
            rows = DTensor.from_local(torch.ones(2, 3), mesh, [Shard(0)])
        assert comms(mode) == {} and rows.shape == (8, 3)
        uneven = DTensor.from_local(torch.ones(3, 3), mesh, [Shard(0)], shape=torch.Size([9, 3]), stride=(3, 1))
        assert uneven.shape == (9, 3)


@fact(
    "15",
    "redistribute-costs-one-collective",
    "`redistribute` changes placements and costs one collective: Shard → Replicate an all-gather, "
    "Partial → Replicate an all-reduce, Partial → Shard a reduce-scatter, Replicate → Shard nothing.",
)
def _():
    from torch.distributed.tensor import DTensor, Partial, Replicate, Shard
    from torch.distributed.tensor.debug import CommDebugMode

    with fake_mesh(rank=0, world=2) as mesh:
        rows = DTensor.from_local(torch.ones(2, 3), mesh, [Shard(0)])
        pending = DTensor.from_local(torch.ones(4), mesh, [Partial()])
        moves = [
            (rows, [Replicate()], {"all_gather_into_tensor": 1}),
            (pending, [Replicate()], {"all_reduce": 1}),
            (pending, [Shard(0)], {"reduce_scatter_tensor": 1}),
            (rows.redistribute(mesh, [Replicate()]), [Shard(0)], {}),
        ]
        for source, placements, expected in moves:
            with CommDebugMode() as mode:
                source.redistribute(mesh, placements)
            assert comms(mode) == expected, (source.placements, placements, comms(mode))


@fact(
    "15",
    "collective-waits-until-timeout",
    "a collective that only some ranks enter waits for the others until the group's time-out, 30 minutes by "
    "default, and only then fails",
)
def _():
    from torch.distributed.constants import default_pg_timeout

    assert default_pg_timeout == datetime.timedelta(minutes=30)


@fact(
    "15",
    "no-group-raises",
    "In the notebook's own process there is no process group, and PyTorch says so",
)
def _():
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.all_reduce(torch.ones(2))


@fact(
    "15",
    "torchrun-sets-one-thread",
    "torchrun itself sets 1 and prints a warning when you do not choose",
)
def _():
    from torch.distributed import run

    source = inspect.getsource(run.config_from_args)
    assert 'if "OMP_NUM_THREADS" not in os.environ and nproc_per_node > 1:' in source
    assert "omp_num_threads = 1" in source and "logger.warning(" in source


@fact(
    "15",
    "default-backend-per-device",
    "or no argument: gloo for CPU tensors, nccl for CUDA ones",
)
def _():
    assert dist.Backend.default_device_backend_map["cpu"] == "gloo"
    assert dist.Backend.default_device_backend_map["cuda"] == "nccl"


@fact(
    "15",
    "chunk-may-return-fewer-pieces",
    "chunk(4) asks for at most 4 pieces of ceil(9 / 4) = 3 elements; three pieces use them all",
    rival="chunk splits into 4 near-equal pieces, as `tensor_split` and NumPy's `array_split` do, and drops "
    "the empty ones: that gives 4 pieces (3, 2, 2, 2) for 9 and 4 pieces for 6, where chunk gives 3 of 3 and 3 of 2",
)
def _():
    assert [len(c) for c in torch.zeros(9).chunk(4)] == [3, 3, 3]
    assert [len(c) for c in torch.zeros(5).chunk(4)] == [2, 2, 1]  # 5 in pieces of 2: three pieces
    assert len(torch.zeros(0).chunk(4)) == 4  # an empty tensor: four empty pieces
    assert [len(c) for c in torch.zeros(9).tensor_split(4)] == [3, 2, 2, 2]  # tensor_split gives exactly 4
    assert [len(c) for c in torch.zeros(6).chunk(4)] == [2, 2, 2]  # ceil(6 / 4) = 2: three pieces, none empty


@fact(
    "15",
    "from-local-checks-nothing-by-default",
    "It checks nothing by default: with `[Replicate()]` it trusts that every rank holds the same values",
)
def _():
    import inspect

    from torch.distributed.tensor import DTensor

    assert inspect.signature(DTensor.from_local).parameters["run_check"].default is False
    doc = " ".join(DTensor.from_local.__doc__.split())
    assert "the data on first rank of the device mesh dimension will be broadcasted to other ranks" in doc
    assert "When ``run_check=False``, it is the user's responsibility" in doc
