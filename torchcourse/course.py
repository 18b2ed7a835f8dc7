"""The course's table of contents: one place for module numbers, slugs, titles and times.

README's module table, module 00's overview and the consistency tests read it, so a
module is renamed or re-timed here and nowhere else. ``minutes`` are (teaching,
exercises) as measured in a run-through; ``None`` marks a module still being written.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Module:
    number: str
    slug: str
    title: str
    topics: str
    minutes: tuple[int, int] | None = None

    @property
    def stem(self) -> str:
        return f"{self.number}_{self.slug}"

    def path(self, folder: str = "notebooks", suffix: str = ".ipynb") -> Path:
        return ROOT / folder / f"{self.stem}{suffix}"

    @property
    def written(self) -> bool:
        return self.path("notebooks", ".py").exists()


MODULES = [
    Module("00", "start_here", "Start here", "how the course works, notebooks, checks and hints, the preflight", (25, 15)),
    Module("01", "data_to_tensors", "From data to tensors",
           "images, tables and text as tensors; creation functions; indexing; boxed vs unboxed numbers"),
    Module("02", "storage_and_views", "Storage and views",
           "untyped_storage, data_ptr, views, in-place ops, clone/detach, NumPy interop"),
    Module("03", "strides", "Strides",
           "size/offset/stride, transpose and permute, contiguity, view vs reshape, expand, as_strided, unfold"),
    Module("04", "dtypes", "Dtypes",
           "the dtype table, casting, promotion (NEP 50), overflow, float accuracy, half precision, TF32"),
    Module("05", "vectorisation", "Vectorisation and measuring speed",
           "loops vs vectorised ops, broadcasting, reductions, timing with warm-up, min and median"),
    Module("06", "linear_algebra", "Linear algebra",
           "linalg.solve, batched solves, solve vs inv, lstsq, eig/eigh, pinv, cond, matmul GFLOP/s"),
    Module("07", "gpu_offload", "GPU offload",
           "device-agnostic code, async execution and synchronize, transfer cost, when the GPU loses"),
    Module("08", "modules_and_buffers", "nn.Module as a container for computation",
           "parameters vs buffers, state_dict, lazy projection module, inference_mode, devices"),
    Module("09", "compile_fusion", "torch.compile: fusion and overhead",
           "Monte Carlo pi, generated code, break-even, cache, modes"),
    Module("10", "recompilation", "Recompilation and dynamic shapes",
           "guards, recompiles on dtype/device/shape, dynamic kernels, recompile_limit"),
    Module("11", "graph_breaks", "Graph breaks",
           "data-dependent control flow, explain(), torch.where, torch.cond, scalar outputs"),
    Module("12", "compiling_numpy", "Compiling NumPy code",
           "K-Means step, numpy_default_float, tensors in and out, roofline"),
    Module("13", "case_study_ga", "Case study: genetic-algorithm fitness",
           "three fitness functions in five variants, the int8 sum trap, a compiled GA"),
    Module("14", "autograd_calculus", "Autograd as a calculus engine",
           "gradients of plain functions, Newton's method, penalties, torch.func"),
    Module("15", "distributed_tensors", "Distributed tensors",
           "torch.distributed with gloo, torchrun, DeviceMesh and DTensor, collectives"),
]


def by_number(number: str) -> Module:
    """The module numbered ``number`` ("00" .. "15")."""
    for m in MODULES:
        if m.number == number:
            return m
    raise KeyError(number)


def written_modules() -> list[Module]:
    """Modules whose lesson exists on disk, in teaching order."""
    return [m for m in MODULES if m.written]


def markdown_table(modules: list[Module] | None = None) -> str:
    """The module table as Markdown (module, title, topics, minutes)."""
    rows = ["| # | Module | Topics | Time (teach + exercises) |", "|---|---|---|---|"]
    for m in modules if modules is not None else MODULES:
        time = f"{m.minutes[0]} + {m.minutes[1]} min" if m.minutes else "n/a"
        rows.append(f"| {m.number} | {m.title} | {m.topics} | {time} |")
    return "\n".join(rows)
