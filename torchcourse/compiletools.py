"""torch.compile helpers for the compile lessons: capture TORCH_LOGS output, count compiles,
and find the C++ compiler inductor will use.

``TORCH_LOGS``-style logs go to stderr, which notebooks should keep quiet and nbval does
not compare. :func:`captured_logs` switches logs on for a block and collects the lines,
so a lesson can show the part that teaches (a recompile reason, generated code).

On the CPU, inductor needs a C++ compiler. :func:`find_compiler` finds the one inductor would
use, the way inductor looks for it; where there is none, :func:`fall_back_without_compiler` (called
by every notebook's setup cell, through ``preflight.check_torch``) lets the lesson go on with
``backend="aot_eager"``, and a cell whose point is what only inductor makes (its code, its speed,
its cache) says in one line that it was skipped (:func:`needs_compiler`). With a compiler nothing
changes and nothing is printed, so the stored outputs stay the same.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator

import torch
import torch._logging

# torch's log lines start with a glog prefix: "V1122 14:30:01.123456 4242 torch/_dynamo/guards.py:3112] [0/1] "
_PREFIX = re.compile(r"^[VIWEDC]\d{4} \d\d:\d\d:\d\d\.\d+ \d+ \S+:\d+\] (\[[^\]]*\] )*")


@dataclass
class Captured:
    """Lines logged inside a :func:`captured_logs` block, glog prefixes removed."""

    lines: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def grep(self, pattern: str) -> list[str]:
        """Lines matching a regular expression."""
        rx = re.compile(pattern)
        return [line for line in self.lines if rx.search(line)]

    def require(self, pattern: str, what: str = "") -> list[str]:
        """Lines matching ``pattern``; raise :class:`NothingCaptured` when there are none.

        Use it wherever a cell prints a fact read from the logs: an empty list would print a
        wrong fact ("0 kernels") instead of saying that the logs were not captured. Where
        torch.compile runs without a C++ compiler (:func:`fall_back_without_compiler`), there is
        no generated code to read: the cell ends with one line (:func:`needs_compiler`)."""
        found = self.grep(pattern)
        if not found and fallback_active():
            needs_compiler("the rest of this cell, which reads " + (what or "inductor's generated code"))
        if not found:
            raise NothingCaptured(
                f"no captured log line matches {pattern!r}"
                + (f" ({what})" if what else "")
                + f"; {len(self.lines)} line(s) were captured. This torch may word its logs "
                "differently, or its log handlers were not captured."
            )
        return found


class NothingCaptured(RuntimeError):
    """A cell expected torch to log something inside :func:`captured_logs` and it did not."""


class NeedsCompiler(RuntimeError):
    """A cell needs what only a C++ compiler makes (generated code, its speed, the inductor cache),
    and this machine has none. In a notebook it shows as its one-line message, not a traceback,
    and the cell counts as run: "Run All" goes on."""


def _writes_to_stderr(handler: logging.Handler) -> bool:
    """Whether ``handler`` writes to the process's stderr, whatever its class.

    torch 2.13 logs through plain ``logging.StreamHandler`` objects; torch 2.15 through its own
    ``logging.Handler`` subclass whose stream follows the current ``sys.stderr``. What they
    share is the stream they write to, so that is what decides."""
    try:
        stream = getattr(handler, "stream", None)
    except Exception:
        return False
    return stream is not None and stream in (sys.stderr, sys.__stderr__)


def _torch_loggers() -> list[logging.Logger]:
    names = [n for n in logging.root.manager.loggerDict if n == "torch" or n.startswith("torch.")]
    return [logging.getLogger(n) for n in sorted(names)]


def _swap_stderr_handlers(buffer: io.StringIO) -> list[tuple[logging.Logger, int, logging.Handler]]:
    """Replace every torch handler that writes to stderr by one that writes to ``buffer`` with
    the same formatter, level and filters; return what to put back."""
    swapped = []
    for logger in _torch_loggers():
        for i, h in enumerate(list(logger.handlers)):
            if _writes_to_stderr(h):
                twin = logging.StreamHandler(buffer)
                twin.setLevel(h.level)
                twin.setFormatter(h.formatter)
                for f in h.filters:
                    twin.addFilter(f)
                logger.handlers[i] = twin
                swapped.append((logger, i, h))
    return swapped


@contextmanager
def captured_logs(**settings: bool) -> Iterator[Captured]:
    """Enable torch logs (``recompiles=True``, ``output_code=True``, ``graph_breaks=True``, ...)
    for the block and collect their lines instead of printing them to stderr.

    Torch's handlers are chosen by the stream they write to (stderr), not by their class, and
    replaced for the block by handlers on a buffer that keep their formatter, level and filters;
    Python-level writes to ``sys.stderr`` inside the block (dynamo's warnings) land in the
    buffer too. A cell that reads a fact from the logs uses :meth:`Captured.require`, which
    fails loudly when nothing was captured.

    Example::

        with captured_logs(recompiles=True) as logs:
            f(torch.ones(3, dtype=torch.float64))
        print(logs.require("triggered by", "the recompile reason"))
    """
    buffer = io.StringIO()
    captured = Captured()
    real_stderr = sys.stderr
    swapped: list[tuple[logging.Logger, int, logging.Handler]] = []
    try:
        torch._logging.set_logs(**settings)
        swapped = _swap_stderr_handlers(buffer)
        sys.stderr = buffer  # handlers that follow the current sys.stderr, and warnings, land here
        yield captured
    finally:
        sys.stderr = real_stderr
        for logger, i, h in reversed(swapped):
            if i < len(logger.handlers):
                logger.handlers[i] = h
        torch._logging.set_logs()  # back to the defaults
        captured.lines[:] = [_PREFIX.sub("", line) for line in buffer.getvalue().splitlines()]


def compile_counter():
    """A fresh ``torch._dynamo.testing.CompileCounter`` backend: ``.frame_count`` counts graphs
    compiled (each compile and recompile), ``.op_count`` the operations in them. It does not
    generate code, so counting is cheap; use it as ``torch.compile(fn, backend=counter)``."""
    from torch._dynamo.testing import CompileCounter

    return CompileCounter()


def compile_stats() -> dict[str, int]:
    """Counters dynamo keeps for the whole process: graphs compiled ("unique_graphs", each
    compile and recompile) and graph breaks. Zero them with :func:`reset`.

    In torch 2.13 ``counters["graph_break"]`` counts some breaks (a ``print``) but not others
    (a data-dependent ``if`` is recorded under ``counters["unimplemented"]``), so
    ``graph_breaks`` can undercount: to count breaks, count graphs (``torch._dynamo.explain``
    or a :func:`compile_counter` backend) instead."""
    from torch._dynamo.utils import counters

    return {
        "unique_graphs": int(counters["stats"]["unique_graphs"]),
        "graph_breaks": int(sum(counters["graph_break"].values())),
    }


def reset() -> None:
    """Forget every compiled graph and zero the counters: call between experiments."""
    from torch._dynamo.utils import counters

    torch.compiler.reset()
    counters.clear()


# ----------------------------------------------------------------------------- finding the compiler


def inductor_candidates() -> list[str]:
    """The compilers inductor tries on the CPU, in its order (``torch/_inductor/cpp_builder.py``,
    ``get_cpp_compiler``): on Windows ``CXX`` or MSVC's ``cl``; elsewhere
    ``torch._inductor.config.cpp.cxx``, which defaults to ``CXX`` or ``g++`` (``clang++`` on
    macOS). Inductor tries nothing else: on Linux, a ``clang++`` or ``c++`` on PATH is not used
    unless ``CXX`` names it."""
    if sys.platform == "win32":
        return [os.environ.get("CXX", "cl")]
    config = sys.modules.get("torch._inductor.config")
    if config is not None:
        cxx = config.cpp.cxx
        search = list(cxx) if isinstance(cxx, (list, tuple)) else [cxx]
    else:
        search = [os.environ.get("CXX", "clang++" if sys.platform == "darwin" else "g++")]
    # None: inductor may download g++ with conda, only when TORCH_INDUCTOR_INSTALL_GXX is set
    return [c for c in search if c is not None]


def find_compiler() -> str | None:
    """The C++ compiler inductor will use here, or None: the first of
    :func:`inductor_candidates` that answers ``--version`` (``/help`` for ``cl``), the test
    inductor itself applies. Cheap (one small process); it does not compile anything: the
    preflight does that."""
    for cxx in inductor_candidates():
        flag = "/help" if sys.platform == "win32" and os.path.basename(cxx).lower().startswith("cl") else "--version"
        try:
            subprocess.run([cxx, flag], capture_output=True, timeout=20, check=sys.platform != "win32")
            return cxx
        except (OSError, subprocess.SubprocessError):
            continue
    return None


# ----------------------------------------------------------------------------- going on without one

CHILD_FLAG = "TORCHCOURSE_NO_COMPILER"  # set for the Python processes a notebook starts (see below)
SKIPPED = "skipped without a C++ compiler:"  # how every skipped cell and claim starts its one line
_state: dict = {"active": False, "said": False, "quiet": True, "line": "", "shells": []}


def fallback_active() -> bool:
    """Whether torch.compile runs with ``aot_eager`` in place of inductor in this process."""
    return _state["active"]


def no_compiler_line() -> str:
    """The line said once without a compiler: what is missing, how to install it here, what then."""
    _, _, advice = compiler_report()
    tried = " or ".join(inductor_candidates()) or "a compiler"
    return (
        "No C++ compiler: torch.compile's default backend, inductor, needs one on the CPU and found none "
        f"(it looks for {tried}). What to do: {advice}; then restart the kernel. Until then this lesson "
        "goes on: torch.compile runs each captured graph with backend='aot_eager' (no generated code), "
        "and each cell that needs inductor's code or speed says so in one line and is skipped."
    )


def say_once() -> bool:
    """Print :func:`no_compiler_line` once (first compiled call, skipped cell or claim); the fallback on?"""
    if _state["active"] and not _state["said"] and not _state["quiet"]:
        _state["said"] = True
        print(_state["line"])
    return _state["active"]


def needs_compiler(what: str) -> None:
    """The first line of a cell whose point is what only inductor makes (``what``: "the speed of the
    fused kernel", say). With a C++ compiler it does nothing; without one it ends the cell with one
    line saying what was skipped and why (after :func:`no_compiler_line` if not said yet)."""
    if fallback_active():
        say_once()
        raise NeedsCompiler(f"{SKIPPED} {what} (aot_eager, used instead, generates no code)")


def _in_notebooks() -> None:
    """In a running IPython, show :class:`NeedsCompiler` as its one line, and clear it from the
    cell's result after the cell (``post_run_cell``): the kernel then answers "ok", so JupyterLab's
    "Run All" (and nbclient) go on with the next cell instead of stopping there."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None or any(s is shell for s in _state["shells"]):
        return

    def not_an_error(result) -> None:
        if isinstance(getattr(result, "error_in_exec", None), NeedsCompiler):
            result.error_in_exec = None

    shell.set_custom_exc((NeedsCompiler,), lambda shell, etype, value, tb, tb_offset=None: print(value) or [])
    shell.events.register("post_run_cell", not_an_error)
    _state["shells"].append(shell)


def fall_back_without_compiler(force: bool = False, quiet: bool = False) -> bool:
    """Where inductor finds no C++ compiler (or ``force``), make every ``torch.compile`` with the
    default backend, whenever it was created, run its captured graph with ``aot_eager``, and say
    so in one line (:func:`no_compiler_line`) at the first compiled call. Returns whether the
    fallback is on.

    ``aot_eager`` traces the same graph (guards, recompiles, graph breaks, AOTAutograd) and runs it
    with eager kernels, so the lessons' counts still hold; what needs generated code cannot be
    shown (:func:`needs_compiler`). Once on (and not ``quiet``), it sets ``TORCHCOURSE_NO_COMPILER=1``
    so that a Python process the lesson starts falls back too, quietly, on importing torchcourse."""
    if not _state["active"]:
        if not force and find_compiler() is not None:
            return False
        wrapper = torch._TorchCompileInductorWrapper
        original = wrapper.__call__

        def without_compiler(self, model_, inputs_):
            if not _state["active"]:
                return original(self, model_, inputs_)
            say_once()
            from torch._dynamo.backends.registry import lookup_backend

            return lookup_backend("aot_eager")(model_, inputs_)

        wrapper.__call__ = without_compiler
        _state["active"] = True
    if not quiet and _state["quiet"]:  # a notebook's setup cell, after a quiet start or none
        _state["quiet"] = False
        _state["line"] = no_compiler_line()
        os.environ[CHILD_FLAG] = "1"
    if not quiet:
        _in_notebooks()
    return True


# ----------------------------------------------------------------------------- the preflight's probe

COMPILE_TIMEOUT_S = 300  # a cold first compile takes 10-60 s on a laptop; past this, call it broken
_COMPILE_PROBE = """
import json, sys, time
out = {"ok": False, "compiler": None, "error": ""}
try:
    import torch
    from torch._inductor import cpp_builder

    if sys.argv[1] == "cpu":
        out["compiler"] = cpp_builder.get_cpp_compiler()  # the one inductor uses, as it finds it

    def tiny(x):
        return (x * 2 + 1).relu().sum()

    x = torch.arange(8.0, device=sys.argv[1])
    start = time.perf_counter()
    got = torch.compile(tiny)(x)
    out["seconds"] = time.perf_counter() - start
    out["ok"] = bool(torch.allclose(got, tiny(x)))
    if not out["ok"]:
        out["error"] = "compiled result differs from eager"
except BaseException as exc:
    text = str(exc).strip()
    text = text.splitlines()[0] if text else ""
    out["error"] = type(exc).__name__ + (": " + text[:200] if text else "")
print("PROBE " + json.dumps(out))
"""


def run_probe(script: str, args: list[str], timeout: float, env: dict | None = None) -> dict:
    """Run ``script`` in a fresh Python and return the JSON it prints after "PROBE "; a dict with
    ``ok: False`` and the reason when it crashes, prints nothing or runs past ``timeout``."""
    try:
        proc = subprocess.run(
            [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=timeout, env=env
        )
    except subprocess.TimeoutExpired:
        return {"ok": False, "error": f"no answer within {timeout:.0f} s"}
    for line in proc.stdout.splitlines():
        if line.startswith("PROBE "):
            return json.loads(line[len("PROBE ") :])
    last = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
    return {"ok": False, "error": last[:200]}


def check_compile(device: str = "cpu", timeout: float = COMPILE_TIMEOUT_S) -> dict:
    """Compile and run a tiny function with ``torch.compile`` in a fresh process, with an empty
    inductor cache (a warm cache would load kernels built earlier and skip the compiler):
    ``{"ok", "compiler", "seconds", "error"}``."""
    with tempfile.TemporaryDirectory(prefix="torchcourse-preflight-") as cache:
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache}
        return run_probe(_COMPILE_PROBE, [device], timeout, env)


def compiler_report() -> tuple[bool, str, str]:
    """The preflight's ``item_class`` line for the C++ compiler inductor will use, found as inductor
    finds it, naming the compilers on PATH it would not use (on Linux it tries only ``CXX`` or
    ``g++``)."""

    found = find_compiler()
    others = [c for c in ("g++", "c++", "clang++") if shutil.which(c) and c not in inductor_candidates()]
    if sys.platform == "win32":
        advice = (
            "install Visual Studio Build Tools with the 'Desktop development with C++' workload, then start "
            "Jupyter from the 'x64 Native Tools Command Prompt' so that cl is on PATH (or set CXX)"
        )
    elif sys.platform == "darwin":
        advice = "install the Xcode command-line tools: xcode-select --install"
    else:
        advice = "install g++ (Debian/Ubuntu: sudo apt install g++; Fedora: sudo dnf install gcc-c++)"
    if found is None and others:
        advice = (
            f"{others[0]} is on PATH but inductor does not look for it: set CXX={others[0]} before starting Jupyter"
        )
    tried = " or ".join(inductor_candidates()) or "none"
    detail = shutil.which(found) or found if found else f"none found (inductor looks for {tried})"
    return found is not None, detail, advice
