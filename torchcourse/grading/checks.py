"""Exercise checks: run the learner's function beside a reference and print one line.

Each exercise is an :class:`Exercise` declared in ``torchcourse/grading/exercises/mNN.py``
(the single source of its reference answer, its test inputs, its hints and the
typical wrong answers it must reject). A notebook calls ``check("01.3", fn)`` and
sees exactly one line:

* ``✓ 01.3 Title: ...`` when ``fn`` agrees with the reference on every input,
* ``✗ 01.3 Title: ...`` naming the first difference (type, shape, dtype, device,
  values, aliasing, an input changed in place, or the exception ``fn`` raised),
* ``… 01.3 Title: not attempted yet ...`` while ``fn`` still raises ``NotImplementedError``.

A check never raises: every failure of the learner's code becomes the ``✗`` line. It leaves the
process as it found it (``isolation``), so a cell run twenty times gives one verdict, and it stops
an answer that runs past its time limit (``timelimit``: POSIX signals in the main thread; on
Windows, or called from another thread, a check runs without a limit).
"""

from __future__ import annotations

import importlib
import math
import re
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import torch

from torchcourse.grading.cases import _plain_data, case_text, changed, generated_cases, size, snapshot
from torchcourse.grading.compare import compare, describe
from torchcourse.grading.isolation import Isolated
from torchcourse.grading.rules import Case, Rule
from torchcourse.grading.timelimit import TimeLimit, TimeLimitExceeded, budget, too_slow

PASS, FAIL, TODO = "✓", "✗", "…"
NOT_CHECKED = "the answer is what inductor generates, and without a C++ compiler aot_eager runs instead"
# The line every check prints starts with its mark and the exercise id: "✓ 01.3 ..."
CHECK_LINE = re.compile(r"^([✓✗…]) (\d\d\.\d+) ", re.MULTILINE)


@dataclass
class Exercise:
    """One checked exercise.

    ``cases`` builds fresh argument tuples (seeded, several shapes/dtypes) each time it
    is called, so a learner's in-place change can never leak from one check into the
    next. ``wrong`` holds typical wrong answers that the test-suite proves are rejected.
    """

    id: str
    title: str
    reference: Callable[..., Any]
    cases: Callable[[], Sequence[tuple]]
    hints: Sequence[str]
    wrong: Sequence[Callable[..., Any]] = ()
    rtol: float = 1e-5
    atol: float = 1e-6
    check_dtype: bool = True
    # True: the function must change its first argument in place (its return value is ignored).
    inplace: bool = False
    # The constraints the text states, one rule each (torchcourse.grading.rules): a view or a copy
    # (IsView, IsCopy), memory, no grad, calls, loops, graphs, any other stated property (Holds).
    rules: Sequence[Rule] = ()
    # The goal is a property, not the reference's exact values: (args, got) -> message or None
    # replaces the comparison with the reference (the reference must still satisfy it).
    property: Callable[[tuple, Any], str | None] | None = None
    # True: tolerances come from the reference's own error against a float64 ground truth
    # (the reference run on float64 copies of the inputs), so a more accurate answer never fails.
    float64_truth: bool = False
    # True: besides its own cases, the check runs generated ones (see generated_cases): the
    # same values in a column-major layout, a size-1 and a size-0 first dimension. A generated
    # case is used only where the reference accepts it. False for checks whose every case
    # compiles or launches processes (their cases are chosen one by one).
    generated: bool = True
    # The inputs the text covers, (args) -> bool: generated cases outside it are never used (e.g.
    # "k of the population's rows" needs rows >= k). Besides this, a generated empty input is used
    # only where the exercise's own cases show that the text covers empty inputs.
    domain: Callable[..., bool] | None = None
    # True: the answer is what only inductor makes (code, random numbers, cache, a package): without a
    # C++ compiler (compiletools.fall_back_without_compiler) check() says it is not checked, no ✓ or ✗.
    needs_compiler: bool = False
    # True: the answer compiles, as the reference does (torch.compile, export, AOTInductor): each input
    # gets timelimit.SECONDS_PER_COMPILING_CASE, not SECONDS_PER_CASE (tests/test_check_leaks.py observes it).
    compiles: bool = False


