"""Exercises 09.9, 09.10 and 10.7: answers unlike the worked ones, written from each exercise's
text, with the verdict each must get (three correct, three or more plausible wrong ones per exercise)."""

from __future__ import annotations

import pytest
import torch
import torch._inductor.config

from torchcourse.grading.checks import FAIL, PASS, REGISTRY, evaluate
from torchcourse.grading.exercises import m09_numerics, m10_serve

# --- 09.9: agree(actual, expected) within assert_close's default tolerance for the dtype ----------

_TABLE = {
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
    torch.float32: (1.3e-6, 1e-5),
    torch.float64: (1e-7, 1e-7),
}


def agree_allclose_table(actual, expected):
    rtol, atol = _TABLE[expected.dtype]
    return torch.allclose(actual, expected, rtol=rtol, atol=atol)


def agree_by_hand(actual, expected):
    rtol, atol = _TABLE[expected.dtype]
    a, e = actual.double(), expected.double()
    return bool(((a - e).abs() <= atol + rtol * e.abs()).all())


def agree_isclose_item(actual, expected):
    rtol, atol = _TABLE[expected.dtype]
    return torch.isclose(actual, expected, rtol=rtol, atol=atol).all().item()


def agree_machine_epsilon(actual, expected):  # wrong: eps is far tighter than the default rtol
    eps = torch.finfo(expected.dtype).eps
    return bool(((actual - expected).abs() <= eps * expected.abs()).all())


def agree_scaled_by_actual(actual, expected):  # wrong: assert_close scales rtol by |expected|
    rtol, atol = _TABLE[expected.dtype]
    return bool(((actual - expected).abs() <= atol + rtol * actual.abs()).all())


def agree_assert_close_returns(actual, expected):  # wrong: assert_close raises, it does not return False
    return torch.testing.assert_close(actual, expected) is None


def agree_isclose_tensor(actual, expected):  # wrong: a 0-d bool tensor, not a Python bool
    rtol, atol = _TABLE[expected.dtype]
    return torch.isclose(actual, expected, rtol=rtol, atol=atol).all()


# --- 09.10: compiled dropout equal to eager's under the same seed ----------------------------------


def dropout_options(x, p, seed):
    def drop(t):
        return torch.nn.functional.dropout(t, p, training=True)

    compiled = torch.compile(drop, options={"fallback_random": True})
    torch.manual_seed(seed)
    return compiled(x)


def dropout_set_and_restore(x, p, seed):
    layer = torch.nn.Dropout(p)

    def drop(t):
        return layer(t)

    before = torch._inductor.config.fallback_random
    torch._inductor.config.fallback_random = True
    try:
        torch.manual_seed(seed)
        return torch.compile(drop)(x)
    finally:
        torch._inductor.config.fallback_random = before


def dropout_decorated(x, p, seed):
    @torch._inductor.config.patch(fallback_random=True)
    def run():
        torch.manual_seed(seed)
        return torch.compile(lambda t: torch.nn.functional.dropout(t, p=p, training=True))(x)

    return run()


def dropout_clone(x, p, seed):  # a copy of the compiled result: the text forbids no copy
    def drop(t):
        return torch.nn.functional.dropout(t, p, training=True)

    with torch._inductor.config.patch(fallback_random=True):
        torch.manual_seed(seed)
        return torch.compile(drop)(x).clone()


def dropout_deterministic(x, p, seed):  # wrong: deterministic algorithms do not choose eager's generator
    def drop(t):
        return torch.nn.functional.dropout(t, p, training=True)

    before = torch.are_deterministic_algorithms_enabled()
    torch.use_deterministic_algorithms(True)
    try:
        torch.manual_seed(seed)
        return torch.compile(drop)(x)
    finally:
        torch.use_deterministic_algorithms(before)


def dropout_eager_backend(x, p, seed):  # wrong: same numbers, but not inductor
    def drop(t):
        return torch.nn.functional.dropout(t, p, training=True)

    torch.manual_seed(seed)
    return torch.compile(drop, backend="eager")(x)


def dropout_after_compiled(x, p, seed):  # wrong: inductor compiles t * 1, the dropout runs eagerly
    compiled = torch.compile(lambda t: t * 1)
    torch.manual_seed(seed)
    return torch.nn.functional.dropout(compiled(x), p, training=True)


def dropout_second_call(x, p, seed):  # wrong: the first (compiling) call drew a mask already
    def drop(t):
        return torch.nn.functional.dropout(t, p, training=True)

    with torch._inductor.config.patch(fallback_random=True):
        compiled = torch.compile(drop)
        torch.manual_seed(seed)
        compiled(x)
        return compiled(x)


