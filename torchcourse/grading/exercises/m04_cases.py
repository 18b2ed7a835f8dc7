"""Module 04's rules, and the inputs and typical wrong answers of its exercises on the default dtype
and tolerances (04.9, 04.11); 04.10's (complex numbers) are in ``m04_rotate.py``. ``m04.py`` keeps
the EXERCISES list."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

from torchcourse.grading.compare import describe
from torchcourse.grading.exercises._inputs import randint, randn
from torchcourse.grading.rules import Case, Rule

# ---- 04.6 nothing wider than int16 ---------------------------------------------------------------


class _Made(TorchDispatchMode):
    """Records the dtype of every tensor each aten operation returns."""

    def __init__(self) -> None:
        super().__init__()
        self.made: list[tuple[str, torch.dtype]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, (tuple, list)) else (out,):
            if isinstance(t, torch.Tensor):
                self.made.append((f"aten::{func.overloadpacket.__name__}", t.dtype))
        return out


@dataclass
class NothingWiderThan(Rule):
    """No tensor the answer makes is wider than ``dtype`` (bools aside): "ask sum for int16
    directly" means no int64 (nor int32, nor float) sum or copy on the way. Judged by the dtypes of
    what every aten operation returns, so every spelling (a cast, a sum in another dtype, a sum per
    row) is seen."""

    dtype: torch.dtype = torch.int16
    name = "no wider temporary"

    def judge(self, case: Case) -> str | None:
        args = case.fresh()
        mode = _Made()
        try:
            with warnings.catch_warnings(), mode:
                warnings.simplefilter("ignore")
                case.fn(*args)
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        wide = [(op, dt) for op, dt in mode.made if dt != torch.bool and dt.itemsize > self.dtype.itemsize]
        if not wide:
            return None
        op, dt = max(wide, key=lambda w: w[1].itemsize)
        name = str(dt).removeprefix("torch.")
        want = str(self.dtype).removeprefix("torch.")
        a = "an" if name[0] in "aeio" else "a"
        return (
            f"your function made {a} {name} tensor ({op}): {a} {name} copy of numbers that {want} holds. Ask "
            f"sum for {want} directly, sum(dim=1, dtype=torch.{want}), so that no tensor wider than {want} "
            "is made on the way"
        )


# ---- 04.9 the default dtype, put back ---------------------------------------------------------


def make_list():
    return torch.tensor([0.1, 0.2])


def make_float_factories():
    return torch.zeros(2), torch.arange(3.0) / 3, torch.linspace(0, 1, 5)


def make_mixed():
    return torch.arange(3), torch.tensor(2.5), torch.tensor([1, 2]) / 2  # int64 stays int64


def make_complex():
    return torch.tensor([1 + 2j, -1j])


def make_nothing():
    return None


class BuildFailed(Exception):
    """What the raising ``build`` of the rule raises: the answer must let it through."""


def make_then_fail():
    torch.zeros(1)
    raise BuildFailed("build raised on purpose")


def default_dtype_cases():
    return [
        (torch.float64, make_list),
        (torch.float64, make_float_factories),
        (torch.float16, make_float_factories),
        (torch.float64, make_mixed),
        (torch.bfloat16, make_mixed),
        (torch.float64, make_complex),
        (torch.float32, make_complex),
        (torch.float64, make_nothing),
    ]


class _Counted:
    """``build`` wrapped: counts its calls and keeps what it returned or raised last."""

    def __init__(self, build) -> None:
        self.build, self.calls, self.result, self.error = build, 0, None, None

    def __call__(self):
        self.calls += 1
        try:
            self.result = self.build()
        except BaseException as exc:
            self.error = exc
            raise
        return self.result

    def __repr__(self) -> str:
        return "build"


@dataclass
class RestoresDefaultDtype(Rule):
    """04.9: ``build`` is called once and what it returned is returned (the same object); after the
    call the default dtype is what it was before, after a normal return and after ``build`` raised
    (and that exception object reaches the caller). Judged from a known starting default that is
    neither float32 nor the case's dtype, so an answer that "restores" float32 is seen. The check
    (``evaluate``) puts the learner's default back whatever the answer did."""

    name = "default dtype put back"
    early = True  # before the comparison, so a leaked default never outlives the check

    def judge(self, case: Case) -> str | None:
        session = torch.get_default_dtype()  # the check itself puts back the one from before the first call
        dtype, build = case.fresh()
        start = torch.float64 if dtype != torch.float64 else torch.bfloat16
        try:
            return self._judge(case, dtype, build, start)
        finally:
            torch.set_default_dtype(session)

    @staticmethod
    def _judge(case: Case, dtype, build, start) -> str | None:
        torch.set_default_dtype(start)
        counted = _Counted(build)
        try:
            got = case.fn(dtype, counted)
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        if counted.calls != 1:
            return f"your function called build() {counted.calls} times; call it once and return what it returned"
        if got is not counted.result:
            return (
                f"your function returned {describe(got)}, not the object build() returned; return what it "
                "returned, as it is"
            )
        after = torch.get_default_dtype()
        if after != start:
            return (
                f"the default dtype was {start} before your function ran and {after} after it; put the old "
                "default back before returning (read it first with torch.get_default_dtype())"
            )
        torch.set_default_dtype(start)
        failing = _Counted(make_then_fail)
        try:
            case.fn(dtype, failing)
        except BuildFailed as exc:
            if exc is not failing.error:
                return (
                    "when build raised, your function raised a new BuildFailed instead of build's own exception "
                    "(the same object, with its traceback); let it through: re-raise it with a bare raise"
                )
        except Exception as exc:  # noqa: BLE001 - reported below
            return (
                f"when build raised, your function raised {type(exc).__name__} instead of letting build's error through"
            )
        else:
            return "when build raised, your function returned normally; let build's exception reach the caller"
        if failing.calls != 1:
            return f"your function called build() {failing.calls} times; call it once"
        after = torch.get_default_dtype()
        if after != start:
            return (
                f"when build raised, the default dtype stayed {after} (it was {start}); restore it in a finally: "
                "block, which runs when build returns and when it raises"
            )
        return None


