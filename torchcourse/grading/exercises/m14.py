"""Module 14 "Autograd as a calculus engine": derivatives, Newton's method, penalties, torch.func."""

from __future__ import annotations

import math

import torch
from torch.func import grad, vmap

from torchcourse.grading.checks import Exercise
from torchcourse.grading.compare import compare
from torchcourse.grading.exercises._inputs import randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.families import FAMILIES
from torchcourse.grading.rules import Case, Holds, Rule, recorded_calls

derivative = solution("14", "derivative")


gradient_f2 = solution("14", "gradient_f2")


newton = solution("14", "newton")


penalised_f2 = solution("14", "penalised_f2")


def _constraints(p):
    """The six constraints of function 2 as columns ``g(p) <= 0`` (used by the wrong answers)."""
    x, y, z = p.unbind(1)
    return torch.stack([1 - x, 3 - y, y - 7, z, 3 - x - y - z, x**2 + z**2 - 10], dim=1)


def _f3(v):
    x, y, z = v.unbind(-1)
    return torch.sin(x) + x**2 - 2 * torch.cos(y) + y**2 + z**2


hessians_f3 = solution("14", "hessians_f3")


gradient_descent = solution("14", "gradient_descent")


polar_jacobians = solution("14", "polar_jacobians")


# ------------------------------------------------------------------ inputs


def _requires_no_grad(args, got):
    if isinstance(got, torch.Tensor) and got.requires_grad:
        return (
            "the values are right but the result still requires grad (it carries a graph); "
            "return a plain tensor: .detach() it or compute it under torch.no_grad()"
        )
    return None


def _derivative_cases():
    grid = torch.linspace(-2, 2, 9, dtype=torch.float64)
    return [
        (torch.sin, grid),
        (lambda x: x**3 - 2 * x, randn(12, seed=61, dtype=torch.float64)),
        (lambda x: torch.exp(-(x**2)), randn(3, 4, seed=62, dtype=torch.float64)),
        (torch.tanh, randn(6, seed=63)),
    ]


def _points(n, seed, dtype=torch.float64):
    return randn(n, 3, seed=seed, dtype=dtype) * 2


def _gradient_of_mean(points):
    points = points.detach().requires_grad_()
    x, y, z = points.unbind(1)
    f = x**2 + 2 * y**2 + 3 * z**2 + 4 * x * y - 5 * y * z
    return torch.autograd.grad(f.mean(), points)[0]


def _newton_cases():
    M = torch.linspace(0.1, 6.0, 7, dtype=torch.float64)
    return [
        (lambda x: x**3 - 2, torch.tensor([1.0], dtype=torch.float64), 8),
        (
            lambda x: x**3 - torch.tensor([2.0, 10.0, 0.5], dtype=torch.float64),
            torch.tensor([1.0, 2.0, 1.0], dtype=torch.float64),
            10,
        ),
        (lambda E: E - 0.5 * torch.sin(E) - M, torch.full((7,), math.pi, dtype=torch.float64), 8),
        (lambda x: torch.cos(x) - x, torch.tensor([0.5, 1.0], dtype=torch.float64), 3),
        # far from the root: after 3 steps the iterate is still moving, so one step more or less shows
        (lambda x: x**3 - 2, torch.tensor([10.0, -4.0], dtype=torch.float64), 3),
        (lambda x: x**3 - 2, torch.tensor([10.0], dtype=torch.float64), 1),
        (lambda x: x**3 - 2, torch.tensor([3.0], dtype=torch.float64), 0),  # no step: x0 itself
        (lambda x: torch.cos(x) - x, torch.tensor([3.0, -2.0], dtype=torch.float64, requires_grad=True), 2),
    ]


def _newton_until_converged(g, x0, steps):
    x = x0.detach()
    for _ in range(100):
        x = x.detach().requires_grad_()
        gx = g(x)
        (dg,) = torch.autograd.grad(gx.sum(), x)
        step = (gx / dg).detach()
        x = (x - step).detach()
        if step.abs().max() < 1e-12:
            break
    return x


def _penalty_cases():
    corner = torch.tensor([[1.0, 3.0, 0.0], [0.5, 2.5, 0.5], [2.0, 4.0, -1.0], [4.0, 8.0, -3.0]], dtype=torch.float64)
    return [
        (corner, 10.0),
        (_points(50, 71) + torch.tensor([1.5, 4.0, -1.0], dtype=torch.float64), 100.0),
        (_points(20, 72), 1.0),
    ]


def _quadratic(v):
    A = torch.tensor([[3.0, 1.0, 0.0], [1.0, 2.0, 0.5], [0.0, 0.5, 1.0]], dtype=v.dtype)
    b = torch.tensor([1.0, -2.0, 0.5], dtype=v.dtype)
    return 0.5 * v @ A @ v - b @ v


def _descent_cases():
    return [
        (_quadratic, torch.zeros(3, dtype=torch.float64), 0.1, 50),
        (lambda v: ((v - 2) ** 4).sum() + (v**2).sum(), randn(4, seed=81, dtype=torch.float64), 0.02, 30),
        (_f3, torch.tensor([1.0, 1.0, 1.0], dtype=torch.float64), 0.1, 20),
    ]


