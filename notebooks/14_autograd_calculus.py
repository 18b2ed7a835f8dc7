# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown] tags=["course-nav"]
# *Module 14 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/14_autograd_calculus.ipynb) · previous: [13 · Case study: genetic-algorithm fitness](13_case_study_ga.ipynb) · next: [15 · Distributed tensors](15_distributed_tensors.ipynb)

# %% tags=["course-setup"] jupyter={"source_hidden": true}
# Course setup. On your own machine this cell installs nothing. On Google Colab it fetches
# the course and installs its helper package, torchcourse, once per session.
# Colab runtime: CPU is enough for this module.
import sys

course_ready = True
if "google.colab" in sys.modules:
    import os
    import shutil
    import subprocess

    home = os.environ.get("TORCHCOURSE_HOME", "/content/pytorch-course")
    repo = os.environ.get("TORCHCOURSE_REPO", "")
    if not os.path.isdir(home):
        if not repo:
            course_ready = False
            print(
                "Missing: the course's git address. Run os.environ['TORCHCOURSE_REPO'] = "
                "'<the course git URL>' in a cell, then this cell again."
            )
        else:
            git = ["git", "clone", "--quiet", "--depth", "1", repo, home]
            pip = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "-e", home]
            for step in (git, pip):
                done = subprocess.run(step, capture_output=True, text=True)
                if done.returncode:
                    course_ready = False
                    shutil.rmtree(home, ignore_errors=True)
                    why = (done.stderr.strip().splitlines() or ["no message"])[-1]
                    print(f"Missing: the course, not fetched from {repo} ({step[0]}: {why}). Run this cell again.")
                    break
    if course_ready:
        sys.path.insert(0, home)
        print("Colab: the course is in", home)
else:
    print("Local run: nothing to install.")
if course_ready:
    # A note on stderr when this torch is not 2.13.0 (the one the stored outputs were made with),
    # saying whether it is supported; an error naming what is missing when it is too old.
    from torchcourse.preflight import check_torch

    _ = check_torch()

# %% [markdown] tags=["outputs-stamp"]
# *Outputs made with torch 2.13.0+cpu on AMD EPYC (2 cores, CPU only), 2026-11-28.*

# %% [markdown]
# # 14 · Autograd as a calculus engine
#
# Automatic differentiation is how networks train, but it is not about networks: it gives
# the exact derivative of any function you write with differentiable tensor operations (exact
# up to floating-point rounding), for a cost of a few evaluations of the function; where your
# function has a kink or a branch, it returns a value by convention, which you meet below. That makes PyTorch a calculus engine. In this notebook you
# check autograd against derivatives worked out by hand, solve equations with Newton's
# method, minimise the constrained quadratic of the genetic-algorithm case study (module 13)
# with gradients instead of a population, and use `torch.func` to take derivatives of a
# whole batch of points at once.
#
# **Objectives.** After this notebook you can:
# 1. get first derivatives and gradients of plain functions with `torch.autograd.grad` and
#    check them against hand derivatives;
# 2. write a vectorised Newton iteration whose derivative comes from autograd;
# 3. minimise a constrained function with a quadratic penalty of increasing weight, and
#    compare the answer with a genetic algorithm's;
# 4. use `torch.func` (`grad`, `vmap`, `jacrev`, `hessian`), `no_grad` and
#    `inference_mode`, and compile a gradient step.
#
# **Prerequisites.** 05 (vectorisation), 09 (`torch.compile`), 13 (the GA case study; this
# notebook recomputes what it needs from it). Calculus: derivatives, the gradient, Newton's
# method for one equation.
#
# **Time.** 35 min teaching, 35 min exercises.

# %%
import math
import os
import tempfile

# An empty inductor cache, set before anything compiles: the one compile below is a cold one.
cache_dir = tempfile.mkdtemp(prefix="inductor-14-")  # deleted by the last cell
os.environ["TORCHINDUCTOR_CACHE_DIR"] = cache_dir

import matplotlib.pyplot as plt
import torch
from torch.func import grad, hessian, jacrev, vmap
from torch.utils._python_dispatch import TorchDispatchMode

from torchcourse import claim, predict, reveal, time_once
from torchcourse.bench.workloads import ga
from torchcourse.compiletools import captured_logs, needs_compiler, reset
from torchcourse.timing import interleaved

torch.set_default_dtype(torch.float64)  # calculus in double precision: errors of 1e-15, not 1e-7

# %% [markdown]
# The last line makes float64 the default for new floating tensors in this notebook, so
# checks against hand derivatives can be tight.
#
# ## The derivative of a plain function
#
# Mark the input with `requires_grad=True`, compute, and ask `torch.autograd.grad` for the
# derivative of the output with respect to the input. Here `f(x) = sin(x)·e^(−x/4)` (module
# 00's damped wave), whose derivative by hand is `f'(x) = (cos x − sin(x)/4)·e^(−x/4)`:

