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
# *Module 08 of 00–17 · lesson* · [all modules](../README.md#modules) · [exercises](../exercises/08_modules_and_buffers.ipynb) · previous: [07 · GPU offload](07_gpu_offload.ipynb) · next: [09 · torch.compile: fusion and overhead](09_compile_fusion.ipynb)

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
# *Outputs made with torch 2.13.0+cpu on AMD EPYC (2 cores, CPU only), 2026-11-27.*

# %% [markdown]
# # 08 · nn.Module as a container for computation
#
# `torch.nn.Module` is best known as the base class of neural networks, but it is useful
# for any computation that carries tensors with it: a projection matrix, a table of
# constants, running statistics. A module knows which of its tensors to move when you call
# `.to(device)`, which to cast with `.double()`, which to save with `state_dict()` and
# which to train. It only knows what you tell it, though: a tensor stored the wrong way
# stays behind on the CPU, is missing from a checkpoint, or breaks loading one. This module
# builds a projection onto the column space of a matrix as a module, and walks through
# every one of those traps.
#
# **Objectives.** After this notebook you can:
# 1. tell parameters, buffers and plain tensor attributes apart, and predict what `.to()`,
#    `.double()` and `state_dict()` do with each;
# 2. register buffers with `nn.Buffer` or `register_buffer`, persistent or not;
# 3. build a module that computes an expensive tensor lazily on first call, without the
#    lazy-initialisation pitfalls;
# 4. run a module for results: `eval()` for how its layers behave (what it switches in
#    `Dropout` and `BatchNorm`, module by module), `torch.inference_mode` or `torch.no_grad`
#    for autograd, and tell the two apart; save and load its state, and move it across
#    devices.
#
# **Prerequisites.** Modules 06 (`pinv`, projections) and 07 (devices, the `meta` device).
# No neural-network knowledge needed.
#
# **Time.** 45 min teaching, 40 min exercises.

# %% [markdown]
# ## Three ways to hold a tensor in a module
#
# A module can hold a tensor as:
#
# | kind | how | trained (`parameters()`) | moved/cast by `.to()` | saved by `state_dict()` |
# |---|---|---|---|---|
# | parameter | `nn.Parameter(t)` | yes | yes | yes |
# | buffer | `nn.Buffer(t)` or `register_buffer(name, t)` | no | yes | yes |
# | non-persistent buffer | `nn.Buffer(t, persistent=False)` | no | yes | no |
# | plain attribute | `self.x = t` | no | **no** | **no** |
#
# A module that holds one of each:

# %%
import torch
from torch import nn

from torchcourse import claim, predict, reveal


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(2))  # trained
        self.offset = nn.Buffer(torch.zeros(2))  # state, not trained
        self.cache = nn.Buffer(torch.zeros(2), persistent=False)  # moved, not saved
        self.plain = torch.zeros(2)  # invisible to the module

    def forward(self, x):
        return x * self.weight + self.offset


h = Holder()
print("parameters:", [name for name, _ in h.named_parameters()])
print("buffers:   ", [name for name, _ in h.named_buffers()])
print("state_dict:", list(h.state_dict()))
# by construction: what the module registered
claim(
    "cache" in dict(h.named_buffers()) and "cache" not in h.state_dict() and "plain" not in h.state_dict(),
    "the non-persistent buffer is a buffer but is not saved; the plain attribute is neither",
)

# %% [markdown]
# `plain` appears nowhere: the module does not know it holds it. `nn.Buffer` (new in
# PyTorch 2.5) is the assignment form of the older `self.register_buffer("offset",
# torch.zeros(2))`; both do the same thing, and you will meet both.

# %% [markdown]
# ## What `.to()` moves
#
# `.double()`, `.half()`, `.to(dtype)` and `.to(device)` visit every parameter and buffer,
# recursively through sub-modules, convert each one, and return the module itself (a
# tensor's `.to()` returns a new tensor and leaves the old one alone). Plain attributes are
# skipped. Watch the dtypes after `.double()`, and the devices after `.to("meta")` (the
# stand-in for a GPU from module 07):


# %%
def where(module):
    for name in ("weight", "offset", "cache", "plain"):
        t = getattr(module, name)
        print(f"  {name:<7} {str(t.dtype):<14} {t.device}")


h = Holder()
print("after .double():")
returned = h.double()
where(h)
print("returned itself:", returned is h)
print("after .to('meta'):")
where(h.to("meta"))
# by construction: Module._apply visits parameters and buffers only
claim(
    h.offset.device.type == h.cache.device.type == "meta" and h.plain.device.type == "cpu",
    "both buffers moved with .to(), the plain attribute stayed behind",
)

# %% [markdown]
# **Predict 08.p1.** You take `weight_before = h.weight` and `offset_before = h.offset` (a parameter and
# a buffer), then call `h.double()`. Which of the two references still names the module's tensor?
# Write `"both"`, `"weight"`, `"offset"` or `"neither"`.

# %%
predict("08.p1", None)  # replace None with your prediction

# %%
h = Holder()
weight_before, offset_before = h.weight, h.offset
h.double()
print("weight: same object:", h.weight is weight_before, "| the old reference is now", weight_before.dtype)
print("offset: same object:", h.offset is offset_before, "| the old reference is still", offset_before.dtype)
kept = {(True, True): "both", (True, False): "weight", (False, True): "offset", (False, False): "neither"}
reveal(
    "08.p1",
    kept[(h.weight is weight_before, h.offset is offset_before)],
    choices=("both", "weight", "offset", "neither"),
    why="a parameter keeps its object and gets the converted tensor as its data; a buffer is replaced by a new tensor.",
)
# by construction: Module._apply (param.data = new for a parameter, a new tensor for a buffer)
claim(
    h.weight is weight_before and h.offset is not offset_before and offset_before.dtype == torch.float32,
    ".double() kept the parameter object but replaced the buffer; the old buffer reference is stale",
)

