"""The course's table of contents: one place for module numbers, slugs, titles and times.

README's module table, module 00's overview and the consistency tests read it, so a
module is renamed or re-timed here and nowhere else. A module's time is read
from its lesson's "**Time.**" line, so the lesson stays the single source. Tables list only
modules whose lesson exists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PREREQ_PARAGRAPH = re.compile(r"\*\*Prerequisites\.\*\*(.*?)(?:\n#\s*\n|\n[^#])", re.DOTALL)
TIME_LINE = re.compile(r"\*\*Time\.\*\*\s+(?:about\s+)?(\d+) min teaching, (?:about\s+)?(\d+) min exercises")


@dataclass(frozen=True)
class Module:
    number: str
    slug: str
    title: str
    topics: str
    # what the module wants on Colab: "cpu", "gpu" (its subject is the GPU) or "gpu-optional"
    # (a few cells use a GPU when there is one); the setup cell (torchcourse.authoring.colab) says it
    runtime: str = "cpu"

    @property
    def stem(self) -> str:
        return f"{self.number}_{self.slug}"

    def path(self, folder: str = "notebooks", suffix: str = ".ipynb") -> Path:
        return ROOT / folder / f"{self.stem}{suffix}"

    @property
    def minutes(self) -> tuple[int, int] | None:
        """(teaching, exercises) minutes from the lesson's "**Time.** 25 min teaching, 15 min exercises" line."""
        if not self.written:
            return None
        m = TIME_LINE.search(self.path("notebooks", ".py").read_text(encoding="utf-8"))
        return (int(m.group(1)), int(m.group(2))) if m else None

    @property
    def needs(self) -> tuple[str, ...]:
        """What the whole lesson needs beyond Python and torch ("compiler", "gloo"), registered in
        ``torchcourse.preflight.MODULE_NEEDS`` (the preflight's verdict reads it there)."""
        from torchcourse.preflight import MODULE_NEEDS

        return tuple(n for n in MODULE_NEEDS.get(self.number, ()) if not n.startswith("partly:"))

    @property
    def partly(self) -> tuple[str, ...]:
        """What one section of the lesson needs (the rest runs without it)."""
        from torchcourse.preflight import MODULE_NEEDS

        return tuple(n.removeprefix("partly:") for n in MODULE_NEEDS.get(self.number, ()) if n.startswith("partly:"))

    @property
    def prerequisites(self) -> list[str]:
        """Module numbers named by the lesson's "**Prerequisites.**" paragraph ("Modules 00-06"
        counts as a range), in order, without duplicates and without this module."""
        if not self.written:
            return []
        m = PREREQ_PARAGRAPH.search(self.path("notebooks", ".py").read_text(encoding="utf-8"))
        if not m:
            return []
        text, known = re.sub(r"\n#\s*", " ", m.group(1)), {mod.number for mod in MODULES}
        found: list[str] = []
        for lo, hi, single in re.findall(r"\b(\d\d)\s*[-–]\s*(\d\d)\b|\b(\d\d)\b", re.sub(r"\(\S*\.ipynb\)", "", text)):
            numbers = [f"{n:02d}" for n in range(int(lo), int(hi) + 1)] if lo else [single]
            found += [n for n in numbers if n in known and n != self.number and n not in found]
        return found

    @property
    def written(self) -> bool:
        return self.path("notebooks", ".py").exists()


