"""The machine a benchmark ran on (CPU model, cores, threads, versions, a GPU if any): the
header of every report, the course's own (runner) and the side-by-side one (sidebyside)."""

from __future__ import annotations

import os
import platform
from typing import Any

import torch

from torchcourse.device import describe_device


def machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            cpu = next((line.split(":", 1)[1].strip() for line in fh if line.startswith("model name")), cpu)
    except OSError:
        pass
    info = {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "torch_threads": torch.get_num_threads(),
        "torch": torch.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    if torch.cuda.is_available():
        info["gpu"] = describe_device("cuda")
    return info
