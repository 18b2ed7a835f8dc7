"""The evidence beside each lesson: a generated "Verified" block and the facts-by-release matrix.

A learner reading "`sum` of int8 widens to int64" cannot see that the sentence is tested, nor on
which torch releases it holds. The course keeps both: ``tests/facts/lNN.py`` (one assertion per
sentence) and the kept drift runs in ``docs/drift/`` (``drift-X.md``, with
``drift-X.facts.json`` beside it: each fact's outcome on torch X, written by ``make drift``).
This module turns them into

* a collapsed block at the end of each lesson (before the navigation footer), one row per
  fact: the sentence it backs, its outcome on each release (✓ passed, ✗ failed, "skipped"
  with the reason, "not recorded" where a kept run did not keep per-fact outcomes), and the
  upstream bug it tracks (``upstream=``);
* ``docs/verified-facts.md``, every fact by release, which the site shows as one page.

The build writes both like the navigation (markdown only, nothing re-executed). A release
without a per-fact record is never shown as a tick.
"""

from __future__ import annotations

import functools
import html
import importlib
import json
import pkgutil
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from torchcourse.authoring.course import ROOT, Module
from torchcourse.preflight import EXPECTED_TORCH

TAG = "verified"
DRIFT_DIR = ROOT / "docs" / "drift"
MATRIX = ROOT / "docs" / "verified-facts.md"
# Every lesson carries the block (False: only where a lesson has one, as while it was rolled out;
# ``python -m torchcourse.authoring.verified --add notebooks/NN_x.py`` adds one, markdown only).
EVERY_LESSON = True
MARK = {"passed": "✓", "failed": "✗ failed", "skipped": "skipped", None: "not recorded"}


@dataclass(frozen=True)
class Release:
    version: str
    source: str  # the kept file the outcomes come from, relative to docs/
    outcomes: dict[str, dict[str, str]] | None  # fact id -> {"outcome", "detail"}; None: not recorded

    @property
    def label(self) -> str:
        return f"{self.version} (pinned)" if self.version == EXPECTED_TORCH else self.version