# %%
x = torch.linspace(0, 4 * math.pi, 200, requires_grad=True)
f = torch.sin(x) * torch.exp(-x / 4)
(df,) = torch.autograd.grad(f.sum(), x)

by_hand = (torch.cos(x) - torch.sin(x) / 4) * torch.exp(-x / 4)
print("autograd == hand derivative:", torch.allclose(df, by_hand.detach(), rtol=1e-12, atol=1e-15))
print("f'(0) =", round(df[0].item(), 12), "(by hand: cos 0 − sin(0)/4 = 1)")
claim(
    torch.allclose(df, by_hand.detach(), rtol=1e-12, atol=1e-15),
    "autograd's derivative equals the hand derivative to 1e-12",
)

# %% [markdown]
# No hand derivative at all? Compare with a **central finite difference**,
# `(f(x + h) − f(x − h)) / 2h`, which needs only `f`. It is not exact: its truncation error
# grows like `h²` and its rounding error like `ε/h` (ε ≈ 2.2e-16 in float64), so with
# `h = 1e-6` expect agreement to about 1e-10, not to the last digit:

# %%
h = 1e-6
xd = x.detach()
finite_diff = (torch.sin(xd + h) * torch.exp(-(xd + h) / 4) - torch.sin(xd - h) * torch.exp(-(xd - h) / 4)) / (2 * h)
gap = (df - finite_diff).abs().max().item()
print(f"largest |autograd − finite difference| over the grid: {gap:.0e}")
claim(gap < 1e-8, "autograd's derivative matches a central finite difference to within 1e-8")

# %% [markdown]
# Why `f.sum()`? `autograd.grad` differentiates a **scalar**. Each `f[i]` depends only on
# `x[i]`, so the gradient of the sum with respect to `x` is exactly the vector of the 200
# derivatives `f'(x[i])`: one backward pass for the whole grid. (For functions that mix
# elements, the gradient of the sum is something else; `vmap` below handles that case.)
#
# The plot shows `f`, its derivative, and where `f'` crosses zero: the peaks of `f`.

# %%
fig, ax = plt.subplots(figsize=(7, 2.8))
xs = x.detach()
ax.plot(xs, f.detach(), label="f(x) = sin(x)·exp(−x/4)")
ax.plot(xs, df, label="f'(x) from autograd")
ax.plot(xs[::8], by_hand.detach()[::8], "k.", markersize=4, label="f'(x) by hand (every 8th point)")
ax.axhline(0, color="grey", lw=0.5)
ax.set(xlabel="x", title="autograd gives the derivative at every point of the grid")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# ### Where there is no derivative
#
# `|x|` has no derivative at 0: its slope is −1 on the left and +1 on the right. Autograd does
# not refuse and does not warn: each operation's backward formula returns *some* number there.
#
# **Predict 14.p1.** What does autograd return as the derivative of `x.abs()` at `x = 0`? Write a
# number.

# %%
predict("14.p1", None)  # replace None with your prediction

# %%
x0 = torch.tensor(0.0, requires_grad=True)
(d_abs,) = torch.autograd.grad(x0.abs(), x0)
(d_relu,) = torch.autograd.grad(torch.relu(x0), x0)
print(f"d|x|/dx at 0: {d_abs.item()}, d relu(x)/dx at 0: {d_relu.item()}")
reveal(
    "14.p1",
    d_abs.item(),
    why="abs's backward is grad * sign(x), and sign(0) = 0: a valid subgradient, chosen by convention. "
    "relu's is 0 at 0 too. A finite difference across the kink would give 0 as well, but a one-sided one ±1.",
)

# %% [markdown]
# A branch is worse. `torch.where(x > 0, torch.sqrt(x), 0.0)` is 0 for negative `x`, a flat
# line, so you expect a derivative of 0 there. But `where` computes *both* branches at every
# point and its backward sends each branch a gradient, zero where that branch was not taken.
# At `x = −1`, `sqrt(−1)` is NaN and its own derivative is NaN.
#
# **Predict 14.p2.** Is the gradient of `torch.where(x > 0, torch.sqrt(x), 0.0).sum()` at
# `x = −1` a finite number? `True` or `False`.

# %%
predict("14.p2", None)  # replace None with your prediction

