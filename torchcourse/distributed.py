"""Run a multi-process PyTorch script with ``torchrun`` from a notebook, safely.

Module 15 teaches ``torch.distributed`` by starting several processes on one machine.
A notebook cell cannot be several processes, so the lesson writes the script text to a
temporary directory and launches::

    python -m torch.distributed.run --standalone --nproc-per-node N script.py

as a subprocess. Three things make that safe to do from a notebook, and are why this
module exists rather than a bare ``subprocess.run``:

* **Output in rank order.** Each rank writes to its own log file (``--redirects 3``),
  and :class:`LaunchResult` prints them sorted by rank, so the text is the same on
  every run (ranks print concurrently; a shared terminal would interleave them).
* **Clear errors.** A failing rank becomes one :class:`LaunchError` naming the rank
  and its exception line, not a screen of launcher logs; a hanging rank is stopped
  after ``timeout`` seconds with an error that says so, instead of a hung kernel.
* **Only what the script printed.** Some torch versions (2.10, for one) make gloo print
  ``[Gloo] Rank 0 is connected to 1 peer ranks ...`` into every rank's stdout when a
  group forms; those connection lines are dropped from ``stdout`` (they stay in
  ``raw_stdout``), so a lesson's output is the same on every torch.
* **No process left behind.** torchrun puts every worker in its own session, so
  killing torchrun's process group does not reach them. Every launched process
  therefore carries a unique tag in its environment; after the launch, whatever its
  outcome, every process with that tag is terminated (then killed) and waited for.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import psutil

# The environment variable that marks every process of one launch (see the module docstring).
TAG = "TORCHCOURSE_LAUNCH_ID"
# Error text of a rank that failed only because a peer died (not the root cause).
_PEER_LOSS = re.compile(
    r"Connection closed by peer|Connection reset by peer|remote worker|DistBackendError"
    r"|Broken pipe|SIGTERM|Signal 15",
    re.IGNORECASE,
)
# Connection chatter gloo writes to a rank's stdout on some torch versions (2.10: "[Gloo] Rank 0 is
# connected to 1 peer ranks. Expected number of connected peer ranks is : 1"): not the script's output.
_GLOO_CHATTER = re.compile(r"^\[Gloo\] Rank \d+ is connected to \d+ peer ranks\b.*$")
# The last line of a Python traceback: "ValueError: ...", "torch.distributed.DistBackendError: ...".
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit)\b")
# Colour codes in a rank's traceback: Python 3.13+ colours tracebacks when FORCE_COLOR is set, and
# ipykernel sets it for its subprocesses; left in, no line would look like an exception line.
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Seconds between the polite SIGTERM and the SIGKILL when stopping a launch.
GRACE_S = 3.0


@dataclass
class LaunchResult:
    """What a launch produced: the exit code, each rank's output, and the launcher's own."""

    returncode: int
    stdout: dict[int, str] = field(default_factory=dict)  # rank -> what it printed
    stderr: dict[int, str] = field(default_factory=dict)  # rank -> its warnings/tracebacks
    launcher: str = ""  # torchrun's own output (rendezvous logs, failure summary)
    seconds: float = 0.0  # wall time of the whole launch, start-up included
    timed_out: bool = False
    raw_stdout: dict[int, str] = field(default_factory=dict)  # rank -> stdout before dropping gloo chatter

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def print_ranks(self, header: bool = True) -> None:
        """Print every rank's stdout, sorted by rank, under a ``[rank r]`` header."""
        for rank in sorted(self.stdout):
            if header:
                print(f"[rank {rank}]")
            text = self.stdout[rank].rstrip("\n")
            if text:
                print(text)

    def failed_ranks(self) -> list[int]:
        """Ranks whose stderr holds a Python traceback, in rank order."""
        return [r for r in sorted(self.stderr) if "Traceback (most recent call last)" in self.stderr[r]]

    def root_cause_ranks(self) -> list[int]:
        """The failed ranks that were not merely victims of another rank's crash.

        When one rank dies, its peers waiting in a collective fail too ("Connection
        closed by peer"); whether they print that before torchrun stops them is a race.
        Naming the rank that failed *first for its own reason* keeps the error stable.
        """
        failed = self.failed_ranks()
        own = [
            r
            for r in failed  # a traceback cut short by the stop signal has no exception line
            if _EXCEPTION_LINE.match(self.error_line(r)) and not _PEER_LOSS.search(self.error_line(r))
        ]
        return own or failed

    def error_line(self, rank: int) -> str:
        """The last line of a rank's traceback (``ValueError: ...``), with the ``[rankN]:`` prefix removed."""
        lines = [_ANSI.sub("", ln).strip() for ln in self.stderr.get(rank, "").splitlines() if ln.strip()]
        lines = [re.sub(r"^\[rank\d+\]:\s*", "", ln) for ln in lines]
        errors = [ln for ln in lines if _EXCEPTION_LINE.match(ln)]
        return errors[-1] if errors else (lines[-1] if lines else "(no output on stderr)")


