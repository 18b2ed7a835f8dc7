"""Module 17's checks accept other correct answers than the worked one, and reject answers that
break exactly one stated constraint (on top of the ``wrong`` answers tests/test_checks.py runs)."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim, export
from torch.export.graph_signature import InputKind, OutputKind

from torchcourse.grading.checks import FAIL, PASS, REGISTRY, evaluate

EX = {ex.id: ex for ex in REGISTRY.module_exercises("17")}


def io_by_kind(program):
    sig = program.graph_signature
    inputs = sum(s.kind == InputKind.USER_INPUT for s in sig.input_specs)
    return inputs, sum(s.kind == OutputKind.USER_OUTPUT for s in sig.output_specs)


def range_by_node(program):
    name = program.graph_signature.user_inputs[0]
    node = next(n for n in program.graph_module.graph.nodes if n.name == name)
    size = node.meta["val"].shape[0]
    if not isinstance(size, torch.SymInt):
        return int(size), int(size)
    vr = program.range_constraints[size.node._expr]
    return int(vr.lower), int(vr.upper)


def export_dim_dynamic(model, x):
    # a hint, not a Dim: export still keeps sizes 0 and 1 apart, the range becomes [2, 4096]
    return export(model, (x,), dynamic_shapes={"x": {0: Dim.DYNAMIC(min=1, max=4096)}})


def export_per_dim_tuple(model, x):
    return export(model, (x,), dynamic_shapes={"x": (Dim("batch", min=1, max=4096), None)})


def export_tuple_spec(model, x):
    return export(model, (x,), dynamic_shapes=({0: Dim("rows", min=1, max=4096)},))


def leaky_cond(x):
    return torch.cond(x.mean() > 0, lambda t: torch.where(t > 0, t, 0.1 * t), lambda t: -t, (x,))


def leaky_arith(x):
    positive = (x.mean() > 0).to(x.dtype)
    return positive * torch.where(x > 0, x, 0.1 * x) + (1 - positive) * -x


def leaky_only_in_graph(x):
    # right values, but a Python `if` on a tensor: export refuses (breaks only "export accepts it")
    return torch.where(x > 0, x, 0.1 * x) if bool(x.mean() > 0) else -x


def ship_mode(fn, x):
    compiled = torch.compile(fn, mode="default")
    compiled(x)
    result = torch.compiler.save_cache_artifacts()
    return bytes(result[0])


def range_sympy_bounds(program):  # wrong: sympy Integers, not the two Python ints the text asks for
    lower, upper = range_by_node(program)
    import sympy

    return sympy.Integer(lower), sympy.Integer(upper)


def range_after_a_run(program):  # wrong: "do not call it"
    program.module()(*program.example_inputs[0])
    return range_by_node(program)


def deploy_module_in_lambda(program, directory):  # wrong: the package is written, never loaded
    torch._inductor.aoti_compile_and_package(program, package_path=str(directory / "model.pt2"))
    module = program.module()
    return lambda *args: module(*args)


def deploy_named(program, directory):
    path = directory / "scorer_package.pt2"
    torch._inductor.aoti_compile_and_package(program, package_path=str(path))
    return torch._inductor.aoti_load_package(str(path))


TABLE = [
    ("17.1", io_by_kind, PASS, "", "counted by kind"),
    ("17.2", range_by_node, PASS, "", "graph_module's node and the symbol's _expr"),
    ("17.2", range_after_a_run, FAIL, "do not call it", "runs the program first"),
    ("17.2", range_sympy_bounds, FAIL, "expected the int", "sympy bounds"),
    ("17.3", export_dim_dynamic, FAIL, "[2, 4096]", "Dim.DYNAMIC with bounds: 0/1 specialised"),
    ("17.3", export_per_dim_tuple, PASS, "", "a tuple of dimensions"),
    ("17.3", export_tuple_spec, PASS, "", "dynamic_shapes as a tuple"),
    (
        "17.3",
        lambda m, x: export(m, (x,), dynamic_shapes={"x": {0: Dim("b", max=5000)}}),
        FAIL,
        "[1, 4096]",
        "too wide",
    ),
    ("17.4", leaky_cond, PASS, "", "torch.cond"),
    ("17.4", leaky_arith, PASS, "", "arithmetic blend"),
    ("17.4", leaky_only_in_graph, FAIL, "refused", "breaks only 'export accepts it'"),
    (
        "17.4",
        lambda x: torch.where(x.mean() >= 0, torch.where(x > 0, x, 0.1 * x), -x),
        FAIL,
        "",
        "mean exactly 0 takes the other branch",
    ),
]


@pytest.mark.parametrize(("ex_id", "answer", "status", "fragment", "why"), TABLE, ids=[f"{t[0]}-{t[4]}" for t in TABLE])
def test_answer(ex_id, answer, status, fragment, why):
    got, message = evaluate(EX[ex_id], answer)
    assert got == status and fragment in message, (why, message)


SLOW = [
    ("17.5", ship_mode, PASS, "", "mode='default', bytes() copy"),
    ("17.6", deploy_named, PASS, "", "another file name"),
    ("17.6", deploy_module_in_lambda, FAIL, "runs the program in Python", "program.module() in a lambda"),
]


@pytest.mark.parametrize(("ex_id", "answer", "status", "fragment", "why"), SLOW, ids=[f"{t[0]}-{t[4]}" for t in SLOW])
def test_slow_answer(ex_id, answer, status, fragment, why):
    got, message = evaluate(EX[ex_id], answer)
    assert got == status and fragment in message, (why, message)


def test_17_5_carries_every_global_setting_of_the_cache_key_to_its_fresh_process():
    """A learner who set the float32 matmul precision or the default dtype earlier in the kernel: the
    FX graph cache key holds both (FxGraphHashDetails), so a fresh process that did not take them
    missed every artefact of a right answer ("1 FX graph cache miss(es) and 0 hit(s)")."""
    ex = REGISTRY.get("17.5")
    precision, dtype = torch.get_float32_matmul_precision(), torch.get_default_dtype()
    fp32 = torch.backends.cuda.matmul.fp32_precision
    try:
        torch.set_float32_matmul_precision("high")
        torch.set_default_dtype(torch.float64)
        status, message = evaluate(ex, ex.reference)
    finally:
        torch.set_float32_matmul_precision(precision)
        torch.backends.cuda.matmul.fp32_precision = fp32
        torch.set_default_dtype(dtype)
    assert status == PASS, message


def test_a_package_dir_goes_with_its_last_reference():
    """17.6's case directories hold a package (about 1.5 MB) each: a check run twenty times, or a suite
    whose workers end without ``atexit``, must not leave them in the temporary folder."""
    import gc
    import os

    from torchcourse.grading.exercises.m17_deploy import new_package_dir

    d = new_package_dir()
    (d / "model.pt2").write_bytes(b"x" * 1000)
    path = str(d)
    assert os.path.isdir(path) and type(d / "a") is type(d)
    del d
    gc.collect()
    assert not os.path.exists(path)
