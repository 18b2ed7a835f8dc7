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
# *Module 08 of 00–17 · exercises* · [all modules](../README.md#modules) · [lesson](../notebooks/08_modules_and_buffers.ipynb) · previous: [07 · GPU offload](07_gpu_offload.ipynb) · next: [09 · torch.compile: fusion and overhead](09_compile_fusion.ipynb)

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
# # 08 · nn.Module as a container for computation: exercises
#
# Practice for the lesson [08 · nn.Module as a container for computation](../notebooks/08_modules_and_buffers.ipynb):
# parameters and buffers, what `state_dict()` holds, rebuilding a layer from its state,
# inference mode, and a lazily built buffer.
#
# Write each answer in place of `raise NotImplementedError`, run the cell, and read the
# check's line: `✓` right, `✗` what differs, `…` not attempted yet. `hint("08.3")` shows the
# next hint for exercise 08.3. Exercises go from warm-up to stretch; each one stands alone.
#
# Some exercises ask you to write a module class. The check cannot compare two modules
# directly, so a small function under your class (already written for you) builds the
# module and returns what matters about it: its output, its buffers, its `state_dict` keys.

# %%
import torch
from torch import nn

from torchcourse import check, hint

# %% [markdown]
# ### 08.1 · Count the trainable numbers (warm-up)
#
# Write `count_trainable(module)` that returns, as an `int`, how many numbers an optimiser
# would train: the elements of all parameters that require a gradient, in the module and
# all its sub-modules. Buffers do not count, nor do frozen parameters
# (`requires_grad=False`). The check builds its modules on the `meta` device: shapes, no
# data.


# %%
def count_trainable(module):
    ### BEGIN SOLUTION
    return sum(p.numel() for p in module.parameters() if p.requires_grad)
    ### END SOLUTION


check("08.1", count_trainable)


# %% [markdown]
# ### 08.2 · Buffers that `state_dict` leaves out
#
# Write `unsaved_buffers(module)` that returns the sorted list of dotted names (such as
# `"0.cache"`) of the buffers that `module.to(...)` would move but `module.state_dict()`
# would not save, anywhere in the module.


# %%
def unsaved_buffers(module):
    ### BEGIN SOLUTION
    saved = module.state_dict()
    return sorted(name for name, _ in module.named_buffers() if name not in saved)
    ### END SOLUTION


check("08.2", unsaved_buffers)


# %% [markdown]
# ### 08.3 · Statistics as buffers
#
# Complete `Standardise.__init__` so that the module stores the column means and standard
# deviations of `data` (shape `(rows, features)`; PyTorch's default `std`) as **buffers**
# named `mean` and `std`, each of shape `(features,)`: they must follow `.to()` and be saved,
# but must not be trained.
# `forward` is written for you.


# %%
class Standardise(nn.Module):
    def __init__(self, data):
        super().__init__()
        ### BEGIN SOLUTION
        self.register_buffer("mean", data.mean(dim=0))
        self.register_buffer("std", data.std(dim=0))
        ### END SOLUTION

    def forward(self, x):
        return (x - self.mean) / self.std


def inspect_standardise(data, x):
    m = Standardise(data)
    return {"output": m(x), "buffers": dict(m.named_buffers()), "saved": sorted(m.state_dict())}


check("08.3", inspect_standardise)


# %% [markdown]
# ### 08.4 · Rebuild a layer from its `state_dict`
#
# `state` is the `state_dict()` of an `nn.Linear` layer whose sizes you are not told (it
# may have been built with `bias=False`). Write `linear_from_state(state, x)` that rebuilds
# the layer from `state` and returns its output on `x`. Tip: an `nn.Linear` and
# `load_state_dict` do it with no formula of your own.


# %%
def linear_from_state(state, x):
    ### BEGIN SOLUTION
    out_features, in_features = state["weight"].shape
    layer = nn.Linear(in_features, out_features, bias="bias" in state, device="meta")
    layer.load_state_dict(state, assign=True)
    return layer(x)
    ### END SOLUTION


check("08.4", linear_from_state)


