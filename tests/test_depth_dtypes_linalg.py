"""Exercises 04.9-04.11 and 06.10-06.11 grade what their text states.

For each: correct answers written differently from the worked one (✓), and an adversary's table,
written from the exercise text alone, of three more correct answers and three plausible wrong ones,
each with the verdict it must get; a wrong answer that breaks a stated constraint must be rejected
with that constraint's message. The default dtype is checked to be float32 after every answer.
"""

from __future__ import annotations

import cmath
import contextlib
import math

import numpy as np
import pytest
import torch

from torchcourse.grading.checks import FAIL, PASS, REGISTRY, evaluate

# ---------------------------------------------------------------- 04.9 build in another default dtype


@contextlib.contextmanager
def _default(dtype):
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(old)


def wdd_context_manager(dtype, build):
    with _default(dtype):
        return build()


def wdd_reraise(dtype, build):
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        out = build()
    except BaseException:
        torch.set_default_dtype(old)
        raise
    torch.set_default_dtype(old)
    return out


def wdd_exit_stack(dtype, build):
    with contextlib.ExitStack() as stack:
        stack.callback(torch.set_default_dtype, torch.get_default_dtype())
        torch.set_default_dtype(dtype)
        return build()


class _Default:
    def __init__(self, dtype):
        self.dtype = dtype

    def __enter__(self):
        self.old = torch.get_default_dtype()
        torch.set_default_dtype(self.dtype)

    def __exit__(self, *exc):
        torch.set_default_dtype(self.old)
        return False  # let the exception through


def wdd_class(dtype, build):
    with _Default(dtype):
        return build()


def wdd_reads_old_too_late(dtype, build):
    torch.set_default_dtype(dtype)
    old = torch.get_default_dtype()  # already the new one
    try:
        return build()
    finally:
        torch.set_default_dtype(old)


def wdd_wraps_error(dtype, build):
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        return build()
    except Exception as exc:
        raise RuntimeError("build failed") from exc  # another exception reaches the caller
    finally:
        torch.set_default_dtype(old)


def wdd_restores_current(dtype, build):
    torch.set_default_dtype(dtype)
    try:
        return build()
    finally:
        torch.set_default_dtype(torch.get_default_dtype())  # a no-op: the default stays dtype


def wdd_sets_then_raises(dtype, build):
    torch.set_default_dtype(dtype)
    raise RuntimeError("gave up")  # the check must still put the default back


# ---------------------------------------------------------------- 04.10 rotate with complex numbers


def rotate_matrix(points, degrees):
    t = math.radians(degrees)
    R = torch.tensor([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]], dtype=points.dtype)
    return points @ R.T


def rotate_view_contiguous(points, degrees):
    z = torch.view_as_complex(points.contiguous())
    return torch.view_as_real(z * cmath.rect(1.0, math.radians(degrees)))


def rotate_columns(points, degrees):
    t = math.radians(degrees)
    x, y = points[:, 0], points[:, 1]
    return torch.stack([x * math.cos(t) - y * math.sin(t), x * math.sin(t) + y * math.cos(t)], dim=1)


def rotate_polar_same_dtype(points, degrees):
    w = torch.polar(torch.tensor(1.0, dtype=points.dtype), torch.tensor(math.radians(degrees), dtype=points.dtype))
    z = torch.complex(points[:, 0], points[:, 1]) * w  # a 0-d factor: z keeps its dtype
    return torch.stack([z.real, z.imag], dim=-1)


def rotate_matrix_untransposed(points, degrees):
    t = math.radians(degrees)
    R = torch.tensor([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]], dtype=points.dtype)
    return points @ R  # rotates clockwise


def rotate_complex128(points, degrees):
    z = torch.complex(points[:, 0].double(), points[:, 1].double())  # "more precise": float64 comes back
    w = z * cmath.exp(1j * math.radians(degrees))
    return torch.stack([w.real, w.imag], dim=1)


def rotate_swapped_parts(points, degrees):
    z = torch.complex(points[:, 1], points[:, 0])  # y + ix
    w = z * cmath.exp(1j * math.radians(degrees))
    return torch.stack([w.real, w.imag], dim=1)


# ---------------------------------------------------------------- 04.11 close enough for the dtype

