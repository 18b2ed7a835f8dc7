"""Device helpers: pick the best device, synchronise it, and describe it.

Course code is device-agnostic: it asks :func:`pick_device` once and passes the
result around, so the same notebook runs on CUDA, Apple MPS or the CPU.
"""

from __future__ import annotations

import torch


def pick_device(prefer: str | None = None) -> torch.device:
    """CUDA if present, then MPS, then CPU (``prefer="cpu"`` forces the CPU)."""
    if prefer is not None:
        return torch.device(prefer)
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")


def has_gpu() -> bool:
    """True when a CUDA or MPS device can be used."""
    return pick_device().type != "cpu"


def synchronize(device: torch.device | str | None = None) -> None:
    """Wait for queued GPU work to finish; a no-op on the CPU.

    GPU kernels run asynchronously: without this, a timer measures only the launch.
    """
    dev = torch.device(device) if device is not None else pick_device()
    if dev.type == "cuda":
        torch.cuda.synchronize(dev)
    elif dev.type == "mps":
        torch.mps.synchronize()


def describe_device(device: torch.device | str | None = None) -> str:
    """One line naming the device, e.g. ``cuda:0 NVIDIA H100 (79.1 GiB)`` or ``cpu (2 threads)``."""
    dev = torch.device(device) if device is not None else pick_device()
    if dev.type == "cuda":
        index = dev.index if dev.index is not None else torch.cuda.current_device()
        props = torch.cuda.get_device_properties(index)
        return f"cuda:{index} {props.name} ({props.total_memory / 2**30:.1f} GiB)"
    if dev.type == "mps":
        return "mps (Apple GPU)"
    return f"cpu ({torch.get_num_threads()} threads)"


def gpu_skip_message(what: str) -> str | None:
    """``None`` when a GPU is present, else a sentence saying ``what`` was skipped and why."""
    if has_gpu():
        return None
    return (
        f"No GPU here (torch.cuda.is_available() is False and no MPS): skipped {what}. "
        "On a CUDA or Apple-silicon machine this cell runs it."
    )
