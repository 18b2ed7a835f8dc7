"""Tables and plots of progress: one learner's (``progress()``) and a room's (``merge``).

What exists is read from the course's own sources, not from an import of every exercise
module (that costs seconds): the exercise ids are the ``check("NN.k", ...)`` calls of
``solutions/NN_*.py``, the prediction ids the ``predict("NN.pK", ...)`` calls of
``notebooks/NN_*.py``. An id recorded but no longer in the sources still counts.

    python -m torchcourse.progress merge FILE_OR_DIR... [--out DIR]

merges the progress files of a room (a directory is searched for ``*.json``, e.g. a shared
JupyterHub folder with one file per learner) into one table and ``room-progress.png``.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

KINDS = ("exercises", "predictions")
VERSION = 1


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


ROOT = Path(__file__).resolve().parent.parent
CHECK_ID = re.compile(r"""\bcheck\(\s*["']([0-9]{2}[.][0-9]+)["']""")
PREDICT_ID = re.compile(r"""\bpredict\(\s*["']([0-9]{2}[.]p[0-9]+)["']""")


def _ids(folder: str, pattern: re.Pattern) -> dict[str, list[str]]:
    """Ids per module number, in source order, from ``folder/NN_*.py``."""
    out: dict[str, list[str]] = {}
    for py in sorted((ROOT / folder).glob("[0-9][0-9]_*.py")):
        found = pattern.findall(py.read_text(encoding="utf-8"))
        out[py.name[:2]] = list(dict.fromkeys(found))
    return out


def catalogue() -> dict[str, dict[str, list[str]]]:
    """{"exercises": {"01": ["01.1", ...]}, "predictions": {"01": ["01.p1", ...]}}."""
    return {"exercises": _ids("solutions", CHECK_ID), "predictions": _ids("notebooks", PREDICT_ID)}


def _module_of(item_id: str) -> str:
    return item_id.split(".")[0]


def _sort_key(item_id: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", item_id))


def learner_table(data: dict[str, Any], cat: dict[str, dict[str, list[str]]] | None = None) -> list[dict[str, Any]]:
    """One row per module: exercises solved / failed / not attempted of the total, predictions
    right / wrong / unanswered of the total."""
    cat = cat or catalogue()
    recorded_modules = {_module_of(i) for kind in ("exercises", "predictions") for i in data.get(kind) or {}}
    modules = sorted(set(cat["exercises"]) | set(cat["predictions"]) | recorded_modules)
    rows = []
    for mod in modules:
        row: dict[str, Any] = {"module": mod}
        for kind, good, bad in (("exercises", "pass", "fail"), ("predictions", "right", "wrong")):
            recorded = {i: e["verdict"] for i, e in (data.get(kind) or {}).items() if _module_of(i) == mod}
            ids = set(cat[kind].get(mod, [])) | set(recorded)
            row[kind] = {
                "total": len(ids),
                good: sum(v == good for v in recorded.values()),
                bad: sum(v == bad for v in recorded.values()),
            }
            row[kind]["open"] = row[kind]["total"] - row[kind][good] - row[kind][bad]
        rows.append(row)
    return [r for r in rows if r["exercises"]["total"] or r["predictions"]["total"]]


def format_learner(rows: list[dict[str, Any]]) -> str:
    """The table: one line per module, then the totals."""
    head = f"{'':8}{'exercises':<40}{'predictions'}"
    cols = f"{'module':<8}{'✓ solved':>9}{'✗ not yet':>11}{'… not tried':>12}{'of':>5}   "
    cols += f"{'right':>7}{'wrong':>7}{'unanswered':>12}{'of':>5}"
    total: dict[str, Counter] = {"exercises": Counter(), "predictions": Counter()}
    lines = [head, cols]
    for r in rows + ([None] if len(rows) > 1 else []):
        if r is None:
            r = {"module": "all", **total}
        else:
            for kind in total:
                total[kind].update(r[kind])
        e, p = r["exercises"], r["predictions"]
        lines.append(
            f"{r['module']:<8}{e['pass']:>9}{e['fail']:>11}{e['open']:>12}{e['total']:>5}   "
            f"{p['right']:>7}{p['wrong']:>7}{p['open']:>12}{p['total']:>5}"
        )
    return "\n".join(lines)


def _where_text(where: Any) -> str:
    if where is None:
        return "Progress recording is off (TORCHCOURSE_PROGRESS=0): nothing is kept."
    if where == "memory":
        return "Kept in this Python session only, in no file (set TORCHCOURSE_PROGRESS to a file path to keep it)."
    return f"Kept on this machine only, in {where} (TORCHCOURSE_PROGRESS moves it; =0 turns it off)."


def show(data: dict[str, Any], where: Any, draw: bool = True, modules: tuple[str, ...] = ()) -> None:
    """Print the learner's table (all modules, or only ``modules``), say where it is kept, and
    draw it."""
    rows = learner_table(data)
    if modules:
        rows = [r for r in rows if r["module"] in {str(m).zfill(2) for m in modules}]
    print(format_learner(rows))
    print(_where_text(where))
    if draw:
        plot_learner(rows)


def plot_learner(rows: list[dict[str, Any]]):
    """Two stacked bar charts, exercises and predictions, one bar per module."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(1, 2, figsize=(9, 0.28 * len(rows) + 1.6), sharey=True)
    labels = [r["module"] for r in rows]
    parts = {
        "exercises": (
            ("pass", "solved", "#2a9d8f"),
            ("fail", "not yet right", "#e76f51"),
            ("open", "not attempted", "#d9d9d9"),
        ),
        "predictions": (
            ("right", "right", "#2a9d8f"),
            ("wrong", "wrong", "#e76f51"),
            ("open", "unanswered", "#d9d9d9"),
        ),
    }
    for ax, (kind, segs) in zip(axes, parts.items()):
        left = [0] * len(rows)
        for key, name, color in segs:
            vals = [r[kind][key] for r in rows]
            ax.barh(labels, vals, left=left, color=color, label=name)
            left = [a + b for a, b in zip(left, vals)]
        ax.set_title(kind)
        ax.invert_yaxis() if kind == "exercises" else None
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=3, fontsize=7, frameon=False)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes[0].set_ylabel("module")
    fig.tight_layout()
    plt.show()
    return fig


# ---- the room: several learners' files -------------------------------------------------


def find_files(paths: list[Path]) -> list[Path]:
    """The progress files named, a directory searched (recursively) for ``*.json``."""
    found = []
    for p in paths:
        if p.is_dir():
            found += sorted(q for q in p.rglob("*.json") if q.is_file())
        elif p.is_file():
            found.append(p)
    return found


def read_room(files: list[Path]) -> tuple[list[dict[str, Any]], list[Path]]:
    """The learners' verdicts, and the files skipped (unreadable, or not a progress file)."""
    import json

    learners, skipped = [], []
    for f in files:
        try:
            raw = json.loads(f.read_text(encoding="utf-8"))
            ok = isinstance(raw, dict) and any(isinstance(raw.get(k), dict) for k in KINDS)
        except (OSError, ValueError):
            ok = False
        if ok:
            learners.append(load(f))
        else:
            skipped.append(f)
    return learners, skipped


def room_table(learners: list[dict[str, Any]]) -> list[tuple[str, int, int, int]]:
    """Per exercise and prediction id: (id, solved/right, tried (wrong), not started). A learner
    counts once per id, with their latest verdict."""
    cat = catalogue()
    rows = []
    for kind, good, bad in (("exercises", "pass", "fail"), ("predictions", "right", "wrong")):
        ids = {i for mod in cat[kind].values() for i in mod} | {i for d in learners for i in d[kind]}
        for item in sorted(ids, key=_sort_key):
            verdicts = [d[kind].get(item, {}).get("verdict") for d in learners]
            n_good = sum(v == good for v in verdicts)
            n_bad = sum(v == bad for v in verdicts)
            rows.append((item, n_good, n_bad, len(learners) - n_good - n_bad))
    return rows


def format_room(rows: list[tuple[str, int, int, int]], n: int) -> str:
    lines = [
        f"{n} learner(s). Per exercise: solved / tried, not solved / not started;"
        " per prediction: right / wrong / unanswered."
    ]
    for item, a, b, c in rows:
        if a or b:  # ids nobody touched are summed per module below
            bar = "█" * a + "▒" * b + "·" * c
            lines.append(f"{item:>7}  {a:>3} {b:>3} {c:>3}  {bar}")
    untouched = Counter(_module_of(i) for i, a, b, _ in rows if not (a or b))
    if untouched:
        lines.append("not started by anyone: " + ", ".join(f"{m}: {k}" for m, k in sorted(untouched.items())))
    return "\n".join(lines)


def plot_room(rows: list[tuple[str, int, int, int]], n: int, out: Path) -> Path:
    """A PNG of where the room stands: one stacked bar per exercise of the modules anyone started."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    started = {_module_of(i) for i, a, b, _ in rows if a or b}
    shown = [r for r in rows if _module_of(r[0]) in started and ".p" not in r[0]]
    preds = [r for r in rows if _module_of(r[0]) in started and ".p" in r[0]]
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.22 * max(len(shown), len(preds), 4) + 1.5))
    for ax, data, names in (
        (axes[0], shown, ("solved", "tried, not solved", "not started")),
        (axes[1], preds, ("right", "wrong", "unanswered")),
    ):
        labels = [r[0] for r in data]
        left = [0] * len(data)
        for k, (name, color) in enumerate(zip(names, ("#2a9d8f", "#e76f51", "#d9d9d9"))):
            vals = [r[k + 1] for r in data]
            ax.barh(labels, vals, left=left, color=color, label=name)
            left = [a + b for a, b in zip(left, vals)]
        ax.invert_yaxis()
        ax.set_xlim(0, max(n, 1))
        ax.set_xlabel("learners")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=7, frameon=False)
        ax.tick_params(axis="y", labelsize=7)
    axes[0].set_title(f"Exercises ({n} learners)", pad=18)
    axes[1].set_title("Predictions", pad=18)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m torchcourse.progress", description="Merge a room's progress files."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    merge = sub.add_parser("merge", help="merge progress files (or folders of them) into one table and a PNG")
    merge.add_argument("paths", nargs="+", type=Path)
    merge.add_argument("--out", type=Path, default=Path("."), help="folder for room-progress.png (default: here)")
    args = parser.parse_args(argv)
    files = find_files(args.paths)
    if not files:
        print("no progress files found in", " ".join(map(str, args.paths)))
        return 1
    learners, skipped = read_room(files)
    for f in skipped:
        print(f"skipped {f}: not a readable progress file")
    if not learners:
        print("no readable progress files")
        return 1
    rows, n = room_table(learners), len(learners)
    print(format_room(rows, n))
    png = plot_room(rows, n, args.out / "room-progress.png")
    print(f"plot: {png}")
    return 0