# %%
xs_branch = torch.tensor([-1.0, 4.0], requires_grad=True)
(g_where,) = torch.autograd.grad(torch.where(xs_branch > 0, torch.sqrt(xs_branch), 0.0).sum(), xs_branch)
safe = torch.where(xs_branch > 0, xs_branch, 1.0)  # feed the unused branch a harmless value
(g_safe,) = torch.autograd.grad(torch.where(xs_branch > 0, torch.sqrt(safe), 0.0).sum(), xs_branch)
print("gradient at x = -1, 4 with where(x > 0, sqrt(x), 0):", g_where.tolist())
print("the same with sqrt of a masked input:               ", g_safe.tolist())
reveal(
    "14.p2",
    bool(torch.isfinite(g_where[0])),
    why="the unused branch gets a zero gradient, and 0 times sqrt's NaN derivative is NaN. Mask the input "
    "of the dangerous operation (the 'double where'), not only its output.",
)

# %% [markdown]
# A function of several variables gives a gradient. For the case study's
# `f(x, y, z) = x² + 2y² + 3z² + 4xy − 5yz` (`ga.f2`), the hand gradient is
# `(2x + 4y, 4y + 4x − 5z, 6z − 5y)`:

# %%
v = torch.tensor([1.0, 3.0, 0.0], requires_grad=True)
value = ga.f2(*v)
(g,) = torch.autograd.grad(value, v)
x0, y0, z0 = v.detach()
print("f(1, 3, 0) =", value.item())
print("autograd gradient:", g.tolist())
print("hand gradient:    ", [(2 * x0 + 4 * y0).item(), (4 * y0 + 4 * x0 - 5 * z0).item(), (6 * z0 - 5 * y0).item()])

# %% [markdown]
# ## Newton's method with autograd derivatives
#
# To solve `g(x) = 0`, Newton's method repeats `x ← x − g(x)/g'(x)`. With autograd you
# write only `g`; the derivative comes for free. First the cube root of 2, the root of
# `x³ − 2`, from `x = 1`. Once close, each step doubles the number of correct digits:


# %%
def newton(g, x, steps):
    """Newton's method for g(x) = 0, element-wise on a tensor of starting points.
    Returns every iterate (steps + 1 tensors), detached."""
    iterates = [x.detach()]
    for _ in range(steps):
        x = iterates[-1].clone().requires_grad_()
        gx = g(x)
        (dg,) = torch.autograd.grad(gx.sum(), x)
        with torch.no_grad():  # the update itself needs no graph
            iterates.append(x - gx / dg)
    return iterates


cube = newton(lambda x: x**3 - 2, torch.tensor(1.0), steps=6)
cube_errors = [abs(xk.item() - 2 ** (1 / 3)) for xk in cube]
for k, (xk, err) in enumerate(zip(cube, cube_errors)):
    print(f"step {k}: x = {xk.item():.16f}   error {err:.1e}")
claim(
    all(e1 <= 10 * e0**2 for e0, e1 in zip(cube_errors, cube_errors[1:])),
    "Newton converges quadratically: each error is at most 10 times the square of the one before",
)

# %% [markdown]
# The same function solves a whole batch of equations at once, because each element's
# equation involves only that element. **Kepler's equation** gives a planet's eccentric
# anomaly `E` from its mean anomaly `M` (time along the orbit): `E − e·sin E = M`. It has no
# closed-form solution. For a very eccentric orbit, `e = 0.9`, solve it for 400 values of
# `M` in one go, starting from `E = π`:

# %%
e = 0.9
M = torch.linspace(0, 2 * math.pi, 400)
kepler = newton(lambda E: E - e * torch.sin(E) - M, torch.full_like(M, math.pi), steps=8)
residuals = [(E - e * torch.sin(E) - M).abs().max().item() for E in kepler]
print("largest |E − e·sin E − M| after each step:", [f"{r:.0e}" for r in residuals])
E = kepler[-1]
quarter = newton(lambda E: E - e * torch.sin(E) - math.pi / 2, torch.tensor(math.pi), steps=8)[-1]
print(f"at M = π/2: E = {quarter.item():.10f}, check: E − e·sin E = {(quarter - e * torch.sin(quarter)).item():.10f}")

# %% [markdown]
# Left, the error of each iterate on a log scale: slow at first, then it plunges (the number
# of correct digits doubles per step once close, Newton's quadratic convergence; an error of
# exactly 0 is drawn at 1e-17). Right,
# the solution `E(M)`, with the straight line `E = M` of a circular orbit for comparison.

