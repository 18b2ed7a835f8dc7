"""Module 17's exercise 17.6 (deploy with AOTInductor): the case, the probe that grades the package
the answer wrote and the callable it returned, and the wrong answers (declared in ``m17``)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import torch
from torch.export import Dim, export

from torchcourse.grading.calls import aten_ops
from torchcourse.grading.exercises.m17_cases import Scorer, _x


def built_once(build, program, directory):
    """``build(program, directory)`` once per program in a process (an AOTInductor build takes tens of
    seconds); later calls copy that package into the directory given and load the copy."""
    import hashlib
    import shutil

    key = hashlib.sha256(program.graph_module.code.encode())
    for name, value in sorted(program.state_dict.items()):
        key.update(name.encode() + value.detach().numpy().tobytes())
    cached = _PACKAGES.get(key.hexdigest())
    if cached is None or not Path(cached).exists():
        result = build(program, directory)
        (made,) = Path(directory).glob("*.pt2")
        keep = Path(_temporary("torchcourse-17-6-reference-")) / made.name
        shutil.copy(made, keep)
        _PACKAGES[key.hexdigest()] = str(keep)
        return result
    copy = Path(directory) / Path(cached).name
    shutil.copy(cached, copy)
    return torch._inductor.aoti_load_package(str(copy))


_PACKAGES: dict[str, str] = {}  # a program's code and weights -> a package built for it


# --- 17.6 ------------------------------------------------------------------------------------
class PackageDir(type(Path())):
    """A new, empty temporary directory; every copy of it (one per run of a check) is another one,
    so the reference's package can never stand in for the answer's.

    Made with :func:`new_package_dir`. It overrides neither ``__new__`` nor ``__init__``: Python 3.12
    and later build ``directory / "name"`` as ``type(self)(self, "name")`` (``with_segments``), which a
    constructor that takes no segments breaks (3.11 never calls it)."""

    def __deepcopy__(self, memo):
        return new_package_dir()


def new_package_dir() -> PackageDir:
    """A fresh directory, removed with the last reference to it (when the check is done with its
    case) or, failing that, when the process ends: a learner may run the check many times, and a
    test worker that ends without running ``atexit`` (pytest-xdist's) left one package, about
    1.5 MB, per run in /tmp."""
    import shutil
    import weakref

    made = PackageDir(tempfile.mkdtemp(prefix="torchcourse-17-6-"))
    weakref.finalize(made, shutil.rmtree, str(made), True)
    return made


_MADE: list[str] = []  # the reference's packages, kept for the process's later checks, removed when it ends


def _temporary(prefix: str) -> str:
    """A new temporary directory that goes when the kernel or process ends (a package is about
    1.5 MB, and a learner may run the check many times)."""
    made = tempfile.mkdtemp(prefix=prefix)
    if not _MADE:
        import atexit
        import shutil

        atexit.register(lambda: [shutil.rmtree(d, ignore_errors=True) for d in _MADE])
    _MADE.append(made)
    return made


def deploy_cases():
    program = export(Scorer(), (_x(8, 100, 18),), dynamic_shapes={"x": {0: Dim("batch", min=1, max=1024)}})
    return [(program, new_package_dir())]


def package_runs(args, got):
    from torch._dynamo.utils import counters

    program, directory = args
    packages = sorted(Path(directory).rglob("*.pt2"))
    if not packages:
        return f"no .pt2 file in {directory}: write the package inside the directory given"
    if not callable(got):
        return f"your function returned {type(got).__name__}; return the callable aoti_load_package gives"
    if isinstance(got, torch.nn.Module):
        return "your function returned a module that runs in Python; return the callable loaded from the package"
    loaded = torch._inductor.aoti_load_package(str(packages[-1]))
    before = counters["stats"]["unique_graphs"]
    for b in (1, 5, 64):
        xb = torch.linspace(-2, 2, b * 100).reshape(b, 100)
        expected = program.module()(xb)
        for name, run in (("the package in the directory", loaded), ("your callable", got)):
            try:
                out = run(xb)
            except Exception:  # noqa: BLE001 - reported as a refusal
                return f"{name} refused a batch of {b}"
            if not torch.allclose(out, expected, atol=1e-6):
                return f"{name} gives other values than the program for a batch of {b}"
    if counters["stats"]["unique_graphs"] != before:
        return "calling your callable compiled graphs with dynamo: return the package loaded with aoti_load_package"
    ran = _python_ops(got, torch.linspace(-2, 2, 300).reshape(3, 100))
    if ran:
        return (
            f"your callable runs the program in Python ({ran} aten operations dispatched one by one, e.g. "
            "program.module() inside a function); return the callable loaded from the package, which runs "
            "compiled code"
        )
    return None


def _python_ops(run, x) -> int:
    """The aten operations dispatched while ``run(x)`` runs: a program run by Python (its module, an
    interpreter) dispatches each one; a package loaded with aoti_load_package runs compiled code and
    dispatches none."""
    return aten_ops(run, (x,))


def deploy_module_only(program, directory):
    return program.module()


def deploy_compiled(program, directory):
    torch._inductor.aoti_compile_and_package(program, package_path=str(directory / "model.pt2"))
    return torch.compile(lambda x: program.module()(x))


def deploy_wrapped_module(program, directory):
    torch._inductor.aoti_compile_and_package(program, package_path=str(directory / "model.pt2"))
    module = program.module()  # the package is written but never loaded
    return lambda *args: module(*args)


def deploy_elsewhere(program, directory):
    path = torch._inductor.aoti_compile_and_package(program, package_path=tempfile.mktemp(suffix=".pt2"))
    return torch._inductor.aoti_load_package(path)
