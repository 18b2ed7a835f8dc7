"""The benchmark's rows: the course's headline workloads, each variant beside its baseline.

Every row calls a function from :mod:`torchcourse.bench.workloads`, the same code the lessons
(modules 05, 06, 09, 12, 13) time, and names the published figure it stands beside
(docs/reference-figures.md). Groups build their inputs lazily, one group at a time, so the
full-size run (20M K-Means points, 900,000 chromosomes) never holds two groups in memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np
import torch

from torchcourse.bench.workloads import ga, kmeans, matmul, montecarlo, sums
from torchcourse.timing import format_seconds, time_once


@dataclass
class Row:
    """One variant of one workload.

    ``run`` is timed; its result is compared with the baseline row's result (``same`` says
    how). ``scale`` multiplies a measured time when the variant ran on a ``1/scale``
    subsample (pure-Python rows), and says so in ``size``.
    """

    group: str
    name: str
    run: Callable[[], Any]
    size: str
    baseline: str | None = None  # name of the row in the same group to compare with
    bytes_read: int | None = None  # least bytes one call must read (for GB/s)
    bytes_written: int = 0  # least bytes one call must write
    flops: int | None = None  # floating-point operations of one call (for GFLOP/s)
    compiled: bool = False
    eager: str | None = None  # the eager row a compiled row must beat
    published: str = ""
    note: str = ""
    repeat: int = 5
    scale: float = 1.0
    same: Callable[[Any, Any], bool] | None = None

    @property
    def nbytes(self) -> int | None:
        """Bytes read plus bytes written: the traffic that GB/s counts."""
        return None if self.bytes_read is None else self.bytes_read + self.bytes_written


def _traffic(read_written: tuple[int, int]) -> dict[str, int]:
    read, written = read_written
    return {"bytes_read": read, "bytes_written": written}


def _as_numpy(x: Any) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def prefix(same: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    """Compare a subsample's result with the first rows of the full result."""
    return lambda a, b: same(a, _as_numpy(b)[: len(_as_numpy(a))])


def equal(a: Any, b: Any) -> bool:
    """Exactly the same values (integer results: indices, counts)."""
    a, b = _as_numpy(a), _as_numpy(b)
    return a.shape == b.shape and bool(np.array_equal(a.astype(np.int64), b.astype(np.int64)))


def agree(a: Any, b: Any, share: float = 1e-6) -> bool:
    """The same indices except on at most ``share`` of the points: points within rounding of
    the boundary between two means may go either way when the arithmetic differs."""
    a, b = _as_numpy(a).astype(np.int64), _as_numpy(b).astype(np.int64)
    return a.shape == b.shape and float(np.mean(a != b)) <= share


def close(a: Any, b: Any) -> bool:
    """The same values up to float rounding (inf where the other has inf)."""
    a, b = _as_numpy(a).astype(np.float64), _as_numpy(b).astype(np.float64)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-4, atol=1e-6, equal_nan=True))


def sum_rows(quick: bool, device: torch.device) -> Iterator[Row]:
    n = 10_000 if quick else 1_000_000
    t = sums.make_input(n, device=device)
    pub = "loop 1.37 s vs sum() 191.26 µs, 7,163x (laptop CPU, 1e6 float64)"
    yield Row(
        "sum",
        f"Python loop ({device.type})",
        lambda: sums.loop_sum(t),
        f"{n:,} float64",
        repeat=3,
        published=pub,
        note="one dispatch per element: overhead, not memory",
    )
    yield Row(
        "sum",
        f"t.sum() ({device.type})",
        lambda: sums.vectorised_sum(t),
        f"{n:,} float64",
        baseline=f"Python loop ({device.type})",
        bytes_read=sums.bytes_moved(t),
        bytes_written=t.element_size(),
        same=close,
        published=pub,
    )


def matmul_rows(quick: bool, device: torch.device) -> Iterator[Row]:
    for n in (256,) if quick else (500, 2000):
        a, b = matmul.make_pair(n, device=device)
        published = {500: "CPU 2.29 ms, GPU 108 µs (laptop)", 2000: ""}.get(n, "")
        yield Row(
            "matmul",
            f"{n}x{n} float32 ({device.type})",
            lambda a=a, b=b: a @ b,
            f"{n}x{n}",
            flops=matmul.matmul_flops(n),
            published=published,
            note="compute-bound: compare with the matmul limit",
        )


