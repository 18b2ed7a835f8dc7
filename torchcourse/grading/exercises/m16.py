"""Module 16 "Advanced indexing": masks, integer arrays, where, nonzero, gather, scatter, index_add_.

Every exercise is a small puzzle in the spirit of Tensor-Puzzles and numpy-100: the text asks
for no Python loop, and :class:`NoLoop` enforces it by behaviour (work that grows with the input). Exercises that
say "in place", "a view" or "a copy" carry the rule for that too.
"""

from __future__ import annotations

import math

import torch

from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises._inputs import randint, randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises.m02 import (  # an in-place answer keeps its storage: no t.data = ..., no t.set_(...)
    InItsOwnMemory,
    _storage_set,
    _storage_swap,
)
from torchcourse.grading.exercises.m16_cases import (
    NO_LOOP,
    _labels,
    _lower,
    _perm,
    _permutation_blocks,
    _returns_its_input,
    _square_tiles,
)
from torchcourse.grading.rules import Holds, IsCopy, IsView, NoLoop

# ------------------------------------------------------------------ references


clip_negatives_ = solution("16", "clip_negatives_")


nonnegative_rows = solution("16", "nonnegative_rows")


even_rows = solution("16", "even_rows")


anti_diagonal = solution("16", "anti_diagonal")


pick_per_row = solution("16", "pick_per_row")


value_at_best_key = solution("16", "value_at_best_key")


one_hot = solution("16", "one_hot")


keep_row_max = solution("16", "keep_row_max")


positive_coords = solution("16", "positive_coords")


histogram = solution("16", "histogram")


segment_sums = solution("16", "segment_sums")


inverse_permutation = solution("16", "inverse_permutation")


fill_lower_ = solution("16", "fill_lower_")


