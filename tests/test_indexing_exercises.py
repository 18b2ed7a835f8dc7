"""Module 16's puzzles: each check rejects a correct answer written with a Python loop (naming the
loop rule), rejects an answer that breaks only another stated constraint (in place, a view, a
copy), and accepts correct answers written differently from the reference."""

from __future__ import annotations

import pytest
import torch

from torchcourse.grading.checks import FAIL, PASS, REGISTRY, evaluate

LOOP = "no Python loop"

# ---------------------------------------------------------------- answers that loop (right values)


def clip_loop(t):
    for idx in (t < 0).nonzero():
        t[tuple(idx)] = 0
    return t


def rows_loop(x):
    keep = [i for i in range(len(x)) if bool((x[i] >= 0).all())]
    return x[torch.tensor(keep, dtype=torch.int64)].reshape(len(keep), x.shape[1])


def even_rows_loop(x):
    out = x[::2]
    for _ in range(0):
        pass
    return out


def even_rows_counting_loop(x):
    n = 0
    for _ in x:  # counts the rows one by one: work that grows with the input
        n += 1
    return x[:n:2]


def anti_loop(m):
    n = m.shape[0]
    out = torch.empty(n, dtype=m.dtype)
    for k in range(n):
        out[k] = m[k, n - 1 - k]
    return out


def pick_loop(scores, idx):
    out = torch.empty(len(idx), dtype=scores.dtype)
    for i in range(len(idx)):
        out[i] = scores[i, idx[i]]
    return out


def best_key_loop(keys, values):
    out = torch.empty(len(keys), dtype=values.dtype)
    i = 0
    while i < len(keys):
        out[i] = values[i, keys[i].argmax()]
        i += 1
    return out


def one_hot_loop(labels, n):
    out = torch.zeros(len(labels), n)
    for i, c in enumerate(labels.tolist()):
        out[i, c] = 1.0
    return out


def keep_max_loop(x):
    out = torch.zeros_like(x)
    for i in range(len(x)):
        top = x[i].max()
        out[i] = torch.where(x[i] == top, x[i], 0)
    return out


def coords_loop(x):
    found = [[i, j] for i in range(x.shape[0]) for j in range(x.shape[1]) if x[i, j] > 0]
    return torch.tensor(found, dtype=torch.int64).reshape(-1, 2)


def histogram_loop(values, n):
    counts = torch.zeros(n, dtype=torch.int64)
    for v in values.tolist():
        counts[v] += 1
    return counts


def segment_loop(x, seg, n):
    out = torch.zeros(n, x.shape[1], dtype=x.dtype)
    for i in range(len(seg)):
        out[seg[i]] += x[i]
    return out


def inverse_loop(p):
    q = torch.empty_like(p)
    for i, v in enumerate(p.tolist()):
        q[v] = i
    return q


def fill_lower_loop(m, value):
    for i in range(m.shape[0]):
        m[i, : min(i, m.shape[1])] = value
    return m


# ---------------------------------------------------------------- correct alternatives


def clip_masked_fill(t):
    return t.masked_fill_(t < 0, 0)


def clip_clamp(t):
    t.clamp_(min=0)
    return t


def rows_index_select(x):
    return x.index_select(0, (x >= 0).all(dim=1).nonzero().flatten())


def rows_min(x):
    return x[x.amin(dim=1) >= 0] if x.shape[1] else x


def anti_flip(m):
    return m.flip(1).diagonal()


def anti_take(m):
    n = m.shape[0]
    k = torch.arange(n)
    return m.reshape(-1)[k * n + (n - 1 - k)] if m.is_contiguous() else m.contiguous().view(-1)[k * n + n - 1 - k]


def anti_as_strided_view(m):  # the right numbers, as a view: breaks only "a copy"
    n = m.shape[0]
    if n == 0:
        return m.diagonal()
    return m.as_strided((n,), (m.stride(0) - m.stride(1),), m.storage_offset() + (n - 1) * m.stride(1))