_TOL = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.complex64: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
    torch.complex128: (1e-7, 1e-7),
}


def close_isclose_table(got, want):
    rtol, atol = _TOL[got.dtype]
    return bool(torch.isclose(got, want, rtol=rtol, atol=atol).all())


def close_by_hand(got, want):
    rtol, atol = _TOL[got.dtype]
    wide = torch.complex128 if got.is_complex() else torch.float64
    g, w = got.to(wide), want.to(wide)
    ok = (g == w) | (torch.isfinite(w) & ((g - w).abs() <= atol + rtol * w.abs()))  # NaN: both sides False
    return bool(ok.all())


def close_python_loop(got, want):
    rtol, atol = _TOL[got.dtype]
    for g, w in zip(got.flatten().tolist(), want.flatten().tolist()):
        if not (g == w or (cmath.isfinite(w) and abs(g - w) <= atol + rtol * abs(w))):
            return False
    return True


def close_by_hand_infinite_scale(got, want):
    rtol, atol = _TOL[got.dtype]
    wide = torch.complex128 if got.is_complex() else torch.float64
    g, w = got.to(wide), want.to(wide)
    ok = (g == w) | ((g - w).abs() <= atol + rtol * w.abs())  # |1e38 - inf| = inf <= rtol * inf: "close"
    return bool(ok.all())


def close_assert_close_none(got, want):
    try:
        torch.testing.assert_close(got, want, rtol=None, atol=None, equal_nan=False)
        return True
    except AssertionError:
        return False


def close_symmetric_scale(got, want):
    rtol, atol = _TOL[got.dtype]
    diff = (got - want).abs().double()
    return bool((diff <= atol + rtol * torch.maximum(got.abs(), want.abs()).double()).all())


def close_real_parts_only(got, want):
    if got.is_complex():
        got, want = got.real, want.real
    rtol, atol = _TOL[got.dtype]
    return bool(torch.isclose(got, want, rtol=rtol, atol=atol).all())


def close_strict(got, want):
    rtol, atol = _TOL[got.dtype]
    diff = (got.to(torch.complex128 if got.is_complex() else torch.float64) - want).abs()
    return bool(((got == want) | (diff < atol + rtol * want.abs().double())).all())  # < where <= belongs


def close_rtol_atol_swapped(got, want):
    rtol, atol = _TOL[got.dtype]
    return bool(torch.isclose(got, want, rtol=atol, atol=rtol).all())


# ---------------------------------------------------------------- 06.10 Cholesky solve


def spd_two_triangular(S, B):
    L = torch.linalg.cholesky(S)
    Y = torch.linalg.solve_triangular(L, B, upper=False)
    return torch.linalg.solve_triangular(L.mT, Y, upper=True)


def spd_cholesky_ex(S, B):
    L, info = torch.linalg.cholesky_ex(S)
    return torch.cholesky_solve(B, L)


def spd_upper(S, B):
    U = torch.linalg.cholesky(S, upper=True)
    return torch.cholesky_solve(B, U, upper=True)


def spd_transposed_system(S, B):
    L = torch.linalg.cholesky(S)  # X^T S = B^T, solved from the right: the same X, as S is symmetric
    return torch.linalg.solve_triangular(
        L, torch.linalg.solve_triangular(L.mT, B.mT, upper=True, left=False), upper=False, left=False
    ).mT


def spd_lstsq(S, B):
    torch.linalg.cholesky(S)
    return torch.linalg.lstsq(S, B).solution  # a general solver beside the factorisation


def spd_loop_over_batch(S, B):
    if S.dim() == 3:
        return torch.stack([torch.cholesky_solve(b, torch.linalg.cholesky(s)) for s, b in zip(S, B)])
    return torch.cholesky_solve(B, torch.linalg.cholesky(S))


def spd_check_then_solve(S, B):
    if torch.linalg.cholesky_ex(S).info.any():  # a factorisation to test positive-definiteness ...
        raise ValueError("S is not positive-definite")
    return torch.cholesky_solve(B, torch.linalg.cholesky(S))  # ... and a second one to solve


def spd_factor_transposed(S, B):
    return torch.cholesky_solve(B, torch.linalg.cholesky(S).mT)  # L^T read as a lower factor


# ---------------------------------------------------------------- 06.11 rank-k approximation