def pi_rows(quick: bool, device: torch.device) -> Iterator[Row]:
    n = 100_000 if quick else 10_000_000
    x, y = montecarlo.samples(n, device=device)
    small = 10_000 if quick else 200_000
    yield Row(
        "monte carlo pi",
        "pure Python",
        lambda: montecarlo.pi_python(small),
        f"{small:,} samples x{n // small}",
        scale=n / small,
        repeat=3,
        same=lambda a, b: abs(float(a) - float(b)) < 0.05,
        note="one interpreted iteration per sample; timed on a subsample, scaled",
    )
    yield Row(
        "monte carlo pi",
        f"vectorised eager ({device.type})",
        lambda: montecarlo.pi_from_samples(x, y),
        f"{n:,} samples",
        baseline="pure Python",
        **_traffic(montecarlo.traffic(n, fused=False)),
        flops=montecarlo.flops(n),
        same=lambda a, b: abs(float(a) - float(b)) < 0.05,
        note="each step writes its result to memory: ~42 B a sample",
    )
    compiled = montecarlo.compiled_pi()
    yield Row(
        "monte carlo pi",
        f"compiled ({device.type})",
        lambda: compiled(x, y),
        f"{n:,} samples",
        baseline=f"vectorised eager ({device.type})",
        **_traffic(montecarlo.traffic(n, fused=True)),
        flops=montecarlo.flops(n),
        compiled=True,
        eager=f"vectorised eager ({device.type})",
        same=close,
        published="compile fuses the steps into one kernel (module 09)",
        note="fused: reads x and y once, 8 B a sample",
    )


def kmeans_rows(quick: bool, device: torch.device) -> Iterator[Row]:
    n = 200_000 if quick else kmeans.PUBLISHED_POINTS
    X64, means64 = kmeans.make_blobs(n)
    X32, means32 = X64.astype(np.float32), means64.astype(np.float32)
    size = f"{n:,} points"
    pub = "NumPy 1.26 s (AMD 3970X); compiled 9x on 1 core, 57x on 32 cores"
    yield Row(
        "k-means",
        "NumPy float64",
        lambda: kmeans.assign_numpy(X64, means64),
        size,
        repeat=3,
        **_traffic(kmeans.traffic(n, np.float64, np.int64)),
        published=pub,
        note="temporaries (k, n, d) and (k, n) go through memory",
    )
    yield Row(
        "k-means",
        "NumPy float32",
        lambda: kmeans.assign_numpy(X32, means32),
        size,
        repeat=3,
        baseline="NumPy float64",
        same=agree,
        **_traffic(kmeans.traffic(n, np.float32, np.int64)),
        published="NumPy ~9% faster in float32 (blog)",
    )

    def compiled_against(dtype: str) -> dict[str, Any]:
        """What every compiled K-Means row shares: compared with, and must beat, NumPy in ``dtype``."""
        return {"baseline": f"NumPy {dtype}", "same": agree, "compiled": True, "eager": f"NumPy {dtype}"}

    c_np = kmeans.compiled_numpy()
    yield Row(
        "k-means",
        "compiled NumPy float64",
        lambda: c_np(X64, means64),
        size,
        **_traffic(kmeans.traffic(n, np.float64, np.int64)),
        published=pub,
        note="one fused loop; a fresh int64 output is allocated and first-touched every call",
        **compiled_against("float64"),
    )
    yield Row(
        "k-means",
        "compiled NumPy float32",
        lambda: c_np(X32, means32),
        size,
        **_traffic(kmeans.traffic(n, np.float32, np.int64)),
        **compiled_against("float32"),
    )
    T32, M32 = torch.from_numpy(X32).to(device), torch.from_numpy(means32).to(device)
    c_t = kmeans.compiled_tensors()
    yield Row(
        "k-means",
        f"compiled, tensors in/out float32 ({device.type})",
        lambda: c_t(T32, M32),
        size,
        **_traffic(kmeans.traffic(n, torch.float32, torch.int64)),
        published="GPU, tensors kept on the device: 200x over NumPy float32 (RTX 2060)",
        **compiled_against("float32"),
    )
    # the two versions of the course's rewrite differ only in the layout of the points
    out = torch.empty(n, dtype=torch.int8, device=device)
    int8_out = _traffic(kmeans.traffic(n, torch.float32, torch.int8))
    yield Row(
        "k-means",
        f"course's rewrite, rows ({device.type})",
        lambda: kmeans.assign_rows(T32, M32, out),
        size,
        **int8_out,
        note="linear scores, no sqrt, int8 into a reused buffer, pairs loaded as int64: 9 B a point; "
        "the layout decides how the loads vectorise: which of rows or columns is faster depends on the CPU",
        **compiled_against("float32"),
    )
    C32, seconds = time_once(lambda: kmeans.to_columns(T32), device)
    yield Row(
        "k-means",
        f"course's best, columns ({device.type})",
        lambda: kmeans.assign_best(C32, M32, out),
        size,
        **int8_out,
        note=f"the rewrite on points stored as columns: two contiguous float32 streams, 9 B a point; "
        f"the one-off to_columns copy took {format_seconds(seconds)}, paid once per fit, not per step",
        **compiled_against("float32"),
    )


