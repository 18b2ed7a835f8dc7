"""Facts lesson 07 (GPU offload) states about torch, each asserted on the installed torch.

Facts about what happens *without* an accelerator skip on a machine that has one (they are
what the lesson shows a learner on a CPU); the others hold everywhere, using the ``meta``
device as the lesson does.
"""

from __future__ import annotations

import inspect

import pytest
import torch
from torch.utils.benchmark import Timer

from tests.facts import fact


def _skip_with_accelerator():
    if torch.accelerator.is_available():
        pytest.skip("the sentence states what happens without an accelerator")


@fact(
    "07",
    "cpu-scalar-combines-with-any-device",
    "A **0-d CPU tensor** (a scalar such as `torch.tensor(2.0)`) combines with a tensor on any device",
)
def _():
    weights = torch.ones(3, 3, device="meta")
    assert (weights * torch.tensor(2.0)).device.type == "meta"
    assert (weights + torch.tensor(2, dtype=torch.int64)).device.type == "meta"


@fact(
    "07",
    "one-element-1d-is-not-a-scalar",
    "A 1-element tensor with a dimension (`torch.tensor([2.0])`) is not a scalar and fails like any other.",
)
def _():
    weights = torch.ones(3, 3, device="meta")
    with pytest.raises(RuntimeError, match="device"):
        weights * torch.tensor([2.0])
    with pytest.raises(RuntimeError, match="device"):  # the wildcard is a CPU scalar, not any 0-d tensor
        torch.tensor(2.0, device="meta") + torch.ones(3)


@fact(
    "07",
    "cpu-index-moved-to-device",
    "an **index tensor** on the CPU is copied to the indexed tensor's device for you",
)
def _():
    weights = torch.ones(3, 3, device="meta")
    picked = weights[torch.tensor([0, 2])]
    assert picked.device.type == "meta" and picked.shape == (2, 3)


@fact(
    "07",
    "mixed-devices-raise",
    "As a rule, the tensors of one operation must live on the same device, and PyTorch does not move one of them "
    "to the other's device for you.",
)
def _():
    with pytest.raises(RuntimeError, match="device"):
        torch.randn(3, 3).to("meta") @ torch.randn(3)


@fact(
    "07",
    "to-copy-or-self",
    "`t.to(device)` returns a copy on `device`, or `t` itself when it is already there. It never changes `t`.",
)
def _():
    t = torch.arange(6.0)
    assert t.to("cpu") is t
    moved = t.to("meta")
    assert moved is not t and moved.device.type == "meta" and t.device.type == "cpu"


@fact("07", "meta-has-no-data", "its tensors have a shape, a dtype and a device but no data")
def _():
    created = torch.zeros(1000, 1000, device="meta")
    assert created.shape == (1000, 1000) and created.dtype == torch.float32
    assert created.untyped_storage().nbytes() == 4_000_000  # the size is known...
    with pytest.raises(NotImplementedError):
        created.untyped_storage().tolist()  # ...but there are no bytes to read


@fact(
    "07",
    "non-blocking-accepted-everywhere",
    "`non_blocking=True` is accepted on any copy; without a GPU it changes nothing.",
)
def _():
    t = torch.arange(4.0)
    assert t.to("cpu", non_blocking=True) is t
    assert torch.equal(t.to(torch.float64, non_blocking=True), t.double())
    dst = torch.empty(4)
    dst.copy_(t, non_blocking=True)
    assert torch.equal(dst, t)


# What a build says when it finds no accelerator: the CPU wheel, or a CUDA wheel on a machine without a GPU
_NO_ACCELERATOR = "Cannot access accelerator device when none is available|Found no NVIDIA driver on your system"


@fact(
    "07",
    "pinning-needs-an-accelerator",
    "Without an accelerator the call fails (a CPU-only build of PyTorch says `Cannot access accelerator device "
    "when none is available`; a CUDA build on a machine without a GPU says `Found no NVIDIA driver on your "
    "system`), and `torch.ones(..., pin_memory=True)` fails too.",
)
def _():
    _skip_with_accelerator()
    with pytest.raises(RuntimeError, match=_NO_ACCELERATOR):
        torch.ones(4).pin_memory()
    with pytest.raises(RuntimeError):
        torch.ones(4, pin_memory=True)
    assert not torch.ones(4).is_pinned()


