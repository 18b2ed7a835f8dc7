"""Module 15's multi-process examples, and the launcher that runs them from a notebook.

* The lesson's scripts (read from ``notebooks/15_distributed_tensors.py`` itself, so the
  test cannot drift from the lesson) run on 2 and 4 processes and agree with the
  one-process answers (the exercise references in ``torchcourse.grading.exercises.m15``).
* A failing rank and a hanging rank end in a clear :class:`LaunchError` within the
  time-out, and no launched process (torchrun or a worker) survives any launch.
"""

from __future__ import annotations

import ast
import os
import re
import time
from pathlib import Path

import psutil
import pytest
import torch

from torchcourse.distributed import TAG, LaunchError, run_script
from torchcourse.grading.exercises import m15

LESSON = Path(__file__).resolve().parents[1] / "notebooks" / "15_distributed_tensors.py"

# Every process this test module launches inherits this marker, so the leftover check below
# looks only at launches from this test session, not at a notebook's launches running
# at the same time on another pytest worker.
SESSION = f"pytest-{os.getpid()}"
os.environ["TORCHCOURSE_TEST_SESSION"] = SESSION


def lesson_script(name: str) -> str:
    """The string assigned to ``name`` in the lesson's source (e.g. ``COLLECTIVES``)."""
    for node in ast.parse(LESSON.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(f"{name} is not assigned in {LESSON.name}")


def leftovers() -> list[str]:
    """Processes from any launch still alive: our children, or anything carrying the launch tag."""
    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            if proc.status() != psutil.STATUS_ZOMBIE:
                found.append(f"child {proc.pid}: {' '.join(proc.cmdline())[:120]}")
        except psutil.Error:
            pass
    for proc in psutil.process_iter(["pid"]):
        try:
            env = proc.environ()
            cmd = " ".join(proc.cmdline())
        except psutil.Error:
            continue
        if (TAG in env or "torchcourse_launch_" in cmd) and env.get("TORCHCOURSE_TEST_SESSION") == SESSION:
            found.append(f"tagged {proc.pid}: {cmd[:120]}")
    return found


@pytest.fixture(autouse=True)
def no_process_left_behind():
    assert leftovers() == [], "a launch from an earlier run is still alive"
    yield
    assert leftovers() == [], "a launched process survived the launch"


def parse(text: str) -> dict[str, list]:
    return {k: ast.literal_eval(v) for k, v in re.findall(r"^(\w+):\s+(\[.*\])$", text, flags=re.MULTILINE)}


@pytest.mark.parametrize("nproc", [2, 4])
def test_collectives_match_one_process_simulation(nproc):
    result = run_script(lesson_script("COLLECTIVES"), nproc=nproc, timeout=180)
    assert result.ok and sorted(result.stdout) == list(range(nproc))
    ranks = [parse(result.stdout[r]) for r in range(nproc)]
    mine = [torch.tensor(d["mine"]) for d in ranks]
    rs_in = [torch.tensor(d["rs_input"]) for d in ranks]
    expected = {
        "all_reduce": m15.all_reduce(mine),
        "all_gather": m15.all_gather(mine),
        "reduce_scatter": m15.reduce_scatter(rs_in),
        "broadcast": [mine[0]] * nproc,
    }
    for op, per_rank in expected.items():
        for r in range(nproc):
            assert torch.equal(torch.tensor(ranks[r][op]), per_rank[r]), (op, r)
    assert all("compute threads: 1" in result.stdout[r] for r in range(nproc))


@pytest.mark.parametrize("nproc", [2, 4])
def test_dtensor_script_matches_one_process_results(nproc):
    result = run_script(lesson_script("DTENSOR"), nproc=nproc, timeout=180)
    assert result.ok and sorted(result.stdout) == list(range(nproc))
    w_cols = torch.zeros(9, 5).chunk(nproc, dim=1)
    for r in range(nproc):
        out = result.stdout[r]
        start, stop = m15.rows_owned(9, nproc, r)
        cols = w_cols[r].shape[1] if r < len(w_cols) else 0
        assert f"local by rows ({stop - start}, 5) | local by columns (9, {cols})" in out, out
        assert out.count("close: True") == 3 and "close: True True" in out, out
        assert "False" not in out, out
        assert "rows @ replicated: (Shard(dim=0),)" in out and "comms {}" in out
        assert "cols @ rows:       (Partial(sum),)" in out


def test_failing_rank_gives_a_clear_error_and_no_leftovers():
    source = (
        "import torch, torch.distributed as dist\n"
        "dist.init_process_group('gloo')\n"
        "if dist.get_rank() == 1:\n"
        "    raise ValueError('boom on purpose')\n"
        "dist.all_reduce(torch.ones(2))\n"
    )
    start = time.monotonic()
    with pytest.raises(LaunchError) as info:
        run_script(source, nproc=2, timeout=120)
    assert time.monotonic() - start < 120
    message = str(info.value)
    assert message.startswith("rank 1 of 2 failed with ValueError: boom on purpose"), message
    assert not info.value.result.ok and info.value.result.returncode != 0
    # without check=, the same failure comes back as a result to inspect
    result = run_script(source, nproc=2, timeout=120, check=False)
    assert not result.ok and result.root_cause_ranks() == [1]


def test_hanging_rank_is_stopped_at_the_timeout_even_if_it_ignores_sigterm():
    source = (
        "import signal, time, torch.distributed as dist\n"
        "dist.init_process_group('gloo')\n"
        "print('started', flush=True)\n"
        "if dist.get_rank() == 1:\n"
        "    signal.signal(signal.SIGTERM, signal.SIG_IGN)   # a stubborn rank: only SIGKILL ends it\n"
        "    time.sleep(3600)\n"
        "dist.barrier()                                     # rank 0 waits for rank 1 forever\n"
    )
    timeout = 25
    start = time.monotonic()
    with pytest.raises(LaunchError) as info:
        run_script(source, nproc=2, timeout=timeout)
    elapsed = time.monotonic() - start
    assert "did not finish within 25 s" in str(info.value)
    assert info.value.result.timed_out
    assert timeout <= elapsed < timeout + 20, elapsed


def test_failure_names_the_rank_that_raised_whatever_the_colours_and_order():
    """Python 3.13 colours tracebacks under FORCE_COLOR (ipykernel sets it): the rank whose own
    exception started the failure is still named, and a rank that left nothing does not change it."""
    from torchcourse.distributed import LaunchResult, describe_failure

    raised = (
        "Traceback (most recent call last):\n  ...\n\x1b[1;35mValueError\x1b[0m: \x1b[35mrank 1 could not load\x1b[0m\n"
    )
    peer = "Traceback (most recent call last):\n  ...\nRuntimeError: Connection closed by peer [127.0.0.1]:1234\n"
    plain = re.sub(r"\x1b\[[0-9;]*m", "", raised)
    for stderr in ({0: peer, 1: raised}, {1: raised}, {0: "", 1: raised}, {0: peer, 1: plain}):
        msg = describe_failure(LaunchResult(returncode=1, stderr=stderr), 2, 60)
        assert msg.startswith("rank 1 of 2 failed with ValueError: rank 1 could not load"), (stderr, msg)
