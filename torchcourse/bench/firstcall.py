"""What a first call costs with each tool, in fresh processes, with an empty and a warm cache.

    python -m torchcourse.bench.firstcall TOOL THREADS CACHE_DIR   # one child: prints JSON

:func:`measure_all` starts, for torch, Numba and JAX in turn, one process with an empty cache
folder and then a second one with the folder the first filled: torch's inductor cache
(``TORCHINDUCTOR_CACHE_DIR``), Numba's ``cache=True`` files (``NUMBA_CACHE_DIR``), JAX's
persistent compilation cache (``jax_compilation_cache_dir``). Each process imports the tool,
then calls the course's rewrite of K-Means, GA fitness 1, 2 and 3 in that order on small
data: a call's first-call cost is its first time minus its best of three later calls. The
first kernel of a process also pays the tool's one-off start (loading the compiler).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

KERNELS = ("k-means", "ga fitness 1 (sum)", "ga fitness 2", "ga fitness 3")


def _calls(tool: str) -> list[Callable[[], Any]]:
    import numpy as np
    import torch

    from torchcourse.bench.workloads import ga, kmeans

    X64, means64 = kmeans.make_blobs(100_000)
    X, M = X64.astype(np.float32), means64.astype(np.float32)
    pop, P2, P3 = ga.gene_population(1000), ga.random_points(100_000, ga.BOX2), ga.random_points(100_000, ga.BOX3)
    TM, C = torch.from_numpy(M), kmeans.to_columns(torch.from_numpy(X))
    C2, C3 = ga.to_columns(P2), ga.to_columns(P3)
    if tool == "torch":
        return [
            lambda: kmeans.assign_best(C, TM),
            lambda: ga.sum_best(pop),
            lambda: ga.fitness2_best(C2),
            lambda: ga.fitness3_best(C3),
        ]
    from torchcourse.bench import peers

    W, c = (a.numpy() for a in kmeans.linear_scores(TM))
    Cn, Pn, C2n, C3n = C.numpy(), pop.numpy(), C2.numpy(), C3.numpy()
    if tool == "Numba":
        nb = peers.numba_kernels(cache=True)
        o8, o32, o = np.empty(len(X), np.int8), np.empty(len(Pn), np.int32), np.empty(C2n.shape[1])
        return [
            lambda: nb["kmeans_cols2"](Cn, W, c, o8),
            lambda: nb["sum_words"](Pn, o32),
            lambda: nb["fitness2_cols"](C2n, o),
            lambda: nb["fitness3_cols"](C3n, o),
        ]
    jx = peers.jax_kernels()
    return [
        lambda: peers.ready(jx["kmeans_cols"](Cn, W, c)),
        lambda: peers.ready(jx.get("sum_words")(Pn)),
        lambda: peers.ready(jx.get("fitness2_cols")(C2n)),
        lambda: peers.ready(jx.get("fitness3_cols")(C3n)),
    ]


def child(tool: str, threads: int, cache_dir: str) -> dict[str, Any]:
    t = time.perf_counter()
    import torch  # already loaded with torchcourse: its import is in process_s, timed by the parent

    from torchcourse.bench.machine import pin_threads

    pin_threads(threads)
    torch.set_num_threads(threads)
    if tool != "torch":
        from torchcourse.bench import peers

        peers.configure(threads, cache_dir)
        import jax.numpy as jnp

        jnp.zeros(1).block_until_ready()  # start XLA's CPU client
    import_s = time.perf_counter() - t
    out: dict[str, Any] = {"import_s": import_s}
    for name, call in zip(KERNELS, _calls(tool)):
        t = time.perf_counter()
        call()
        first = time.perf_counter() - t
        steady = min(_time(call) for _ in range(3))
        out[name] = max(first - steady, 0.0)
    return out


def _time(call: Callable[[], Any]) -> float:
    t = time.perf_counter()
    call()
    return time.perf_counter() - t


def measure_all(threads: int) -> dict[str, dict[str, Any]]:
    """``{tool: {"cold": {...}, "warm": {...}}}``, seconds; each a fresh process."""
    found: dict[str, dict[str, Any]] = {}
    for tool in ("torch", "Numba", "JAX"):
        with tempfile.TemporaryDirectory() as cache:
            # Numba reads NUMBA_CACHE_DIR when it is imported: set here, before the child starts.
            # (Set later, its cache files went beside peers.py and a "cold" run found them.)
            env = dict(
                os.environ,
                TORCHINDUCTOR_CACHE_DIR=os.path.join(cache, "inductor"),
                NUMBA_CACHE_DIR=os.path.join(cache, "numba"),
            )
            found[tool] = {}
            for state in ("cold", "warm"):
                start = time.perf_counter()
                proc = subprocess.run(
                    [sys.executable, "-m", "torchcourse.bench.firstcall", tool, str(threads), cache],
                    env=env,
                    capture_output=True,
                    text=True,
                )
                if proc.returncode != 0:
                    raise RuntimeError(f"first call of {tool} failed:\n{proc.stderr[-2000:]}")
                found[tool][state] = json.loads(proc.stdout.strip().splitlines()[-1])
                found[tool][state]["process_s"] = time.perf_counter() - start
                print(
                    f"first call, {tool}, {state} cache: "
                    + ", ".join(f"{k} {v:.2f} s" for k, v in found[tool][state].items()),
                    flush=True,
                )
    return found


if __name__ == "__main__":
    print(json.dumps(child(sys.argv[1], int(sys.argv[2]), sys.argv[3])))