# %% [markdown]
# The module changes, but its tensors are not converted in place: each conversion makes a
# **new** tensor, in new memory, and what the module does with it depends on the kind
# (`Module._apply` in `torch/nn/modules/module.py`):
#
# * a **buffer** is replaced: the module's attribute now names the new tensor, and a
#   reference you took earlier still names the old one, with the old dtype and device;
# * a **parameter** keeps its `nn.Parameter` object for a dtype cast or a move between the
#   CPU and a GPU: PyTorch swaps the new tensor in as its data (`param.data = new`), so an
#   optimiser built before the move still holds the module's parameters. A move to or from
#   `meta` replaces the parameter too;
# * a tensor that needs no conversion (already on that device with that dtype) is kept.
#
# So take references to a module's tensors after you move or cast it, not before.
#
# ### The optimiser's state does not follow
#
# The optimiser holds the parameter objects, but not only them: after its first step, Adam keeps
# two running averages per parameter (`exp_avg`, `exp_avg_sq`) and SGD with momentum a
# `momentum_buffer`. Those are tensors of the optimiser's, made in the parameter's dtype and on its
# device *at that step*, and `.double()` or `.to(device)` on the module never visits them.
#
# **Predict 08.p2.** A float32 `nn.Linear` takes one Adam step. You call `.double()` on it, compute a
# float64 loss and call `opt.step()` again. Write `"works"` or `"raises"`.

# %%
predict("08.p2", None)  # replace None with your prediction

# %%
torch.manual_seed(0)
lin = nn.Linear(3, 1)
opt = torch.optim.Adam(lin.parameters(), lr=0.1)
xs = torch.randn(8, 3)
lin(xs).pow(2).mean().backward()
opt.step()
lin.double()
opt.zero_grad()
lin(xs.double()).pow(2).mean().backward()
print("same parameter object in the optimiser:", opt.param_groups[0]["params"][0] is lin.weight, lin.weight.dtype)
print("exp_avg is still:", opt.state[lin.weight]["exp_avg"].dtype)
try:
    opt.step()
    adam = "works"
except RuntimeError as err:
    adam = "raises"
    print("RuntimeError, a dtype mismatch:", "dtype" in str(err))
reveal(
    "08.p2",
    adam,
    choices=("works", "raises"),
    why="the parameter is float64 now, Adam's running averages are still float32, and the update mixes them.",
)

# %% [markdown]
# A move to a GPU fails the same way, with a device mismatch instead of a dtype one. SGD with
# momentum is worse: it raises nothing, and its float32 `momentum_buffer` quietly rounds every
# float64 gradient to float32. Two fixes: build the optimiser *after* you move or cast the module
# (the usual order), or, for an optimiser that has already stepped, reload its own state:
# `Optimizer.load_state_dict` casts each state tensor to its parameter's dtype and device.

# %%
opt.load_state_dict(opt.state_dict())  # re-reads the state, cast to each parameter
print("exp_avg after reloading the state:", opt.state[lin.weight]["exp_avg"].dtype)
opt.step()
print("the step works:", lin.weight.dtype)

# %% [markdown]
# Integer and bool buffers keep their dtype under `.double()` and `.half()`: only floating
# point tensors are cast. A step counter stored as an `int64` buffer stays an integer.


# %%
class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.steps = nn.Buffer(torch.tensor(0))
        self.scale = nn.Buffer(torch.tensor(1.0))


c = Counter().double()
print("steps:", c.steps.dtype, "| scale:", c.scale.dtype)

# %% [markdown]
# ## What `state_dict()` saves and loads
#
# `state_dict()` is an ordered dict from dotted names to tensors: parameters and persistent
# buffers, nothing else (unless a module defines `get_extra_state`). `load_state_dict` copies values into a module's existing tensors
# and, by default (`strict=True`), insists that the keys match exactly:

# %%
source = Holder()
with torch.no_grad():
    source.weight.fill_(3.0)
    source.offset.fill_(-1.0)
target = Holder()
result = target.load_state_dict(source.state_dict())
print(result)
print("weight:", target.weight.data, "| offset:", target.offset)

# %% [markdown]
# The non-persistent `cache` was neither saved nor expected; a key too many or too few is
# an error (see Common mistakes). Use `persistent=False` for tensors you can recompute from
# the others: saving them would only make checkpoints bigger and could freeze a stale value
# into a file.
#
# `state_dict()` does not copy anything: its tensors are the module's own, detached from
# autograd but sharing their memory. Keeping the best weights seen so far during training
# with `best = model.state_dict()` is a classic bug.
#
# **Predict 08.p3.** You keep `best = target.state_dict()`, then the weight changes in place (as an
# optimiser step does). Does `best["weight"]` change too? Write True or False.

# %%
predict("08.p3", None)  # replace None with your prediction

# %%
best = target.state_dict()
kept_copy = {name: t.clone() for name, t in target.state_dict().items()}  # a real snapshot
with torch.no_grad():
    target.weight.add_(1.0)  # what an optimiser step does to the weight
print(
    "best['weight']:     ",
    best["weight"],
    "| shares the module's memory:",
    best["weight"].data_ptr() == target.weight.data_ptr(),
)
print("kept_copy['weight']:", kept_copy["weight"])
reveal(
    "08.p3",
    not torch.equal(best["weight"], kept_copy["weight"]),
    why="state_dict() returns the module's own tensors (detached), not copies: clone them, or copy.deepcopy the dict.",
)

# %% [markdown]
# Snapshot with `{k: v.clone() for k, v in model.state_dict().items()}` or
# `copy.deepcopy(model.state_dict())`. `torch.save` writes the values to a file at that moment, so a
# saved checkpoint does not change afterwards.

