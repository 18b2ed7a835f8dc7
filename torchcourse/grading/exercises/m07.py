"""Module 07 "GPU offload": devices, transfers and their cost.

Every exercise about devices uses ``"meta"`` as the other device, and the memory exercises
measure the CPU allocator, so the checks run the same on a CPU-only machine and on a CUDA one.
The rules and fakes the checks watch answers with live in ``m07_rules.py``, the inputs and the
wrong answers of the memory exercises in ``m07_cases.py``.
"""

from __future__ import annotations

import torch

from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises._types import python_int
from torchcourse.grading.exercises.m07_cases import (
    _add_cases,
    _all_allocated,
    _async_cases,
    _at_least_one,
    _batch_cases,
    _budget_cases,
    _bytes_cases,
    _counter_cases,
    _doubling_search,
    _fixed_is_first_peak,
    _friendly_cases,
    _largest_block,
    _not_clamped,
    _not_clamped_truncated,
    _pack_cases,
    _peak_reset_to_zero,
    _per_call_only,
    _reset_ignored,
    _rounded_fit,
    _strictly_below,
    _time_gpu_cases,
    _two_ints,
    _zeros_cases,
)
from torchcourse.grading.exercises.m07_rules import (
    ZerosWhateverTheMemory,
    _async_property,
    _shapes_as_named,
    _time_gpu_property,
    at_most_measurements,
    largest_batch_property,
)
from torchcourse.grading.rules import Calls, Holds, NewObject

zeros_on = solution("07", "zeros_on")


add_on_device_of = solution("07", "add_on_device_of")


transfer_bytes = solution("07", "transfer_bytes")


matmul_gflops = solution("07", "matmul_gflops")


gpu_friendly = solution("07", "gpu_friendly")


batch_to = solution("07", "batch_to")


pack = solution("07", "pack")


def _batch_to_in_place(batch, device):
    for k, v in batch.items():
        if isinstance(v, torch.Tensor):
            batch[k] = v.to(device)
    return batch


time_gpu = solution("07", "time_gpu")


to_device_async = solution("07", "to_device_async")


def _async_in_place(batch, device):
    for k, v in batch.items():
        if isinstance(v, torch.Tensor):
            batch[k] = v.pin_memory().to(device, non_blocking=True)
    return batch


# --- 07.10 and 07.11 device memory ----------------------------------------------------------------


largest_batch = solution("07", "largest_batch")


memory_counters = solution("07", "memory_counters")


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
    Exercise(
        "07.10",
        "The largest batch under a memory budget",
        largest_batch,
        cases=_budget_cases,
        property=largest_batch_property,
        rules=[Holds(at_most_measurements(4))],
        hints=[
            "Measure two small batches, e.g. peak(lambda: step(1)) and peak(lambda: step(2)): their difference "
            "is what one more sample costs.",
            "peak(n) = fixed + per_sample * n: get fixed from one measurement and per_sample, then solve "
            "fixed + per_sample * n <= budget for the largest whole n (floor division), and 0 when even one "
            "sample does not fit.",
        ],
        wrong=[
            _per_call_only,
            _rounded_fit,
            _at_least_one,
            _strictly_below,
            _fixed_is_first_peak,
            _doubling_search,
            _not_clamped,
            _not_clamped_truncated,
        ],
    ),
    Exercise(
        "07.11",
        "Count allocated and peak bytes",
        memory_counters,
        cases=_counter_cases,
        rules=[Holds(_two_ints)],
        hints=[
            "Keep two numbers as you go through the events: the bytes allocated now, and the most seen so far.",
            "A reset does not forget what is allocated: after it the peak starts again from what is allocated "
            "at that moment.",
        ],
        wrong=[_peak_reset_to_zero, _reset_ignored, _largest_block, _all_allocated],
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
]