class LaunchError(RuntimeError):
    """A launch that failed or timed out; ``.result`` holds everything it produced."""

    def __init__(self, message: str, result: LaunchResult) -> None:
        super().__init__(message)
        self.result = result


def _tagged(tag: str) -> list[psutil.Process]:
    """Every live process whose environment carries ``tag`` (the launch's children, orphans included)."""
    found = []
    for proc in psutil.process_iter(["pid"]):
        if proc.pid == os.getpid():
            continue
        try:
            if proc.environ().get(TAG) == tag:
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess, OSError):
            continue
    return found


def _stop(launcher: subprocess.Popen, tag: str) -> None:
    """Stop the launcher and every worker: SIGTERM, wait ``GRACE_S``, then SIGKILL, and reap."""
    procs = {p.pid: p for p in _tagged(tag)}
    try:  # torchrun's own group (the launcher and anything left in it)
        os.killpg(launcher.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError, AttributeError):  # Windows: no killpg; psutil below stops them
        pass
    for p in list(procs.values()):
        try:
            p.terminate()
        except psutil.NoSuchProcess:
            procs.pop(p.pid)
    _, alive = psutil.wait_procs(list(procs.values()), timeout=GRACE_S)
    for p in alive + _tagged(tag):
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    try:
        os.killpg(launcher.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):  # Windows: no killpg, no SIGKILL
        pass
    try:
        launcher.wait(timeout=GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    psutil.wait_procs(_tagged(tag), timeout=GRACE_S)


def without_gloo_chatter(text: str) -> str:
    """``text`` without gloo's connection lines (see ``_GLOO_CHATTER``); every other line kept as is."""
    return "".join(ln for ln in text.splitlines(keepends=True) if not _GLOO_CHATTER.match(ln.rstrip("\r\n")))


def _read_rank_logs(log_dir: Path) -> tuple[dict[int, str], dict[int, str]]:
    """Collect ``<log_dir>/<run id>/attempt_0/<rank>/stdout.log`` (and stderr) by rank."""
    out: dict[int, str] = {}
    err: dict[int, str] = {}
    for path in log_dir.rglob("*.log"):
        if not path.parent.name.isdigit() or path.name not in {"stdout.log", "stderr.log"}:
            continue
        rank = int(path.parent.name)
        text = path.read_text(errors="replace")
        (out if path.name == "stdout.log" else err)[rank] = text
    return out, err


def run_script(
    source: str,
    nproc: int = 2,
    *,
    timeout: float = 120.0,
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    check: bool = True,
    threads: int = 1,
) -> LaunchResult:
    """Write ``source`` to a temporary ``script.py`` and run it on ``nproc`` processes with torchrun.

    ``threads`` sets ``OMP_NUM_THREADS`` in every rank: N ranks each using every core
    would oversubscribe the machine and run slower than one process. With ``check``
    (the default) a failing rank or a time-out raises :class:`LaunchError`; otherwise
    the result is returned and ``result.ok`` says how it went. Either way, no process
    of the launch survives this call.
    """
    with _one_launch_at_a_time():
        return _run(source, nproc, timeout, args, env, check, threads)


@contextmanager
def _one_launch_at_a_time() -> Iterator[None]:
    """Serialise launches across processes on this machine (a lock file in the temp folder).

    ``torchrun --standalone`` picks a free port, releases it and binds it again later: two
    launches started at the same moment (a notebook and a test, say) can pick the same port
    and join each other's rendezvous, which ends in aborted ranks. One launch at a time
    removes the race; each launch lasts seconds.
    """
    try:
        import fcntl
    except ImportError:  # Windows: no flock; launches there are not run concurrently by the course
        yield
        return
    with open(Path(tempfile.gettempdir()) / "torchcourse-launch.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _run(
    source: str,
    nproc: int,
    timeout: float,
    args: Sequence[str],
    env: Mapping[str, str] | None,
    check: bool,
    threads: int,
) -> LaunchResult:
    tag = uuid.uuid4().hex
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="torchcourse_launch_") as tmp:
        script = Path(tmp) / "script.py"
        script.write_text(source)
        log_dir = Path(tmp) / "logs"
        cmd = [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            f"--nproc-per-node={nproc}",
            "--max-restarts=0",
            "--redirects=3",
            f"--log-dir={log_dir}",
            str(script),
            *args,
        ]
        run_env = {**os.environ, **(env or {}), TAG: tag, "OMP_NUM_THREADS": str(threads), "PYTHONUNBUFFERED": "1"}
        launcher = subprocess.Popen(
            cmd,
            cwd=tmp,
            env=run_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        timed_out = False
        try:
            launcher_out, _ = launcher.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            _stop(launcher, tag)
            launcher_out, _ = launcher.communicate()
        except BaseException:  # KeyboardInterrupt (the notebook's stop button) included
            _stop(launcher, tag)
            raise
        finally:
            if _tagged(tag):  # a worker outliving torchrun: never leave it running
                _stop(launcher, tag)
        raw_stdout, stderr = _read_rank_logs(log_dir)
    stdout = {rank: without_gloo_chatter(text) for rank, text in raw_stdout.items()}
    result = LaunchResult(
        launcher.returncode,
        stdout,
        stderr,
        launcher_out or "",
        time.perf_counter() - start,
        timed_out,
        raw_stdout,
    )
    if check and not result.ok:
        raise LaunchError(describe_failure(result, nproc, timeout), result)
    return result


def describe_failure(result: LaunchResult, nproc: int, timeout: float) -> str:
    """One clear sentence about why a launch failed (it does not depend on timings or paths)."""
    if result.timed_out:
        return (
            f"the {nproc}-process launch did not finish within {timeout:g} s and was stopped "
            "(a rank is stuck: waiting in a collective that another rank never joins, or looping); "
            "all its processes were ended"
        )
    failed = result.root_cause_ranks()
    if not failed:
        return (
            f"the {nproc}-process launch exited with code {result.returncode} and no rank printed "
            f"a Python traceback: {_launcher_reason(result.launcher)}; see result.launcher for torchrun's log"
        )
    first = failed[0]
    others = f" (ranks {', '.join(map(str, failed[1:]))} failed too)" if len(failed) > 1 else ""
    return (
        f"rank {first} of {nproc} failed with {result.error_line(first)}{others}; "
        "torchrun stopped the other ranks and no process was left running"
    )


def _launcher_reason(log: str) -> str:
    """What torchrun says went wrong when no rank left a traceback (a signal, a rendezvous error)."""
    root = log.split("Root Cause", 1)[1] if "Root Cause" in log else ""
    rank = re.search(r"rank\s*:\s*(\d+)", root)
    code = re.search(r"exitcode\s*:\s*(-?\d+)", root)
    if rank and code:
        sig = re.search(r"\((SIG[A-Z]+)\)", root)
        return f"rank {rank.group(1)} ended with exit code {code.group(1)}{' (' + sig.group(1) + ')' if sig else ''}"
    errors = [ln.strip() for ln in log.splitlines() if _EXCEPTION_LINE.match(ln.strip())]
    return errors[-1] if errors else "torchrun gave no reason"


_GLOO_PROBE = """
import json, socket, sys
out = {"ok": False, "error": ""}
try:
    import torch
    import torch.distributed as dist

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
    t = torch.ones(3)
    dist.all_reduce(t)
    dist.destroy_process_group()
    out["ok"] = bool(t.tolist() == [1.0, 1.0, 1.0])
except BaseException as exc:
    text = str(exc).strip()
    out["error"] = type(exc).__name__ + (": " + text.splitlines()[0][:200] if text else "")
print("PROBE " + json.dumps(out))
"""


def check_gloo(timeout: float = 60) -> dict:
    """Start torch.distributed's gloo back end in a fresh process (one rank, on 127.0.0.1) and
    all-reduce a tensor: what module 15 does with more processes."""
    from torchcourse.compiletools import run_probe

    return run_probe(_GLOO_PROBE, [], timeout)