# --- 10.7: serve(fn, batches) with exactly one graph, sizes 0 and 1 included ------------------------


def serve_unbacked_each(fn, batches):
    compiled = torch.compile(fn, backend="eager")
    out = []
    for batch in batches:
        torch._dynamo.decorators.mark_unbacked(batch, 0)
        out.append(compiled(batch))
    return out


def serve_unbacked_list(fn, batches):
    from torch._dynamo.testing import CompileCounter

    first, *rest = batches
    torch._dynamo.decorators.mark_unbacked(first, [0])
    compiled = torch.compile(fn, backend=CompileCounter())
    return [compiled(first)] + [compiled(b) for b in rest]


def serve_size_oblivious(fn, batches):
    import torch.fx.experimental._config as fx_config

    with fx_config.patch(backed_size_oblivious=True):
        compiled = torch.compile(fn, backend="eager", dynamic=True)
        return [compiled(b) for b in batches]


def serve_mark_dynamic_each(fn, batches):  # wrong: a dynamic size still specialises 0 and 1
    compiled = torch.compile(fn, backend="eager")
    out = []
    for batch in batches:
        torch._dynamo.mark_dynamic(batch, 0)
        out.append(compiled(batch))
    return out


def serve_maybe_dynamic(fn, batches):  # wrong: same 0/1 specialisation
    torch._dynamo.maybe_mark_dynamic(batches[0], 0)
    compiled = torch.compile(fn, backend="eager", dynamic=True)
    return [compiled(b) for b in batches]


def serve_automatic_unbacked(fn, batches):  # wrong: the first graph is still static
    with torch._dynamo.config.patch(automatic_dynamic_shapes_mark_as="unbacked"):
        compiled = torch.compile(fn, backend="eager")
        return [compiled(b) for b in batches]


TABLE = [
    ("09.9", agree_allclose_table, PASS, ""),
    ("09.9", agree_by_hand, PASS, ""),
    ("09.9", agree_isclose_item, PASS, ""),
    ("09.9", agree_machine_epsilon, FAIL, "expected True, got False"),
    ("09.9", agree_assert_close_returns, FAIL, "raised AssertionError"),
    ("09.9", agree_isclose_tensor, FAIL, "got tensor"),
    ("09.9", agree_scaled_by_actual, FAIL, "expected False, got True"),
    ("09.10", dropout_options, PASS, ""),
    ("09.10", dropout_set_and_restore, PASS, ""),
    ("09.10", dropout_decorated, PASS, ""),
    ("09.10", dropout_clone, PASS, ""),
    ("09.10", dropout_deterministic, FAIL, "differs from eager dropout"),
    ("09.10", dropout_eager_backend, FAIL, "inductor compiled nothing"),
    ("09.10", dropout_second_call, FAIL, "differs from eager dropout"),
    ("09.10", dropout_after_compiled, FAIL, "dropout ran outside the compiled function"),
    ("09.10", m09_numerics._dropout_compiled_then_eager, FAIL, "does not hold what the compiled code produced"),
    ("09.10", m09_numerics._dropout_eager_into_compiled, FAIL, "does not hold what the compiled code produced"),
    ("10.7", serve_unbacked_each, PASS, ""),
    ("10.7", serve_unbacked_list, PASS, ""),
    ("10.7", serve_size_oblivious, PASS, ""),
    ("10.7", serve_mark_dynamic_each, FAIL, "compiled 3 graphs"),
    ("10.7", serve_maybe_dynamic, FAIL, "compiled 3 graphs"),
    ("10.7", serve_automatic_unbacked, FAIL, "compiled 2 graphs"),
    ("10.7", m10_serve._serve_concatenated, FAIL, "call it once on each tensor"),
    ("10.7", m10_serve._serve_eager_small, FAIL, "fn ran uncompiled on batches of 1, 0 rows"),
    ("10.7", m10_serve._serve_reversed, FAIL, "in order"),
]


@pytest.mark.parametrize("exercise_id, answer, status, fragment", TABLE, ids=[f"{r[0]}-{r[1].__name__}" for r in TABLE])
def test_answer_gets_its_verdict(exercise_id, answer, status, fragment):
    if answer is serve_size_oblivious:
        import torch.fx.experimental._config as fx_config

        if not hasattr(fx_config, "backed_size_oblivious"):
            pytest.skip("this torch has no backed_size_oblivious option")
    got, message = evaluate(REGISTRY.get(exercise_id), answer)
    assert got == status, f"{exercise_id} {answer.__name__}: {got} {message}"
    assert fragment in message, f"{exercise_id} {answer.__name__}: {message}"
    assert torch._inductor.config.fallback_random is False  # no answer leaves it on for the next
