"""Module 12 "Compiling NumPy code": the K-Means assignment step, bytes moved, and rewrites.

The references use :mod:`torchcourse.bench.workloads.kmeans`, the course's single implementation.
Checks 12.1-12.6 run eagerly on small inputs (no compile), so each takes milliseconds; 12.7 to
12.10 compile NumPy code with backend="eager" or a counting backend (no code generation). Rules and
case builders live in :mod:`.m12_rules` (12.3-12.8) and :mod:`.m12_breaks` (12.9, 12.10).
"""

from __future__ import annotations

import numpy as np
import torch

from torchcourse.bench.workloads import kmeans as km
from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises._counts import byte_count_message
from torchcourse.grading.exercises._inputs import randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises.m12_breaks import (
    OneGraphLikeDigitize,
    SameSeedSameNumbers,
    _bins_cases,
    _noise_cases,
    _same_shape,
)
from torchcourse.grading.exercises.m12_rules import (
    KeepsBuffer,
    _into_cases,
    _into_data,
    _into_set,
    _kind_cases,
    _kind_of_eager_as_array,
    _kind_property,
    _nearest,
    _nearest_mean_property,
    _on_tensors_cases,
    _on_tensors_outside,
    _on_tensors_property,
    _points,
    _returns_out,
    compiled_kind,
)
from torchcourse.grading.rules import Holds

# --- 12.1 bytes per point ----------------------------------------------------------------------


bytes_per_point = solution("12", "bytes_per_point")


def _bpp_bytes(args, got):
    """12.1 asks for "that number of bytes": a whole number, as an int or as a float with that value."""
    return byte_count_message(got, bytes_per_point(*args))


def _bpp_cases():
    return [
        (torch.float64, torch.int64, 2),
        (torch.float32, torch.int8, 2),
        (torch.float32, torch.int64, 3),
        (torch.float16, torch.int32, 5),
    ]


# --- 12.2 achieved bandwidth as a fraction of the copy bandwidth ------------------------------


fraction_of_copy = solution("12", "fraction_of_copy")


def _fraction_cases():
    return [
        (20_000_000, torch.float64, torch.int64, 0.25, 12.0),
        (2_000_000, torch.float32, torch.int8, 0.004, 9.0),
        (1_000, torch.float32, torch.int64, 2e-6, 20.0),
    ]


# --- 12.3 squared distances in torch ------------------------------------------------------------


squared_distances = solution("12", "squared_distances")


def _far_points():
    """float32 points far from the origin: |x|² - 2 x·m + |m|² loses the distances to cancellation."""
    X, means = _points(40, 3, seed=12)
    shift = torch.tensor([1000.0, -500.0])
    return X + shift, means + shift


def _dist_cases():
    return [
        _points(10, 2, seed=1),
        _points(7, 3, seed=2, dtype=torch.float64),
        _points(1, 4, seed=3),
        _far_points(),
    ]


def _expanded_square(X, means):
    return (X * X).sum(1)[None, :] - 2 * means @ X.T + (means * means).sum(1)[:, None]


# --- 12.4 tensors in, tensors out -------------------------------------------------------------


assign_wrapper = solution("12", "assign_wrapper")


def _assign_cases():
    return [_points(50, 2, seed=4), _points(30, 3, seed=5, dtype=torch.float64), _points(5, 1, seed=6)]


# --- 12.5 linear scores -------------------------------------------------------------------------


linear_scores = solution("12", "linear_scores")


def _scores_cases():
    return [
        (randn(2, 2, seed=7) * 5,),
        (randn(3, 2, seed=8, dtype=torch.float64),),
        (randn(4, 3, seed=9),),
        (randn(1, 3, seed=10),),  # one mean: every point is nearest to it
        (randn(5, 1, seed=11) * 3,),  # points on a line
        (torch.tensor([[0.0, 0.0], [4.0, 1.0], [1.0, 5.0]]),),  # asymmetric: W = means (not .T) fails
    ]


# --- 12.6 into a reused int8 buffer (in place) ------------------------------------------------


assign_into = solution("12", "assign_into")


# --- 12.8 tensors in, tensors out, compiled -------------------------------------------------------


on_tensors = solution("12", "on_tensors")


# --- 12.9 / 12.10 (rules and cases in m12_breaks) ----------------------------------------------


bin_index = solution("12", "bin_index")
seeded_call = solution("12", "seeded_call")


