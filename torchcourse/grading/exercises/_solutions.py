"""One source per answer: the reference a check compares against is the worked answer in
``solutions/NN_slug.py``, the one the learner reads, not a second copy of it.

:func:`solution` reads that file and runs only its definitions (imports, functions, classes
and plain constants: no demo cell, no ``check(...)`` call, no setup cell), compiled with
the solution file's name, so ``inspect.getsource`` and tracebacks point at the solutions
notebook. The exercise definitions in ``torchcourse/grading/exercises/mNN.py`` take their
references from here::

    pairwise_sq_dists = solution("05", "pairwise_sq_dists")
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path
from typing import Any

SOLUTIONS = Path(__file__).resolve().parents[3] / "solutions"


def _is_constant(node: ast.AST) -> bool:
    """An assignment whose value is a literal (numbers, strings, tuples, dicts of them)."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
        return False
    try:
        ast.literal_eval(node.value)
    except ValueError:
        return False
    return True


def _kept(node: ast.stmt) -> bool:
    return isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)) or _is_constant(node)


@functools.cache
def definitions(module: str) -> dict[str, Any]:
    """The namespace of ``solutions/<module>_*.py``'s definitions, run once per process."""
    found = sorted(SOLUTIONS.glob(f"{module}_*.py"))
    if len(found) != 1:
        raise FileNotFoundError(
            f"the checks of module {module} take their references from {SOLUTIONS}/{module}_*.py, "
            f"found {len(found)} such file(s): torchcourse runs from a checkout of the course"
        )
    (path,) = found
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    tree.body = [node for node in tree.body if _kept(node)]
    namespace: dict[str, Any] = {
        "__name__": f"torchcourse.grading.exercises._solutions.m{module}",
        "__file__": str(path),
    }
    exec(compile(tree, str(path), "exec"), namespace)  # noqa: S102 - the course's own solutions
    return namespace


def solution(module: str, name: str) -> Any:
    """The function (or class) ``name`` as defined in the solutions notebook of ``module``."""
    namespace = definitions(module)
    if name not in namespace:
        raise LookupError(f"solutions/{module}_*.py defines no {name!r}")
    return namespace[name]
