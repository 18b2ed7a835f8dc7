"""The K-Means assignment step in every variant the course measures (module 12 and the benchmark).

The step gives each 2-D point the index of its nearest mean:
``argmin(norm(X - means[:, None], axis=2), axis=0)``. The published figures (Quansight /
PyTorch blog, docs/reference-figures.md section A) use 20M points in two Gaussian blobs around
(5, 5) and (10, 10), and the two centres as means.

Bytes moved. The step must read every point once and write one index per point, so the
least memory traffic is ``n * (d * itemsize(X) + itemsize(out))``: 24 B a point for float64 in,
int64 out (NumPy's result), 9 B for float32 in, int8 out. :func:`min_bytes` computes it; divide
by a time to get the achieved GB/s, and set that beside :func:`torchcourse.timing.copy_bandwidth`.
NumPy moves far more than that minimum: ``X - means[:, None]`` materialises a ``(k, n, d)``
array, ``norm`` squares it into another one and writes a ``(k, n)`` array of distances, and
``argmin`` reads it back.

Variants (one implementation each; the lesson and the benchmark import them):

* :func:`assign_numpy` - the NumPy code, unchanged (float64 or float32, whatever it is given);
* :func:`compiled_numpy` - ``torch.compile`` of that same NumPy function: NumPy arrays in and
  out, traced into one fused loop (no temporaries), still int64 out and freshly allocated;
* :func:`compiled_tensors` - a wrapper taking and returning tensors (``.numpy()`` inside the
  compiled region), so on a GPU the data never leaves the device;
* :func:`assign_rows` - the course's roofline-aware rewrite on the points as given, ``(n, d)``
  rows: float32 in, int8 out written into a reusable buffer, no square root, distances
  replaced by linear scores (below), and the interleaved coordinates read with SIMD loads
  (:func:`_coordinates`);
* :func:`assign_best` - the same rewrite on the points stored as columns, ``(d, n)``
  (:func:`to_columns`, once, outside the step): one contiguous stream per coordinate.

Why the layout matters. In rows, ``x0`` and ``x1`` alternate in memory. :func:`_coordinates`
loads each pair as one int64 and splits it with bit casts, but the CPU code inductor generates
(torch 2.13) does the int32 -> float32 bit cast one lane at a time through a small stack
buffer (inductor has no vector form for that step; module 12 prints the generated lines).
Stored as columns, the loop loads two plain float32 vectors. Both layouts read the same bytes
(8 B a point) and write the same (1 B); whether the rows version's extra per-lane work costs
time depends on the CPU: on one Intel Xeon the columns ran 3.3x faster, on a 2-core AMD EPYC
the two were within a few per cent. Module 12 measures it on the learner's own machine.
K-Means repeats the step on the same points every iteration, so the one-off transpose is paid
once.

Why linear scores. ``|x - m_j|^2 = |x|^2 - 2 x.m_j + |m_j|^2``; ``|x|^2`` is the same for every
mean, so the nearest mean maximises ``s_j(x) = x.m_j - |m_j|^2 / 2``: two multiply-adds per
mean and no square root. The means are tiny, so ``W = means.T`` and ``c = -|m|^2/2`` are
computed once per call outside the kernel.
"""

from __future__ import annotations

import functools
import sys

import numpy as np
import torch

BLOB_CENTRES = ((5.0, 5.0), (10.0, 10.0))
PUBLISHED_POINTS = 20_000_000