def rank_diag_embed(A, k):
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    return U[..., :k] @ torch.diag_embed(S[..., :k]) @ Vh[..., :k, :]


def rank_minus_tail(A, k):
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    return A - U[..., k:] * S[..., None, k:] @ Vh[..., k:, :]


def rank_projection(A, k):
    Vk = torch.linalg.svd(A, full_matrices=False).Vh[..., :k, :].mT
    return A @ Vk @ Vk.mT  # A projected onto its top k right singular vectors


def rank_full_matrices(A, k):
    U, S, Vh = torch.linalg.svd(A)  # full_matrices=True: the first k columns are the same
    return U[..., :k] * S[..., None, :k] @ Vh[..., :k, :]


def rank_scaled_rows(A, k):
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    return U[..., :k] @ (S[..., :k, None] * Vh[..., :k, :])  # diag(s) Vh: scale the rows of Vh


def rank_skip_first(A, k):
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    return U[..., 1 : k + 1] * S[..., None, 1 : k + 1] @ Vh[..., 1 : k + 1, :]  # counted from 1


def rank_qr(A, k):
    Q, R = torch.linalg.qr(A)
    return Q[..., :k] @ R[..., :k, :]  # rank k, but not the closest


def rank_vh_transposed(A, k):
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    return U[..., :k] * S[..., None, :k] @ Vh.mT[..., :k, :]  # V's rows where Vh's belong


# ---------------------------------------------------------------- the adversary's rows (depth pass 04-08)


def wdd_build_twice(dtype, build):
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        build()
        return build()  # the second result: build ran twice
    finally:
        torch.set_default_dtype(old)


def wdd_new_exception(dtype, build):
    old = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        return build()
    except Exception as e:
        raise type(e)(*e.args)  # noqa: B904 - the same type, another exception object
    finally:
        torch.set_default_dtype(old)


def rotate_polar_coordinates(points, degrees):
    r = torch.hypot(points[:, 0], points[:, 1])  # float32 polar coordinates: a few eps of |p| off
    a = torch.atan2(points[:, 1], points[:, 0]) + math.radians(degrees)
    return torch.stack([r * torch.cos(a), r * torch.sin(a)], dim=-1)


def rotate_through_complex64(points, degrees):
    z = torch.view_as_complex(points.float().contiguous()) * cmath.exp(1j * math.radians(degrees))
    return torch.view_as_real(z).to(points.dtype)  # float64 points, float32 precision


def spd_inverse_from_factor(S, B):
    L = torch.linalg.cholesky(S)
    eye = torch.eye(S.shape[-1], dtype=S.dtype).expand_as(S)
    return torch.cholesky_solve(eye, L) @ B  # S^-1, then a product


def spd_decoy_numpy_solve(S, B):
    torch.linalg.cholesky(S)
    return torch.from_numpy(np.linalg.solve(S.numpy(), B.numpy()))


def spd_decoy_numpy_inverse(S, B):
    torch.linalg.cholesky(S)
    return torch.from_numpy(np.linalg.inv(S.numpy())) @ B


def spd_numpy_solves_on_factor(S, B):
    L = torch.linalg.cholesky(S)
    return torch.from_numpy(np.linalg.solve(L.mH.numpy(), np.linalg.solve(L.numpy(), B.numpy())))


def spd_numpy_inverse_of_factor(S, B):
    L = torch.linalg.cholesky(S)
    Li = torch.from_numpy(np.linalg.inv(L.numpy()))
    return Li.mH @ (Li @ B)


def spd_triangular_inverse_of_factor(S, B):
    L = torch.linalg.cholesky(S)
    Li = torch.linalg.solve_triangular(L, torch.eye(S.shape[-1], dtype=S.dtype), upper=False)  # L^-1
    return Li.mH @ (Li @ B)


def spd_numpy_factor(S, B):
    L = torch.from_numpy(np.linalg.cholesky(S.numpy()))  # the text asks for torch's factor, in torch
    return torch.cholesky_solve(B, L)


def spd_decoy_eigh(S, B):
    torch.linalg.cholesky(S)
    w, V = torch.linalg.eigh(S)  # neither an inverse nor a general solver, but not the factor either
    return V @ ((V.mH @ B) / w.unsqueeze(-1))


