"""Module 02 "Storage and views": views vs copies, in-place updates, NumPy sharing."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import torch

from torchcourse.grading.checks import Exercise
from torchcourse.grading.compare import compare
from torchcourse.grading.exercises._inputs import randint, randn
from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises._types import container
from torchcourse.grading.rules import Case, Holds, IsCopy, IsView, NoGradHistory, Rule

last_column = solution("02", "last_column")


independent_copy = solution("02", "independent_copy")


zero_negatives_ = solution("02", "zero_negatives_")


wrap_array = solution("02", "wrap_array")


scale_rows_ = solution("02", "scale_rows_")


set_border_ = solution("02", "set_border_")


shares_with_first = solution("02", "shares_with_first")


def _returns_its_input(args: tuple, got) -> str | None:
    """PyTorch's in-place methods return the tensor they changed (so calls chain); so must ours."""
    if got is not args[0]:
        return (
            "the input was changed correctly, but return the tensor you changed (the input itself), "
            "as t.add_(1) returns t"
        )
    return None


@dataclass
class InItsOwnMemory(Rule):
    """An in-place function writes into its argument's own memory: the argument keeps its
    storage, and a second view of that memory, made before the call (as the caller holds the
    tensor a slice was taken from), sees the change. ``t.data = new`` and ``t.set_(new)`` change
    the values ``t`` shows by giving it other memory: the caller's other views keep the old values."""

    arg: int = 0
    name = "in place"

    def judge(self, case: Case) -> str | None:
        args = case.fresh()
        t = args[self.arg]
        if not isinstance(t, torch.Tensor) or t.numel() == 0:
            return None
        pointer = t.untyped_storage().data_ptr()
        caller = t.as_strided(t.size(), t.stride(), t.storage_offset())  # another view of the same memory
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                case.fn(*args)
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        if t.untyped_storage().data_ptr() != pointer or compare(caller, t, rtol=0, atol=0) is not None:
            return (
                "your function gave the tensor other memory (as t.data = ... or t.set_(...) do) instead of "
                "writing into its own: the caller's other views of it still show the old values; write into "
                "it in place (a method ending in _, or an assignment into t[...])"
            )
        return None


def _shares_with_array(args: tuple, got) -> str | None:
    if not np.shares_memory(got.numpy(), args[0]):
        return "the values are right but the tensor is a copy; return one that shares the array's memory"
    return None


def _wrap_cases():
    return [
        (np.arange(5.0),),
        (randn(3, 4, seed=21, dtype=torch.float32).numpy(),),
        (randint(-5, 5, 2, 3, seed=22, dtype=torch.int32).numpy(),),
    ]


def _storage_swap(compute):
    """A wrong in-place answer: the right values, put in new memory with ``t.data = ...``."""

    def answer(t, *rest):
        t.data = compute(t, *rest)
        return t

    return answer


def _storage_set(compute):
    """A wrong in-place answer: the right values, put in new memory with ``t.set_(...)``."""

    def answer(t, *rest):
        t.set_(compute(t, *rest))
        return t

    return answer


def _painted(img, value):
    out = img.clone()
    out[0], out[-1], out[:, 0], out[:, -1] = value, value, value, value
    return out


def _share_cases():
    t = randn(3, 4, seed=23)
    u = randn(6, seed=24)
    return [
        ([t, t[1], t.clone(), t.t(), t[:, 2], t[[0, 2]], t.view(12)],),
        ([u, u[3:], u * 1, u.view(2, 3)[1], u.detach(), u[u > 0]],),
        ([t[2], t[0], t[2].clone(), t.reshape(4, 3)],),
        ([u, u.clone(), u[1:], u.clone()[2:]],),  # the second has its own storage: compare with the first
    ]


