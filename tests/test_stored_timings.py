"""Stored timings are quiet: no output marked disturbed, no ratio printed as 0.0x.

A learner reads the stored outputs as what the code costs. A run whose median is far above its
min was disturbed by other work (``torchcourse.timing`` marks it), and a ratio printed as
``0.0x`` reads as "free". Both are refused here, in every notebook of the three folders; the
guard itself (the mark, the build's refusal, pytest's leniency, the ratio format) is tested too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from torchcourse import timing

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted(p for folder in ("notebooks", "solutions", "exercises") for p in (ROOT / folder).glob("*.ipynb"))
# A ratio that rounded to zero: "0.0x", "0.00x", "0.0 x" (not "10.0x", not "0.05x").
ZERO_RATIO = re.compile(r"(?<![\d.])0\.0+ ?x\b")
# A timing printed by Timing before it marked disturbed runs: "min 1.87 ms, median 53.7 ms".
MIN_MEDIAN = re.compile(r"min ([\d.]+) (s|ms|µs|ns), median ([\d.]+) (s|ms|µs|ns)")
SCALE = {"s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}


def output_texts(path: Path) -> list[tuple[int, str]]:
    """(cell index, text) of every stored output: streams, results, errors."""
    texts = []
    for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
        for out in cell.get("outputs", []):
            parts = [out.get("text", "")]
            parts.append(out.get("data", {}).get("text/plain", ""))
            parts.extend(out.get("traceback", []))
            parts.append(out.get("evalue", ""))
            texts.extend((index, "".join(p) if isinstance(p, list) else p) for p in parts if p)
    return texts


def stored_problems(path: Path) -> list[str]:
    problems = []
    for index, text in output_texts(path):
        if timing.DISTURBED_MARK in text:
            line = next(line for line in text.splitlines() if timing.DISTURBED_MARK in line)
            problems.append(f"cell {index}: a disturbed timing: {line.strip()[:160]}")
        for match in MIN_MEDIAN.finditer(text):
            low, high = float(match[1]) * SCALE[match[2]], float(match[3]) * SCALE[match[4]]
            if high > timing.DISTURBED_RATIO * low and timing.DISTURBED_MARK not in text:
                problems.append(f"cell {index}: a disturbed timing (median {high / low:.1f}x the min): {match[0]}")
        for match in ZERO_RATIO.finditer(text):
            line = text[: match.end()].splitlines()[-1]
            problems.append(f"cell {index}: a ratio printed as {match.group(0)!r}: {line.strip()[:160]}")
    return problems


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_stored_timings_are_quiet(path):
    problems = stored_problems(path)
    assert not problems, (
        f"{path.relative_to(ROOT)} stores timings a learner must not read (rebuild it on a quiet machine; "
        "print small ratios with timing.format_ratio):\n  " + "\n  ".join(problems)
    )


def test_the_scan_finds_a_disturbed_run_and_a_zero_ratio(tmp_path):
    disturbed = timing.Timing([1.87e-3] + [53.7e-3] * 6, 1)
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "outputs": [{"output_type": "stream", "name": "stdout", "text": [f"int8 sum: {disturbed}\n"]}],
            },
            {
                "cell_type": "code",
                "outputs": [{"output_type": "stream", "name": "stdout", "text": "took 0.0x the time\n"}],
            },
            {
                "cell_type": "code",
                "outputs": [{"output_type": "stream", "name": "stdout", "text": "10.0x and 0.05x and 2.0x\n"}],
            },
            {
                "cell_type": "code",
                "outputs": [{"output_type": "stream", "name": "stdout", "text": "min 1.87 ms, median 53.7 ms"}],
            },
            {
                "cell_type": "code",
                "outputs": [{"output_type": "stream", "name": "stdout", "text": "min 1.87 ms, median 2.1 ms"}],
            },
        ]
    }
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    problems = stored_problems(path)
    assert [p.split(":")[0] for p in problems] == ["cell 0", "cell 1", "cell 3"], problems


def test_the_issues_example_is_disturbed_and_quiet_runs_are_not():
    assert timing.Timing([1.87e-3] + [53.7e-3] * 6, 1).disturbed
    assert "median 28.7x the min" in str(timing.Timing([1.87e-3] + [53.7e-3] * 6, 1))
    quiet = timing.Timing([1.00e-3, 1.10e-3, 1.20e-3, 1.30e-3, 1.30e-3, 1.4e-3, 2.0e-3], 1)
    assert not quiet.disturbed and timing.DISTURBED_MARK not in str(quiet)
    assert not timing.disturbed([5e-3])  # one run: no median to judge


@pytest.mark.parametrize(
    "env, raises",
    [
        ({"TORCHCOURSE_BUILD": "1"}, True),
        ({"TORCHCOURSE_BUILD": "1", "TORCHCOURSE_ALLOW_DISTURBED": "1"}, False),
        ({}, False),
        ({"TORCHCOURSE_BUILD": "1", "PYTEST_VERSION": "9"}, False),
    ],
)
def test_the_build_refuses_a_disturbed_timing(monkeypatch, capsys, env, raises):
    for name in ("TORCHCOURSE_BUILD", "TORCHCOURSE_ALLOW_DISTURBED", "PYTEST_VERSION", "PYTEST_CURRENT_TEST"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for run in (
        lambda: timing.measure(_make_disturbed(), repeat=7, number=1, warmup=0),
        lambda: timing.interleaved([lambda: None, _make_disturbed()], rounds=7),
    ):
        if raises:
            with pytest.raises(timing.DisturbedTiming, match="median"):
                run()
        else:
            run()
            assert timing.DISTURBED_MARK in capsys.readouterr().err


@pytest.mark.parametrize(
    "env, raises",
    [({"TORCHCOURSE_BUILD": "1"}, True), ({}, False), ({"TORCHCOURSE_BUILD": "1", "PYTEST_VERSION": "9"}, False)],
)
def test_a_broken_law_of_the_work_marks_the_run_disturbed(monkeypatch, capsys, env, raises):
    # lesson 07's matrix products: a 500x500 product does 8x the work of a 250x250 one; a run where it
    # took about the same time (CI under load: 13.3 ms and 16.0 ms) was disturbed, not a counterexample
    for name in ("TORCHCOURSE_BUILD", "TORCHCOURSE_ALLOW_DISTURBED", "PYTEST_VERSION", "PYTEST_CURRENT_TEST"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert timing.check_consistent(16.0e-3 > 2 * 1e-3, "the 500x500 product taking longer") is True
    assert capsys.readouterr().err == ""

    def broken():
        return timing.check_consistent(16.0e-3 > 2 * 13.3e-3, "the 500x500 product taking longer", "13.3 ms, 16.0 ms")

    if raises:
        with pytest.raises(timing.DisturbedTiming, match="500x500"):
            broken()
    else:
        assert broken() is False
        assert timing.DISTURBED_MARK in capsys.readouterr().err


def _make_disturbed():
    """A function whose first two timed calls are fast and the rest 5 ms: median >> min."""
    calls = [0]

    def fn():
        calls[0] += 1
        if calls[0] > 3:
            timing.time.sleep(0.005)

    return fn


@pytest.mark.parametrize(
    "ratio, text",
    [(0.034, "0.034x"), (0.0049, "0.0049x"), (0.5, "0.5x"), (1.234, "1.2x"), (28.7, "29x"), (1234.0, "1,234x")],
)
def test_format_ratio_never_prints_zero(ratio, text):
    assert timing.format_ratio(ratio) == text
    assert not ZERO_RATIO.search(timing.format_ratio(ratio))


def _disturbed_in_child():
    return timing.measure(_make_disturbed(), repeat=7, number=1, warmup=0).disturbed


def test_a_disturbed_timing_in_a_fresh_process_is_said_here(monkeypatch, capsys):
    monkeypatch.setenv("TORCHCOURSE_ALLOW_DISTURBED", "1")
    assert timing.in_fresh_process(_disturbed_in_child).value is True
    assert timing.DISTURBED_MARK in capsys.readouterr().err


def test_thread_time_leaves_out_the_pauses_and_needs_one_thread():
    """interleaved(clock=time.thread_time) counts this thread's CPU seconds: a call that waits 30 ms
    (as a thread does while another process holds the core) counts almost nothing, one that
    sums a million integers counts its work (several ms on any CPU, however busy the machine);
    on more than one thread the work is not all in this one, and it is refused."""
    import time

    def work():
        return sum(range(1_000_000))

    waits, works = timing.interleaved([lambda: time.sleep(0.03), work], rounds=3, threads=1, clock=time.thread_time)
    assert waits < 0.002 < works
    walls = timing.interleaved([lambda: time.sleep(0.03), work], rounds=3, threads=1)
    assert walls[0] > 0.029
    with pytest.raises(ValueError):
        timing.interleaved([work], rounds=1, threads=2, clock=time.thread_time)
