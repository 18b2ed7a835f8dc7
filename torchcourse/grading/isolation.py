"""A check leaves the process as it found it, so a learner who runs a check cell twenty times in
one kernel gets the same verdict each time.

:func:`process_state` is a comparable picture of everything a check (its reference, the learner's
answer, its rules) could change and a later verdict or cell could feel: dynamo's caches of the
code it compiled (dynamo counts recompiles per code object, and after ``recompile_limit`` runs
falls back to eager: the 9th run of a check that compiles the same nested function would see
no graph), the automatic-dynamic state dynamo keeps per function, the dynamo, inductor and
functorch config, default dtype and device, RNG states, grad and anomaly mode, thread count,
deterministic flags, float32 matmul precision, warning filters, environment variables, print
options, torch function / dispatch modes left entered, and the attributes of torch's and
NumPy's namespaces (an answer that monkeypatches ``torch.add``). :class:`Isolated` takes it
before a check and puts it back afterwards.
"""

from __future__ import annotations

import copy
import os
import random
import sys
import types
import warnings
from typing import Any

import numpy as np
import torch

# Namespaces an answer might monkeypatch: their attributes are put back after every check.
_NAMESPACES: tuple[Any, ...] = (
    torch,
    torch.Tensor,
    torch.nn,
    torch.nn.functional,
    torch.nn.Module,
    torch.linalg,
    torch.fft,
    torch.testing,
    torch.compiler,
    torch.library,
    np,
    np.random,
    np.linalg,
)


def _configs() -> list[Any]:
    """The config modules a check or an answer may patch (imported lazily: importing inductor is slow)."""
    found = []
    for name in ("torch._dynamo.config", "torch._inductor.config", "torch._functorch.config"):
        module = sys.modules.get(name)
        if module is not None:
            found.append(module)
    return found


def _dynamo_codes() -> dict[int, tuple[types.CodeType, tuple[types.CodeType, ...]]]:
    """The code objects dynamo has compiled, each with its cache entries (their transformed code
    objects). Entries are told apart by identity, not counted: a check that drops a learner's entry
    and compiles one of its own leaves the count as it was. The picture holds the code objects, so
    while it lives no new object takes one of their ids."""
    convert_frame = sys.modules.get("torch._dynamo.convert_frame")
    if convert_frame is None:
        return {}
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    out = {}
    for weak in list(convert_frame.input_codes.seen) + list(convert_frame.output_codes.seen):
        code = weak()
        if code is not None:
            out[id(code)] = (code, tuple(entry.code for entry in _debug_get_cache_entry_list(code)))
    return out


def _pgo_state() -> Any:
    pgo = sys.modules.get("torch._dynamo.pgo")
    return None if pgo is None else (pgo._CODE_STATE, pgo._INIT_CODE_STATE)


def _counters() -> dict:
    utils = sys.modules.get("torch._dynamo.utils")
    return {} if utils is None else {k: dict(v) for k, v in utils.counters.items() if v}


def process_state() -> dict[str, Any]:
    """Everything a check must leave as it found it, as a dict of comparable values."""
    state: dict[str, Any] = {
        "default dtype": torch.get_default_dtype(),
        "default device": str(torch.get_default_device()),
        "grad mode": torch.is_grad_enabled(),
        "anomaly mode": torch.is_anomaly_enabled(),
        "threads": torch.get_num_threads(),
        "deterministic": (
            torch.are_deterministic_algorithms_enabled(),
            torch.is_deterministic_algorithms_warn_only_enabled(),
        ),
        "float32 matmul precision": torch.get_float32_matmul_precision(),
        "torch RNG": torch.get_rng_state().numpy().tobytes(),
        "NumPy RNG": _numpy_rng(),
        "Python RNG": random.getstate(),
        "warning filters": list(warnings.filters),
        "showwarning": warnings.showwarning,
        "environment": dict(os.environ),
        "torch print options": dict(vars(torch._tensor_str.PRINT_OPTS)),
        "NumPy print options": np.get_printoptions(),
        "torch function modes": torch._C._len_torch_function_stack(),
        "dispatch modes": torch._C._len_torch_dispatch_stack(),
        "stdout": (sys.stdout, sys.stderr),
        "dynamo caches": {k: v for k, v in _dynamo_codes().items() if v[1]},
        "dynamo counters": _counters(),
    }
    for module in _configs():
        state[module.__name__] = _config(module)
    for space in _NAMESPACES:
        state[f"attributes of {getattr(space, '__name__', space)}"] = dict(vars(space))
    return state


