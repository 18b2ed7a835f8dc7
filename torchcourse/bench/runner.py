"""The course's benchmark: headline workloads beside the published figures and this machine's limits.

    python -m torchcourse.bench            # full sizes (20M K-Means points, 900,000 chromosomes): minutes
    python -m torchcourse.bench --quick    # small sizes: a minute, mostly first compiles
    python -m torchcourse.bench --out DIR  # where bench.md, bench.json and bench.png go (default results/)

First it measures the machine's limits in the same run: read-only bandwidth (a large sum),
write-only (a large fill) and copy (read + write counted) in GB/s, float32 matmul GFLOP/s; on
CUDA the device's too. Then each row: min and median time (warm-up, repeats), speedup over its
baseline, the bytes it must read and write, achieved GB/s held against the limit that matches
that traffic (read, write or copy: ``timing.Limits.for_traffic``) or GFLOP/s against matmul,
the first call's extra time for compiled rows (the compile), whether the result equals the
baseline's, and the published figure with its hardware. A benchmark, not a test: nothing
here asserts a speed.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path
from typing import Any

import torch

from torchcourse import ROOT
from torchcourse.bench.machine import machine
from torchcourse.bench.rows import GROUPS, Row
from torchcourse.bench.workloads import matmul
from torchcourse.device import describe_device, pick_device
from torchcourse.timing import Limits, format_seconds, measure, memory_limits, time_once


def limits(quick: bool, device: torch.device) -> dict[str, float]:
    """The practical ceilings, measured now: large read, write and copy kernels and a large matmul."""
    mem = memory_limits(64 * 2**20 if quick else 512 * 2**20)
    out = {"cpu_read_GBps": mem.read_GBps, "cpu_write_GBps": mem.write_GBps, "cpu_copy_GBps": mem.copy_GBps}
    n = 512 if quick else 2048
    a, b = matmul.make_pair(n)
    out["cpu_matmul_GFLOPs"] = matmul.gflops(n, measure(lambda: a @ b, repeat=5).min)
    if device.type == "cuda":
        gmem = memory_limits(1024 * 2**20, device)
        out.update(gpu_read_GBps=gmem.read_GBps, gpu_write_GBps=gmem.write_GBps, gpu_copy_GBps=gmem.copy_GBps)
        n = 2048 if quick else 8192
        a, b = matmul.make_pair(n, device=device)
        out["gpu_matmul_GFLOPs"] = matmul.gflops(n, measure(lambda: a @ b, repeat=5, device=device).min)
    return out


def run_row(row: Row, device: torch.device, results: dict[str, Any]) -> dict[str, Any]:
    """Time one row; keep its result for the rows that compare with it."""
    dev = device if f"({device.type})" in row.name else "cpu"
    compile_s = None
    if row.compiled:
        result, first = time_once(row.run, dev)
        timing = measure(row.run, repeat=row.repeat, number=1, warmup=1, device=dev)
        compile_s = max(first - timing.min, 0.0)
    else:
        result, _ = time_once(row.run, dev)
        timing = measure(row.run, repeat=row.repeat, warmup=0, device=dev, budget=0.3)
    results[row.name] = result
    t_min, t_med = timing.min * row.scale, timing.median * row.scale
    record = {
        "group": row.group,
        "variant": row.name,
        "size": row.size,
        "min_s": t_min,
        "median_s": t_med,
        "compile_s": compile_s,
        "baseline": row.baseline,
        "published": row.published,
        "note": row.note,
        "scaled_from_subsample": row.scale != 1.0,
    }
    if row.nbytes:
        record["bytes_read"], record["bytes_written"] = row.bytes_read, row.bytes_written
        record["GBps"] = row.nbytes / t_min / 1e9
    if row.flops:
        record["GFLOPs"] = row.flops / t_min / 1e9
    if row.baseline:
        base = results.get(row.baseline)
        try:
            record["matches_baseline"] = bool(row.same(result, base)) if row.same else None
        except Exception as exc:  # a comparison that cannot run is a mismatch, reported
            record["matches_baseline"] = False
            record["note"] = f"{row.note}; comparison failed: {exc}".strip("; ")
    record["eager"] = row.eager
    return record


def derive(records: list[dict[str, Any]], lim: dict[str, float]) -> None:
    """Speedups over baselines, shares of the limits, and compiled-vs-eager verdicts."""
    by_key = {(r["group"], r["variant"]): r for r in records}
    for r in records:
        base = by_key.get((r["group"], r["baseline"]))
        r["speedup"] = base["min_s"] / r["min_s"] if base else None
        gpu = "(cuda)" in r["variant"]
        if "GBps" in r:
            side = "gpu" if gpu else "cpu"
            mem = Limits(lim[f"{side}_read_GBps"], lim[f"{side}_write_GBps"], lim[f"{side}_copy_GBps"])
            r["limit"], limit_GBps = mem.for_traffic(r["bytes_read"], r["bytes_written"])
            r["pct_of_limit"] = 100 * r["GBps"] / limit_GBps
        if "GFLOPs" in r and r["group"] == "matmul":
            r["pct_of_matmul"] = 100 * r["GFLOPs"] / lim["gpu_matmul_GFLOPs" if gpu else "cpu_matmul_GFLOPs"]
        if r.get("pct_of_limit", 0) > 100:
            r["note"] = (r["note"] + "; " if r["note"] else "") + (
                f"above the {r['limit']} limit: that limit is itself a measured kernel on 512 MiB "
                "(a sum, a fill, a copy), not the hardware's peak, and a small input may be served by a "
                "cache level; only a size sweep on this machine tells which (modules 09 and 12 run one)"
            )
        eager = by_key.get((r["group"], r["eager"])) if r.get("eager") else None
        if eager:
            r["faster_than_eager"] = r["min_s"] < eager["min_s"]
            if not r["faster_than_eager"]:
                r["note"] = (r["note"] + "; " if r["note"] else "") + f"not faster than {r['eager']} in this run"


def _fmt(v: float | None, spec: str) -> str:
    return "" if v is None else format(v, spec)


def markdown(report: dict[str, Any]) -> str:
    m, lim = report["machine"], report["limits"]
    lines = [
        f"# Benchmark results ({'quick sizes' if report['quick'] else 'full sizes'})",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, torch {m['torch']} using {m['torch_threads']} threads"
        + (f"; GPU {m['gpu']}" if "gpu" in m else "; no GPU")
        + ".",
        f"Limits measured in the same run: CPU read {lim['cpu_read_GBps']:.1f} GB/s, "
        f"write {lim['cpu_write_GBps']:.1f} GB/s, copy {lim['cpu_copy_GBps']:.1f} GB/s (read + write), "
        f"CPU float32 matmul {lim['cpu_matmul_GFLOPs']:.0f} GFLOP/s"
        + (
            f"; GPU copy {lim['gpu_copy_GBps']:.0f} GB/s, GPU matmul {lim['gpu_matmul_GFLOPs'] / 1000:.1f} TFLOP/s"
            if "gpu_copy_GBps" in lim
            else ""
        )
        + ".",
        "",
        "| group | variant | size | min | median | speedup | MB read / written | GB/s (% of the matching limit) | "
        "GFLOP/s (% of matmul) | compile | same result | published (hardware) | what limits it |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        gbs = f"{r['GBps']:.1f} ({r['pct_of_limit']:.0f}% of {r['limit']})" if "GBps" in r else ""
        traffic = f"{r['bytes_read'] / 1e6:,.1f} / {r['bytes_written'] / 1e6:,.1f}" if "bytes_read" in r else ""
        same = {True: "yes", False: "**NO**", None: ""}[r.get("matches_baseline")]
        speed = f"{r['speedup']:.1f}x vs {r['baseline']}" if r.get("speedup") else "baseline"
        flops = (
            f"{r['GFLOPs']:.1f}" + (f" ({r['pct_of_matmul']:.0f}%)" if "pct_of_matmul" in r else "")
            if "GFLOPs" in r
            else ""
        )
        lines.append(
            f"| {r['group']} | {r['variant']} | {r['size']} | {format_seconds(r['min_s'])} | "
            f"{format_seconds(r['median_s'])} | {speed} | {traffic} | {gbs} | {flops} | "
            f"{format_seconds(r['compile_s']) if r['compile_s'] is not None else ''} | {same} | "
            f"{r['published']} | {r['note']} |"
        )
    lines += [
        "",
        "Times of rows marked 'x N' in the size column were measured on a 1/N subsample and "
        "multiplied by N. GB/s counts the least bytes the step must read and write (module 12); a row is held "
        "against the read limit when it writes under a tenth of what it reads, the write limit in the opposite "
        "case, else the copy limit. 'compile' is the "
        "first call's extra time: seconds with a cold inductor cache, a fraction of a second with a warm one "
        "from an earlier run. Published figures: docs/reference-figures.md (hardware as named there).",
    ]
    return "\n".join(lines) + "\n"


def chart(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in report["rows"] if r.get("speedup")]
    fig, ax = plt.subplots(figsize=(9, 0.35 * len(rows) + 1.5))
    labels = [f"{r['group']}: {r['variant']}" for r in rows]
    ax.barh(labels, [r["speedup"] for r in rows], color=["C1" if r["compile_s"] is not None else "C0" for r in rows])
    ax.set_xscale("log")
    ax.axvline(1, color="grey", linewidth=0.8)
    ax.invert_yaxis()
    ax.set(
        xlabel="speedup over the row's baseline (log scale; orange: compiled)",
        title=f"torchcourse.bench on {report['machine']['cores']} cores "
        f"({'quick' if report['quick'] else 'full'} sizes)",
    )
    ax.tick_params(axis="y", labelsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def run(quick: bool = False, out: Path | None = None, only: list[str] | None = None) -> dict[str, Any]:
    device = pick_device()
    devices = [torch.device("cpu")] + ([device] if device.type == "cuda" else [])
    print(
        f"bench: measuring limits on {describe_device('cpu')}" + (" and the GPU" if len(devices) > 1 else ""),
        flush=True,
    )
    lim = limits(quick, device)
    print("  " + ", ".join(f"{k} {v:.1f}" for k, v in lim.items()), flush=True)
    records: list[dict[str, Any]] = []
    start = time.perf_counter()
    for group in GROUPS:
        for dev in devices:
            if only and not any(o.replace("-", "") in group.__name__ for o in only):
                continue
            results: dict[str, Any] = {}
            for row in group(quick, dev):
                if dev.type != "cpu" and f"({dev.type})" not in row.name:
                    continue  # CPU-only rows run once, in the CPU pass
                print(f"[{len(records) + 1:>2}] {row.group:<20} {row.name:<42}", end=" ", flush=True)
                rec = run_row(row, dev, results)
                records.append(rec)
                print(
                    f"min {format_seconds(rec['min_s']):>9}"
                    + (f"  (compile {format_seconds(rec['compile_s'])})" if rec["compile_s"] is not None else ""),
                    flush=True,
                )
            del results
            gc.collect()
    derive(records, lim)
    report = {
        "quick": quick,
        "machine": machine(),
        "limits": lim,
        "rows": records,
        "seconds": time.perf_counter() - start,
        "argv": sys.argv[1:],
    }
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "bench.json").write_text(json.dumps(report, indent=1))
        (out / "bench.md").write_text(markdown(report))
        chart(report, out / "bench.png")
        print(f"bench: {len(records)} rows in {report['seconds']:.0f} s -> {out}/bench.md, bench.json, bench.png")
    from torchcourse.bench import sidebyside  # imports neither numba nor jax

    print(
        "bench: Numba and JAX are installed here: python -m torchcourse.bench.sidebyside runs them beside these"
        if sidebyside.available()
        else sidebyside.ABSENT
    )
    return report


# what --only accepts: the group functions' names without "_rows" (k-means is "kmeans")
GROUP_WORDS = [g.__name__.removesuffix("_rows") for g in GROUPS]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes (seconds per row)")
    parser.add_argument("--out", type=Path, default=ROOT / "results", help="output folder (default: results/)")
    parser.add_argument(
        "--only", nargs="*", metavar="WORD", help=f"run only the groups named by these words ({', '.join(GROUP_WORDS)})"
    )
    args = parser.parse_args(argv)
    unknown = [w for w in args.only or [] if not any(w.replace("-", "") in g.__name__ for g in GROUPS)]
    if unknown:
        parser.error(f"no benchmark group matches {', '.join(unknown)}; the groups are {', '.join(GROUP_WORDS)}")
    report = run(args.quick, args.out, args.only)
    mismatches = [r["variant"] for r in report["rows"] if r.get("matches_baseline") is False]
    if mismatches:
        print("bench: results differ from their baseline:", ", ".join(mismatches))
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