# %%
fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.3))
cube_err = [max(abs(xk.item() - 2 ** (1 / 3)), 1e-17) for xk in cube]
ax1.semilogy(cube_err, "o-", label="cube root of 2: |x − 2^(1/3)|")
ax1.semilogy([max(r, 1e-17) for r in residuals], "s-", label="Kepler, e = 0.9: max residual")
ax1.axhline(2.2e-16, color="grey", ls=":", lw=1, label="float64 epsilon")
ax1.set(xlabel="Newton step", ylabel="error", title="Newton's method converges quadratically")
ax1.legend(fontsize=8)
ax2.plot(M, E, label="E(M), e = 0.9")
ax2.plot(M, M, "--", color="grey", label="E = M (e = 0)")
ax2.set(xlabel="mean anomaly M", ylabel="eccentric anomaly E", title="Kepler's equation, 400 solves at once")
ax2.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## Constrained minimisation with gradients and penalties
#
# Module 13's GA minimised `f2` on `x ≥ 1, 3 < y ≤ 7, z < 0, x + y + z ≥ 3, x² + z² ≤ 10`
# with a population of 8,192 points. Gradients cannot see a constraint, so we turn each
# one into a term of the objective. Written as `c_i(v) ≤ 0`, the **quadratic penalty** adds
# `μ · Σ max(0, c_i(v))²`: zero where the constraints hold, growing with the violation
# outside. As the weight `μ` grows, the penalised minimum moves to the constrained one.


# %%
def constraints(v):
    """The constraints of function 2 as c(v) <= 0 (strict ones relaxed to <=)."""
    x, y, z = v.unbind(-1)
    return torch.stack([1 - x, 3 - y, y - 7, z, 3 - x - y - z, x**2 + z**2 - 10], dim=-1)


def penalised(v, mu):
    return ga.f2(*v.unbind(-1)) + mu * (torch.relu(constraints(v)) ** 2).sum(-1)


print("penalty at a feasible point:", (penalised(torch.tensor([2.0, 4.0, -1.0]), 100.0) - ga.f2(2.0, 4.0, -1.0)).item())
print("penalty at (0.5, 3, 0):     ", (penalised(torch.tensor([0.5, 3.0, 0.0]), 100.0) - ga.f2(0.5, 3.0, 0.0)).item())

# %% [markdown]
# Why not drop the constraints and minimise `f2` itself? Its Hessian (the matrix of second
# derivatives, here constant) has a negative eigenvalue, so `f2` has no minimum at all: it
# falls without bound along one direction. `torch.func.hessian` computes that matrix from
# the function:

# %%
H = hessian(lambda v: ga.f2(*v))(torch.zeros(3))
print(H)
print("eigenvalues:", [round(ev, 4) for ev in torch.linalg.eigvalsh(H).tolist()])

# %% [markdown]
# Newton's method in three dimensions, `v ← v − H⁻¹∇P(v)`, jumps to the stationary point of
# the local quadratic model (its minimum where the Hessian `H` is positive definite), both
# derivatives from `torch.func`. Try it from the feasible start
# `(3, 5, −2)` with `μ = 10`:


# %%
def newton_step(v, mu):
    return torch.linalg.solve(hessian(penalised)(v, mu), grad(penalised)(v, mu))


v = torch.tensor([3.0, 5.0, -2.0])
plain = [v]
for _ in range(24):
    plain.append(plain[-1] - newton_step(plain[-1], 10.0))
print("P after steps 1 to 24:", [round(penalised(p, 10.0).item()) for p in plain[1:]])
print("step 9 == step 16 == step 23:", torch.allclose(plain[9], plain[16]) and torch.allclose(plain[16], plain[23]))

# %% [markdown]
# It never settles: `P` jumps up and down and the iterates repeat with period 7. The penalty
# makes `P` *piecewise* smooth: each set of violated constraints gives its own formula
# (quadratic, or quartic where `x² + z² ≤ 10` is violated), and every time a constraint
# switches on or off, the Hessian jumps, so the minimum of one piece's model lies in another
# piece, whose model sends it on.
# The usual safeguard fixes it: **backtracking**, halving the step until `P` really
# decreases; and, for points where the Hessian is not positive definite, fall back to the
# gradient direction when the Newton direction `d` does not point downhill (`d·∇P ≤ 0`).
# For each weight `μ = 10, 100, ..., 10⁵` we minimise that way, starting each time from the
# previous answer (a *continuation*):


# %%
def minimise_penalised(v, mu, tol=1e-12, max_steps=100):
    for _ in range(max_steps):
        g = grad(penalised)(v, mu)
        d = torch.linalg.solve(hessian(penalised)(v, mu), g)
        if torch.dot(d, g) <= 0:  # not a descent direction: the Hessian is not positive definite here
            d = g
        t, p0 = 1.0, penalised(v, mu)
        while penalised(v - t * d, mu) > p0 - 1e-4 * t * torch.dot(d, g) and t > 1e-12:
            t /= 2
        v = v - t * d
        if (t * d).abs().max() < tol:
            break
    return v


v = torch.tensor([3.0, 5.0, -2.0])  # the same feasible start
path = [v]
for mu in [10.0, 100.0, 1e3, 1e4, 1e5]:
    v = minimise_penalised(v, mu)
    path.append(v)
    worst = torch.relu(constraints(v)).max().item()
    print(
        f"mu = {mu:8.0f}: (x, y, z) = ({v[0]:.5f}, {v[1]:.5f}, {v[2]:.5f})  f2 = {ga.f2(*v):.5f}"
        f"  largest violation {worst:.1e}"
    )
