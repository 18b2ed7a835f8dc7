"""Render the course as a static HTML site: every notebook with its stored outputs and plots.

    python -m torchcourse.authoring.site            # writes site/ (open site/index.html)
    python -m torchcourse.authoring.site --out DIR

Pages are the stored ``.ipynb`` files rendered by nbconvert (nothing is executed), so the
site shows exactly what CI checked. The builder adds what a static reader needs: a contents
page in module order, and a bar at the top and bottom of every page with the module's place
in the course and previous/next links. Links between notebooks (``*.ipynb``) become links
between pages (``*.html``).
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
from pathlib import Path

from torchcourse.authoring.course import ROOT, Module, written_modules

FOLDERS = {"notebooks": "lesson", "exercises": "exercises", "solutions": "solutions"}
NAV_CSS = """
<style>
.course-nav { font: 14px/1.5 system-ui, sans-serif; background: #f3f5f8; border: 1px solid #d8dde6;
  border-radius: 6px; padding: 8px 14px; margin: 12px auto; max-width: 1100px; display: flex;
  gap: 18px; flex-wrap: wrap; align-items: center; }
.course-nav .place { font-weight: 600; }
.course-nav a { text-decoration: none; }
</style>
"""


def _href(from_folder: str, to_folder: str, stem: str) -> str:
    return f"{stem}.html" if from_folder == to_folder else f"../{to_folder}/{stem}.html"


def nav_bar(modules: list[Module], index: int, folder: str) -> str:
    """The navigation bar of one page: its place in the course, its siblings, previous/next."""
    m = modules[index]
    parts = [
        f'<span class="place">Module {m.number} of 00–{modules[-1].number} · {html.escape(m.title)} · '
        f"{FOLDERS[folder]}</span>",
        '<a href="../index.html">Contents</a>',
    ]
    for other, label in FOLDERS.items():
        if other != folder and m.path(other).exists():
            parts.append(f'<a href="{_href(folder, other, m.stem)}">{label.capitalize()}</a>')
    if index > 0:
        prev = modules[index - 1]
        parts.append(f'<a href="{_href(folder, folder, prev.stem)}">← {prev.number} · {html.escape(prev.title)}</a>')
    if index + 1 < len(modules):
        nxt = modules[index + 1]
        parts.append(f'<a href="{_href(folder, folder, nxt.stem)}">{nxt.number} · {html.escape(nxt.title)} →</a>')
    return f'<nav class="course-nav">{" ".join(parts)}</nav>'


def _rewrite_links(page: str) -> str:
    """Point notebook links at the rendered pages, and README links at the contents page."""
    page = re.sub(r'href="(?:\.\./)?README\.md(#[^"]*)?"', 'href="../index.html"', page)
    return re.sub(r'href="([^"#:]+?)\.ipynb(#[^"]*)?"', lambda m: f'href="{m.group(1)}.html{m.group(2) or ""}"', page)


def render_page(nb_path: Path) -> str:
    """One notebook as HTML, without its setup cell: that cell prepares a kernel (on Colab,
    it installs the course), which a page that only shows stored outputs does not have."""
    import nbformat
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    from torchcourse.authoring.colab import TAG as SETUP_TAG

    config = Config()
    config.TagRemovePreprocessor.enabled = True
    config.TagRemovePreprocessor.remove_cell_tags = {SETUP_TAG}
    exporter = HTMLExporter(template_name="lab", config=config)
    body, _ = exporter.from_notebook_node(nbformat.read(nb_path, as_version=4))
    return body


def contents_page(modules: list[Module]) -> str:
    rows = []
    for m in modules:
        links = " · ".join(
            f'<a href="{folder}/{m.stem}.html">{label}</a>'
            for folder, label in FOLDERS.items()
            if m.path(folder).exists()
        )
        minutes = f"{m.minutes[0]} + {m.minutes[1]} min" if m.minutes else ""
        rows.append(
            f'<tr><td>{m.number}</td><td><a href="notebooks/{m.stem}.html">{html.escape(m.title)}</a></td>'
            f"<td>{html.escape(m.topics)}</td><td>{minutes}</td><td>{links}</td></tr>"
        )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>PyTorch as a computation library</title>
<style>body {{ font: 15px/1.5 system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; }}
table {{ border-collapse: collapse; }}
td, th {{ border-bottom: 1px solid #ddd; padding: 6px 10px; text-align: left; }}</style>
</head><body>
<h1>PyTorch as a computation library</h1>
<p>An executable notebook course: tensors, storage and strides, dtypes, linear algebra, GPU offload,
<code>nn.Module</code> as a container, <code>torch.compile</code> and compiled NumPy, autograd as a calculus engine
and distributed tensors. These pages show the notebooks with the outputs stored in the repository, as checked by
its tests. To run them, clone the repository and use <code>make lab</code>.</p>
<table><tr><th>#</th><th>Module</th><th>Topics</th><th>Time (teaching + exercises)</th><th>Notebooks</th></tr>
{"".join(rows)}
</table></body></html>
"""


def _copy_linked_docs(page: str, out: Path) -> list[Path]:
    """The course's own documents a page links to (``../docs/NAME.md``, e.g. the published
    figures) go into the site as they are, so the link works there too."""
    copied = []
    for name in sorted(set(re.findall(r'href="\.\./docs/([\w./-]+\.md)(?:#[^"]*)?"', page))):
        source, target = ROOT / "docs" / name, out / "docs" / name
        if source.is_file() and not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, target)
            copied.append(target)
    return copied


def build_site(out: Path) -> list[Path]:
    """Write the whole site under ``out`` and return the pages written."""
    modules = written_modules()
    if out.exists():
        shutil.rmtree(out)
    written = []
    for folder in FOLDERS:
        (out / folder).mkdir(parents=True)
        for i, m in enumerate(modules):
            nb = m.path(folder)
            if not nb.exists():
                continue
            bar = nav_bar(modules, i, folder)
            page = _rewrite_links(render_page(nb))
            page = page.replace("</head>", NAV_CSS + "</head>", 1)
            page = re.sub(r"(<body[^>]*>)", lambda mm, bar=bar: mm.group(1) + bar, page, count=1)
            page = page.replace("</body>", bar + "</body>", 1)
            target = out / folder / f"{m.stem}.html"
            target.write_text(page, encoding="utf-8")
            written.append(target)
            written += _copy_linked_docs(page, out)
    (out / "index.html").write_text(contents_page(modules), encoding="utf-8")
    written.append(out / "index.html")
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="output folder (default: site/)")
    args = parser.parse_args(argv)
    pages = build_site(args.out)
    print(f"site: {len(pages)} pages in {args.out}; open {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
