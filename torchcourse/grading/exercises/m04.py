"""Module 04 "Dtypes": sizes and ranges, casting, overflow, integer accumulators, float accuracy.

Every check compares dtypes (``check_dtype=True``): in this module the dtype *is* the answer.
"""

from __future__ import annotations

import numpy as np
import torch

from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises import m04_cases as c
from torchcourse.grading.exercises import m04_rotate as r
from torchcourse.grading.exercises._inputs import generator, randint, randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises._types import python_int
from torchcourse.grading.rules import Holds, below_bytes_per_element

SIGNED = (torch.int8, torch.int16, torch.int32, torch.int64)


to_float32_tensor = solution("04", "to_float32_tensor")
nbytes = solution("04", "nbytes")
mean_counts = solution("04", "mean_counts")
smallest_int_dtype = solution("04", "smallest_int_dtype")
brighten = solution("04", "brighten")
gene_totals = solution("04", "gene_totals")
variance = solution("04", "variance")
quadratic_roots = solution("04", "quadratic_roots")
with_default_dtype = solution("04", "with_default_dtype")
rotate = solution("04", "rotate")
close_enough = solution("04", "close_enough")


# ---- inputs ---------------------------------------------------------------------------


def _nbytes_cases():
    return [
        (randn(5, seed=43),),
        (randn(3, 4, seed=44, dtype=torch.float64),),
        (randn(2, 8, seed=45, dtype=torch.bfloat16),),
        (randint(0, 9, 7, seed=46, dtype=torch.int8),),
        (randint(0, 2, 10, seed=47, dtype=torch.bool),),
        (torch.tensor(7, dtype=torch.int16),),
        (torch.arange(10.0)[::2],),  # a view: 5 elements of a storage of 10
        (randn(4, 6, seed=39, dtype=torch.float64)[1:3, 2:],),  # a view that starts later in its storage
    ]


def _count_cases():
    return [
        (randint(0, 1000, 10, seed=48),),
        (randint(0, 100, 4, 6, seed=49, dtype=torch.int32),),
        (randint(0, 256, 3, 5, seed=50, dtype=torch.uint8),),
        (randint(16_000_000, 17_000_000, 7, seed=51),),
        (torch.tensor([2**24 + 1] * 3 + [2**24 + 3]),),  # mean 16777217.5; float32 gives 16777216 or ...218
        (randint(9_000_000, 11_000_000, 300, seed=39, dtype=torch.int32),),  # a total of 3e9: above int32's max
    ]


def _range_cases():
    return [
        (0, 127),
        (0, 128),
        (-128, 127),
        (-129, 0),
        (-32768, 32767),
        (0, 40_000),
        (0, 2**31 - 1),
        (-(2**31) - 1, 0),
        (0, 2**40),
    ]


def _image_cases():
    return [
        (randint(0, 256, 8, 8, seed=52, dtype=torch.uint8), 60),
        (randint(0, 256, 3, 16, 16, seed=53, dtype=torch.uint8), -70),
        (torch.tensor([0, 1, 128, 254, 255], dtype=torch.uint8), 1),
        (randint(0, 256, 4, 4, seed=54, dtype=torch.uint8), 300),
        (torch.tensor([0, 7, 200, 255], dtype=torch.uint8), 40_000),  # int16 + 40000 wraps silently
        (torch.tensor([0, 7, 200, 255], dtype=torch.uint8), -70_000),
    ]


def _gene_cases():
    return [
        (randint(1, 25, 6, 1000, seed=55, dtype=torch.int8),),
        (randint(1, 25, 12, 700, seed=56, dtype=torch.int8),),
        (randint(1, 25, 3, 40, seed=57, dtype=torch.int8),),
        (randint(1, 25, 1000, 5, seed=58, dtype=torch.int8).T,),  # transposed: not contiguous
        (torch.full((2, 1000), 24, dtype=torch.int8),),  # the largest totals: 24,000
        (torch.ones(0, 30, dtype=torch.int8),),  # no chromosome
        (torch.ones(4, 0, dtype=torch.int8),),  # no gene: totals 0
        (randint(1, 25, 1, 1, seed=59, dtype=torch.int8),),
    ]


