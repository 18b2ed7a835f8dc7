"""pytest set-up shared by the course's tests.

* nbval compares stdout and rich outputs but not stderr: torch and Jupyter write
  warnings there that depend on the machine, and the course keeps facts on stdout.
* At the end of a run, a summary line says how many notebooks, cells and checks ran.
"""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

try:
    import nbval.plugin as _nbval
except ImportError:  # the unit tests can run without nbval
    _nbval = None

if _nbval is not None and not getattr(_nbval.IPyNbFile, "_course_skips_stderr", False):
    _original_init = _nbval.IPyNbFile.__init__

    def _init_without_stderr(self, *args, **kwargs):
        _original_init(self, *args, **kwargs)
        self.skip_compare = tuple(self.skip_compare) + ("stderr",)

    _nbval.IPyNbFile.__init__ = _init_without_stderr
    _nbval.IPyNbFile._course_skips_stderr = True


_cells: dict[str, int] = collections.Counter()
_seconds: dict[str, float] = collections.defaultdict(float)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    path = report.nodeid.split("::")[0]
    if not path.endswith(".ipynb"):
        return
    _seconds[path] += report.duration
    if report.when == "call":
        _cells[path] += 1


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not _cells:
        return
    from torchcourse.checks import PASS, TODO

    root = Path(config.rootpath)
    n_checks = {"solutions": 0, "exercises": 0}
    for folder in n_checks:
        for nb in (root / folder).glob("*.ipynb"):
            if str(nb.relative_to(root)) not in _cells:
                continue
            cells = json.loads(nb.read_text())["cells"]
            mark = PASS if folder == "solutions" else TODO
            n_checks[folder] += sum(
                "".join(o.get("text", "")).count(f"{mark} ")
                for c in cells
                if c["cell_type"] == "code"
                for o in c.get("outputs", [])
            )
    slowest = sorted(_seconds.items(), key=lambda kv: -kv[1])[:3]
    terminalreporter.write_sep("=", "course summary")
    terminalreporter.write_line(
        f"nbval: {len(_cells)} notebooks, {sum(_cells.values())} cells executed and compared; "
        f"checks: {n_checks['solutions']} ✓ in solutions, {n_checks['exercises']} 'not attempted' in exercises"
    )
    terminalreporter.write_line("slowest notebooks: " + ", ".join(f"{p} {s:.0f} s" for p, s in slowest))
