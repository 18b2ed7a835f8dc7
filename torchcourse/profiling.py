"""torch.profiler with memory events, quietly: the one place the course starts it.

The profiler's C++ side writes start/stop lines and warnings to file descriptor 2, below
Python's ``sys.stderr``; :func:`profile_memory` sends them to /dev/null for the call, so a
notebook's stderr stays quiet and stable. Used by ``workloads.ga.bytes_allocated`` (a lesson's
measurement) and ``rules.allocations`` (a check's memory rule).
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable


def profile_memory(fn: Callable[[], object]) -> Any:
    """Run ``fn()`` under ``torch.profiler.profile(CPU, profile_memory=True)``; return the profile."""
    from torch.profiler import ProfilerActivity, profile

    sys.stderr.flush()
    saved, devnull = os.dup(2), os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    try:
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            fn()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)
    return prof
