"""A learner runs a whole exercises notebook, then runs it again in the same kernel: every check line
must be the same the second time. Each module's solutions notebook source (``solutions/NN_*.py``)
is executed cell by cell twice in one namespace of this process, as a kernel would, and the check
lines of both passes are compared.

Cost: a pass costs what the notebook's checks cost: every module runs, those whose checks compile,
export or start processes too (module 17: about 37 s for both passes on 2 cores, the others under 10 s).
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from torchcourse.grading.checks import CHECK_LINE

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.py"))


def code_cells(path: Path) -> list[tuple[str, bool]]:
    """(source, may raise) for each code cell of a jupytext percent file."""
    cells, current, header = [], None, ""
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# %%"):
            if current is not None and "[markdown]" not in header:
                cells.append(("\n".join(current), "raises-exception" in header))
            current, header = [], line
        elif current is not None:
            current.append(line)
    if current is not None and "[markdown]" not in header:
        cells.append(("\n".join(current), "raises-exception" in header))
    return cells


def run_pass(cells: list[tuple[str, bool]], namespace: dict) -> list[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for source, may_raise in cells:
            try:
                exec(compile(source, "<cell>", "exec"), namespace)  # noqa: S102 - the course's own notebooks
            except Exception:
                if not may_raise:
                    raise
    return [m.group(0) + line for m, line in _lines(out.getvalue())]


def _lines(text: str):
    for line in text.splitlines():
        m = CHECK_LINE.match(line)
        if m:
            yield m, line[m.end() :]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name[:2] for p in NOTEBOOKS])
def test_checks_say_the_same_the_second_time(path, monkeypatch):
    monkeypatch.chdir(path.parent)
    cells = code_cells(path)
    namespace: dict = {"__name__": "__main__"}
    first = run_pass(cells, namespace)
    second = run_pass(cells, namespace)
    assert first, f"{path.name}: no check line"
    assert all(line.startswith("✓") for line in first), first
    assert second == first, [(a, b) for a, b in zip(first, second) if a != b]


def test_cells_are_found():
    cells = code_cells(ROOT / "solutions" / "00_start_here.py")
    assert sum(bool(re.search(r"^check\(", s, re.M)) for s, _ in cells) >= 6
