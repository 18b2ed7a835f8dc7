"""Probes for the side-by-side benchmark (:mod:`torchcourse.bench.sidebyside`): the loads and
stores of the course's rewrite with almost none of its arithmetic, compiled by inductor. Set
beside the rewrite and a peer's loop on the same bytes, a probe tells the time of the memory
traffic from the time of the arithmetic. A probe is not an answer: never compared with NumPy."""

from __future__ import annotations

from typing import Any, Callable

import torch

PROBE_KM = "probe: same bytes, no scores (x0 + x1 to int8)"
PROBE_F2 = "probe: same bytes, no cost (x + y + z)"


def km_probe(C: torch.Tensor, out: torch.Tensor) -> None:
    out.copy_(C[0] + C[1])  # float32 to int8 truncates; the values do not matter here


def f2_probe(C: torch.Tensor, out: torch.Tensor) -> None:
    out.copy_(C[0] + C[1] + C[2])


_compiled: dict[Callable, Callable] = {}


def run_probe(kernel: Callable, *args: Any) -> Any:
    if kernel not in _compiled:
        _compiled[kernel] = torch.compile(kernel)
    compiled = _compiled[kernel]
    compiled(*args)
    return args[-1]
