"""The outputs stamp, generated: one line under the setup cell of every notebook,

    *Outputs made with torch 2.13.0+cpu on Intel(R) Xeon(R) ... (2 cores, CPU only), 2026-11-23.*

so a learner running another torch, or another machine, knows at once what the stored
outputs under each cell were made with. The build writes it into the ``.py`` source just
before it executes the notebook (so JupyterLab, which reads the inputs from the ``.py``, shows
it), and only then: a markdown-only refresh keeps the stamp of the run that made the outputs.
The cell carries the tag ``outputs-stamp``; authors never write it.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
import re
from importlib import metadata
from pathlib import Path

TAG = "outputs-stamp"
CELL = re.compile(r'^# %% \[markdown\] tags=\["' + TAG + r'"\]\n# (?P<line>.*)\n', re.MULTILINE)
LINE = re.compile(r"^\*Outputs made with torch (?P<torch>\S+) on (?P<machine>.+), (?P<date>\d{4}-\d\d-\d\d)\.\*$")


def cpu_summary() -> str:
    """The processor's model name and its core count, e.g. ``Intel(R) Xeon(R) ... (2 cores, CPU only)``.

    The build hides any GPU (``CUDA_VISIBLE_DEVICES=""``), so stored outputs are CPU outputs."""
    name = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for row in fh:
                if row.startswith("model name"):
                    name = row.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    name = re.sub(r"\s+", " ", name or platform.processor() or platform.machine() or "an unknown CPU")
    cores = os.cpu_count() or 1
    return f"{name} ({cores} core{'s' if cores != 1 else ''}, CPU only)"


def line(torch_version: str | None = None, machine: str | None = None, date: _dt.date | None = None) -> str:
    version = torch_version or metadata.version("torch")
    day = (date or _dt.date.today()).isoformat()
    return f"*Outputs made with torch {version} on {machine or cpu_summary()}, {day}.*"


def read(text: str) -> str | None:
    """The stamp line of a source's text, or None."""
    m = CELL.search(text)
    return m.group("line") if m else None


def write(text: str, stamp: str) -> str:
    """``text`` with its stamp cell set to ``stamp``; the cell is added under the setup cell
    (or under the first cell) when the source has none."""
    if CELL.search(text):
        return CELL.sub(lambda m: m.group(0).replace(m.group("line"), stamp), text, count=1)
    cell = f'# %% [markdown] tags=["{TAG}"]\n# {stamp}\n\n'
    setup = re.search(r'^# %%.*tags=\[[^\]]*"course-setup"', text, re.MULTILINE)
    start = setup.end() if setup else 0
    nxt = re.compile(r"^# %%", re.MULTILINE).search(text, start + 1 if setup else 0)
    if nxt is None:
        return text.rstrip("\n") + "\n\n" + cell.rstrip("\n") + "\n"
    if not setup:  # after the first cell
        nxt = re.compile(r"^# %%", re.MULTILINE).search(text, nxt.end())
        if nxt is None:
            return text.rstrip("\n") + "\n\n" + cell.rstrip("\n") + "\n"
    return text[: nxt.start()] + cell + text[nxt.start() :]


def apply(py: Path, stamp: str | None = None) -> None:
    """Write the stamp of the run about to execute ``py`` into the source."""
    text = py.read_text(encoding="utf-8")
    new = write(text, stamp or line())
    if new != text:
        py.write_text(new, encoding="utf-8")


def transplant(generated: str, current: str | None) -> str:
    """A generated exercises source keeps the stamp of its own last execution (the solutions
    stamp would otherwise overwrite it)."""
    own = read(current) if current else None
    return write(generated, own) if own else generated
