"""The course's variants beside Numba and JAX: ``python -m torchcourse.bench.sidebyside`` (``make bench-peers``).

    python -m torchcourse.bench.sidebyside --out DIR [--quick] [--threads N] [--no-first-call]

For K-Means assignment and GA fitness 1, 2 and 3: NumPy, and torch, Numba and JAX
(:mod:`torchcourse.bench.peers`) each with the same kinds of row in the same dtypes: the code as
its users write it, the course's rewrite, and for fitness 1 the course's int32 sum; NumPy runs
the rewrites too, uncompiled (:mod:`torchcourse.bench.sidebyside_variants`). The same data in
one process, one thread count for every tool. Each variant's first call is timed and its result
checked against NumPy's (labels and sums exactly; costs with ``allclose``, ``rtol=1e-9``, and
the same infeasible points; the dtype of NumPy's row of the same kind); then the variants take turns, round after
round, in an order shuffled afresh each round (seeded: :func:`round_order`), so that no variant always follows the
same one, and each keeps its minimum and median. Rows carry the bytes read and written, the
matching limit measured in the same run (``timing.Limits.for_traffic``; for fitness 3 the
measured rate of its ``sin`` and ``cos`` where that is the slower bound) and x NumPy. The
first call is also timed in fresh processes, with an empty and with a warm cache
(:mod:`torchcourse.bench.firstcall`). Without numba and jax it runs the course's rows and says
how to add the peers.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from torchcourse.bench.machine import (
    held_against,
    last_level_cache_bytes,
    limits_for,
    machine,
    pin_threads,
    set_affinity,
    trig_rate,
)
from torchcourse.bench.sidebyside_variants import NUMBA_KERNELS, PROBE, result_dtype, workloads
from torchcourse.timing import format_seconds

ABSENT = (
    "bench: the Numba and JAX rows are left out (numba and jax are not installed in this environment); "
    "`make bench-peers` installs them into .peers/venv, apart from .venv, and runs them beside the course's variants"
)


def available() -> bool:
    """Whether numba and jax can be imported here (found, not imported: nothing is loaded)."""
    return all(importlib.util.find_spec(m) is not None for m in ("numba", "jax"))


def _np(x: Any) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.numpy()
    return np.asarray(x)


def _and(checked: tuple[bool, str], wrong_dtype: str) -> tuple[bool, str]:
    ok, how = checked
    return (ok and not wrong_dtype), how + (f"; {wrong_dtype}" if wrong_dtype else "")


def check(group: str, got: Any, want: np.ndarray) -> tuple[bool, str]:
    """Labels and sums: exactly (K-Means may differ on points within rounding of the boundary:
    counted, at most one in a million); costs: allclose(rtol=1e-9) and the same infeasible points."""
    got = _np(got)
    if got.shape != want.shape:
        return False, f"shape {got.shape}, NumPy {want.shape}"
    if group.startswith("k-means") or group.startswith("ga fitness 1"):
        differ = int(np.count_nonzero(got.astype(np.int64) != want.astype(np.int64)))
        ok = differ == 0 or (group.startswith("k-means") and differ <= len(want) * 1e-6)
        return ok, "exact" if differ == 0 else f"{differ} of {len(want):,} labels differ"
    inf_got, inf_want = np.isinf(got), np.isinf(want)
    masks = int(np.count_nonzero(inf_got != inf_want))
    both = ~inf_got & ~inf_want
    rel = float(np.max(np.abs(got[both] - want[both]) / np.maximum(np.abs(want[both]), 1e-300))) if both.any() else 0.0
    ok = masks == 0 and bool(np.allclose(got[both], want[both], rtol=1e-9, atol=0))
    return ok, f"allclose (max rel. error {rel:.0e})" + (f"; {masks} feasibility flags differ" if masks else "")


def run(
    quick: bool, out: Path | None, threads: int | None = None, rounds: int | None = None, first_call: bool = True
) -> dict[str, Any]:
    threads = threads or torch.get_num_threads()
    before = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    cpus = pin_threads(threads)
    try:
        return _run(quick, out, threads, rounds, first_call, cpus)
    finally:
        if before is not None and cpus is not None:
            set_affinity(before)  # every thread, those the run started included


def round_order(names: list[str], round_: int) -> list[str]:
    """The order the variants take in round ``round_``: a permutation seeded by the round, the same
    on every run of the benchmark. Taken in a fixed order, a variant that always ran right after
    another could inherit what it left (the allocator's free memory, a core's clock)."""
    import random

    order = list(names)
    random.Random(round_).shuffle(order)
    return order


def _run(
    quick: bool, out: Path | None, threads: int, rounds: int | None, first_call: bool, cpus: list[int] | None
) -> dict[str, Any]:
    torch.set_num_threads(threads)
    peers = available()
    tools: dict[str, str] = {"torch": f"{torch.__version__}, {threads} thread(s)", "numpy": np.__version__}
    if peers:
        from torchcourse.bench import peers as p

        tools.update(p.configure(threads))
    else:
        print(ABSENT, flush=True)
    rounds = rounds or (3 if quick else 9)
    trig = trig_rate(threads)
    # Every timed call starts with the caches emptied of its data: first a buffer twice the size
    # of the largest cache is read (not timed). Without it, whether a call's input is still in
    # the cache depends on which variant ran before it and on the CPU's cache size (300 MiB on
    # one of the course's machines, where a 96 MB input then runs from the cache).
    llc = last_level_cache_bytes()
    flush_buffer = torch.ones(max(2 * llc, 64 * 2**20) // 4)

    def flush() -> None:
        flush_buffer.sum()  # read, not written: no dirty lines left for the timed call to write back

    rows: list[dict[str, Any]] = []
    limits_per_group: dict[str, dict[str, float]] = {}
    for group, size, build in workloads(quick, peers):
        variants = build()
        first, results = [], []
        for v in variants:
            t = time.perf_counter()
            results.append(v.run())
            first.append(time.perf_counter() - t)
        want = _np(results[0])
        checks = [
            (True, "a probe: not compared") if v.how == PROBE else _and(check(group, r, want), bad)
            for v, r, bad in zip(variants, results, result_dtype(variants, results))
        ]
        written = [_np(r).nbytes for r in results]
        del results
        limit_kernels, limit_bytes = limits_for(variants[0].bytes_read, written[0])
        timed = {v.name: v.run for v in variants} | {f"limit: {k}": f for k, f in limit_kernels.items()}
        times: dict[str, list[float]] = {k: [] for k in timed}
        cpu = dict.fromkeys(timed, 0.0)
        for round_ in range(rounds):
            for k in round_order(list(timed), round_):
                f = timed[k]
                flush()
                c, t = time.process_time(), time.perf_counter()
                f()
                times[k].append(time.perf_counter() - t)
                cpu[k] += time.process_time() - c
        g_lim = {f"{k}_GBps": limit_bytes[k] / min(times[f"limit: {k}"]) / 1e9 for k in limit_kernels}
        g_lim["footprint_MB"] = (variants[0].bytes_read + written[0]) / 1e6
        g_lim["trig_points_per_s"] = trig = max(trig, trig_rate(threads)) if group == "ga fitness 3" else trig
        limits_per_group[group] = g_lim
        base = min(times[variants[0].name])
        for v, f, (ok, how), w in zip(variants, first, checks, written):
            t_min = min(times[v.name])
            r = {
                "group": group,
                "variant": v.name,
                "tool": v.tool,
                "how": v.how,
                "dtype": v.dtype,
                "dtype_note": v.note,
                "size": size,
                "min_s": t_min,
                "median_s": statistics.median(times[v.name]),
                "rounds_s": times[v.name],  # every round's time, in round order: rows can be paired round by round
                "first_call_s": f,
                "x_numpy": base / t_min,
                "bytes_read": v.bytes_read,
                "bytes_written": w,
                "correct": ok,
                "check": how,
                "cores_used": cpu[v.name] / sum(times[v.name]),
            }
            r["points"] = len(want)
            held_against(r, g_lim)
            rows.append(r)
            print(
                f"{group:<20} {v.name:<42} {v.dtype:<11} {format_seconds(t_min):>9}  x{r['x_numpy']:<7.1f} "
                f"{r['pct_of_limit']:5.0f}% of {r['limit']:<8} {how}",
                flush=True,
            )
        print("  limits in these rounds: " + ", ".join(f"{k} {v:.3g}" for k, v in g_lim.items()), flush=True)
        del variants
    lim = {k: max(g[k] for g in limits_per_group.values()) for k in next(iter(limits_per_group.values()))}
    report: dict[str, Any] = {
        "quick": quick,
        "threads": threads,
        "pinned_cpus": cpus,
        "flushed_MB": flush_buffer.numel() * 4 / 1e6,
        "llc_MB": llc / 2**20,
        "rounds": rounds,
        "order": "shuffled each round (seeded)",
        "machine": machine(),
        "tools": tools,
        "limits": lim,
        "limits_per_group": limits_per_group,
        "rows": rows,
        "peers": peers,
    }
    if peers:
        report["versions"] = p.versions()
        report["numba_ir"] = p.census(NUMBA_KERNELS)
        report["installed_MB"] = p.installed_mb()
        if first_call:
            from torchcourse.bench import firstcall

            report["first_call"] = firstcall.measure_all(threads)
    finish(report)
    if out is not None:
        write(report, out)
    return report


def finish(report: dict[str, Any]) -> None:
    """Hold every row against its workload's limits (measured in the same rounds, on buffers of
    the workload's footprint), and name the winners."""
    for r in report["rows"]:
        held_against(r, report["limits_per_group"][r["group"]])
    report["winners"] = winners(report["rows"])