def _version_key(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", v)[:3])


def releases(drift_dir: Path = DRIFT_DIR) -> list[Release]:
    """The pinned release and every kept drift run, oldest first, with their per-fact outcomes
    where a ``drift-X.facts.json`` was kept."""
    versions = {EXPECTED_TORCH}
    for p in drift_dir.glob("drift-*"):
        m = re.match(r"drift-(\d+\.\d+\.\d+)\.(md|facts\.json)$", p.name)
        if m:
            versions.add(m[1])
    out = []
    for v in sorted(versions, key=_version_key):
        path = drift_dir / f"drift-{v}.facts.json"
        outcomes = None
        if path.exists():
            try:
                outcomes = json.loads(path.read_text(encoding="utf-8"))["facts"]
            except (ValueError, KeyError, OSError):
                outcomes = None
        source = path if outcomes is not None else drift_dir / f"drift-{v}.md"
        out.append(Release(v, source.relative_to(drift_dir.parent).as_posix(), outcomes))
    return out


@functools.lru_cache(maxsize=1)
def all_facts() -> tuple:
    """Every registered fact (imports ``tests/facts/lNN.py``; they only define functions)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests import facts as pkg

    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda m: m.name):
        importlib.import_module(f"tests.facts.{info.name}")
    return tuple(pkg.FACTS)


def outcome(release: Release, fact_id: str) -> tuple[str | None, str]:
    """(outcome or None when not recorded, detail)."""
    if release.outcomes is None or fact_id not in release.outcomes:
        return None, ""
    entry = release.outcomes[fact_id]
    return entry.get("outcome"), entry.get("detail", "")


def _inline(text: str) -> str:
    """A lesson sentence as inline HTML: `code` kept, emphasis dropped, everything escaped."""
    parts = re.split(r"(`[^`]*`)", " ".join(text.split()))
    out = []
    for part in parts:
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
        else:
            out.append(html.escape(re.sub(r"(\*\*|\*|__)", "", part)))
    return "".join(out)


def _cell_text(release: Release, fact_id: str) -> str:
    result, detail = outcome(release, fact_id)
    mark = MARK.get(result, result or "not recorded")
    title = f' title="{html.escape(detail)}"' if detail else ""
    return f"<td{title}>{mark}</td>"


def _report_link(r: Release) -> str:
    """The release as a markdown link to its kept drift report (from a lesson), or its name."""
    report = DRIFT_DIR / f"drift-{r.version}.md"
    return f"[{r.label}](../docs/drift/{report.name})" if report.exists() else r.label


def block(lesson: str, facts: tuple | None = None, rels: list[Release] | None = None) -> str | None:
    """The lesson's Verified block (markdown: one HTML ``<details>``, then a link), or None when
    the lesson has no tested facts. A column per release with per-fact outcomes; the releases
    without them are named in one line, never shown as ticks."""
    facts = [f for f in (facts if facts is not None else all_facts()) if f.lesson == lesson]
    if not facts:
        return None
    rels = rels if rels is not None else releases()
    shown = [r for r in rels if any(outcome(r, f.id)[0] for f in facts)]
    unrecorded = [r for r in rels if r not in shown]
    n_up = sum(f.upstream is not None for f in facts)
    head = f"<b>Verified</b>: {len(facts)} statements of this lesson are tested facts"
    if n_up:
        head += f", {n_up} tracking a known torch bug"
    if shown:
        passed = [r.version for r in shown if all(outcome(r, f.id)[0] == "passed" for f in facts)]
        head += f"; all pass on torch {', '.join(passed)}" if passed else ""
    rows = ["<tr><th>statement</th>" + "".join(f"<th>torch {r.label}</th>" for r in shown) + "</tr>"]
    for f in facts:
        up = f"<br><i>Tracks an upstream bug: {_inline(f.upstream)}</i>" if f.upstream else ""
        rows.append(f"<tr><td>“{_inline(f.sentence)}”{up}</td>" + "".join(_cell_text(r, f.id) for r in shown) + "</tr>")
    legend = "✓ passed on that release; ✗ failed; skipped: not run there (hover for the reason)."
    tail = "Every fact of the course on every release: [the verified-facts matrix](../docs/verified-facts.md)."
    if unrecorded:
        tail += " Runs that kept no per-fact outcomes (no tick claimed): torch " + ", ".join(
            _report_link(r) for r in unrecorded
        )
        tail += "."
    lines = [
        '<details class="verified-facts">',
        f"<summary>{head}. Open for the torch releases each one was tested on.</summary>",
        '<table class="verified-facts">',
        *rows,
        "</table>",
        *([f"<p><small>{legend}</small></p>"] if shown else []),
        "</details>",
        "",
        tail,
    ]
    return "\n".join(lines)


def cells(m: Module, folder: str, had_block: bool) -> list:
    """The generated cell(s) the navigation puts before a lesson's footer ([] for exercises)."""
    from nbformat.v4 import new_markdown_cell

    if folder != "notebooks" or not (EVERY_LESSON or had_block):
        return []
    text = block(m.number)
    return [new_markdown_cell(text, metadata={"tags": [TAG]})] if text else []


def matrix(facts: tuple | None = None, rels: list[Release] | None = None) -> str:
    """``docs/verified-facts.md``: every fact by release, lesson by lesson."""
    facts = facts if facts is not None else all_facts()
    rels = rels if rels is not None else releases()
    out = [
        "# Verified facts by torch release",
        "",
        "<!-- generated by the build from tests/facts/ and docs/drift/: do not edit -->",
        "",
        "Each lesson's statements about what torch does are tested, one assertion per sentence "
        "(`tests/facts/lNN.py`). This page shows every such fact and its outcome on each torch "
        "release the course was run on: ✓ passed, ✗ failed, *skipped* (the fact does not apply "
        "there; the reason is in the run's record), *not recorded* (the kept run of that release "
        "did not keep per-fact outcomes: no tick is claimed). A fact marked *upstream* expects a "
        "known torch bug and fails the day torch fixes it. The runs: "
        + ", ".join(
            f"[{r.label}](drift/{Path(r.source).name})" if (DRIFT_DIR / Path(r.source).name).exists() else r.label
            for r in rels
        )
        + f" (see [the drift reports](drift/{'README'}.md)).",
        "",
        "| lesson | fact | " + " | ".join(r.label for r in rels) + " |",
        "|---|---|" + "---|" * len(rels),
    ]
    for f in facts:
        name = f"`{f.slug}`" + (" *upstream*" if f.upstream else "")
        marks = []
        for r in rels:
            res = outcome(r, f.id)[0]
            marks.append("✓" if res == "passed" else "✗" if res == "failed" else (res or "not recorded"))
        out.append(f"| {f.lesson} | {name} | " + " | ".join(marks) + " |")
    totals = []
    for r in rels:
        n = sum(outcome(r, f.id)[0] == "passed" for f in facts)
        totals.append(f"{r.label}: {n} of {len(facts)} passed")
    out += ["", "Totals: " + "; ".join(totals) + ".", ""]
    return "\n".join(out)


def write_matrix(check: bool) -> list[str]:
    """Refresh ``docs/verified-facts.md`` (the build calls this); in check mode only report."""
    text = matrix()
    current = MATRIX.read_text(encoding="utf-8") if MATRIX.exists() else None
    if current == text:
        return []
    if check:
        return [f"{MATRIX.relative_to(ROOT)}: out of date (the facts or the kept drift runs changed)"]
    MATRIX.write_text(text, encoding="utf-8")
    print(f"generated {MATRIX.relative_to(ROOT)}")
    return []


def insert_in_notebook(py: Path) -> bool:
    """Put ``py``'s Verified cell into its executed ``.ipynb`` before the footer (markdown only,
    nothing executed); True when the notebook changed. Once the cell exists, the build's
    markdown refresh keeps it current."""
    import jupytext
    import nbformat
    from nbformat.v4 import new_markdown_cell

    ipynb = py.with_suffix(".ipynb")
    wanted = next((c for c in jupytext.read(py).cells if TAG in c.metadata.get("tags", [])), None)
    if wanted is None or not ipynb.exists():
        return False
    nb = nbformat.read(ipynb, as_version=4)
    old = [c for c in nb.cells if TAG in c.metadata.get("tags", [])]
    if len(old) == 1 and old[0].source == wanted.source:
        return False
    cells = [c for c in nb.cells if TAG not in c.metadata.get("tags", [])]
    footer = max((i for i, c in enumerate(cells) if "course-nav" in c.metadata.get("tags", [])), default=len(cells))
    cells.insert(footer, new_markdown_cell(wanted.source, metadata={"tags": [TAG]}))
    nb.cells = cells
    nbformat.write(nb, ipynb)
    return True


CELL_START = re.compile(r"^# %%.*$", re.MULTILINE)


def insert_in_source(text: str, lesson: str) -> str:
    """``text`` (a lesson's percent-format source) with its Verified cell put, or replaced, just
    before the navigation footer; nothing else touched (the setup and navigation cells stay as
    they are, so the change is markdown only)."""
    body = block(lesson)
    starts = [m.start() for m in CELL_START.finditer(text)] + [len(text)]
    cells = [text[a:b] for a, b in zip(starts, starts[1:])]
    head = text[: starts[0]]
    cells = [c for c in cells if not c.startswith('# %% [markdown] tags=["verified"]')]
    if body is None:
        return head + "".join(cells)
    new = '# %% [markdown] tags=["verified"]\n' + "\n".join(f"# {ln}" if ln else "#" for ln in body.splitlines())
    footer = max(
        (i for i, c in enumerate(cells) if c.startswith('# %% [markdown] tags=["course-nav"]')), default=len(cells)
    )
    cells.insert(footer, new + "\n\n")
    return head + "".join(cells)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        description="Add the Verified block to lessons, in the .py and its stored .ipynb (markdown only)."
    )
    parser.add_argument("--add", nargs="+", type=Path, required=True, help="lesson sources notebooks/NN_x.py")
    args = parser.parse_args(argv)
    for py in args.add:
        py = py.resolve().with_suffix(".py")
        text = py.read_text(encoding="utf-8")
        new = insert_in_source(text, py.name[:2])  # lessons are named NN_slug.py
        if new != text:
            py.write_text(new, encoding="utf-8")
            print(f"Verified block written in {py}")
        if insert_in_notebook(py):
            print(f"Verified block copied into {py.with_suffix('.ipynb')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
