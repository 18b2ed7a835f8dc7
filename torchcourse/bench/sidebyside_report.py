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
        f"The process was pinned to CPU(s) {', '.join(map(str, cpus))} (CPU affinity; XLA has no flag that "
        "caps its CPU thread pool); cores busy = CPU time over wall time in the timed rounds."
    )


def spread(row: dict[str, Any]) -> float:
    """A row's run-to-run spread: its median over its minimum, minus one (0.05 = 5%)."""
    return row["median_s"] / row["min_s"] - 1


def verdict(rows: list[dict[str, Any]], group: str) -> dict[str, Any] | None:
    """The course's fastest variant of ``group`` against the fastest peer, and the verdict:
    "course ahead" or "<tool> ahead" only where the minimum and the median agree and the margin
    between the minimums exceeds both rows' spread; "a tie" otherwise. None without peers."""
    mine = [r for r in rows if r["group"] == group and r["tool"] == "torch" and r["how"] != "probe"]
    peers = [r for r in rows if r["group"] == group and r["tool"] in ("Numba", "JAX")]
    if not mine or not peers:
        return None
    c, p = min(mine, key=lambda r: r["min_s"]), min(peers, key=lambda r: r["min_s"])
    fast, slow = (c, p) if c["min_s"] < p["min_s"] else (p, c)
    margin = slow["min_s"] / fast["min_s"] - 1
    beyond = fast["median_s"] < slow["median_s"] and margin > max(spread(c), spread(p))
    who = "course" if fast is c else p["tool"]
    return {
        "course": c,
        "peer": p,
        "margin": margin,
        "spread": max(spread(c), spread(p)),
        "verdict": f"{who} ahead" if beyond else "a tie",
    }


def caveat(report: dict[str, Any], group: str, peer: dict[str, Any]) -> str:
    """What keeps a peer's row from being its best, where the run shows it."""
    ir = report.get("numba_ir", {})
    if group == "ga fitness 3" and peer["tool"] == "Numba" and ir and not ir.get("USING_SVML"):
        return (
            "Numba without a vector maths library (its llvmlite lacks the patch SVML needs, so no install "
            "adds one): its sin and cos run one value at a time"
        )
    return ""


def unlike_rows(report: dict[str, Any]) -> list[str]:
    """Sentences naming the rows of this run that do not compare like with like: by the rule of
    :func:`torchcourse.bench.sidebyside_variants.unlike` where the rows carry their dtype (runs
    since the rows were made like for like), by the one gap older runs are known to have otherwise."""
    from torchcourse.bench.sidebyside_variants import TOOLS, unlike

    rows = [r for r in report["rows"]]
    if rows and all("dtype" in r for r in rows):
        tools = TOOLS if report.get("peers") else ("torch",)
        found = []
        for g in dict.fromkeys(r["group"] for r in rows):
            gaps = unlike([(r["tool"], r["how"], r["dtype"]) for r in rows if r["group"] == g], tools)
            found += [f"{g}: {gap}" for gap in gaps]
        return found
    variants = {(r["group"], r["variant"]) for r in rows}
    g = "ga fitness 1 (sum)"
    if (g, "torch compiled, dtype=int32") in variants and (g, "torch.compile of the NumPy code") not in variants:
        return [
            "ga fitness 1: torch's 'as written' row is the int32 sum (the course's fix), while JAX's 'as "
            "written' row is NumPy's code with its int64 sum; torch.compile of NumPy's int64 sum was not "
            "timed, nor a JAX int32 sum, so no row compares the two compilers on the same code."
        ]
    return []


def dtype_cell(row: dict[str, Any]) -> str:
    """A row's dtype and the setting it depends on (absent in runs before rows carried it)."""
    return row.get("dtype", "") + (f" ({row['dtype_note']})" if row.get("dtype_note") else "")