def _config(module: Any) -> dict[str, Any]:
    """A config module's values, read afresh and with mutable values copied. Not torch's read-only
    cached dict: code that updates a dict-valued setting in place (AOTInductor writes its device
    metadata into ``inductor.config.aot_inductor.metadata``) changes the live value, which the FX
    graph cache key reads, while the cached dict and ``save_config()`` keep the old one."""
    values = module.get_config_copy()
    for key, value in values.items():
        if isinstance(value, (dict, list, set)):
            try:
                values[key] = copy.deepcopy(value)
            except Exception:  # noqa: BLE001 - an uncopyable value is compared as it is
                pass
    return values


def _numpy_rng() -> tuple:
    kind, keys, *rest = np.random.get_state()
    return kind, keys.tobytes(), *rest


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The names of the parts of two :func:`process_state` pictures that differ (a submodule imported
    in between, ``torch._inductor`` on its first use, is no difference)."""
    out = []
    for key in before.keys() | after.keys():
        a, b = before.get(key), after.get(key)
        if key == "dynamo caches":
            if _left_behind(a or {}, b or {}):
                out.append(key)
            continue
        if key.startswith("attributes of ") and a != b:
            a, b = _no_modules(a), _no_modules(b)
        if a != b:
            out.append(key)
    return out


def _left_behind(before: dict, after: dict) -> list[int]:
    """Code objects holding a cache entry they did not hold before: what a check left behind, which
    counts towards dynamo's recompile limit and answers a later call in place of a fresh compile.
    Entries dropped are no trace of this kind: a check that must count the graphs an answer compiles
    (09.10, module 10's, module 17's) starts from ``torch.compiler.reset()``, as module 10's texts tell
    the answer to, and that drops what the learner compiled earlier in the kernel. It changes no
    check's verdict, but the learner sees it: their compiled functions compile again at their next
    call, so compile counts and the ids in ``TORCH_LOGS=recompiles`` start over, and a change the old
    compiled code did not see (a hook added afterwards) now takes effect; compile callbacks they
    registered are gone. Re-running the cells that compile puts their kernel back."""
    return [
        key
        for key, (_, entries) in after.items()
        if {id(e) for e in entries} - {id(e) for e in before.get(key, (None, ()))[1]}
    ]


def _no_modules(namespace: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in namespace.items() if not isinstance(v, types.ModuleType)}


def _restore_attributes(space: Any, before: dict) -> None:
    now = dict(vars(space))
    if now == before:
        return
    for name, value in before.items():
        if now.get(name, _GONE) is not value:
            try:
                setattr(space, name, value)
            except (AttributeError, TypeError):
                pass
    for name in now.keys() - before.keys():
        if isinstance(now[name], types.ModuleType):
            continue  # a submodule imported during the check (taking it away breaks its next import)
        try:
            delattr(space, name)
        except (AttributeError, TypeError):
            pass


_GONE = object()


_OPEN: list[Isolated] = []  # the checks running now, innermost last


def settings_at_start(module: Any) -> dict[str, Any] | None:
    """A config module's values when the innermost running check started (None outside a check, or
    when the module was imported during it): what a rule compares an answer's leftovers with."""
    return _OPEN[-1].before.get(module.__name__) if _OPEN else None