violations = [torch.relu(constraints(p)).max().item() for p in path[1:]]
claim(
    all(0 < b < a / 5 for a, b in zip(violations, violations[1:])) and all(ga.f2(*p) < 31 for p in path[1:]),
    "every penalised minimum is infeasible with f2 below 31, and its violation shrinks with each tenfold mu",
)

# %% [markdown]
# The answers approach the corner `(1, 3, 0)` and `f2 → 31`, but **from outside**: every
# penalised minimum violates the constraints a little (shrinking like `1/μ`: the printed
# violations fall tenfold with each tenfold `μ`), so its `f2` is
# slightly *below* 31. Now recompute the GA's answer (module 13's settings: 8,192
# individuals, 60 generations, seed 0; eager here, so nothing compiles):

# %%
result = ga.run_ga(ga.fitness2_torch, generations=60, seed=0, compile=False)
gx, gy, gz = result.best.tolist()
print(
    f"GA:      (x, y, z) = ({gx:.5f}, {gy:.5f}, {gz:.5f})  f2 = {result.best_cost:.5f}  feasible: "
    f"{bool(ga.feasible2(*result.best))}"
)
print(
    f"penalty: (x, y, z) = ({v[0]:.5f}, {v[1]:.5f}, {v[2]:.5f})  f2 = {ga.f2(*v):.5f}  feasible: "
    f"{bool(ga.feasible2(*v))}"
)
print("both within 0.05 of f2 = 31:", abs(result.best_cost - 31) < 0.05 and abs(ga.f2(*v).item() - 31) < 0.05)

# %% [markdown]
# The two methods bracket the answer: the GA's points are feasible (only feasible points
# have a finite cost), so it approaches 31 from above; the penalty method approaches from
# below, through infeasible points. Left, the path in the (x, y) plane (shaded: `x ≥ 1`
# and `y > 3`); right, how close each method gets, against the weight `μ` on log scales.

# %%
P = torch.stack(path)
mus = [10.0, 100.0, 1e3, 1e4, 1e5]
corner = torch.tensor([1.0, 3.0, 0.0])
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4))
ax.axvspan(1, 3.5, ymin=(3 - 2) / (5.5 - 2), color="tab:green", alpha=0.12, label="x ≥ 1, y > 3")
ax.plot(P[:, 0], P[:, 1], "o-", label="penalty path, μ = 10 … 10⁵")
for (px, py), mu in zip(P[1:3, :2].tolist(), ["μ=10", "μ=100"]):
    ax.annotate(mu, (px, py), textcoords="offset points", xytext=(6, -10), fontsize=8)
ax.plot([P[0, 0]], [P[0, 1]], "ks", label="start (3, 5, −2)")
ax.plot([gx], [gy], "r*", markersize=12, label=f"GA best, f2 = {result.best_cost:.3f}")
ax.set(xlim=(0, 3.5), ylim=(2, 5.5), xlabel="x", ylabel="y", title="Penalty path in the (x, y) plane")
ax.legend(fontsize=8, loc="upper left")
ax2.loglog(mus, [(p - corner).norm().item() for p in P[1:]], "o-", label="penalty: distance to (1, 3, 0)")
ax2.loglog(mus, [31 - ga.f2(*p).item() for p in P[1:]], "s-", label="penalty: 31 − f2 (from below)")
ax2.axhline((result.best - corner).norm().item(), color="tab:red", ls="--", lw=1, label="GA: distance to (1, 3, 0)")
ax2.axhline(result.best_cost - 31, color="tab:red", ls=":", lw=1, label="GA: f2 − 31 (from above)")
ax2.set(xlabel="penalty weight μ", ylabel="gap", title="Both approach the corner; the penalty like 1/μ")
ax2.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# ## `torch.func`: derivatives as functions
#
# `torch.autograd.grad` works on tensors that remember how they were computed.
# `torch.func` works on *functions*: `grad(f)` is a new function that returns the gradient of
# `f`, and it composes with `vmap` (run a function on every row of a batch), `jacrev`
# (Jacobian) and `hessian`. Gradients of `f3` (module 13's function 3) at five points, one
# `vmap`, checked against the hand gradient `(cos x + 2x, 2 sin y + 2y, 2z)`:


# %%
def f3(v):
    return ga.f3(*v.unbind(-1))


points = ga.random_points(5, ga.BOX3, seed=4)
G = vmap(grad(f3))(points)
x, y, z = points.unbind(1)
hand = torch.stack([torch.cos(x) + 2 * x, 2 * torch.sin(y) + 2 * y, 2 * z], dim=1)
print("vmap(grad(f3)) shape:", tuple(G.shape), "| == hand gradient:", torch.allclose(G, hand, rtol=1e-12))

