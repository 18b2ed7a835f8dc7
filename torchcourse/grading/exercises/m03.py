"""Module 03 "Strides": the position formula, layouts, zero-copy views and windows."""

from __future__ import annotations

import math

import numpy as np
import torch

from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises._inputs import randint, randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises._types import container
from torchcourse.grading.rules import Calls, Holds, IsView

element_at = solution("03", "element_at")


contiguous_strides = solution("03", "contiguous_strides")


swap_last_two = solution("03", "swap_last_two")


tile_rows = solution("03", "tile_rows")


flatten_rows = solution("03", "flatten_rows")


sliding_windows = solution("03", "sliding_windows")


blocks = solution("03", "blocks")


def _view_when_possible(args: tuple, got) -> str | None:
    """reshape's contract: no copy when the input's layout allows a view."""
    t = args[0]
    if t.is_contiguous() and got.untyped_storage().data_ptr() != t.untyped_storage().data_ptr():
        return "the input is contiguous, so flattening it needs no copy; return a view in that case"
    return None


def _stride_zero(args: tuple, got) -> str | None:
    if got.shape[0] > 1 and got.stride(0) != 0:
        return f"the rows are copies (row stride {got.stride(0)}); repeat one row with stride 0 instead"
    return None


def _element_cases():
    s = randn(30, seed=31)
    return [
        (s, 0, (4, 1), (2, 3)),  # a contiguous 3x4 matrix
        (s, 0, (1, 4), (3, 1)),  # its transpose
        (s, 5, (6, 2, 1), (1, 1, 1)),  # a 3-D view starting at offset 5
        (randint(0, 99, 40, seed=32), 3, (7,), (4,)),
        (s, 2, (0, 3), (5, 2)),
    ]  # an expanded row: stride 0


def _flatten_cases():
    return [
        (randn(3, 4, seed=33),),
        (randn(3, 4, seed=34).t(),),
        (randn(2, 3, 4, seed=35, dtype=torch.float64),),
        (randn(2, 3, 4, seed=36).permute(2, 0, 1),),
    ]


