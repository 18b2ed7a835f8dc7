#!/usr/bin/env python3
"""The learner's own copy of the course: work/ (git-ignored), made by `make lab` (and the hub, the
container and Binder, with --dest), where the learner writes answers and keeps outputs.

    python3 scripts/workcopy.py                  # work/ beside the repository
    python3 scripts/workcopy.py --dest ~/course  # elsewhere (the hub: each user's home)

The first run copies the lessons, exercises and worked answers (.ipynb) and the page the lessons
link to. Later runs add what is new, and refresh a file only where the learner has not changed
it since it was copied (work/.course-copy.json records what was copied): a learner's file is
never overwritten. Where both changed, the course's new version is put beside it as
``NAME.new.ipynb`` and the run says so. So `git pull` in the repository never clashes with
answers, and the next `make lab` brings the new lessons.

Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("notebooks", "exercises", "solutions")
EXTRA = ("docs/reference-figures.md",)  # linked from the lessons as ../docs/...
MANIFEST = ".course-copy.json"


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def learner_version(src: Path) -> bytes:
    """What the learner's copy holds: the file, less the course's own pairing of each notebook with
    a .py source (jupytext's ``formats``), so that saving a notebook in the copy writes no .py twin."""
    data = src.read_bytes()
    if src.suffix != ".ipynb":
        return data
    try:
        nb = json.loads(data)
    except ValueError:
        return data
    jt = nb.get("metadata", {}).get("jupytext")
    if not isinstance(jt, dict) or "formats" not in jt:
        return data
    jt.pop("formats")
    if not jt:
        nb["metadata"].pop("jupytext")
    return (json.dumps(nb, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


def course_files(root: Path = ROOT) -> list[str]:
    """Paths, relative to the repository, of what a learner's copy holds."""
    files = [f"{d}/{p.name}" for d in FOLDERS for p in sorted((root / d).glob("*.ipynb"))]
    return files + [x for x in EXTRA if (root / x).exists()]


def sync(dest: Path, root: Path = ROOT) -> dict[str, list[str]]:
    """Bring ``dest`` up to date with the course; returns what was done, by kind."""
    dest.mkdir(parents=True, exist_ok=True)
    manifest_path = dest / MANIFEST
    try:
        copied = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        copied = {}
    done: dict[str, list[str]] = {"new": [], "updated": [], "kept": [], "same": []}
    for rel in course_files(root):
        src, dst = root / rel, dest / rel
        data = learner_version(src)
        new = digest(data)
        if not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(data)
            copied[rel], kind = new, "new"
        else:
            mine = digest(dst.read_bytes())
            if new == copied.get(rel):  # the course has not changed it since it was copied
                kind = "same"
            elif mine == new:
                copied[rel], kind = new, "same"
            elif mine == copied.get(rel):  # untouched by the learner: take the course's new version
                dst.write_bytes(data)
                copied[rel], kind = new, "updated"
            else:  # the learner's work: kept; the course's new version beside it
                dst.with_name(dst.stem + ".new" + dst.suffix).write_bytes(data)
                kind = "kept"
        done[kind].append(rel)
    manifest_path.write_text(json.dumps(copied, indent=1, sort_keys=True), encoding="utf-8")
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Make or refresh the learner's copy of the course.")
    parser.add_argument("--dest", type=Path, default=ROOT / "work", help="where (default: work/ in the repository)")
    args = parser.parse_args(argv)
    done = sync(args.dest.expanduser())
    where = args.dest
    parts = [f"{len(done['new'])} new", f"{len(done['updated'])} updated"]
    print(f"Your copy of the course: {where} ({', '.join(parts)}; your own files are never overwritten)")
    for rel in done["kept"]:
        p = Path(rel)
        print(f"  kept your {rel}; the course's new version is beside it: {p.stem}.new{p.suffix}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