def pick_pairs(scores, idx):
    return scores[torch.arange(len(idx)), idx]


def pick_take_along(scores, idx):
    return torch.take_along_dim(scores, idx[:, None], dim=1)[:, 0]


def best_key_pairs(keys, values):
    return values[torch.arange(len(keys)), keys.max(dim=1).indices]


def best_key_mask(keys, values):
    hit = torch.zeros_like(keys, dtype=torch.bool).scatter_(1, keys.argmax(1, keepdim=True), True)
    return values[hit]


def one_hot_eye(labels, n):
    return torch.eye(n)[labels]


def one_hot_compare(labels, n):
    return (labels[:, None] == torch.arange(n)).float()


def keep_max_masked_fill(x):
    return x.masked_fill(x < x.max(dim=1, keepdim=True).values, 0)


def keep_max_multiply(x):
    return x * (x == x.amax(1, keepdim=True))


def coords_where(x):
    rows, cols = torch.where(x > 0)
    return torch.stack([rows, cols], dim=1)


def coords_argwhere(x):
    return torch.argwhere(x.gt(0))


def histogram_bincount(values, n):
    return torch.bincount(values, minlength=n)


def histogram_compare(values, n):
    return (values[:, None] == torch.arange(n)).sum(dim=0)


def histogram_accumulate(values, n):
    return torch.zeros(n, dtype=torch.int64).index_put_((values,), torch.ones_like(values), accumulate=True)


def segment_scatter_add(x, seg, n):
    return torch.zeros(n, x.shape[1], dtype=x.dtype).scatter_add_(0, seg[:, None].expand(-1, x.shape[1]), x)


def segment_matmul(x, seg, n):
    return (torch.arange(n)[:, None] == seg).to(x.dtype) @ x


def inverse_setitem(p):
    q = torch.empty_like(p)
    q[p] = torch.arange(len(p))
    return q


def inverse_argsort(p):
    return p.argsort()


def fill_lower_indices(m, value):
    r, c = torch.tril_indices(m.shape[0], m.shape[1], offset=-1)
    m[r, c] = value
    return m


def fill_lower_broadcast(m, value):
    return m.masked_fill_(torch.arange(m.shape[0])[:, None] > torch.arange(m.shape[1]), value)


def fill_lower_out_of_place(m, value):  # right values in a new tensor: breaks only "in place"
    return torch.where(torch.ones(m.shape, dtype=torch.bool).tril(-1), torch.tensor(value, dtype=m.dtype), m)


def fill_lower_no_return(m, value):  # in place, but returns nothing
    m[torch.ones(m.shape, dtype=torch.bool).tril(-1)] = value


