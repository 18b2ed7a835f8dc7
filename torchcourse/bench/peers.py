"""Numba and JAX, the tools a NumPy user reaches for first, on the course's workloads.

Each workload (K-Means assignment, GA fitness 1, 2 and 3) is written two ways per tool, in
the dtypes of NumPy's code (``torchcourse.bench.sidebyside_variants`` holds the rows to that):

* as its users write it: for Numba an ``@njit(parallel=True)`` scalar loop over the points
  with ``if``s and ``np.sqrt``, a fresh output each call; for JAX ``jax.jit`` of the very
  NumPy code through ``jax.numpy`` (the course's own ``f2``/``feasible2``/``f3``/``feasible3``);
  for the gene sum also with the course's dtype fix, int32 sums (``sum_loop32``, ``sum_narrow``);
* with the course's algorithmic rewrite (modules 12 and 13): points stored as columns, linear
  scores instead of distances, branch-free selects, the narrowest output that holds the result
  (int8 labels, int32 gene sums rather than int64), and for Numba an output buffer reused across calls (a jitted
  JAX function returns a new array every call: its arrays are immutable).

This module imports numba at the top (jax inside its functions): import it only where :func:`available` says
they are there (``torchcourse.bench.sidebyside`` does). Call :func:`configure` first: it sets
the thread counts, and XLA reads its flags when its CPU client starts.
"""

from __future__ import annotations

import math
import os
import re

import numpy as np
from numba import prange

# Eigen's thread pool off for XLA on the CPU. XLA has no flag that caps its own CPU thread pool
# (a bare `intra_op_parallelism_threads=1`, here until a review, is not a flag: XLA ignores a token
# without `--`, and `--intra_op_parallelism_threads=1` aborts with "Unknown flag in XLA_FLAGS"):
# the process is pinned instead (machine.pin_threads).
XLA_ONE_THREAD = "--xla_cpu_multi_thread_eigen=false"


def configure(threads: int, cache_dir: str | None = None) -> dict[str, str]:
    """Threads for Numba and XLA (call before the first JAX operation), float64 in JAX.

    ``cache_dir``: where Numba's ``cache=True`` files and JAX's persistent compilation cache go
    (None: no JAX cache; Numba's kernels are then compiled without ``cache``)."""
    if threads == 1 and XLA_ONE_THREAD not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " " + XLA_ONE_THREAD).strip()
    if cache_dir:
        os.environ["NUMBA_CACHE_DIR"] = os.path.join(cache_dir, "numba")
    import jax
    import numba

    numba.set_num_threads(threads)
    if cache_dir:  # numba read NUMBA_CACHE_DIR when this module imported it: tell its config too
        numba.config.CACHE_DIR = os.environ["NUMBA_CACHE_DIR"]
    jax.config.update("jax_enable_x64", True)  # float64 points stay float64, as in NumPy
    if cache_dir:
        jax.config.update("jax_compilation_cache_dir", os.path.join(cache_dir, "jax"))
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
        jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    return {
        "numba": f"{numba.__version__}, {numba.get_num_threads()} thread(s) (numba.set_num_threads)",
        "jax": f"{jax.__version__} (jaxlib), jax_enable_x64={jax.config.jax_enable_x64}, "
        f"XLA_FLAGS={os.environ.get('XLA_FLAGS', '') or '(unset: all cores)'}",
    }


# ----------------------------------------------------------------- Numba: loops as written


def _kmeans_loop(X, means):
    n, d = X.shape
    out = np.empty(n, np.int64)
    for i in prange(n):
        best, label = np.inf, 0
        for j in range(means.shape[0]):
            s = np.float32(0.0)  # NumPy's dtype: float32 sums for float32 points (0.0 would make them float64)
            for c in range(d):
                t = X[i, c] - means[j, c]
                s += t * t
            dist = np.sqrt(s)
            if dist < best:
                best, label = dist, j
        out[i] = label
    return out


def _sum_loop(pop):
    n, g = pop.shape
    out = np.empty(n, np.int64)
    for i in prange(n):
        s = 0
        for j in range(g):
            s += pop[i, j]
        out[i] = s
    return out


def _sum_loop32(pop):
    # _sum_loop with the course's dtype fix: int32 sums, a fresh int32 output
    n, g = pop.shape
    out = np.empty(n, np.int32)
    for i in prange(n):
        s = np.int32(0)
        for j in range(g):
            s += np.int32(pop[i, j])
        out[i] = s
    return out


def _fitness2_loop(P):
    n = P.shape[0]
    out = np.empty(n)
    for i in prange(n):
        x, y, z = P[i, 0], P[i, 1], P[i, 2]
        if x >= 1 and 3 < y <= 7 and z < 0 and x + y + z >= 3 and x**2 + z**2 <= 10:
            out[i] = x**2 + 2 * y**2 + 3 * z**2 + 4 * x * y - 5 * y * z
        else:
            out[i] = np.inf
    return out


