"""Progress store: the latest verdict of every check and prediction, kept on this machine only.

A learner who comes back after a week should see which exercises they solved; an
instructor should see where a room is stuck. Every ``check(...)`` and ``reveal(...)`` calls
:func:`record`, which keeps the latest verdict per id in a small JSON file:

* default ``~/.torchcourse/progress.json`` (outside the repository, never committed);
* ``TORCHCOURSE_PROGRESS=<path>`` moves it; ``TORCHCOURSE_PROGRESS=0`` turns recording off;
* in the course's strict runs (the build, pytest, CI: ``TORCHCOURSE_STRICT_CLAIMS`` set), in any
  process a test started (``PYTEST_CURRENT_TEST``, which kernels inherit), and with no explicit
  path, verdicts are kept in memory for this process only, so stored outputs and tests never
  depend on, or write to, a file on the machine.

Writes go to a temporary file that replaces the old one (atomic); a corrupt file is set aside
as ``*.corrupt`` and a fresh one started. Nothing leaves the machine.

:mod:`torchcourse.progress` prints and draws it (``progress()``) and merges a room's files.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from torchcourse import claims

ENV = "TORCHCOURSE_PROGRESS"
OFF_VALUES = ("0", "off", "false", "no")
KINDS = ("exercises", "predictions")
VERSION = 1

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


def _empty() -> dict[str, Any]:
    return {"version": VERSION, **{k: {} for k in KINDS}}


def load(path: Path) -> dict[str, Any]:
    """The verdicts in ``path`` (empty when missing or unreadable: a corrupt file never
    stops a lesson)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return _empty()
    except (OSError, ValueError):
        return _empty()
    if not isinstance(data, dict):
        return _empty()
    out = _empty()
    for kind in KINDS:
        entries = data.get(kind)
        if isinstance(entries, dict):
            out[kind] = {
                str(k): v for k, v in entries.items() if isinstance(v, dict) and isinstance(v.get("verdict"), str)
            }
    return out


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