def spd_out_argument(S, B):
    L = torch.empty_like(S)
    torch.linalg.cholesky(S, out=L)
    return torch.cholesky_solve(B, L)


def rank_first_matrix_spectrum(A, k):
    U, S, Vh = torch.linalg.svd(A, full_matrices=False)
    return U[..., :k] @ torch.diag(S[..., :k].reshape(-1)[:k]) @ Vh[..., :k, :]  # matrix 0's s for all


def rank_gram_float32(A, k):
    w, V = torch.linalg.eigh(A.mH @ A)  # in A's dtype: the condition number squared
    Vk = V[..., -k:] if k else V[..., :0]
    return A @ Vk @ Vk.mH


def rank_gram_float64(A, k):
    G = A.double()
    w, V = torch.linalg.eigh(G.mH @ G)  # the same method in float64, cast back: precise enough
    Vk = V[..., V.shape[-1] - k :]
    return (G @ Vk @ Vk.mH).to(A.dtype)


TABLE = [
    # 04.9: the accepted alternatives, then the adversary's three correct and three wrong answers
    ("04.9", wdd_context_manager, PASS, "", "contextlib.contextmanager"),
    ("04.9", wdd_reraise, PASS, "", "except BaseException: restore, raise"),
    ("04.9", wdd_exit_stack, PASS, "", "ExitStack.callback"),
    ("04.9", wdd_class, PASS, "", "a class with __enter__/__exit__"),
    ("04.9", wdd_reads_old_too_late, FAIL, "put the old default back", "reads the old default after setting it"),
    ("04.9", wdd_wraps_error, FAIL, "instead of letting build's error through", "raises another exception"),
    ("04.9", wdd_restores_current, FAIL, "put the old default back", "restores the current default"),
    ("04.9", wdd_sets_then_raises, FAIL, "raised RuntimeError", "raises after setting: evaluate restores"),
    ("04.9", wdd_build_twice, FAIL, "called build() 2 times", "adversary: build called twice"),
    ("04.9", wdd_new_exception, FAIL, "a new BuildFailed", "adversary: a new exception of the same type"),
    # 04.10
    ("04.10", rotate_matrix, PASS, "", "a rotation matrix"),
    ("04.10", rotate_view_contiguous, PASS, "", "view_as_complex of a contiguous copy"),
    ("04.10", rotate_columns, PASS, "", "the two columns by hand"),
    ("04.10", rotate_polar_same_dtype, PASS, "", "torch.polar of 0-d tensors in the points' dtype"),
    ("04.10", rotate_matrix_untransposed, FAIL, "values differ", "clockwise"),
    ("04.10", rotate_complex128, FAIL, "dtype", "float64 back for float32 points"),
    ("04.10", rotate_swapped_parts, FAIL, "values differ", "y + ix"),
    ("04.10", rotate_polar_coordinates, PASS, "", "adversary: float32 polar coordinates"),
    ("04.10", rotate_through_complex64, FAIL, "float64 allows", "adversary: float64 points in complex64"),
    # 04.11
    ("04.11", close_isclose_table, PASS, "", "isclose with the table"),
    ("04.11", close_by_hand, PASS, "", "the rule by hand in float64"),
    ("04.11", close_python_loop, PASS, "", "a Python loop over the elements"),
    ("04.11", close_assert_close_none, PASS, "", "assert_close with rtol=None, atol=None"),
    ("04.11", close_by_hand_infinite_scale, FAIL, "expected False, got True", "inf <= rtol x inf"),
    ("04.11", close_symmetric_scale, FAIL, "expected False, got True", "max(|got|, |want|) as the scale"),
    ("04.11", close_real_parts_only, FAIL, "expected False, got True", "real parts of complex numbers"),
    ("04.11", close_strict, FAIL, "expected True, got False", "< instead of <="),
    ("04.11", close_rtol_atol_swapped, FAIL, "expected", "rtol and atol swapped"),
    # 06.10
    ("06.10", spd_two_triangular, PASS, "", "two solve_triangular calls"),
    ("06.10", spd_cholesky_ex, PASS, "", "cholesky_ex, then cholesky_solve"),
    ("06.10", spd_upper, PASS, "", "an upper factor, upper=True"),
    ("06.10", spd_transposed_system, PASS, "", "the transposed system, solved from the right"),
    ("06.10", spd_lstsq, FAIL, "lstsq", "lstsq beside the factorisation"),
    ("06.10", spd_loop_over_batch, FAIL, "factorises", "a factorisation per matrix of the batch"),
    ("06.10", spd_check_then_solve, FAIL, "factorises 2 times", "a factorisation to check, another to solve"),
    ("06.10", spd_factor_transposed, FAIL, "values differ", "L^T passed as the lower factor"),
    ("06.10", spd_out_argument, PASS, "", "cholesky with out="),
    ("06.10", spd_inverse_from_factor, FAIL, "identity matrix", "adversary: S^-1 by cholesky_solve(I, L)"),
    ("06.10", spd_decoy_numpy_solve, FAIL, "way out of torch", "adversary: a decoy factor, NumPy's solve"),
    ("06.10", spd_decoy_numpy_inverse, FAIL, "way out of torch", "adversary: a decoy factor, NumPy's inv"),
    ("06.10", spd_numpy_solves_on_factor, FAIL, "way out of torch", "adversary: NumPy's solve on L"),
    ("06.10", spd_numpy_inverse_of_factor, FAIL, "way out of torch", "adversary: NumPy's inv of L"),
    ("06.10", spd_triangular_inverse_of_factor, FAIL, "identity matrix", "adversary: L^-1 by a triangular solve"),
    ("06.10", spd_numpy_factor, FAIL, "never calls any cholesky", "adversary: NumPy's factor (torch's asked)"),
    ("06.10", spd_decoy_eigh, FAIL, "not computed from the Cholesky factor", "a decoy factor, eigh solves"),
    # 06.11
    ("06.11", rank_diag_embed, PASS, "", "diag_embed"),
    ("06.11", rank_minus_tail, PASS, "", "A minus the dropped terms"),
    ("06.11", rank_projection, PASS, "", "projection onto the top right singular vectors"),
    ("06.11", rank_full_matrices, PASS, "", "full_matrices=True"),
    ("06.11", rank_scaled_rows, PASS, "", "diag(s) applied to the rows of Vh"),
    ("06.11", rank_skip_first, FAIL, "Eckart–Young", "counts from 1: drops the largest"),
    ("06.11", rank_qr, FAIL, "Eckart–Young", "a truncated QR"),
    ("06.11", rank_vh_transposed, FAIL, "", "V where Vh belongs"),
    ("06.11", rank_gram_float64, PASS, "", "eigh of A^T A in float64, cast back"),
    ("06.11", rank_first_matrix_spectrum, FAIL, "Eckart–Young", "adversary: the first matrix's s for all"),
    ("06.11", rank_gram_float32, FAIL, "Eckart–Young", "adversary: eigh of A^T A in float32"),
]