MODULES = [
    Module("00", "start_here", "Start here", "how the course works, notebooks, checks and hints, the preflight"),
    Module(
        "01",
        "data_to_tensors",
        "From data to tensors",
        "images, tables and text as tensors; creation functions; indexing; boxed vs unboxed numbers",
    ),
    Module(
        "02",
        "storage_and_views",
        "Storage and views",
        "untyped_storage, data_ptr, views, in-place ops, clone/detach, NumPy interop",
    ),
    Module(
        "03",
        "strides",
        "Strides",
        "size/offset/stride, transpose and permute, contiguity, view vs reshape, expand, as_strided, unfold",
    ),
    Module(
        "04",
        "dtypes",
        "Dtypes",
        "the dtype table, casting, promotion (NEP 50), overflow, float accuracy, half precision, TF32, "
        "set_default_dtype, complex dtypes, assert_close and tolerances",
    ),
    Module(
        "05",
        "vectorisation",
        "Vectorisation and measuring speed",
        "loops vs vectorised ops, broadcasting, reductions, timing with warm-up, min and median",
    ),
    Module(
        "06",
        "linear_algebra",
        "Linear algebra",
        "linalg.solve, batched solves, solve vs inv, lstsq, eig/eigh, Cholesky, SVD and low rank, pinv, cond, "
        "matmul GFLOP/s",
    ),
    Module(
        "07",
        "gpu_offload",
        "GPU offload",
        "device-agnostic code, async execution and synchronize, transfer cost, when the GPU loses, "
        "the caching allocator, peak memory, sizing a batch, out-of-memory errors",
        runtime="gpu",
    ),
    Module(
        "08",
        "modules_and_buffers",
        "nn.Module as a container for computation",
        "parameters vs buffers, state_dict, lazy projection module, train() and eval(), inference_mode, devices",
    ),
    Module(
        "09",
        "compile_fusion",
        "torch.compile: fusion and overhead",
        "Monte Carlo pi, generated code, break-even, cache, modes, compiled vs eager numerics, TORCH_TRACE",
    ),
    Module(
        "10",
        "recompilation",
        "Recompilation and dynamic shapes",
        "guards, recompiles on dtype/device/shape, dynamic=None/True/False, mark_dynamic, recompile_limit",
    ),
    Module(
        "11",
        "graph_breaks",
        "Graph breaks",
        "data-dependent control flow, explain(), torch.where, torch.cond, scalar outputs, custom ops, CUDA graphs",
    ),
    Module(
        "12",
        "compiling_numpy",
        "Compiling NumPy code",
        "K-Means step, numpy_default_float, tensors in and out, roofline, np.random under compile, "
        "NumPy that graph-breaks, Numba and JAX beside",
        runtime="gpu-optional",
    ),
    Module(
        "13",
        "case_study_ga",
        "Case study: genetic-algorithm fitness",
        "three fitness functions in five variants, the int8 sum trap, rewrites on columns, a compiled GA, "
        "Numba and JAX beside, the first call",
    ),
    Module(
        "14",
        "autograd_calculus",
        "Autograd as a calculus engine",
        "gradients of plain functions, Newton's method, penalties, torch.func",
    ),
    Module(
        "15",
        "distributed_tensors",
        "Distributed tensors",
        "torch.distributed with gloo, torchrun, DeviceMesh and DTensor, collectives",
    ),
    Module(
        "16",
        "indexing",
        "Advanced indexing: masks, gather and scatter",
        "boolean masks, integer-array indexing, where, nonzero, gather, index_select, scatter and index_add_, "
        "views vs copies",
    ),
    Module(
        "17",
        "compile_once",
        "Compile once: caches, export and ahead-of-time",
        "the inductor cache across processes, cache artefacts, torch.export and Dim, AOTInductor packages",
    ),
]


def by_number(number: str) -> Module:
    """The module numbered ``number`` ("00" .. "17")."""
    for m in MODULES:
        if m.number == number:
            return m
    raise KeyError(number)


def written_modules() -> list[Module]:
    """Modules whose lesson exists on disk, in teaching order."""
    return [m for m in MODULES if m.written]


def markdown_table(modules: list[Module] | None = None) -> str:
    """The module table as Markdown (module, title, topics, minutes)."""
    rows = ["| # | Module | Topics | Time (teaching + exercises) |", "|---|---|---|---|"]
    for m in modules if modules is not None else written_modules():
        time = f"{m.minutes[0]} + {m.minutes[1]} min" if m.minutes else "n/a"
        rows.append(f"| {m.number} | {m.title} | {m.topics} | {time} |")
    return "\n".join(rows)


README_TABLE = re.compile(r"(<!-- module-table[^\n]*-->\n)(.*?)(<!-- /module-table -->)", re.DOTALL)


def readme_table() -> str:
    """The module table as it stands in README.md now."""
    m = README_TABLE.search((ROOT / "README.md").read_text(encoding="utf-8"))
    return m.group(2) if m else ""


def write_readme_table() -> None:
    """Replace README.md's module table with the current one."""
    readme = ROOT / "README.md"
    text = README_TABLE.sub(
        lambda m: m.group(1) + markdown_table() + "\n" + m.group(3), readme.read_text(encoding="utf-8")
    )
    readme.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    import sys

    if "--write-readme" in sys.argv:
        write_readme_table()
    print(markdown_table())