# %% [markdown]
# ## A projection onto a column space
#
# The orthogonal projection onto the column space of a tall matrix `A` (n×k, rank k) is
# `P = A · pinv(A)`, an n×n matrix: `P x` is the point of the column space nearest to `x`.
# `P` is symmetric and idempotent (`P P = P`), and leaves vectors of the column space
# unchanged.
#
# Computing `P` costs a pseudo-inverse and a product, so the module builds it **lazily**,
# on the first call, and keeps it as a buffer so that `.to()` moves it with the module. `A`
# is a persistent buffer (it defines the module); `P` is derived from `A`, so it is not
# saved. (A lazy buffer needs `register_buffer(name, None)`: `nn.Buffer(None)` would make
# an empty tensor, not a `None` placeholder.) The published notebook this follows
# (docs/reference-figures.md, section D) uses A of 10000×1000, whose float32 `P` alone takes
# 400 MB; we scale it to 2000×100 (a 16 MB `P`) so that it runs in seconds on a laptop.


# %%
class ColumnSpaceProjection(nn.Module):
    """Projects each row x of the input onto the column space of A: x ↦ P x, P = A·pinv(A)."""

    def __init__(self, A):
        super().__init__()
        self.A = nn.Buffer(A)
        self.register_buffer("P", None, persistent=False)  # built on first call
        self.register_load_state_dict_post_hook(self._forget_P)

    @staticmethod
    def _forget_P(module, incompatible_keys):
        module.P = None  # a new A invalidates P: rebuild it on the next call

    def forward(self, x):
        if self.P is None:
            self.P = self.A @ torch.linalg.pinv(self.A)
        return x @ self.P.T


torch.manual_seed(0)
n, k = 2000, 100
A = torch.randn(n, k)
proj = ColumnSpaceProjection(A)
print("before the first call: P is", proj.P, "| state_dict:", list(proj.state_dict()))
x = torch.randn(5, n)
y = proj(x)
print(
    "after:  P",
    tuple(proj.P.shape),
    "| buffers:",
    [b for b, _ in proj.named_buffers()],
    "| state_dict:",
    list(proj.state_dict()),
)

# %% [markdown]
# Three facts you can check numerically: projecting twice changes nothing, a vector of the
# column space is left where it is, and the residual `x - Px` is orthogonal to every column of
# `A`. The comparisons use `torch.testing.assert_close` (module 04): its float32 tolerance
# where that suffices, and otherwise one *measured* as module 04 taught, from the distance
# between the float32 result and the same computation in float64 (these are float32 sums of
# 2000 terms; the residual is compared with zero, where only an absolute tolerance means anything).


# %%
def same(actual, expected, **tolerances):
    """torch.testing.assert_close's verdict as True or False; tolerances from the dtype unless given."""
    try:
        torch.testing.assert_close(actual, expected, **tolerances)
    except AssertionError:
        return False
    return True


def measured(result32, truth64):
    """Module 04's rule: twice the float32 result's largest distance from its float64 computation."""
    return {"rtol": 0.0, "atol": 2 * float((result32.double() - truth64).abs().max())}


P64 = A.double() @ torch.linalg.pinv(A.double())
print("P(Px) == Px:            ", same(proj(y), y))
in_space = torch.randn(3, k) @ A.T  # rows that are combinations of A's columns
tol = measured(proj(in_space), in_space.double() @ P64.T)
print("P v == v for v in col(A):", same(proj(in_space), in_space, **tol))
residual = x - y
tol = measured(residual @ A, (x.double() - x.double() @ P64.T) @ A.double())
print("(x - Px) ⟂ columns of A: ", same(residual @ A, torch.zeros(5, k), **tol))

# %% [markdown]
# The first call pays for the pseudo-inverse; later calls only multiply. The times depend
# on the machine; the cell after the timing checks what the text says about them.

# %%
# NBVAL_IGNORE_OUTPUT
from torchcourse import format_seconds, measure, time_once

fresh = ColumnSpaceProjection(A)
_, first = time_once(lambda: fresh(x))
later = measure(lambda: fresh(x), repeat=5, budget=0.05)
print(f"first call (builds P): {format_seconds(first)} | later calls: {later}")

# %%
built = fresh.P
fresh(x)
print("P was built once and reused:", built is not None and fresh.P is built)
# The first call adds pinv and a 2000x100x2000 product (0.8 GFLOP) to a later call's product,
# which only reads the 16 MB P: several times apart on any CPU; a single first call can only be slowed by load.
claim(first > 2 * later.min, "the first call, which builds P, costs more than twice a later call")

# %% [markdown]
# **A design note.** `P` is n×n: applying it costs `n²` multiply-adds per row and, at the
# published size, 400 MB of memory. With an orthonormal basis `Q` of the column space
# (`torch.linalg.qr(A).Q`, n×k) the same projection is `Q (Qᵀ x)`: `2nk` per row and an
# n×k matrix. For k ≪ n, keep `Q`, not `P`. The module keeps `P` to follow the published
# notebook and because it makes the buffer story clear.

# %%
Q = torch.linalg.qr(A).Q
print("Q(Qᵀx) == Px:", same((x @ Q) @ Q.T, y))

# %% [markdown]
# ## A picture: projecting points onto a line (optional)
#
# With `A` a single column in 2-D, the column space is a line, and the module drops each
# point perpendicularly onto it. On the right, the singular values of `P` for a 200×20 `A`:
# exactly `k = 20` of them are 1 and the rest are zero to rounding, which is what
# "projection onto a k-dimensional subspace" means.

# %%
import matplotlib.pyplot as plt