# %% [markdown]
# `vmap` runs your function once, on the whole batch at the same time, not once per row. So a
# Python `if` on a value of the row cannot work: each row may want a different branch.
#
# **Predict 14.p3.** `grad` of a function with `if v.sum() > 0:` runs fine on one point. Under
# `vmap`, on a batch of five points, does it `"run"` or `"raise"`?


# %%
def f3_or_cos(v):
    if v.sum() > 0:  # a Python branch on a value of the input
        return f3(v)
    return torch.cos(v).sum()


predict("14.p3", None)  # replace None with your prediction

# %%
print("grad on one point:", grad(f3_or_cos)(points[0]).shape)
try:
    vmap(grad(f3_or_cos))(points)
    outcome = "run"
except RuntimeError as error:
    outcome = "raise"
    print("vmap:", str(error).split(". ")[0].removeprefix("vmap: "))
reveal(
    "14.p3",
    outcome,
    choices=("run", "raise"),
    why="inside vmap, v is a batch of five rows seen as one row, and `bool()` of it has no single "
    "answer: vmap raises. Write the branch as torch.where, computing both sides (mind the NaN above).",
)

# %% [markdown]
# `jacrev` gives the Jacobian of a vector-valued function: here the six constraints of
# function 2 at the corner `(1, 3, 0)`, one row per constraint, one column per variable.
# The rows of the active constraints (`1 − x`, `3 − y`, `z`) are the directions the
# penalty pushes along:

# %%
J = jacrev(constraints)(torch.tensor([1.0, 3.0, 0.0]))
print(J)

# %% [markdown]
# And `vmap(hessian(...))` gives one 3×3 Hessian per point, shape `(5, 3, 3)`; for `f3`
# the matrix is diagonal, `diag(2 − sin x, 2 cos y + 2, 2)`:

# %%
Hs = vmap(hessian(f3))(points)
print(
    "shape:",
    tuple(Hs.shape),
    "| == hand Hessians:",
    torch.allclose(Hs, torch.diag_embed(torch.stack([2 - torch.sin(x), 2 * torch.cos(y) + 2, 2 + 0 * z], 1))),
)

# %% [markdown]
# ## When you do not want a graph: `no_grad` and `inference_mode`
#
# Autograd records every operation on a tensor that requires grad, to be able to go back
# through it. For updates and evaluations you do not differentiate, switch it off:
# `torch.no_grad()` stops recording; `torch.inference_mode()` also skips the bookkeeping
# autograd relies on to check saved tensors later (version counters, view tracking), so each
# operation does a little less work. The price: its outputs, *inference tensors*, cannot be
# saved for a backward pass nor changed in place outside `inference_mode` (see *Common
# mistakes*); an operation that only reads them, such as `w + y_inf`, can still be recorded.

# %%
w = torch.tensor([1.0, 2.0], requires_grad=True)
y_rec = w * 2
with torch.no_grad():
    y_nog = w * 2
with torch.inference_mode():
    y_inf = w * 2
for name, t in [("recorded", y_rec), ("no_grad", y_nog), ("inference_mode", y_inf)]:
    print(
        f"{name:15s} requires_grad={t.requires_grad!s:5s} grad_fn={type(t.grad_fn).__name__:12s} "
        f"is_inference={t.is_inference()}"
    )
(gw,) = torch.autograd.grad((w + y_inf).sum(), w)
print("w + y_inf is recorded; its gradient with respect to w:", gw.tolist())

# %% [markdown]
# ## Compiling a gradient step (optional)
#
# A gradient is made of ordinary tensor operations, so `torch.compile` can fuse it like any
# other code: here one gradient-descent step on the penalised function for a batch of
# 100,000 starting points. `grad` differentiates the *sum* of the penalties, which is the
# per-point gradient again because the points are independent.
#
# First count what the eager step runs. A `TorchDispatchMode` sees every ATen operation that
# reaches PyTorch's kernels, forward and backward; this one counts them and the bytes of the new
# (non-view) tensors they return:


# %%
def descent_step(V, mu, lr):
    return V - lr * grad(lambda V: penalised(V, mu).sum())(V)


class CountOps(TorchDispatchMode):
    """Counts the ATen operations run inside the with-block, and the bytes of the new tensors they return."""

    def __init__(self):
        super().__init__()
        self.ops, self.new_bytes = 0, 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.ops += 1
        for t in out if isinstance(out, (tuple, list)) else [out]:
            if isinstance(t, torch.Tensor) and t._base is None:  # a view shares its base's memory
                self.new_bytes += t.nbytes
        return out