def make_blobs(n: int = PUBLISHED_POINTS, dtype=np.float64, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(X, means)``: ``n`` points, half around each centre of :data:`BLOB_CENTRES` (unit normal
    noise), and the centres themselves as the means, both as NumPy arrays of ``dtype``."""
    rng = np.random.default_rng(seed)
    half = n // 2
    parts = [rng.normal(c, 1.0, size=(m, 2)) for c, m in zip(BLOB_CENTRES, (half, n - half))]
    return np.concatenate(parts).astype(dtype, copy=False), np.array(BLOB_CENTRES, dtype=dtype)


def min_bytes(n: int, x_dtype, out_dtype, d: int = 2) -> int:
    """Least bytes any implementation must move: read ``n`` points of ``d`` coordinates, write
    ``n`` indices. Accepts NumPy or torch dtypes."""
    return n * (d * _itemsize(x_dtype) + _itemsize(out_dtype))


def traffic(n: int, x_dtype, out_dtype, d: int = 2) -> tuple[int, int]:
    """:func:`min_bytes` split: (bytes read: the points, bytes written: the indices)."""
    return n * d * _itemsize(x_dtype), n * _itemsize(out_dtype)


def _itemsize(dtype) -> int:
    if isinstance(dtype, torch.dtype):
        return dtype.itemsize
    return np.dtype(dtype).itemsize


# --- 1. NumPy, unchanged --------------------------------------------------------------------


def assign_numpy(X: np.ndarray, means: np.ndarray) -> np.ndarray:
    """The NumPy code as published. Returns int64 indices, shape ``(n,)``.
    Moves about ``n * k * (3 d + 2) * itemsize`` bytes through temporaries, plus the minimum."""
    return np.argmin(np.linalg.norm(X - means[:, None], axis=2), axis=0)


# --- 2. torch.compile of the NumPy function --------------------------------------------------


@functools.cache
def compiled_numpy():
    """``torch.compile(assign_numpy)``: NumPy arrays in and out; one fused loop, no temporaries.
    Moves ``min_bytes(n, X.dtype, int64)`` plus first-touch of a fresh int64 output each call.
    Compiled on first use (cached), so importing this module compiles nothing."""
    return torch.compile(assign_numpy)


# --- 3. tensors in, tensors out --------------------------------------------------------------


def assign_tensors(X: torch.Tensor, means: torch.Tensor) -> torch.Tensor:
    """Tensors in and out around the NumPy code. Compiled (:func:`compiled_tensors`), the
    ``.numpy()`` calls are traced, not executed: on a GPU the arrays stay on the device.
    Run eagerly it needs CPU tensors (``.numpy()`` copies nothing there)."""
    return torch.from_numpy(assign_numpy(X.numpy(), means.numpy()))


@functools.cache
def compiled_tensors():
    """``torch.compile(assign_tensors)``, created on first use."""
    return torch.compile(assign_tensors)


# --- 4. the course's roofline-aware version --------------------------------------------------


def linear_scores(means: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(W, c)`` with the nearest mean of ``x`` = ``argmax(x @ W + c)``: ``W = means.T`` (d, k),
    ``c = -|m_j|^2 / 2`` (k,)."""
    return means.T.contiguous(), -0.5 * (means * means).sum(dim=1)


def _coordinates(X: torch.Tensor) -> list[torch.Tensor]:
    """The columns of ``X`` as 1-D tensors, read so the compiled loop can use SIMD loads.

    ``X[:, 0]`` and ``X[:, 1]`` of an ``(n, 2)`` array are stride-2 views: the generated loop
    gathers them one element at a time. For contiguous float32 pairs on a little-endian
    machine (every CPU and GPU PyTorch supports), each point is one 64-bit word: load it as
    int64 (contiguous, vectorised) and split the word into its two float32 halves by bit
    casts, which cost nothing. Other layouts fall back to the plain columns.
    """
    if (
        X.dtype == torch.float32
        and X.dim() == 2
        and X.shape[1] == 2
        and X.is_contiguous()
        and sys.byteorder == "little"
    ):
        word = X.view(torch.int64)[:, 0]
        low = (word & 0xFFFFFFFF).to(torch.int32).view(torch.float32)  # x0: the low half
        high = (word >> 32).to(torch.int32).view(torch.float32)  # x1: the high half
        return [low, high]
    return [X[:, i] for i in range(X.shape[1])]


def _argmax_scores(coords: list[torch.Tensor], W: torch.Tensor, c: torch.Tensor, out: torch.Tensor) -> None:
    # Unrolled over the k means (k is part of the compiled shape); one pass over the points,
    # nothing materialised: the score of each mean lives in registers.
    best = c[0] + sum(x * W[i, 0] for i, x in enumerate(coords))
    idx = torch.zeros_like(best)
    for j in range(1, W.shape[1]):
        s = c[j] + sum(x * W[i, j] for i, x in enumerate(coords))
        idx = torch.where(s > best, float(j), idx)
        best = torch.maximum(s, best)
    out.copy_(idx)


def _rows_kernel(X: torch.Tensor, W: torch.Tensor, c: torch.Tensor, out: torch.Tensor) -> None:
    _argmax_scores(_coordinates(X), W, c, out)


def _columns_kernel(C: torch.Tensor, W: torch.Tensor, c: torch.Tensor, out: torch.Tensor) -> None:
    _argmax_scores([C[i] for i in range(C.shape[0])], W, c, out)


@functools.cache
def _compiled(kernel):
    return torch.compile(kernel)


def _assign(kernel, X: torch.Tensor, n: int, means: torch.Tensor, out: torch.Tensor | None) -> torch.Tensor:
    if means.shape[0] > 127:
        raise ValueError("the course's rewrite writes int8 indices: at most 127 means")
    if out is None:
        out = torch.empty(n, dtype=torch.int8, device=X.device)
    W, c = linear_scores(means.to(X.dtype))
    _compiled(kernel)(X, W, c, out)
    return out


def to_columns(X: torch.Tensor) -> torch.Tensor:
    """The points of ``X`` (n, d) stored as columns: a contiguous ``(d, n)`` tensor whose row
    ``i`` holds coordinate ``i`` of every point. A copy (one pass over ``X``); make it once and
    reuse it for every step."""
    return X.T.contiguous()


def assign_rows(X: torch.Tensor, means: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    """Nearest-mean index of each row of ``X`` (n, d) as int8 (k <= 127), written into ``out``.

    Moves ``min_bytes(n, X.dtype, int8)``: 9 B a point in float32, against 24 B for NumPy's
    float64-in, int64-out result. Pass the same ``out`` (int8, shape ``(n,)``) on every call:
    a fresh output costs an allocation, and above glibc's mmap threshold (at most 32 MiB) a page
    fault per 4 KiB page on first touch, every call (modules 09 and 12 measure it). Ties go to
    the lower index, as in argmin.
    """
    if X.dim() != 2 or X.shape[1] != means.shape[1]:
        raise ValueError(f"assign_rows takes the points as rows, (n, {means.shape[1]}); got shape {tuple(X.shape)}")
    return _assign(_rows_kernel, X, X.shape[0], means, out)


def assign_best(C: torch.Tensor, means: torch.Tensor, out: torch.Tensor | None = None) -> torch.Tensor:
    """:func:`assign_rows` for points stored as columns: ``C`` is ``(d, n)``, made once with
    :func:`to_columns`. Same bytes, same int8 result; the loop reads each coordinate as a
    contiguous stream, so nothing is gathered or bit-cast."""
    if C.dim() != 2 or C.shape[0] != means.shape[1]:
        raise ValueError(
            f"assign_best takes the points as columns, (d, n) with d = {means.shape[1]} coordinates; "
            f"got shape {tuple(C.shape)}: pass to_columns(X)"
        )
    return _assign(_columns_kernel, C, C.shape[1], means, out)