line = ColumnSpaceProjection(torch.tensor([[2.0], [1.0]]))
torch.manual_seed(1)
points = torch.randn(12, 2) * 1.5
shadows = line(points)

small = ColumnSpaceProjection(torch.randn(200, 20))
small(torch.zeros(1, 200))
singular = torch.linalg.svdvals(small.P)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
ts = torch.linspace(-3, 3, 2)
ax1.plot(2 * ts, ts, color="gray", lw=1, label="column space of A = [2, 1]ᵀ")
for p, s in zip(points, shadows):
    ax1.plot([p[0], s[0]], [p[1], s[1]], color="C1", lw=0.8)
ax1.scatter(points[:, 0], points[:, 1], color="C0", label="x", zorder=3)
ax1.scatter(shadows[:, 0], shadows[:, 1], color="C3", marker="x", label="P x", zorder=3)
ax1.set(aspect="equal", title="P drops each point onto the line", xlabel="x₁", ylabel="x₂")
ax1.set_ylim(-4, 6.5)
ax1.legend(fontsize=8, loc="upper left")
ax2.semilogy(range(1, 201), singular.clamp_min(1e-12), ".")
ax2.set(title="singular values of P (A: 200×20)", xlabel="index", ylabel="singular value")
ax2.grid(alpha=0.3)
plt.tight_layout()
plt.show()

# %%
print("singular values ≈ 1:", int((singular > 0.5).sum()), "| ≈ 0:", int((singular < 1e-4).sum()))
# A mathematical fact; float32 rounding leaves the zero singular values near 1e-6, far below 1e-4.
claim(
    int((singular > 0.5).sum()) == 20 and int((singular < 1e-4).sum()) == 180,
    "exactly k = 20 singular values are 1 and the other 180 are zero to rounding",
)
print(
    "segments x → Px are perpendicular to the line:",
    same((points - shadows) @ torch.tensor([2.0, 1.0]), torch.zeros(12)),
)

# %% [markdown]
# ## Lazy initialisation: three pitfalls
#
# **1. A persistent lazy buffer changes the `state_dict`.** A buffer that is `None` is left
# out of `state_dict()`. If `P` were persistent, a module saved *after* its first call would
# have a key `P` that a freshly built module does not expect, and loading fails
# (`Unexpected key(s) in state_dict: "P"`, shown under Common mistakes). Our `P` is
# non-persistent, so the keys are the same before and after the first call:

# %%
print("fresh module keys:", list(ColumnSpaceProjection(A).state_dict()))
print("used module keys: ", list(proj.state_dict()))
ColumnSpaceProjection(A).load_state_dict(proj.state_dict())
print("loading into a fresh module: fine")

# %% [markdown]
# **2. A stale derived buffer.** Loading a new `A` into a module that has already built `P`
# would leave the old `P` in place: the module would silently project onto the *old*
# column space. That is why the module registers a hook that forgets `P` after every
# `load_state_dict`. Without the hook, the second line would print `False`; the third
# line shows it, with a subclass whose hook forgets nothing:

# %%
old_A = proj.A.clone()
other = {"A": torch.randn(n, k)}
proj.load_state_dict(other)
print("P forgotten after loading:", proj.P is None)
expected = ColumnSpaceProjection(other["A"])(x)
print("projects onto the new A:  ", same(proj(x), expected))


class NoHook(ColumnSpaceProjection):
    @staticmethod
    def _forget_P(module, incompatible_keys):
        pass  # keeps the old P


stale = NoHook(old_A.clone())
stale(x)  # builds P from the old A
stale.load_state_dict(other)
print("without the hook:         ", same(stale(x), expected))
# by construction: the hook is the only difference
claim(not same(stale(x), expected), "without the hook, the module projects onto the old A")

# %% [markdown]
# Notice something else: `load_state_dict` copies the loaded values **into** the module's
# existing tensors, and `nn.Buffer(A)` did not copy `A` (like `detach`, it shares the
# storage). So loading into `proj` also overwrote the tensor `A` this notebook built `proj`
# from. Pass `A.clone()` when the module must not share your tensor:

# %%
shares = proj.A.untyped_storage().data_ptr() == A.untyped_storage().data_ptr()
print("proj.A shares A's storage:", shares, "| A now holds the loaded values:", torch.equal(A, other["A"]))
# by construction: nn.Buffer(A) shares A's storage and load_state_dict copies into it
claim(shares and torch.equal(A, other["A"]), "loading into proj overwrote the tensor A it was built from")

# %% [markdown]
# **3. A plain attribute is left behind by `.to()`.** Store `P` as `self.P = ...` instead of
# a buffer and it works until the module moves: after `.double()` (or `.to("cuda")`) `A`
# follows, `P` does not, and the next call fails:


# %%
class LeakyProjection(nn.Module):
    def __init__(self, A):
        super().__init__()
        self.A = nn.Buffer(A)
        self.P = None  # a plain attribute: the module does not know about it

    def forward(self, x):
        if self.P is None:
            self.P = self.A @ torch.linalg.pinv(self.A)
        return x @ self.P.T


leaky = LeakyProjection(A[:50, :5])
leaky(torch.randn(2, 50))  # builds P as float32
leaky.double()  # moves A, not P
print("A:", leaky.A.dtype, "| P:", leaky.P.dtype)

# %% [markdown]
# The call itself is in Common mistakes. Moving a module *before* its first call is safe
# in both versions, since `P` is then built from the already-moved `A`; moving it *after*
# is safe only when `P` is a buffer.

# %% [markdown]
# ## Nested modules
#
# Modules nest: a module assigned as an attribute becomes a sub-module, and
# `named_parameters`, `named_buffers`, `state_dict`, `.to()` and `.double()` all recurse,
# with dotted names. Here a standardisation step (two buffers) followed by the projection:


