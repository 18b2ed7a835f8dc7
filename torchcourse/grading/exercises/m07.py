"""Module 07 "GPU offload": devices, transfers and their cost.

Every exercise about devices uses ``"meta"`` as the other device, so the checks run the
same on a CPU-only machine and on a CUDA one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn.utils.rnn import pack_sequence
from torch.utils._python_dispatch import TorchDispatchMode

from torchcourse.grading.checks import Exercise
from torchcourse.grading.compare import compare, describe
from torchcourse.grading.exercises._inputs import randint, randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises._types import container, python_int
from torchcourse.grading.rules import Calls, Case, Holds, NewObject, Rule

zeros_on = solution("07", "zeros_on")


add_on_device_of = solution("07", "add_on_device_of")


transfer_bytes = solution("07", "transfer_bytes")


matmul_gflops = solution("07", "matmul_gflops")


gpu_friendly = solution("07", "gpu_friendly")


batch_to = solution("07", "batch_to")


pack = solution("07", "pack")


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


def _zeros_cases():
    return [
        (randn(2, 3, seed=70), "meta"),
        (randint(0, 5, 4, 2, seed=71), "meta"),
        (randn(5, seed=72, dtype=torch.float64), "cpu"),
        (randint(0, 2, 3, 3, seed=73, dtype=torch.int8), torch.device("cpu")),
    ]


def _add_cases():
    return [
        (randn(3, 4, seed=74).to("meta"), randn(3, 4, seed=75)),
        (randn(2, 5, seed=76), randn(2, 5, seed=77)),
        (randn(4, seed=78).to("meta"), randn(4, seed=79, dtype=torch.float64)),
    ]


def _bytes_cases():
    big = randn(8, 10, seed=80)
    return [
        (randn(3, 4, seed=81),),
        (randn(5, seed=82, dtype=torch.float64),),
        (randint(0, 100, 100, seed=83, dtype=torch.int8),),
        (big[::2, :3],),
        (randn(6, 2, seed=84, dtype=torch.float16),),
    ]


def _friendly_cases():
    return [
        (randn(3, 2, seed=85, dtype=torch.float64), "meta"),
        (randint(0, 9, 5, seed=86), "meta"),
        (randn(4, seed=87, dtype=torch.float64), "cpu"),
        (randn(2, 2, seed=88), "meta"),
        (randint(0, 2, 3, seed=89, dtype=torch.bool), "cpu"),
        (randn(3, 2, seed=103, dtype=torch.float16), "meta"),  # a float, but not float64: kept
        (randn(4, seed=104, dtype=torch.bfloat16), "cpu"),
        (torch.complex(randn(3, seed=105, dtype=torch.float64), randn(3, seed=106, dtype=torch.float64)), "cpu"),
    ]


def _batch_cases():
    return [
        ({"x": randn(4, 3, seed=90), "y": randint(0, 3, 4, seed=91), "step": 7, "name": "batch-0"}, "meta"),
        ({"image": randn(2, 1, 3, 3, seed=92), "index": 12}, "cpu"),
        ({"a": randn(5, seed=93, dtype=torch.float64), "b": randn(2, 2, seed=94)}, "meta"),
        ({}, "meta"),  # an empty batch: still a new dict
        ({"only": "text", "n": 3}, "cpu"),  # nothing to move
        # a Parameter is a tensor (moved); a list of tensors is not a tensor (kept as it is)
        ({"w": nn.Parameter(randn(2, 3, seed=107)), "masks": [randn(2, seed=108), randn(3, seed=109)]}, "meta"),
        # a PackedSequence has a .to() method but is not a tensor: kept as it is
        ({"x": randn(3, seed=110), "seq": pack_sequence([randn(3, seed=111), randn(2, seed=112)])}, "meta"),
    ]


def _batch_to_in_place(batch, device):
    for k, v in batch.items():
        if isinstance(v, torch.Tensor):
            batch[k] = v.to(device)
    return batch


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


def _pack_cases():
    return [
        ([randn(2, 3, seed=95), randn(4, seed=96), randn(1, 2, 2, seed=97)],),
        ([randn(3, 2, seed=98).T, randn(5, seed=99)],),  # a transposed (non-contiguous) input
        ([randint(0, 9, 2, 2, seed=100), randint(0, 9, 3, seed=101), randint(0, 9, 1, seed=102).reshape(())],),
    ]


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


time_gpu = solution("07", "time_gpu")


def _time_gpu_cases():
    cases = []
    for kernel, backlog in ((2.0**-7, 2.0**-3), (2.0**-5, 0.0), (2.0**-4, 2.0**-2), (2.0**-10, 2.0**-8)):
        dev = FakeDevice(kernel, backlog)
        cases.append((dev.work, dev.sync, dev.clock))
    return cases


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


to_device_async = solution("07", "to_device_async")


def _async_cases():
    return [
        ({"x": _host(randn(4, 3, seed=95)), "y": _host(randint(0, 3, 4, seed=96)), "step": 7}, "meta"),
        ({"image": _host(randn(2, 1, 3, 3, seed=97).transpose(2, 3)), "name": "batch-1"}, "cpu"),
        ({"a": _host(randn(1, seed=98, dtype=torch.float64)), "b": _host(randn(0, 2, seed=99))}, "meta"),
        ({}, "cpu"),
        ({"only": "text", "n": 3}, "meta"),
    ]


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


def _async_in_place(batch, device):
    for k, v in batch.items():
        if isinstance(v, torch.Tensor):
            batch[k] = v.pin_memory().to(device, non_blocking=True)
    return batch


EXERCISES = [
    Exercise(
        "07.1",
        "Create directly on a device",
        zeros_on,
        cases=_zeros_cases,
        rules=[
            Calls(
                forbid=("device copy",),
                why="create the tensor directly on the device (device=...), not on the CPU and then moved",
            ),
            ZerosWhateverTheMemory(),
        ],
        hints=[
            "Every creation function takes dtype= and device=: torch.zeros(shape, dtype=..., device=...).",
            "Take the shape and dtype from t; create on `device` directly instead of creating on the CPU and moving.",
        ],
        wrong=[
            lambda t, device: torch.zeros(t.shape),
            lambda t, device: torch.zeros(t.shape, device=device),
            lambda t, device: torch.zeros_like(t),
            lambda t, device: torch.empty(t.shape, dtype=t.dtype, device=device).mul_(0),  # NaN * 0 is NaN
        ],
    ),
    Exercise(
        "07.2",
        "Compute on the device of the first operand",
        add_on_device_of,
        cases=_add_cases,
        hints=[
            "a + b needs both tensors on the same device (a 0-d CPU tensor is the one exception): move b first.",
            "a.device tells where a lives; move b there with .to(...).",
            "Move only: b.to(a) would also cast b to a's dtype, and a float64 b would lose precision.",
        ],
        wrong=[
            lambda a, b: a + b,
            lambda a, b: a.add_(b.to(a.device)),
            lambda a, b: a + b.to(a),
        ],  # Tensor.to(other) copies other's dtype too
    ),
    Exercise(
        "07.3",
        "Bytes moved by a transfer",
        transfer_bytes,
        cases=_bytes_cases,
        hints=[
            "A transfer copies every element of t: how many elements, times how many bytes each.",
            "Not every dtype takes 4 bytes: t.element_size() says how many (8 for float64, 1 for int8). "
            "Count the elements of t itself, not of the storage behind it: a slice copies only what it shows.",
        ],
        wrong=[
            lambda t: t.numel(),
            lambda t: t.numel() * 4,
            lambda t: len(t) * t.element_size(),
            lambda t: torch.tensor(t.numel() * t.element_size()),  # a tensor, not an int
        ],
        rules=[Holds(python_int("the byte count"))],
    ),
    Exercise(
        "07.4",
        "GFLOP/s of a matrix product",
        matmul_gflops,
        cases=lambda: [(500, 2.29e-3), (5000, 2.21), (5000, 57.88e-3), (10000, 0.25)],
        hints=[
            "An n×n by n×n product computes n² results, each a dot product of length n.",
            "Each term of a dot product is a multiply and an add: 2·n³ operations; 1 GFLOP = 1e9.",
        ],
        wrong=[
            lambda n, seconds: n**3 / seconds / 1e9,
            lambda n, seconds: 2 * n**3 / seconds,
            lambda n, seconds: 2 * n**2 / seconds / 1e9,
            lambda n, seconds: (2 * n - 1) * n * n / seconds / 1e9,  # another count than the text's 2n³
        ],
    ),
    Exercise(
        "07.5",
        "GPU-friendly dtype and device",
        gpu_friendly,
        cases=_friendly_cases,
        hints=[
            "t.to(device, dtype=...) moves and casts in one copy.",
            "Only float64 becomes float32; integer and bool tensors keep their dtype.",
        ],
        wrong=[
            lambda t, device: t.to(device),
            lambda t, device: t.to(device, dtype=torch.float32),
            lambda t, device: t.to(torch.float32 if t.dtype == torch.float64 else t.dtype),
            # every floating dtype to float32: float16 and bfloat16 too
            lambda t, device: t.to(device, torch.float32) if t.is_floating_point() else t.to(device),
            # complex128 to float32: the imaginary part dropped
            lambda t, device: (
                t.to(device, torch.float32) if t.dtype in (torch.float64, torch.complex128) else t.to(device)
            ),
        ],
    ),
    Exercise(
        "07.6",
        "Move a batch dictionary",
        batch_to,
        cases=_batch_cases,
        rules=[NewObject(what="dict")],
        hints=[
            "Build a new dict with a comprehension over batch.items().",
            "Test each value with isinstance(value, torch.Tensor) (true for a Parameter too) and keep other "
            "values as they are.",
        ],
        wrong=[
            lambda batch, device: {k: v.to(device) for k, v in batch.items()},
            lambda batch, device: batch,
            _batch_to_in_place,  # the right values, but in the caller's dict
            lambda batch, device: {k: v.to(device) for k, v in batch.items() if isinstance(v, torch.Tensor)},
            # misses tensor subclasses such as a Parameter
            lambda batch, device: {k: v.to(device) if type(v) is torch.Tensor else v for k, v in batch.items()},
            # moves the tensors inside a list value too
            lambda batch, device: torch.utils._pytree.tree_map(
                lambda v: v.to(device) if isinstance(v, torch.Tensor) else v, batch
            ),
            # moves every value that has a .to() method, a PackedSequence too
            lambda batch, device: {k: v.to(device) if hasattr(v, "to") else v for k, v in batch.items()},
        ],
    ),
    Exercise(
        "07.7",
        "Pack small tensors into one transfer (stretch)",
        pack,
        cases=_pack_cases,
        hints=[
            "Flatten each tensor to 1-D, then concatenate the pieces with torch.cat.",
            "view(-1) fails on a non-contiguous tensor (a transpose); reshape(-1) copies when it must.",
            "Keep each original shape as a tuple so the receiver can split and reshape.",
        ],
        wrong=[
            lambda tensors: (torch.cat(tensors), [tuple(t.shape) for t in tensors]),
            lambda tensors: (torch.cat([t.view(-1) for t in tensors]), [tuple(t.shape) for t in tensors]),
            lambda tensors: (torch.cat([t.reshape(-1) for t in tensors]), [t.numel() for t in tensors]),
            lambda tensors: (torch.cat([t.reshape(-1) for t in tensors]), [list(t.shape) for t in tensors]),
            lambda tensors: (torch.cat([t.reshape(-1) for t in tensors]), tuple(tuple(t.shape) for t in tensors)),
        ],
        rules=[Holds(_shapes_as_named)],
    ),
    Exercise(
        "07.8",
        "Time queued device work",
        time_gpu,
        cases=_time_gpu_cases,
        property=_time_gpu_property,
        hints=[
            "fn() only queues the work and returns; sync() waits until everything queued has finished.",
            "sync(); start = clock(); fn(); sync(); return clock() - start. The first sync() keeps earlier "
            "work out of your measurement, the second waits for fn's own work.",
        ],
        wrong=[
            lambda fn, sync, clock: (lambda start: (fn(), clock() - start)[1])(clock()),
            lambda fn, sync, clock: (lambda start: (fn(), sync(), clock() - start)[2])(clock()),
            lambda fn, sync, clock: (lambda start: (fn(), clock() - start, sync())[1])((sync(), clock())[1]),
        ],
    ),
    Exercise(
        "07.9",
        "Pinned, asynchronous copies of a batch",
        to_device_async,
        cases=_async_cases,
        property=_async_property,
        rules=[NewObject(what="dict")],
        hints=[
            "v.pin_memory() returns a copy of v in page-locked host memory, which the device can read "
            "while the host goes on.",
            "Then v.pin_memory().to(device, non_blocking=True); build a new dict, leave non-tensors as they are.",
        ],
        wrong=[
            lambda batch, device: {
                k: v.to(device, non_blocking=True) if isinstance(v, torch.Tensor) else v for k, v in batch.items()
            },
            lambda batch, device: {
                k: v.pin_memory().to(device) if isinstance(v, torch.Tensor) else v for k, v in batch.items()
            },
            _async_in_place,
        ],
    ),
]
