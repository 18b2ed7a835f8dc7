"""Module 17 "Compile once": read an ExportedProgram, export with a dynamic batch, make a branch
exportable, ship a compile cache, deploy with AOTInductor.

17.1-17.4 export only (no inductor). 17.5 compiles with inductor and grades the artefacts in a
fresh Python process with a new cache directory (no compiled code in it, only inductor's CPU probe
programs: ``grading/freshcache.py``); 17.6 runs AOTInductor and loads the package
the answer wrote. Cases, probes and wrong answers live in ``m17_cases`` (17.6: ``m17_deploy``).
"""

from __future__ import annotations

import torch

from torchcourse.grading.checks import Exercise
from torchcourse.grading.exercises import m17_cases as c
from torchcourse.grading.exercises import m17_deploy as d
from torchcourse.grading.exercises import m17_ship as s
from torchcourse.grading.exercises._solutions import solution

io_counts = solution("17", "io_counts")
batch_range = solution("17", "batch_range")
export_any_batch = solution("17", "export_any_batch")
leaky_or_flip_exportable = solution("17", "leaky_or_flip_exportable")
ship_cache = solution("17", "ship_cache")
deploy = solution("17", "deploy")


def _ship_cache_reference(fn, x):
    # The worked answer, isolated: dynamo would find fn already compiled by the learner's run
    # (no new compile, no artefacts), and the artefact manager keeps everything this process
    # compiled since the last save. Both start afresh, as in a new notebook.
    torch.compiler.reset()
    c.fresh_artefacts()
    return ship_cache(c.fresh(fn), x)


def _deploy_reference(program, directory):
    # The worked answer, built once per program in a process (see built_once)
    return d.built_once(deploy, program, directory)


EXERCISES = [
    Exercise(
        "17.1",
        "Count a program's inputs and outputs (warm-up)",
        io_counts,
        cases=c.io_cases,
        hints=[
            "program.graph_signature lists every graph input and output with its kind (PARAMETER, BUFFER, "
            "USER_INPUT, ... and USER_OUTPUT, BUFFER_MUTATION, ...).",
            "Keep only the user ones: graph_signature.user_inputs and graph_signature.user_outputs are their names.",
        ],
        wrong=[c.io_all_specs, c.io_placeholders, c.io_lifted_outputs],
        generated=False,
    ),
    Exercise(
        "17.2",
        "The batch sizes a program accepts",
        batch_range,
        cases=c.range_cases,
        hints=[
            "The first user input is a placeholder node of program.graph whose meta['val'] is a fake tensor: "
            "its shape[0] is an int for a static size, a torch.SymInt for a dynamic one.",
            "program.range_constraints maps a size's symbol (size.node.expr) to its range, with .lower and "
            ".upper; convert them with int().",
        ],
        rules=[c.NotRun()],
        wrong=[c.range_first_constraint, c.range_example_only, c.range_from_zero, c.range_after_a_run],
        generated=False,
    ),
    Exercise(
        "17.3",
        "Export for every batch size",
        export_any_batch,
        cases=c.batch_cases,
        property=c.any_batch_runs,
        hints=[
            "torch.export.export(model, (x,), dynamic_shapes=...) with dynamic_shapes={'x': {0: ...}}: the name "
            "of forward's argument, then the dimension that varies.",
            "torch.export.Dim('batch', min=1, max=4096) declares the range; leave dimension 1 out, so it stays static.",
        ],
        wrong=[c.export_static, c.export_all_dynamic, c.export_small_range, c.export_unbounded, c.export_module_only],
        generated=False,
        compiles=True,
    ),
    Exercise(
        "17.4",
        "Make a branch exportable",
        leaky_or_flip_exportable,
        cases=c.branch_cases,
        rules=[c.ExportsAndMatches()],
        hints=[
            "Both branches must be in the graph: the choice between them becomes an operation on tensors.",
            "torch.cond(predicate, true_fn, false_fn, (x,)) takes the predicate as a tensor; torch.where "
            "computes both sides and picks element by element.",
        ],
        wrong=[c.leaky_if, c.leaky_always, c.leaky_sum_sign, c.leaky_mean_at_least_zero],
        generated=False,
    ),
    Exercise(
        "17.5",
        "Ship a compile cache",
        _ship_cache_reference,
        cases=s.ship_cases,
        property=s.fresh_process_hits,
        hints=[
            "torch.compile(fn) compiles nothing until the compiled function is called: call it on x first.",
            "torch.compiler.save_cache_artifacts() returns a pair (bytes, CacheInfo), or None when nothing "
            "was compiled; return the bytes.",
        ],
        wrong=[s.ship_uncalled, s.ship_pair, s.ship_other_shape, s.ship_eager_backend],
        generated=False,
        needs_compiler=True,
        compiles=True,
    ),
    Exercise(
        "17.6",
        "Deploy with AOTInductor (stretch)",
        _deploy_reference,
        cases=d.deploy_cases,
        property=d.package_runs,
        hints=[
            "torch._inductor.aoti_compile_and_package(program, package_path=...) writes the .pt2 file and "
            "returns its path; give it a path inside directory.",
            "torch._inductor.aoti_load_package(path) returns the callable to return.",
        ],
        wrong=[d.deploy_module_only, d.deploy_compiled, d.deploy_elsewhere, d.deploy_wrapped_module],
        generated=False,
        needs_compiler=True,
        compiles=True,
    ),
]
