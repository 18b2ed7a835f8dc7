"""pytest set-up shared by the course's tests.

* nbval compares stdout and rich outputs but not stderr: torch and Jupyter write
  warnings there that depend on the machine, and the course keeps facts on stdout.
* At the end of a run, a summary line says how many notebooks, cells and checks ran, and how
  many cells had their outputs compared.
* Other torch versions (``torchcourse.authoring.drift``): when the installed torch is not the pinned one
  (or ``TORCHCOURSE_DRIFT=1``), cells tagged ``version-specific`` are executed but not compared
  and ``tests/sanitize-drift.cfg`` is applied after the base sanitize file. On the pinned torch
  nothing changes: every compared cell is compared exactly. With ``TORCHCOURSE_DRIFT_RECORD``
  set, each test report is appended there as a JSON line for the drift report.
"""

from __future__ import annotations

import collections
import json
import os
from pathlib import Path

import pytest

from torchcourse.authoring import drift

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

# Claims are strict under the suite however it is started (make test, a bare pytest, CI): a
# statement the run does not support fails its cell. Kernels inherit this environment.
os.environ["TORCHCOURSE_STRICT_CLAIMS"] = "1"

DRIFT = drift.drift_mode()

if _nbval is not None and DRIFT and not getattr(_nbval.IPyNbFile, "_course_drift_sanitize", False):
    _original_sanitize = _nbval.IPyNbFile.setup_sanitize_files

    def _sanitize_with_drift(self):
        _original_sanitize(self)  # the base file first: the drift patterns see its replacements
        self.sanitize_patterns.update(_nbval.get_sanitize_patterns(drift.SANITIZE_DRIFT.read_text()))

    _nbval.IPyNbFile.setup_sanitize_files = _sanitize_with_drift
    _nbval.IPyNbFile._course_drift_sanitize = True


def pytest_configure(config: pytest.Config) -> None:
    # A plugin object, not a conftest hook: pytest gives a conftest's runtest hooks only the
    # items under its folder, and the notebooks are not under tests/.
    # The record file is taken out of the environment: a pytest started by a test (test_evidence)
    # must not append its reports to this run's record.
    record = os.environ.pop(drift.ENV_RECORD, None)
    if not config.pluginmanager.has_plugin("course-reports"):
        reports = _CourseReports(worker=hasattr(config, "workerinput"), record=record)
        config.pluginmanager.register(reports, "course-reports")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Drift mode: don't compare ``version-specific`` cells. Every notebook cell carries a
    ``compared`` property (its output is compared with the stored one) for the summary."""
    for item in items:
        options, cell = getattr(item, "options", None), getattr(item, "cell", None)
        if options is None or cell is None:
            continue
        if DRIFT and drift.VERSION_SPECIFIC in cell.get("metadata", {}).get("tags", []):
            options["check"] = False
        item.user_properties.append(("compared", bool(options["check"]) and cell.get("execution_count") is not None))


_cells: dict[str, int] = collections.Counter()
_compared: dict[str, int] = collections.Counter()
_seconds: dict[str, float] = collections.defaultdict(float)


class _CourseReports:
    """Counts executed and compared cells per notebook; in a drift run, records every report
    (the pytest-xdist controller records, its workers do not)."""

    def __init__(self, worker: bool, record: str | None) -> None:
        self.worker, self.record = worker, record

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        compared = dict(report.user_properties).get("compared")
        if self.record and not self.worker:
            line = drift.record_line(report.nodeid, report.when, report.outcome, compared, report.longreprtext)
            with open(self.record, "a", encoding="utf-8") as fh:
                fh.write(line + "\n")
        path = report.nodeid.split("::")[0]
        if not path.endswith(".ipynb"):
            return
        _seconds[path] += report.duration
        if report.when == "call":
            _cells[path] += 1
            _compared[path] += bool(compared)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    if not _cells:
        return
    from torchcourse.grading.checks import PASS, TODO

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
        f"nbval: {len(_cells)} notebooks, {sum(_cells.values())} cells executed, "
        f"{sum(_compared.values())} of them compared with the stored outputs"
        + (f" (drift mode, torch {drift.running_torch()}: version-specific cells not compared)" if DRIFT else "")
        + "; "
        f"checks: {n_checks['solutions']} ✓ in solutions, {n_checks['exercises']} 'not attempted' in exercises"
    )
    terminalreporter.write_line("slowest notebooks: " + ", ".join(f"{p} {s:.0f} s" for p, s in slowest))