V0 = ga.random_points(100_000, ga.BOX2, seed=5)  # (100000, 3) float64: 2.4 MB
with CountOps() as eager_count:
    out_eager = descent_step(V0, 10.0, 1e-3)

# %% tags=["version-specific"]
print(f"eager: {eager_count.ops} ATen operations, {eager_count.new_bytes / 1e6:.0f} MB of new tensors")

# %% [markdown]
# Now compile it, on one thread: set the thread count *before* compiling. Inductor writes the
# count in force into its C++ kernels (module 11), and Dynamo guards on it, so a later change
# would compile the step a second time, inside the timed runs. The first call traces and
# compiles; the notebook started with an empty inductor cache, so it is a **cold** compile, and
# the first in this process, so it also loads inductor (seconds). Inductor's `output_code` log
# (module 09) shows the kernels the compiled step calls:

# %%
threads = torch.get_num_threads()
torch.set_num_threads(1)
reset()  # forget earlier compiles, so that a re-run of this cell compiles (and logs) again
compiled_step = torch.compile(descent_step)
with captured_logs(output_code=True) as logs:
    out_compiled, first_call = time_once(lambda: compiled_step(V0, 10.0, 1e-3))
print("compiled == eager:", torch.allclose(out_compiled, out_eager, rtol=1e-12, atol=1e-12))
kernels = logs.require(r"^\s*cpp_fused_\w+\(", "the kernel calls in the generated code")
# by construction: inductor fuses the elementwise forward and backward into a few kernels
claim(
    10 * len(kernels) < eager_count.ops,
    "the compiled step calls over 10x fewer kernels than the eager step runs operations",
    f"{len(kernels)} kernels, {eager_count.ops} eager operations",
)

# %% [markdown]
# **Predict 14.p4.** One thread, the two steps taking turns: how many times faster is the
# compiled step than the eager one on your machine? Write a number; within a factor of 2 counts.

# %%
predict("14.p4", None)  # replace None with your prediction

# %%
# NBVAL_IGNORE_OUTPUT
needs_compiler("timing the fused kernels against the eager step")
print(f"compiled: {len(kernels)} kernel(s); first call {first_call:.1f} s (cold compile, inductor loaded)")
t_eager, t_compiled = interleaved(
    [lambda: descent_step(V0, 10.0, 1e-3), lambda: compiled_step(V0, 10.0, 1e-3)], threads=1
)
print(f"one thread, taking turns, best of 7: eager {t_eager * 1e3:.2f} ms, compiled {t_compiled * 1e3:.2f} ms")
print(f"ratio: {t_eager / t_compiled:.1f}x")
reveal(
    "14.p4",
    t_eager / t_compiled,
    within=2.0,
    why="the eager step makes dozens of passes over 0.8 MB+ tensors, each read and written through memory; "
    "the compiled one reads V once in one fused kernel. The ratio depends on your CPU's memory speed.",
)
torch.set_num_threads(threads)

# %% [markdown]
# The output above gives the speed-up on your machine. Most of the eager step's operations read
# their inputs from memory and write a new tensor of 100,000 numbers or more (the MB of new
# tensors printed above); the compiled step reads `V` once and computes everything inside its
# kernel, writing only a few buffers. The two take turns on one thread, so a busy moment on the
# machine slows both alike:

# %%
# Dozens of passes over 0.8 MB+ tensors against one fused kernel: about 4x on an AMD EPYC at one
# thread (more with the other core busy), 7.6x on an Intel Xeon at two: 2x holds on any CPU.
needs_compiler("the claim about the fused kernels' speed")
claim(
    t_eager > 2 * t_compiled,
    "the compiled gradient step is more than 2x faster than eager (one thread, taking turns)",
    evidence=f"eager {t_eager * 1e3:.2f} ms, compiled {t_compiled * 1e3:.2f} ms (best of 7 each)",
)

# %% [markdown]
# Compiling pays when the step runs many times, as in an optimisation loop.

# %% [markdown]
# ## Common mistakes
#
# **`backward` or `grad` of a non-scalar.** Autograd needs a scalar to start from; sum
# first (or pass `grad_outputs`):

# %% tags=["raises-exception"]
x = torch.linspace(0, 1, 5, requires_grad=True)
torch.autograd.grad(x**2, x)

# %% [markdown]
# **Changing a leaf in place.** A Newton or descent update written `x -= step` on a tensor
# that requires grad is refused; update inside `torch.no_grad()` or build a new tensor:

# %% tags=["raises-exception"]
x -= 0.1 * x

# %% [markdown]
# **Going back through the same graph twice.** The graph is freed after the first pass;
# recompute the function (as `newton` above does each step) or pass `retain_graph=True`:

# %% tags=["raises-exception"]
y = (x**3).sum()
torch.autograd.grad(y, x)
torch.autograd.grad(y, x)