# %%
class Standardise(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.mean = nn.Buffer(mean)
        self.std = nn.Buffer(std)

    def forward(self, x):
        return (x - self.mean) / self.std


data = torch.randn(100, n) * 3 + 1
pipeline = nn.Sequential(Standardise(data.mean(0), data.std(0)), ColumnSpaceProjection(A))
out = pipeline(data[:4])
for name, buf in pipeline.named_buffers():
    print(f"{name:<6} {tuple(buf.shape)}")
print("state_dict:", list(pipeline.state_dict()))

# %% [markdown]
# ## Running a module for results: `eval()` and `torch.inference_mode`
#
# Two switches, and they do different things:
#
# * **`module.eval()`** (the same as `module.train(False)`) sets the flag `training` to
#   `False` on the module and on every sub-module, and returns the module. That is all it
#   does: it matters only to layers whose `forward` reads `self.training`. `Dropout` then
#   passes its input through instead of zeroing random elements, and `BatchNorm` normalises
#   with its saved running statistics instead of the batch's own, and stops updating them.
#   `module.train()` switches back; a new module starts in training mode. Autograd is not
#   affected.
# * **`torch.inference_mode()`**, like `torch.no_grad()`, switches autograd off for the code
#   inside it. It changes no layer's behaviour: a module in training mode still drops out and
#   still updates its running statistics there.
#
# For predictions you want both. The modules of this lesson have no layer that reads
# `training`, so `eval()` changes nothing for them; a small network with `BatchNorm1d` and
# `Dropout` shows the difference:

# %%
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 3), nn.BatchNorm1d(3), nn.Dropout(0.5))
batch = torch.randn(8, 4)
print("a new module is in training mode:", all(m.training for m in net.modules()))
seen = {}
for mode in ("train", "eval"):
    getattr(net, mode)()  # net.train() or net.eval()
    stats_before = net[1].running_mean.clone()
    with torch.inference_mode():
        first, second = net(batch), net(batch)
    seen[mode] = (torch.equal(first, second), not torch.equal(net[1].running_mean, stats_before))
    print(
        f"{mode:>5} mode, under inference_mode: two calls agree: {seen[mode][0]} | running_mean changed: {seen[mode][1]}"
    )
print("eval() alone leaves autograd on: requires_grad =", net(batch).requires_grad)
# by construction: dropout (p = 0.5) over 24 seeded elements, and BatchNorm's update rule
claim(
    seen["train"] == (False, True) and seen["eval"] == (True, False),
    "under inference_mode a module in training mode still drops out and updates its running mean; in eval mode it does neither",
)

# %% [markdown]
# In training mode, dropout drew new zeros on each call and BatchNorm folded this batch into
# its running mean, inference mode or not. After `eval()` the output is the same every time
# and the saved statistics stay as they were; `inference_mode` then adds what `eval()` does
# not: no autograd graph.

# %% [markdown]
# ### The `training` flag, module by module
#
# `train(mode)` sets the flag on the module and recurses into its children, and `eval()` is
# `train(False)`. Called on one child, it changes that child and what is below it, and leaves
# the parent and the siblings as they were: a model's flags need not agree. Fine-tuning uses
# this to keep a `BatchNorm` layer's statistics fixed while the rest trains. Assigning the
# attribute, `module.training = False`, sets that one module's flag only, without recursion.


# %%
def flags(model):
    return " ".join(f"{name or 'model'}:{'T' if m.training else 'E'}" for name, m in model.named_modules())


net.train()
print("net.train():         ", flags(net))
net.eval()
print("net.eval():          ", flags(net))
net[1].train()
print("net[1].train():      ", flags(net))
net.train()
net.training = False
print("net.training = False:", flags(net))
# by construction: Module.train recurses through children(); the attribute is one module's
claim(
    [m.training for m in net.modules()] == [False, True, True, True],
    "assigning net.training changed the model's own flag and none of its children's",
)

# %% [markdown]
# What the flag switches is up to each layer's `forward`. **Dropout** in training mode
# zeroes each element with probability `p` and scales the others by `1/(1 - p)`, so the
# expected value of each output equals its input; in eval mode it returns its input
# unchanged. With `p = 0.25` every kept 1.0 becomes 1/0.75 ≈ 1.3333:

# %%
drop = nn.Dropout(p=0.25)
ones = torch.ones(4, 8)
torch.manual_seed(0)
dropped = drop(ones)
print("training mode, the values that come out:", [round(v, 4) for v in torch.unique(dropped).tolist()])
drop.eval()
print("eval mode, output equals input:", torch.equal(drop(ones), ones))
# by construction: Dropout's rule; 32 seeded draws at p = 0.25 zero some elements and keep others
claim(
    set(torch.unique(dropped).tolist()) == {0.0, torch.tensor(1 / 0.75).item()},  # 1/0.75 in float32
    "in training mode every element is either zeroed or scaled by 1/(1 - p)",
)

# %% [markdown]
# **BatchNorm** in training mode normalises each feature with the batch's own mean and
# biased variance (divided by `n`), and folds the batch into its running statistics:
# `running = (1 - momentum) · running + momentum · batch`, with `momentum = 0.1` and, for the
# variance, the unbiased batch variance (divided by `n - 1`). In eval mode it normalises
# with `running_mean` and `running_var` and leaves them alone. A new layer starts with mean 0
# and variance 1; three samples of two features:

