"""Module 08's rules: what the checks of m08.py observe about a module while an answer runs it
(what state_dict holds, whether every layer ran in inference mode, whether a lazy buffer is kept,
whether the model's training flags and buffers were left as they were)."""

from __future__ import annotations

import warnings

import torch
from torch import nn

from torchcourse.grading.compare import compare
from torchcourse.grading.rules import Case, Rule


class _StandardiseSaved(Rule):
    """08.3 says the statistics "must be saved": both names are in state_dict()."""

    name = "saved in state_dict"
    early = True

    def judge(self, case):
        saved = case.got.get("saved") if isinstance(case.got, dict) else None
        if isinstance(saved, list) and not {"mean", "std"} <= set(saved):
            missing = sorted({"mean", "std"} - set(saved))
            return (
                f"state_dict() does not hold {' and '.join(missing)}, so it would not be saved: register it as a "
                "persistent buffer (the default; not persistent=False)"
            )
        return None


def _predict_extra(args, got):
    if isinstance(got, torch.Tensor) and not got.is_inference():
        return (
            "the values are right but the result is not an inference tensor: "
            "run the module inside `with torch.inference_mode():`"
        )
    return None


class _RunsInInferenceMode(Rule):
    """08.5's "no autograd bookkeeping at all": every layer of the network runs with inference
    mode on (seen by a hook on each sub-module), not only the copy that is returned."""

    name = "inference mode"

    def judge(self, case: Case) -> str | None:
        module, *rest = case.fresh()
        if not isinstance(module, nn.Module):
            return None
        seen: list[bool] = []
        hooks = [
            m.register_forward_pre_hook(lambda mod, inp: seen.append(torch.is_inference_mode_enabled()))
            for m in module.modules()
        ]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                case.fn(module, *rest)
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        finally:
            for h in hooks:
                h.remove()
        if not all(seen):
            return (
                "the network ran outside inference mode (with autograd's bookkeeping on), even if what you return "
                "is an inference tensor; call the module itself inside `with torch.inference_mode():`"
            )
        return None


class _PKeptAfterFirstCall(Rule):
    """08.6's "built on the first call ... kept afterwards": a second call uses the P of the first.
    The check catches the module that ``inspect_lazy`` builds and calls (a global forward hook),
    changes its A in place and calls it again on the same x: a P that is kept gives the first output
    again, a P rebuilt on every call follows the new A."""

    name = "P kept after the first call"

    def judge(self, case: Case) -> str | None:
        calls: list[tuple[nn.Module, tuple, object]] = []
        hook = nn.modules.module.register_module_forward_hook(lambda m, inp, out: calls.append((m, inp, out)))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                case.fn(*case.fresh())
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        finally:
            hook.remove()
        if not calls or not isinstance(calls[-1][2], torch.Tensor):
            return None
        module, inputs, out = calls[-1]  # the outermost module's hook runs last
        A = getattr(module, "A", None)
        if not isinstance(A, torch.Tensor):
            return None
        first = out.detach().clone()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with torch.no_grad():
                    A.copy_(A.flip(0))  # rows reversed: another column space
                second = module(*inputs)
        except Exception:  # noqa: BLE001
            return None
        if compare(second, first, rtol=1e-4, atol=1e-5) is not None:
            return (
                "P is built again on a later call (a second call, after A changed, projected onto the new A): "
                "build P only when it is None, on the first call, and keep it"
            )
        return None


def _flags(module: nn.Module) -> list[tuple[str, bool]]:
    return [
        (f"the sub-module {name!r} ({type(m).__name__})" if name else "the model", m.training)
        for name, m in module.named_modules()
    ]


class ModeRestored(Rule):
    """08.7's "every sub-module's training flag as it was": the flags of the model the answer was
    given, after it ran, against a fresh copy of the case's model."""

    name = "training flags restored"

    def judge(self, case: Case) -> str | None:
        model, before = case.args[0], case.fresh()[0]
        if not isinstance(model, nn.Module):
            return None
        for (name, was), (_, now) in zip(_flags(before), _flags(model)):
            if was != now:
                mode = lambda flag: "training" if flag else "eval"  # noqa: E731
                return (
                    f"{name} was in {mode(was)} mode and your function left it in {mode(now)} mode: record every "
                    "sub-module's training flag before eval() and put each one back afterwards (they need not agree)"
                )
        return None


class BuffersUnchanged(Rule):
    """08.7's "every buffer unchanged": BatchNorm's running statistics and its batch counter."""

    name = "buffers unchanged"
    early = True

    def judge(self, case: Case) -> str | None:
        model, before = case.args[0], case.fresh()[0]
        if not isinstance(model, nn.Module):
            return None
        for (name, was), (_, now) in zip(before.named_buffers(), model.named_buffers()):
            if was.shape != now.shape or not torch.equal(was, now):
                return (
                    f"the buffer {name} changed: a layer ran in training mode and folded this batch into its "
                    "running statistics; switch to eval mode before the first call"
                )
        return None


def returns_the_model(args, got) -> str | None:
    """08.8: "returns the model (the same object)"; the flags are the rule's to judge."""
    if got is not args[0]:
        return f"return the model you were given (the same object, changed in place), got {type(got).__name__}"
    return None


class BatchNormFrozen(Rule):
    """08.8: every BatchNorm layer (any subclass of _BatchNorm, at any depth) in eval mode, every other
    module's flag as it was (judged against a fresh copy of the case's model)."""

    name = "BatchNorm frozen, the rest as it was"

    def judge(self, case: Case) -> str | None:
        model, before = case.args[0], case.fresh()[0]
        if not isinstance(model, nn.Module):
            return None
        for (name, was), (_, now) in zip(before.named_modules(), model.named_modules()):
            what = f"the sub-module {name!r} ({type(now).__name__})" if name else "the model"
            if isinstance(was, nn.modules.batchnorm._BatchNorm):
                if now.training:
                    return f"{what} is a BatchNorm layer and is still in training mode: put it in eval mode"
            elif now.training != was.training:
                mode = "training" if was.training else "eval"
                return f"{what} is not a BatchNorm layer and was in {mode} mode: leave its flag as it was"
        return None