_NO_INT64_COPY = below_bytes_per_element(
    8,
    "your function needed {measured} bytes at its peak, as much as an int64 copy of the genes (8 bytes a gene): "
    "ask sum for the small dtype directly, sum(dim=1, dtype=...), instead of casting an int64 result",
)


def _measurement_cases():
    return [
        (10_000 + randn(1000, seed=58),),
        (5_000 + 0.1 * randn(50, seed=59),),
        (-20_000 + 3 * randn(2000, seed=60),),
    ]


def _quadratic_cases():
    out = []
    for seed, n, top in ((61, 8, 4), (62, 16, 9), (63, 5, 9)):
        g = generator(seed)
        magnitude = 10 ** (2 + (top - 2) * torch.rand(n, generator=g, dtype=torch.float64))
        sign = torch.where(torch.rand(n, generator=g) < 0.5, -1.0, 1.0).double()
        c = 20 * torch.rand(n, generator=g, dtype=torch.float64) - 10
        out.append(((sign * magnitude).float(), c.float()))
    return out


# ---- typical wrong answers ------------------------------------------------------------


def _smallest_strict(lo, hi):  # off by one at the boundary: < instead of <=
    for dtype in SIGNED:
        info = torch.iinfo(dtype)
        if info.min < lo and hi < info.max:
            return dtype
    return torch.int64


def _smallest_ignores_lo(lo, hi):  # forgets negative values
    for dtype in SIGNED:
        if hi <= torch.iinfo(dtype).max:
            return dtype
    return torch.int64


def _roots_naive(b, c):  # the textbook formula: cancellation in the small root
    disc = torch.sqrt(b * b - 4 * c)
    return torch.stack([(-b + torch.sign(b) * disc) / 2, (-b - torch.sign(b) * disc) / 2], dim=1)


def _roots_naive_float64(b, c):  # more digits do not cure cancellation when b is large enough
    return _roots_naive(b.double(), c.double()).float()