class Isolated:
    """``with Isolated():`` runs a check and then puts the process back as it was (see the module
    docstring); what the check compiled is forgotten, so its next run compiles afresh."""

    def __enter__(self) -> Isolated:
        self.before = process_state()
        _OPEN.append(self)
        self.codes = _dynamo_codes()
        pgo = _pgo_state()
        self.pgo = None if pgo is None else copy.deepcopy(pgo)
        self.torch_rng = torch.get_rng_state()
        self.numpy_rng = np.random.get_state()
        self.python_rng = random.getstate()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self in _OPEN:
            _OPEN.remove(self)
        b = self.before
        # modes an answer entered and never left (a `with` cut short, or __enter__ alone)
        while torch._C._len_torch_function_stack() > b["torch function modes"]:
            torch._C._pop_torch_function_stack()
        while torch._C._len_torch_dispatch_stack() > b["dispatch modes"]:
            torch._C._pop_torch_dispatch_stack()
        sys.stdout, sys.stderr = b["stdout"]
        for space in _NAMESPACES:
            _restore_attributes(space, b[f"attributes of {getattr(space, '__name__', space)}"])
        torch.set_default_dtype(b["default dtype"])
        if str(torch.get_default_device()) != b["default device"]:
            torch.set_default_device(None if b["default device"] == "cpu" else b["default device"])
        torch.set_grad_enabled(b["grad mode"])
        torch.set_anomaly_enabled(b["anomaly mode"])
        if torch.get_num_threads() != b["threads"]:
            torch.set_num_threads(b["threads"])
        # Set only what changed: setting a flag to the value it has is not a no-op (the matmul
        # precision setter also records an explicit fp32 precision, which the FX graph cache key
        # reads, so a fresh process would miss every entry this one writes: 17.5 after any check).
        if (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()) != b[
            "deterministic"
        ]:
            torch.use_deterministic_algorithms(b["deterministic"][0], warn_only=b["deterministic"][1])
        if torch.get_float32_matmul_precision() != b["float32 matmul precision"]:
            torch.set_float32_matmul_precision(b["float32 matmul precision"])
        torch.set_rng_state(self.torch_rng)
        np.random.set_state(self.numpy_rng)
        random.setstate(self.python_rng)
        warnings.filters[:] = b["warning filters"]
        warnings._filters_mutated()  # type: ignore[attr-defined]
        warnings.showwarning = b["showwarning"]
        for key in os.environ.keys() - b["environment"].keys():
            del os.environ[key]
        for key, value in b["environment"].items():
            if os.environ.get(key) != value:
                os.environ[key] = value
        torch.set_printoptions(**{k: v for k, v in b["torch print options"].items() if k != "sci_mode"})
        torch._tensor_str.PRINT_OPTS.sci_mode = b["torch print options"]["sci_mode"]
        np.set_printoptions(**b["NumPy print options"])
        for module in _configs():
            saved = b.get(module.__name__)
            if saved is None:  # imported during the check: its defaults are what the check found
                continue
            now = _config(module)
            for key, value in saved.items():
                if now.get(key, _GONE) != value:
                    setattr(module, key, value)
        self._forget_compiled()
        utils = sys.modules.get("torch._dynamo.utils")
        if utils is not None:
            utils.counters.clear()
            for key, values in b["dynamo counters"].items():
                utils.counters[key].update(values)

    def _forget_compiled(self) -> None:
        """Drop dynamo's cache of every code object the check compiled (or compiled again), and the
        automatic-dynamic state it recorded: the next run starts from the same counts."""
        from torch._C._dynamo.eval_frame import reset_code

        now = _dynamo_codes()
        for key in _left_behind(self.codes, now):
            reset_code(now[key][0])
        pgo = sys.modules.get("torch._dynamo.pgo")
        if pgo is not None and self.pgo is not None:
            pgo._CODE_STATE, pgo._INIT_CODE_STATE = self.pgo
