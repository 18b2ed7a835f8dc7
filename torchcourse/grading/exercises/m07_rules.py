"""Module 07's rules and fakes: what the checks of m07.py use to watch an answer run.

Garbage-filled memory for 07.1, the shape-list property of 07.7, a fake accelerator in fake time
for 07.8, host tensors that record how they were pinned and copied for 07.9, and the memory-sized
steps and the counted peak measurement of 07.10.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch.utils._python_dispatch import TorchDispatchMode

from torchcourse.grading.compare import compare, describe
from torchcourse.grading.exercises._types import container, is_int
from torchcourse.grading.rules import Case, Rule, allocations, peak_bytes


class _GarbageMemory(TorchDispatchMode):
    """Fills the memory every ``empty`` hands out with garbage (NaN for floating point, -7 for
    integers), as uninitialised memory may hold: a result that is zeros only because the memory
    happened to hold zeros shows it."""

    _EMPTY = {"empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided", "empty_permuted"}

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func.overloadpacket.__name__ in self._EMPTY and isinstance(out, torch.Tensor):
            if out.device.type != "meta" and out.numel():
                if out.is_floating_point() or out.is_complex():
                    out.fill_(math.nan)
                elif out.dtype != torch.bool:
                    out.fill_(-7)
                else:
                    out.fill_(True)
        return out


@dataclass
class ZerosWhateverTheMemory(Rule):
    """07.1's "a tensor of zeros": zeros whatever the memory held before (torch.empty's memory is
    uninitialised, and NaN times 0 is NaN)."""

    name = "zeros"

    def judge(self, case: Case) -> str | None:
        args = case.fresh()
        try:
            with _GarbageMemory():
                got = case.fn(*args)
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        if not isinstance(got, torch.Tensor) or got.device.type == "meta" or not got.numel():
            return None
        if not bool((got == 0).all()):
            return (
                "your result is zeros only because the memory it was made in held zeros: torch.empty's memory "
                "is uninitialised, and garbage such as NaN stays garbage after * 0 or e - e; create zeros "
                "(torch.zeros, or .zero_())"
            )
        return None


def _shapes_as_named(args: tuple, got) -> str | None:
    """07.7: ``shapes`` is "a list of their shapes as tuples" (a torch.Size is a tuple)."""
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        return None  # the comparison has said what is wrong
    msg = container(list, "shapes")(args, got[1])
    if msg:
        return msg
    for i, shape in enumerate(got[1]):
        if not isinstance(shape, tuple):
            return f"shapes[{i}] has the right numbers, but it is a {describe(shape)}: give each shape as a tuple"
    return None


# --- 07.8 timing queued work -----------------------------------------------------------------------


class FakeDevice:
    """An accelerator in fake time. ``work()`` queues ``kernel`` seconds of device work and returns
    after ``launch`` host seconds; ``sync()`` makes the host wait until the queue is empty;
    ``clock()`` reads the host's time. ``backlog`` seconds of earlier work are queued at the start.
    Every call is recorded in ``events``."""

    def __init__(self, kernel: float, backlog: float = 0.0, launch: float = 2.0**-16) -> None:
        self.kernel, self.launch = kernel, launch
        self.host, self.busy_until = 0.0, backlog
        self.events: list[str] = []

    def work(self):
        self.events.append("work")
        self.busy_until = max(self.host, self.busy_until) + self.kernel
        self.host += self.launch

    def sync(self):
        self.events.append("sync")
        self.host = max(self.host, self.busy_until)

    def clock(self):
        self.events.append("clock")
        return self.host

    def __repr__(self) -> str:
        return "FakeDevice"


def _time_gpu_property(args, got):
    """07.8: sync before the first clock reading, fn() once, sync after it before the last reading."""
    fn, sync, clock = args
    dev = fn.__self__
    ev = dev.events
    if not isinstance(got, (int, float)) or isinstance(got, bool):
        return f"return the time in seconds as a number, got {describe(got)}"
    if ev.count("work") != 1:
        return f"fn ran {ev.count('work')} times; call it exactly once"
    w = ev.index("work")
    before, after = ev[:w], ev[w + 1 :]
    if "clock" not in before or "clock" not in after:
        return "read clock() once before calling fn() and once after it"
    start = len(before) - 1 - before[::-1].index("clock")  # the last reading before the work
    if "sync" not in before[:start]:
        return (
            "you started the clock while earlier work may still be queued; call sync() before the first clock() reading"
        )
    last_clock = len(after) - 1 - after[::-1].index("clock")
    if "sync" not in after[:last_clock]:
        return "you read the clock before the queued work finished; call sync() after fn() and before reading the clock"
    if not math.isclose(got, dev.kernel, rel_tol=1e-9):
        return f"expected {dev.kernel:.6g} s (the clock reading after the work minus the one before it), got {got:.6g}"
    return None


# --- 07.9 pinned memory and non_blocking copies -----------------------------------------------------


class HostTensor(torch.Tensor):
    """A CPU tensor that can be pinned even without an accelerator (pinning needs one) and records,
    in ``copies``, each copy made from it or from its pinned version: (pinned, non_blocking)."""

    copies: list

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = getattr(func, "__name__", "")
        src = args[0] if args else None
        if name == "pin_memory" and isinstance(src, HostTensor):
            with torch._C.DisableTorchFunctionSubclass():
                pinned = src.clone().as_subclass(PinnedTensor)
            pinned.copies = src.copies
            return pinned
        if name == "is_pinned" and isinstance(src, HostTensor):
            return isinstance(src, PinnedTensor)
        if name == "__deepcopy__" and isinstance(src, HostTensor):
            with torch._C.DisableTorchFunctionSubclass():
                twin = src.clone().as_subclass(type(src))
            twin.copies = []
            return twin
        non_blocking = bool(kwargs.get("non_blocking", False)) or any(a is True for a in args[1:])
        if name == "to" and isinstance(src, HostTensor):
            src.copies.append((isinstance(src, PinnedTensor), non_blocking))
        if name == "copy_" and len(args) > 1 and isinstance(args[1], HostTensor):
            args[1].copies.append((isinstance(args[1], PinnedTensor), non_blocking))
        with torch._C.DisableTorchFunctionSubclass():
            return func(*args, **kwargs)


class PinnedTensor(HostTensor):
    """What ``HostTensor.pin_memory()`` returns."""


def _host(t: torch.Tensor) -> HostTensor:
    h = t.as_subclass(HostTensor)
    h.copies = []
    return h


def _async_property(args, got):
    """07.9: a new dict, the same keys, each tensor pinned then copied with non_blocking=True."""
    batch, device = args
    if not isinstance(got, dict):
        return f"return a dict, got {describe(got)}"
    if set(got) != set(batch):
        return (
            f"the result should have every key of the batch, {sorted(batch)}, got {sorted(got)}: "
            "keep the values that are not tensors, unchanged"
        )
    for k, v in batch.items():
        if not isinstance(v, torch.Tensor):
            if got[k] is not v:
                return f"the value of {k!r} is not a tensor: keep it unchanged"
            continue
        with torch._C.DisableTorchFunctionSubclass():
            expected = v.as_subclass(torch.Tensor).to(device)
        out = got[k]
        if isinstance(out, torch.Tensor):
            with torch._C.DisableTorchFunctionSubclass():
                out = out.as_subclass(torch.Tensor)
        msg = compare(out, expected, rtol=0, atol=0)
        if msg:
            return f"{k!r}: {msg}"
        if not any(nb for _, nb in v.copies):
            return f"{k!r} was copied without non_blocking=True; ask for an asynchronous copy"
        if not any(pinned and nb for pinned, nb in v.copies):
            return f"{k!r} was copied from unpinned memory; pin it first with .pin_memory()"
    return None


# --- 07.10 the largest batch under a memory budget ----------------------------------------------


class BatchStep:
    """One step of a made-up job on a batch of ``n`` samples, with a known memory profile: a workspace
    of ``fixed`` elements, then ``temporaries`` results of ``n × width`` elements each, all alive at
    the end (elementwise ops only, so nothing but these tensors is allocated). Its peak is therefore
    exactly affine in ``n``: what the lesson's fit assumes. The check never tells an answer the
    costs: ``repr`` is just "step"."""

    def __init__(self, fixed: int, width: int, temporaries: int, dtype: torch.dtype) -> None:
        self.fixed, self.width, self.temporaries, self.dtype = fixed, width, temporaries, dtype

    def __call__(self, n: int) -> torch.Tensor:
        workspace = torch.empty(self.fixed, dtype=self.dtype)
        kept = [torch.ones(int(n), self.width, dtype=self.dtype)]
        for _ in range(self.temporaries - 1):
            kept.append(kept[-1].neg())
        return kept[-1][:0].sum() + workspace[:0].sum()

    def __repr__(self) -> str:
        return "step"


def measured_peak(fn) -> int:
    """Most bytes live at once while ``fn()`` runs, counting what it allocates (the lesson's measurement)."""
    return peak_bytes(allocations(fn))


class CountedPeak:
    """``peak(fn)``: :func:`measured_peak`, counting how many times the answer measured."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, fn) -> int:
        self.calls += 1
        return measured_peak(fn)

    def __repr__(self) -> str:
        return "peak"


def largest_batch_property(args, got) -> str | None:
    """07.10: the batch the answer returns fits the budget, and one more sample does not."""
    step, budget, _ = args
    if not is_int(got):
        return f"return the batch size as an int, got {describe(got)}"
    if got < 0:
        return f"a batch size is 0 or more, got {got}: return 0 when even one sample does not fit"
    at_n = measured_peak(lambda: step(got)) if got else 0
    if got and at_n > budget:
        return f"a batch of {got} does not fit: its peak is {at_n:,} bytes, over the budget of {budget:,}"
    at_next = measured_peak(lambda: step(got + 1))
    if at_next <= budget:
        return (
            f"a batch of {got} fits, but so does {got + 1} (peak {at_next:,} bytes, budget {budget:,}): "
            "return the largest batch that fits"
        )
    return None


def at_most_measurements(limit: int):
    """07.10's "at most ``limit`` calls to peak", read from the counter the answer was given."""

    def test(args, got) -> str | None:
        calls = args[2].calls if isinstance(args[2], CountedPeak) else 0
        if calls > limit:
            return (
                f"you measured {calls} times; measure at most {limit} (two small batches give the fixed and "
                "the per-sample cost: compute the answer from them instead of searching)"
            )
        return None

    return test
