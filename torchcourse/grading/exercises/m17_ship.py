"""Cases, the fresh-process probe and wrong answers for 17.5 (ship a compile cache), split from
``m17_cases``. ``wave`` is defined here at module level, so the fresh process that grades the
shipped artefacts can import it by name."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

from torchcourse.grading.exercises.m17_cases import ROOT, _x, fresh, fresh_artefacts
from torchcourse.grading.freshcache import discard_seed, empty_cache_dir


# --- 17.5 ------------------------------------------------------------------------------------
def wave(x):
    return torch.sin(x) * 2 + torch.cos(x)


def ship_cases():
    torch.compiler.reset()
    fresh_artefacts()
    return [(fresh(wave), _x(16, 16, 17))]


_PROBE = """
import sys, torch
from torch._dynamo.utils import counters
from torchcourse.grading.exercises import m17_ship
data_path, x_path, state_path = sys.argv[1:]
# The thread count, inductor's and functorch's settings and the deterministic flag are part of the
# FX graph cache key: the fresh process takes the learner's, or a learner who changed one earlier
# in the kernel (torch.set_num_threads, a config flag) would see a miss for a right answer.
state = torch.load(state_path, weights_only=False)
torch.set_num_threads(state["threads"])
torch._inductor.config.load_config(state["inductor"])
torch._functorch.config.load_config(state["functorch"])
torch._dynamo.config.load_config(state["dynamo"])
torch.fx.experimental._config.load_config(state["fx"])
torch._inductor.config.compile_threads = 1
torch.use_deterministic_algorithms(state["deterministic"], warn_only=state["warn_only"])
# The rest of the key's global settings (FxGraphHashDetails): set only what differs, as setting a
# flag to the value it has is not always a no-op.
torch.utils.deterministic.fill_uninitialized_memory = state["fill_uninitialized_memory"]
torch.set_default_dtype(state["default_dtype"])
matmul = torch.backends.cuda.matmul
for name, value in state["cuda_matmul"].items():
    if getattr(matmul, name) != value:
        setattr(matmul, name, value)
with open(data_path, "rb") as f:
    torch.compiler.load_cache_artifacts(f.read())
torch.compile(m17_ship.wave)(torch.load(x_path))
print(counters["inductor"]["fxgraph_cache_hit"], counters["inductor"]["fxgraph_cache_miss"])
"""


def fresh_process_hits(args, got):
    fn, x = args
    if got is None:
        return "your function returned None: nothing compiled before the save (torch.compile is lazy)"
    if not isinstance(got, bytes):
        return f"your function returned {type(got).__name__}; return the bytes of save_cache_artifacts()"
    with tempfile.TemporaryDirectory(prefix="torchcourse-17-5-") as work:
        data, x_path = Path(work, "cache.bin"), Path(work, "x.pt")
        data.write_bytes(got)
        torch.save(x, x_path)
        state = Path(work, "state.pt")
        torch.save(
            {
                "threads": torch.get_num_threads(),
                # Live values, not save_config(): its cached dict misses a setting updated in place
                # (AOTInductor writes its device metadata into the inductor config, and the FX graph
                # cache key reads the live value: 17.5 after 17.6 missed for a right answer).
                "inductor": torch._inductor.config.get_serializable_config_copy(),
                "functorch": torch._functorch.config.get_serializable_config_copy(),
                "dynamo": torch._dynamo.config.get_serializable_config_copy(),
                "fx": torch.fx.experimental._config.get_serializable_config_copy(),
                "deterministic": torch.are_deterministic_algorithms_enabled(),
                "warn_only": torch.is_deterministic_algorithms_warn_only_enabled(),
                "fill_uninitialized_memory": torch.utils.deterministic.fill_uninitialized_memory,
                "default_dtype": torch.get_default_dtype(),
                "cuda_matmul": {
                    name: getattr(torch.backends.cuda.matmul, name)
                    for name in (
                        "fp32_precision",
                        "allow_fp16_reduced_precision_reduction",
                        "allow_bf16_reduced_precision_reduction",
                    )
                },
            },
            state,
        )
        env = dict(os.environ, TORCHINDUCTOR_COMPILE_THREADS="1")
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
        for seeded in (True, False):
            # empty but for inductor's CPU probe programs (10-13 s a process); where the process fails
            # with them, the seed may be damaged (it lives where the learner's code can write): once
            # more on a truly empty directory, and the seed is built again next time
            cache = empty_cache_dir(Path(work, f"cache-{seeded}"), seeded=seeded)
            env["TORCHINDUCTOR_CACHE_DIR"] = str(cache)
            done = subprocess.run(
                [sys.executable, "-c", _PROBE, str(data), str(x_path), str(state)],
                env=env,
                capture_output=True,
                text=True,
            )
            if done.returncode == 0:
                break
            discard_seed()
    if done.returncode != 0:
        return "a fresh process could not load your bytes as cache artefacts"
    hits, misses = map(int, done.stdout.split()[-2:])
    if hits < 1 or misses:
        return (
            f"a fresh process that loaded your bytes compiled the function on x with {misses} FX graph cache "
            f"miss(es) and {hits} hit(s): the artefacts must hold the code compiled for this x"
        )
    return None


def ship_uncalled(fn, x):
    torch.compile(fn)
    saved = torch.compiler.save_cache_artifacts()
    return saved[0] if saved else None


def ship_pair(fn, x):
    torch.compile(fn)(x)
    return torch.compiler.save_cache_artifacts()


def ship_other_shape(fn, x):
    torch.compile(fn)(x[:2].contiguous())
    return torch.compiler.save_cache_artifacts()[0]


def ship_eager_backend(fn, x):
    torch.compile(fn, backend="eager")(x)
    saved = torch.compiler.save_cache_artifacts()
    return saved[0] if saved else None