def default_build_twice(dtype, build):
    before = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        build()  # a first call "to see" what it makes: build runs twice
        return build()
    finally:
        torch.set_default_dtype(before)


def default_new_exception(dtype, build):
    before = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        return build()
    except Exception as exc:
        raise type(exc)(*exc.args) from None  # the same type, but another exception object
    finally:
        torch.set_default_dtype(before)


def default_no_restore(dtype, build):
    torch.set_default_dtype(dtype)
    return build()


def default_restore_not_on_error(dtype, build):
    before = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    out = build()
    torch.set_default_dtype(before)
    return out


def default_restore_float32(dtype, build):
    torch.set_default_dtype(dtype)
    try:
        return build()
    finally:
        torch.set_default_dtype(torch.float32)  # "the" default, not the one that was set before


def default_swallows_error(dtype, build):
    before = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        return build()
    except Exception:  # noqa: BLE001 - the mistake: the caller never hears of it
        return None
    finally:
        torch.set_default_dtype(before)


def default_cast_result(dtype, build):
    out = build()  # made in the current default, then cast: integers and complex go wrong
    if isinstance(out, tuple):
        return tuple(t.to(dtype) for t in out)
    return out if out is None else out.to(dtype)


# ---- 04.11 close enough for the dtype ------------------------------------------------------------


def _pair(got, want, dtype=torch.float32):
    return torch.tensor(got, dtype=dtype), torch.tensor(want, dtype=dtype)


