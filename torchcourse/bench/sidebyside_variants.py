"""The side-by-side benchmark's variants (:mod:`torchcourse.bench.sidebyside`): like for like by construction.

Every workload gives each tool (torch, Numba, JAX) the same kinds of row, each kind in the same
dtype for every tool:

* ``as written``: the code as the tool's users write it (a Numba ``prange`` loop, ``jax.jit`` or
  ``torch.compile`` of the NumPy code), in the dtype of NumPy's baseline;
* ``course's dtype fix`` (GA fitness 1): the same sum accumulated in int32 instead of int64;
* ``course's rewrite``: the course's algorithm and layout (modules 12 and 13).

NumPy's own code is the ``baseline`` (the first row); NumPy also runs every other kind, with no
compiler (:mod:`torchcourse.bench.workloads.numpy_rewrites`): the control that tells the
algorithm's gain from the compiler's. :func:`unlike` names what a workload's rows lack, and
:func:`workloads` refuses to build a workload with a gap. A ``probe`` row is a measurement of a
cause, not an answer, and has no counterpart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np
import torch

from torchcourse.bench.probes import PROBE_F2, PROBE_KM, f2_probe, km_probe, run_probe
from torchcourse.bench.workloads import ga, kmeans
from torchcourse.bench.workloads import numpy_rewrites as npr

TOOLS = ("torch", "Numba", "JAX")  # the compilers, each with every kind of row
KINDS = ("as written", "course's rewrite")  # the kinds every workload has for every tool
BASELINE, PROBE, DTYPE_FIX = "baseline", "probe", "course's dtype fix"
X64_ON = "jax_enable_x64 on (JAX's default is float32 and int32)"
# (points, population rows, points) per workload. Full: every input larger than the CI machine's
# 32 MiB L3 (80, 200, 96 MB), small enough that the slowest variants finish their rounds in minutes.
SIZES = {"quick": (200_000, 9_000, 100_000), "full": (10_000_000, 200_000, 4_000_000)}

NUMBA_KERNELS: dict[str, Any] = {}  # the run's Numba dispatchers, for peers.census


@dataclass
class Variant:
    name: str
    tool: str  # "NumPy", "torch", "Numba", "JAX"
    how: str  # BASELINE, one of KINDS, DTYPE_FIX, or PROBE
    dtype: str  # what it reads and computes in: "float32", "int64", "int32", "int64 words", "float64"
    run: Callable[[], Any]
    bytes_read: int
    note: str = ""  # a setting the dtype depends on


class Peers(NamedTuple):
    """The peers' kernels and JAX's two helpers (real ones from :func:`load_peers`; a test
    passes stand-ins, so the variant lists are built without Numba or JAX)."""

    nb: dict[str, Callable[..., Any]]
    jx: dict[str, Callable[..., Any]]
    put: Callable[[Any], Any]  # jax.device_put
    ready: Callable[[Any], Any]  # peers.ready


def load_peers() -> Peers:
    import jax

    from torchcourse.bench import peers as p

    nb = p.numba_kernels()
    NUMBA_KERNELS.update(nb)
    if not jax.config.jax_enable_x64:  # peers.configure sets it; without it every JAX row changes dtype
        raise RuntimeError("jax_enable_x64 is off: call peers.configure first")
    return Peers(nb, p.jax_kernels(), jax.device_put, p.ready)


def unlike(rows: Sequence[tuple[str, str, str]], tools: Sequence[str] = TOOLS) -> list[str]:
    """What keeps one workload's rows from comparing like with like; empty when nothing does.

    ``rows``: ``(tool, how, dtype)`` of each row, NumPy's baseline first. Each tool in ``tools``
    needs every kind of :data:`KINDS`; its "as written" rows must be in the baseline's dtype; every
    tool has the same (kind, dtype) pairs; NumPy has each of them too, except "as written" (its
    baseline is NumPy as written)."""
    if not rows or rows[0][:2] != ("NumPy", BASELINE):
        return ["the first row is not NumPy's baseline"]
    base_dtype = rows[0][2]
    have = {t: {(how, d) for tool, how, d in rows if tool == t and how not in (BASELINE, PROBE)} for t in tools}
    numpy = {(how, d) for tool, how, d in rows if tool == "NumPy" and how != BASELINE}
    found = []
    for t in tools:
        found += [f"{t} has no '{k}' row" for k in KINDS if not any(how == k for how, _ in have[t])]
        found += [
            f"{t}'s 'as written' row is in {d}, NumPy's baseline in {base_dtype}"
            for how, d in sorted(have[t])
            if how == "as written" and d != base_dtype
        ]
    every = set().union(*have.values()) if have else set()
    for t in tools:
        found += [f"{t} has no '{how}' row in {d}" for how, d in sorted(every - have[t])]
    found += [
        f"NumPy has no '{how}' row in {d} (the control)" for how, d in sorted(every - numpy) if how != "as written"
    ]
    return found


def result_dtype(variants: Sequence[Variant], results: Sequence[Any]) -> list[str]:
    """For each row, what is wrong with its result's dtype ("" if nothing): a row's result must
    have the dtype of the NumPy row of its kind (the baseline for "as written")."""
    dt = [str(np.asarray(r).dtype) if not isinstance(r, torch.Tensor) else str(r.numpy().dtype) for r in results]
    numpy = {v.how: d for v, d in zip(variants, dt) if v.tool == "NumPy"}
    found = []
    for v, d in zip(variants, dt):
        want = numpy.get(BASELINE if v.how == "as written" else v.how)
        found.append(
            "" if v.how == PROBE or want is None or d == want else f"result {d}, NumPy's row of its kind {want}"
        )
    return found


def _checked(vs: list[Variant], peers: bool) -> list[Variant]:
    gaps = unlike([(v.tool, v.how, v.dtype) for v in vs], TOOLS if peers else ("torch",))
    if gaps:
        raise ValueError(f"not like for like: {'; '.join(gaps)} (torchcourse.bench.sidebyside_variants)")
    return vs


def workloads(
    quick: bool, peers: bool, stand_ins: Peers | None = None
) -> list[tuple[str, str, Callable[[], list[Variant]]]]:
    """(group, size, builder) for each workload; a builder makes the data and the variants."""
    n_km, n_ga1, n_pts = SIZES["quick" if quick else "full"]
    pk = (stand_ins or load_peers()) if peers else None

    def km() -> list[Variant]:
        X64, means64 = kmeans.make_blobs(n_km)
        X, M = X64.astype(np.float32), means64.astype(np.float32)
        del X64
        T, TM = torch.from_numpy(X), torch.from_numpy(M)
        C = kmeans.to_columns(T)
        out, out_probe = torch.empty(n_km, dtype=torch.int8), torch.empty(n_km, dtype=torch.int8)
        W, c = (a.numpy() for a in kmeans.linear_scores(TM))
        Cn, o8, o8n = C.numpy(), np.empty(n_km, np.int8), np.empty(n_km, np.int8)
        c_np, rd, rw, f32 = kmeans.compiled_numpy(), X.nbytes, "course's rewrite", "float32"
        vs = [
            Variant("NumPy float32", "NumPy", BASELINE, f32, lambda: kmeans.assign_numpy(X, M), rd),
            Variant(
                "NumPy, course's rewrite (columns)", "NumPy", rw, f32, lambda: npr.assign_columns(Cn, W, c, o8n), rd
            ),
            Variant("torch.compile of the NumPy code", "torch", "as written", f32, lambda: c_np(X, M), rd),
            Variant(
                "course's best (assign_best, columns)", "torch", rw, f32, lambda: kmeans.assign_best(C, TM, out), rd
            ),
            Variant(PROBE_KM, "torch", PROBE, f32, lambda: run_probe(km_probe, C, out_probe), rd),
        ]
        if pk:
            nb, jx, ready = pk.nb, pk.jx, pk.ready
            nb["kmeans_cols"](Cn[:, :1000], W, c, o8[:1000])  # not timed: the census's kernel with a loop over j
            jX, jM, jC, jW, jc = (pk.put(a) for a in (X, M, Cn, W, c))
            vs += [
                Variant("Numba loop (njit parallel)", "Numba", "as written", f32, lambda: nb["kmeans_loop"](X, M), rd),
                Variant("Numba, course's rewrite", "Numba", rw, f32, lambda: nb["kmeans_cols2"](Cn, W, c, o8), rd),
                Variant(
                    "JAX jit of the NumPy code",
                    "JAX",
                    "as written",
                    f32,
                    lambda: ready(jx["kmeans_numpy"](jX, jM)),
                    rd,
                    X64_ON + ": int64 labels, as NumPy's",
                ),
                Variant("JAX, course's rewrite", "JAX", rw, f32, lambda: ready(jx["kmeans_cols"](jC, jW, jc)), rd),
            ]
        return _checked(vs, peers)

    def ga1() -> list[Variant]:
        pop = ga.gene_population(n_ga1)
        P, rd, out = pop.numpy(), pop.numel(), torch.empty(n_ga1, dtype=torch.int32)
        o32n, rw, i64, i32, words = np.empty(n_ga1, np.int32), "course's rewrite", "int64", "int32", "int64 words"
        vs = [
            Variant("NumPy sum(axis=1)", "NumPy", BASELINE, i64, lambda: ga.sum_numpy(P), rd),
            Variant("NumPy sum(axis=1, dtype=int32)", "NumPy", DTYPE_FIX, i32, lambda: npr.sum_int32(P), rd),
            Variant("NumPy, course's rewrite (int64 words)", "NumPy", rw, words, lambda: npr.sum_words(P, o32n), rd),
            Variant(
                "torch.compile of the NumPy code", "torch", "as written", i64, lambda: ga.sum_numpy_compiled(P), rd
            ),
            Variant("torch compiled, dtype=int32", "torch", DTYPE_FIX, i32, lambda: ga.sum_torch_compiled(pop), rd),
            Variant("course's best (sum_best, int64 words)", "torch", rw, words, lambda: ga.sum_best(pop, out), rd),
        ]
        if pk:
            nb, jx, ready = pk.nb, pk.jx, pk.ready
            o32, jP = np.empty(n_ga1, np.int32), pk.put(P)
            vs += [
                Variant("Numba loop (njit parallel)", "Numba", "as written", i64, lambda: nb.get("sum_loop")(P), rd),
                Variant("Numba loop, int32 sums", "Numba", DTYPE_FIX, i32, lambda: nb.get("sum_loop32")(P), rd),
                Variant("Numba, course's rewrite (words)", "Numba", rw, words, lambda: nb["sum_words"](P, o32), rd),
                Variant(
                    "JAX jit of the NumPy code",
                    "JAX",
                    "as written",
                    i64,
                    lambda: ready(jx.get("sum_numpy")(jP)),
                    rd,
                    X64_ON,
                ),
                Variant("JAX jit, dtype=int32", "JAX", DTYPE_FIX, i32, lambda: ready(jx.get("sum_narrow")(jP)), rd),
                Variant(
                    "JAX, course's rewrite (words)",
                    "JAX",
                    rw,
                    words,
                    lambda: ready(jx.get("sum_words")(jP)),
                    rd,
                    X64_ON,
                ),
            ]
        return _checked(vs, peers)

    def fitness(k: int) -> Callable[[], list[Variant]]:
        def build() -> list[Variant]:
            pts = ga.random_points(n_pts, ga.BOX2 if k == 2 else ga.BOX3)
            P, C = pts.numpy(), ga.to_columns(pts)
            out, rd, f64, rw = torch.empty(n_pts, dtype=torch.float64), P.nbytes, "float64", "course's rewrite"
            Cn, on = C.numpy(), np.empty(n_pts)
            np_fn, np_cols = getattr(ga, f"fitness{k}_numpy"), getattr(npr, f"fitness{k}_columns")
            c_np, c_t, best = (getattr(ga, f"fitness{k}_{s}") for s in ("numpy_compiled", "torch_compiled", "best"))
            vs = [
                Variant("NumPy", "NumPy", BASELINE, f64, lambda: np_fn(P), rd),
                Variant("NumPy, course's rewrite (columns)", "NumPy", rw, f64, lambda: np_cols(Cn, on), rd),
                Variant("torch.compile of the NumPy code", "torch", "as written", f64, lambda: c_np(P), rd),
                Variant("compiled torch (rows)", "torch", "as written", f64, lambda: c_t(pts), rd),
                Variant(f"course's best (fitness{k}_best, columns)", "torch", rw, f64, lambda: best(C, out), rd),
            ]
            if k == 2:
                out_probe = torch.empty_like(out)  # its own: `out` holds the rewrite's answer until it is checked
                vs.append(Variant(PROBE_F2, "torch", PROBE, f64, lambda: run_probe(f2_probe, C, out_probe), rd))
            if pk:
                o, jP, jC, ready = np.empty(n_pts), pk.put(P), pk.put(Cn), pk.ready
                loop, cols = pk.nb[f"fitness{k}_loop"], pk.nb[f"fitness{k}_cols"]
                jn, jc = pk.jx[f"fitness{k}_numpy"], pk.jx[f"fitness{k}_cols"]
                vs += [
                    Variant("Numba loop (njit parallel)", "Numba", "as written", f64, lambda: loop(P), rd),
                    Variant("Numba, course's rewrite", "Numba", rw, f64, lambda: cols(Cn, o), rd),
                    Variant("JAX jit of the NumPy code", "JAX", "as written", f64, lambda: ready(jn(jP)), rd, X64_ON),
                    Variant("JAX, course's rewrite (columns)", "JAX", rw, f64, lambda: ready(jc(jC)), rd, X64_ON),
                ]
            return _checked(vs, peers)

        return build

    return [
        ("k-means", f"{n_km:,} points, float32", km),
        ("ga fitness 1 (sum)", f"{n_ga1:,} x {ga.GENES} int8", ga1),
        ("ga fitness 2", f"{n_pts:,} points, float64", fitness(2)),
        ("ga fitness 3", f"{n_pts:,} points, float64", fitness(3)),
    ]
