"""Facts the lessons state about torch, one executable assertion each.

A lesson sentence that says what an API does (view or copy, result dtype, which op runs, what
specialises or recompiles, what raises) is backed here. Each module ``lNN.py`` registers its
lesson's facts with :func:`fact`::

    @fact("16", "zero-dim-index-is-a-view",
          "indexing with a 0-d integer tensor returns a view")
    def _():
        x = torch.arange(5.0)
        assert x[torch.tensor(2)]._base is x

``sentence`` is quoted from the lesson's ``.py`` (markdown or code comment), word for word up to
whitespace and Markdown emphasis, so a fact that stops holding on a new torch names the sentence
to revise, and a sentence that is rewritten must bring its fact along. ``tests/test_facts.py``
runs every fact (also under ``make drift``) and checks each quote against its lesson.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Fact:
    lesson: str  # "16"
    slug: str  # "zero-dim-index-is-a-view"
    sentence: str  # quoted from the lesson
    run: Callable[[], None]  # raises AssertionError when the fact does not hold
    # A fact that backs a cause ("X is slow because Y", "it recompiles because Z") names the nearest
    # rival explanation, and its assertion is chosen so that it would fail were the rival the cause.
    rival: str | None = None
    # A fact that expects an upstream bug (torch behaves wrongly, the lesson warns about it): where
    # upstream tracks it and what to revisit in the lesson the day torch fixes it (the fact then fails).
    upstream: str | None = None

    @property
    def id(self) -> str:
        return f"{self.lesson}-{self.slug}"


FACTS: list[Fact] = []


def fact(
    lesson: str,
    slug: str,
    sentence: str,
    since: tuple[int, int] | None = None,
    *,
    rival: str | None = None,
    upstream: str | None = None,
) -> Callable[[Callable[[], None]], Callable[[], None]]:
    """Register the decorated function as the test of ``sentence`` in lesson ``lesson``.

    ``since=(2, 13)``: the sentence describes torch's code as of that release (the course's pin),
    which older releases implement otherwise; on an older torch (``make drift``) the fact is
    skipped with that reason instead of failing.

    ``rival="..."``: the sentence gives a cause; this names the nearest other explanation, which the
    assertion rules out (it would come out differently were the rival true). ``upstream="..."``: the
    fact expects an upstream bug; say where it is tracked and what to revisit once torch fixes it: the
    fact's failure message then carries this text."""

    def register(fn: Callable[[], None]) -> Callable[[], None]:
        run = fn
        if upstream is not None:
            inner = fn

            def run() -> None:
                try:
                    inner()
                except AssertionError as exc:
                    raise AssertionError(
                        f"this fact expects an upstream bug that no longer shows: {upstream} ({exc})"
                    ) from exc

        if since is not None:
            checked = run

            def run() -> None:
                import pytest
                import torch

                from torchcourse.preflight import version_tuple

                if version_tuple(torch.__version__)[:2] < since:
                    pytest.skip(f"describes torch {since[0]}.{since[1]} and later; torch {torch.__version__} differs")
                checked()

        FACTS.append(Fact(lesson, slug, sentence, run, rival, upstream))
        return fn

    return register


def dispatched_ops():
    """A dispatch mode that records the name of every aten op run under it (``with mode as m: ...;
    m.ops``), shared by the facts that count what a Python loop dispatches (lessons 01 and 05)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Ops(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(func.overloadpacket.__name__)
            return func(*args, **(kwargs or {}))

    return Ops()


def page_faults_in_a_fresh_process(setup: str, call: str, calls: int = 3) -> list[int]:
    """Minor page faults of ``calls`` runs of the expression ``call``, each on its own, in a fresh
    Python that first runs ``setup``: what a new kernel sees. Inside the test process the heap
    holds whatever earlier tests freed, and glibc serves a block from a free stretch of it
    before it asks the operating system for fresh pages (a 40 MiB tensor faulted 0 pages on
    its first call in a CI worker, then 10,241 on each of the next two)."""
    import json
    import subprocess
    import sys

    script = "\n".join(
        [
            "import json, resource",
            setup,
            "def _faults():",
            "    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt",
            f"    {call}",
            "    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before",
            f"print(json.dumps([_faults() for _ in range({calls})]))",
        ]
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def faults_of_a_large_malloc(after_a_free_stretch: bool) -> list[int]:
    """Page faults of three 40 MiB ``malloc``-and-fill calls (glibc, through ctypes) in a fresh
    process. With ``after_a_free_stretch`` its heap first holds a free 60 MiB stretch below a live
    block: four 15 MiB blocks taken from the heap (a freed 16 MiB block first raised the mmap
    threshold above 15 MiB), written, and freed, with a 1 MiB block kept above them so that the
    stretch is not the heap's top, which glibc would give back. The 40 MiB is above the threshold,
    yet it fits the stretch."""
    lines = [
        "import ctypes",
        "libc = ctypes.CDLL('libc.so.6')",
        "libc.malloc.restype = ctypes.c_void_p",
        "libc.malloc.argtypes = [ctypes.c_size_t]",
        "libc.free.argtypes = [ctypes.c_void_p]",
        "libc.memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]",
        "M = 2**20",
    ]
    if after_a_free_stretch:
        lines += [
            "libc.free(libc.malloc(16 * M))",
            "blocks = [libc.malloc(15 * M) for _ in range(4)]",
            "for b in blocks: libc.memset(b, 0, 15 * M)",
            "above = libc.malloc(M); libc.memset(above, 0, M)",
            "for b in blocks: libc.free(b)",
        ]
    lines += ["def big():", "    p = libc.malloc(40 * M); libc.memset(p, 1, 40 * M); libc.free(p)"]
    return page_faults_in_a_fresh_process("\n".join(lines), "big()")