def _descent_in_place(f, x0, lr, steps):
    x = x0
    for _ in range(steps):
        x.sub_(lr * grad(f)(x))
    return x


def _polar_cases():
    g = torch.Generator().manual_seed(91)
    return [
        (
            torch.stack(
                [
                    torch.rand(5, generator=g, dtype=torch.float64) * 3 + 0.1,
                    torch.rand(5, generator=g, dtype=torch.float64) * 2 * math.pi,
                ],
                dim=1,
            ),
        ),
        (torch.tensor([[1.0, 0.0], [2.0, math.pi / 2]], dtype=torch.float64),),
    ]


class _DerivativeFromAutograd(Rule):
    """14.1 and 14.3 take the derivative from autograd, in any mode: torch.autograd.grad, .backward(),
    torch.func's grad/vjp/jacrev (they reach autograd.grad), forward mode through
    torch.autograd.forward_ad or torch.func.jvp/jacfwd (they reach _make_dual); not a finite
    difference, a complex step or a derivative typed in."""

    name = "derivative from autograd"
    every_case = False

    def __init__(self, what: str = "g'") -> None:
        self.what = what

    def judge(self, case):
        try:
            calls = set(recorded_calls(case.fn, case.fresh()))
        except Exception:  # noqa: BLE001 - an odd answer is the comparison's to report
            return None
        if not calls & FAMILIES["autograd"]:
            return (
                f"your function never asks autograd for {self.what}; use torch.autograd.grad, .backward(), "
                "torch.func or forward-mode autograd"
            )
        return None


class _LeavesXAlone(Rule):
    """14.1: the caller's ``x`` keeps what it was (no requires_grad switched on, no .grad left on it),
    and a result is kept afterwards: a second call does not change the tensor the first returned
    (``x.grad`` returned twice is one tensor, and the second backward adds into it)."""

    name = "x left alone"

    def judge(self, case: Case) -> str | None:
        f, x = case.fresh()
        if not isinstance(x, torch.Tensor):
            return None
        requires_grad = x.requires_grad
        try:
            first = case.fn(f, x)
            kept = first.detach().clone() if isinstance(first, torch.Tensor) else None
            case.fn(f, x)
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        if x.requires_grad != requires_grad or x.grad is not None:
            return (
                "your function changed the caller's x (it now requires grad, or holds a .grad); differentiate a "
                "new leaf instead: x.detach().requires_grad_()"
            )
        if kept is not None and compare(first, kept, rtol=0, atol=0) is not None:
            return (
                "calling your function a second time changed the tensor the first call returned (a .grad that "
                "accumulates); return a new tensor each call, e.g. from torch.autograd.grad"
            )
        return None


def _derivative_in_x_grad(f, x):
    x.requires_grad_(True)
    f(x).sum().backward()
    return x.grad


def _complex_step(f, x):
    h = 1e-20
    return (f(torch.complex(x, torch.full_like(x, h))).imag / h).to(x.dtype)


def _hessian_by_differences(points, h=1e-4):
    g = vmap(grad(_f3))
    steps = torch.eye(3, dtype=points.dtype) * h
    return torch.stack([(g(points + e) - g(points - e)) / (2 * h) for e in steps], dim=2)