class _Registry:
    """Exercises by id, loaded lazily from ``torchcourse.grading.exercises.mNN``."""

    def __init__(self) -> None:
        self._by_id: dict[str, Exercise] = {}
        self._loaded: set[str] = set()

    def module_exercises(self, module: str) -> list[Exercise]:
        """All exercises of module ``"01"`` in order (imports its definitions)."""
        mod = importlib.import_module(f"torchcourse.grading.exercises.m{module}")
        exercises = list(mod.EXERCISES)
        for ex in exercises:
            self._by_id[ex.id] = ex
        self._loaded.add(module)
        return exercises

    def get(self, exercise_id: str) -> Exercise | None:
        if exercise_id not in self._by_id:
            module = str(exercise_id).split(".")[0]
            if module not in self._loaded:
                try:
                    self.module_exercises(module)
                except ModuleNotFoundError:
                    return None
        return self._by_id.get(exercise_id)


REGISTRY = _Registry()


def _to64(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.detach().to(torch.float64)
    if isinstance(value, (list, tuple)):
        return type(value)(_to64(v) for v in value)
    return value


def _float64_error(expected: Any, truth: Any) -> float:
    """The reference's own largest error against the float64 ground truth."""
    worst = 0.0
    for e, t in zip(_flat(expected), _flat(truth)):
        if isinstance(e, torch.Tensor) and isinstance(t, torch.Tensor) and e.is_floating_point() and e.numel():
            diff = (e.detach().double() - t.detach().double()).abs()
            diff = diff[~torch.isnan(diff)]
            if diff.numel():
                worst = max(worst, float(diff.max()))
    return worst


def _flat(value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flat(v)]
    return [value]


def _compare_to_reference(ex: Exercise, args: tuple, got: Any, expected: Any) -> str | None:
    if ex.property is not None:  # like a rule, a property that cannot inspect an odd answer says so
        try:
            return ex.property(args, got)
        except Exception as exc:
            return f"could not inspect your result ({exc_text(exc)})"
    if not ex.float64_truth:
        return compare(got, expected, rtol=ex.rtol, atol=ex.atol, check_dtype=ex.check_dtype)
    # shape, dtype and type against the reference; values against the float64 truth
    msg = compare(got, expected, rtol=math.inf, atol=math.inf, check_dtype=ex.check_dtype)
    if msg:
        return msg
    truth = _quiet_reference(ex, *_to64(snapshot(args)))
    atol = max(ex.atol, 2 * _float64_error(expected, truth))
    return compare(_to64(got), truth, rtol=ex.rtol, atol=atol, check_dtype=False)


def _judge(rules: Sequence[Rule], case: Case, first: bool) -> str | None:
    for rule in rules:
        if not (first or rule.every_case):
            continue
        try:
            msg = rule.judge(case)
        except Exception as exc:  # a rule that cannot inspect an odd answer says so in one line
            msg = f"could not inspect your result ({exc_text(exc)})"
        if msg:
            return msg
    return None


def evaluate(ex: Exercise, fn: Any, time_limit: float | None = None) -> tuple[str, str]:
    """Run ``fn`` against ``ex`` and return ``(status, message)``; never raises.

    The whole flow of a check, top to bottom: the cases (the exercise's own, then generated
    variants), and for each case, smallest first so that a failure shows the smallest input:
    call the learner's function, judge the early rules, compare with the reference (or the
    stated property; an input changed in place is a difference too), judge the other rules.
    The first failure is the message; none is the pass line.

    A check leaves the process as it found it (``isolation.Isolated``: dynamo's caches of what
    it compiled, config, default dtype, RNG, grad mode, threads, warning filters, environment,
    monkeypatched torch attributes...), so the 20th run in a kernel gives the 1st run's verdict.
    The answer runs under a time limit (``timelimit``; ``time_limit`` seconds for the whole check,
    by default :func:`budget`), where POSIX signals allow one: elsewhere without a limit.
    """
    learner = {c for c in (getattr(fn, "__code__", None),) if c is not None}
    ran = [False]  # set once the answer has run: any failure after that is about the answer
    limit = TimeLimit(learner)
    try:
        with Isolated(), limit:
            try:
                return _evaluate(ex, fn, ran, limit, time_limit)
            except TimeLimitExceeded:
                return FAIL, too_slow(limit.seconds)
            except KeyboardInterrupt:
                raise
            except BaseException as exc:  # the reference or a rule failed after the answer ran
                if not ran[0]:
                    raise
                return FAIL, _broke_something(exc)
    except TimeLimitExceeded:  # fired between the answer's return and the end of the check
        return FAIL, too_slow(limit.seconds)


def exc_text(exc: BaseException) -> str:
    """``Name: first line of the message``, even for an exception whose ``__str__`` raises."""
    try:
        text = (str(exc).strip().splitlines() or [""])[0]
    except Exception:  # noqa: BLE001 - a learner's exception class may break str()
        text = ""
    return f"{type(exc).__name__}{': ' + text if text else ''}"


# Where an error message quotes code (dynamo's "from user code:", a traceback's File "...", line N),
# the rest is cut: a check line never shows a line of the reference or of the check.
_QUOTES_CODE = re.compile(r'\s(?:from user code:|Traceback \(most recent call last\)|File "[^"]*", line \d+).*', re.S)


def _one_line(message: str) -> str:
    return " ".join(_QUOTES_CODE.sub(" ", message).split())


def _broke_something(exc: BaseException) -> str:
    return (
        f"after your function ran, the check could not go on ({exc_text(exc)}): "
        "your function changed something it was given or something global (a torch function, a setting), "
        "or returned an object that cannot be compared; leave what you are given as it was"
    )


def _evaluate(ex: Exercise, fn: Any, ran: list, limit: TimeLimit, seconds: float | None) -> tuple[str, str]:
    if fn is None or not callable(fn):
        return FAIL, f"expected a function (pass the function itself, without calling it), got {describe(fn)}"
    # 1. cases
    try:
        cases = sorted(ex.cases(), key=size)
    except Exception as exc:  # a broken case generator is a course bug; still no traceback
        return FAIL, f"the check could not build its inputs ({exc_text(exc)})"
    early, late = [r for r in ex.rules if r.early], [r for r in ex.rules if not r.early]
    plan = [(args, "") for args in cases] + generated_cases(ex, list(cases))
    fresh_builds: list = []
    limit.arm(budget(ex.compiles, len(plan)) if seconds is None else seconds)
    for i, (args, label) in enumerate(plan):
        where = case_text(i, args) + (f" ({label})" if label else "")
        ref_args, my_args, before = snapshot(args), snapshot(args), snapshot(args)
        expected = _MISSING
        if label:  # a generated case counts only where the reference accepts it and is repeatable
            expected = _repeatable_reference(ex, args, ref_args)
            if expected is _MISSING:
                continue
        # 2. call: the learner's function first, so a stub returns at once
        ran[0] = True
        got, failure = _call(ex, fn, my_args, where)
        if failure:
            return failure
        if expected is _MISSING:
            if not label and not _plain_data(args):  # a program, a module: a fresh build, nothing shared
                fresh_builds = fresh_builds or sorted(ex.cases(), key=size)
                ref_args = fresh_builds[i]
            expected = _quiet_reference(ex, *ref_args)
        case = Case(fn=fn, args=my_args, got=got, fresh=lambda args=args: snapshot(args), reference=ex.reference)
        # 3. rules judged before the values (what the answer did, whatever it returned)
        msg = _judge(early, case, i == 0)
        # 4. compare with the reference
        msg = msg or _compare_case(ex, my_args, ref_args, before, got, expected)
        # 5. the other rules
        msg = msg or _judge(late, case, i == 0)
        if msg:
            return FAIL, msg + where
    n = len(cases)
    return PASS, f"matches the reference on {n} input{'s' if n != 1 else ''}" if cases and cases[0] else "correct"


_MISSING = object()


def _quiet_reference(ex: Exercise, *args: Any) -> Any:
    """The reference's result, with its warnings kept quiet: the reference is compiled under the
    solutions file's name, so a warning it raises (e.g. std() of one row) would print a line of
    the worked answer on the learner's stderr."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ex.reference(*args)


def _repeatable_reference(ex: Exercise, args: tuple, ref_args: tuple) -> Any:
    """The reference's result on a generated case, or _MISSING where the reference rejects the
    case or gives another answer on a second run (e.g. an underdetermined least-squares fit)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = ex.reference(*ref_args)
            again = ex.reference(*snapshot(args))
    except Exception:
        return _MISSING
    if compare(again, expected, rtol=ex.rtol, atol=ex.atol, check_dtype=ex.check_dtype):
        return _MISSING
    return expected


def _call(ex: Exercise, fn: Any, args: tuple, where: str) -> tuple[Any, tuple[str, str] | None]:
    """``fn(*args)``, or the (status, message) its failure becomes: "not attempted" for the stub."""
    try:
        return fn(*args), None
    except NotImplementedError as exc:
        if not exc.args:  # the stub's bare `raise NotImplementedError`; torch raises it with a message
            return None, (
                TODO,
                f'not attempted yet (replace `raise NotImplementedError` with your answer; hint("{ex.id}") helps)',
            )
        return None, (FAIL, f"your function raised {exc_text(exc)}{where}")
    except (KeyboardInterrupt, TimeLimitExceeded):
        raise
    except BaseException as exc:  # SystemExit too: a learner's exit() must not kill the check
        return None, (FAIL, f"your function raised {exc_text(exc)}{where}")


def _compare_case(ex: Exercise, my_args: tuple, ref_args: tuple, before: tuple, got: Any, expected: Any) -> str | None:
    """The values: an in-place exercise compares the changed input (and what it returns); any
    other compares its result and requires its inputs unchanged."""
    if ex.inplace:
        msg = compare(my_args[0], ref_args[0], rtol=ex.rtol, atol=ex.atol, check_dtype=ex.check_dtype)
        if msg:
            return f"after your function ran, the input was not changed as expected: {msg}"
        if expected is not None:  # like add_, an in-place function returns what it changed
            msg = compare(got, expected, rtol=ex.rtol, atol=ex.atol, check_dtype=ex.check_dtype)
            if msg:
                return f"the input was changed correctly, but the return value is wrong: {msg}"
        return None
    for k, (a, b) in enumerate(zip(my_args, before)):
        if changed(a, b):
            return (
                f"your function changed its argument {k + 1} in place; "
                "leave inputs unchanged (use out-of-place operations or .clone())"
            )
    return _compare_to_reference(ex, my_args, got, expected)


def check(exercise_id: str, fn: Any) -> None:
    """Check the learner's ``fn`` for exercise ``exercise_id`` and print one line.

    Returns nothing, so a notebook cell ending in ``check(...)`` shows only that line;
    tests use :func:`evaluate` for the status.
    """
    try:
        ex = REGISTRY.get(exercise_id)
    except Exception as exc:
        print(f"{FAIL} {exercise_id}: could not load the exercise definitions ({exc_text(exc)})")
        return
    if ex is None:
        print(f"{FAIL} {exercise_id}: no such exercise id (ids look like '01.3')")
        return
    if ex.needs_compiler:
        from torchcourse.compiletools import say_once  # True without a compiler, after the line on what is missing

        if say_once():
            print(f"{TODO} {ex.id} {ex.title}: not checked here: {NOT_CHECKED}")
            return
    try:
        status, message = evaluate(ex, fn)
    except Exception as exc:  # the reference itself failed: a course bug, reported not raised
        status, message = FAIL, f"the check itself failed ({exc_text(exc)}); please report this"
    print(f"{status} {ex.id} {ex.title}: {_one_line(message)}")
    from torchcourse.progress import record  # imported here: python -m torchcourse.progress stays clean

    record("exercises", ex.id, {PASS: "pass", FAIL: "fail"}.get(status, "todo"))  # local only, never raises


_hint_position: dict[str, int] = {}


def hint(exercise_id: str, all: bool = False) -> None:  # noqa: A002 - `all` reads well in a notebook
    """Print the next hint for an exercise (or every hint with ``all=True``)."""
    ex = REGISTRY.get(exercise_id)
    if ex is None:
        print(f"No exercise with id {exercise_id!r}.")
        return
    hints = list(ex.hints)
    if all:
        for i, h in enumerate(hints, 1):
            print(f"Hint {i} of {len(hints)} for {ex.id}: {h}")
        return
    pos = _hint_position.get(ex.id, 0)
    if pos >= len(hints):
        print(
            f"No more hints for {ex.id}. "
            f"The worked answer is in the solutions/ notebook of module {ex.id.split('.')[0]}."
        )
        return
    _hint_position[ex.id] = pos + 1
    print(f"Hint {pos + 1} of {len(hints)} for {ex.id}: {hints[pos]}")
