"""Progress across modules: ``progress()`` for a learner, ``merge`` for an instructor.

    from torchcourse import progress
    progress()                    # a table per module and a plot of what this learner has done

    python -m torchcourse.progress merge FILE_OR_DIR... [--out DIR]

The verdicts come from the store below (every ``check`` and ``reveal`` records its latest one,
on this machine only; ``TORCHCOURSE_PROGRESS`` moves or stops it).
The merge reads the files an instructor collects from a room (a folder is searched for
``*.json``) and prints, per exercise, how many learners solved it, tried it, or have not
started, with ``room-progress.png`` beside.

The store keeps the latest verdict per id in a small JSON file: by default
``~/.torchcourse/progress.json`` (outside the repository, never committed);
``TORCHCOURSE_PROGRESS=<path>`` moves it and ``TORCHCOURSE_PROGRESS=0`` turns recording off. In
the course's strict runs (the build, pytest, CI), in any process a test started, and with no
explicit path, verdicts are kept in memory for this process only, so stored outputs and tests
never depend on, or write to, a file on the machine. Writes go to a temporary file that
replaces the old one (atomic); a corrupt file is set aside as ``*.corrupt``. Nothing leaves the
machine. ``check`` and ``reveal`` import :func:`record` when they first record (not at package
load), so ``python -m torchcourse.progress`` runs without a double-import warning.

This module is callable, so ``from torchcourse import progress; progress()`` works however it
was imported (the module and the function share the name).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import sys
import tempfile
import types
from pathlib import Path
from typing import Any

import torchcourse.claims as claims
from torchcourse.progress_report import KINDS, VERSION, _empty, load

ENV = "TORCHCOURSE_PROGRESS"
OFF_VALUES = ("0", "off", "false", "no")

# verdicts kept when no file is used (strict runs); keyed like the file
_memory: dict[str, dict[str, dict[str, str]]] = {k: {} for k in KINDS}


def location() -> Path | None | str:
    """Where verdicts go: a path, ``"memory"`` (this process only) or None (recording off)."""
    value = os.environ.get(ENV, "").strip()
    if value.lower() in OFF_VALUES:
        return None
    if value:
        return Path(value).expanduser()
    if claims.strict() or os.environ.get("PYTEST_CURRENT_TEST"):  # a kernel started by a test inherits it
        return "memory"
    return Path.home() / ".torchcourse" / "progress.json"


def _write_atomic(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".progress-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True, ensure_ascii=False)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _set_aside_if_corrupt(path: Path) -> None:
    """Keep a corrupt file for inspection instead of overwriting it silently."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return
    try:
        ok = isinstance(json.loads(text), dict)
    except ValueError:
        ok = False
    if not ok:
        try:
            os.replace(path, path.with_name(path.name + ".corrupt"))
        except OSError:
            pass


def record(kind: str, item_id: str, verdict: str) -> None:
    """Keep ``verdict`` as the latest for ``item_id`` ("exercises": pass/fail/todo;
    "predictions": right/wrong/unanswered). Never raises: bookkeeping must not break a lesson."""
    if kind not in KINDS:
        return
    entry = {"verdict": verdict, "time": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")}
    try:
        where = location()
        if where is None:
            return
        if where == "memory":
            _memory[kind][item_id] = entry
            return
        _set_aside_if_corrupt(where)
        data = load(where)
        data[kind][item_id] = entry
        _write_atomic(where, data)
    except Exception as exc:  # a read-only home, a full disk: say so once, keep going
        _warn_once(f"progress not saved ({type(exc).__name__}: {exc}); set {ENV}=0 to turn it off")


_warned = False


def _warn_once(message: str) -> None:
    global _warned
    if not _warned:
        _warned = True
        print(message, file=sys.stderr)


def current() -> dict[str, Any]:
    """The verdicts recorded so far, wherever they are kept."""
    where = location()
    if where is None:
        return _empty()
    if where == "memory":
        return {"version": VERSION, **{k: dict(v) for k, v in _memory.items()}}
    return load(where)


__all__ = ["current", "load", "location", "progress", "record"]


def progress(*modules: str, draw: bool = True) -> None:
    """Print the learner's progress per module (exercises ✓/✗/not attempted of the registered
    total; predictions right/wrong/unanswered) and draw it; ``progress("03", "04")`` shows only
    those modules."""
    from torchcourse.progress_report import show

    show(current(), location(), draw=draw, modules=modules)


class _CallableModule(types.ModuleType):
    def __call__(self, *modules: str, draw: bool = True) -> None:
        progress(*modules, draw=draw)


sys.modules[__name__].__class__ = _CallableModule

if __name__ == "__main__":
    from torchcourse.progress_report import main

    sys.exit(main(sys.argv[1:]))