EXERCISES = [
    Exercise(
        "04.1",
        "From NumPy, in float32",
        to_float32_tensor,
        cases=c._numpy_cases,
        hints=[
            "torch.from_numpy(a) and torch.tensor(a) both keep NumPy's dtype: float64 stays float64.",
            "torch refuses an array with negative strides (a[::-1]) or in a foreign byte order: let NumPy "
            "convert first, a.astype(np.float32) makes a fresh array torch.from_numpy accepts.",
        ],
        wrong=[
            lambda a: torch.from_numpy(a),
            lambda a: torch.tensor(a),
            lambda a: torch.from_numpy(a).half(),
            lambda a: torch.tensor(list(a), dtype=torch.float32),  # fails on a 0-d array
            lambda a: torch.from_numpy(a).float(),  # refuses negative strides and big-endian data
            lambda a: torch.as_tensor(a, dtype=torch.float32),  # the same refusals
            lambda a: torch.from_numpy(np.ascontiguousarray(a)).float(),  # a 0-d array becomes 1-d; big-endian
            lambda a: torch.from_numpy(np.asarray(a, dtype=np.float32)),  # no copy of a float32 reversed view
            lambda a: torch.from_numpy(a.copy()).float(),  # positive strides, but still big-endian
            lambda a: torch.frombuffer(bytearray(a.astype(np.float32).tobytes()), dtype=torch.float32).reshape(
                a.shape
            ),  # refuses an empty buffer
            c._swap_in_place,  # right values, but the caller's array is left byte-swapped
        ],
    ),
    Exercise(
        "04.2",
        "Bytes of a tensor",
        nbytes,
        cases=_nbytes_cases,
        hints=[
            "t.numel() counts elements; t.element_size() gives the bytes of one element of t's dtype.",
            "A bool takes a whole byte; a bfloat16 two.",
        ],
        wrong=[
            lambda t: t.numel(),
            lambda t: t.element_size(),
            lambda t: t.numel() * 4,
            lambda t: torch.tensor(t.numel() * t.element_size()),  # a tensor, not a Python int
            lambda t: t.untyped_storage().nbytes(),  # the whole storage, not t's elements
        ],
        rules=[Holds(python_int("the number of bytes"))],
    ),
    Exercise(
        "04.3",
        "The mean of integer counts",
        mean_counts,
        cases=_count_cases,
        rtol=1e-12,  # a float64 mean: float32's error (~1e-7 relative) must show
        atol=0.0,
        hints=[
            "t.mean() refuses an integer tensor; cast first, and pick the dtype the exercise asks for.",
            (
                "t / n and t.float() both give float32 (the default float), not float64: use .double() "
                "or t.mean(dtype=torch.float64)."
            ),
        ],
        wrong=[
            lambda t: t.float().mean(),
            lambda t: t.sum() / t.numel(),
            lambda t: t.double().mean().item(),
            lambda t: t.float().mean().double(),  # the float32 mean, converted afterwards
            lambda t: (t.sum() / t.numel()).double(),  # the division runs in float32
            lambda t: t.sum(dtype=torch.int32).double() / t.numel(),  # the int32 total overflows
        ],
    ),
    Exercise(
        "04.4",
        "The smallest integer dtype",
        smallest_int_dtype,
        cases=_range_cases,
        hints=[
            "torch.iinfo(torch.int16).min and .max give the range of a dtype; try the dtypes from small to large.",
            "Both ends matter, and both ends are included: int8 holds -128 and 127 themselves.",
        ],
        wrong=[_smallest_strict, _smallest_ignores_lo, lambda lo, hi: torch.int64],
    ),
    Exercise(
        "04.5",
        "Brighten an image without wrap-around",
        brighten,
        cases=_image_cases,
        hints=[
            "uint8 arithmetic wraps: 250 + 10 is 4. Compute in a wider integer type first (img.int()).",
            (
                "Clamp to [0, 255] in the wide type, then cast back with .to(torch.uint8): the result must "
                "still be uint8."
            ),
        ],
        wrong=[
            lambda img, amount: img + amount,
            lambda img, amount: (img + amount).clamp(0, 255),
            lambda img, amount: (img.int() + amount).clamp(0, 255),
            lambda img, amount: (img.short() + amount).clamp(0, 255).to(torch.uint8),  # int16 wraps past 32767
        ],
    ),
    Exercise(
        "04.6",
        "Gene totals in int16",
        gene_totals,
        cases=_gene_cases,
        rules=[_NO_INT64_COPY, c.NothingWiderThan(torch.int16)],
        hints=[
            "genes.sum(dim=1) returns int64: correct totals, but 4x the bytes you need (after an 8x copy).",
            "The largest total is 24 x 1000 = 24,000. Which dtype holds it? Pass it as sum(..., dtype=...).",
        ],
        wrong=[
            lambda genes: genes.sum(dim=1),
            lambda genes: genes.sum(dim=1, dtype=torch.int8),
            lambda genes: genes.sum(dim=0, dtype=torch.int16),
            lambda genes: genes.sum(dim=1).to(torch.int16),  # right numbers, after the int64 copy
            lambda genes: genes.sum(1, dtype=torch.int32).to(torch.int16),  # after an int32 sum
            lambda genes: genes.float().sum(1).to(torch.int16),  # after a float32 copy
            lambda genes: torch.tensor([int(r.sum()) for r in genes], dtype=torch.int16),  # int64 per row
        ],
    ),
    Exercise(
        "04.7",
        "Variance without cancellation",
        variance,
        cases=_measurement_cases,
        rtol=1e-4,
        atol=1e-6,
        hints=[
            "The textbook shortcut mean(x**2) - mean(x)**2 subtracts two huge, nearly equal numbers.",
            (
                "Subtract the mean first, then square and average: the numbers stay small. This is the "
                "population variance (divide by n, not n - 1), returned in float32."
            ),
        ],
        wrong=[lambda t: (t**2).mean() - t.mean() ** 2, lambda t: t.var(), lambda t: t.double().var(correction=0)],
    ),
    Exercise(
        "04.9",
        "Build in another default dtype, and put the default back",
        with_default_dtype,
        cases=c.default_dtype_cases,
        rules=[c.RestoresDefaultDtype()],
        hints=[
            "torch.get_default_dtype() reads the default before you change it with torch.set_default_dtype(dtype).",
            (
                "A finally: block runs whether build() returns or raises: set the old default back there, and "
                "do not catch build's exception."
            ),
        ],
        wrong=[
            c.default_no_restore,
            c.default_restore_not_on_error,
            c.default_restore_float32,
            c.default_swallows_error,
            c.default_cast_result,
            c.default_build_twice,
            c.default_new_exception,
        ],
    ),
    Exercise(
        "04.10",
        "Rotate points with complex numbers",
        rotate,
        cases=r.rotate_cases,
        property=r.rotate_property,  # the exact rotation, as precise as the points' dtype
        hints=[
            (
                "torch.complex(x, y) makes the complex numbers x + iy from two real tensors (complex64 from "
                "float32); the rotation by θ is a multiplication by e^(iθ), with θ in radians (math.radians)."
            ),
            (
                "Multiply by a Python complex (cmath.exp(1j * theta)): a Python number never raises the "
                "precision, so complex64 stays complex64. Then stack .real and .imag as the two columns."
            ),
        ],
        wrong=[
            r.rotate_float64_factor,
            r.rotate_radians,
            r.rotate_clockwise,
            r.rotate_view_as_complex,
            r.rotate_complex_result,
            r.rotate_abs_angle,
            r.rotate_float64_through_complex64,
        ],
    ),
    Exercise(
        "04.11",
        "Close enough for its dtype?",
        close_enough,
        cases=c.close_cases,
        rules=[Holds(c.python_bool)],
        hints=[
            (
                "The tolerances depend on the dtype: float16 rtol 1e-3, bfloat16 1.6e-2, float32 and complex64 "
                "1.3e-6, float64 and complex128 1e-7; atol 1e-5, and 1e-7 for float64 and complex128."
            ),
            (
                "torch.testing.assert_close(got, want) applies exactly that rule and raises an AssertionError "
                "when it fails: turn the outcome into True or False. torch.allclose does not look at the dtype."
            ),
        ],
        wrong=[
            c.close_allclose,
            c.close_float32_table,
            c.close_tensor,
            c.close_equal_nan,
            c.close_relative_to_got,
            c.close_exact,
            c.close_min_item,
        ],
    ),
    Exercise(
        "04.8",
        "Stable quadratic roots (stretch)",
        quadratic_roots,
        cases=_quadratic_cases,
        rtol=1e-5,
        atol=0.0,  # the small roots are ~1e-8: an absolute tolerance would hide them
        hints=[
            (
                "Find the subtraction of two nearly equal numbers: for large |b|, sqrt(b² - 4c) is almost "
                "|b|, and one of the two roots of the textbook formula subtracts it from |b|. The other one "
                "adds them and is accurate."
            ),
            "Compute that accurate (large) root first: q = -(b + sign(b)·sqrt(b² - 4c)) / 2.",
            (
                "The product of the two roots is c, so the small root is c / q. Stack them with "
                "torch.stack([small, large], dim=1)."
            ),
        ],
        wrong=[_roots_naive, _roots_naive_float64, lambda b, c: quadratic_roots(b.double(), c.double())],
    ),
]
