"""The course's own adversary: mutants of every reference answer, for ``test_mutation.py``.

Each mutant is the reference with one small, plausible mistake, the kind a learner makes:
an operator swapped, a constant or a dim off by one, a comparison loosened, an ``abs`` or a
sign dropped, a reduction or a sort order changed, a dtype narrowed, a step dropped, a
``clone`` left out, or the right answer computed in a Python loop hidden in ``map`` (only
where the exercise forbids loops). A check must reject each one, unless the mutant is
*equivalent on the cases*: it returns exactly the reference's values on every case of the
check and on a perturbed copy of each case (values negated, scaled and shifted, to break the
accidental equivalences of one data set), and its mistake is not one the exercise's rules
exist to catch (a missing copy where a copy is required, a loop where none is allowed).
"""

from __future__ import annotations

import ast
import copy
import functools
import inspect
import textwrap
import types
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import torch

from torchcourse.grading.checks import PASS, evaluate

# ---------------------------------------------------------------- mutation operators

_BINOP_SWAP = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Pow: ast.Mult,
    ast.MatMult: ast.Mult,
    ast.Mod: ast.FloorDiv,
}
_CMP_SWAP = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
}
# method or function names a learner confuses; "-" drops the call (x.abs() -> x)
_NAME_SWAP = {
    "sum": "mean",
    "mean": "sum",
    "max": "min",
    "min": "max",
    "amax": "amin",
    "amin": "amax",
    "argmax": "argmin",
    "argmin": "argmax",
    "float64": "float32",
    "double": "float",
    "int64": "int32",
    "long": "int",
    "cumsum": "cumprod",
    "triu": "tril",
    "tril": "triu",
    "T": "mT",
    "sqrt": "rsqrt",
    "exp": "expm1",
    "log": "log1p",
    "floor": "ceil",
    "ceil": "floor",
    "topk": "-",
    "abs": "-",
    "clone": "-",
    "contiguous": "-",
    "detach": "-",
    "neg": "-",
    "sort": "-",
    "flip": "-",
    "t": "-",
    "transpose": "-",
}
# calls whose removal a rule (not the values) must catch, by the rule that catches it: where the
# exercise has that rule, removing the call is never "equivalent"
_BEHAVIOURAL = {"clone": "Copy", "contiguous": "Copy", "detach": "Grad"}


@dataclass
class Mutant:
    label: str  # e.g. "line 3: + -> -"
    fn: Callable[..., Any]
    behavioural: bool = False  # values may be right; the exercise's rules must reject it


def _sites(tree: ast.AST) -> Iterator[tuple[ast.AST, str]]:
    """Every node a mutation applies to, with a short label of the change."""
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAP:
            yield node, f"{type(node.op).__name__} -> {_BINOP_SWAP[type(node.op)].__name__}"
        elif isinstance(node, ast.Compare) and type(node.ops[0]) in _CMP_SWAP:
            yield node, f"{type(node.ops[0]).__name__} -> {_CMP_SWAP[type(node.ops[0])].__name__}"
        elif isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
            yield node, f"constant {node.value!r} changed"
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.Not)):
            yield node, f"{type(node.op).__name__} dropped"
        elif isinstance(node, ast.Attribute) and node.attr in _NAME_SWAP:
            yield node, f".{node.attr} -> {_NAME_SWAP[node.attr]}"
        elif isinstance(node, ast.keyword) and node.arg in ("descending", "largest", "keepdim", "stable"):
            yield node, f"{node.arg} flipped"


def _apply(node: ast.AST) -> ast.AST | None:
    """The mutated replacement for ``node`` (None: leave it)."""
    if isinstance(node, ast.BinOp):
        return ast.BinOp(node.left, _BINOP_SWAP[type(node.op)](), node.right)
    if isinstance(node, ast.Compare):
        return ast.Compare(node.left, [_CMP_SWAP[type(node.ops[0])]()] + node.ops[1:], node.comparators)
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool):
            return ast.Constant(not v)
        if isinstance(v, int):
            return ast.Constant(v + 1)
        return ast.Constant(v * 2 if v else 1.0)
    if isinstance(node, ast.UnaryOp):
        return node.operand
    if isinstance(node, ast.keyword):
        return ast.keyword(node.arg, ast.UnaryOp(ast.Not(), node.value))
    if isinstance(node, ast.Attribute):
        new = _NAME_SWAP[node.attr]
        return None if new == "-" else ast.Attribute(node.value, new, node.ctx)
    return None


class _Replace(ast.NodeTransformer):
    """Replace one node (by identity); a dropped call ``x.f(...)`` becomes ``x``."""

    def __init__(self, target: ast.AST) -> None:
        self.target = target

    def visit_Call(self, node: ast.Call) -> ast.AST:
        f = node.func
        if f is self.target and isinstance(f, ast.Attribute) and _NAME_SWAP.get(f.attr) == "-":
            if isinstance(f.value, ast.Name) and f.value.id in ("torch", "np", "numpy"):
                return self.visit(node.args[0]) if node.args else node  # torch.abs(x) -> x
            return self.visit(f.value)
        return self.generic_visit(node)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        if node is self.target:
            new = _apply(node)
            if new is not None:
                return ast.copy_location(new, node)
        return super().generic_visit(node)