# %%
bn = nn.BatchNorm1d(2)  # weight 1, bias 0: the output is the normalised input
xb = torch.tensor([[1.0, 10.0], [3.0, 20.0], [5.0, 60.0]])
out_train = bn(xb)
by_batch = (xb - xb.mean(0)) / torch.sqrt(xb.var(0, correction=0) + bn.eps)
train_ok = same(out_train, by_batch)  # float32 rounding: a 0 can come out as 6e-8, within atol 1e-5
print("training mode: normalised with the batch's mean and biased variance:", train_ok)
print("  running_mean:", [round(v, 4) for v in bn.running_mean.tolist()], "= 0.9 · 0 + 0.1 ·", xb.mean(0).tolist())
print("  running_var: ", [round(v, 4) for v in bn.running_var.tolist()], "= 0.9 · 1 + 0.1 ·", xb.var(0).tolist())
bn.eval()
stats = bn.running_mean.clone(), bn.running_var.clone()
out_eval = bn(xb)
by_running = (xb - stats[0]) / torch.sqrt(stats[1] + bn.eps)
eval_ok = same(out_eval, by_running)
unchanged = torch.equal(bn.running_mean, stats[0]) and torch.equal(bn.running_var, stats[1])
print("eval mode: normalised with the running statistics:", eval_ok)
print("  running statistics unchanged:", unchanged)
# by construction: BatchNorm's rule in each mode, on fixed numbers
claim(
    train_ok and eval_ok and unchanged and same(bn.running_var, 0.9 + 0.1 * xb.var(0)),
    "training mode used the batch's statistics and updated the running ones; eval mode used the running ones and left them",
)

# %% [markdown]
# The running statistics are still near their start after one batch, so the same input
# comes out very differently in the two modes: training mode centres it on this batch,
# eval mode on what the layer has seen so far.
#
# ### What `no_grad` and `inference_mode` do not switch
#
# `torch.no_grad()` and `torch.inference_mode()` stop autograd from recording; they read and
# change no `training` flag. A module left in training mode under `no_grad` still drops out
# and still updates its running statistics:

# %%
bn, drop = nn.BatchNorm1d(2), nn.Dropout(0.5)  # new layers: training mode
with torch.no_grad():
    out_ng = bn(xb)
    dropped = drop(torch.ones(1000))
print(
    "under no_grad: output requires grad:",
    out_ng.requires_grad,
    "| layers in training mode:",
    bn.training and drop.training,
)
print("under no_grad: BatchNorm updated running_mean:", [round(v, 4) for v in bn.running_mean.tolist()])
print("under no_grad: Dropout zeroed some of 1000 ones:", bool((dropped == 0).any()))
# by construction: BatchNorm's update rule; 1000 draws at p = 0.5 all kept has probability 2**-1000
claim(
    bn.running_mean.tolist() != [0.0, 0.0] and bool((dropped == 0).any()),
    "under no_grad, a module in training mode still updates its running statistics and still drops out",
)

# %% [markdown]
# ### `inference_mode` beyond `no_grad`
#
# What `inference_mode` adds beyond `no_grad`: it also skips the bookkeeping that would let
# the results take part in autograd later (view tracking and version counters), which
# removes some overhead per operation. The results are *inference tensors*. The pipeline
# built above, run for results:

# %%
pipeline.eval()  # no layer here reads `training`, but it is the habit to keep
with torch.inference_mode():
    fast = pipeline(data[:4])
print("requires_grad:", fast.requires_grad, "| is_inference:", fast.is_inference())
print("same values as before:", same(fast, out))

# %% [markdown]
# An inference tensor cannot be saved for a later backward pass. This matters for lazy
# buffers: if the *first* call happens under `inference_mode`, `P` itself becomes an
# inference tensor, and a later call that needs gradients fails (Common mistakes). Build
# the lazy state outside `inference_mode` when the module will also be trained or
# differentiated, or use `torch.no_grad()` there.

# %% [markdown]
# ## Saving and loading
#
# Save the `state_dict`, not the module object: `torch.save(module, path)` pickles the
# class by reference and breaks when the code moves. `torch.load` uses `weights_only=True`
# by default since PyTorch 2.6, which loads tensors and plain containers without running
# arbitrary pickled code. `map_location` chooses the device the tensors land on. We save
# into a temporary directory that Python deletes afterwards:

# %%
import tempfile
from pathlib import Path

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "projection.pt"
    torch.save(pipeline.state_dict(), path)
    size = path.stat().st_size
    print(f"file size: {size / 1e6:.1f} MB (A alone is {A.numel() * 4 / 1e6:.1f} MB; P is not saved)")
    state = torch.load(path, map_location="cpu")
# by construction: the file holds A (0.8 MB) and the statistics, not P (16 MB)
claim(size < n * n * 4, "the file is smaller than P alone would be: P is not saved")

restored = nn.Sequential(Standardise(torch.zeros(n), torch.ones(n)), ColumnSpaceProjection(torch.zeros(n, k)))
restored.load_state_dict(state)
print("restored pipeline gives the same output:", same(restored(data[:4]), out))
print("temporary directory removed:", not Path(tmp).exists())

# %% [markdown]
# ## Moving the module across devices
#
# `module.to(device)` moves every parameter and buffer, including a `P` that was already
# built. Then feed it inputs on the same device and bring small results back with
# `.cpu()`. Without a GPU, `pick_device()` returns the CPU: `pipeline.to("cpu")` finds every
# tensor already there and keeps it, so the cell runs but moves nothing (the move itself
# was shown with `meta` above); the cell after it says so.
# (`pick_device()` is the course's helper; PyTorch's device-agnostic way to ask for the
# accelerator is `torch.accelerator.current_accelerator()`, shown in modules 00 and 07.)

# %%
from torchcourse import pick_device

device = pick_device()
pipeline.to(device)
on_device = pipeline(data[:4].to(device))
print("all buffers on the module's device:", all(b.device.type == device.type for b in pipeline.buffers()))
# by construction: .to() visits every buffer, P included
claim(pipeline[1].P.device.type == device.type, "the lazily built P moved with the module")
# another device sums the 2000-term products in another order: a looser float32 tolerance
print("same result as on the CPU:", same(on_device.cpu(), out, atol=1e-3, rtol=1e-3))
pipeline = pipeline.to("cpu")  # back to the CPU (the module returns itself)

