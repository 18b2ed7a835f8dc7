"""torchcourse: the small helper package of the course "PyTorch as a computation library".

What a notebook imports: ``check`` and ``hint`` for exercises, ``predict`` and ``reveal`` for
a prediction graded on this run, ``progress`` for the learner's table, ``claim`` for a lesson's
statement about this run, device and timing
helpers, and ``data_path`` for the course's data files.
"""

from __future__ import annotations

import os
from pathlib import Path

from torchcourse.claims import ClaimError, claim
from torchcourse.device import describe_device, gpu_skip_message, has_gpu, pick_device, synchronize
from torchcourse.grading.checks import check, hint
from torchcourse.predictions import predict, reveal
from torchcourse.timing import Timing, copy_bandwidth, format_seconds, measure, time_once

ROOT = Path(__file__).resolve().parent.parent

if os.environ.get("TORCHCOURSE_NO_COMPILER") == "1":  # started by a notebook that has no C++ compiler
    from torchcourse.compiletools import fall_back_without_compiler

    fall_back_without_compiler(force=True, quiet=True)


def __getattr__(name: str):
    """``torchcourse.progress``, imported on first use: a callable module (``progress()``) that is
    also ``python -m torchcourse.progress``, which runs cleanly only when not imported already."""
    if name == "progress":
        import importlib

        return importlib.import_module("torchcourse.progress")
    raise AttributeError(f"module 'torchcourse' has no attribute {name!r}")


def data_path(name: str) -> Path:
    """Absolute path of a file in the course's ``data/`` folder."""
    return ROOT / "data" / name


__all__ = [
    "ROOT",
    "ClaimError",
    "Timing",
    "check",
    "claim",
    "copy_bandwidth",
    "data_path",
    "describe_device",
    "format_seconds",
    "gpu_skip_message",
    "has_gpu",
    "hint",
    "measure",
    "pick_device",
    "predict",
    "progress",
    "reveal",
    "synchronize",
    "time_once",
]