EXERCISES = [
    Exercise(
        "02.1",
        "The last column, as a view (warm-up)",
        last_column,
        cases=lambda: [
            (randn(3, 4, seed=1),),
            (randn(5, 2, seed=2, dtype=torch.float64),),
            (randint(0, 9, 4, 1, seed=3),),
            (randn(4, 3, seed=11).T,),  # transposed: not contiguous
            (randn(0, 3, seed=12),),  # no rows
            (randn(1, 1, seed=13, dtype=torch.float16),),
        ],
        hints=[
            "Basic slicing (integers, ':' and ranges) returns a view; a negative index counts from the end.",
            "t[:, j] is column j. Indexing with a list, t[:, [j]], copies.",
        ],
        wrong=[
            lambda t: t[:, -1].clone(),
            lambda t: t[-1],
            lambda t: t[:, [-1]],
            lambda t: t.T[-1].contiguous(),
            lambda t: t[:, t.shape[1] - 1 : t.shape[1]].reshape(-1).clone(),
        ],
        rules=[IsView()],
    ),
    Exercise(
        "02.2",
        "An independent copy (warm-up)",
        independent_copy,
        cases=lambda: [
            (randn(4, seed=4),),
            (randn(2, 3, seed=5, dtype=torch.float64),),
            (randint(0, 9, 3, 3, seed=6),),
            (randn(3, 2, seed=14).requires_grad_(),),  # a leaf that requires grad: the copy must not
            (randn(4, 3, seed=15, dtype=torch.float16).T,),
            (randn(0, seed=16),),
        ],
        rules=[IsCopy(), NoGradHistory()],
        hints=[
            "A view and detach() share the input's storage: a write into them changes the input.",
            "clone() copies the numbers into a new storage; detach() first drops autograd history.",
        ],
        wrong=[lambda t: t.detach(), lambda t: t.view_as(t), lambda t: t[:], lambda t: t.clone()],
    ),
    Exercise(
        "02.3",
        "Clear the negatives in place",
        zero_negatives_,
        cases=lambda: [
            (randn(8, seed=7),),
            (randn(3, 4, seed=8, dtype=torch.float64),),
            (randint(-5, 5, 2, 5, seed=9),),
            (randn(12, seed=19)[2:],),  # a slice of the caller's tensor: the change must show there too
            (randn(4, 6, seed=20)[:, 1:4],),  # a non-contiguous window: t.contiguous() would be a copy
        ],
        inplace=True,
        rules=[InItsOwnMemory(), Holds(_returns_its_input)],
        hints=[
            "clamp(min=0) computes the answer; methods ending in _ write it into the tensor itself.",
            (
                "t = t.clamp(min=0) only rebinds your local name: the caller's tensor is untouched. "
                "Use t.clamp_(min=0) (or t[t < 0] = 0), then return t."
            ),
        ],
        wrong=[
            lambda t: t.clamp(min=0),
            lambda t: torch.where(t < 0, torch.zeros_like(t), t),
            lambda t: t.abs_(),
            _storage_swap(lambda t: t.clamp(min=0)),
            _storage_set(lambda t: t.clamp(min=0)),
            _storage_swap(lambda t: t.clamp(min=0).contiguous()),
            lambda t: (t.contiguous().clamp_(min=0), t)[-1],  # writes into a copy when t is not contiguous
        ],
    ),
    Exercise(
        "02.4",
        "Wrap a NumPy array without copying",
        wrap_array,
        cases=_wrap_cases,
        hints=[
            "torch.tensor(a) always copies the array.",
            (
                "torch.from_numpy(a) (or torch.as_tensor(a) without a dtype) shares the array's memory "
                "and keeps its dtype."
            ),
        ],
        wrong=[
            lambda a: torch.tensor(a),
            lambda a: torch.from_numpy(a).float(),
            lambda a: torch.as_tensor(a, dtype=torch.float32),
        ],
        rules=[Holds(_shares_with_array)],
    ),
    Exercise(
        "02.5",
        "Scale each row in place",
        scale_rows_,
        cases=lambda: [
            (randn(3, 3, seed=10), randn(3, seed=11)),
            (randn(4, 2, seed=12, dtype=torch.float64), randn(4, seed=13, dtype=torch.float64)),
            (randn(1, 5, seed=14), torch.tensor([2.0])),
            (randn(5, 3, seed=19)[1:], randn(4, seed=20)),  # rows of the caller's tensor
            (randn(3, 5, seed=21).T, randn(5, seed=22)),  # transposed: m.contiguous() would be a copy
        ],
        inplace=True,
        rules=[InItsOwnMemory(), Holds(_returns_its_input)],
        hints=[
            "Row i of m is multiplied by factors[i]: broadcasting needs factors as a column, shape (n, 1).",
            "m = m * ... makes a new tensor; m.mul_(...) or m *= ... writes into m's storage.",
        ],
        wrong=[
            lambda m, f: m * f.unsqueeze(1),
            lambda m, f: m.mul_(f),
            lambda m, f: m.mul_(f.unsqueeze(0).T.clone()).clone(),
            _storage_swap(lambda m, f: m * f[:, None]),
            lambda m, f: (m.contiguous().mul_(f[:, None]), m)[-1],  # writes into a copy when m is not contiguous
        ],
    ),
    Exercise(
        "02.6",
        "Paint a border through views",
        set_border_,
        cases=lambda: [
            (randn(4, 5, seed=15), 0.0),
            (randn(3, 3, seed=16, dtype=torch.float64), -1.0),
            (randint(0, 9, 2, 6, seed=17), 7),
            (randn(6, 2, seed=18), 9.5),
            (randn(5, 6, seed=19)[1:, 1:], 3.0),  # a window of the caller's image
        ],
        inplace=True,
        rules=[InItsOwnMemory(), Holds(_returns_its_input)],
        hints=[
            "img[0], img[-1], img[:, 0] and img[:, -1] are views of the four edges.",
            "Assigning into a view (img[0] = value) writes into img's storage.",
        ],
        wrong=[
            lambda img, v: torch.nn.functional.pad(img[1:-1, 1:-1], (1, 1, 1, 1), value=v),
            lambda img, v: (img.__setitem__(0, v), img.__setitem__(-1, v), img)[-1],
            lambda img, v: (img.clone().fill_(v), img)[-1],
            _storage_swap(_painted),
            _storage_set(_painted),
        ],
    ),
    Exercise(
        "02.7",
        "Which tensors share memory? (stretch)",
        shares_with_first,
        cases=_share_cases,
        hints=[
            ("A view that starts later in the buffer (t[1]) has another data_ptr() than t, yet the same storage."),
            "Compare x.untyped_storage().data_ptr() with the first tensor's: equal means one buffer.",
        ],
        wrong=[
            lambda ts: [t.data_ptr() == ts[0].data_ptr() for t in ts[1:]],
            lambda ts: [t is ts[0] for t in ts[1:]],
            lambda ts: [torch.equal(t.flatten()[:1], ts[0].flatten()[:1]) for t in ts[1:]],
            lambda ts: tuple(shares_with_first(ts)),
        ],
        rules=[Holds(container(list))],
    ),
]