@fact(
    "07",
    "accelerator-synchronize-raises-without-one",
    "`torch.accelerator.synchronize()` needs an accelerator: on a machine without one it raises instead of doing "
    "nothing",
)
def _():
    _skip_with_accelerator()
    with pytest.raises(RuntimeError, match=_NO_ACCELERATOR):
        torch.accelerator.synchronize()


@fact(
    "07",
    "cuda-on-cpu-build-asserts",
    "A CPU-only build of PyTorch fails with `AssertionError: Torch not compiled with CUDA enabled`",
)
def _():
    if torch.backends.cuda.is_built():
        pytest.skip("the sentence states what a CPU-only build does")
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        torch.ones(2).cuda()


@fact(
    "07",
    "benchmark-clock-synchronises",
    "calls `torch.accelerator.synchronize()` when an accelerator is present and then reads the ordinary wall clock "
    "(`timeit.default_timer`)",
    since=(2, 13),
)
def _():
    from torch.utils.benchmark.utils import timer as timer_module

    source = inspect.getsource(timer_module.timer)
    assert "torch.accelerator.is_available()" in source and "torch.accelerator.synchronize()" in source
    assert "timeit.default_timer()" in source


@fact("07", "benchmark-one-thread", "runs on **one thread** unless you pass `num_threads`")
def _():
    assert Timer("x + 1", globals={"x": torch.ones(2)}).timeit(1).task_spec.num_threads == 1


@fact(
    "07",
    "numpy-refuses-device-tensor",
    "`.numpy()` refuses a tensor on another device",
    rival="it refuses the meta tensor because that tensor holds no data: the message names the device type and "
    "asks for a copy to host memory, and an empty CPU tensor, which holds no data either, converts",
)
def _():
    with pytest.raises(TypeError, match=r"meta device type tensor to numpy\. Use Tensor\.cpu\(\) to copy .* to host"):
        torch.ones(2, device="meta").numpy()
    assert torch.empty(0).numpy().shape == (0,)


# ---------------------------------------------------------------- device memory


def _need_cuda():
    if not torch.cuda.is_available():
        pytest.skip("the sentence states what the CUDA caching allocator does: needs a CUDA GPU")
    torch.cuda.init()


