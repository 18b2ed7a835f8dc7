"""The "Verified" block beside each lesson and the facts-by-release matrix.

A release shows a tick only where its kept run recorded that fact passing: a failure or a skip
shows as such, and a run without per-fact outcomes is named as "not recorded", never ticked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.facts import Fact
from torchcourse.authoring import drift, verified
from torchcourse.authoring.course import MODULES
from torchcourse.preflight import EXPECTED_TORCH

ROOT = Path(__file__).resolve().parent.parent


def _facts() -> tuple[Fact, ...]:
    def run() -> None:
        pass

    return (
        Fact("03", "a", "a `view` shares storage", run),
        Fact("03", "b", "*contiguous* copies", run, upstream="pytorch/pytorch#1; revisit the sentence once fixed"),
        Fact("04", "c", "not this lesson", run),
    )


def _drift_dir(tmp_path: Path) -> Path:
    d = tmp_path / "drift"
    d.mkdir()
    (d / "drift-2.10.0.md").write_text("# an old report without per-fact outcomes\n")
    (d / "drift-2.15.0.md").write_text("# report\n")
    record = {
        "03-a": {"outcome": "passed", "detail": ""},
        "03-b": {"outcome": "failed", "detail": "AssertionError: fixed upstream"},
    }
    (d / "drift-2.15.0.facts.json").write_text(json.dumps({"torch": "2.15.0", "facts": record}))
    pinned = {"03-a": {"outcome": "passed"}, "03-b": {"outcome": "skipped", "detail": "needs a CUDA GPU"}}
    (d / f"drift-{EXPECTED_TORCH}.facts.json").write_text(json.dumps({"facts": pinned}))
    return d


def test_releases_read_the_kept_runs(tmp_path):
    rels = verified.releases(_drift_dir(tmp_path))
    assert [r.version for r in rels] == ["2.10.0", EXPECTED_TORCH, "2.15.0"]
    assert rels[0].outcomes is None  # kept report, no per-fact record
    assert rels[2].outcomes["03-b"]["outcome"] == "failed"


def test_block_shows_failures_skips_and_unrecorded_runs(tmp_path, monkeypatch):
    d = _drift_dir(tmp_path)
    monkeypatch.setattr(verified, "DRIFT_DIR", d)
    text = verified.block("03", _facts(), verified.releases(d))
    assert text.count("<tr>") == 3 and "not this lesson" not in text  # header + this lesson's two facts
    row_b = next(ln for ln in text.splitlines() if "contiguous" in ln)
    assert '<td title="needs a CUDA GPU">skipped</td>' in row_b and "✗ failed" in row_b and "✓" not in row_b
    assert "Tracks an upstream bug: pytorch/pytorch#1" in row_b
    assert "<code>view</code>" in text and "*" not in text.split("</details>")[0]
    # 2.10.0 kept no per-fact outcomes: named after the block, no column, no tick
    assert "<th>torch 2.10.0" not in text
    assert "no tick claimed): torch [2.10.0](../docs/drift/drift-2.10.0.md)" in text
    assert "all pass on torch" not in text  # neither recorded release passed every fact
    assert "\n\n" not in text.split("</details>")[0]  # one HTML block: a blank line would end it


def test_block_for_a_lesson_without_facts_is_none():
    assert verified.block("99", _facts(), []) is None


def test_matrix_marks(tmp_path, monkeypatch):
    d = _drift_dir(tmp_path)
    monkeypatch.setattr(verified, "DRIFT_DIR", d)
    text = verified.matrix(_facts(), verified.releases(d))
    assert "| 03 | `b` *upstream* | not recorded | skipped | ✗ |" in text
    assert "| 03 | `a` | not recorded | ✓ | ✓ |" in text


def test_drift_writes_each_facts_outcome():
    lines = [
        drift.record_line("tests/test_facts.py::test_fact[03-a]", "call", "passed", None, ""),
        drift.record_line("tests/test_facts.py::test_fact[03-b]", "call", "failed", None, "E AssertionError: no"),
        drift.record_line(
            "tests/test_facts.py::test_fact[03-c]",
            "setup",
            "skipped",
            None,
            "('tests/facts/__init__.py', 89, 'Skipped: describes torch 2.13 and later')",
        ),
        drift.record_line("tests/test_facts.py::test_fact_quotes_its_lesson[03-a]", "call", "failed", None, ""),
    ]
    rec = drift.facts_record([json.loads(ln) for ln in lines], "2.15.0", 1)
    assert {k: v["outcome"] for k, v in rec["facts"].items()} == {"03-a": "passed", "03-b": "failed", "03-c": "skipped"}
    assert "describes torch 2.13" in rec["facts"]["03-c"]["detail"]


LESSONS = [m.path("notebooks", ".py") for m in MODULES if m.path("notebooks", ".py").exists()]


@pytest.mark.parametrize("py", LESSONS, ids=[p.name[:2] for p in LESSONS])
def test_lesson_ends_with_its_current_verified_block(py):
    cells = re.split(r"^# %%", py.read_text(encoding="utf-8"), flags=re.MULTILINE)
    has = [i for i, c in enumerate(cells) if c.startswith(' [markdown] tags=["verified"]')]
    if not has and not verified.EVERY_LESSON:
        pytest.skip("the Verified block is added lesson by lesson until every lesson has it")
    assert has == [len(cells) - 2], "the Verified block sits just before the navigation footer"
    body = "\n".join(ln.removeprefix("# ").removeprefix("#") for ln in cells[-2].splitlines()[1:]).strip()
    assert body == verified.block(py.name[:2]).strip(), f"{py.name}: Verified block out of date: run the build"


def test_adding_the_block_touches_only_its_cell(monkeypatch):
    monkeypatch.setattr(verified, "block", lambda lesson: "<details>\n<summary>x</summary>\n</details>\n\nlink")
    text = (
        "# ---\n# header\n# ---\n\n# %% [markdown]\n# # Title\n\n# %%\nx = 1\n\n"
        '# %% [markdown] tags=["course-nav"]\n# **Next:** [01](01.ipynb)\n'
    )
    once = verified.insert_in_source(text, "03")
    assert (
        once.replace(
            '# %% [markdown] tags=["verified"]\n# <details>\n# <summary>x</summary>\n# </details>\n#\n# link\n\n', ""
        )
        == text
    )
    assert verified.insert_in_source(once, "03") == once  # replaced, not added twice