EXERCISES = [
    Exercise(
        "16.1",
        "Clip negatives to zero, in place (warm-up)",
        clip_negatives_,
        cases=lambda: [
            (randn(8, seed=1),),
            (randn(3, 4, seed=2, dtype=torch.float64),),
            (randint(-5, 5, 2, 5, seed=3),),
            (randn(5, 3, seed=4).T,),  # transposed: not contiguous
            (randn(0, 3, seed=5),),
            (torch.tensor([[-1.5]]),),
            (randn(4, 6, seed=6)[1:, ::2],),  # rows of the caller's tensor: the change must show there too
            (torch.tensor([-math.inf, 2.0, -0.5, math.inf]),),  # -inf is negative: 0, not -inf * 0 = nan
        ],
        inplace=True,
        rules=[NO_LOOP, InItsOwnMemory(), Holds(_returns_its_input)],
        hints=[
            "`t < 0` is a boolean mask of the same shape as t; a mask inside square brackets picks those entries.",
            "On the left of `=`, `t[mask] = 0` writes into t's own storage. Then return t itself.",
        ],
        wrong=[
            lambda t: torch.where(t < 0, 0, t),  # a new tensor: t is unchanged
            lambda t: t[t >= 0],  # drops the negatives instead of clearing them
            lambda t: t.abs_(),  # in place, but flips the sign
            _storage_swap(lambda t: t.clamp(min=0)),  # t shows the values, in new memory
            _storage_set(lambda t: t.clamp(min=0)),
            lambda t: t.mul_(t >= 0),  # in place, but -inf * 0 is nan
        ],
    ),
    Exercise(
        "16.2",
        "Rows with no negative entry",
        nonnegative_rows,
        cases=lambda: [
            (randint(-1, 6, 6, 3, seed=6),),
            (randn(8, 2, seed=7),),
            (randint(-2, 9, 4, 5, seed=8, dtype=torch.int32).T,),  # transposed: 5 rows of 4
            (-torch.ones(3, 2),),  # no row qualifies: shape (0, 2)
            (torch.ones(1, 1, dtype=torch.float64),),
            (randn(0, 4, seed=9),),
            (torch.tensor([[1.0, float("nan")], [0.0, 2.0], [float("nan"), -1.0]]),),  # NaN is not >= 0
            (torch.ones(3, 0),),  # no columns: no entry is negative, every row stays
        ],
        rules=[NO_LOOP],
        hints=[
            "Build one boolean per row: `(x >= 0)` is per entry; a reduction over dim 1 turns it into one per row.",
            "`.all(dim=1)` gives a mask of shape (rows,); `x[row_mask]` keeps those rows, in order.",
        ],
        wrong=[
            lambda x: x[x >= 0],  # a flat 1-D result of entries, not rows
            lambda x: x * (x >= 0).all(dim=1, keepdim=True),  # zeroes rows instead of dropping them
            lambda x: x[(x >= 0).any(dim=1)],  # rows with at least one non-negative entry
            lambda x: x[~(x < 0).any(dim=1)],  # keeps the rows with a NaN
            lambda x: x[x.min(dim=1).values >= 0],  # fails with no columns
        ],
    ),
    Exercise(
        "16.3",
        "Every other row, as a view",
        even_rows,
        cases=lambda: [
            (randn(5, 3, seed=10),),
            (randn(6, 2, seed=11, dtype=torch.float64),),
            (randint(0, 9, 3, 7, seed=12).T,),  # transposed: 7 rows
            (randn(1, 4, seed=13),),
            (randn(0, 2, seed=14),),
        ],
        rules=[IsView(), NO_LOOP],
        hints=[
            "Rows 0, 2, 4, ...: a start, a stop and a step.",
            "`x[torch.arange(0, len(x), 2)]` has the right values but copies them (an index tensor with "
            "elements copies); a slice with a step is basic indexing, a view.",
        ],
        wrong=[
            lambda x: x[torch.arange(0, len(x), 2)],  # right values, a copy
            lambda x: x[1::2],  # the odd rows
            lambda x: x[:, ::2],  # every other column
        ],
    ),
    Exercise(
        "16.4",
        "The anti-diagonal, as a copy",
        anti_diagonal,
        cases=lambda: [
            (randn(4, 4, seed=15),),
            (randint(0, 99, 5, 5, seed=16),),
            (randn(3, 3, seed=17, dtype=torch.float64).T,),  # transposed
            (torch.tensor([[7.0]]),),
            (randn(0, 0, seed=18),),
        ],
        rules=[IsCopy(), NoLoop(grow=_square_tiles)],
        hints=[
            "Entry k of the anti-diagonal sits at row k, column n - 1 - k.",
            "Two integer tensors of the same length, `m[rows, cols]`, pick the pairs (rows[k], cols[k]).",
        ],
        wrong=[
            lambda m: m.diagonal(),  # the main diagonal
            lambda m: m[torch.arange(len(m)), torch.arange(len(m)).flip(0)].flip(0),  # read bottom-up
            lambda m: m.diagonal().flip(0),  # main diagonal, reversed
        ],
    ),
    Exercise(
        "16.5",
        "One entry per row (gather)",
        pick_per_row,
        cases=lambda: [
            (randn(4, 3, seed=19), torch.tensor([2, 0, 1, 2])),
            (randn(5, 6, seed=20, dtype=torch.float64), _labels(5, 6, seed=21)),
            (randint(0, 99, 6, 3, seed=22).T.contiguous().T, _labels(6, 3, seed=23)),  # column-major
            (randn(3, 5, seed=24).T, _labels(5, 3, seed=25)),  # transposed
            (randn(1, 1, seed=26), torch.tensor([0])),
            (randn(0, 4, seed=27), torch.zeros(0, dtype=torch.int64)),
            (torch.tensor([[-torch.inf, 1.0, torch.inf], [2.0, -torch.inf, 0.5]]), torch.tensor([1, 0])),  # infinities
            (randint(-9, 9, 4, 3, seed=28, dtype=torch.int32), _labels(4, 3, seed=29)),  # int32 scores
        ],
        rules=[NO_LOOP],
        hints=[
            "`out[i] = scores[i, idx[i]]`: the row is i itself, the column comes from idx.",
            "`scores.gather(1, index)` wants an index with as many dimensions as scores: shape (rows, 1), "
            "then squeeze it back to (rows,).",
        ],
        wrong=[
            lambda s, i: s[:, i],  # a (rows, rows) grid: every row at every index
            lambda s, i: s[i],  # whole rows
            lambda s, i: s.gather(0, i.unsqueeze(0)).squeeze(0),  # gathers down the columns
            # inf * 0 is NaN, and the int64 one-hot promotes int32 scores
            lambda s, i: (s * torch.nn.functional.one_hot(i, s.shape[1])).sum(1),
        ],
    ),
    Exercise(
        "16.6",
        "The value at each row's best key",
        value_at_best_key,
        cases=lambda: [
            (randn(4, 5, seed=28), randn(4, 5, seed=29)),
            (randn(6, 3, seed=30, dtype=torch.float64), randint(0, 99, 6, 3, seed=31)),
            (randn(5, 3, seed=32).T, randn(3, 5, seed=33)),  # transposed keys
            (randn(1, 1, seed=34), randn(1, 1, seed=35)),
            (randn(0, 3, seed=36), randn(0, 3, seed=37)),
            (randn(3, 4, seed=38), randint(-9, 9, 3, 4, seed=39, dtype=torch.int32)),  # int32 values
        ],
        rules=[NO_LOOP],
        hints=[
            "First find where: `keys.argmax(dim=1)` is the column of each row's largest key.",
            "Then read `values` at those columns with gather (keepdim=True keeps the index 2-D), "
            "or with a pair of integer tensors: rows `arange(n)` and those columns.",
        ],
        wrong=[
            lambda k, v: v.amax(dim=1),  # the largest value, wherever the key is
            lambda k, v: v[k.argmax(dim=1)],  # whole rows of values
            lambda k, v: v.gather(1, k.argmin(dim=1, keepdim=True)).squeeze(1),  # smallest key
            lambda k, v: (v * torch.nn.functional.one_hot(k.argmax(1), k.shape[1])).sum(1),  # int32 becomes int64
        ],
    ),
    Exercise(
        "16.7",
        "One-hot rows (scatter_)",
        one_hot,
        cases=lambda: [
            (torch.tensor([2, 0, 1, 2]), 3),
            (_labels(7, 5, seed=38), 5),
            (_labels(5, 3, seed=39), 8),  # more classes than appear
            (torch.tensor([0]), 1),
            (torch.zeros(0, dtype=torch.int64), 4),
        ],
        rules=[NO_LOOP],
        hints=[
            "Start from `torch.zeros(len(labels), n)` (float32) and put a 1 in row i at column labels[i].",
            "`scatter_(1, index, 1.0)` writes along dim 1; the index needs shape (len(labels), 1).",
        ],
        wrong=[
            lambda labels, n: torch.nn.functional.one_hot(labels, n),  # int64, not float32
            lambda labels, n: torch.zeros(len(labels), n).scatter_(1, labels[:, None], labels[:, None].float()),
            lambda labels, n: torch.zeros(len(labels), n).scatter_(0, labels.unsqueeze(1), 1.0),  # along dim 0
        ],
    ),
    Exercise(
        "16.8",
        "Keep each row's maximum (where)",
        keep_row_max,
        cases=lambda: [
            (randn(4, 5, seed=40),),
            (randint(-3, 4, 5, 4, seed=41),),
            (torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, -1.0], [-1.0, -1.0, -2.0, -5.0]]),),  # tied maxima
            (torch.tensor([[4, 4], [0, -2]]),),  # tied maxima, integers
            (randn(5, 3, seed=42, dtype=torch.float64).T,),  # transposed
            (-torch.ones(1, 1),),
            (randn(0, 3, seed=43),),
            (torch.tensor([[-torch.inf, 1.0, 2.0], [0.5, -torch.inf, 0.5]]),),  # -inf off the maximum becomes 0
        ],
        rules=[NO_LOOP],
        hints=[
            "`x.amax(dim=1, keepdim=True)` has shape (rows, 1): it broadcasts against x row by row.",
            "`torch.where(condition, x, other)` takes x where the condition holds and other elsewhere; "
            "the other can be `torch.zeros_like(x)`.",
        ],
        wrong=[
            lambda x: torch.where(x == x.amax(), x, torch.zeros_like(x)),  # the global maximum only
            lambda x: torch.where(x == x.amax(dim=0), x, torch.zeros_like(x)),  # column maxima
            lambda x: torch.where(x == x.amax(dim=1, keepdim=True), 1, 0).to(x.dtype),  # a mask, not the values
            lambda x: torch.zeros_like(x).scatter(1, x.argmax(1, keepdim=True), x.amax(1, keepdim=True)),  # one copy
            lambda x: x * (x == x.amax(dim=1, keepdim=True)),  # -inf * 0 is NaN
        ],
    ),
    Exercise(
        "16.9",
        "Coordinates of the positive entries (nonzero)",
        positive_coords,
        cases=lambda: [
            (randn(3, 4, seed=44),),
            (randint(-2, 3, 5, 2, seed=45),),
            (randn(4, 3, seed=46, dtype=torch.float64).T,),  # transposed: row-major order of the view
            (-torch.ones(2, 3),),  # none: shape (0, 2)
            (torch.ones(1, 1),),
        ],
        rules=[NO_LOOP],
        hints=[
            "`(x > 0)` is the mask; one call lists the coordinates of its True entries.",
            "`mask.nonzero()` gives shape (count, 2) in row-major order; `as_tuple=True` gives a tuple instead.",
        ],
        wrong=[
            lambda x: (x > 0).nonzero(as_tuple=True),  # a tuple of two 1-D tensors
            lambda x: (x > 0).T.nonzero(),  # column-major, and (col, row)
            lambda x: (x > 0).nonzero()[:, [1, 0]],  # (col, row)
        ],
    ),
    Exercise(
        "16.10",
        "A histogram of labels (index_add_)",
        histogram,
        cases=lambda: [
            (torch.tensor([1, 3, 1, 0, 1]), 4),
            (_labels(50, 6, seed=47), 6),
            (_labels(9, 3, seed=48), 5),  # empty bins at the end
            (torch.tensor([0]), 1),
            (torch.zeros(0, dtype=torch.int64), 3),
        ],
        rules=[NO_LOOP],
        hints=[
            "Start from n zeros (int64) and add 1 at position values[i] for every i.",
            "`counts[values] += 1` adds only once per repeated index; `index_add_` (or `scatter_add_`) "
            "accumulates every one.",
        ],
        wrong=[
            lambda v, n: torch.zeros(n, dtype=torch.int64).index_put_((v,), torch.ones_like(v)),  # no accumulate
            lambda v, n: torch.zeros(n, dtype=torch.int64).scatter_(0, v, torch.ones_like(v)),  # overwrite, not add
            lambda v, n: torch.bincount(v),  # length max(v) + 1, not n
        ],
    ),
    Exercise(
        "16.11",
        "Segment sums (index_add_ / scatter_add_)",
        segment_sums,
        cases=lambda: [
            (randn(5, 2, seed=49), torch.tensor([0, 2, 0, 1, 2]), 3),
            (randn(12, 3, seed=50, dtype=torch.float64), _labels(12, 4, seed=51), 4),
            (randint(-9, 9, 3, 6, seed=52).T, _labels(6, 2, seed=53), 5),  # transposed, empty segments
            (randn(1, 1, seed=54), torch.tensor([0]), 1),
            (randn(0, 3, seed=55), torch.zeros(0, dtype=torch.int64), 2),
        ],
        rules=[NO_LOOP],
        hints=[
            "Row k of the answer is the sum of the rows i of x with seg[i] == k: an (n, columns) tensor of zeros "
            "to start from, in x's dtype.",
            "`out.index_add_(0, seg, x)` adds row i of x into row seg[i] of out, repeats included.",
        ],
        wrong=[
            lambda x, s, n: torch.zeros(n, x.shape[1], dtype=x.dtype).index_copy_(0, s, x),  # last row wins
            lambda x, s, n: torch.zeros(n, x.shape[1], dtype=x.dtype).index_add_(0, s, x).T,  # transposed
            lambda x, s, n: torch.zeros(n, x.shape[1]).index_add_(0, s, x.float()),  # always float32
        ],
    ),
    Exercise(
        "16.12",
        "Inverse permutation (scatter_)",
        inverse_permutation,
        cases=lambda: [
            (torch.tensor([2, 0, 3, 1]),),  # not its own inverse
            (_perm(10, seed=56),),
            (torch.arange(7).roll(2),),
            (torch.tensor([0]),),
            (torch.zeros(0, dtype=torch.int64),),
        ],
        rules=[NoLoop(grow=_permutation_blocks)],
        hints=[
            "The inverse q undoes p: `q[p[i]] = i` for every i.",
            "That is a scatter: write `arange(n)` at positions p, with `scatter_(0, p, ...)` or `q[p] = ...`.",
        ],
        wrong=[
            lambda p: p.flip(0),  # reversed, not inverted
            lambda p: p[p],  # p applied twice
            lambda p: p.clone(),  # p itself
        ],
    ),
    Exercise(
        "16.13",
        "Fill the strict lower triangle, in place",
        fill_lower_,
        cases=lambda: [
            (randn(4, 4, seed=57), -1.0),
            (randn(3, 5, seed=58, dtype=torch.float64), 9.5),  # wide
            (randint(0, 9, 5, 3, seed=59), 7),  # tall
            (randn(4, 3, seed=60).T, 0.0),  # transposed: not contiguous
            (randn(1, 1, seed=61), 3.0),  # no entry below the diagonal
            (randn(0, 3, seed=62), 1.0),
            (randn(5, 6, seed=63)[1:, 1:], 2.0),  # a window of the caller's matrix
        ],
        inplace=True,
        rules=[NO_LOOP, InItsOwnMemory(), Holds(_returns_its_input)],
        hints=[
            "Entry (i, j) is strictly below the diagonal when i > j: compare a column of row numbers with a "
            "row of column numbers, or use `tril(diagonal=-1)` on a boolean tensor of ones.",
            "Assign through the mask, `m[mask] = value` (or `m.masked_fill_(mask, value)`), then return m.",
        ],
        wrong=[
            lambda m, v: m.masked_fill(torch.ones(m.shape, dtype=torch.bool).tril(-1), v),  # a new tensor
            lambda m, v: m.masked_fill_(torch.ones(m.shape, dtype=torch.bool).tril(), v),  # diagonal too
            lambda m, v: m.masked_fill_(torch.ones(m.shape, dtype=torch.bool).triu(1), v),  # upper triangle
            _storage_swap(lambda m, v: m.masked_fill(_lower(m), v)),  # m shows the values, in new memory
        ],
    ),
]