def by_kind(report: dict[str, Any]) -> list[str]:
    """Markdown lines: per workload, each kind of row (NumPy's code, the course's dtype fix, its
    rewrite) under each tool, the fastest row's minimum and x NumPy; empty for runs whose rows
    carry no dtype. Down the NumPy column, the algorithm's gain with no compiler; along a row, the
    compilers' gains on the same code."""
    rows = [r for r in report["rows"] if r["how"] != "probe"]
    if not rows or not all("dtype" in r for r in rows):
        return []
    tools = ["NumPy"] + [t for t in ("torch", "Numba", "JAX") if any(r["tool"] == t for r in rows)]
    lines = [
        "",
        "## Each kind of row under each tool",
        "",
        "The fastest row of each tool and kind: minimum (x NumPy). NumPy's column is NumPy's own code "
        "('as written': the baseline) and the course's changes written in NumPy, nothing compiled; down it, "
        "what the algorithm gains without a compiler; along a line, what each compiler adds to the same code.",
        "",
        "| workload | kind | dtype | " + " | ".join(tools) + " |",
        "|---|---|---|" + "---|" * len(tools),
    ]
    for g in dict.fromkeys(r["group"] for r in rows):
        kinds = dict.fromkeys(
            ("as written" if r["how"] == "baseline" else r["how"], r["dtype"]) for r in rows if r["group"] == g
        )
        for kind, dtype in kinds:
            cells = []
            for t in tools:
                mine = [
                    r
                    for r in rows
                    if r["group"] == g
                    and r["tool"] == t
                    and r["dtype"] == dtype
                    and ("as written" if r["how"] == "baseline" else r["how"]) == kind
                ]
                best = min(mine, key=lambda r: r["min_s"]) if mine else None
                cells.append(f"{format_seconds(best['min_s'])} ({best['x_numpy']:.1f})" if best else "-")
            lines.append(f"| {g} | {kind} | {dtype} | " + " | ".join(cells) + " |")
    return lines


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
        "| workload | tool | variant | how | dtype | min | median | x NumPy | MB read / written | "
        "% of the matching limit | cores busy | same as NumPy |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in report["rows"]:
        lines.append(
            f"| {r['group']} | {r['tool']} | {r['variant']} | {r['how']} | {dtype_cell(r)} | "
            f"{format_seconds(r['min_s'])} | {format_seconds(r['median_s'])} | {r['x_numpy']:.1f} | "
            f"{r['bytes_read'] / 1e6:,.0f} / {r['bytes_written'] / 1e6:,.0f} | "
            f"{r['pct_of_limit']:.0f}% of {r['limit']} | {r.get('cores_used', float('nan')):.2f} | "
            f"{'yes' if r['correct'] else '**NO**'}: {r['check']} |"
        )
    lines += ["", "## Fastest of the course's variants against the fastest peer", ""]
    lines += [
        "A row is called faster only where its minimum and its median are both lower and the margin between "
        "the minimums exceeds the spread of both rows (median over minimum, minus one); otherwise the two are "
        "a tie.",
        "",
        "| workload | course's fastest (min / median) | fastest peer (min / median) | verdict | "
        "course's % of limit | caveat |",
        "|---|---|---|---|---|---|",
    ]
    for g, w in report["winners"].items():
        v = verdict(report["rows"], g)
        if v is None:
            lines.append(
                f"| {g} | {w['course']} ({format_seconds(w['course_s'])}) | (peers not installed) | | "
                f"{w['pct_of_limit']:.0f}% | |"
            )
            continue
        c, p = v["course"], v["peer"]
        lines.append(
            f"| {g} | {c['variant']} ({format_seconds(c['min_s'])} / {format_seconds(c['median_s'])}) | "
            f"{p['tool']}: {p['variant']} ({format_seconds(p['min_s'])} / {format_seconds(p['median_s'])}) | "
            f"{v['verdict']} | {c['pct_of_limit']:.0f}% | {caveat(report, g, p)} |"
        )
    lines += by_kind(report)
    unlike = unlike_rows(report)
    if unlike:
        lines += ["", "Rows that are not like for like in this run:", ""] + [f"* {u}" for u in unlike]
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
        "First calls are compared only in the first-call table (the in-process first calls of the timed run "
        "are not shown: torch's there were served by inductor's default cache folder, warm in that run, beside "
        "cold Numba and JAX compiles). The first-call table: fresh processes, 'cold' with an empty cache "
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


ORDER_CHECK_RUNS = (  # (file under docs/benchmarks, what the run was): the order check's runs, 1 thread first
    ("peers-cpu-2core-fixed.json", "fixed order (the run kept before)"),
    ("peers-cpu-2core-fixed-again.json", "fixed order again"),
    ("peers-cpu-2core.json", "order shuffled each round (kept run)"),
    ("peers-cpu-2core-2threads-fixed.json", "fixed order (the run kept before)"),
    ("peers-cpu-2core-2threads.json", "order shuffled each round (kept run)"),
)


def order_check(runs: list[tuple[str, dict[str, Any]]]) -> str:
    """The same rows in runs that differ in the order the variants took turns: each row's minimum in
    each run, then the verdict by the rule (:func:`verdict`) for every workload in every run."""
    lines = ["# The order the variants take turns in, checked", ""]
    lines += [
        "The same benchmark (`python -m torchcourse.bench.sidebyside`, 9 rounds, the cache emptied before "
        "every call) on the same machine, quiet, with the variants taking turns in the same order every "
        "round (as the runs kept before this check did) and in an order shuffled afresh each round (as "
        "`make bench-peers` does now; the shuffled runs are the kept runs the README and lessons 12 and 13 "
        "print). Generated from the JSON files beside this page "
        "(`torchcourse.bench.sidebyside_report.order_check`).",
    ]
    for threads in sorted({r["threads"] for _, r in runs}):
        these = [(label, r) for label, r in runs if r["threads"] == threads]
        lines += ["", f"## {threads} thread(s): {these[0][1]['machine']['cpu']}", ""]
        lines += ["| workload | variant | " + " | ".join(label for label, _ in these) + " |"]
        lines += ["|---|---|" + "---|" * len(these)]
        mins = [{(x["group"], x["variant"]): x["min_s"] for x in r["rows"]} for _, r in these]
        for row in these[0][1]["rows"]:
            key = (row["group"], row["variant"])
            cells = [format_seconds(m[key]) if key in m else "-" for m in mins]
            lines.append(f"| {row['group']} | {row['variant']} | " + " | ".join(cells) + " |")
        lines += ["", "| workload | " + " | ".join(label for label, _ in these) + " |", "|---|" + "---|" * len(these)]
        for group in dict.fromkeys(x["group"] for x in these[0][1]["rows"]):
            cells = []
            for _, r in these:
                v = verdict(r["rows"], group)
                cells.append(
                    f"{v['verdict']} ({format_seconds(v['course']['min_s'])} against "
                    f"{format_seconds(v['peer']['min_s'])}, {v['peer']['tool']})"
                )
            lines.append(f"| {group} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
