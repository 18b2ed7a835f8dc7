"""Module 10's exercise 10.7 (one graph for every batch): the cases, the rule that sees which batches
the compiled code ran on, and the wrong answers (declared in ``m10``).

Every case's ``fn`` passes its input through ``_through``, which tells the two ways ``fn`` can run:
called eagerly (not compiling), it notes the batch's rows in ``_EAGER``; traced by dynamo, it puts
a custom operator in the graph, whose real implementation notes the rows of every batch the
compiled code runs on in ``_RAN``. Neither changes a value."""

from __future__ import annotations

import torch

from torchcourse.grading.exercises._solutions import solution
from torchcourse.grading.exercises.m10_rules import _fresh
from torchcourse.grading.rules import Case, Rule

serve = solution("10", "serve")

_RAN: list[int] = []  # rows of each batch the compiled code ran on, in order
_EAGER: list[int] = []  # rows of each batch fn itself ran on, uncompiled
_OP: dict[str, object] = {}


def _probe_op():
    """The custom operator ``torchcourse_probe::ran`` (registered once per process)."""
    if "ran" not in _OP:

        @torch.library.custom_op("torchcourse_probe::ran", mutates_args=())
        def ran(x: torch.Tensor) -> torch.Tensor:
            _RAN.append(x.shape[0])
            return x.clone()

        @ran.register_fake
        def _(x):
            return torch.empty_like(x)

        _OP["ran"] = ran
    return _OP["ran"]


def _through(x):
    if not torch.compiler.is_compiling():  # dynamo reads this as True and never traces the branch
        _EAGER.append(x.shape[0])
        return x
    ran = _OP["ran"]  # the registered probe op
    return ran(x)


def _serve_probe(x):
    return (_through(x) * 2).sum(dim=1)


def _serve_softmax(x):
    x = _through(x)
    return torch.softmax(x, dim=1) + x.mean(dim=1, keepdim=True)


def _serve_centred(x):
    # not row by row: each row minus the batch's mean row, so one call on several batches differs
    x = _through(x)
    return x - x.mean(dim=0)


def _serve_cases():
    from torchcourse.grading.exercises._inputs import randn

    _probe_op()

    def batches(sizes, features, seed):
        return [randn(n, features, seed=seed + k) for k, n in enumerate(sizes)]

    return [
        (_fresh(_serve_probe), batches((5, 1, 0, 7, 1, 3), 4, 1070)),
        (_fresh(_serve_softmax), batches((2, 9, 0, 1), 3, 1080)),
        (_fresh(_serve_probe), batches((1, 6, 0), 2, 1090)),  # the first batch holds one row
        (_fresh(_serve_centred), batches((4, 1, 0, 6, 2), 3, 1100)),
    ]


def _batch_sizes(args):
    _, batches = args
    return "batches of " + ", ".join(str(b.shape[0]) for b in batches) + " rows"


class RanCompiled(Rule):
    """ "Call the compiled function on each tensor of the list, in order", judged by behaviour: the
    answer runs again from a fresh dynamo state while ``_through`` notes the batches the compiled
    code ran on and those fn ran on uncompiled."""

    name = "compiled on every batch"

    def judge(self, case: Case) -> str | None:
        fn, batches = case.fresh()
        if not isinstance(batches, list) or not all(isinstance(b, torch.Tensor) for b in batches):
            return None
        torch.compiler.reset()
        _RAN.clear()
        _EAGER.clear()
        try:
            case.fn(fn, batches)
        except Exception:  # noqa: BLE001 - the first run already reported the answer's own errors
            return None
        finally:
            torch.compiler.reset()
        sizes = [b.shape[0] for b in batches]
        if _EAGER:
            return (
                f"fn ran uncompiled on batches of {_rows(_EAGER)} rows; call the compiled function on every "
                "batch, 0 and 1 rows included"
            )
        if _RAN != sizes:
            return (
                f"the compiled function ran on batches of {_rows(_RAN)} rows; call it once on each tensor of the "
                f"list, in order ({_rows(sizes)} rows)"
            )
        return None


def _rows(sizes) -> str:
    return ", ".join(map(str, sizes)) if sizes else "no"


def _serve_mark_dynamic(fn, batches):
    torch._dynamo.mark_dynamic(batches[0], 0)
    compiled = torch.compile(fn, backend="eager")
    return [compiled(b) for b in batches]


def _serve_dynamic_true(fn, batches):
    compiled = torch.compile(fn, backend="eager", dynamic=True)
    return [compiled(b) for b in batches]


def _serve_default(fn, batches):
    compiled = torch.compile(fn, backend="eager")
    return [compiled(b) for b in batches]


def _serve_eager(fn, batches):
    return [fn(b) for b in batches]


def _serve_concatenated(fn, batches):  # one call on all rows: right only for a row-by-row fn
    compiled = torch.compile(fn, backend="eager")
    return list(torch.split(compiled(torch.cat(batches)), [len(b) for b in batches]))


def _serve_eager_small(fn, batches):  # 0 and 1 rows skip the compiled function
    compiled = torch.compile(fn, backend="eager")
    out = []
    for b in batches:
        if b.shape[0] < 2:
            out.append(fn(b))
        else:
            torch._dynamo.mark_dynamic(b, 0)
            out.append(compiled(b))
    return out


def _serve_reversed(fn, batches):  # one graph, right values, but the batches in reverse order
    compiled = torch.compile(fn, backend="eager")
    torch._dynamo.decorators.mark_unbacked(batches[-1], 0)
    return [compiled(b) for b in reversed(batches)][::-1]
