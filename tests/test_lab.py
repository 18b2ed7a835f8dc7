"""`make lab LAB_ARGS=--no-browser` serves JupyterLab on localhost until stopped, on the learner's
copy of the course in work/ (git-ignored), never on the tracked notebooks."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request

from torchcourse.authoring.course import ROOT


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_make_lab_serves_jupyterlab_headless(tmp_path):
    port, token = _free_port(), "course-test-token"
    args = f"--no-browser --port={port} --ServerApp.ip=127.0.0.1 --IdentityProvider.token={token}"
    env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(tmp_path))
    proc = subprocess.Popen(
        ["make", "--no-print-directory", "lab", f"LAB_ARGS={args}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline, status, body = time.monotonic() + 90, None, ""
        url = f"http://127.0.0.1:{port}/lab/tree/notebooks/00_start_here.ipynb?token={token}"
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    status, body = response.status, response.read().decode("utf-8", "replace")
                break
            except OSError:
                time.sleep(0.5)
        assert proc.poll() is None, "make lab exited early:\n" + proc.stdout.read().decode(errors="replace")[-3000:]
        assert status == 200 and "JupyterLab" in body
        # the server's root is work/: the learner's copy, made by scripts/workcopy.py
        assert (ROOT / "work" / "notebooks" / "00_start_here.ipynb").exists()
        assert (ROOT / "work" / "exercises" / "00_start_here.ipynb").exists()
        api = f"http://127.0.0.1:{port}/api/contents/exercises?token={token}"
        with urllib.request.urlopen(api, timeout=10) as response:
            names = {item["name"] for item in json.loads(response.read())["content"]}
        assert "00_start_here.ipynb" in names and not any(n.endswith(".py") for n in names)
        time.sleep(1)
        assert proc.poll() is None, "the server must keep running until stopped"
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:  # pragma: no cover - a server that ignores SIGTERM
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