def _fitness3_loop(P):
    n = P.shape[0]
    out = np.empty(n)
    for i in prange(n):
        x, y, z = P[i, 0], P[i, 1], P[i, 2]
        if x >= 0 and 0 <= y <= math.pi and z <= 5 and x + z >= 1 and math.cos(y) + z >= 0.5:
            out[i] = math.sin(x) + x**2 - 2 * math.cos(y) + y**2 + z**2
        else:
            out[i] = np.inf
    return out


# ----------------------------------------------------------------- Numba: the course's rewrite


def _kmeans_cols(C, W, c, out):
    # linear scores s_j = x.m_j - |m_j|^2/2, the largest wins; a select, not a branch
    for i in prange(C.shape[1]):
        x0, x1 = C[0, i], C[1, i]
        best = c[0] + x0 * W[0, 0] + x1 * W[1, 0]
        label = 0
        for j in range(1, W.shape[1]):
            s = c[j] + x0 * W[0, j] + x1 * W[1, j]
            label = j if s > best else label
            best = max(s, best)
        out[i] = label
    return out


def _kmeans_cols2(C, W, c, out):
    # _kmeans_cols with its loop over the means written out for two means (the benchmark's k):
    # what Dynamo does for torch and JAX's tracing does for JAX, so that all three compile the
    # same loop. With the loop left to run over j, the loop over the points stays scalar.
    for i in prange(C.shape[1]):
        x0, x1 = C[0, i], C[1, i]
        s0 = c[0] + x0 * W[0, 0] + x1 * W[1, 0]
        s1 = c[1] + x0 * W[0, 1] + x1 * W[1, 1]
        out[i] = 1 if s1 > s0 else 0
    return out


_LANES = 0x00FF00FF00FF00FF  # ga._LANES: the low byte of each 16-bit lane of an int64


def _sum_words(pop, out):
    # ga._sum_words for Numba: eight genes (0..127) per int64 word, summed in 16-bit lanes
    w = pop.view(np.int64)
    for i in prange(w.shape[0]):
        t = np.int64(0)
        for j in range(w.shape[1]):
            v = w[i, j]
            t += (v & _LANES) + ((v >> 8) & _LANES)
        out[i] = (t & 0xFFFF) + ((t >> 16) & 0xFFFF) + ((t >> 32) & 0xFFFF) + ((t >> 48) & 0xFFFF)
    return out


def _sum_narrow(pop, out):
    for i in prange(pop.shape[0]):
        s = np.int32(0)
        for j in range(pop.shape[1]):
            s += np.int32(pop[i, j])
        out[i] = s
    return out


def _fitness2_cols(C, out):
    for i in prange(C.shape[1]):
        x, y, z = C[0, i], C[1, i], C[2, i]
        ok = (x >= 1) & (y > 3) & (y <= 7) & (z < 0) & (x + y + z >= 3) & (x * x + z * z <= 10)
        f = x * x + 2 * y * y + 3 * z * z + 4 * x * y - 5 * y * z
        out[i] = f if ok else np.inf
    return out


def _fitness3_cols(C, out):
    for i in prange(C.shape[1]):
        x, y, z = C[0, i], C[1, i], C[2, i]
        cy = math.cos(y)
        ok = (x >= 0) & (y >= 0) & (y <= math.pi) & (z <= 5) & (x + z >= 1) & (cy + z >= 0.5)
        f = math.sin(x) + x * x - 2 * cy + y * y + z * z
        out[i] = f if ok else np.inf
    return out


def numba_kernels(cache: bool = False) -> dict[str, object]:
    """The Numba kernels, ``@njit(parallel=True)``; compiled on their first call."""
    import numba

    jit = numba.njit(parallel=True, cache=cache)
    funcs = (_kmeans_loop, _sum_loop, _sum_loop32, _fitness2_loop, _fitness3_loop)
    funcs += (_kmeans_cols, _kmeans_cols2, _sum_narrow, _sum_words, _fitness2_cols, _fitness3_cols)
    return {f.__name__.lstrip("_"): jit(f) for f in funcs}


# ----------------------------------------------------------------- JAX


