"""A time limit for the learner's code inside a check: an answer that never returns (a loop that
never ends, an ``input()``, a sleep) is stopped with a ✗ line instead of hanging the notebook.

How: ``signal.setitimer`` arms ``SIGALRM`` for the check's budget. When it fires, the handler looks
at the running frames: it stops the code only when the innermost frame that is not library code
(torch, NumPy, the standard library) is the learner's, and no compilation (dynamo, inductor, export)
is under way; while the reference, the check's own code or a compile runs, it waits and looks
again a moment later. So the limit never fires inside the reference, and a first compile is never
cut in half. The timer is disarmed and the previous handler and timer put back before the check
returns.

Where signals cannot do this (Windows has no ``setitimer``; a check called from another thread than
the main one cannot set a handler), the check runs without a limit.

Limits of the method: Python runs a signal handler between bytecodes, so one long call into C
(a huge matrix product) finishes before the answer stops; an answer that catches ``BaseException``
in a loop and goes on is stopped again every 0.1 s, and can still refuse to stop.
"""

from __future__ import annotations

import os
import signal
import sys
import sysconfig
import threading
import time
from types import CodeType, FrameType
from typing import Any

import numpy as np
import torch

_SOLUTIONS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "solutions")
_GRADING = os.path.dirname(os.path.abspath(__file__))
_TORCH = os.path.dirname(os.path.abspath(torch.__file__))
_LIBRARY = tuple(
    {
        _TORCH,
        os.path.dirname(os.path.abspath(np.__file__)),
        *(os.path.abspath(p) for p in (sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"])),
    }
)
# Where a compile is under way: the entry points of dynamo's, inductor's and export's tracing and
# code generation (on the stack for the whole compile). Not the code that runs compiled code (dynamo's
# eval_frame wrapper, AOTAutograd's runtime wrappers, inductor's output code): an answer that loops in
# a compiled function runs under those, and its loop must be stopped like any other.
_COMPILING = tuple(
    os.path.join(_TORCH, *p)
    for p in (
        ("_dynamo", "convert_frame.py"),
        ("_inductor", "compile_fx.py"),
        ("_inductor", "codecache.py"),
        ("_functorch", "aot_autograd.py"),
        ("export", "_trace.py"),
    )
)
_RETRY_S = 0.1


class TimeLimitExceeded(BaseException):
    """Raised inside the learner's code when the check's budget is spent (a BaseException, so that an
    answer's own ``except Exception`` does not swallow it)."""


def supported() -> bool:
    """Whether a limit can be set here: POSIX ``setitimer`` and the main thread."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


class TimeLimit:
    """``with TimeLimit(learner_codes) as limit: limit.arm(seconds)``: see the module docstring.
    ``learner_codes`` are code objects that count as the learner's wherever they are defined (the
    answer's own function, which for the course's own wrong answers lives in ``torchcourse/grading``)."""

    def __init__(self, learner_codes: set[CodeType] = frozenset()) -> None:
        self.learner_codes = learner_codes
        self.seconds: float | None = None
        self.active = False
        self.fired = False

    def __enter__(self) -> TimeLimit:
        return self

    def arm(self, seconds: float | None) -> None:
        """Start the clock (once the check knows its inputs, hence its budget)."""
        self.seconds = seconds
        if not seconds or self.active or not supported():
            return
        self.start = time.monotonic()
        self.old_handler = signal.signal(signal.SIGALRM, self._handler)
        self.old_timer = signal.setitimer(signal.ITIMER_REAL, seconds)
        self.active = True

    def __exit__(self, *exc: Any) -> None:
        if not self.active:
            return
        self.active = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.old_handler)
        delay, interval = self.old_timer
        if delay > 0:  # someone else's timer was running: it goes on with what it had left
            left = delay - (time.monotonic() - self.start)
            signal.setitimer(signal.ITIMER_REAL, max(left, 0.001), interval)

    def _handler(self, signum: int, frame: FrameType | None) -> None:
        if not self.active:
            return
        if self._learner_is_running(frame):
            self.fired = True
            signal.setitimer(signal.ITIMER_REAL, _RETRY_S)  # again, should the answer catch it
            raise TimeLimitExceeded
        signal.setitimer(signal.ITIMER_REAL, _RETRY_S)

    def _learner_is_running(self, frame: FrameType | None) -> bool:
        owner = None
        while frame is not None:
            code = frame.f_code
            if owner is None and code in self.learner_codes:  # the answer, wherever it was defined ("<string>"
                owner = "learner"  # under python -c, "<ipython-input-...>" in a terminal IPython)
            if code.co_filename.startswith("<"):  # generated code (FX graphs, exec): not the learner's own
                frame = frame.f_back
                continue
            path = os.path.abspath(code.co_filename)
            if path.startswith(_generated_dirs()):  # inductor's generated Python: not the learner's own
                frame = frame.f_back
                continue
            if path.startswith(_COMPILING):
                return False  # a compile is under way: never cut it in half
            if owner is None:
                if code in self.learner_codes:
                    owner = "learner"
                elif path.startswith((_SOLUTIONS, _GRADING)):
                    owner = "check"
                elif not path.startswith(_LIBRARY):
                    owner = "learner"
            frame = frame.f_back
        return owner == "learner"


def _generated_dirs() -> tuple[str, ...]:
    """Where inductor writes the Python it generates (its cache directory, the default one and the one
    ``TORCHINDUCTOR_CACHE_DIR`` names)."""
    dirs = [os.environ.get("TORCHINDUCTOR_CACHE_DIR", "")]
    utils = sys.modules.get("torch._inductor.runtime.runtime_utils")
    if utils is not None:
        try:
            dirs.append(utils.cache_dir())
        except Exception:  # noqa: BLE001 - another torch release
            pass
    return tuple(os.path.abspath(d) for d in dirs if d)


# Seconds each input may take, the learner's code, the reference and the rules together. Where the
# answer compiles (the exercise declares ``compiles``: its reference compiles, exports or builds with
# AOTInductor), enough for a first compile (11-20 s on a 2-core laptop, more for AOTInductor) with room
# to spare: the limit waits while a compile runs, but the seconds it took are gone when the answer
# goes on. Elsewhere the smaller figure, so that an answer that never returns is stopped sooner; that
# includes checks whose rules trace the answer with dynamo or export it, and checks whose inputs are
# exported programs (seconds, not minutes, even the first time in a process).
SECONDS_PER_CASE = 20.0
SECONDS_PER_COMPILING_CASE = 120.0


def budget(compiles: bool, n_cases: int) -> float:
    """The check's time limit in seconds: a number of seconds per input case, more where the answer compiles."""
    per = SECONDS_PER_COMPILING_CASE if compiles else SECONDS_PER_CASE
    return per * max(n_cases, 1)


def too_slow(seconds: float | None) -> str:
    return (
        f"your function was still running after {seconds or 0:.3g} s, this check's time limit for all its inputs "
        "(generous: a first compile fits in it many times), so it was stopped: look for a loop that never ends, "
        "a wait (input(), time.sleep, a lock) or work that grows much faster than the input"
    )