# %% [markdown]
# ### 08.5 · Predict in inference mode
#
# `module` is a small network with `BatchNorm1d` and `Dropout` layers, still in training
# mode. Write `predict(module, x)` that returns its predictions for `x` the way you would
# in production: evaluation behaviour for those layers, and no autograd bookkeeping at all
# (the result must be an inference tensor). The lesson's section on `eval()` and
# `torch.inference_mode` shows that each of the two does only one of these jobs.


# %%
def predict(module, x):
    ### BEGIN SOLUTION
    module.eval()
    with torch.inference_mode():
        return module(x)
    ### END SOLUTION


check("08.5", predict)


# %% [markdown]
# ### 08.7 · Predict, and leave the model as you found it
#
# A function that predicts in the middle of training must not switch the model out of
# training mode behind your back. Write `predict_as_found(model, x)` that returns `model(x)`
# computed with every layer in evaluation behaviour (Dropout passes its input through,
# BatchNorm uses its running statistics) and with **no autograd history**, and leaves the
# model exactly as it was: every sub-module's `training` flag as before (they need not all
# agree: a model in training mode may hold a block that was put in eval mode on purpose) and
# every buffer unchanged.


# %%
def predict_as_found(model, x):
    ### BEGIN SOLUTION
    flags = {m: m.training for m in model.modules()}
    model.eval()
    try:
        with torch.no_grad():
            return model(x)
    finally:
        for m, flag in flags.items():
            m.training = flag
    ### END SOLUTION


check("08.7", predict_as_found)


# %% [markdown]
# ### 08.8 · Freeze the BatchNorm layers for fine-tuning
#
# Fine-tuning a network on small batches often keeps its BatchNorm statistics as they are:
# those layers normalise with their running statistics and stop updating them, while every
# other layer trains. Write `freeze_batchnorm(model)` that puts every BatchNorm layer of
# `model` in eval mode, at any depth (`BatchNorm1d`, `2d`, `3d` and any subclass of them, all
# subclasses of `nn.modules.batchnorm._BatchNorm`), leaves every other module's `training`
# flag as it was, and returns the model itself. (A later `model.train()` undoes it: call it
# again after each `train()`.)


# %%
def freeze_batchnorm(model):
    ### BEGIN SOLUTION
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            m.eval()
    return model
    ### END SOLUTION


check("08.8", freeze_batchnorm)

# %% [markdown]
# ### 08.6 · A lazy projection buffer (stretch)
#
# Complete `LazyProjection`: it projects each row `x` onto the column space of `A`, with
# `P = A @ torch.linalg.pinv(A)` and output `x @ P.T`, as in the lesson. `P` must be built
# **on the first call**, not in `__init__`, kept as a **buffer** afterwards (so `.to()` moves
# it, and later calls use it instead of building it again), and **not saved** by
# `state_dict()` (it is derived from `A`). Before the first call the module's only buffer is
# `A`.


# %%
class LazyProjection(nn.Module):
    def __init__(self, A):
        super().__init__()
        self.A = nn.Buffer(A)
        ### BEGIN SOLUTION
        self.register_buffer("P", None, persistent=False)
        ### END SOLUTION

    def forward(self, x):
        ### BEGIN SOLUTION
        if self.P is None:
            self.P = self.A @ torch.linalg.pinv(self.A)
        return x @ self.P.T
        ### END SOLUTION


def inspect_lazy(A, x):
    m = LazyProjection(A)
    before = ", ".join(name for name, _ in m.named_buffers())
    y = m(x)
    return {
        "output": y,
        "buffers before the first call": before,
        "buffers after the first call": ", ".join(name for name, _ in m.named_buffers()),
        "state_dict keys after the first call": ", ".join(m.state_dict()),
    }


check("08.6", inspect_lazy)


# %% [markdown] tags=["course-nav"]
# **Back to the lesson:** [08 · nn.Module as a container for computation](../notebooks/08_modules_and_buffers.ipynb) ·
# **Previous:** [07 · GPU offload](07_gpu_offload.ipynb) ·
# **Next:** [09 · torch.compile: fusion and overhead](09_compile_fusion.ipynb)