def close_cases():
    nan, inf = float("nan"), float("inf")
    bf16, f16, f64 = torch.bfloat16, torch.float16, torch.float64
    return [
        _pair([1000.001, 2.0], [1000.0, 2.0]),  # float32: a relative 1e-6 is inside 1.3e-6
        _pair([1000.002, 2.0], [1000.0, 2.0]),  # ... 2e-6 is not
        _pair([[1 + 5e-8, 0.0], [3.0, 9e-8]], [[1.0, 0.0], [3.0, 0.0]], f64),  # inside float64's 1e-7
        _pair([1 + 5e-7, 3.0], [1.0, 3.0], f64),  # outside float64's tolerance, inside allclose's
        _pair([1.0078125, -2.0], [1.0, -2.0], bf16),  # one bfloat16 step: inside 1.6e-2, outside allclose's
        _pair([252.0, 1.0], [248.0, 1.0], bf16),  # 4 apart: inside rtol x 252, outside rtol x 248 (want)
        _pair([1.0009765625], [1.0], f16),  # one float16 step: inside 1e-3
        _pair([1.001953125], [1.0], f16),  # two steps: outside
        _pair([1e-7, 2.0], [0.0, 2.0], f64),  # exactly on the boundary: |got - want| = atol is close
        _pair([9e-6, 1.0], [0.0, 1.0]),  # near zero, atol decides: inside 1e-5
        _pair([2e-5, 1.0], [0.0, 1.0]),  # outside
        _pair([1000 + 0.001j], [1000 + 0j], torch.complex64),  # complex64 takes float32's tolerances
        _pair([1000 + 0.002j], [1000 + 0j], torch.complex64),
        _pair([1.0, nan], [1.0, nan]),  # a NaN is never close
        _pair([inf, -inf, 1.0], [inf, -inf, 1.0]),  # equal infinities are
        _pair([1e38, 1.0], [inf, 1.0]),
        (randn(3, 4, seed=404, dtype=f64), randn(3, 4, seed=404, dtype=f64) * (1 + 2e-8)),
        _pair([], []),  # "every element" of an empty pair: all of none are close
        (torch.zeros(0, 3, dtype=f16), torch.zeros(0, 3, dtype=f16)),
    ]


def python_bool(args: tuple, got) -> str | None:
    if not isinstance(got, bool):
        return f"the answer has the right truth value, but it is a {describe(got)}: return a Python bool (bool(...))"
    return None


def close_allclose(got, want):
    return torch.allclose(got, want)  # the same rtol=1e-5, atol=1e-8 for every dtype


def close_float32_table(got, want):
    return bool(torch.isclose(got, want, rtol=1.3e-6, atol=1e-5).all())  # float32's tolerances for every dtype


def close_tensor(got, want):
    return torch.isclose(got, want, rtol=1.3e-6 if got.dtype == torch.float32 else 1e-7, atol=1e-5).all()


def close_equal_nan(got, want):
    try:
        torch.testing.assert_close(got, want, equal_nan=True)
    except AssertionError:
        return False
    return True


def close_relative_to_got(got, want):
    rtol, atol = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5), torch.float64: (1e-7, 1e-7)}.get(
        got.dtype, (1.3e-6, 1e-5)
    )
    diff = (got - want).abs().double()
    return bool((diff <= atol + rtol * got.abs().double()).all())  # |got|, not |want|


def close_min_item(got, want):
    rtol, atol = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5), torch.float64: (1e-7, 1e-7)}.get(
        got.dtype, (1.3e-6, 1e-5)
    )
    if got.dtype == torch.complex128:
        rtol, atol = 1e-7, 1e-7
    return torch.isclose(got, want, rtol=rtol, atol=atol).min().item()  # raises on an empty pair


def close_exact(got, want):
    return bool((got == want).all())


def _numpy_cases():
    return [
        (randn(5, seed=40, dtype=torch.float64).numpy(),),
        (randn(3, 4, seed=41, dtype=torch.float64).numpy(),),
        (randint(-50, 50, 6, seed=42).numpy(),),
        (np.array(2.5),),  # a 0-d array: list(a) cannot iterate it
        (randn(7, seed=37, dtype=torch.float64).numpy()[::-1],),  # negative strides: from_numpy refuses them
        (randn(3, 5, seed=38).numpy()[:, ::-2],),  # float32 already, reversed: asarray(a, float32) keeps it as is
        (randn(2, 3, seed=36, dtype=torch.float64).numpy().astype(">f8"),),  # big-endian, as read from a file
        (np.zeros((0, 3)),),  # an empty array is an array of numbers too: torch.frombuffer refuses it
    ]


def _swap_in_place(a):
    """04.1, wrong: swaps a big-endian array's bytes in the caller's array to get native order."""
    if a.dtype.byteorder == ">":
        a.byteswap(inplace=True)
        a = a.view(a.dtype.newbyteorder("="))
    return torch.from_numpy(a.astype(np.float32))
