"""Build the course: generate exercises from solutions, execute every notebook.

    python -m torchcourse.authoring.build            # regenerate exercises/, execute stale notebooks
                                           # (when only markdown changed, copy it over: no execution)
    python -m torchcourse.authoring.build --all      # execute every notebook
    python -m torchcourse.authoring.build solutions/01_data_to_tensors.py   # just these (and their exercises)
    python -m torchcourse.authoring.build --check    # change nothing; exit 1 if anything is stale

The ``.py`` files (jupytext percent format) are the source of truth. Each is executed
into its ``.ipynb`` with ``jupytext --to ipynb --execute`` in a fixed environment (CPU
only, fixed hash seed), so stored outputs are reproducible. ``jupytext --sync`` is
never used: it picks inputs from whichever file is newer and can revert an edit.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("notebooks", "solutions", "exercises")

BEGIN = re.compile(r"^(?P<indent>\s*)(?P<md># )?### BEGIN SOLUTION\s*$")
END = re.compile(r"^\s*(# )?### END SOLUTION\s*$")
STUB_CODE = ("{indent}# YOUR CODE HERE", "{indent}raise NotImplementedError")
STUB_MARKDOWN = ("# *Write your answer here.*",)

# The fixed environment every notebook is executed in: CPU only, reproducible hashing,
# no torch logging, and a marker the notebooks can read.
BUILD_ENV = {
    "CUDA_VISIBLE_DEVICES": "",
    "PYTHONHASHSEED": "0",
    "TORCHCOURSE_BUILD": "1",
    "PYDEVD_DISABLE_FILE_VALIDATION": "1",
}
UNSET_ENV = ("TORCH_LOGS", "TORCHDYNAMO_VERBOSE", "MPLBACKEND")


class BuildError(Exception):
    """A source file the build cannot turn into an exercise notebook."""


def make_exercise(source: str, name: str = "<solution>") -> str:
    """Replace each ``### BEGIN SOLUTION`` ... ``### END SOLUTION`` region with a stub.

    In code the stub keeps the region's indentation and raises ``NotImplementedError``
    (so a check says "not attempted yet"); in a markdown cell (``# ### BEGIN SOLUTION``)
    it becomes an invitation to write the answer.
    """
    out: list[str] = []
    start: int | None = None
    for lineno, line in enumerate(source.splitlines(), 1):
        begin, end = BEGIN.match(line), END.match(line)
        if begin:
            if start is not None:
                raise BuildError(f"{name}:{lineno}: BEGIN SOLUTION inside the region opened at line {start}")
            start = lineno
            stub = STUB_MARKDOWN if begin.group("md") else STUB_CODE
            out.extend(s.format(indent=begin.group("indent")) for s in stub)
        elif end:
            if start is None:
                raise BuildError(f"{name}:{lineno}: END SOLUTION without a BEGIN SOLUTION")
            start = None
        elif start is None:
            out.append(line)
    if start is not None:
        raise BuildError(f"{name}:{start}: BEGIN SOLUTION is never closed")
    return "\n".join(out) + "\n"


def exercise_path(solution: Path) -> Path:
    return ROOT / "exercises" / solution.name


def generated_exercises() -> dict[Path, str]:
    """What every ``exercises/*.py`` should contain, from ``solutions/*.py`` (each keeping the
    outputs stamp of its own last execution)."""
    from torchcourse.authoring import stamp

    wanted = {}
    for p in sorted((ROOT / "solutions").glob("*.py")):
        target = exercise_path(p)
        current = target.read_text(encoding="utf-8") if target.exists() else None
        text = make_exercise(p.read_text(encoding="utf-8"), str(p.relative_to(ROOT)))
        wanted[target] = stamp.transplant(text, current)
    return wanted


def sources() -> list[Path]:
    """Every notebook source of the course, in teaching order within each folder."""
    return [p for folder in FOLDERS for p in sorted((ROOT / folder).glob("*.py"))]


def staleness(py: Path) -> str | None:
    """Why ``py``'s ``.ipynb`` must be rebuilt, or ``None`` when it is fresh."""
    import jupytext

    nb_path = py.with_suffix(".ipynb")
    if not nb_path.exists():
        return "no .ipynb"
    try:
        nb = jupytext.read(nb_path)
    except Exception as exc:
        return f"unreadable .ipynb ({exc})"
    text = jupytext.read(py)
    if [_identity(c) for c in text.cells] != [_identity(c) for c in nb.cells]:
        return "cell sources differ from the .py"
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and cell.source.strip() and cell.get("execution_count") is None:
            return f"code cell {i} was never executed"
    return None


def _identity(cell) -> tuple:
    """What must agree between a source's cell and its notebook's: type, source, tags, and
    JupyterLab's display metadata (a collapsed input)."""
    return cell.cell_type, cell.source, cell.metadata.get("tags", []), cell.metadata.get("jupyter", {})


def _is_setup(cell) -> bool:
    """The generated setup cell (torchcourse.authoring.colab): its local run prints one fixed line
    whatever its Colab branch says, so a new version of it is copied, not executed (nbval still
    runs it in every notebook)."""
    from torchcourse.authoring.colab import TAG

    return TAG in cell.metadata.get("tags", [])


def refresh_markdown(py: Path) -> bool:
    """Copy ``py``'s markdown cells into its executed ``.ipynb`` when nothing else differs, and
    return True; return False (and write nothing) when the notebook must be executed.

    Prose, navigation, display changes (a collapsed input) and a new setup cell do not change any
    output, so they need no re-execution: fixing a typo, or adding a module (every notebook's navigation header
    names the last one), costs seconds instead of a rebuild of the course. Any difference in a
    code cell's source or tags, in the sequence of cell types, or a code cell never executed,
    means execution.
    """
    import jupytext
    import nbformat

    nb_path = py.with_suffix(".ipynb")
    if not nb_path.exists():
        return False
    nb = nbformat.read(nb_path, as_version=4)
    text = jupytext.read(py)
    if [c.cell_type for c in nb.cells] != [c.cell_type for c in text.cells]:
        return False
    for stored, wanted in zip(nb.cells, text.cells):
        if stored.cell_type == "code" and (
            (stored.source != wanted.source and not _is_setup(wanted))
            or stored.metadata.get("tags", []) != wanted.metadata.get("tags", [])
            or (stored.source.strip() and stored.get("execution_count") is None)
        ):
            return False
    for stored, wanted in zip(nb.cells, text.cells):
        if stored.cell_type != "code":
            stored.source = wanted.source
            stored.metadata = wanted.metadata
        else:
            if _is_setup(wanted):
                stored.source = wanted.source
            if "jupyter" in wanted.metadata:  # a collapsed input, the setup cell's too
                stored.metadata["jupyter"] = wanted.metadata["jupyter"]
            else:
                stored.metadata.pop("jupyter", None)
    nbformat.write(nb, nb_path)
    return True


def execute(py: Path, outputs_stamp: str | None = None) -> tuple[Path, float, str | None]:
    """Stamp ``py`` with the torch and machine about to make its outputs, then execute it into
    its ``.ipynb``; return (path, seconds, error or None)."""
    from torchcourse.authoring import stamp

    stamp.apply(py, outputs_stamp)
    env = {k: v for k, v in os.environ.items() if k not in UNSET_ENV}
    env.update(BUILD_ENV)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "jupytext", "--to", "ipynb", "--execute", py.name],
        cwd=py.parent,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        return py, seconds, (proc.stdout + proc.stderr)[-4000:]
    return py, seconds, None


def write_navigation(check: bool) -> list[str]:
    """Refresh the generated previous/next cells of every lesson and solutions source."""
    from torchcourse.authoring.navigation import apply

    problems = []
    for py in [p for folder in ("notebooks", "solutions") for p in sorted((ROOT / folder).glob("*.py"))]:
        if apply(py, write=not check):
            if check:
                problems.append(f"{py.relative_to(ROOT)}: navigation cells are out of date")
            else:
                print(f"navigation updated in {py.relative_to(ROOT)}")
    return problems


def missing_stamps() -> list[str]:
    """Sources without the generated "Outputs made with torch" cell."""
    from torchcourse.authoring import stamp

    return [
        f"{py.relative_to(ROOT)}: no outputs stamp (execute it with the build)"
        for py in sources()
        if stamp.read(py.read_text(encoding="utf-8")) is None
    ]


def write_exercises(check: bool) -> list[str]:
    """Regenerate ``exercises/*.py``; in check mode only report differences."""
    problems = []
    wanted = generated_exercises()
    for path, text in wanted.items():
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if current != text:
            if check:
                problems.append(f"{path.relative_to(ROOT)}: differs from what solutions/ generates")
            else:
                path.write_text(text, encoding="utf-8")
                print(f"generated {path.relative_to(ROOT)}")
    for path in sorted((ROOT / "exercises").glob("*.py")):
        if path not in wanted:
            problems.append(f"{path.relative_to(ROOT)}: has no solutions/ source")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "paths", nargs="*", type=Path, help="only these .py sources (solutions pull in their exercises)"
    )
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when anything is stale")
    parser.add_argument("--all", action="store_true", help="execute every notebook, stale or not")
    parser.add_argument(
        "--jobs", "-j", type=int, default=1, help="notebooks executed at once (default 1: timings stay clean)"
    )
    args = parser.parse_args(argv)

    from torchcourse.authoring import verified

    problems = write_navigation(args.check)
    problems += verified.write_matrix(args.check)
    problems += write_exercises(args.check)
    if args.paths:
        chosen = []
        for p in args.paths:
            p = p.resolve().with_suffix(".py")
            chosen.append(p)
            if p.parent == ROOT / "solutions":
                chosen.append(exercise_path(p))
    else:
        chosen = sources()

    todo = []
    for py in chosen:
        if not py.exists():
            problems.append(f"{py}: no such source")
            continue
        reason = "requested" if (args.all or args.paths) else staleness(py)
        if reason and args.check:
            reason = staleness(py)
        if reason:
            todo.append((py, reason))

    if args.check:
        problems += [f"{py.relative_to(ROOT)}: {why}" for py, why in todo]
        problems += missing_stamps()
        for p in problems:
            print("stale:", p)
        print("build --check:", "OK, everything is fresh" if not problems else f"{len(problems)} problem(s)")
        return 1 if problems else 0
    if problems:
        for p in problems:
            print("error:", p)
        return 1

    if not (args.all or args.paths):
        refreshed = [py for py, _ in todo if refresh_markdown(py)]
        for py in refreshed:
            print(f"markdown refreshed in {py.relative_to(ROOT).with_suffix('.ipynb')} (no code changed)")
        todo = [(py, why) for py, why in todo if py not in refreshed]

    from torchcourse.authoring import stamp

    outputs_stamp = stamp.line() if todo else None
    failures = 0
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for py, seconds, error in pool.map(lambda item: execute(item[0], outputs_stamp), todo):
            rel = py.relative_to(ROOT)
            if error:
                failures += 1
                print(f"FAILED {rel} after {seconds:.1f} s\n{error}")
            else:
                print(f"executed {rel} in {seconds:.1f} s")
    print(f"build: {len(todo) - failures} notebook(s) executed, {failures} failed")
    # The instructor guide quotes the stored run times and the lessons' text: rewrite it from what
    # is stored now, or it is stale the moment a lesson is rebuilt.
    from torchcourse.authoring import guide

    guide.main([])
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