# %%
# NBVAL_IGNORE_OUTPUT
if device.type == "cpu":
    print(
        "No accelerator here (torch.accelerator.is_available() is False): the cell above moved nothing, "
        "since pipeline.to('cpu') kept every tensor. With a GPU it moves A, P and the statistics there and back."
    )
else:
    print(f"The cell above moved the pipeline to {device} and back.")

# %% [markdown]
# A large module can also be *built* without memory: create it on the `meta` device, then
# load real tensors with `load_state_dict(state, assign=True)`, which takes the loaded
# tensors as they are instead of copying into the meta placeholders:

# %%
with torch.device("meta"):
    skeleton = ColumnSpaceProjection(torch.empty(n, k))
print("before:", skeleton.A.device)
skeleton.load_state_dict({"A": A}, assign=True)
print("after: ", skeleton.A.device, "| same A:", skeleton.A is A)

# %% [markdown]
# ## Common mistakes
#
# **A plain tensor attribute after `.to()` or `.double()`.** The `LeakyProjection` from
# above, called after `.double()`: `A` and the input are float64, `P` is still float32.

# %% tags=["raises-exception"]
leaky(torch.randn(2, 50, dtype=torch.float64))

# %% [markdown]
# Fix: `self.register_buffer("P", None, persistent=False)` in `__init__`.
#
# **Loading a checkpoint whose lazy buffer was persistent.** Saved after the first call,
# the state has a `P`; a fresh module has none yet:


# %% tags=["raises-exception"]
class PersistentP(ColumnSpaceProjection):
    def __init__(self, A):
        super().__init__(A)
        self.register_buffer("P", None, persistent=True)


used = PersistentP(A[:50, :5])
used(torch.randn(1, 50))
PersistentP(A[:50, :5]).load_state_dict(used.state_dict())

# %% [markdown]
# Fix: make derived buffers non-persistent, or build them in `__init__`.
#
# **A lazy buffer built under `inference_mode`, then used with autograd:**

# %% tags=["raises-exception"]
lazy = ColumnSpaceProjection(A[:50, :5])
with torch.inference_mode():
    lazy(torch.randn(1, 50))  # P is built here, as an inference tensor
inputs = torch.randn(1, 50, requires_grad=True)
lazy(inputs).sum().backward()

# %% [markdown]
# Fix: make the first call outside `inference_mode` (or build `P` under `torch.no_grad()`).
#
# **Predicting with a network still in training mode.** `inference_mode` (or `no_grad`)
# alone leaves `Dropout` dropping and `BatchNorm` using and updating batch statistics, as the
# cell on `eval()` showed: no error, just wrong and changing predictions. Call
# `module.eval()` first, and `module.train()` before you train again.
#
# **A constant stored as `nn.Parameter`.** It is saved and moved, but also returned by
# `parameters()`: an optimiser would change it, and every output now requires a gradient.


# %%
class ConstantAsParameter(nn.Module):
    def __init__(self, A):
        super().__init__()
        self.A = nn.Parameter(A)

    def forward(self, x):
        return x @ self.A


wrong = ConstantAsParameter(A[:50, :5])
print(
    "trainable tensors:",
    len(list(wrong.parameters())),
    "| output requires grad:",
    wrong(torch.randn(1, 50)).requires_grad,
)

# %% [markdown]
# ## Key points
#
# * Parameters are trained, moved and saved; buffers are moved and saved
#   (`persistent=False`: moved, not saved); plain tensor attributes are neither.
# * A module's `.to()`, `.double()` and `.to(device)` change the module, return it and
#   recurse through sub-modules; each converted tensor is new: buffers are replaced (a
#   reference taken before goes stale), parameters keep their object. Integer buffers keep
#   their dtype. An optimiser's state (Adam's averages, SGD's momentum) does not follow: build
#   the optimiser after the move, or reload its `state_dict` to cast the state.
# * `state_dict()` shares memory with the module: clone it to keep a snapshot.
# * Build expensive derived tensors lazily into a non-persistent buffer, and forget them
#   when the state they derive from is loaded.
# * Run for results with `module.eval()` (layer behaviour: Dropout, BatchNorm) *and* under
#   `torch.inference_mode()` (autograd off); neither does the other's job. `train(mode)`
#   recurses into the children, so a model's flags can differ from module to module; in
#   training mode Dropout zeroes and rescales, and BatchNorm uses the batch's statistics and
#   updates its running ones, even under `no_grad`. Save `state_dict()`
#   (not the module), load with `map_location`, and build large modules on `meta` then
#   `assign=True`.

# %% [markdown]
# ## Further reading
#
# * [`torch.nn.parameter.Buffer`](https://docs.pytorch.org/docs/stable/generated/torch.nn.parameter.Buffer.html):
#   the buffer class and its `persistent` flag.
# * [Saving and Loading Models](https://docs.pytorch.org/tutorials/beginner/saving_loading_models.html):
#   what a `state_dict` holds, `map_location`, and saving the `state_dict` rather than the module.
# * [`torch.inference_mode`](https://docs.pytorch.org/docs/stable/generated/torch.autograd.grad_mode.inference_mode.html):
#   what it disables, and why its tensors cannot join autograd later.
# * [PyTorch as a GPU Computation Library](https://stat244.berkeley.edu/spring-2025/presentations/pytorch.html):
#   the notebook whose lazy projection module this lesson follows (docs/reference-figures.md, section D).

