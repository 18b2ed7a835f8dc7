"""The room's hub (hub/), for real: JupyterHub and configurable-http-proxy on loopback, three
learners in Debian's Chromium. Each logs in with the shared password, gets their own copy of the
course, and JupyterLab opens on module 00; the first runs its preflight cell. Limits are read off the
learners' kernel processes; root and a wrong password are refused.

Run by `make hub-test` (3-8 minutes on two busy cores: three JupyterLab servers and a torch
kernel start, and the preflight compiles a function cold), not by `make test`: it needs root (the
hub creates local users), the hub's venv
(.hub/, `make hub-install`) and npm's proxy. Skipped unless HUB_TEST=1 and all of that is there.
Screenshots: build/screenshots/hub/.
"""

from __future__ import annotations

import os
import pwd
import secrets
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from torchcourse.authoring.course import ROOT

HUB_DIR = ROOT / ".hub"
JUPYTERHUB = HUB_DIR / "venv" / "bin" / "jupyterhub"
PROXY = HUB_DIR / "node_modules" / ".bin" / "configurable-http-proxy"
CHROMIUM = os.environ.get("COURSE_CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "build" / "screenshots" / "hub"
LEARNERS = ["hubtestana", "hubtestben", "hubtestcho"]
RUN_PREFLIGHT = LEARNERS[:1]  # one kernel with torch: the machine is two cores
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

missing = [str(p) for p in (JUPYTERHUB, PROXY, Path(CHROMIUM)) if not p.exists()]
pytestmark = [
    pytest.mark.skipif(os.environ.get("HUB_TEST") != "1", reason="the hub's test runs with `make hub-test`"),
    pytest.mark.skipif(bool(missing), reason=f"not installed: {', '.join(missing)} (make hub-install)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="the hub creates local users: run as root"),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _remove_learners() -> None:
    for name in LEARNERS:
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        uid = pwd.getpwnam(name).pw_uid
        pids = subprocess.run(["pgrep", "-u", str(uid)], capture_output=True, text=True).stdout.split()
        for pid in pids:  # what is left of this test account's servers and kernels, by id
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.5)
        subprocess.run(["userdel", "--remove", name], check=False, capture_output=True)


@pytest.fixture()
def hub(tmp_path):
    _remove_learners()
    port = _free_port()
    env = dict(
        os.environ,
        HUB_PASSWORD=secrets.token_urlsafe(12),
        HUB_PORT=str(port),
        HUB_API_PORT=str(_free_port()),
        HUB_PROXY_API_PORT=str(_free_port()),
        HUB_STATE=str(tmp_path / "state"),
        HUB_MEM_LIMIT="3G",
        HUB_THREADS="1",
    )
    log = open(tmp_path / "hub.log", "w")
    proc = subprocess.Popen(
        [str(JUPYTERHUB), "-f", str(ROOT / "hub" / "jupyterhub_config.py")],
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the hub exited:\n" + (tmp_path / "hub.log").read_text()[-3000:]
        try:
            urllib.request.urlopen(url + "/hub/health", timeout=3)
            break
        except OSError:
            time.sleep(0.5)
    else:
        pytest.fail("the hub did not answer within 90 s:\n" + (tmp_path / "hub.log").read_text()[-3000:])
    try:
        yield url, env["HUB_PASSWORD"], tmp_path / "hub.log"
    finally:
        proc.send_signal(signal.SIGTERM)  # the hub stops the learners' servers, then the proxy
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
        _remove_learners()


def _login(browser, url: str, name: str, password: str):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(url + "/hub/login", timeout=60_000)
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", password)
    page.click("input[type=submit], button[type=submit]")
    return context, page


def _kernel_processes(name: str) -> list[int]:
    uid = pwd.getpwnam(name).pw_uid
    out = subprocess.run(["pgrep", "-u", str(uid), "-f", "ipykernel_launcher"], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


def test_three_learners_log_in_get_the_course_and_run_the_preflight(hub):
    from playwright.sync_api import sync_playwright

    url, password, log = hub
    SHOTS.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        # refused: a wrong password, and an account that is not a learner's, even with the password
        for name, pw in [("hubtestana", password + "x"), ("root", password)]:
            context, page = _login(browser, url, name, pw)
            page.wait_for_selector("text=Invalid username or password", timeout=30_000)
            assert "/hub/login" in page.url, (name, page.url)
            context.close()
        pages = {}
        for name in LEARNERS:
            context, page = _login(browser, url, name, password)
            pages[name] = (context, page)
        for name, (_, page) in pages.items():
            # JupyterLab opens on module 00 of the learner's own copy
            page.wait_for_url(f"**/user/{name}/lab/tree/notebooks/00_start_here.ipynb*", timeout=240_000)
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
            home = Path(pwd.getpwnam(name).pw_dir)
            assert (home / "course" / "notebooks" / "00_start_here.ipynb").stat().st_uid == pwd.getpwnam(name).pw_uid
            assert (home / "course" / "exercises" / "03_strides.ipynb").exists()
            page.screenshot(path=str(SHOTS / f"{name}-lab.png"))
        for name in RUN_PREFLIGHT:
            context, page = pages[name]
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=180_000)
            cell = page.locator(".jp-CodeCell", has_text="preflight.run()").first
            cell.scroll_into_view_if_needed()
            cell.locator(".jp-InputArea-editor").click()
            page.keyboard.press("Shift+Enter")
            # the kernel's first execution: the prompt says [1], and the output is new
            cell.locator(".jp-InputPrompt", has_text="[1]").wait_for(timeout=240_000)
            output = cell.locator(".jp-OutputArea-output").filter(has_text="Verdict:")
            output.first.wait_for(timeout=60_000)
            text = cell.locator(".jp-OutputArea").inner_text()
            assert "Verdict:" in text and "torch" in text, text
            cell.screenshot(path=str(SHOTS / f"{name}-preflight.png"))
            page.screenshot(path=str(SHOTS / f"{name}-after-preflight.png"))
            # the room's limits, on this learner's kernel process
            kernels = _kernel_processes(name)
            assert kernels, f"no kernel process for {name}"
            environ = Path(f"/proc/{kernels[0]}/environ").read_bytes().split(b"\0")
            assert b"OMP_NUM_THREADS=1" in environ and b"TORCHINDUCTOR_COMPILE_THREADS=1" in environ
            assert (
                f"TORCHCOURSE_PROGRESS={Path(pwd.getpwnam(name).pw_dir)}/.torchcourse/progress.json".encode() in environ
            )
            limits = Path(f"/proc/{kernels[0]}/limits").read_text()
            address_space = next(line for line in limits.splitlines() if line.startswith("Max address space"))
            assert str(3 * 1024**3) in address_space, address_space
        for context, _ in pages.values():
            context.close()
        browser.close()
    print(f"three learners in, a preflight run, in {time.monotonic() - start:.0f} s")