# %% [markdown]
# **Inference tensors in a graph.** An output of `inference_mode` cannot be saved for a
# backward pass; use `no_grad` for values you may differentiate later:

# %% tags=["raises-exception"]
with torch.inference_mode():
    scale = torch.tensor(2.0) * 3
(x * x * scale).sum().backward()

# %% [markdown]
# ## Key points
#
# * `torch.autograd.grad(f(x).sum(), x)` gives every element's derivative when `f` acts
#   element-wise; check it against a hand derivative once, then trust it.
# * Newton's method needs only `g`: autograd supplies `g'`, and one call solves a whole batch
#   of independent equations.
# * A quadratic penalty turns constraints into an objective; increasing `μ` walks to the
#   constrained minimum from outside, while the GA approaches it from inside.
# * `torch.func` turns derivatives into functions: `vmap(grad(f))` for batched gradients,
#   `jacrev`, `hessian`. Use `no_grad`/`inference_mode` for work you do not differentiate,
#   and compile gradient steps that run many times.
# * Check a derivative once: against a hand derivative, or against a central finite
#   difference, which agrees only approximately (about 1e-10 with `h = 1e-6` in float64).

# %% [markdown]
# ## Further reading
#
# * [Autograd mechanics](https://pytorch.org/docs/stable/notes/autograd.html): how autograd
#   records the graph, saved tensors, in-place operations, and `no_grad` versus
#   `inference_mode`.
# * [torch.func Whirlwind Tour](https://docs.pytorch.org/docs/stable/func.whirlwind_tour.html)
#   and the [torch.func API reference](https://docs.pytorch.org/docs/2.13/func.api.html):
#   `grad`, `vmap`, `jacrev`, `jacfwd`, `hessian` and how they compose.
# * [`torch.compile`](https://docs.pytorch.org/docs/stable/generated/torch.compile.html), used
#   here on a gradient step.

# %% [markdown]
# The last cell deletes this notebook's private inductor cache.

# %%
import shutil

shutil.rmtree(cache_dir, ignore_errors=True)
print("private cache removed:", not os.path.exists(cache_dir))

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 14 statements of this lesson are tested facts; all pass on torch 2.13.0. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“The last line makes float64 the default for new floating tensors in this notebook”</td><td>✓</td></tr>
# <tr><td>“Each <code>f[i]</code> depends only on <code>x[i]</code>, so the gradient of the sum with respect to <code>x</code> is exactly the vector of the 200 derivatives <code>f&#x27;(x[i])</code>”</td><td>✓</td></tr>
# <tr><td>“Autograd needs a scalar to start from; sum first (or pass <code>grad_outputs</code>)”</td><td>✓</td></tr>
# <tr><td>“A Newton or descent update written <code>x -= step</code> on a tensor that requires grad is refused; update inside <code>torch.no_grad()</code> or build a new tensor”</td><td>✓</td></tr>
# <tr><td>“The graph is freed after the first pass; recompute the function (as <code>newton</code> above does each step) or pass <code>retain_graph=True</code>”</td><td>✓</td></tr>
# <tr><td>“<code>torch.no_grad()</code> stops recording”</td><td>✓</td></tr>
# <tr><td>“<code>torch.inference_mode()</code> also skips the bookkeeping autograd relies on to check saved tensors later (version counters, view tracking)”</td><td>✓</td></tr>
# <tr><td>“its outputs, inference tensors, cannot be saved for a backward pass nor changed in place outside <code>inference_mode</code> (see Common mistakes); an operation that only reads them, such as <code>w + y_inf</code>, can still be recorded.”</td><td>✓</td></tr>
# <tr><td>“<code>grad(f)</code> is a new function that returns the gradient of <code>f</code>, and it composes with <code>vmap</code>”</td><td>✓</td></tr>
# <tr><td>“A <code>TorchDispatchMode</code> sees every ATen operation that reaches PyTorch&#x27;s kernels, forward and backward”</td><td>✓</td></tr>
# <tr><td>“Inductor writes the count in force into its C++ kernels (module 11), and Dynamo guards on it, so a later change would compile the step a second time”</td><td>✓</td></tr>
# <tr><td>“Autograd does not refuse and does not warn: each operation&#x27;s backward formula returns some number there.”</td><td>✓</td></tr>
# <tr><td>“the unused branch gets a zero gradient, and 0 times sqrt&#x27;s NaN derivative is NaN”</td><td>✓</td></tr>
# <tr><td>“So a Python <code>if</code> on a value of the row cannot work: each row may want a different branch.”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/14_autograd_calculus.ipynb](../exercises/14_autograd_calculus.ipynb) ·
# **Previous:** [13 · Case study: genetic-algorithm fitness](13_case_study_ga.ipynb) ·
# **Next:** [15 · Distributed tensors](15_distributed_tensors.ipynb)
