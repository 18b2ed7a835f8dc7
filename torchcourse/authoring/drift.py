"""The course on another torch: the version-tolerant mode and the drift report.

Learners rarely have the pinned torch (:data:`torchcourse.preflight.EXPECTED_TORCH`), so
``make drift TORCH=X`` runs the whole suite on torch X in its own venv and says, per
notebook, what still runs and what prints differently. Why each piece exists:

* :func:`drift_mode` decides when the suite is tolerant: the running torch is not the pinned
  one, or ``TORCHCOURSE_DRIFT=1`` forces it (``=0`` forces strict). On the pinned torch
  every compared output stays compared exactly, so tolerance never weakens the pinned run.
* In that mode ``tests/conftest.py`` executes cells tagged ``version-specific`` without
  comparing them, and adds ``tests/sanitize-drift.cfg`` (what every release rewrites:
  line numbers inside torch, caret underlines, Gloo chatter) to the base sanitize file.
* The conftest writes one JSON line per test report to ``$TORCHCOURSE_DRIFT_RECORD``;
  :func:`summarise` and :func:`markdown` turn those lines into ``results/drift-<X>.md``, and
  :func:`facts_record` into ``results/drift-<X>.facts.json`` beside it: each tested fact's
  outcome on that release (passed, failed, skipped with its reason), which the lessons'
  "Verified" blocks read once the report is kept in ``docs/drift/``.

    python -m torchcourse.authoring.drift --out results/drift-2.15.0.md -- <pytest arguments>

runs pytest with the mode forced on, writes the report, and exits non-zero when pytest
failed or collected nothing (exit code 5 is a failure: an empty run proves nothing).
``--facts-only`` writes only the facts' JSON (e.g. of ``tests/test_facts.py`` on the pinned torch).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from torchcourse.preflight import EXPECTED_TORCH

VERSION_SPECIFIC = "version-specific"  # the cell tag
ENV_FORCE = "TORCHCOURSE_DRIFT"
ENV_RECORD = "TORCHCOURSE_DRIFT_RECORD"
SANITIZE_DRIFT = Path(__file__).resolve().parents[2] / "tests" / "sanitize-drift.cfg"
DIFF_LINES = 6  # first differing lines kept per cell in the report


def running_torch() -> str:
    """The installed torch's version, without importing torch (the conftest asks early)."""
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return ""


def drift_mode() -> bool:
    """Whether the suite runs version-tolerant: forced by ``TORCHCOURSE_DRIFT`` (1/0), else
    whenever the installed torch is not the pinned release."""
    forced = os.environ.get(ENV_FORCE, "")
    if forced in ("0", "1"):
        return forced == "1"
    return running_torch().split("+")[0] != EXPECTED_TORCH


def record_line(nodeid: str, when: str, outcome: str, compared: bool | None, longrepr: str) -> str:
    """One JSON line for the record: what the conftest knows about a test report. Only the
    head of a failure is kept: the report shows the first differing lines, not the traceback."""
    kind = ""
    if outcome == "failed":
        kind = "differ" if "Cell outputs differ" in longrepr else "raise"
    detail = _head(longrepr, kind)
    if outcome == "skipped":  # the reason, e.g. "describes torch 2.13 and later"
        detail = re.sub(r"^Skipped: ", "", longrepr.strip().splitlines()[-1] if longrepr.strip() else "")[-200:]
    return json.dumps(
        {
            "nodeid": nodeid,
            "when": when,
            "outcome": outcome,
            "compared": compared,
            "kind": kind,
            "detail": detail,
        }
    )


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_NOISE = ("assert reference_output == test_output", "Skipping ", "Full output truncated")


def _head(longrepr: str, kind: str) -> str:
    lines = [_ANSI.sub("", ln).rstrip() for ln in longrepr.splitlines() if ln.strip()]
    if kind == "differ":  # from nbval's "mismatch 'stdout'" on: what differs, not the cell's input
        start = next((i for i, ln in enumerate(lines) if "mismatch" in ln), None)
        if start is None:
            start = next((i for i, ln in enumerate(lines) if "Cell outputs differ" in ln), 0) + 1
        body = [ln for ln in lines[start:] if not set(ln.strip()) <= set("-=") and not ln.strip().startswith(_NOISE)]
        return "\n".join(body[:DIFF_LINES])
    if kind == "raise":  # the exception line(s) of the kernel's traceback, else the end
        errs = [ln for ln in lines if "Error" in ln or "Exception" in ln]
        return "\n".join((errs or lines)[-3:])
    return ""


@dataclass
class Notebook:
    run: int = 0
    compared: int = 0
    differ: list[tuple[str, str]] = field(default_factory=list)  # (cell, detail)
    raised: list[tuple[str, str]] = field(default_factory=list)


def summarise(records: list[dict]) -> tuple[dict[str, Notebook], collections.Counter, list[str]]:
    """Per notebook: cells run, compared, differing, raising; plus the unit tests' outcomes
    and the unit tests that failed."""
    books: dict[str, Notebook] = collections.defaultdict(Notebook)
    units: collections.Counter = collections.Counter()
    failed_units = []
    for r in records:
        path, _, name = r["nodeid"].partition("::")
        if not path.endswith(".ipynb"):
            if r["when"] == "call" or r["outcome"] != "passed":
                units[r["outcome"]] += 1
                if r["outcome"] == "failed":
                    failed_units.append(f"{r['nodeid']} ({r['when']})")
            continue
        nb = books[path]
        if r["when"] == "call" and r["outcome"] != "skipped":
            nb.run += 1
            nb.compared += bool(r["compared"])
        if r["outcome"] == "failed":
            (nb.differ if r["kind"] == "differ" else nb.raised).append((name or r["when"], r["detail"]))
    return dict(sorted(books.items())), units, failed_units