# %% [markdown] tags=["verified"]
# <details class="verified-facts">
# <summary><b>Verified</b>: 29 statements of this lesson are tested facts; all pass on torch 2.13.0. Open for the torch releases each one was tested on.</summary>
# <table class="verified-facts">
# <tr><th>statement</th><th>torch 2.13.0 (pinned)</th></tr>
# <tr><td>“recursively through sub-modules, convert each one, and return the module itself”</td><td>✓</td></tr>
# <tr><td>“a buffer is replaced: the module&#x27;s attribute now names the new tensor, and a reference you took earlier still names the old one, with the old dtype and device”</td><td>✓</td></tr>
# <tr><td>“a parameter keeps its <code>nn.Parameter</code> object for a dtype cast or a move between the CPU and a GPU: PyTorch swaps the new tensor in as its data (<code>param.data = new</code>)”</td><td>✓</td></tr>
# <tr><td>“A move to or from <code>meta</code> replaces the parameter too”</td><td>✓</td></tr>
# <tr><td>“a tensor that needs no conversion (already on that device with that dtype) is kept.”</td><td>✓</td></tr>
# <tr><td>“Integer and bool buffers keep their dtype under <code>.double()</code> and <code>.half()</code>: only floating point tensors are cast.”</td><td>✓</td></tr>
# <tr><td>“<code>state_dict()</code> is an ordered dict from dotted names to tensors: parameters and persistent buffers, nothing else”</td><td>✓</td></tr>
# <tr><td>“A buffer that is <code>None</code> is left out of <code>state_dict()</code>.”</td><td>✓</td></tr>
# <tr><td>“<code>nn.Buffer(None)</code> would make an empty tensor, not a <code>None</code> placeholder.”</td><td>✓</td></tr>
# <tr><td>“<code>nn.Buffer(A)</code> did not copy <code>A</code> (like <code>detach</code>, it shares the storage)”</td><td>✓</td></tr>
# <tr><td>“<code>load_state_dict</code> copies values into a module&#x27;s existing tensors and, by default (<code>strict=True</code>), insists that the keys match exactly”</td><td>✓</td></tr>
# <tr><td>“sets the flag <code>training</code> to <code>False</code> on the module and on every sub-module, and returns the module”</td><td>✓</td></tr>
# <tr><td>“<code>Dropout</code> then passes its input through instead of zeroing random elements, and <code>BatchNorm</code> normalises with its saved running statistics instead of the batch&#x27;s own, and stops updating them.”</td><td>✓</td></tr>
# <tr><td>“It changes no layer&#x27;s behaviour: a module in training mode still drops out and still updates its running statistics there.”</td><td>✓</td></tr>
# <tr><td>“Autograd is not affected.”</td><td>✓</td></tr>
# <tr><td>“An inference tensor cannot be saved for a later backward pass.”</td><td>✓</td></tr>
# <tr><td>“<code>torch.load</code> uses <code>weights_only=True</code> by default since PyTorch 2.6”</td><td>✓</td></tr>
# <tr><td>“<code>load_state_dict(state, assign=True)</code>, which takes the loaded tensors as they are instead of copying into the meta placeholders”</td><td>✓</td></tr>
# <tr><td>“Called on one child, it changes that child and what is below it, and leaves the parent and the siblings as they were: a model&#x27;s flags need not agree.”</td><td>✓</td></tr>
# <tr><td>“Assigning the attribute, <code>module.training = False</code>, sets that one module&#x27;s flag only, without recursion.”</td><td>✓</td></tr>
# <tr><td>“Dropout in training mode zeroes each element with probability <code>p</code> and scales the others by <code>1/(1 - p)</code>”</td><td>✓</td></tr>
# <tr><td>“in eval mode it returns its input unchanged”</td><td>✓</td></tr>
# <tr><td>“BatchNorm in training mode normalises each feature with the batch&#x27;s own mean and biased variance (divided by <code>n</code>), and folds the batch into its running statistics: <code>running = (1 - momentum) · running + momentum · batch</code>, with <code>momentum = 0.1</code> and, for the variance, the unbiased batch variance (divided by <code>n - 1</code>).”</td><td>✓</td></tr>
# <tr><td>“In eval mode it normalises with <code>running_mean</code> and <code>running_var</code> and leaves them alone.”</td><td>✓</td></tr>
# <tr><td>“<code>torch.no_grad()</code> and <code>torch.inference_mode()</code> stop autograd from recording; they read and change no <code>training</code> flag. A module left in training mode under <code>no_grad</code> still drops out and still updates its running statistics”</td><td>✓</td></tr>
# <tr><td>“the parameter is float64 now, Adam&#x27;s running averages are still float32, and the update mixes them.”</td><td>✓</td></tr>
# <tr><td>“SGD with momentum is worse: it raises nothing, and its float32 <code>momentum_buffer</code> quietly rounds every float64 gradient to float32.”</td><td>✓</td></tr>
# <tr><td>“<code>Optimizer.load_state_dict</code> casts each state tensor to its parameter&#x27;s dtype and device.”</td><td>✓</td></tr>
# <tr><td>“<code>state_dict()</code> does not copy anything: its tensors are the module&#x27;s own, detached from autograd but sharing their memory.”</td><td>✓</td></tr>
# </table>
# <p><small>✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason).</small></p>
# </details>
#
# Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md). Runs that kept no per-fact outcomes (no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md), [2.15.0](../docs/drift/drift-2.15.0.md).

# %% [markdown] tags=["course-nav"]
# **Exercises:** [exercises/08_modules_and_buffers.ipynb](../exercises/08_modules_and_buffers.ipynb) ·
# **Previous:** [07 · GPU offload](07_gpu_offload.ipynb) ·
# **Next:** [09 · torch.compile: fusion and overhead](09_compile_fusion.ipynb)