@pytest.mark.parametrize(
    "exercise_id, answer, status, fragment, what",
    TABLE,
    ids=[f"{row[0]}-{row[2]}-{row[1].__name__}" for row in TABLE],
)
def test_answer_table(exercise_id, answer, status, fragment, what):
    got_status, message = evaluate(REGISTRY.get(exercise_id), answer)
    assert torch.get_default_dtype() == torch.float32, f"{exercise_id} ({what}) left the default dtype changed"
    assert got_status == status, f"{exercise_id} ({what}): {got_status} {message}"
    assert fragment in message, f"{exercise_id} ({what}): {message}"
    assert "\n" not in message


def test_every_exercise_has_three_correct_alternatives_and_three_wrong_answers():
    for ex_id in {row[0] for row in TABLE}:
        rows = [row for row in TABLE if row[0] == ex_id]
        assert sum(row[2] == PASS for row in rows) >= 3, ex_id
        assert sum(row[2] == FAIL for row in rows) >= 3, ex_id


@pytest.mark.parametrize("exercise_id", ["04.9", "04.10", "04.11", "06.10", "06.11"])
def test_wrong_answers_leave_the_default_dtype_alone(exercise_id):
    ex = REGISTRY.get(exercise_id)
    for wrong in ex.wrong:
        evaluate(ex, wrong)
        assert torch.get_default_dtype() == torch.float32, (exercise_id, wrong.__name__)
