"""`make site`: static HTML of every notebook, a contents page, working links, readable in Chromium."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from torchcourse.authoring.course import written_modules
from torchcourse.authoring.site import build_site

SHOTS = Path(__file__).resolve().parent.parent / "build" / "screenshots"


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "site"
    pages = build_site(out)
    return out, pages


def test_every_module_has_a_lesson_and_a_solutions_page(site):
    out, pages = site
    for m in written_modules():
        for folder in ("notebooks", "solutions", "exercises"):
            assert (out / folder / f"{m.stem}.html").exists(), f"{folder}/{m.stem}.html missing"
    assert (out / "index.html").exists()


def test_no_internal_link_is_broken(site):
    out, pages = site
    broken = []
    for page in pages:
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            url = urlparse(link)
            if url.scheme or link.startswith(("#", "//", "data:", "mailto:")):
                continue
            target = (page.parent / unquote(url.path)).resolve()
            if not target.exists():
                broken.append(f"{page.relative_to(out)} -> {link}")
    assert not broken, "broken links:\n" + "\n".join(broken[:40])


def test_pages_carry_previous_and_next_links_in_module_order(site):
    out, _ = site
    modules = written_modules()
    for i, m in enumerate(modules):
        page = (out / "notebooks" / f"{m.stem}.html").read_text(encoding="utf-8")
        nav = re.findall(r'<nav class="course-nav">(.*?)</nav>', page, re.DOTALL)
        assert len(nav) == 2, f"{m.stem}: expected a bar at the top and at the bottom"
        if i > 0:
            assert f'href="{modules[i - 1].stem}.html"' in nav[0]
        if i + 1 < len(modules):
            assert f'href="{modules[i + 1].stem}.html"' in nav[0]


def test_module_00_page_opens_in_chromium_with_its_outputs(site):
    from playwright.sync_api import sync_playwright

    from tests.test_browser import _launch

    out, _ = site
    with sync_playwright() as p:
        browser = _launch(p)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            page.goto((out / "notebooks" / "00_start_here.html").as_uri())
            text = page.inner_text("body")
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.get_by_text("The course can run here: True").first.scroll_into_view_if_needed()
            page.screenshot(path=str(SHOTS / "site_00_start_here.png"))
            images = page.locator("img").count()
        finally:
            browser.close()
    assert "The course can run here: True" in text and "✓ 00.1 A column of numbers" in text
    assert "Module 00 of" in text and images >= 1
    assert "Local run: nothing to install." not in text, "the setup cell is for running, not for the site"