def ga_rows(quick: bool, device: torch.device) -> Iterator[Row]:
    n = 9_000 if quick else ga.PUBLISHED_POPULATION
    sub = max(n // 100, 1000)
    pop = ga.gene_population(n).to(device)
    pop_np = pop.cpu().numpy()
    pop_list = pop_np[:sub].tolist()
    size = f"{n:,} x {ga.GENES} int8"
    yield Row(
        "ga fitness 1 (sum)",
        "NumPy sum(axis=1)",
        lambda: ga.sum_numpy(pop_np),
        size,
        bytes_read=pop_np.nbytes,
        bytes_written=8 * n,
        published="0.51 s (laptop CPU)",
    )
    yield Row(
        "ga fitness 1 (sum)",
        "pure Python",
        lambda: ga.sum_python(pop_list),
        f"{sub:,} rows x{n / sub:.0f}",
        scale=n / sub,
        repeat=2,
        published="6.91 s",
        note="timed on a subsample, scaled",
        baseline="NumPy sum(axis=1)",
        same=prefix(equal),
    )
    yield Row(
        "ga fitness 1 (sum)",
        f"torch eager int8 sum ({device.type})",
        lambda: ga.sum_torch_naive(pop),
        size,
        baseline="NumPy sum(axis=1)",
        same=equal,
        bytes_read=pop_np.nbytes,
        bytes_written=8 * n,
        repeat=3,
        published="2.52 s",
        note="casts the whole input to int64 first: 8x the input in memory",
    )
    yield Row(
        "ga fitness 1 (sum)",
        f"torch eager, dtype=int32 ({device.type})",
        lambda: ga.sum_torch(pop),
        size,
        baseline="NumPy sum(axis=1)",
        same=equal,
        bytes_read=pop_np.nbytes,
        bytes_written=8 * n,
        repeat=3,
    )
    yield Row(
        "ga fitness 1 (sum)",
        f"torch compiled ({device.type})",
        lambda: ga.sum_torch_compiled(pop),
        size,
        baseline="NumPy sum(axis=1)",
        same=equal,
        bytes_read=pop_np.nbytes,
        bytes_written=8 * n,
        compiled=True,
        eager=f"torch eager, dtype=int32 ({device.type})",
        published="0.067 s (laptop CPU), 0.055 s CUDA",
    )
    for k, (py, np_fn, np_c, t_c, box, pub) in {
        2: (
            ga.fitness2_python,
            ga.fitness2_numpy,
            ga.fitness2_numpy_compiled,
            ga.fitness2_torch_compiled,
            ga.BOX2,
            "Python 270 ms, NumPy 48 ms, compiled 6.2 ms, CUDA 3.7 ms",
        ),
        3: (
            ga.fitness3_python,
            ga.fitness3_numpy,
            ga.fitness3_numpy_compiled,
            ga.fitness3_torch_compiled,
            ga.BOX3,
            "Python 240 ms, NumPy 82 ms, compiled 36.8 ms, CUDA 22.6 ms",
        ),
    }.items():
        group = f"ga fitness {k}"
        pts = ga.random_points(n, box).to(device)
        pts_np = pts.cpu().numpy()
        pts_list = [tuple(p) for p in pts_np[:sub].tolist()]
        yield Row(
            group,
            "NumPy",
            lambda f=np_fn, p=pts_np: f(p),
            f"{n:,} points",
            bytes_read=24 * n,
            bytes_written=8 * n,
            published=pub,
        )
        yield Row(
            group,
            "pure Python",
            lambda f=py, p=pts_list: f(p),
            f"{sub:,} points x{n / sub:.0f}",
            scale=n / sub,
            repeat=2,
            baseline="NumPy",
            same=prefix(close),
            note="subsample, scaled",
        )
        yield Row(
            group,
            "compiled NumPy",
            lambda f=np_c, p=pts_np: f(p),
            f"{n:,} points",
            baseline="NumPy",
            same=close,
            compiled=True,
            eager="NumPy",
            bytes_read=24 * n,
            bytes_written=8 * n,
        )
        yield Row(
            group,
            f"compiled torch ({device.type})",
            lambda f=t_c, p=pts: f(p),
            f"{n:,} points",
            baseline="NumPy",
            same=close,
            compiled=True,
            eager="NumPy",
            bytes_read=24 * n,
            bytes_written=8 * n,
        )


GROUPS: list[Callable[[bool, torch.device], Iterator[Row]]] = [sum_rows, matmul_rows, pi_rows, kmeans_rows, ga_rows]