@fact("07", "free-never-waits", "Freeing a tensor then never waits for the device.")
def _():
    import time

    _need_cuda()
    a = torch.randn(4096, 4096, device="cuda")
    doomed = torch.empty(64 * 2**20, dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    for _ in range(20):
        a @ a  # milliseconds of queued work each: far longer than a free through the cache
    start = time.perf_counter()
    del doomed
    freed = time.perf_counter() - start
    start = time.perf_counter()
    torch.cuda.synchronize()
    waited = time.perf_counter() - start
    assert freed < waited / 10, (freed, waited)


@fact(
    "07",
    "del-keeps-reserved",
    "`del t` returns the block to PyTorch's cache: `memory_allocated()` drops, `memory_reserved()` and `nvidia-smi` "
    "do not.",
)
def _():
    _need_cuda()
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    t = torch.empty(256 * 2**20, dtype=torch.uint8, device="cuda")
    reserved = torch.cuda.memory_reserved()
    assert torch.cuda.memory_allocated() - base == 256 * 2**20 and reserved >= 256 * 2**20
    del t
    assert torch.cuda.memory_allocated() == base and torch.cuda.memory_reserved() == reserved


@fact(
    "07",
    "empty-cache-frees-no-live-tensor",
    "`empty_cache()` hands the cached free blocks back to the driver: it frees no live tensor",
)
def _():
    _need_cuda()
    torch.cuda.empty_cache()  # a block an earlier test freed could hold both tensors, and stay reserved
    live = torch.ones(64 * 2**20, dtype=torch.uint8, device="cuda")
    t = torch.empty(256 * 2**20, dtype=torch.uint8, device="cuda")
    del t
    reserved, allocated = torch.cuda.memory_reserved(), torch.cuda.memory_allocated()
    torch.cuda.empty_cache()
    assert torch.cuda.memory_reserved() <= reserved - 256 * 2**20
    assert torch.cuda.memory_allocated() == allocated and bool(live.eq(1).all())


@fact(
    "07",
    "reset-peak-sets-current",
    "`reset_peak_memory_stats()`, which sets the peak to what is allocated at that moment (not to zero)",
)
def _():
    _need_cuda()
    held = torch.empty(32 * 2**20, dtype=torch.uint8, device="cuda")
    burst = torch.empty(128 * 2**20, dtype=torch.uint8, device="cuda")
    del burst
    assert torch.cuda.max_memory_allocated() >= torch.cuda.memory_allocated() + 128 * 2**20
    torch.cuda.reset_peak_memory_stats()
    assert torch.cuda.max_memory_allocated() == torch.cuda.memory_allocated() >= held.numel()


@fact(
    "07",
    "memory-functions-in-cuda-and-accelerator",
    "Each of these exists as `torch.cuda.<name>` and, for whichever accelerator the build supports, as "
    "`torch.accelerator.<name>`",
)
def _():
    names = ["memory_allocated", "max_memory_allocated", "memory_reserved", "reset_peak_memory_stats", "empty_cache"]
    for name in names:
        assert callable(getattr(torch.cuda, name)) and callable(getattr(torch.accelerator, name)), name


@fact(
    "07",
    "memory-functions-need-an-accelerator",
    "torch 2.13's CPU-only build raises (like `synchronize()`), while its CUDA build on a machine without a GPU "
    "(what `pip install torch` gives on Linux) and torch 2.15 return 0",
)
def _():
    _skip_with_accelerator()
    from torchcourse.preflight import version_tuple

    version = version_tuple(torch.__version__)[:2]
    if version != (2, 13) and version < (2, 15):
        pytest.skip(f"the sentence names torch 2.13 and 2.15; torch {torch.__version__} returns 0 like 2.15")
    cpu_only_build = torch.version.cuda is None and torch.version.hip is None
    for fn in (torch.accelerator.memory_allocated, torch.accelerator.max_memory_allocated):
        if version == (2, 13) and cpu_only_build:
            with pytest.raises(RuntimeError, match=_NO_ACCELERATOR):
                fn()
        else:
            assert fn() == 0


@fact("07", "allocator-rounds-to-512", "the allocator rounds each request up to a multiple of 512 bytes")
def _():
    _need_cuda()
    base = torch.cuda.memory_allocated()
    for nbytes in (1, 513, 1000):
        t = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
        assert torch.cuda.memory_allocated() - base == -(-nbytes // 512) * 512
        del t


@fact(
    "07",
    "context-outside-the-counters",
    "the driver's own context takes device memory that none of these counters shows",
)
def _():
    _need_cuda()
    free, total = torch.cuda.mem_get_info()
    assert total - free > torch.cuda.memory_reserved()


@fact(
    "07",
    "oom-error-class",
    "`torch.OutOfMemoryError` (also reachable as `torch.cuda.OutOfMemoryError`), a subclass of `RuntimeError`",
)
def _():
    assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError
    assert issubclass(torch.OutOfMemoryError, RuntimeError)


@fact(
    "07",
    "oom-message-parts",
    "whose message says how much it tried to allocate, the device's total capacity and how much of it is free, "
    "and how much of the memory PyTorch holds is allocated and how much is reserved but unallocated",
)
def _():
    _need_cuda()
    with pytest.raises(torch.OutOfMemoryError) as caught:
        torch.empty(2**50, dtype=torch.uint8, device="cuda")
    text = str(caught.value)
    parts = ("Tried to allocate", "total capacity", "free", "allocated by PyTorch", "reserved by PyTorch")
    for part in parts + ("expandable_segments:True",):
        assert part in text, part


@fact(
    "07",
    "cpu-oom-is-plain-runtime-error",
    "A request the operating system refuses outright raises a plain `RuntimeError`: asking for 4 EiB (2⁶² bytes, "
    "more than any machine can address) fails at once, without touching memory",
)
def _():
    with pytest.raises(RuntimeError, match="can't allocate memory") as caught:
        torch.empty(2**62, dtype=torch.uint8)
    assert not isinstance(caught.value, torch.OutOfMemoryError)


def _resident_bytes():
    line = next(line for line in open("/proc/self/status").read().splitlines() if line.startswith("VmRSS"))
    return int(line.split()[1]) * 1024


@fact(
    "07",
    "cpu-overcommit-grants-unwritten",
    "`torch.empty` only reserves address space, and the kernel finds physical pages when they are first written.",
    rival="torch's CPU allocator checks free memory and would raise when the request cannot be backed: it does "
    "not; the request is granted and the resident memory does not grow, so no page was touched",
)
def _():
    import os

    if not os.path.exists("/proc/sys/vm/overcommit_memory"):
        pytest.skip("Linux only: reads /proc")
    policy = int(open("/proc/sys/vm/overcommit_memory").read())
    if policy == 2:
        pytest.skip("strict overcommit (vm.overcommit_memory = 2): the request is refused at once")
    meminfo = open("/proc/meminfo").read().splitlines()
    total = int(next(line for line in meminfo if line.startswith("MemTotal")).split()[1]) * 1024
    available = int(next(line for line in meminfo if line.startswith("MemAvailable")).split()[1]) * 1024
    before = _resident_bytes()
    first = torch.empty(int(0.9 * total), dtype=torch.uint8)  # never written: address space only
    second = torch.empty(int(0.9 * total), dtype=torch.uint8)
    grown = _resident_bytes() - before
    assert first.numel() + second.numel() > total > available  # more than the machine, granted
    assert grown < 64 * 2**20, grown  # no page written: nothing resident
    del first, second
    if policy == 0:  # the heuristic refuses one request above the whole machine (RAM + swap)
        swap = int(next(line for line in meminfo if line.startswith("SwapTotal")).split()[1]) * 1024
        with pytest.raises(RuntimeError, match="can't allocate memory"):
            torch.empty(int(1.5 * (total + swap)), dtype=torch.uint8)


@fact(
    "07",
    "clone-pays-page-faults",
    "above the allocator's threshold (32 MiB with glibc) that is usually fresh memory, and the clone pays the "
    "operating system's page faults on it",
    rival="a clone is slower only because allocating is bookkeeping on every call: in a fresh process the 64 MiB "
    "clone faults once per 4 KiB page it writes (or per 2 MiB huge page), every call, and a copy_ into a buffer that "
    "exists faults none; bookkeeping would not grow with the pages",
)
def _():
    import platform

    from tests.facts import page_faults_in_a_fresh_process
    from torchcourse.timing import page_faults

    if platform.libc_ver()[0] != "glibc" or page_faults(lambda: None) is None:
        pytest.skip("glibc's allocator and getrusage's fault counts")
    # a fresh process, as the lesson's kernel: this one's heap may hold a free stretch that takes 64 MiB
    setup = "\n".join(
        [
            "import torch",
            "big = torch.ones(16 * 2**20)  # 64 MiB of float32",
            "dst = torch.empty_like(big)",
            "dst.copy_(big)",
            "for _ in range(3): big.clone()",
        ]
    )
    big_faults = page_faults_in_a_fresh_process(setup, "big.clone()")
    copy_faults = page_faults_in_a_fresh_process(setup, "dst.copy_(big)")
    assert min(big_faults) >= 64 * 2**20 // (2 * 2**20), big_faults  # every page, even as 2 MiB huge pages
    assert max(big_faults) <= 64 * 2**20 // 4096 + 64, big_faults  # about one fault per page, no more
    assert copy_faults == [0, 0, 0], copy_faults
