"""Exercise 04.10 (rotate points with complex numbers): its inputs, the property it grades (the exact
rotation, as precise as the points' dtype) and its typical wrong answers. ``m04.py`` keeps the
EXERCISES list."""

from __future__ import annotations

import math

import torch

from torchcourse.grading.compare import compare
from torchcourse.grading.exercises._inputs import randn
from torchcourse.grading.exercises._solutions import solution

rotate = solution("04", "rotate")

# ---- 04.10 rotate with complex numbers -----------------------------------------------------------


def rotate_cases():
    square = torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [3.0, 4.0]])
    spread = torch.tensor([[1e-3, 2e-3], [-4e2, 3e2], [0.0, 0.0], [5e-4, -1e-3], [7e2, 1.0]])  # near and far
    return [
        (square, 90.0),
        (square.double(), -30.0),
        (randn(6, 2, seed=400), 45.0),
        (randn(7, 2, seed=401, dtype=torch.float64), 123.4),
        (randn(5, 2, seed=402) * 100, 170.0),
        (torch.tensor([[2.0, -1.0], [0.5, 0.25]]), 180.0),
        (randn(4, 2, seed=403, dtype=torch.float64), 0.0),
        (randn(2, 6, seed=404, dtype=torch.float64).T, 75.0),  # transposed: x and y are not side by side
        (spread, 33.0),  # each point judged at its own scale: the small ones too
        (spread.double() * 1e3, -250.0),
    ]


_ULPS = 16  # a correct method is within ~7 eps |p| (through polar coordinates), the worked one ~1 eps |p|


def rotate_property(args: tuple, got) -> str | None:
    """04.10: the rotated points in the dtype of ``points`` and as precise as that dtype: each within
    16 eps |p| of the exact rotation (the float64 truth; eps of the points' dtype, |p| the point's
    distance from the origin), or within twice the worked answer's own error where that is larger.
    So a float32 method other than the worked one passes, and float64 points rotated through
    complex64 (float32 precision in float64 clothes) do not."""
    points, degrees = args
    expected = rotate(*args)
    msg = compare(got, expected, rtol=math.inf, atol=math.inf, check_dtype=True)  # type, shape and dtype
    if msg:
        return msg
    truth = rotate(points.detach().double(), degrees)
    radius = torch.hypot(points[:, 0].double(), points[:, 1].double()).unsqueeze(1)
    info = torch.finfo(points.dtype)
    allowed = torch.maximum(_ULPS * info.eps * radius, 2 * (expected.double() - truth).abs()) + info.tiny
    diff = (got.detach().double() - truth).abs()
    bad = ~(diff <= allowed)  # NaN is bad
    if not bool(bad.any()):
        return None
    i, j = (int(v) for v in torch.nonzero(bad)[0])
    return (
        f"values differ at {int(bad.sum())} of {bad.numel()} positions; first at index ({i}, {j}): the exact "
        f"rotation is {truth[i, j].item():.10g}, yours {got[i, j].item():.10g} (off by {diff[i, j].item():.3g}; "
        f"{points.dtype} allows {allowed[i, j].item():.3g}, {_ULPS} eps times the point's distance from the origin)"
    )


def rotate_float64_factor(points, degrees):
    z = torch.complex(points[:, 0], points[:, 1])
    theta = torch.tensor([math.radians(degrees)], dtype=torch.float64)  # a 1-d float64 tensor: strong
    turned = z * torch.polar(torch.ones_like(theta), theta)  # complex128, so float32 points come back float64
    return torch.stack([turned.real, turned.imag], dim=1)


def rotate_radians(points, degrees):
    z = torch.complex(points[:, 0], points[:, 1])
    turned = z * complex(math.cos(degrees), math.sin(degrees))  # degrees used as radians
    return torch.stack([turned.real, turned.imag], dim=1)


def rotate_clockwise(points, degrees):
    z = torch.complex(points[:, 0], points[:, 1])
    turned = z * complex(math.cos(math.radians(degrees)), -math.sin(math.radians(degrees)))
    return torch.stack([turned.real, turned.imag], dim=1)


def rotate_view_as_complex(points, degrees):
    z = torch.view_as_complex(points)  # needs a last dimension of stride 1: a column-major input fails
    turned = z * complex(math.cos(math.radians(degrees)), math.sin(math.radians(degrees)))
    return torch.view_as_real(turned)


def rotate_complex_result(points, degrees):
    z = torch.complex(points[:, 0], points[:, 1])
    return z * complex(math.cos(math.radians(degrees)), math.sin(math.radians(degrees)))  # left complex


def rotate_abs_angle(points, degrees):
    z = torch.complex(points[:, 0], points[:, 1])
    r, a = z.abs(), z.angle() + degrees  # adds degrees to an angle in radians
    return torch.stack([r * a.cos(), r * a.sin()], dim=1)


def rotate_float64_through_complex64(points, degrees):
    z = torch.complex(points[:, 0].float(), points[:, 1].float())  # complex64: float32 precision
    turned = z * complex(math.cos(math.radians(degrees)), math.sin(math.radians(degrees)))
    return torch.stack([turned.real, turned.imag], dim=1).to(points.dtype)  # float64 in name only