def _compile(tree: ast.Module, fn: types.FunctionType) -> Callable[..., Any] | None:
    ast.fix_missing_locations(tree)
    try:
        code = compile(tree, fn.__code__.co_filename, "exec")
    except (SyntaxError, ValueError, TypeError):
        return None
    namespace = dict(fn.__globals__)
    if fn.__closure__:  # free variables of a nested reference: give them their current values
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            namespace[name] = cell.cell_contents
    try:
        exec(code, namespace)  # noqa: S102 - the course's own reference, mutated
    except Exception:
        return None
    return namespace.get(fn.__name__)


def _source_tree(fn: Callable[..., Any]) -> tuple[types.FunctionType, ast.Module, int] | None:
    fn = inspect.unwrap(fn)
    if not isinstance(fn, types.FunctionType):
        return None
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    tree = ast.parse(textwrap.dedent("".join(lines)))
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef):
        return None
    tree.body[0].decorator_list = []
    return fn, tree, first


def mutants(reference: Callable[..., Any], rules: set[str]) -> list[Mutant]:
    """Every single-change mutant of ``reference`` that compiles, plus a dropped step per
    statement and, where a rule forbids loops, the right answer computed in a ``map`` loop.
    ``rules``: the class names of the exercise's rules (and "Copy" where it must return a copy)."""
    found = _source_tree(reference)
    if found is None:
        return []
    fn, tree, first = found
    out: list[Mutant] = []
    for i, (node, what) in enumerate(list(_sites(tree.body[0]))):
        if node is tree.body[0] or (isinstance(node, ast.Constant) and _is_docstring(tree, node)):
            continue
        new_tree = copy.deepcopy(tree)
        target = _nth_site(new_tree, i)
        new_tree = _Replace(target).visit(new_tree)
        mutated = _compile(new_tree, fn)
        if mutated is not None:
            line = first + getattr(node, "lineno", 1) - 1
            guard = _BEHAVIOURAL.get(node.attr) if isinstance(node, ast.Attribute) else None
            behavioural = guard is not None and any(guard in r for r in rules)
            out.append(Mutant(f"line {line}: {what}", mutated, behavioural))
    body = tree.body[0].body
    for j, stmt in enumerate(body):
        if isinstance(stmt, ast.Return) or (j == 0 and _is_docstring_stmt(stmt)):
            continue
        new_tree = copy.deepcopy(tree)
        new_tree.body[0].body[j] = ast.Pass()
        mutated = _compile(new_tree, fn)
        if mutated is not None:
            out.append(Mutant(f"line {first + stmt.lineno - 1}: step dropped", mutated))
    if any("Loop" in r for r in rules):
        out.append(Mutant("the answer computed in a loop hidden in map", _map_loop(fn), behavioural=True))
    return out


def _nth_site(tree: ast.Module, i: int) -> ast.AST:
    return list(_sites(tree.body[0]))[i][0]


def _is_docstring_stmt(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _is_docstring(tree: ast.Module, node: ast.AST) -> bool:
    body = tree.body[0].body
    return bool(body) and _is_docstring_stmt(body[0]) and body[0].value is node


def _map_loop(reference: Callable[..., Any]) -> Callable[..., Any]:
    """The reference's answer, plus a Python loop over the first tensor argument's elements
    that dispatches one op per element (what a learner's ``map`` does): right values, a loop."""

    @functools.wraps(reference)
    def looped(*args, **kwargs):
        first = next((a for a in args if isinstance(a, torch.Tensor)), None)
        if first is not None and first.dim() > 0:
            list(map(lambda row: row.sum(), first.detach()))  # noqa: C417 - the point is the map
        return reference(*args, **kwargs)

    return looped


# ---------------------------------------------------------------- equivalence on the cases


def _perturbed(value: Any) -> Any:
    if isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel():
        with torch.no_grad():
            out = (value.detach() * -1.7 + 0.3).requires_grad_(value.requires_grad)
        return out
    if isinstance(value, tuple):
        return tuple(_perturbed(v) for v in value)
    if isinstance(value, list):
        return [_perturbed(v) for v in value]
    return copy.deepcopy(value)


def _rounding_apart(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Floating results a few units in the last place apart: the same computation in another
    order (LAPACK on a differently laid out right-hand side), not a different answer."""
    if not (a.is_floating_point() and b.is_floating_point()):
        return False
    eps = torch.finfo(b.dtype).eps
    a, b = a.detach().cpu().double(), b.detach().cpu().double()
    scale = max(float(b.abs().max()), 1.0)
    return bool(((a - b).abs() <= 8 * eps * scale).all())


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return (
            a.shape == b.shape
            and a.dtype == b.dtype
            and (a.numel() == 0 or bool(torch.equal(a.detach().cpu(), b.detach().cpu())) or _rounding_apart(a, b))
        )
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    try:
        return bool(a == b)
    except Exception:
        return False


def equivalent_on_cases(ex: Any, mutant: Callable[..., Any]) -> bool:
    """True when ``mutant`` returns exactly the reference's values on every case of ``ex`` and
    on a perturbed copy of each (where the reference accepts the perturbed copy)."""
    try:
        cases = list(ex.cases())
    except Exception:
        return False
    tried = 0
    for args in cases + [_perturbed(c) for c in cases]:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = ex.reference(*copy.deepcopy(args))
        except Exception:
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                got = mutant(*copy.deepcopy(args))
        except Exception:
            return False
        if not _same(got, expected):
            return False
        tried += 1
    return tried > 0


def verdict(ex: Any, mutant: Mutant) -> str:
    """ "killed", "equivalent" or "survived"."""
    status, _ = evaluate(ex, mutant.fn)
    if status != PASS:
        return "killed"
    if not mutant.behavioural and equivalent_on_cases(ex, mutant.fn):
        return "equivalent"
    return "survived"
