"""Device helpers: pick the best device, synchronise it, and describe it.

Course code is device-agnostic: it asks :func:`pick_device` once and passes the
result around, so the same notebook runs on CUDA (NVIDIA, or AMD through ROCm), Apple
MPS, Intel XPU or the CPU. The choice is PyTorch's own: ``torch.accelerator``
(torch 2.6 and later) names the one accelerator this build of PyTorch can use, so the
course does not keep its own list of backends. Older torch falls back to CUDA, then MPS.

XLA devices (Google TPUs, through the separate ``torch_xla`` package) are not
``torch.accelerator`` backends: their tensors are lazy and are timed with torch_xla's own
tools, so :func:`pick_device` never returns one.
"""

from __future__ import annotations

import torch


def _accelerator() -> torch.device | None:
    """The accelerator PyTorch would use (``torch.accelerator``), or None when there is none."""
    api = getattr(torch, "accelerator", None)
    if api is not None:
        current = api.current_accelerator()
        return current if current is not None and api.is_available() else None
    if torch.cuda.is_available():  # torch < 2.6
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return None


def pick_device(prefer: str | None = None) -> torch.device:
    """``torch.accelerator``'s device (CUDA, MPS, XPU, ...) when one is present, else the CPU.

    ``prefer="cpu"`` (or any device string) forces that device.
    """
    if prefer is not None:
        return torch.device(prefer)
    return _accelerator() or torch.device("cpu")


def has_gpu() -> bool:
    """True when an accelerator (a CUDA, ROCm, MPS or XPU device) can be used."""
    return pick_device().type != "cpu"


def synchronize(device: torch.device | str | None = None) -> None:
    """Wait for queued accelerator work to finish; a no-op on the CPU.

    Accelerator kernels run asynchronously: without this, a timer measures only the launch.
    """
    dev = torch.device(device) if device is not None else pick_device()
    if dev.type in ("cpu", "meta"):
        return
    accelerator = _accelerator()
    if accelerator is not None and accelerator.type == dev.type:
        api = getattr(torch, "accelerator", None)
        if api is not None:
            api.synchronize(dev if dev.index is not None else None)
            return
    if dev.type == "cuda" and torch.cuda.is_available():
        torch.cuda.synchronize(dev)
    elif dev.type == "mps":
        torch.mps.synchronize()


def describe_device(device: torch.device | str | None = None) -> str:
    """One line naming the device, e.g. ``cuda:0 NVIDIA H100 (79.1 GiB)`` or ``cpu (2 threads)``."""
    dev = torch.device(device) if device is not None else pick_device()
    if dev.type in ("cuda", "xpu"):
        backend = getattr(torch, dev.type)
        index = dev.index if dev.index is not None else backend.current_device()
        props = backend.get_device_properties(index)
        return f"{dev.type}:{index} {props.name} ({props.total_memory / 2**30:.1f} GiB)"
    if dev.type == "mps":
        return "mps (Apple GPU)"
    if dev.type == "cpu":
        return f"cpu ({torch.get_num_threads()} threads)"
    return str(dev)


def gpu_skip_message(what: str) -> str | None:
    """``None`` when an accelerator is present, else a sentence saying ``what`` was skipped and why."""
    if has_gpu():
        return None
    return (
        f"No accelerator here (torch.accelerator.is_available() is False): skipped {what}. "
        "On a machine with a GPU (CUDA, ROCm, Apple MPS or Intel XPU) this cell runs it."
    )