def jax_kernels() -> dict[str, object]:
    """``jax.jit`` of the NumPy code through jax.numpy, and of the course's rewrite."""
    import jax
    import jax.numpy as jnp

    from torchcourse.bench.workloads import ga

    def kmeans_numpy(X, means):  # kmeans.assign_numpy with jnp for np
        return jnp.argmin(jnp.linalg.norm(X - means[:, None], axis=2), axis=0)

    def kmeans_cols(C, W, c):
        best = c[0] + C[0] * W[0, 0] + C[1] * W[1, 0]
        label = jnp.zeros(C.shape[1], jnp.int8)
        for j in range(1, W.shape[1]):
            s = c[j] + C[0] * W[0, j] + C[1] * W[1, j]
            label = jnp.where(s > best, jnp.int8(j), label)
            best = jnp.maximum(s, best)
        return label

    def sum_numpy(pop):  # ga.sum_numpy
        return pop.sum(axis=1)

    def sum_narrow(pop):
        return pop.sum(axis=1, dtype=jnp.int32)

    def sum_words(pop):  # ga._sum_words: eight genes per int64 word, 16-bit lanes
        n, g = pop.shape
        w = jax.lax.bitcast_convert_type(pop.reshape(n, g // 8, 8), jnp.int64)
        t = ((w & _LANES) + ((w >> 8) & _LANES)).sum(axis=1)
        return ((t & 0xFFFF) + ((t >> 16) & 0xFFFF) + ((t >> 32) & 0xFFFF) + ((t >> 48) & 0xFFFF)).astype(jnp.int32)

    def fitness2_numpy(P):  # ga.fitness2_numpy
        x, y, z = P[:, 0], P[:, 1], P[:, 2]
        return jnp.where(ga.feasible2(x, y, z), ga.f2(x, y, z), jnp.inf)

    def fitness3_numpy(P):  # ga.fitness3_numpy
        x, y, z = P[:, 0], P[:, 1], P[:, 2]
        return jnp.where(ga.feasible3(x, y, z, jnp), ga.f3(x, y, z, jnp), jnp.inf)

    def where_each(conditions, cost):  # ga._where_each: one select per constraint
        for ok in conditions:
            cost = jnp.where(ok, cost, jnp.inf)
        return cost

    def fitness2_cols(C):
        x, y, z = C[0], C[1], C[2]
        return where_each(ga.constraints2(x, y, z), ga.f2(x, y, z))

    def fitness3_cols(C):
        x, y, z = C[0], C[1], C[2]
        return where_each(ga.constraints3(x, y, z, jnp), ga.f3(x, y, z, jnp))

    fns = (kmeans_numpy, kmeans_cols, sum_numpy, sum_narrow, sum_words, fitness2_numpy, fitness3_numpy)
    return {f.__name__: jax.jit(f) for f in fns + (fitness2_cols, fitness3_cols)}


def ready(x):
    """Wait for a JAX result (its dispatch is asynchronous) and return it."""
    return x.block_until_ready() if hasattr(x, "block_until_ready") else x


_VECTOR_OP = re.compile(r"= (?:fadd|fsub|fmul|fcmp \w+|add|sub|mul|icmp \w+|select|sext|zext)\b[^=]*?<(\d+) x ")
_TRIG = re.compile(r"@llvm\.(sin|cos)\.(v\d+)?f64")


def ir_census(dispatcher) -> dict[str, object]:
    """What LLVM made of a compiled Numba kernel, read from its optimised IR (``inspect_llvm``,
    every signature it was called with): how many arithmetic, compare and select instructions
    work on vectors (``<4 x double>``...) and the widest vector; and which ``sin``/``cos``
    intrinsics it calls, scalar (``llvm.sin.f64``) or on vectors (``llvm.sin.v4f64``, which the
    backend turns into one call of the scalar C library function per lane unless Numba found a
    vector maths library: ``numba.config.USING_SVML``)."""
    ir = "\n".join(dispatcher.inspect_llvm().values())
    widths = [int(w) for w in _VECTOR_OP.findall(ir)]
    trig = sorted({f"{name}.{width or 'scalar'}" for name, width in _TRIG.findall(ir)})
    return {"vector_ops": len(widths), "widest": max(widths, default=1), "sin_cos": trig}


def census(kernels: dict[str, object]) -> dict[str, object]:
    """:func:`ir_census` of every kernel that has been called, and whether Numba uses SVML."""
    import numba

    found: dict[str, object] = {k: ir_census(d) for k, d in kernels.items() if getattr(d, "signatures", None)}
    found["USING_SVML"] = bool(getattr(numba.config, "USING_SVML", False))
    return found


def versions() -> dict[str, str]:
    import jax
    import jaxlib
    import llvmlite
    import numba

    return {
        "numba": numba.__version__,
        "llvmlite": llvmlite.__version__,
        "jax": jax.__version__,
        "jaxlib": jaxlib.__version__,
    }


# what each peer brings into an environment: its own packages and the dependencies the course lacks
PEER_DISTRIBUTIONS = {"numba": ("numba", "llvmlite"), "jax": ("jax", "jaxlib", "ml_dtypes", "opt_einsum", "scipy")}


def installed_mb() -> dict[str, dict[str, float]]:
    """Installed size in MB of each peer's distributions (their files as pip recorded them)."""
    from importlib import metadata

    sizes: dict[str, dict[str, float]] = {}
    for peer, dists in PEER_DISTRIBUTIONS.items():
        sizes[peer] = {}
        for name in dists:
            try:
                files = metadata.distribution(name).files or []
            except metadata.PackageNotFoundError:
                continue
            total = 0
            for f in files:
                path = f.locate()
                if os.path.isfile(path):
                    total += os.path.getsize(path)
            sizes[peer][name] = total / 1e6
    return sizes