EXERCISES = [
    Exercise(
        "03.1",
        "Find an element by hand (warm-up)",
        element_at,
        cases=_element_cases,
        rules=[Calls(forbid=("strided view",), why="index the storage directly, without building the view")],
        hints=[
            "Element index (i, j, ...) sits at offset + i*stride[0] + j*stride[1] + ... in the storage.",
            "zip(index, stride) pairs each index with its stride; index the 1-D storage with the position.",
        ],
        wrong=[
            lambda st, off, stride, idx: st[sum(i * s for i, s in zip(idx, stride))],
            lambda st, off, stride, idx: st[off + sum(i * s for i, s in zip(idx, reversed(stride)))],
            lambda st, off, stride, idx: st[off + sum(idx)],
        ],
    ),
    Exercise(
        "03.2",
        "Row-major strides (warm-up)",
        contiguous_strides,
        cases=lambda: [
            ((3, 4),),
            ((2, 3, 4),),
            ((5,),),
            ((2, 1, 3, 2),),
            ((7, 1),),
            ((2, 0, 3),),  # an empty dimension: torch.empty(2, 0, 3).stride() is (3, 3, 1)
            ((0, 4),),
            ((1000, 1000, 1000, 1000, 1000),),  # 10**15 elements: far too many to allocate
        ],
        rules=[
            Calls(
                forbid=("factory",),
                why="compute the strides from the shape, without creating a tensor",
            ),
            Holds(container(tuple)),
        ],
        hints=[
            "The last dimension has stride 1: neighbours along it are neighbours in memory.",
            "Each stride is the product of the sizes to its right: walk the shape from the end. "
            "torch counts a size of 0 as 1 there, so an empty dimension leaves the strides as they were.",
        ],
        wrong=[
            lambda shape: tuple(shape),
            lambda shape: contiguous_strides(tuple(reversed(shape)))[::-1],
            lambda shape: tuple(reversed(contiguous_strides(shape))),
            lambda shape: tuple(np.empty(shape, dtype=np.int8).strides),  # creates an array
            lambda shape: tuple(math.prod(shape[i + 1 :]) for i in range(len(shape))),  # 0 for an empty dim
            lambda shape: list(contiguous_strides(shape)),
        ],
    ),
    Exercise(
        "03.3",
        "Swap the last two dimensions",
        swap_last_two,
        cases=lambda: [
            (randn(3, 4, seed=37),),
            (randn(2, 3, 5, seed=38),),
            (randn(2, 2, 3, 4, seed=39, dtype=torch.float64),),
        ],
        hints=[
            "transpose(d0, d1) swaps any two dimensions; negative numbers count from the end.",
            "A transpose only swaps strides: do not call contiguous() or clone() afterwards.",
        ],
        wrong=[
            lambda t: t.transpose(-2, -1).contiguous(),
            lambda t: t.reshape(*t.shape[:-2], t.shape[-1], t.shape[-2]),
            lambda t: t.transpose(0, 1),
        ],
        rules=[IsView()],
    ),
    Exercise(
        "03.4",
        "One row, many times, no copies",
        tile_rows,
        cases=lambda: [
            (randn(3, seed=40), 4),
            (randn(5, seed=41, dtype=torch.float64), 2),
            (randint(0, 9, 2, seed=42), 6),
            (torch.arange(10.0)[1::2], 3),  # a strided row: every other element, from 1
        ],
        hints=[
            "expand repeats a dimension by giving it stride 0: nothing is copied.",
            "row.expand(n, -1) (-1 keeps a size); repeat copies the data.",
        ],
        wrong=[
            lambda row, n: row.repeat(n, 1),
            lambda row, n: torch.stack([row] * n),
            lambda row, n: row.unsqueeze(1).expand(-1, n),
            lambda row, n: row.as_strided((n, len(row)), (0, 1)),  # ignores row's stride and offset
        ],
        rules=[IsView(), Holds(_stride_zero)],
    ),
    Exercise(
        "03.5",
        "Flatten anything, copy only when needed",
        flatten_rows,
        cases=_flatten_cases,
        hints=[
            (
                "view(-1) fails on a non-contiguous tensor; one method returns a view when it can and copies "
                "only when it must."
            ),
            "The elements come in row-major order of the tensor's shape, whatever its strides.",
        ],
        wrong=[
            lambda t: t.view(-1),
            lambda t: t.contiguous().view(-1).clone(),
            lambda t: t.as_strided((t.numel(),), (1,)),
        ],
        rules=[Holds(_view_when_possible)],
    ),
    Exercise(
        "03.6",
        "Sliding windows without copying",
        sliding_windows,
        cases=lambda: [
            (randn(8, seed=43), 3),
            (randn(10, seed=44, dtype=torch.float64), 4),
            (randint(0, 9, 5, seed=45), 5),
            (randn(6, seed=46), 1),
            (torch.arange(10.0)[::2], 2),  # strided: every other element
            (randn(13, seed=47)[1::2], 3),  # strided, starting later in its storage
        ],
        hints=[
            "A signal of length n has n - w + 1 windows of length w; window k starts at position k.",
            (
                "unfold(dim, size, step) builds windows as a view; step 1 makes them overlap. "
                "(as_strided works too, with x's own stride and storage offset: x may be a strided view.)"
            ),
        ],
        wrong=[
            lambda x, w: torch.stack([x[i : i + w] for i in range(len(x) - w + 1)]),
            lambda x, w: x.unfold(0, w, w),
            lambda x, w: x.unfold(0, w, 1).contiguous(),
            lambda x, w: x.as_strided((len(x) - w + 1, w), (1, 1), x.storage_offset()),  # ignores x's stride
        ],
        rules=[IsView()],
    ),
    Exercise(
        "03.7",
        "Cut an image into blocks (stretch)",
        blocks,
        cases=lambda: [
            (torch.arange(16.0).view(4, 4), 2),
            (randn(6, 9, seed=47), 3),
            (randint(0, 9, 4, 6, seed=48), 2),
            (randn(2, 2, seed=49, dtype=torch.float64), 1),
        ],
        hints=[
            "The result has shape (H//b, W//b, b, b): block (r, c) is img[r*b:(r+1)*b, c*b:(c+1)*b].",
            (
                "unfold once along rows and once along columns, each with size b and step b; or view as "
                "(H//b, b, W//b, b) and permute."
            ),
        ],
        wrong=[
            lambda img, b: img.reshape(img.shape[0] // b, img.shape[1] // b, b, b),
            lambda img, b: img.view(img.shape[0] // b, b, img.shape[1] // b, b).transpose(1, 2).contiguous(),
            lambda img, b: img.unfold(0, b, b).unfold(1, b, b).transpose(-2, -1),
        ],
        rules=[IsView()],
    ),
]