EXERCISES = [
    Exercise(
        "14.1",
        "The derivative at every point",
        derivative,
        cases=_derivative_cases,
        rules=[_DerivativeFromAutograd("f'"), _LeavesXAlone(), Holds(_requires_no_grad)],
        hints=[
            "Make a fresh leaf that requires grad: x = x.detach().requires_grad_(), then y = f(x).",
            "torch.autograd.grad needs a scalar: differentiate y.sum(). Because f acts element-wise, "
            "that gives f'(x[i]) at every position. It returns a tuple.",
        ],
        wrong=[
            lambda f, x: f(x),
            lambda f, x: (f(x + 1e-4) - f(x)) / 1e-4,
            lambda f, x: torch.autograd.grad(f(x2 := x.detach().requires_grad_()).sum(), x2, create_graph=True)[0],
            _complex_step,  # the right numbers, not from autograd
            _derivative_in_x_grad,  # the caller's x changed, and its .grad grows with each call
            lambda f, x: torch.autograd.grad(f(x.requires_grad_()).sum(), x)[0],  # the caller's x requires grad
        ],
    ),
    Exercise(
        "14.2",
        "The gradient of function 2 at many points",
        gradient_f2,
        cases=lambda: [(_points(10, 64),), (_points(1, 65),), (torch.tensor([[1.0, 3.0, 0.0]], dtype=torch.float64),)],
        hints=[
            "One row per point: compute f for every row, sum, and differentiate with respect to the whole "
            "(N, 3) tensor.",
            "Or by hand: ∂f/∂x = 2x + 4y, ∂f/∂y = 4y + 4x − 5z, ∂f/∂z = 6z − 5y. The check compares with "
            "autograd's answer.",
        ],
        wrong=[
            lambda p: torch.stack(
                [2 * p[:, 0] + 4 * p[:, 1], 4 * p[:, 1] + 4 * p[:, 0] + 5 * p[:, 2], 6 * p[:, 2] - 5 * p[:, 1]], 1
            ),
            _gradient_of_mean,
        ],
    ),
    Exercise(
        "14.3",
        "Newton's method with autograd",
        newton,
        cases=_newton_cases,
        rules=[_DerivativeFromAutograd(), Holds(_requires_no_grad)],
        hints=[
            "Each step: x = x.detach().requires_grad_(); gx = g(x); the derivative is "
            "torch.autograd.grad(gx.sum(), x)[0]; then x = x − gx / derivative.",
            "Do exactly `steps` steps, and return a tensor that does not require grad (detach it, or do the "
            "update under torch.no_grad()).",
        ],
        wrong=[
            lambda g, x0, steps: newton(g, x0, 1),
            lambda g, x0, steps: x0 - g(x0),
            lambda g, x0, steps: newton(g, x0, steps).requires_grad_(),
            lambda g, x0, steps: newton(g, x0, steps + 1),  # one step too many
            _newton_until_converged,  # ignores steps
        ],
    ),
    Exercise(
        "14.4",
        "A quadratic penalty",
        penalised_f2,
        cases=_penalty_cases,
        hints=[
            "Write the constraints as c(v) ≤ 0: 1 − x, 3 − y, y − 7, z, 3 − x − y − z, x² + z² − 10 "
            "(stack them as columns).",
            "Only violations count: torch.relu(c) is 0 where a constraint holds. Square it, sum over the six "
            "constraints, multiply by mu, add f.",
        ],
        wrong=[
            # squares every constraint, satisfied ones too
            lambda p, mu: penalised_f2(p, 0.0) + mu * (_constraints(p) ** 2).sum(1),
            # violations not squared
            lambda p, mu: penalised_f2(p, 0.0) + mu * torch.relu(_constraints(p)).sum(1),
            # forgets the last constraint, x² + z² <= 10
            lambda p, mu: penalised_f2(p, 0.0) + mu * (torch.relu(_constraints(p)[:, :5]) ** 2).sum(1),
        ],
    ),
    Exercise(
        "14.5",
        "One Hessian per point",
        hessians_f3,
        cases=lambda: [(_points(6, 74),), (_points(1, 75),)],
        # float64 inputs: autograd and a Hessian worked out exactly agree to ~1e-15; a finite difference does not
        rtol=1e-12,
        atol=1e-12,
        hints=[
            "torch.func.hessian(f) is a function returning the 3×3 Hessian of f at one point v of shape (3,).",
            "vmap runs it over the rows: vmap(hessian(f))(points) has shape (N, 3, 3). Write f for one "
            "point: sin x + x² − 2 cos y + y² + z².",
        ],
        wrong=[
            lambda p: torch.autograd.functional.hessian(lambda q: _f3(q).sum(), p),
            lambda p: vmap(torch.func.jacrev(_f3))(p),
            lambda p: torch.diag_embed(
                torch.stack([2 + torch.sin(p[:, 0]), 2 * torch.cos(p[:, 1]) + 2, 2 + 0 * p[:, 2]], 1)
            ),
            _hessian_by_differences,  # close (about 1e-9), not exact
        ],
    ),
    Exercise(
        "14.6",
        "Gradient descent with torch.func",
        gradient_descent,
        cases=_descent_cases,
        hints=[
            "torch.func.grad(f) is a function: call it at x to get the gradient there (no requires_grad needed).",
            "Take `steps` steps of x = x − lr · grad(f)(x), each making a new tensor: x0 belongs to the caller "
            "and must not change.",
        ],
        wrong=[
            lambda f, x0, lr, steps: gradient_descent(lambda v: -f(v), x0, lr, steps),
            _descent_in_place,
            lambda f, x0, lr, steps: x0 - steps * lr * grad(f)(x0),
        ],
        rules=[Holds(_requires_no_grad)],
    ),
    Exercise(
        "14.7",
        "Jacobians of the polar map (stretch)",
        polar_jacobians,
        cases=_polar_cases,
        hints=[
            "Write to_xy for one point p = (r, θ): it returns torch.stack([r cos θ, r sin θ]).",
            "torch.func.jacrev(to_xy) gives its 2×2 Jacobian at one point; vmap it over the rows, "
            "shape (N, 2, 2): rows are (x, y), columns (r, θ).",
        ],
        wrong=[
            lambda rt: polar_jacobians(rt).transpose(1, 2),
            lambda rt: torch.stack(
                [
                    torch.stack([torch.cos(rt[:, 1]), -torch.sin(rt[:, 1])], 1),
                    torch.stack([torch.sin(rt[:, 1]), torch.cos(rt[:, 1])], 1),
                ],
                1,
            ),
            lambda rt: rt[:, 0],
        ],
    ),
]
