"""The course's site: Sphinx + myst-nb + sphinx-book-theme over the stored notebooks.

    python -m torchcourse.authoring.site                 # writes site/ (open site/index.html)
    python -m torchcourse.authoring.site --out DIR --only 00 02 --repository URL
    python -m torchcourse.authoring.site --pdf           # also site/course-lessons.pdf

Nothing is executed: the pages show the outputs stored in the ``.ipynb`` files, which nbval
checks. This module stages what the site shows into a folder of its own (``build/site/src``,
laid out like the repository: ``notebooks/``, ``exercises/``, ``solutions/``, ``docs/``) and
runs ``sphinx-build -W`` with the configuration in ``docs/site/conf.py``. Staging is where the
site differs from the notebooks, in copies only:

* the setup cell (tag ``course-setup``) is removed: it prepares a kernel, which a page of
  stored outputs does not have;
* in solutions, the title says "worked solutions" (the notebook's says "exercises"), and each
  cell holding a worked answer (``### BEGIN SOLUTION``) is folded: its code
  is behind a "Show the worked answer" toggle, its check's line stays in view;
* links to ``README.md`` point at the contents page, generated here from the module table
  (:mod:`torchcourse.authoring.course`), so README and site list the same modules.

Pages come from the module table and the files on disk (a module's exercises or solutions page
exists when its notebook does), and the docs are every ``docs/**/*.md``. The "open in Colab"
button is made when ``[project.urls] Repository`` (:func:`torchcourse.authoring.colab.repository_url`)
names a GitHub repository; the download button offers each page's own ``.ipynb``, copied from
the repository after the build. Staged files are rewritten only when they change, so a second
``make site`` re-reads and re-writes only the pages that changed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from torchcourse.authoring import colab
from torchcourse.authoring.course import ROOT, Module, written_modules

FOLDERS = {"notebooks": "Lessons", "exercises": "Exercises", "solutions": "Worked solutions"}
LABEL = {"notebooks": "lesson", "exercises": "exercises", "solutions": "solutions"}
CONF_DIR = ROOT / "docs" / "site"
DOCS = ROOT / "docs"
# The guides in the order the sidebar lists them; any other docs/**/*.md follows, sorted.
DOCS_ORDER = [
    "SETUP.md",
    "INSTRUCTORS.md",
    "reference-figures.md",
    "benchmarks",
    "verified-facts.md",
    "drift/README.md",
    "drift",
]
ANSWER = "### BEGIN SOLUTION"
FOLDED = {"code_prompt_show": "Show the worked answer", "code_prompt_hide": "Hide the worked answer"}
PDF_NAME = "course-lessons.pdf"
# The PDF: each lesson starts a page; code wraps instead of running off the page's edge.
PRINT_CSS = """span[id^="document-notebooks/"] { display: block; break-before: page; }
pre { white-space: pre-wrap !important; overflow-wrap: anywhere; }"""
CHROMIUM = os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium")


def _tags(cell: dict) -> list[str]:
    return cell.setdefault("metadata", {}).setdefault("tags", [])


def rewrite_links(text: str, depth: int) -> str:
    """Point links to the repository's README (``../README.md#modules`` from a file ``depth``
    folders down) at the contents page, which holds the same module table."""
    up = "../" * depth
    return re.sub(rf"\]\({re.escape(up)}README\.md(#[^)]*)?\)", lambda m: f"]({up}index.md{m.group(1) or ''})", text)


def stage_notebook(path: Path, folder: str) -> str:
    """The notebook as the site renders it (see the module's docstring), as JSON text."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown":
            cell["source"] = rewrite_links(source, 1)
            if folder == "solutions":  # the sidebar and search tell the two pages of a module apart
                cell["source"] = re.sub(r"^(# .*): exercises$", r"\1: worked solutions", cell["source"], flags=re.M)
        elif colab.TAG in _tags(cell):
            _tags(cell).append("remove-cell")
        elif folder == "solutions" and ANSWER in source:
            _tags(cell).append("hide-input")
            cell["metadata"]["mystnb"] = dict(FOLDED)
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def pages(modules: list[Module]) -> dict[str, list[tuple[Module, Path]]]:
    """Each folder's notebooks, in module order: those of the table's modules that exist."""
    return {folder: [(m, m.path(folder)) for m in modules if m.path(folder).exists()] for folder in FOLDERS}


def doc_pages() -> list[Path]:
    """Every Markdown file under docs/ (but this site's own configuration), in sidebar order."""
    found = sorted(p for p in DOCS.rglob("*.md") if CONF_DIR not in p.parents)

    def rank(p: Path) -> tuple[int, str]:
        rel = p.relative_to(DOCS).as_posix()
        for i, key in enumerate(DOCS_ORDER):
            if rel == key or rel.startswith(key + "/"):
                return i, rel
        return len(DOCS_ORDER), rel

    return sorted(found, key=rank)


def readme_intro() -> str:
    """README's opening (between its title and the module table), without the title."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    body = text.split("\n## Modules", 1)[0]
    return re.sub(r"\A# [^\n]*\n+", "", body).strip()


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def contents_table(modules: list[Module], found: dict[str, list[tuple[Module, Path]]]) -> str:
    """README's module table (same rows, from the same source), each module linked to its pages."""
    rows = ["| # | Module | Topics | Time (teaching + exercises) | Pages |", "|---|---|---|---|---|"]
    for m in modules:
        time_ = f"{m.minutes[0]} + {m.minutes[1]} min" if m.minutes else "n/a"
        links = " · ".join(
            f"[{LABEL[folder]}]({folder}/{m.stem}.ipynb)" for folder in FOLDERS if any(x is m for x, _ in found[folder])
        )
        title = _cell(m.title)
        if any(x is m for x, _ in found["notebooks"]):
            title = f"[{title}](notebooks/{m.stem}.ipynb)"
        rows.append(f"| {m.number} | {title} | {_cell(m.topics)} | {time_} | {links} |")
    return "\n".join(rows)


def index_page(
    modules: list[Module], found: dict[str, list[tuple[Module, Path]]], docs: list[str], colab_on: bool
) -> str:
    launch = " or open it in Google Colab (the rocket button)" if colab_on else ""
    parts = [
        "# PyTorch as a computation library",
        "",
        rewrite_links(readme_intro(), 0),
        "",
        "These pages show every notebook with the outputs stored in the course's repository, as its "
        "tests checked them; nothing was run to make them. To run a notebook, clone the repository and "
        f"use `make lab`, download the notebook (the download button at the top of its page){launch}. "
        "In the worked solutions each answer is folded: read the exercise, try it, then unfold the answer.",
        "",
        "## Modules",
        "",
        contents_table(modules, found),
        "",
        "## Guides",
        "",
        *[f"- [](<{doc}>)" for doc in docs if not re.search(r"drift/drift-", doc)],
        "",
    ]
    for folder, caption in FOLDERS.items():
        entries = [f"{folder}/{m.stem}" for m, _ in found[folder]]
        parts += ["```{toctree}", ":hidden:", f":caption: {caption}", "", *entries, "```", ""]
    parts += ["```{toctree}", ":hidden:", ":caption: Guides", "", *[d.removesuffix(".md") for d in docs], "```", ""]
    return "\n".join(parts)


def _write(path: Path, text: str | bytes) -> None:
    """Write only when the content changes, so Sphinx rebuilds only the pages that did."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    if path.exists() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def stage(src: Path, modules: list[Module], repository: str) -> tuple[dict[str, list[tuple[Module, Path]]], bool]:
    """Lay out the site's sources in ``src``; files left from an earlier layout are removed.
    Returns the pages, and whether any source was removed."""
    found = pages(modules)
    wanted: dict[Path, str | bytes] = {}
    for folder, entries in found.items():
        for _, path in entries:
            wanted[src / folder / path.name] = stage_notebook(path, folder)
    docs = []
    for path in doc_pages():
        rel = path.relative_to(ROOT)
        depth = len(rel.parts) - 1
        wanted[src / rel] = rewrite_links(path.read_text(encoding="utf-8"), depth)
        docs.append(rel.as_posix())
    for path in DOCS.rglob("*"):  # what the docs show or link to (figures, data)
        if path.is_file() and path.suffix != ".md" and CONF_DIR not in path.parents:
            wanted[src / path.relative_to(ROOT)] = path.read_bytes()
    colab_on = bool(re.match(r"https://github\.com/", repository))
    wanted[src / "index.md"] = index_page(modules, found, docs, colab_on)
    lessons = [f"notebooks/{m.stem}" for m, _ in found["notebooks"]]
    wanted[src / "lessons.md"] = "\n".join(
        ["# PyTorch as a computation library: the lessons", "", "```{toctree}", *lessons, "```", ""]
    )
    for path, content in wanted.items():
        _write(path, content)
    stale = False
    if src.exists():
        for path in sorted(src.rglob("*"), reverse=True):
            if path.is_file() and path not in wanted:
                path.unlink()
                stale = True
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
    return found, stale


def _mathjax_dir(work: Path) -> str:
    """A folder whose ``mathjax/`` is MathJax 2 from the installed jupyter-server-mathjax, so
    the site's math renders without a network; "" when that package is missing."""
    try:
        import jupyter_server_mathjax
    except ImportError:
        return ""
    source = Path(jupyter_server_mathjax.__file__).parent / "static"
    target = work / "static" / "mathjax"
    if not (target / "MathJax.js").exists():
        shutil.rmtree(target, ignore_errors=True)
        # what the page needs: the TeX input and HTML-CSS output, not the translations of
        # MathJax's menu, its SVG output or its accessibility extensions (8 of its 11 MB)
        unused = shutil.ignore_patterns("localization", "SVG", "a11y")
        shutil.copytree(source, target, ignore=unused)
    return str(target.parent)


def sphinx_build(src: Path, out: Path, doctrees: Path, env: dict[str, str], *options: str) -> None:
    """``sphinx-build -W`` (a warning fails the build) with ``docs/site/conf.py``."""
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-c", str(CONF_DIR), *options]
    cmd += ["-d", str(doctrees), str(src), str(out)]
    # myst-nb writes the images it takes out of the notebooks into jupyter_execute/ beside the
    # output folder (the repository's root for site/); Sphinx copies them into _images/, so a
    # folder that this build created there is removed afterwards
    scratch = Path(out).resolve().parent / "jupyter_execute"
    existed = scratch.exists()
    try:
        proc = subprocess.run(cmd, env={**os.environ, **env}, capture_output=True, text=True)
    finally:
        if not existed:
            shutil.rmtree(scratch, ignore_errors=True)
    if proc.returncode:
        raise RuntimeError(f"sphinx-build failed ({proc.returncode}):\n{proc.stdout[-4000:]}{proc.stderr[-8000:]}")


def build_site(
    out: Path,
    *,
    modules: list[Module] | None = None,
    repository: str | None = None,
    work: Path | None = None,
) -> Path:
    """Build the site into ``out`` and return its index page. ``modules`` defaults to every
    written module; ``repository`` to pyproject's (``""``: none, so no Colab button);
    ``work`` (staged sources and Sphinx's cache) to ``build/site``."""
    modules = written_modules() if modules is None else modules
    repository = colab.repository_url() if repository is None else repository
    work = work or ROOT / "build" / "site"
    found, stale = stage(work / "src", modules, repository)
    env = {"TORCHCOURSE_SITE_REPOSITORY": repository, "TORCHCOURSE_SITE_MATHJAX": _mathjax_dir(work)}
    if modules != written_modules():
        env["TORCHCOURSE_SITE_PARTIAL"] = "1"
    # Sphinx writes only the pages whose source changed; a page whose source went away would stay,
    # so the output is started afresh then (and when it is not a build of these sources at all).
    marker = out / ".staged-from"
    if stale or not (out / ".buildinfo").exists() or not marker.exists() or marker.read_text() != str(work):
        shutil.rmtree(out, ignore_errors=True)
    sphinx_build(work / "src", out, work / "doctrees", env, "-b", "html")
    # The download button offers _sources/<folder>/<name>.ipynb: the repository's notebook itself,
    # saved as a file (the theme opens it in a new tab as JSON text).
    for folder, entries in found.items():
        for _, path in entries:
            shutil.copyfile(path, out / "_sources" / folder / path.name)
            page = out / folder / f"{path.stem}.html"
            html = re.sub(
                r'(<a href="[^"]*_sources/[^"]+\.ipynb") target="_blank"', r"\1 download", page.read_text("utf-8")
            )
            page.write_text(html, encoding="utf-8")
    (out / ".staged-from").write_text(str(work))
    return out / "index.html"


def lessons_pdf(target: Path, *, modules: list[Module] | None = None, work: Path | None = None) -> Path:
    """The lessons as one PDF: Sphinx's single-page builder puts every lesson on one page (the
    staged ``lessons.md``), and headless Chromium prints it (Debian's /usr/bin/chromium through
    Playwright, as the browser tests use it). No LaTeX: none is installed here, and Chromium
    prints the same pages the site shows, plots and math included."""
    from playwright.sync_api import sync_playwright

    modules = written_modules() if modules is None else modules
    work = work or ROOT / "build" / "site"
    stage(work / "src", modules, "")  # the same sources as the site
    out = work / "lessons"
    shutil.rmtree(out, ignore_errors=True)
    env = {"TORCHCOURSE_SITE_REPOSITORY": "", "TORCHCOURSE_SITE_MATHJAX": _mathjax_dir(work)}
    only_lessons = ["-D", "master_doc=lessons", "-D", "exclude_patterns=exercises/*,solutions/*,docs/*,index.md"]
    # links from the lessons to exercises and guides have no target in this book: not a failure
    sphinx_build(
        work / "src",
        out,
        work / "doctrees-lessons",
        env,
        "-b",
        "singlehtml",
        *only_lessons,
        "-D",
        "suppress_warnings=myst,misc.highlighting_failure",
    )
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-gpu"])
        try:
            page = browser.new_page()
            page.goto((out / "lessons.html").as_uri(), wait_until="load", timeout=300_000)
            page.wait_for_function(
                "!window.MathJax || !MathJax.Hub || MathJax.Hub.queue.running === 0", timeout=120_000
            )
            page.emulate_media(media="print")
            page.add_style_tag(content=PRINT_CSS)
            target.parent.mkdir(parents=True, exist_ok=True)
            page.pdf(
                path=str(target),
                format="A4",
                print_background=True,
                outline=True,
                tagged=True,
                margin={"top": "15mm", "bottom": "15mm", "left": "12mm", "right": "12mm"},
            )
        finally:
            browser.close()
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="output folder (default: site/)")
    parser.add_argument("--only", nargs="*", metavar="NN", help="only these modules (a quick preview)")
    parser.add_argument("--repository", help="repository URL for the Colab buttons (default: pyproject's)")
    parser.add_argument("--pdf", action="store_true", help=f"also print the lessons into OUT/{PDF_NAME}")
    args = parser.parse_args(argv)
    modules = written_modules()
    if args.only:
        modules = [m for m in modules if m.number in args.only]
    start = time.perf_counter()
    index = build_site(args.out, modules=modules, repository=args.repository)
    print(
        f"site: {sum(1 for _ in args.out.rglob('*.html'))} pages in {time.perf_counter() - start:.0f} s; open {index}"
    )
    if args.pdf:
        start = time.perf_counter()
        pdf = lessons_pdf(args.out / PDF_NAME, modules=modules)
        print(f"pdf: {pdf} ({pdf.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