def winners(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per workload: the fastest of the course's variants and the fastest peer, and whether the
    course's is ahead and at >= 60% of its limit."""
    found: dict[str, dict[str, Any]] = {}
    for g in dict.fromkeys(r["group"] for r in rows):
        mine = [r for r in rows if r["group"] == g and r["tool"] == "torch" and r["how"] != "probe"]
        peer = [r for r in rows if r["group"] == g and r["tool"] in ("Numba", "JAX")]
        best = min(mine, key=lambda r: r["min_s"])
        w = {"course": best["variant"], "course_s": best["min_s"], "pct_of_limit": best["pct_of_limit"]}
        if peer:
            bp = min(peer, key=lambda r: r["min_s"])
            w.update(peer=f"{bp['tool']}: {bp['variant']}", peer_s=bp["min_s"], ahead=best["min_s"] < bp["min_s"])
        found[g] = w
    return found


def write(report: dict[str, Any], out: Path, stem: str = "peers") -> None:
    from torchcourse.bench.sidebyside_report import chart, markdown

    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.json").write_text(json.dumps(report, indent=1))
    (out / f"{stem}.md").write_text(markdown(report))
    chart(report, out / f"{stem}.png")
    print(f"bench: {len(report['rows'])} rows -> {out}/{stem}.md, {stem}.json, {stem}.png")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--out", type=Path, default=None, help="folder for peers.md, peers.json, peers.png")
    parser.add_argument("--threads", type=int, default=None, help="threads for every tool (default: torch's)")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 9, quick 3)")
    parser.add_argument("--no-first-call", action="store_true", help="skip the fresh-process first-call runs")
    args = parser.parse_args(argv)
    report = run(args.quick, args.out, args.threads, args.rounds, not args.no_first_call)
    wrong = [f"{r['group']}: {r['variant']}" for r in report["rows"] if not r["correct"]]
    if wrong:
        print("bench: results differ from NumPy's:", ", ".join(wrong))
    print(f"(python {platform.python_version()})")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
