"""The side-by-side benchmark's Markdown table and chart (:mod:`torchcourse.bench.sidebyside`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from torchcourse.timing import format_seconds

COLOURS = {"NumPy": "0.6", "torch": "C1", "Numba": "C0", "JAX": "C2"}


def _pinned(report: dict[str, Any]) -> str:
    cpus = report.get("pinned_cpus")
    if not cpus:
        return "Not pinned to CPUs (no sched_setaffinity here): the cores-busy column shows what each tool used."
    return (
        f"The process was pinned to CPU(s) {', '.join(map(str, cpus))} (CPU affinity; XLA ignores its thread "
        "flags); cores busy = CPU time over wall time in the timed rounds."
    )


def markdown(report: dict[str, Any]) -> str:
    m, lim = report["machine"], report["limits"]
    lines = [
        f"# The course's variants beside Numba and JAX ({'quick sizes' if report['quick'] else 'full sizes'})",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores; every tool on {report['threads']} thread(s); "
        f"{report['rounds']} interleaved rounds, minimum and median"
        + (
            f"; before every timed call {report['flushed_MB']:.0f} MB were read (not timed), twice the largest "
            f"cache ({report['llc_MB']:.0f} MiB), so every call reads its data from memory."
            if "flushed_MB" in report
            else "."
        ),
        "Tools: " + "; ".join(f"{k} {v}" for k, v in report["tools"].items()) + ".",
        _pinned(report),
        f"Limits measured in the same rounds as each workload, {report['threads']} thread(s), on buffers of "
        "the workload's footprint (so from the same level of the memory hierarchy): "
        + "; ".join(
            f"{g} ({g_lim['footprint_MB']:.0f} MB) read {g_lim['read_GBps']:.1f}, write {g_lim['write_GBps']:.1f}, "
            f"copy {g_lim['copy_GBps']:.1f} GB/s"
            for g, g_lim in report["limits_per_group"].items()
        )
        + f"; sin + cos of float64 (compiled, in cache) {lim['trig_points_per_s'] / 1e6:.0f} M points/s.",
    ]
    if "installed_MB" in report:
        lines.append(
            "Installed size: "
            + "; ".join(
                f"{peer} {sum(d.values()):.0f} MB ({', '.join(f'{k} {v:.0f}' for k, v in d.items())})"
                for peer, d in report["installed_MB"].items()
            )
            + "."
        )
    else:
        lines.append("Numba and JAX were not installed: `make bench-peers` adds them.")
    lines += [
        "",
        "| workload | tool | variant | how | min | median | x NumPy | MB read / written | % of the matching limit | "
        "cores busy | first call | same as NumPy |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        lines.append(
            f"| {r['group']} | {r['tool']} | {r['variant']} | {r['how']} | {format_seconds(r['min_s'])} | "
            f"{format_seconds(r['median_s'])} | {r['x_numpy']:.1f} | "
            f"{r['bytes_read'] / 1e6:,.0f} / {r['bytes_written'] / 1e6:,.0f} | "
            f"{r['pct_of_limit']:.0f}% of {r['limit']} | {r.get('cores_used', float('nan')):.2f} | "
            f"{format_seconds(r['first_call_s'])} | "
            f"{'yes' if r['correct'] else '**NO**'}: {r['check']} |"
        )
    lines += ["", "## Fastest of the course's variants against the fastest peer", ""]
    lines += [
        "| workload | course's fastest | peer's fastest | course ahead | course's % of limit |",
        "|---|---|---|---|---|",
    ]
    for g, w in report["winners"].items():
        peer = f"{w['peer']} ({format_seconds(w['peer_s'])})" if "peer" in w else "(peers not installed)"
        ahead = {True: "yes", False: "**no**", None: ""}[w.get("ahead")]
        lines.append(
            f"| {g} | {w['course']} ({format_seconds(w['course_s'])}) | {peer} | {ahead} | {w['pct_of_limit']:.0f}% |"
        )
    if "numba_ir" in report:
        ir = dict(report["numba_ir"])
        svml = ir.pop("USING_SVML")
        lines += ["", "## What LLVM made of each Numba kernel (its optimised IR)", ""]
        lines += [
            f"Vector instructions: arithmetic, compares and selects on vectors; sin and cos: the intrinsics "
            f"called, on scalars or on vectors of n lanes (vn). Numba found a vector maths library (SVML): "
            f"{'yes' if svml else 'no'}, so each vector sin or cos becomes "
            + ("one vector call." if svml else "one scalar C-library call per lane."),
            "",
            "| kernel | vector instructions | widest vector | sin and cos |",
            "|---|---|---|---|",
        ]
        for k, c in ir.items():
            lines.append(f"| {k} | {c['vector_ops']} | {c['widest']} | {', '.join(c['sin_cos']) or '-'} |")
    for label, mins in report.get("other_runs", {}).items():
        lines += ["", f"## The same rows in another run: {label}", ""]
        lines += ["| workload | variant | this run | that run |", "|---|---|---|---|"]
        for r in report["rows"]:
            other = mins.get(f"{r['group']}: {r['variant']}")
            if other is not None:
                lines.append(
                    f"| {r['group']} | {r['variant']} | {format_seconds(r['min_s'])} | {format_seconds(other)} |"
                )
    if "first_call" in report:
        lines += ["", "## The first call, in a fresh process", ""]
        kernels = [k for k in next(iter(report["first_call"].values()))["cold"] if not k.endswith("_s")]
        lines += [
            "| tool | cache | whole process | peer's import and start | " + " | ".join(kernels) + " |",
            "|---|---|---|---|" + "---|" * len(kernels),
        ]
        for tool, states in report["first_call"].items():
            for state, d in states.items():
                lines.append(
                    f"| {tool} | {state} | {d.get('process_s', float('nan')):.1f} s | "
                    + (f"{d['import_s']:.2f} s | " if tool != "torch" else "(with torchcourse) | ")
                    + " | ".join(f"{d[k]:.2f} s" for k in kernels)
                    + " |"
                )
    lines += [
        "",
        "x NumPy: NumPy's minimum over this row's, same data, same run. MB read / written: the input's bytes and "
        "the result's (each variant's own output dtype). % of the matching limit: the least time that traffic "
        "takes at the measured read, write or copy bandwidth (timing.Limits.for_traffic), or for fitness 3, "
        "where it is longer, the time the measured sin + cos rate takes, over the row's time. "
        "First call: the first call's time in this process (compiles for torch, Numba and JAX; JAX and torch "
        "compile per shape, Numba per type). The first-call table: fresh processes, 'cold' with an empty cache "
        "folder, 'warm' with the folder the cold process filled; each kernel's figure is its first call less its "
        "best later call, and the first kernel also pays the compiler's own start (inductor's, Numba's, XLA's); "
        "'whole process' includes starting Python and importing torch.",
    ]
    return "\n".join(lines) + "\n"


def chart(report: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = list(dict.fromkeys(r["group"] for r in report["rows"]))
    fig, axes = plt.subplots(1, len(groups), figsize=(4.2 * len(groups), 4.2), squeeze=False)
    for ax, g in zip(axes[0], groups):
        rows = [r for r in report["rows"] if r["group"] == g and r["how"] != "probe"]
        ax.barh([r["variant"] for r in rows], [r["x_numpy"] for r in rows], color=[COLOURS[r["tool"]] for r in rows])
        ax.set_xscale("log")
        ax.invert_yaxis()
        ax.set_title(g, fontsize=10)
        ax.tick_params(axis="y", labelsize=7)
        ax.set_xlabel("x NumPy (log)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in COLOURS.values()]
    fig.legend(handles, list(COLOURS), loc="lower center", ncol=4, fontsize=8)
    m = report["machine"]
    fig.suptitle(f"{m['cpu']}, {report['threads']} thread(s) for every tool", fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 0.95))
    fig.savefig(path, dpi=100)
    plt.close(fig)
