"""Navigation cells, generated: every notebook opens with its place in the course and ends
with previous/next links. The setup cell (:mod:`torchcourse.authoring.colab`) follows the header.

The build calls :func:`apply` on each source before executing it. The two cells carry the
tag ``course-nav``; they are replaced on every build, so renaming, adding or reordering a
module (``torchcourse/authoring/course.py``) updates every link in the course. Authors never write
them by hand.
"""

from __future__ import annotations

import re
from pathlib import Path

from torchcourse.authoring import colab, verified
from torchcourse.authoring.course import MODULES, Module, written_modules

TAG = "course-nav"
KIND = {"notebooks": "lesson", "solutions": "exercises", "exercises": "exercises"}


def _link(m: Module, folder: str, here: str) -> str:
    path = f"{m.stem}.ipynb" if folder == here else f"../{folder}/{m.stem}.ipynb"
    return f"[{m.number} · {m.title}]({path})"


def _neighbours(m: Module) -> tuple[Module | None, Module | None]:
    mods = written_modules()
    if m not in mods:
        mods = sorted(mods + [m], key=lambda x: x.number)
    i = mods.index(m)
    return (mods[i - 1] if i > 0 else None), (mods[i + 1] if i + 1 < len(mods) else None)


def header(m: Module, folder: str) -> str:
    last = MODULES[-1].number
    prev, nxt = _neighbours(m)
    parts = [f"*Module {m.number} of 00–{last} · {KIND[folder]}*", "[all modules](../README.md#modules)"]
    if folder == "notebooks":
        parts.append(f"[exercises](../exercises/{m.stem}.ipynb)")
    else:
        parts.append(f"[lesson](../notebooks/{m.stem}.ipynb)")
    if prev:
        parts.append(f"previous: {_link(prev, folder, folder)}")
    if nxt:
        parts.append(f"next: {_link(nxt, folder, folder)}")
    return " · ".join(parts)


def footer(m: Module, folder: str) -> str:
    prev, nxt = _neighbours(m)
    if folder == "notebooks":
        parts = [f"**Exercises:** [exercises/{m.stem}.ipynb](../exercises/{m.stem}.ipynb)"]
    else:
        parts = [f"**Back to the lesson:** {_link(m, 'notebooks', folder)}"]
    if prev:
        parts.append(f"**Previous:** {_link(prev, folder, folder)}")
    if nxt:
        parts.append(f"**Next:** {_link(nxt, folder, folder)}")
    return " ·\n".join(parts)


def module_of(py: Path) -> Module | None:
    for m in MODULES:
        if py.stem == m.stem:
            return m
    return None


HANDWRITTEN = re.compile(r"^\*\*(Exercises|Back to the lesson|Previous|Next|Next module|Lesson)[:.]?\*\*", re.MULTILINE)


def _drop_handwritten_links(cells: list) -> None:
    """Remove a links paragraph an author wrote at the end of the last markdown cell."""
    for i in range(len(cells) - 1, -1, -1):
        if cells[i].cell_type != "markdown":
            continue
        m = HANDWRITTEN.search(cells[i].source)
        if m:
            kept = cells[i].source[: m.start()].rstrip()
            if kept:
                cells[i].source = kept
            else:
                del cells[i]
        return


def apply(py: Path, write: bool = True, verified_block: bool = False) -> bool:
    """Put fresh navigation cells at the top and bottom of ``py``, and a lesson's generated
    "Verified" block before its footer (:mod:`torchcourse.authoring.verified`); True when the
    file changes (with ``write=False``: when it would change, and nothing is written)."""
    import jupytext
    from nbformat.v4 import new_code_cell, new_markdown_cell

    m, folder = module_of(py), py.parent.name
    if m is None or folder not in KIND:
        return False
    text = py.read_text(encoding="utf-8")
    nb = jupytext.reads(text, fmt="py:percent")
    generated = {TAG, colab.TAG, verified.TAG}
    had_block = verified_block or any(verified.TAG in c.metadata.get("tags", []) for c in nb.cells)
    cells = [c for c in nb.cells if not generated & set(c.metadata.get("tags", []))]
    _drop_handwritten_links(cells)
    top = new_markdown_cell(header(m, folder), metadata={"tags": [TAG]})
    setup = new_code_cell(colab.source(m), metadata=colab.metadata())
    bottom = new_markdown_cell(footer(m, folder), metadata={"tags": [TAG]})
    nb.cells = [top, setup, *cells, *verified.cells(m, folder, had_block), bottom]
    new = jupytext.writes(nb, fmt="py:percent")
    # the course's jupytext.toml filters the version out of the header; the API does not read it
    new = re.sub(r"^#\s+jupytext_version: .*\n", "", new, flags=re.MULTILINE)
    if new != text:
        if write:
            py.write_text(new, encoding="utf-8")
        return True
    return False
