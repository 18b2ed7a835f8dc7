"""The core-skill exercises (05.9-05.10, 07.8-07.9, 09.7-09.8, 12.7-12.8, 13.8) grade what their text states.

For every stated constraint an answer that breaks only that constraint (✗, and the message
names the constraint), and at least two correct answers written differently from the
reference (✓). The fake clocks, devices and counting backends the checks pass are in the
exercises' own modules.
"""

from __future__ import annotations

import itertools
import statistics
import time
import timeit

import numpy as np
import pytest
import torch

from torchcourse.grading.checks import FAIL, PASS, REGISTRY, evaluate

# ---------------------------------------------------------------- 05.9 min and median of timed calls


def minmed_timeit(fn, repeat, warmup, clock):
    for _ in range(warmup):
        fn()
    times = timeit.Timer(fn, timer=clock).repeat(repeat=repeat, number=1)
    return min(times), statistics.median(times)


def minmed_sorted(fn, repeat, warmup, clock):
    n = 0
    while n < warmup:
        fn()
        n += 1
    times = []
    while len(times) < repeat:
        t0 = clock()
        fn()
        times.append(clock() - t0)
    s = sorted(times)
    mid = len(s) // 2
    return s[0], s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def minmed_times_warmup(fn, repeat, warmup, clock):
    """Breaks only 'warm-up untimed': every call is timed and counted."""
    times = []
    for _ in range(warmup + repeat):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return min(times), statistics.median(times)


def minmed_one_extra(fn, repeat, warmup, clock):
    """Breaks only 'exactly repeat timed calls': one more call, to see the result."""
    out = minmed_sorted(fn, repeat, warmup, clock)
    fn()
    return out


