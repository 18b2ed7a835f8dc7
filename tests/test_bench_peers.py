"""The side-by-side benchmark (torchcourse.bench.sidebyside): without Numba and JAX it runs the
course's rows and says how to add the peers; with them (make bench-peers), every peer variant
agrees with NumPy. The course's rewrites of lesson 13's fitness functions agree with NumPy too."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
import torch

from torchcourse.bench import sidebyside
from torchcourse.bench.workloads import ga, kmeans


def test_the_rewrites_of_the_fitness_functions_agree_with_numpy():
    pts = ga.random_points(5_003, ga.BOX2, seed=4)
    pts[::5, 0] = 1.0  # points on a constraint's boundary (x >= 1)
    assert np.array_equal(ga.fitness2_best(ga.to_columns(pts)).numpy(), ga.fitness2_numpy(pts.numpy()))
    pts3 = ga.random_points(5_003, ga.BOX3, seed=5)
    out = torch.full((5_003,), -1.0, dtype=torch.float64)
    got = ga.fitness3_best(ga.to_columns(pts3), out)
    assert got is out
    want = ga.fitness3_numpy(pts3.numpy())
    assert np.array_equal(np.isinf(got.numpy()), np.isinf(want))
    assert np.allclose(got.numpy(), want, rtol=1e-12)
    with pytest.raises(ValueError, match="to_columns"):
        ga.fitness2_best(pts)


@pytest.mark.parametrize("genes", [2048, 12])
def test_sum_best_equals_numpy_in_words_and_in_the_fallback(genes):
    pop = ga.gene_population(301, genes=genes, seed=2)
    pop[0] = 127  # the largest gene the word sum allows
    pop[1] = 0
    got = ga.sum_best(pop)
    assert got.dtype == torch.int32
    assert np.array_equal(got.numpy(), pop.numpy().sum(axis=1))
    sliced = pop[:, :8]  # not contiguous: the fallback
    assert np.array_equal(ga.sum_best(sliced).numpy(), sliced.numpy().sum(axis=1))


def test_check_counts_what_differs():
    want = np.array([1.0, np.inf, 3.0])
    assert sidebyside.check("ga fitness 2", want * (1 + 1e-12), want)[0]
    assert not sidebyside.check("ga fitness 2", np.array([1.0, 2.0, 3.0]), want)[0]
    assert not sidebyside.check("ga fitness 2", want * (1 + 1e-6), want)[0]
    assert sidebyside.check("ga fitness 1 (sum)", np.array([3, 4]), np.array([3, 4])) == (True, "exact")
    assert not sidebyside.check("ga fitness 1 (sum)", np.array([3, 5]), np.array([3, 4]))[0]


def test_without_the_peers_the_course_rows_run_and_the_how_to_line_is_printed(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sidebyside, "available", lambda: False)
    monkeypatch.setattr(sidebyside, "trig_rate", lambda threads: 1e8)
    every = sidebyside.workloads  # the real fitness-2 group at quick size: NumPy and the course's best

    def fitness2(quick, peers):
        group, size, build = next(g for g in every(quick, peers) if g[0] == "ga fitness 2")
        return [(group, size, lambda: [v for v in build() if v.how != "as written"])]

    monkeypatch.setattr(sidebyside, "workloads", fitness2)
    before = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    report = sidebyside.run(quick=True, out=tmp_path, threads=1, rounds=2)
    for r in report["rows"]:  # every round's time is kept, so that rows can be paired round by round
        assert len(r["rounds_s"]) == 2 and r["min_s"] == min(r["rounds_s"]), r
    if before is not None:  # pinned to one CPU while it ran, every thread given back its CPUs after
        assert report["pinned_cpus"] == sorted(before)[:1]
        assert all(os.sched_getaffinity(int(t)) == before for t in os.listdir("/proc/self/task"))
    assert all(0 < r["cores_used"] < 1.2 for r in report["rows"])
    assert report["flushed_MB"] >= 2 * report["llc_MB"] * 2**20 / 1e6 * 0.99
    assert sidebyside.ABSENT in capsys.readouterr().out
    assert "make bench-peers" in sidebyside.ABSENT
    assert not report["peers"] and "first_call" not in report and "installed_MB" not in report
    assert {r["tool"] for r in report["rows"]} == {"NumPy", "torch"}
    assert all(r["correct"] for r in report["rows"])
    assert "peer" not in report["winners"]["ga fitness 2"]
    assert "make bench-peers" in (tmp_path / "peers.md").read_text()
    assert (tmp_path / "peers.png").stat().st_size > 5_000
    if not sidebyside.available():
        assert "numba" not in sys.modules and "jax" not in sys.modules


needs_peers = pytest.mark.skipif(
    not sidebyside.available(), reason="numba and jax are not installed (make bench-peers)"
)


@needs_peers
def test_every_peer_variant_agrees_with_numpy():
    from torchcourse.bench import peers

    peers.configure(1)
    nb, jx = peers.numba_kernels(), peers.jax_kernels()
    X64, M64 = kmeans.make_blobs(20_001, seed=1)
    X, M = X64.astype(np.float32), M64.astype(np.float32)
    labels = kmeans.assign_numpy(X, M)
    W, c = (a.numpy() for a in kmeans.linear_scores(torch.from_numpy(M)))
    C = np.ascontiguousarray(X.T)
    for got in (
        nb["kmeans_loop"](X, M),
        nb["kmeans_cols"](C, W, c, np.empty(len(X), np.int8)),
        nb["kmeans_cols2"](C, W, c, np.empty(len(X), np.int8)),
    ):
        assert sidebyside.check("k-means", got, labels) == (True, "exact")
    for got in (jx["kmeans_numpy"](X, M), jx["kmeans_cols"](C, W, c)):
        assert sidebyside.check("k-means", got, labels)[0]
    pop = ga.gene_population(257, seed=3).numpy()
    sums = pop.sum(axis=1)
    for got in (
        nb["sum_loop"](pop),
        nb["sum_loop32"](pop),
        nb["sum_narrow"](pop, np.empty(257, np.int32)),
        nb["sum_words"](pop, np.empty(257, np.int32)),
        jx["sum_words"](pop),
        jx["sum_numpy"](pop),
        jx["sum_narrow"](pop),
    ):
        assert sidebyside.check("ga fitness 1 (sum)", got, sums) == (True, "exact")
    for k, box in ((2, ga.BOX2), (3, ga.BOX3)):
        P = ga.random_points(10_007, box, seed=k).numpy()
        want, Ck = getattr(ga, f"fitness{k}_numpy")(P), np.ascontiguousarray(P.T)
        for got in (
            nb[f"fitness{k}_loop"](P),
            nb[f"fitness{k}_cols"](Ck, np.empty(len(P))),
            jx[f"fitness{k}_numpy"](P),
            jx[f"fitness{k}_cols"](Ck),
        ):
            assert sidebyside.check(f"ga fitness {k}", got, want)[0]


def test_the_limit_kernels_move_the_workloads_own_bytes():
    kernels, nbytes = sidebyside.limits_for(96_000_000, 32_000_000)
    assert nbytes == {"read": 96_000_000, "write": 32_000_000, "copy": 128_000_000}
    assert set(kernels) == {"read", "write", "copy"}
    kernels["copy"]()  # runs


def test_the_largest_cache_is_read_from_the_os():
    from torchcourse.bench.machine import last_level_cache_bytes

    size = last_level_cache_bytes(default=-1)
    if os.path.isdir("/sys/devices/system/cpu/cpu0/cache"):
        assert size >= 2**20  # every CPU torch runs on has a cache of at least 1 MiB
    else:
        assert size == -1


@needs_peers
def test_the_ir_census_tells_vector_loops_from_scalar_ones():
    from torchcourse.bench import peers

    peers.configure(1)
    nb = peers.numba_kernels()
    pop = ga.gene_population(64, seed=3).numpy()
    X64, M64 = kmeans.make_blobs(1_000, seed=1)
    nb["sum_loop"](pop)
    nb["kmeans_loop"](X64, M64)
    found = peers.census(nb)
    assert set(found) == {"sum_loop", "kmeans_loop", "USING_SVML"}  # only what was called
    assert found["sum_loop"]["vector_ops"] > 0 and found["sum_loop"]["widest"] >= 2
    assert found["kmeans_loop"]["vector_ops"] == 0  # the loop over the means carries the best: scalar


def test_a_probe_is_never_the_courses_answer():
    rows = [
        {"group": "g", "tool": "torch", "how": "probe", "variant": "probe", "min_s": 1.0, "pct_of_limit": 99.0},
        {
            "group": "g",
            "tool": "torch",
            "how": "course's rewrite",
            "variant": "best",
            "min_s": 3.0,
            "pct_of_limit": 70.0,
        },
        {"group": "g", "tool": "JAX", "how": "course's rewrite", "variant": "jax", "min_s": 2.0, "pct_of_limit": 90.0},
    ]
    w = sidebyside.winners(rows)["g"]
    assert (w["course"], w["ahead"]) == ("best", False)


def test_the_first_call_children_get_their_own_numba_cache(monkeypatch):
    # Numba reads NUMBA_CACHE_DIR when imported: the child must have it in its environment,
    # or its cache=True files land beside peers.py and the next "cold" run finds them.
    from torchcourse.bench import firstcall

    seen = []

    class Done:
        returncode, stderr, stdout = 0, "", '{"import_s": 0.0}'

    def fake_run(cmd, env, **kw):
        seen.append(env)
        return Done()

    monkeypatch.setattr(firstcall.subprocess, "run", fake_run)
    firstcall.measure_all(1)
    assert len(seen) == 6
    for env in seen:
        assert os.path.dirname(env["NUMBA_CACHE_DIR"]) == os.path.dirname(env["TORCHINDUCTOR_CACHE_DIR"])


class _StandIns(dict):
    """Any kernel name: a callable that does nothing (the variant lists are built, never run)."""

    def __missing__(self, name):
        return lambda *args: None


def _built(peers: bool) -> dict[str, list]:
    from torchcourse.bench import sidebyside_variants as sv

    stand_ins = sv.Peers(_StandIns(), _StandIns(), put=lambda a: a, ready=lambda x: x)
    return {g: build() for g, _, build in sv.workloads(quick=True, peers=peers, stand_ins=stand_ins)}


def test_every_tool_has_every_kind_of_row_in_numpys_dtype():
    # Like for like by construction: each workload gives torch, Numba and JAX an "as written" row
    # in the dtype of NumPy's baseline and a "course's rewrite" row, the same (kind, dtype) rows for
    # each tool, and NumPy runs each kind but "as written" (its baseline) uncompiled: the control.
    # A builder with a gap raises; built here with stand-ins for the peers, so no Numba or JAX.
    from torchcourse.bench import sidebyside_variants as sv

    with_peers = _built(True)
    for built, tools in ((with_peers, sv.TOOLS), (_built(False), ("torch",))):
        assert list(built) == ["k-means", "ga fitness 1 (sum)", "ga fitness 2", "ga fitness 3"]
        for group, vs in built.items():
            rows = [(v.tool, v.how, v.dtype) for v in vs]
            assert sv.unlike(rows, tools) == [], group
            assert rows[0][:2] == ("NumPy", "baseline")
            assert {t for t, _, _ in rows} == {"NumPy", *tools}
            for tool in tools:
                assert {how for t, how, _ in rows if t == tool} >= set(sv.KINDS), (group, tool)
                assert {d for t, how, d in rows if t == tool and how == "as written"} == {rows[0][2]}, (group, tool)
            assert any(t == "NumPy" and how == "course's rewrite" for t, how, _ in rows), group
    f1 = {(v.tool, v.how): v for v in with_peers["ga fitness 1 (sum)"]}
    for tool in ("NumPy", "torch", "Numba", "JAX"):
        assert f1[(tool, "course's dtype fix")].dtype == "int32"
        assert f1[(tool, "course's rewrite")].dtype == "int64 words"
    assert f1[("NumPy", "baseline")].dtype == "int64"
    for group, vs in with_peers.items():  # JAX's rows in NumPy's int64 and float64 say what they need
        assert all("jax_enable_x64" in v.note for v in vs if v.tool == "JAX" and v.how == "as written"), group


def test_the_rule_names_every_gap():
    from torchcourse.bench import sidebyside_variants as sv

    rows = [(v.tool, v.how, v.dtype) for v in _built(True)["ga fitness 1 (sum)"]]
    assert len(rows) == 12
    for i in range(1, len(rows)):  # without any one row (the baseline apart), a gap is named
        assert sv.unlike(rows[:i] + rows[i + 1 :]), rows[i]
    # the stored run's fitness 1: torch's "as written" row was the course's int32 sum
    old = [("NumPy", "baseline", "int64"), ("torch", "as written", "int32"), ("torch", "course's rewrite", "words")]
    old += [(t, h, "int64" if h == "as written" else "words") for t in ("Numba", "JAX") for h in sv.KINDS]
    gaps = sv.unlike(old)
    assert "torch's 'as written' row is in int32, NumPy's baseline in int64" in gaps
    assert "NumPy has no 'course's rewrite' row in words (the control)" in gaps
    assert sv.unlike(rows[1:]) == ["the first row is not NumPy's baseline"]


def test_a_result_in_another_dtype_than_numpys_row_of_its_kind_is_named():
    # e.g. JAX without jax_enable_x64: its jit of NumPy's sum gives int32, NumPy's int64
    from torchcourse.bench import sidebyside
    from torchcourse.bench import sidebyside_variants as sv

    def v(tool, how):
        return sv.Variant("v", tool, how, "int64", lambda: None, 0)

    vs = [v("NumPy", "baseline"), v("NumPy", "course's rewrite"), v("JAX", "as written"), v("JAX", "course's rewrite")]
    res = [np.zeros(3, np.int64), np.zeros(3, np.int32), np.zeros(3, np.int32), torch.zeros(3, dtype=torch.int32)]
    assert sv.result_dtype(vs, res) == ["", "", "result int32, NumPy's row of its kind int64", ""]
    assert sidebyside._and((True, "exact"), "result int32, NumPy's row of its kind int64")[0] is False


def test_the_numpy_rewrites_agree_with_numpy():
    # the control rows: the course's rewrites in plain NumPy, same values and dtypes as the compiled ones
    from torchcourse.bench.workloads import numpy_rewrites as npr

    X64, M64 = kmeans.make_blobs(20_001, seed=1)
    X, M = X64.astype(np.float32), M64.astype(np.float32)
    W, c = (a.numpy() for a in kmeans.linear_scores(torch.from_numpy(M)))
    out8 = np.full(len(X), -1, np.int8)
    got = npr.assign_columns(np.ascontiguousarray(X.T), W, c, out8)
    assert got is out8 and sidebyside.check("k-means", got, kmeans.assign_numpy(X, M))[0]
    pop = ga.gene_population(257, seed=3)
    pop[0] = 127  # the largest gene the word sum allows
    P = pop.numpy()
    out32 = np.zeros(257, np.int32)
    assert npr.sum_words(P, out32) is out32 and np.array_equal(out32, P.sum(axis=1))
    assert npr.sum_int32(P).dtype == np.int32 and np.array_equal(npr.sum_int32(P), P.sum(axis=1))
    for k, box in ((2, ga.BOX2), (3, ga.BOX3)):
        pts = ga.random_points(5_003, box, seed=k).numpy()
        out = np.zeros(len(pts))
        got = getattr(npr, f"fitness{k}_columns")(np.ascontiguousarray(pts.T), out)
        assert got is out and np.array_equal(got, getattr(ga, f"fitness{k}_numpy")(pts))


def test_the_readme_quotes_the_kept_peer_run():
    """Every figure of the README's side-by-side table is the kept run's: the course's and the
    fastest peer's minimum and median, and the verdict by the rule. A rerun of the benchmark that
    is kept without its README lines fails here (stop 39's README still quoted the Intel run)."""
    import json
    import re

    from torchcourse import ROOT
    from torchcourse.bench.sidebyside_report import verdict

    run = json.loads((ROOT / "docs" / "benchmarks" / "peers-cpu-2core.json").read_text())
    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Beside Numba and JAX") : readme.index("## Layout")]
    assert run["machine"]["cpu"].split("(")[0].split()[0] in section  # the CPU named beside the figures
    names = {
        "K-Means": "k-means",
        "GA fitness 1": "ga fitness 1 (sum)",
        "GA fitness 2": "ga fitness 2",
        "GA fitness 3": "ga fitness 3",
    }
    rows = {m[1]: m[2] for m in re.finditer(r"^\| (K-Means|GA fitness \d) \|(.*)$", section, re.M)}
    assert set(rows) == set(names), rows
    for label, group in names.items():
        v = verdict(run["rows"], group)
        pairs = [(float(a), float(b)) for a, b in re.findall(r"([\d.]+) / ([\d.]+) ms", rows[label])]
        want = [(v["course"]["min_s"], v["course"]["median_s"]), (v["peer"]["min_s"], v["peer"]["median_s"])]
        assert len(pairs) >= 2, rows[label]
        for got, exp in zip(pairs[:2], want):
            for g, e in zip(got, exp):
                assert abs(g - e * 1e3) <= 0.006 * e * 1e3, (label, got, exp)
        assert v["verdict"] in rows[label], (label, v["verdict"])


def test_the_variants_take_turns_in_a_shuffled_order():
    """Each round is a permutation of the variants, the same on every run of the benchmark, and over
    nine rounds (the default) no variant always follows the same one."""
    names = [f"v{i}" for i in range(7)]
    orders = [sidebyside.round_order(names, r) for r in range(9)]
    assert all(sorted(o) == names for o in orders)
    assert orders == [sidebyside.round_order(names, r) for r in range(9)]
    for name in names:
        before = {o[o.index(name) - 1] if o.index(name) else None for o in orders}
        assert len(before) > 1, f"{name} always ran after {before}"


def test_the_order_check_page_is_its_runs():
    """docs/benchmarks/peers-order-check.md is generated from the JSON runs beside it: edited by hand,
    or a run replaced without it, it fails here; the README points at it."""
    import json

    from torchcourse import ROOT
    from torchcourse.bench.sidebyside_report import ORDER_CHECK_RUNS, order_check

    d = ROOT / "docs" / "benchmarks"
    runs = [(label, json.loads((d / f).read_text())) for f, label in ORDER_CHECK_RUNS]
    assert {r["threads"] for _, r in runs} == {1, 2}
    assert (d / "peers-order-check.md").read_text() == order_check(runs)
    assert "docs/benchmarks/peers-order-check.md" in (ROOT / "README.md").read_text()
