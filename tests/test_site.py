"""`make site`: the Sphinx book of every notebook and guide, built offline with -W, read in Chromium.

The site is built once for this module (into a temporary folder, the sources staged there too)
and served on a localhost port, as a reader's browser would get it. A second, small build of
module 00 with a GitHub repository configured checks the Colab button, since the course's
pyproject may name none. Screenshots land in `build/screenshots/`.
"""

from __future__ import annotations

import functools
import http.server
import importlib.metadata
import json
import re
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from torchcourse.authoring import colab, site
from torchcourse.authoring.course import ROOT, by_number, readme_table, written_modules

SHOTS = ROOT / "build" / "screenshots"
FOLDERS = ("notebooks", "exercises", "solutions")
REPO = "https://github.com/example-owner/pytorch-course.git"


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    work = tmp_path_factory.mktemp("site")
    index = site.build_site(work / "site", work=work / "work")
    return index.parent


@pytest.fixture(scope="module")
def with_repository(tmp_path_factory):
    work = tmp_path_factory.mktemp("site-colab")
    index = site.build_site(work / "site", modules=[by_number("00")], repository=REPO, work=work / "work")
    return index.parent


@pytest.fixture(scope="module")
def served(built):
    """The built site on http://127.0.0.1:<free port> (search fetches pages, as on a web host)."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(built)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    thread.join(timeout=10)


def _html(out: Path, rel: str) -> str:
    return (out / rel).read_text(encoding="utf-8")


def _pins(path: Path) -> dict[str, str]:
    return dict(re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+)\s*$", path.read_text(), re.MULTILINE))


def test_site_packages_are_pinned_apart_from_the_lab_and_installed():
    site_pins, lab_pins = _pins(ROOT / "requirements-site.txt"), _pins(ROOT / "requirements.txt")
    assert {"sphinx", "myst-nb", "sphinx-book-theme"} <= set(site_pins)
    assert not set(site_pins) & set(lab_pins), "a package pinned in both files"
    lines = [x for x in (ROOT / "requirements-site.txt").read_text().splitlines() if x and not x.startswith("#")]
    assert len(lines) == len(site_pins), "every line of requirements-site.txt is an exact pin"
    for name, version in site_pins.items():
        assert importlib.metadata.version(name) == version, f"{name}: installed differs from the pin (make site)"


def test_every_notebook_and_guide_has_a_page(built):
    for m in written_modules():
        for folder in FOLDERS:
            if m.path(folder).exists():
                assert (built / folder / f"{m.stem}.html").exists(), f"{folder}/{m.stem}.html missing"
    for folder in FOLDERS:  # and no notebook on disk is left out of the module table
        for nb in (ROOT / folder).glob("*.ipynb"):
            assert (built / folder / f"{nb.stem}.html").exists(), f"{folder}/{nb.name} has no page"
    for doc in site.doc_pages():
        assert (built / doc.relative_to(ROOT).with_suffix(".html")).exists(), f"{doc} has no page"
    assert (built / "index.html").exists() and (built / "search.html").exists()


def test_contents_page_is_the_readme_module_table(built):
    index = _html(built, "index.html")
    readme_rows = [r for r in readme_table().strip().splitlines()[2:]]
    assert len(readme_rows) == len(written_modules())
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", index, re.DOTALL)[1:]
    assert len(rows) == len(readme_rows)
    for m, row in zip(written_modules(), rows):
        cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.DOTALL)]
        assert cells[:3] == [m.number, m.title, m.topics], cells
        assert (f'href="notebooks/{m.stem}.html"' in row) == m.path("notebooks").exists()
        for folder in FOLDERS:
            assert (f'href="{folder}/{m.stem}.html"' in row) == m.path(folder).exists()


def test_no_internal_link_is_broken(built):
    broken = []
    for page in built.rglob("*.html"):
        if "_static" in page.parts:
            continue
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            url = urlparse(link)
            if url.scheme or link.startswith(("#", "//", "data:", "mailto:")):
                continue
            target = (page.parent / unquote(url.path)).resolve()
            if not target.exists():
                broken.append(f"{page.relative_to(built)} -> {link}")
    assert not broken, "broken links:\n" + "\n".join(broken[:40])


def test_nothing_is_fetched_from_another_host(built):
    """Offline: scripts, styles and fonts (MathJax included) come with the site."""
    for page in [built / "index.html", built / "notebooks" / "03_strides.html", built / "search.html"]:
        remote = re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?://[^"]+)"', page.read_text("utf-8"))
        assert not remote, f"{page.name} loads {remote}"


def test_lessons_carry_previous_and_next_in_module_order(built):
    modules = [m for m in written_modules() if m.path("notebooks").exists()]
    for i, m in enumerate(modules):
        page = _html(built, f"notebooks/{m.stem}.html")
        prev = re.search(r'<a class="left-prev"\s+href="([^"]+)"', page)
        nxt = re.search(r'<a class="right-next"\s+href="([^"]+)"', page)
        if i > 0:
            assert prev and prev.group(1) == f"{modules[i - 1].stem}.html", (m.stem, prev)
        if i + 1 < len(modules):
            assert nxt and nxt.group(1) == f"{modules[i + 1].stem}.html", (m.stem, nxt)


def test_pages_show_the_stored_outputs_without_the_setup_cell(built):
    page = _html(built, "notebooks/00_start_here.html")
    text = re.sub(r"<[^>]+>", "", page)
    assert "The course can run here: True" in text and "Module 00 of" in text
    assert re.search(r"<td><p>Start here</p></td>", page), "module 00's Markdown output (the module table) is no table"
    assert "✓ 00.1 A column of numbers" in _html(built, "solutions/00_start_here.html")
    assert "<title>00 · Start here: worked solutions" in _html(built, "solutions/00_start_here.html")
    assert "<title>00 · Start here: exercises" in _html(built, "exercises/00_start_here.html")
    for folder in FOLDERS:
        assert colab.LOCAL_MESSAGE not in _html(built, f"{folder}/00_start_here.html"), "the setup cell is for running"


def test_each_worked_answer_is_folded_in_solutions_only(built):
    for m in written_modules():
        if not m.path("solutions").exists():
            continue
        nb = json.loads(m.path("solutions").read_text(encoding="utf-8"))
        code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
        answers = sum(1 for c in code if site.ANSWER in c)
        regions = sum(c.count(site.ANSWER) for c in code)  # a cell may hold two answers
        page = _html(built, f"solutions/{m.stem}.html")
        folds = re.findall(r'<details class="[^"]*\bhide above-input\b[^"]*">(.*?)</details>', page, re.DOTALL)
        assert answers and len(folds) == answers, f"{m.stem}: {answers} answers, {len(folds)} folded"
        assert all("BEGIN SOLUTION" in f for f in folds), f"{m.stem}: a fold without an answer"
        assert sum(f.count("BEGIN SOLUTION") for f in folds) == page.count("BEGIN SOLUTION") == regions
        assert "above-input" not in _html(built, f"exercises/{m.stem}.html")


def test_download_button_offers_the_repository_notebook(built):
    for m in written_modules():
        for folder in FOLDERS:
            if not m.path(folder).exists():
                continue
            page = _html(built, f"{folder}/{m.stem}.html")
            link = re.search(r'<a href="([^"]+\.ipynb)" download\s+class="[^"]*btn-download-source-button', page)
            assert link, f"{folder}/{m.stem}: no .ipynb download link"
            target = (built / folder / link.group(1)).resolve()
            assert target.read_bytes() == m.path(folder).read_bytes(), f"{folder}/{m.stem}: not the stored notebook"


def test_colab_button_only_with_a_github_repository(built, with_repository):
    configured = colab.repository_url()
    expected = "https://colab.research.google.com/github/example-owner/pytorch-course/blob/main/"
    for folder in FOLDERS:
        page = _html(with_repository, f"{folder}/00_start_here.html")
        assert f'href="{expected}{folder}/00_start_here.ipynb"' in page, f"{folder}: no Colab link"
    assert "colab.research.google.com" not in _html(with_repository, "index.html")
    if not configured.startswith("https://github.com/"):  # the course names no GitHub home yet
        assert not any("colab.research.google.com" in p.read_text("utf-8") for p in built.rglob("*.html"))


def unique_lesson_word() -> tuple[str, str]:
    """A word of one lesson's prose found in no other page of the site (any case, any part of a
    word), unchanged by the English stemmer the search uses: (word, lesson stem)."""
    import snowballstemmer

    stem = snowballstemmer.stemmer("english").stemWord
    texts = {}
    for folder in FOLDERS:
        for nb in sorted((ROOT / folder).glob("*.ipynb")):
            texts[f"{folder}/{nb.stem}"] = nb.read_text(encoding="utf-8").lower()
    for doc in site.doc_pages():
        texts[doc.relative_to(ROOT).as_posix()] = doc.read_text(encoding="utf-8").lower()
    texts["index"] = (ROOT / "README.md").read_text(encoding="utf-8").lower()
    for m in written_modules():
        nb = json.loads(m.path("notebooks").read_text(encoding="utf-8"))
        prose = " ".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown")
        for word in sorted(set(re.findall(r"(?<![\w`./:#-])([a-z]{9,})(?![\w`./:#(-])", prose))):
            others = [k for k, t in texts.items() if word in t and k != f"notebooks/{m.stem}"]
            if not others and stem(word) == word:
                return word, m.stem
    raise AssertionError("no word appears in one lesson only")


def test_search_finds_the_one_lesson_with_a_word(built, served):
    from playwright.sync_api import sync_playwright

    from tests.test_browser import _launch

    word, stem = unique_lesson_word()
    index = json.loads(re.search(r"Search\.setIndex\((.*)\)", _html(built, "searchindex.js"), re.DOTALL).group(1))
    assert f"notebooks/{stem}" in index["docnames"] and word in index["terms"], (word, stem)
    with sync_playwright() as p:
        browser = _launch(p)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            page.goto(f"{served}/index.html")
            page.locator("button.search-button__button").first.click()
            box = page.locator("form.bd-search input[name=q]").first
            box.fill(word)
            box.press("Enter")
            page.wait_for_url("**/search.html?q=*")
            results = page.locator("#search-results ul.search li a")
            results.first.wait_for(timeout=60_000)
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / "site_search.png"))
            hits = [a.get_attribute("href") for a in results.all()]
            lesson = [h for h in hits if h.split("?")[0].endswith(f"notebooks/{stem}.html")]
            assert lesson, f"searching {word!r} found {hits}, not notebooks/{stem}.html"
            page.locator(f'#search-results a[href^="notebooks/{stem}.html"]').first.click()
            page.wait_for_url(f"**/notebooks/{stem}.html*")
            assert word in page.inner_text("article").lower()
        finally:
            browser.close()


def test_lessons_show_their_verified_block_and_the_matrix_has_a_page(built):
    """Each lesson page whose notebook carries the generated Verified block shows it, collapsed; the
    facts-by-release matrix is a page of its own, with one row per fact."""
    from torchcourse.authoring import verified

    shown = 0
    for m in written_modules():
        nb = m.path("notebooks")
        if nb.exists() and '"verified"' in nb.read_text(encoding="utf-8"):
            page = _html(built, f"notebooks/{m.stem}.html")
            assert '<details class="verified-facts">' in page and "tested facts" in page, m.stem
            assert "verified-facts.html" in page, f"{m.stem}: no link to the matrix page"
            shown += 1
    assert shown >= 1
    matrix = _html(built, "docs/verified-facts.html")
    assert "Verified facts by torch release" in matrix
    assert matrix.count("<tr") == len(verified.all_facts()) + 1


def test_a_lesson_page_in_chromium(built, served):
    """Plots load, math is typeset offline, next goes to the next lesson, the download button saves the notebook."""
    from playwright.sync_api import sync_playwright

    from tests.test_browser import _launch

    lessons = [m for m in written_modules() if m.path("notebooks").exists()]
    with_plot = next(m for m in lessons if "_images/" in _html(built, f"notebooks/{m.stem}.html"))
    with sync_playwright() as p:
        browser = _launch(p)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 1000}, accept_downloads=True)
            page.goto(f"{served}/notebooks/{with_plot.stem}.html")
            image = page.locator("article img[src*='_images/']").first
            image.scroll_into_view_if_needed()
            page.wait_for_function("img => img.complete", arg=image.element_handle(), timeout=30_000)
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SHOTS / f"site_{with_plot.stem}.png"))
            assert image.evaluate("img => img.naturalWidth") > 0, "the plot did not load"

            page.goto(f"{served}/notebooks/03_strides.html")
            page.wait_for_function("document.querySelectorAll('article .MathJax').length > 0", timeout=60_000)

            page.locator("button[aria-label='Download this page']").click()
            with page.expect_download() as download:
                page.locator("a.btn-download-source-button").click()
            saved = Path(download.value.path())
            assert saved.read_bytes() == (ROOT / "notebooks" / "03_strides.ipynb").read_bytes()
            assert download.value.suggested_filename == "03_strides.ipynb"

            page.locator("a.right-next").click()
            page.wait_for_url("**/notebooks/04_dtypes.html")
            page.locator("a.left-prev").click()
            page.wait_for_url("**/notebooks/03_strides.html")

            # the Verified block of module 00 opens on a click and shows its facts
            page.goto(f"{served}/notebooks/00_start_here.html")
            block = page.locator("details.verified-facts")
            block.scroll_into_view_if_needed()
            assert not block.locator("table").is_visible()
            block.locator("summary").click()
            block.locator("table").wait_for(state="visible", timeout=10_000)
            assert block.locator("tr").count() >= 6
            page.screenshot(path=str(SHOTS / "site_00_verified.png"))
        finally:
            browser.close()


def test_a_worked_answer_unfolds_in_chromium(built, served, with_repository):
    from playwright.sync_api import sync_playwright

    from tests.test_browser import _launch

    with sync_playwright() as p:
        browser = _launch(p)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            page.goto(f"{served}/solutions/02_storage_and_views.html")
            answer = page.locator("details.hide .cell_input").first
            assert not answer.is_visible(), "the worked answer is not folded"
            assert page.locator("text=✓ 02.1").first.is_visible(), "the check's line is folded too"
            page.locator("details.hide summary").first.click()
            assert answer.is_visible() and "BEGIN SOLUTION" in answer.inner_text()
            answer.scroll_into_view_if_needed()
            page.wait_for_timeout(500)  # the unfolding's animation
            page.screenshot(path=str(SHOTS / "site_solution_unfolded.png"))

            page.goto((with_repository / "notebooks" / "00_start_here.html").as_uri())
            page.locator("button[aria-label='Launch interactive content']").click()
            colab_link = page.locator("a", has_text="Colab").first
            assert colab_link.is_visible()
            assert colab_link.get_attribute("href").startswith("https://colab.research.google.com/github/")
        finally:
            browser.close()