def minmed_lower_median(fn, repeat, warmup, clock):
    """Breaks only 'the median as statistics.median computes it'."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return min(times), float(torch.tensor(times, dtype=torch.float64).median())


def minmed_own_clock(fn, repeat, warmup, clock):
    """Breaks only 'read the time with clock()'."""
    return minmed_sorted(fn, repeat, warmup, time.perf_counter)


# ---------------------------------------------------------------- 05.10 how many calls fill a budget


def _batch(fn, n, clock):
    t0 = clock()
    for _ in range(n):
        fn()
    return clock() - t0


def autorange_itertools(fn, budget, clock):
    for k in itertools.count():
        for m in (1, 2, 5):
            n = m * 10**k
            seconds = _batch(fn, n, clock)
            if seconds >= budget:
                return n, seconds
    raise AssertionError("unreachable")


def autorange_timeit(fn, budget, clock):
    timer = timeit.Timer(fn, timer=clock)
    ladder = [m * 10**k for k in range(12) for m in (1, 2, 5)]
    i = 0
    while True:
        seconds = timer.timeit(number=ladder[i])
        if seconds >= budget:
            return ladder[i], seconds
        i += 1


def autorange_powers_of_ten(fn, budget, clock):
    """Breaks only 'number from 1, 2, 5, 10, ...'."""
    for k in range(12):
        seconds = _batch(fn, 10**k, clock)
        if seconds >= budget:
            return 10**k, seconds
    raise AssertionError("unreachable")


def autorange_strictly_longer(fn, budget, clock):
    """Breaks only 'lasts at least budget'."""
    for n in (m * 10**k for k in range(12) for m in (1, 2, 5)):
        seconds = _batch(fn, n, clock)
        if seconds > budget:
            return n, seconds
    raise AssertionError("unreachable")


def autorange_scaled_from_one_call(fn, budget, clock):
    """Breaks only 'each candidate batch run and timed': one call, scaled."""
    one = _batch(fn, 1, clock)
    n = next(m * 10**k for k in range(12) for m in (1, 2, 5) if m * 10**k * one >= budget)
    return n, n * one


def autorange_total_time(fn, budget, clock):
    """Breaks only 'seconds of that last batch alone'."""
    total = 0.0
    for n in (m * 10**k for k in range(12) for m in (1, 2, 5)):
        seconds = _batch(fn, n, clock)
        total += seconds
        if seconds >= budget:
            return n, total
    raise AssertionError("unreachable")


# ---------------------------------------------------------------- 07.8 time queued device work


def time_gpu_list(fn, sync, clock):
    stamps = []
    sync()
    stamps.append(clock())
    fn()
    sync()
    stamps.append(clock())
    return stamps[1] - stamps[0]


def time_gpu_extra_syncs(fn, sync, clock):
    sync()
    sync()
    try:
        start = clock()
        fn()
    finally:
        sync()
    end = clock()
    return end - start


def time_gpu_no_first_sync(fn, sync, clock):
    """Breaks only 'sync before starting the clock'."""
    start = clock()
    fn()
    sync()
    return clock() - start


def time_gpu_no_last_sync(fn, sync, clock):
    """Breaks only 'sync after fn, before reading the clock'."""
    sync()
    start = clock()
    fn()
    end = clock()
    sync()
    return end - start


def time_gpu_warm_call(fn, sync, clock):
    """Breaks only 'one call': warms up first."""
    fn()
    return time_gpu_list(fn, sync, clock)


# ---------------------------------------------------------------- 07.9 pinned, asynchronous copies


def async_copy_into(batch, device):
    out = {}
    for k, v in batch.items():
        if torch.is_tensor(v):
            out[k] = torch.empty(v.shape, dtype=v.dtype, device=device).copy_(v.pin_memory(), non_blocking=True)
        else:
            out[k] = v
    return out


def async_dict_then_loop(batch, device):
    out = dict(batch)
    for k, v in out.items():
        if isinstance(v, torch.Tensor):
            out[k] = torch.Tensor.pin_memory(v).to(device=device, non_blocking=True)
    return out


def async_unpinned(batch, device):
    """Breaks only 'pinned'."""
    return {k: v.to(device, non_blocking=True) if torch.is_tensor(v) else v for k, v in batch.items()}


def async_blocking(batch, device):
    """Breaks only 'non_blocking=True'."""
    return {k: v.pin_memory().to(device) if torch.is_tensor(v) else v for k, v in batch.items()}


def async_pin_discarded(batch, device):
    """Breaks only 'pinned': pins, then copies the unpinned original."""
    out = {}
    for k, v in batch.items():
        if torch.is_tensor(v):
            v.pin_memory()
            out[k] = v.to(device, non_blocking=True)
        else:
            out[k] = v
    return out


def async_in_place(batch, device):
    """Breaks only 'a new dict'."""
    for k, v in batch.items():
        if torch.is_tensor(v):
            batch[k] = v.pin_memory().to(device, non_blocking=True)
    return batch


def async_drops_others(batch, device):
    """Breaks only 'every other value unchanged'."""
    return {k: v.pin_memory().to(device, non_blocking=True) for k, v in batch.items() if torch.is_tensor(v)}


# ---------------------------------------------------------------- 12.7 what the compiled function returns


def kind_fullgraph(np_fn, x):
    out = torch.compile(np_fn, backend="eager", fullgraph=True)(x)
    return np.dtype(out.dtype), tuple(np.shape(out)), out.__class__


def kind_asarray(np_fn, x):
    """Compiled with aot_eager on a copy, read through np.asarray (the type from the result itself)."""
    out = torch.compile(np_fn, backend="aot_eager")(x.copy())
    arr = np.asarray(out)
    return arr.dtype, arr.shape, type(out)


def kind_predicted(np_fn, x):
    """A prediction without compiling: arrays with NumPy's dtypes. Wrong where the compiled code picks
    another dtype (int32 / 2 gives float32, NumPy float64; an int8 cumsum stays int8, NumPy's is int64)."""
    r = np_fn(x)
    return r.dtype, np.shape(r), np.ndarray


def kind_eager(np_fn, x):
    """Breaks only 'of the compiled version': NumPy's own result."""
    r = np_fn(x)
    return r.dtype, r.shape, type(r)


def kind_torch_dtype(np_fn, x):
    """Breaks only 'a NumPy dtype': the compiled function run on tensors."""
    out = torch.compile(torch.compiler.wrap_numpy(np_fn), backend="eager")(torch.from_numpy(x))
    return out.dtype, tuple(out.shape), np.ndarray


# ---------------------------------------------------------------- 12.8 compiled NumPy code on tensors


def tensors_numpy_inside(np_fn, backend):
    @torch.compile(backend=backend)
    def run(*tensors):
        return torch.from_numpy(np_fn(*[t.numpy() for t in tensors]))

    return run


def tensors_fullgraph_as_tensor(np_fn, backend):
    @torch.compile(backend=backend, fullgraph=True)
    def run(*tensors):
        return torch.as_tensor(np_fn(*[t.numpy() for t in tensors]))

    return run


def tensors_numpy_outside(np_fn, backend):
    """Breaks only 'takes and returns tensors, keeps the data on the device': NumPy arrays cross
    the compiled function's boundary, converted in eager Python (a GPU tensor has no .numpy())."""
    compiled = torch.compile(np_fn, backend=backend, fullgraph=True)

    def run(*tensors):
        return torch.from_numpy(np.asarray(compiled(*[t.numpy() for t in tensors])))

    return run


def tensors_arrays_out(np_fn, backend):
    """Breaks only 'tensors out'."""
    return torch.compile(np_fn, backend=backend)


def tensors_not_compiled(np_fn, backend):
    """Breaks only 'compiled'."""
    return torch.compiler.wrap_numpy(np_fn)


def tensors_graph_break(np_fn, backend):
    """Breaks only 'one graph': a print inside."""

    def noisy(*arrays):
        print(end="")
        return np_fn(*arrays)

    return torch.compile(torch.compiler.wrap_numpy(noisy), backend=backend)


def tensors_wrong_values(np_fn, backend):
    """Breaks only 'equal to what np_fn computes': float32 result."""
    compiled = torch.compile(torch.compiler.wrap_numpy(np_fn), backend=backend)
    return lambda *t: compiled(*t).to(torch.float32)


# (exercise, answer, ✓ or ✗, a fragment the message must hold, what the row shows)
TABLE = [
    ("05.9", minmed_timeit, PASS, "", "timeit.Timer(...).repeat"),
    ("05.9", minmed_sorted, PASS, "", "while loops, median by hand"),
    ("05.9", minmed_times_warmup, FAIL, "warm-up", "breaks only 'warm-up untimed'"),
    ("05.9", minmed_one_extra, FAIL, "exactly repeat", "breaks only 'exactly repeat calls'"),
    ("05.9", minmed_lower_median, FAIL, "two middle", "breaks only 'statistics.median'"),
    ("05.9", minmed_own_clock, FAIL, "with clock", "breaks only 'use clock()'"),
    ("05.10", autorange_itertools, PASS, "", "itertools.count"),
    ("05.10", autorange_timeit, PASS, "", "timeit.Timer(...).timeit(number)"),
    ("05.10", autorange_powers_of_ten, FAIL, "1, 2, 5, 10", "breaks only 'the 1-2-5 sequence'"),
    ("05.10", autorange_strictly_longer, FAIL, "at least budget", "breaks only 'at least'"),
    ("05.10", autorange_scaled_from_one_call, FAIL, "lasts less than budget", "breaks only 'run each batch'"),
    ("05.10", autorange_total_time, FAIL, "that one batch", "breaks only 'that batch alone'"),
    ("07.8", time_gpu_list, PASS, "", "readings in a list"),
    ("07.8", time_gpu_extra_syncs, PASS, "", "extra syncs, try/finally"),
    ("07.8", time_gpu_no_first_sync, FAIL, "before the first clock", "breaks only 'sync before'"),
    ("07.8", time_gpu_no_last_sync, FAIL, "before reading the clock", "breaks only 'sync after'"),
    ("07.8", time_gpu_warm_call, FAIL, "exactly once", "breaks only 'one call'"),
    ("07.9", async_copy_into, PASS, "", "copy_ into an empty tensor"),
    ("07.9", async_dict_then_loop, PASS, "", "dict(batch), then a loop"),
    ("07.9", async_unpinned, FAIL, "pin it first", "breaks only 'pinned'"),
    ("07.9", async_pin_discarded, FAIL, "pin it first", "pins, then copies the original"),
    ("07.9", async_blocking, FAIL, "non_blocking=True", "breaks only 'non_blocking'"),
    ("07.9", async_in_place, FAIL, "new dict", "breaks only 'a new dict'"),
    ("07.9", async_drops_others, FAIL, "unchanged", "breaks only 'other values unchanged'"),
    ("12.7", kind_fullgraph, PASS, "", "fullgraph, np.dtype, __class__"),
    ("12.7", kind_asarray, PASS, "", "aot_eager on a copy, np.asarray"),
    ("12.7", kind_predicted, FAIL, "NumPy dtype", "a prediction with NumPy's dtypes, without compiling"),
    ("12.7", kind_eager, FAIL, "without compiling", "breaks only 'compiled'"),
    ("12.7", kind_torch_dtype, FAIL, "NumPy dtype", "breaks only 'a NumPy dtype'"),
    ("12.8", tensors_numpy_inside, PASS, "", ".numpy() inside the compiled function"),
    ("12.8", tensors_fullgraph_as_tensor, PASS, "", "fullgraph, torch.as_tensor inside"),
    ("12.8", tensors_numpy_outside, FAIL, "meta device", "breaks only 'keeps the data on the device'"),
    ("12.8", tensors_arrays_out, FAIL, "tensors out", "breaks only 'tensors out'"),
    ("12.8", tensors_not_compiled, FAIL, "compiled no graph", "breaks only 'compiled'"),
    ("12.8", tensors_graph_break, FAIL, "make it one graph", "breaks only 'one graph'"),
    ("12.8", tensors_wrong_values, FAIL, "dtype", "breaks only 'equal values'"),
]


# ---------------------------------------------------------------- 09.7 the kernels inductor generates


def kernels_run_and_get_code(fn, x):
    import re

    from torch._inductor.utils import run_and_get_code

    _, sources = run_and_get_code(torch.compile(fn), x)
    return re.findall(r"^(\w+) = async_compile", "\n".join(sources), re.MULTILINE)


def kernels_findall_definitions(fn, x):
    import re

    from torchcourse.compiletools import captured_logs

    with captured_logs(output_code=True) as logs:
        torch.compile(fn, mode="default")(x)
    return re.findall(r"^(cpp_fused\w*|triton\w*) = async_compile", logs.text, re.MULTILINE)


def kernels_dict_fromkeys(fn, x):
    """Breaks only 'each kernel': two graphs' kernels under one name become one entry."""
    return list(dict.fromkeys(kernels_findall_definitions(fn, x)))


def kernels_every_mention(fn, x):
    """Breaks only 'one entry per definition': every mention of a kernel name in the log."""
    import re

    from torchcourse.compiletools import captured_logs

    with captured_logs(output_code=True) as logs:
        torch.compile(fn)(x)
    return re.findall(r"\b(?:cpp_fused|triton)\w*", logs.text)


def kernels_sorted(fn, x):
    """Breaks only 'in the order the log defines them'."""
    return sorted(REGISTRY.get("09.7").reference(fn, x))


def kernels_eager_backend(fn, x):
    """Breaks only 'compiled with inductor': the eager backend generates no code."""
    from torchcourse.compiletools import captured_logs

    with captured_logs(output_code=True) as logs:
        torch.compile(fn, backend="eager")(x)
    return [line.split(" = ")[0] for line in logs.grep(r"^(cpp_fused|triton)\w* = async_compile")]


# ---------------------------------------------------------------- 09.8 speed-up, measured warm


def speedup_timed_each(eager_fn, compiled_fn, x, repeat, clock):
    for f in (compiled_fn, eager_fn):
        f(x)
    seconds = {}
    for name, f in (("compiled", compiled_fn), ("eager", eager_fn)):
        total = 0.0
        for _ in range(repeat):
            t0 = clock()
            f(x)
            total += clock() - t0
        seconds[name] = total
    return seconds["eager"] / seconds["compiled"]


def speedup_timeit(eager_fn, compiled_fn, x, repeat, clock):
    eager_fn(x)
    compiled_fn(x)
    eager_s = timeit.Timer(lambda: eager_fn(x), timer=clock).timeit(number=repeat)
    compiled_s = timeit.Timer(lambda: compiled_fn(x), timer=clock).timeit(number=repeat)
    return torch.tensor(eager_s / compiled_s)


def speedup_compile_timed(eager_fn, compiled_fn, x, repeat, clock):
    """Breaks only 'the first compiled call untimed'."""
    eager_fn(x)
    eager_s = _batch(lambda: eager_fn(x), repeat, clock)
    start = clock()
    for _ in range(repeat + 1):
        compiled_fn(x)
    return eager_s / (clock() - start)


def speedup_no_warmup(eager_fn, compiled_fn, x, repeat, clock):
    """Breaks only 'call each function once untimed' (and the compile is timed)."""
    return _batch(lambda: eager_fn(x), repeat, clock) / _batch(lambda: compiled_fn(x), repeat, clock)


def speedup_extra_timed_call(eager_fn, compiled_fn, x, repeat, clock):
    """Breaks only 'repeat calls of each'."""
    eager_fn(x)
    compiled_fn(x)
    return _batch(lambda: eager_fn(x), repeat + 1, clock) / _batch(lambda: compiled_fn(x), repeat + 1, clock)


def speedup_inverted(eager_fn, compiled_fn, x, repeat, clock):
    """Breaks only 'eager / compiled'."""
    eager_fn(x)
    compiled_fn(x)
    return _batch(lambda: compiled_fn(x), repeat, clock) / _batch(lambda: eager_fn(x), repeat, clock)


# ---------------------------------------------------------------- 13.8 fitness and selection in one graph


def select_argmin(pop, pairs):
    from torchcourse.bench.workloads import ga

    cost = ga.fitness2_torch(pop)
    pick = cost[pairs].argmin(dim=1, keepdim=True)  # argmin returns the first of equal values
    winners = pairs.gather(1, pick).squeeze(1)
    return pop.index_select(0, winners), cost.index_select(0, winners)


def select_where_swapped(pop, pairs):
    from torchcourse.bench.workloads import ga

    cost = ga.fitness2_torch(pop)
    first, second = pairs.unbind(1)
    winners = torch.where(cost[second] < cost[first], second, first)
    return pop[winners], cost[winners]


def select_tolist(pop, pairs):
    """Breaks only 'one graph': .tolist() and a Python comparison per pair."""
    from torchcourse.bench.workloads import ga

    cost = ga.fitness2_torch(pop)
    c = cost.tolist()
    winners = torch.tensor([i if c[i] <= c[j] else j for i, j in pairs.tolist()], dtype=torch.long)
    return pop[winners], cost[winners]


def select_if_nothing_feasible(pop, pairs):
    """Breaks only 'one graph': a Python if on a tensor's value."""
    from torchcourse.bench.workloads import ga

    cost = ga.fitness2_torch(pop)
    if torch.isinf(cost).all():
        return pop[pairs[:, 0]], cost[pairs[:, 0]]
    winners = torch.where(cost[pairs[:, 0]] <= cost[pairs[:, 1]], pairs[:, 0], pairs[:, 1])
    return pop[winners], cost[winners]


def select_second_on_tie(pop, pairs):
    """Breaks only 'the first of the two on a tie'."""
    from torchcourse.bench.workloads import ga

    cost = ga.fitness2_torch(pop)
    winners = torch.where(cost[pairs[:, 0]] < cost[pairs[:, 1]], pairs[:, 0], pairs[:, 1])
    return pop[winners], cost[winners]


TABLE += [
    ("09.7", kernels_run_and_get_code, PASS, "", "run_and_get_code on the generated source"),
    ("09.7", kernels_findall_definitions, PASS, "", "re.findall on the log's definition lines"),
    ("09.7", kernels_dict_fromkeys, FAIL, "graph break", "breaks only 'each kernel' (dict.fromkeys)"),
    ("09.7", kernels_every_mention, FAIL, "generated the kernel", "breaks only 'each once'"),
    ("09.7", kernels_sorted, FAIL, "generated the kernel", "breaks only 'in order'"),
    ("09.7", kernels_eager_backend, FAIL, "generated the kernel", "breaks only 'inductor'"),
    ("09.8", speedup_timed_each, PASS, "", "each call timed, summed, compiled first"),
    ("09.8", speedup_timeit, PASS, "", "timeit.Timer, a 0-d tensor"),
    ("09.8", speedup_compile_timed, FAIL, "includes its first call", "breaks only 'first compiled call untimed'"),
    ("09.8", speedup_no_warmup, FAIL, "once untimed", "breaks only 'each once untimed'"),
    ("09.8", speedup_extra_timed_call, FAIL, "ran", "breaks only 'repeat calls'"),
    ("09.8", speedup_inverted, FAIL, "eager time / compiled time", "breaks only 'eager / compiled'"),
    ("13.8", select_argmin, PASS, "", "argmin over the pair, gather"),
    ("13.8", select_where_swapped, PASS, "", "strict < with the operands swapped"),
    ("13.8", select_tolist, FAIL, "one graph", "breaks only 'one graph' (.tolist())"),
    ("13.8", select_if_nothing_feasible, FAIL, "one graph", "breaks only 'one graph' (if)"),
    ("13.8", select_second_on_tie, FAIL, "values differ", "breaks only 'first on a tie'"),
]


@pytest.mark.parametrize(
    "exercise_id, answer, status, fragment, what",
    TABLE,
    ids=[f"{row[0]}-{row[2]}-{row[4] or i}" for i, row in enumerate(TABLE)],
)
def test_answer_table(exercise_id, answer, status, fragment, what):
    got_status, message = evaluate(REGISTRY.get(exercise_id), answer)
    assert got_status == status, f"{exercise_id} ({what}): {got_status} {message}"
    assert fragment in message, f"{exercise_id} ({what}): {message}"
    assert "\n" not in message


def test_every_exercise_has_two_correct_alternatives_and_a_constraint_breaker():
    for ex_id in {row[0] for row in TABLE}:
        rows = [row for row in TABLE if row[0] == ex_id]
        assert sum(row[2] == PASS for row in rows) >= 2, ex_id
        assert any(row[2] == FAIL for row in rows), ex_id
