"""Generated adversarial cases: besides an exercise's own seeded cases, a check runs the same
values in a column-major layout and with a size-1 and a size-0 first dimension, wherever the
reference accepts them. Answers that only work on the seeded cases fail, and the message names
the generated case; correct answers still pass."""

from __future__ import annotations

import torch

from torchcourse.grading.cases import generated_cases
from torchcourse.grading.checks import FAIL, PASS, REGISTRY, evaluate

COLUMN_MEANS = REGISTRY.get("05.1")  # "Column means of a table": its own cases are all contiguous
SOFTMAX = REGISTRY.get("05.8")


def test_the_exercise_used_here_has_only_contiguous_cases_of_its_own():
    tensors = [a for case in COLUMN_MEANS.cases() for a in case if isinstance(a, torch.Tensor)]
    assert tensors and all(t.is_contiguous() for t in tensors)


def test_an_answer_that_assumes_a_contiguous_input_fails_on_the_column_major_case():
    def flat_view(t):  # .view(-1) needs a contiguous input
        rows, cols = t.shape
        return t.view(-1).view(rows, cols).mean(dim=0)

    status, message = evaluate(COLUMN_MEANS, flat_view)
    assert status == FAIL
    assert "view size is not compatible" in message and "non-contiguous (column-major)" in message, message


def test_an_answer_that_breaks_on_one_row_or_none_fails_and_names_the_case():
    def squeezes(t):  # drops the row dimension when there is one row
        return t.squeeze().mean(dim=0) if t.shape[0] != 1 else t.squeeze()[0] * 0

    status, message = evaluate(COLUMN_MEANS, squeezes)
    assert status == FAIL and "a first dimension of size 1" in message, message

    def needs_rows(t):
        return t.mean(dim=0) if t.shape[0] else t.max(dim=0).values

    # 05.1's text never speaks of an empty table: an answer that fails only there is not wrong
    assert evaluate(COLUMN_MEANS, needs_rows)[0] == PASS
    # 16.8's own cases include an empty matrix, so its text covers one: the generated empty case runs
    keep_max = REGISTRY.get("16.8")

    def breaks_when_empty(x):
        if x.numel() == 0 and x.shape[0] == 0:
            return x.amax(dim=1, keepdim=True)  # raises on an empty dimension
        return torch.where(x == x.amax(dim=1, keepdim=True), x, torch.zeros_like(x))

    status, message = evaluate(keep_max, breaks_when_empty)
    assert status == FAIL and ("(0, 3)" in message or "size 0" in message), message


def test_correct_answers_written_differently_still_pass():
    assert evaluate(COLUMN_MEANS, lambda t: t.sum(dim=0) / t.shape[0])[0] == PASS
    assert evaluate(COLUMN_MEANS, lambda t: torch.mean(t.contiguous(), 0))[0] == PASS

    def softmax_by_hand(x, dim):
        shifted = torch.exp(x - torch.amax(x, dim=dim, keepdim=True))
        return shifted / torch.sum(shifted, dim=dim, keepdim=True)

    assert evaluate(SOFTMAX, softmax_by_hand)[0] == PASS


def test_variants_are_generated_only_where_they_change_something():
    no_tensor = REGISTRY.get("05.9")  # a fake clock, no tensors
    assert generated_cases(no_tensor, list(no_tensor.cases())) == []
    labels = [label for _, label in generated_cases(COLUMN_MEANS, sorted(COLUMN_MEANS.cases(), key=len))]
    assert labels == [  # no empty variant: 05.1's text and its own cases never ask for an empty table
        "the same values, non-contiguous (column-major)",
        "a first dimension of size 1",
    ]
    with_empty = REGISTRY.get("16.8")
    labels = [label for _, label in generated_cases(with_empty, sorted(with_empty.cases(), key=len))]
    assert "a first dimension of size 0" in labels
