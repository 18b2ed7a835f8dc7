"""`python -m torchcourse.bench --quick`: the outputs' structure, and every variant's result equals its
baseline's. No timing is asserted: this is a benchmark, not a timed test."""

from __future__ import annotations

import json

import pytest

from torchcourse.authoring.course import ROOT
from torchcourse.bench import runner as bench

_IMPORTED_BY_THE_RUN: set[str] = set()


@pytest.fixture(scope="module")
def report():
    out = ROOT / "build" / "bench-quick"  # kept: CI uploads it as an artefact
    import sys

    before = set(sys.modules)
    bench.run(quick=True, out=out)
    _IMPORTED_BY_THE_RUN.update(set(sys.modules) - before)  # a fact earlier in this process may import jax
    return out, json.loads((out / "bench.json").read_text())


def test_outputs_are_written(report):
    out, data = report
    assert (out / "bench.png").stat().st_size > 10_000
    md = (out / "bench.md").read_text()
    assert "| group | variant |" in md and "Limits measured in the same run" in md
    assert len([line for line in md.splitlines() if line.startswith("| ")]) == len(data["rows"]) + 1


def test_the_quick_run_imports_no_peer(report):
    """The course's benchmark never loads Numba or JAX (make bench-peers does, in its own venv)."""
    assert not {m.split(".")[0] for m in _IMPORTED_BY_THE_RUN} & {"numba", "jax", "jaxlib", "llvmlite"}


def test_limits_and_machine_are_recorded(report):
    _, data = report
    lim = data["limits"]
    assert min(lim["cpu_read_GBps"], lim["cpu_write_GBps"], lim["cpu_copy_GBps"], lim["cpu_matmul_GFLOPs"]) > 0
    assert {"cpu", "cores", "torch"} <= set(data["machine"])


def test_every_headline_workload_is_there(report):
    _, data = report
    groups = {r["group"] for r in data["rows"]}
    assert {
        "sum",
        "matmul",
        "monte carlo pi",
        "k-means",
        "ga fitness 1 (sum)",
        "ga fitness 2",
        "ga fitness 3",
    } <= groups
    variants = {r["variant"] for r in data["rows"] if r["group"] == "k-means"}
    assert {"NumPy float64", "NumPy float32", "compiled NumPy float64", "compiled NumPy float32"} <= variants
    assert any(v.startswith("course's best") for v in variants)


def test_every_variant_equals_its_baseline(report):
    _, data = report
    compared = [r for r in data["rows"] if r["baseline"]]
    assert compared
    wrong = [f"{r['group']}: {r['variant']}" for r in compared if r.get("matches_baseline") is not True]
    assert not wrong, f"results differ from the baseline: {wrong}"


def test_rows_carry_their_numbers(report):
    _, data = report
    for r in data["rows"]:
        assert 0 < r["min_s"] <= r["median_s"]
        if r["baseline"]:
            assert r["speedup"] > 0
        if r["compile_s"] is not None:
            assert "faster_than_eager" in r or not r["eager"]
        if "GBps" in r:
            assert r["pct_of_limit"] > 0 and r["bytes_read"] > 0 and r["bytes_written"] >= 0
            # held against the limit that matches its traffic
            read, written = r["bytes_read"], r["bytes_written"]
            expected = "read" if written * 10 <= read else "write" if read * 10 <= written else "copy"
            assert r["limit"] == expected, r["variant"]


def test_only_names_groups_by_word_and_refuses_an_unknown_one(capsys):
    assert bench.GROUP_WORDS == ["sum", "matmul", "pi", "kmeans", "ga"]
    with pytest.raises(SystemExit) as exc:
        bench.main(["--only", "k-mean", "nothing"])
    assert exc.value.code == 2
    assert "no benchmark group matches nothing" in capsys.readouterr().err


def test_the_kmeans_rewrite_agrees_with_numpy_in_both_layouts():
    import numpy as np
    import torch

    from torchcourse.bench.workloads import kmeans

    X, means = kmeans.make_blobs(10_001, dtype=np.float32, seed=3)
    X[::7] = (X[::7] + 7.5) / 2  # points near the boundary between the blobs
    expected = kmeans.assign_numpy(X, means)
    T, M = torch.from_numpy(X), torch.from_numpy(means)
    assert np.array_equal(kmeans.assign_rows(T, M).numpy(), expected)
    assert np.array_equal(kmeans.assign_best(kmeans.to_columns(T), M).numpy(), expected)
    three = torch.tensor([[0.0, 0.0], [5.0, 5.0], [10.0, 0.0]])
    assert np.array_equal(
        kmeans.assign_best(kmeans.to_columns(T), three).numpy(), kmeans.assign_numpy(X, three.numpy())
    )
    with pytest.raises(ValueError, match="to_columns"):
        kmeans.assign_best(T, M)