EXERCISES = [
    Exercise(
        "12.1",
        "Bytes per point",
        bytes_per_point,
        cases=_bpp_cases,
        property=_bpp_bytes,
        hints=[
            "Each point is read once (d coordinates) and one label is written.",
            "dtype.itemsize gives the bytes of one element: torch.float64.itemsize == 8.",
        ],
        wrong=[
            lambda x_dtype, out_dtype, d: d * x_dtype.itemsize,
            lambda x_dtype, out_dtype, d: x_dtype.itemsize + out_dtype.itemsize,
            lambda x_dtype, out_dtype, d: d * (x_dtype.itemsize + out_dtype.itemsize),
        ],
    ),
    Exercise(
        "12.2",
        "Fraction of the copy bandwidth",
        fraction_of_copy,
        cases=_fraction_cases,
        hints=[
            "Achieved GB/s = minimum bytes / seconds / 1e9, with minimum bytes = n * (2 * itemsize of X + "
            "itemsize of the labels).",
            "Divide the achieved GB/s by the measured copy bandwidth (both in GB/s, 1 GB = 1e9 bytes).",
        ],
        wrong=[
            lambda n, xd, od, s, bw: n * 2 * xd.itemsize / s / 1e9 / bw,
            lambda n, xd, od, s, bw: km.min_bytes(n, xd, od) / s / 2**30 / bw,
            lambda n, xd, od, s, bw: km.min_bytes(n, xd, od) / s / 1e9,
        ],
    ),
    Exercise(
        "12.3",
        "Squared distances without a square root",
        squared_distances,
        cases=_dist_cases,
        hints=[
            "Broadcast: X[None] has shape (1, n, 2), means[:, None] has shape (k, 1, 2).",
            "Square the differences and sum over the last axis; no sqrt: the result has shape (k, n).",
        ],
        wrong=[
            lambda X, means: torch.linalg.norm(X[None] - means[:, None], dim=2),
            lambda X, means: ((X[:, None] - means[None]) ** 2).sum(dim=2),
            lambda X, means: ((X[None] - means[:, None]) ** 2).sum(dim=0),
            _expanded_square,
        ],
    ),
    Exercise(
        "12.4",
        "Tensors in, tensors out",
        assign_wrapper,
        cases=_assign_cases,
        hints=[
            "Call km.assign_numpy (the NumPy code) on X.numpy() and means.numpy().",
            "Turn the NumPy result back into a tensor with torch.from_numpy: int64 labels of shape (n,).",
        ],
        wrong=[
            lambda X, means: km.assign_numpy(X.numpy(), means.numpy()),
            lambda X, means: torch.from_numpy(
                np.argmax(np.linalg.norm(X.numpy() - means.numpy()[:, None], axis=2), axis=0)
            ),
            lambda X, means: torch.from_numpy(km.assign_numpy(X.numpy(), means.numpy())).to(torch.int32),
        ],
    ),
    Exercise(
        "12.5",
        "Linear scores instead of distances",
        linear_scores,
        cases=_scores_cases,
        property=_nearest_mean_property,
        hints=[
            "|x - m|^2 = |x|^2 - 2 x.m + |m|^2, and |x|^2 is the same for every mean.",
            "So the nearest mean maximises x.m_j - |m_j|^2 / 2: W = means.T (shape (d, k)), "
            "c = -0.5 * (means * means).sum(dim=1) (shape (k,)).",
        ],
        wrong=[
            lambda means: (means, -0.5 * (means * means).sum(dim=1)),
            lambda means: (means.T, -(means * means).sum(dim=1)),
            lambda means: (means.T, 0.5 * (means * means).sum(dim=1)),
            lambda means: (means.T, torch.zeros(means.shape[0])),  # drops |m|²/2: wrong for unequal norms
            lambda means: (means.T.reshape(means.shape[1], -1), -0.5 * (means * means).sum(dim=0)),
        ],
    ),
    Exercise(
        "12.7",
        "What the compiled NumPy function returns",
        compiled_kind,
        cases=_kind_cases,
        property=_kind_property,
        hints=[
            'Compile np_fn with torch.compile(np_fn, backend="eager"), call it on x, and look at what comes back.',
            "Return out.dtype, out.shape and type(out). A reduction such as x.sum() gives a NumPy scalar "
            "(np.float32) when run by NumPy, but a 0-d np.ndarray when compiled.",
        ],
        wrong=[
            lambda np_fn, x: (np_fn(x).dtype, np_fn(x).shape, type(np_fn(x))),
            lambda np_fn, x: (x.dtype, np.shape(np_fn(x)), np.ndarray),
            lambda np_fn, x: (np_fn(x).dtype, np_fn(x).shape, np_fn(x).dtype.type),
            lambda np_fn, x: tuple(
                (o.dtype, o.shape, type(o))
                for o in [torch.compile(torch.compiler.wrap_numpy(np_fn), backend="eager")(torch.from_numpy(x))]
            )[0],
            _kind_of_eager_as_array,
        ],
        compiles=True,
    ),
    Exercise(
        "12.8",
        "Compiled NumPy code on tensors",
        on_tensors,
        cases=_on_tensors_cases,
        property=_on_tensors_property,
        hints=[
            "torch.compiler.wrap_numpy(np_fn) makes a function that takes and returns tensors; "
            "compiling it traces the NumPy code as torch operations.",
            "return torch.compile(torch.compiler.wrap_numpy(np_fn), backend=backend). "
            "Compiling np_fn itself keeps NumPy arrays at the boundary.",
        ],
        wrong=[
            lambda np_fn, backend: torch.compile(np_fn, backend=backend),
            lambda np_fn, backend: torch.compiler.wrap_numpy(np_fn),
            lambda np_fn, backend: torch.compile(
                torch.compiler.wrap_numpy(lambda *a: (print(end=""), np_fn(*a))[1]), backend=backend
            ),
            _on_tensors_outside,
        ],
    ),
    Exercise(
        "12.9",
        "Bins in one graph",
        bin_index,
        cases=_bins_cases,
        rules=[OneGraphLikeDigitize()],
        hints=[
            "np.digitize gives each value the number of edges at or below it. Which NumPy functions that "
            "torch._numpy has can count that: a sorted search, or a comparison and a sum?",
            'np.searchsorted(edges, x, side="right") counts the edges at or below each value (side="left" '
            "leaves out an edge equal to the value); (x[..., None] >= edges).sum(axis=-1) counts them too.",
        ],
        wrong=[
            lambda x, edges: np.digitize(x, edges),
            lambda x, edges: np.searchsorted(edges, x),
            lambda x, edges: (x[..., None] > edges).sum(axis=-1),
            lambda x, edges: np.searchsorted(edges, x, side="right") - 1,
            lambda x, edges: (x[:, None] >= edges).sum(axis=1),
        ],
    ),
    Exercise(
        "12.10",
        "The same random numbers every time",
        seeded_call,
        cases=_noise_cases,
        property=_same_shape,
        rules=[SameSeedSameNumbers()],
        hints=[
            "Compiled, np.random.rand, randn, normal and randint are torch's versions: which random "
            "generator do they draw from? The lesson's first np.random cell shows it.",
            "Seed torch's generator right before the call: torch.manual_seed(seed), then return fn(x). "
            "np.random.seed outside the compiled function seeds only NumPy's generator.",
        ],
        wrong=[
            lambda fn, x, seed: (np.random.seed(seed), fn(x))[1],
            lambda fn, x, seed: fn(x),
            lambda fn, x, seed: (torch.manual_seed(0), fn(x))[1],
            lambda fn, x, seed: (fn(x), torch.manual_seed(seed), fn(x))[2],
            lambda fn, x, seed: (torch.manual_seed(seed % 2), np.random.seed(seed % 2), fn(x))[2],  # 0 and 2 collide
            lambda fn, x, seed: (torch.manual_seed(seed % 5), fn(x))[1],
        ],
        compiles=True,
    ),
    Exercise(
        "12.6",
        "Labels into a reused int8 buffer (stretch)",
        assign_into,
        cases=_into_cases,
        inplace=True,
        rules=[KeepsBuffer(), Holds(_returns_out)],
        hints=[
            "Compute the labels as in 12.3 (argmin over the means of the squared distances), then write "
            "them into out: out.copy_(labels) converts to out's dtype and returns out.",
            "`out = labels` only rebinds your local name; the caller's buffer is unchanged. Write into it "
            "with copy_ or out[:] = ...",
        ],
        wrong=[
            lambda out, X, means: _nearest(X, means).to(torch.int8),
            lambda out, X, means: (out.copy_(_nearest(X, means)), _nearest(X, means).to(torch.int8))[1],
            lambda out, X, means: out.copy_(((X[None] - means[:, None]) ** 2).sum(-1).argmax(0)),
            lambda out, X, means: out.copy_(((X[None] - means[:, None]) ** 2).sum(-1).argmin(1)),
            _into_set,
            _into_data,
        ],
    ),
]
