"""Words tied to evidence: claims, the outputs stamp, sources, and the learner's voice.

* ``claim`` raises on a false statement, and a flipped claim in a real lesson makes nbval fail
  on that cell (the harness passes on the unflipped copy, so the failure has the right reason);
* every lesson asserts what it says about its own run: at least one claim in each lesson, three
  in the lessons that measure speed, memory or compiles;
* every stored notebook says which torch and machine made its outputs;
* every lesson ends with "Further reading" links to its primary sources, and no file the course
  names is missing from the repository;
* lesson prose speaks to the learner, never about tests or the machine the outputs were made on.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from torchcourse import ClaimError, claim
from torchcourse.authoring import stamp
from torchcourse.authoring.course import ROOT

LESSONS = sorted((ROOT / "notebooks").glob("*.py"))
NOTEBOOKS = [p for folder in ("notebooks", "solutions", "exercises") for p in sorted((ROOT / folder).glob("*.ipynb"))]
# lessons whose subject is a measurement (speed, memory, compiles): three claims or more
MEASURING = {"04", "05", "07", "09", "10", "11", "12", "13"}


def rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def _cells(py: Path) -> list[dict]:
    import jupytext

    return jupytext.read(py).cells


def test_claim_is_quiet_when_true_and_quotes_the_statement_when_false(capsys):
    claim(2 > 1, "two is more than one")
    assert capsys.readouterr().out == "checked: two is more than one\n"
    claim(True, "not shown", show=False)
    assert capsys.readouterr().out == ""
    with pytest.raises(ClaimError, match="compiled is faster.*Evidence: 3.0 s vs 1.0 s"):
        claim(3.0 < 1.0, "compiled is faster", evidence="3.0 s vs 1.0 s")
    import torch

    claim(torch.tensor(True), "a 0-d boolean tensor counts")
    with pytest.raises(ClaimError, match="cannot decide"):
        claim(torch.ones(3) > 0, "an ambiguous tensor is a bug in the lesson")
    with pytest.raises(TypeError):
        claim(True, "")


def _flip_first_claim(nb: dict) -> str:
    """Negate the first claim of the notebook's code cells; return that cell's new source."""
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and re.search(r"^\s*claim\(", src, re.MULTILINE):
            flipped = re.sub(r"^(\s*)claim\(", r"\1claim(not ", src, count=1, flags=re.MULTILINE)
            cell["source"] = flipped
            return flipped
    raise AssertionError("no claim found")


def test_a_flipped_claim_makes_the_lesson_fail_under_nbval(tmp_path):
    """Take the smallest lesson with a claim, copy it twice, negate one claim in one copy: nbval
    passes the copy as stored and fails the flipped one, naming ClaimError."""
    candidates = sorted(
        (p for p in (ROOT / "notebooks").glob("*.ipynb") if "claim(" in p.read_text(encoding="utf-8")),
        key=lambda p: p.stat().st_size,
    )
    assert candidates, "no lesson uses claim()"
    source = next((p for p in candidates if p.stem[:2] in {"02", "03", "01"}), candidates[0])
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    nb = json.loads(source.read_text(encoding="utf-8"))
    (tmp_path / "as_stored.ipynb").write_text(json.dumps(nb), encoding="utf-8")
    _flip_first_claim(nb)
    (tmp_path / "flipped.ipynb").write_text(json.dumps(nb), encoding="utf-8")

    def nbval(name: str) -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--nbval", "--nbval-current-env"]
        cmd += ["--nbval-sanitize-with", str(ROOT / "tests" / "sanitize.cfg"), name]
        return subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)

    good = nbval("as_stored.ipynb")
    assert good.returncode == 0, f"{source.name} as stored should pass:\n{good.stdout[-3000:]}"
    bad = nbval("flipped.ipynb")
    assert bad.returncode != 0, f"a flipped claim in {source.name} passed nbval"
    assert "ClaimError" in bad.stdout and "does not support it" in bad.stdout


def test_a_false_claim_raises_in_strict_mode_and_speaks_to_the_learner_otherwise(monkeypatch, capsys):
    monkeypatch.delenv("TORCHCOURSE_BUILD", raising=False)
    for value in ("1", "yes"):
        monkeypatch.setenv("TORCHCOURSE_STRICT_CLAIMS", value)
        with pytest.raises(ClaimError, match="compiled is faster"):
            claim(False, "compiled is faster", evidence="3.0 s vs 1.0 s")
    monkeypatch.delenv("TORCHCOURSE_STRICT_CLAIMS")
    monkeypatch.setenv("TORCHCOURSE_BUILD", "1")  # the build executes notebooks strictly
    with pytest.raises(ClaimError):
        claim(False, "compiled is faster")
    for env in ({"TORCHCOURSE_STRICT_CLAIMS": "0", "TORCHCOURSE_BUILD": "1"}, {}):
        monkeypatch.delenv("TORCHCOURSE_BUILD", raising=False)
        monkeypatch.delenv("TORCHCOURSE_STRICT_CLAIMS", raising=False)
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        capsys.readouterr()
        claim(False, "compiled is faster", evidence="3.0 s vs 1.0 s")  # no exception: a note
        out = capsys.readouterr().out
        assert "does not support the lesson's statement 'compiled is faster'" in out
        assert "Evidence: 3.0 s vs 1.0 s" in out and "differs from the one these outputs were made on" in out


def test_the_suite_itself_runs_claims_strictly():
    """Set by tests/conftest.py, so a bare `pytest` is as strict as `make test`."""
    assert os.environ.get("TORCHCOURSE_STRICT_CLAIMS") == "1"
    assert "export TORCHCOURSE_STRICT_CLAIMS" in (ROOT / "Makefile").read_text(encoding="utf-8")


_RUN_ALL = """
import sys, nbformat
from nbclient import NotebookClient
nb = nbformat.read(sys.argv[1], as_version=4)
NotebookClient(nb, timeout=600, kernel_name="python3", allow_errors=False).execute()
ran = [c for c in nb.cells if c.cell_type == "code" and c.source.strip()]
print("cells run:", sum(c.execution_count is not None for c in ran), "of", len(ran))
print("".join(o.get("text", "") for c in ran for o in c.outputs if o.get("name") == "stdout"))
"""


def test_a_learner_who_runs_all_reaches_the_last_cell_past_a_false_claim(tmp_path):
    """Learner mode, as in JupyterLab: the flipped claim prints its note and "Run all" goes on."""
    source = ROOT / "notebooks" / "02_storage_and_views.ipynb"
    nb = json.loads(source.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    _flip_first_claim(nb)
    path = tmp_path / "flipped.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in ("TORCHCOURSE_STRICT_CLAIMS", "TORCHCOURSE_BUILD")}
    run = subprocess.run(
        [sys.executable, "-c", _RUN_ALL, str(path)],
        cwd=ROOT / "notebooks",
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    counts = re.search(r"cells run: (\d+) of (\d+)", run.stdout)
    assert counts and counts[1] == counts[2], run.stdout[-2000:]
    assert "note: this run does not support the lesson's statement" in run.stdout


@pytest.mark.parametrize("py", LESSONS, ids=rel)
def test_every_lesson_asserts_its_claims(py):
    code = "\n".join(c.source for c in _cells(py) if c.cell_type == "code")
    n = len(re.findall(r"^\s*claim\(", code, re.MULTILINE))
    wanted = 3 if py.stem[:2] in MEASURING else 1
    assert n >= wanted, f"{rel(py)} has {n} claim(s); it needs {wanted} or more"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=rel)
def test_every_stored_notebook_says_what_made_its_outputs(nb):
    cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
    stamps = [c for c in cells if "outputs-stamp" in c.get("metadata", {}).get("tags", [])]
    assert len(stamps) == 1, f"{rel(nb)}: expected one outputs stamp, found {len(stamps)}"
    text = "".join(stamps[0]["source"]).strip()
    m = stamp.LINE.match(text)
    assert m, f"{rel(nb)}: the stamp {text!r} is not of the form 'Outputs made with torch V on CPU, DATE.'"
    assert m.group("torch").startswith(tuple("0123456789"))


def test_stamp_is_written_under_the_setup_cell_and_kept_by_exercises():
    text = (ROOT / "solutions" / "01_data_to_tensors.py").read_text(encoding="utf-8")
    bare = stamp.CELL.sub("", text)
    line = stamp.line("9.9.9", "a test CPU (1 core, CPU only)")
    stamped = stamp.write(bare, line)
    assert stamp.read(stamped) == line
    setup_at = stamped.index('"course-setup"')
    assert setup_at < stamped.index(line), "the stamp goes under the setup cell"
    assert stamp.write(stamped, line) == stamped, "writing the same stamp twice changes nothing"
    assert stamp.transplant(stamp.write(bare, "*other*"), stamped).count(line) == 1


def _further_reading(py: Path) -> str:
    md = "\n".join(c.source for c in _cells(py) if c.cell_type == "markdown")
    m = re.search(r"^#+ Further reading\s*$(.*?)(?=^#+ |\Z)", md, re.MULTILINE | re.DOTALL)
    return m.group(1) if m else ""


@pytest.mark.parametrize("py", LESSONS, ids=rel)
def test_every_lesson_has_further_reading_with_links(py):
    section = _further_reading(py)
    links = re.findall(r"\]\((https?://[^)\s]+)\)|<(https?://[^>\s]+)>", section)
    assert len(links) >= 2, f"{rel(py)}: a '## Further reading' section with two or more links is needed"


# What the learner's text must not talk about: the tests, the suite, the machine the outputs were
# made on, or how the lesson was written.
OFF_VOICE = re.compile(
    r"\bnbval\b|\bthe (?:test )?suite\b|\btest machine\b|\bthe tests?\b|\bby the tests\b|\bCI\b"
    r"|\bwhile (?:this|the) lesson was written\b|\bwhen (?:this|the) lesson was written\b",
    re.IGNORECASE,
)


@pytest.mark.parametrize("py", LESSONS + sorted((ROOT / "solutions").glob("*.py")), ids=rel)
def test_lesson_prose_speaks_to_the_learner(py):
    for cell in _cells(py):
        if cell.cell_type != "markdown" or {"course-nav", "outputs-stamp"} & set(cell.metadata.get("tags", [])):
            continue
        for line in cell.source.splitlines():
            assert not OFF_VOICE.search(line), f"{rel(py)}: {line.strip()!r} speaks about the tests, not to the learner"


# Files the course names: relative markdown links, and repository paths in backticks or prose.
REPO_PATH = re.compile(
    r"(?<![\w/.-])((?:docs|data|notebooks|solutions|exercises|torchcourse|tests|results)/[\w./-]*\w)"
)
TEXT_FILES = (
    [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
    + sorted((ROOT / "docs").rglob("*.md"))
    + [p for folder in ("notebooks", "solutions") for p in sorted((ROOT / folder).glob("*.py"))]
    + sorted((ROOT / "torchcourse").rglob("*.py"))
)


@pytest.mark.parametrize("path", TEXT_FILES, ids=rel)
def test_every_file_the_course_names_is_in_the_repository(path):
    text = path.read_text(encoding="utf-8")
    assert "REFERENCE_FIGURES.md" not in text, f"{rel(path)} cites REFERENCE_FIGURES.md: cite docs/reference-figures.md"
    missing = []
    for link in re.findall(r"\]\(([^)\s#]+)(?:#[^)]*)?\)", text):
        if re.match(r"^(https?:|mailto:)", link) or "{" in link:
            continue
        # links inside torchcourse's code are written into the notebooks: they resolve from there
        base = ROOT / "notebooks" if "torchcourse" in path.relative_to(ROOT).parts else path.parent
        target = (base / link).resolve()
        if not target.exists():
            missing.append(link)
    for name in REPO_PATH.findall(text):
        name = name.rstrip(".")
        if re.search(r"[*<{]|NN|NAME|slug", name) or name.startswith("results/"):
            continue  # a pattern, a placeholder (NN_slug, NAME), or an output that a command writes
        if not (ROOT / name).exists() and not (ROOT / name).with_suffix("").exists():
            missing.append(name)
    assert not missing, f"{rel(path)} names files that are not in the repository: {sorted(set(missing))}"