# (exercise, answer, ✓ or ✗, a fragment the message must hold, what the row shows)
TABLE = [
    ("16.1", clip_loop, FAIL, LOOP, "a loop over nonzero()"),
    ("16.1", clip_masked_fill, PASS, "", "masked_fill_"),
    ("16.1", clip_clamp, PASS, "", "clamp_"),
    ("16.1", lambda t: t.clamp(min=0), FAIL, "in place", "breaks only 'in place'"),
    ("16.1", lambda t: t.clamp_(min=0).clone(), FAIL, "returned a new tensor", "returns a copy"),
    ("16.2", rows_loop, FAIL, LOOP, "a comprehension"),
    ("16.2", rows_index_select, PASS, "", "index_select of nonzero"),
    ("16.2", rows_min, PASS, "", "row minimum"),
    ("16.3", even_rows_loop, PASS, "", "a loop that never runs: graded by behaviour, not spelling"),
    ("16.3", even_rows_counting_loop, FAIL, LOOP, "rows counted in a loop, then a view"),
    ("16.3", lambda x: x.unfold(0, 1, 2).squeeze(-1) if len(x) else x, PASS, "", "unfold"),
    ("16.3", lambda x: torch.narrow(x, 0, 0, len(x))[0::2], PASS, "", "narrow, then step"),
    ("16.3", lambda x: x[torch.arange(0, len(x), 2)], FAIL, "is a copy", "breaks only 'a view'"),
    ("16.4", anti_loop, FAIL, LOOP, "a for loop"),
    ("16.4", anti_flip, PASS, "", "flip then diagonal"),
    ("16.4", anti_take, PASS, "", "flat indices"),
    ("16.4", anti_as_strided_view, FAIL, "shares memory", "breaks only 'a copy'"),
    ("16.5", pick_loop, FAIL, LOOP, "a for loop"),
    ("16.5", pick_pairs, PASS, "", "row and column index tensors"),
    ("16.5", pick_take_along, PASS, "", "take_along_dim"),
    ("16.6", best_key_loop, FAIL, LOOP, "a while loop"),
    ("16.6", best_key_pairs, PASS, "", "max().indices and index pairs"),
    ("16.6", best_key_mask, PASS, "", "a one-per-row mask"),
    ("16.7", one_hot_loop, FAIL, LOOP, "a for loop"),
    ("16.7", one_hot_eye, PASS, "", "rows of the identity"),
    ("16.7", one_hot_compare, PASS, "", "broadcast comparison"),
    ("16.8", keep_max_loop, FAIL, LOOP, "a for loop"),
    ("16.8", keep_max_masked_fill, PASS, "", "masked_fill"),
    ("16.8", keep_max_multiply, FAIL, "", "multiply by the mask: -inf * 0 is nan where others must be 0"),
    ("16.8", lambda x: x.where(x == x.amax(1, keepdim=True), 0), PASS, "", "Tensor.where with a scalar"),
    ("16.9", coords_loop, FAIL, LOOP, "a comprehension"),
    ("16.9", coords_where, PASS, "", "torch.where, stacked"),
    ("16.9", coords_argwhere, PASS, "", "argwhere"),
    ("16.10", histogram_loop, FAIL, LOOP, "a for loop"),
    ("16.10", histogram_bincount, PASS, "", "bincount"),
    ("16.10", histogram_compare, PASS, "", "broadcast comparison"),
    ("16.10", histogram_accumulate, PASS, "", "index_put_ with accumulate"),
    ("16.11", segment_loop, FAIL, LOOP, "a for loop"),
    ("16.11", segment_scatter_add, PASS, "", "scatter_add_"),
    ("16.11", segment_matmul, PASS, "", "a one-hot matrix product"),
    ("16.12", inverse_loop, FAIL, LOOP, "a for loop"),
    ("16.12", inverse_setitem, PASS, "", "q[p] = arange"),
    ("16.12", inverse_argsort, PASS, "", "argsort"),
    ("16.13", fill_lower_loop, FAIL, LOOP, "a for loop"),
    ("16.13", fill_lower_indices, PASS, "", "tril_indices"),
    ("16.13", fill_lower_broadcast, PASS, "", "broadcast comparison"),
    ("16.13", fill_lower_out_of_place, FAIL, "in place", "breaks only 'in place'"),
    ("16.13", fill_lower_no_return, FAIL, "return value is wrong", "returns None"),
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


def test_every_exercise_has_a_loop_answer_rejected_and_two_alternatives_accepted():
    ids = [ex.id for ex in REGISTRY.module_exercises("16")]
    assert len(ids) >= 12
    for ex_id in ids:
        rows = [row for row in TABLE if row[0] == ex_id]
        assert any(row[2] == FAIL and row[3] == LOOP for row in rows), ex_id
        assert sum(row[2] == PASS for row in rows) >= 2, ex_id


def test_the_reference_passes_the_check_that_its_loop_rule_reads():
    # the loop rule grows the inputs: the references do constant work at every size
    for ex in REGISTRY.module_exercises("16"):
        assert evaluate(ex, ex.reference)[0] == PASS, ex.id
