"""The course's rewrites written in plain NumPy: the side-by-side benchmark's control rows.

The course's rewrites (modules 12 and 13) change the algorithm and the layout (linear scores
instead of distances, points stored as columns, genes summed eight to an int64 word, one
select per constraint, the narrowest output, written into a buffer made once) and then let a
compiler fuse them into one loop. Written here with NumPy and nothing compiled, each is the
same algorithm on the same layout, run one whole-array operation at a time with its
temporaries: set beside NumPy's own code, it shows what the algorithm gains without a
compiler; set beside the compiled rewrites, what the compiler adds (fusion, no temporaries).

Each takes what its compiled counterpart takes and returns the same values and dtype:
:func:`assign_columns` as :func:`kmeans.assign_best` (int8 labels), :func:`sum_int32` as
:func:`ga.sum_torch` (the course's dtype fix), :func:`sum_words` as :func:`ga.sum_best`
(int32 sums), :func:`fitness2_columns` and :func:`fitness3_columns` as ``fitness*_best``.
"""

from __future__ import annotations

import numpy as np

from torchcourse.bench.workloads import ga

LANES = np.int64(0x00FF00FF00FF00FF)  # ga._LANES: the low byte of each 16-bit lane of an int64


def assign_columns(C: np.ndarray, W: np.ndarray, c: np.ndarray, out: np.ndarray) -> np.ndarray:
    """K-Means assignment on the points as columns ``C`` (d, n): the largest linear score
    ``c[j] + x . W[:, j]`` (``kmeans.linear_scores``) wins, ties to the lower index as in
    argmin; int8 labels written into ``out`` (n,), reused across calls."""

    def score(j: int) -> np.ndarray:
        s = C[0] * W[0, j]
        for i in range(1, C.shape[0]):
            s += C[i] * W[i, j]
        s += c[j]  # float addition commutes: the same rounding as c[j] + (x0 w0 + x1 w1)
        return s

    best = score(0)
    out[:] = 0
    for j in range(1, W.shape[1]):
        s = score(j)
        np.copyto(out, np.int8(j), where=s > best)
        np.maximum(s, best, out=best)
    return out


def sum_int32(population: np.ndarray) -> np.ndarray:
    """Each row's sum of int8 genes accumulated in int32 (NumPy's default is int64): the
    course's dtype fix, ``ga.sum_torch``, in NumPy. A fresh output each call, as NumPy's."""
    return population.sum(axis=1, dtype=np.int32)


def sum_words(population: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Each row's sum of non-negative int8 genes, read eight to an int64 word and summed in
    16-bit lanes (``ga._sum_words``; rows of a multiple of 8 genes, at most 2048, contiguous),
    written as int32 into ``out``, reused across calls."""
    w = population.view(np.int64)
    t = ((w & LANES) + ((w >> 8) & LANES)).sum(axis=1)
    out[:] = (t & 0xFFFF) + ((t >> 16) & 0xFFFF) + ((t >> 32) & 0xFFFF) + ((t >> 48) & 0xFFFF)
    return out


def _where_each(conditions: list[np.ndarray], cost: np.ndarray, out: np.ndarray) -> np.ndarray:
    # ga._where_each: one select per constraint, the cost of every point computed first
    for ok in conditions:
        cost = np.where(ok, cost, np.inf)
    out[:] = cost
    return out


def fitness2_columns(C: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Fitness 2 on the points as columns ``C`` (3, N), one select per constraint, written
    into ``out`` (N,), reused across calls: ``ga.fitness2_best`` in NumPy."""
    x, y, z = C[0], C[1], C[2]
    return _where_each(ga.constraints2(x, y, z), ga.f2(x, y, z), out)


def fitness3_columns(C: np.ndarray, out: np.ndarray) -> np.ndarray:
    """Fitness 3 as :func:`fitness2_columns`: ``ga.fitness3_best`` in NumPy."""
    x, y, z = C[0], C[1], C[2]
    return _where_each(ga.constraints3(x, y, z, np), ga.f3(x, y, z, np), out)
