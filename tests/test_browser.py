"""The learner's path in a real browser: JupyterLab + headless Chromium, module 00 run end to end.

The test serves a copy of `notebooks/00_start_here.ipynb` (so autosave never touches the
stored outputs), opens it in Debian's Chromium driven by Playwright, runs all cells, waits for
the kernel to go idle, and checks what a learner would see: every code cell executed, errors
only in the cells that demonstrate a mistake, the preflight's verdict on screen. The
screenshot lands in `build/screenshots/`. The course's site is read in the same Chromium
(`_launch`) by `tests/test_site.py`: search, plots, math, previous/next, download, folds, Colab.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from torchcourse.authoring.course import ROOT

CHROMIUM = os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "build" / "screenshots"
NOTEBOOK = ROOT / "notebooks" / "00_start_here.ipynb"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def lab_server(tmp_path):
    """JupyterLab on a free localhost port with a token, serving a temporary copy of module 00."""
    work = tmp_path / "course"
    work.mkdir()
    # a copy without outputs: whatever the test finds executed, the browser executed
    nb = json.loads(NOTEBOOK.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    nb["metadata"].pop("jupytext", None)  # no paired .py in the copy
    (work / NOTEBOOK.name).write_text(json.dumps(nb))
    port, token = _free_port(), "browser-test-token"
    cmd = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        f"--port={port}",
        "--ServerApp.ip=127.0.0.1",
        f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={work}",
        "--allow-root",
        "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]
    settings = tmp_path / "settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    # render every cell (JupyterLab 4 otherwise renders only the cells in view)
    (settings / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    notices = tmp_path / "settings" / "@jupyterlab" / "apputils-extension"
    notices.mkdir(parents=True)
    (notices / "notification.jupyterlab-settings").write_text('{"fetchNews": "false", "checkForUpdates": false}')
    env = dict(
        os.environ,
        JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"),
        CUDA_VISIBLE_DEVICES="",
        JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"),
        JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"),
    )
    log = open(tmp_path / "lab.log", "w")
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail("JupyterLab exited at start:\n" + (tmp_path / "lab.log").read_text()[-3000:])
        try:
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=3)
            break
        except OSError:
            time.sleep(0.5)
    else:
        pytest.fail("JupyterLab did not answer within 90 s")
    yield base, token, work
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:  # pragma: no cover
        os.killpg(proc.pid, signal.SIGKILL)
    log.close()


def _wait_for_kernel(base: str, token: str, state: str, timeout: float = 120) -> None:
    """Wait until the notebook's kernel (via the sessions API) reports ``state``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"{base}/api/sessions?token={token}", timeout=5) as r:
            sessions = json.loads(r.read())
        if sessions and all(s["kernel"]["execution_state"] == state for s in sessions):
            return
        time.sleep(0.5)
    pytest.fail(f"the kernel did not become {state} within {timeout} s")


def _launch(playwright):
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: install Debian's `chromium` package "
            "(`make test` does this when run as root) or set COURSE_CHROMIUM"
        )
    try:
        return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
    except Exception as exc:
        pytest.fail(f"Chromium at {CHROMIUM} could not start: {exc}")


def test_learner_runs_module_00_in_jupyterlab(lab_server):
    from playwright.sync_api import sync_playwright

    base, token, work = lab_server
    stored = json.loads(NOTEBOOK.read_text())
    code_cells = [c for c in stored["cells"] if c["cell_type"] == "code"]

    with sync_playwright() as p:
        browser = _launch(p)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{base}/lab/tree/{NOTEBOOK.name}?token={token}", timeout=90_000)
            page.wait_for_function(
                f"document.querySelectorAll('.jp-NotebookPanel .jp-CodeCell').length == {len(code_cells)}",
                timeout=90_000,
            )
            SHOTS.mkdir(parents=True, exist_ok=True)
            # the setup cell opens the notebook with its code collapsed (one click expands it)
            setup = page.locator(".jp-NotebookPanel .jp-CodeCell").first
            setup_html = setup.inner_html()
            page.screenshot(path=str(SHOTS / "00_start_here_top.png"))
            _wait_for_kernel(base, token, "idle")  # "Run All" before the kernel is up would queue behind its start
            page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click(timeout=30_000)
            try:
                page.locator(".lm-Menu-itemLabel").get_by_text("Run All Cells", exact=True).click(timeout=30_000)
            except Exception:
                page.screenshot(path=str(SHOTS / "00_start_here_menu.png"))
                raise
            time.sleep(2)
            # wait until every code cell shows an execution count and the kernel is idle again
            prompts = ".jp-CodeCell .jp-InputArea-prompt"
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                texts = [t.strip() for t in page.locator(prompts).all_inner_texts()]
                if all(t[1:-2].isdigit() for t in texts):
                    break
                time.sleep(1)
            _wait_for_kernel(base, token, "idle")
            page.keyboard.press("Control+s")
            time.sleep(2)
            page.locator("text=Verdict:").first.scroll_into_view_if_needed(timeout=10_000)
            page.screenshot(path=str(SHOTS / "00_start_here.png"))
            body = page.inner_text(".jp-NotebookPanel")
            # the lesson's Verified block: collapsed, and a click on its summary shows the facts
            verified = page.locator(".jp-MarkdownCell details", has_text="statements of this lesson are tested facts")
            verified.scroll_into_view_if_needed(timeout=10_000)
            facts_table = verified.locator("table")
            closed = facts_table.is_visible()
            verified.locator("summary").click()
            facts_table.wait_for(state="visible", timeout=10_000)
            page.screenshot(path=str(SHOTS / "00_start_here_verified.png"))
        finally:
            browser.close()

    # what the browser ran, as JupyterLab saved it
    with urllib.request.urlopen(f"{base}/api/contents/{NOTEBOOK.name}?token={token}&content=1") as r:
        ran = [c for c in json.loads(r.read())["content"]["cells"] if c["cell_type"] == "code"]
    unrun = [i for i, c in enumerate(ran) if c.get("execution_count") is None]
    assert not unrun, f"code cells {unrun} never ran in the browser (prompts: {texts})"
    failed = {i for i, c in enumerate(ran) if any(o["output_type"] == "error" for o in c.get("outputs", []))}
    meant_to_fail = {i for i, c in enumerate(code_cells) if "raises-exception" in c.get("metadata", {}).get("tags", [])}
    assert failed == meant_to_fail, (
        f"cells with an error: {sorted(failed)}; only {sorted(meant_to_fail)} demonstrate one"
    )
    assert "Verdict:" in body and "The course can run here: True" in body, "the preflight output is not shown"
    assert "jp-InputPlaceholder" in setup_html and "google.colab" not in setup_html, (
        "the setup cell's code is not collapsed"
    )
    assert "Local run: nothing to install." in body
    assert "… 00.p1 not answered yet. This run measured: 3" in body, "the first prediction's reveal is not shown"
    assert not closed, "the Verified block should open collapsed"