def _first_line(notebook: Path, cell: str) -> str:
    """The first non-empty line of code cell ``Cell N`` (nbval's numbering): a cell's name
    a reader can find in the source."""
    try:
        n = int(cell.split()[-1])
        cells = [c for c in json.loads(notebook.read_text())["cells"] if c["cell_type"] == "code"]
        src = "".join(cells[n]["source"]).strip().splitlines()
        return src[0][:90] if src else ""
    except (ValueError, IndexError, OSError, KeyError, json.JSONDecodeError):
        return ""


def markdown(records: list[dict], torch_version: str, exit_code: int, root: Path) -> str:
    """The drift report: a verdict, the unit tests, one table row per notebook, then each cell
    that differs or raises with its first line and first differing lines."""
    books, units, failed_units = summarise(records)
    tot = Notebook()
    for nb in books.values():
        tot.run, tot.compared = tot.run + nb.run, tot.compared + nb.compared
        tot.differ += nb.differ
        tot.raised += nb.raised
    ok = exit_code == 0 and not tot.differ and not tot.raised and not failed_units and tot.run > 0
    out = [
        f"# Drift run: the course on torch {torch_version}",
        "",
        f"Stored outputs made with torch {EXPECTED_TORCH}; this run: torch {torch_version}, "
        f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
        "Cells tagged `version-specific` are executed, not compared; `tests/sanitize-drift.cfg` is added "
        "to the base sanitize file (see CONTRIBUTING, 'Other torch versions').",
        "",
        f"**Verdict: {'pass' if ok else 'FAIL'}** (pytest exit code {exit_code}"
        + (", no test collected" if exit_code == 5 else "")
        + f"): {len(books)} notebooks, {tot.run} cells run, {tot.compared} compared, "
        f"{len(tot.differ)} differ, {len(tot.raised)} raise.",
        "",
        "Unit tests: " + (", ".join(f"{n} {k}" for k, n in sorted(units.items())) or "none ran") + ".",
    ]
    out += [f"- failed: `{u}`" for u in failed_units]
    out += ["", "| notebook | cells run | compared | differ | raise |", "|---|---:|---:|---:|---:|"]
    for path, nb in books.items():
        out.append(f"| {path} | {nb.run} | {nb.compared} | {len(nb.differ)} | {len(nb.raised)} |")
    out.append(f"| **total** | {tot.run} | {tot.compared} | {len(tot.differ)} | {len(tot.raised)} |")
    for path, nb in books.items():
        for label, cells in (("raises", nb.raised), ("differs", nb.differ)):
            for cell, detail in cells:
                first = _first_line(root / path, cell)
                out += ["", f"### {path} · {cell} {label}" + (f": `{first}`" if first else ""), "", "```"]
                out += [detail or "(no detail)", "```"]
    return "\n".join(out) + "\n"


FACT_TEST = re.compile("^" + re.escape("tests/test_facts.py") + r"::test_fact\[(?P<id>.+)\]$")


def facts_record(records: list[dict], torch_version: str, exit_code: int) -> dict:
    """Each fact's outcome in this run, keyed by fact id: ``{"outcome": "passed" | "failed" |
    "skipped", "detail": ...}``, with the torch, the date and the commit it was made from."""
    facts: dict[str, dict[str, str]] = {}
    for r in records:
        m = FACT_TEST.match(r["nodeid"])
        if not m:
            continue
        entry = facts.setdefault(m["id"], {"outcome": "passed", "detail": ""})
        if r["outcome"] == "failed" or (r["outcome"] == "skipped" and entry["outcome"] != "failed"):
            entry.update(outcome=r["outcome"], detail=r.get("detail", ""))
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        commit = ""
    return {
        "torch": torch_version,
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d", time.gmtime()),
        "commit": commit,
        "pytest_exit_code": exit_code,
        "facts": dict(sorted(facts.items())),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, help="the report (default results/drift-<torch>.md)")
    parser.add_argument("--facts-only", action="store_true", help="write only the facts' JSON beside --out")
    parser.add_argument("pytest_args", nargs="*", help="after --: the pytest command line")
    args = parser.parse_args(argv)
    version = running_torch().split("+")[0] or "none"
    root = Path.cwd()
    out = args.out or root / "results" / f"drift-{version}.md"
    with tempfile.TemporaryDirectory() as tmp:
        record = Path(tmp) / "record.jsonl"
        env = {**os.environ, ENV_FORCE: "1", ENV_RECORD: str(record)}
        rc = subprocess.call([sys.executable, "-m", "pytest", *args.pytest_args], env=env)
        lines = record.read_text().splitlines() if record.exists() else []
    records = [json.loads(ln) for ln in lines]
    out.parent.mkdir(parents=True, exist_ok=True)
    facts = facts_record(records, version, rc)
    facts_out = out.with_suffix(".facts.json")
    facts_out.write_text(json.dumps(facts, indent=1) + "\n", encoding="utf-8")
    print(f"facts: {facts_out} ({len(facts['facts'])} facts)")
    if args.facts_only:
        return 0 if rc == 0 and facts["facts"] else (rc or 1)
    report = markdown(records, version, rc, root)
    out.write_text(report, encoding="utf-8")
    print(f"drift report: {out}")
    print(next(ln for ln in report.splitlines() if ln.startswith("**Verdict")))
    return 0 if report.count("**Verdict: pass**") else (rc or 1)


if __name__ == "__main__":
    raise SystemExit(main())
