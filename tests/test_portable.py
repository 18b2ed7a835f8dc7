"""Nothing a learner runs needs a module or an os/signal name that one supported OS lacks, unless
it is guarded. Windows and macOS cannot be run on the course's machine, so this holds it
statically: an AST walk over every lesson, exercise and solution source, every module of
`torchcourse` they import (followed transitively), and every script written out as a string
inside them (lesson 17's worker, which runs in its own process).

Guarded means: inside a `try` whose handler catches ImportError or AttributeError (or any
Exception), under an `if` that tests `sys.platform`, `os.name`, `platform.system()` or
`hasattr(...)`, or in a function that tests `hasattr(os, ...)` / the platform before it goes on.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from torchcourse.authoring.course import ROOT

# Modules of the standard library that a supported OS lacks.
NOT_ON_WINDOWS = {
    "resource",
    "fcntl",
    "pwd",
    "grp",
    "termios",
    "tty",
    "pty",
    "posix",
    "crypt",
    "spwd",
    "syslog",
    "readline",
    "curses",
    "nis",
    "ossaudiodev",
    "posixpath_",
    "_posixsubprocess",
    "_posixshmem",
}
NOT_ON_UNIX = {"msvcrt", "winreg", "_winapi", "winsound", "nt", "_overlapped", "winerror"}
NOT_ON_MACOS = {"ossaudiodev", "spwd"}
PLATFORM_MODULES = NOT_ON_WINDOWS | NOT_ON_UNIX | NOT_ON_MACOS
# Names of os and signal that Windows (W) or macOS (M) lacks.
PLATFORM_NAMES = {
    "os": {
        "killpg",
        "fork",
        "forkpty",
        "getuid",
        "geteuid",
        "getgid",
        "getegid",
        "setsid",
        "setpgrp",
        "getpgid",
        "getpgrp",
        "sched_getaffinity",
        "sched_setaffinity",
        "sched_param",
        "nice",
        "getloadavg",
        "sync",
        "mkfifo",
        "chown",
        "lchown",
        "uname",
        "wait3",
        "wait4",
        "WNOHANG",
        "getpwuid",
        "pipe2",
        "memfd_create",
        "posix_fadvise",
        "sysconf",
    },
    "signal": {
        "SIGKILL",
        "SIGALRM",
        "SIGHUP",
        "SIGQUIT",
        "SIGUSR1",
        "SIGUSR2",
        "SIGCHLD",
        "SIGSTOP",
        "SIGCONT",
        "alarm",
        "setitimer",
        "pause",
        "pthread_kill",
        "pthread_sigmask",
        "siginterrupt",
    },
}
GUARD_EXCEPTIONS = {"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"}
PLATFORM_TESTS = ("sys.platform", "os.name", "platform.system", "hasattr(")
# Uses the walk cannot see are guarded, each with the reason (file, name): reason.
WAIVED = {
    ("torchcourse/grading/timelimit.py", "signal.SIGALRM"): "TimeLimit arms only where supported() "
    "(hasattr(signal, 'setitimer')); __exit__ and the handler act only once armed",
    ("torchcourse/grading/timelimit.py", "signal.setitimer"): "the same",
}


def learner_sources() -> list[Path]:
    return sorted(p for folder in ("notebooks", "solutions", "exercises") for p in (ROOT / folder).glob("*.py"))


def _module_file(name: str) -> Path | None:
    base = ROOT / Path(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.exists():
            return candidate
    return None


def _imported_course_modules(tree: ast.AST, here: Path) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this file's package
                package = (
                    here.relative_to(ROOT).with_suffix("").parts[: -node.level if here.name != "__init__.py" else None]
                )
                if here.name == "__init__.py":
                    package = here.parent.relative_to(ROOT).parts[
                        : len(here.parent.relative_to(ROOT).parts) - node.level + 1
                    ]
                base = ".".join(package) + (f".{node.module}" if node.module else "")
            else:
                base = node.module or ""
            names.add(base)
            names |= {f"{base}.{a.name}" for a in node.names}
    found = set()
    for name in names:
        if not name.startswith("torchcourse"):
            continue
        parts = name.split(".")
        for i in range(1, len(parts) + 1):  # the package's __init__ runs too
            found.add(".".join(parts[:i]))
    return found


def learner_files() -> list[Path]:
    """Every lesson, exercise and solution source, and every torchcourse module they import (the
    exercise definitions, which `check` loads by name, included)."""
    todo = list(learner_sources()) + sorted((ROOT / "torchcourse" / "grading" / "exercises").glob("*.py"))
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name in _imported_course_modules(tree, path):
            f = _module_file(name)
            if f is not None and f not in seen:
                todo.append(f)
    return sorted(seen)


def embedded_scripts(tree: ast.AST) -> list[ast.Module]:
    """String constants that are Python programs with imports (a worker script written to disk)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "import " in node.value:
            try:
                sub = ast.parse(node.value)
            except SyntaxError:
                continue
            if any(isinstance(n, ast.Import | ast.ImportFrom) for n in ast.walk(sub)):
                out.append(sub)
    return out


def _parents(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _catches(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(ast.unparse(t).split(".")[-1] in GUARD_EXCEPTIONS for t in types)


def _tests_platform(test: ast.AST, guards: set[str]) -> bool:
    text = ast.unparse(test)
    return any(t in text for t in PLATFORM_TESTS) or any(f"{g}(" in text for g in guards)


def _guard_functions(tree: ast.AST) -> set[str]:
    """Functions of the file that return a platform test (``def supported(): return hasattr(...)``)."""
    return {
        f.name
        for f in ast.walk(tree)
        if isinstance(f, ast.FunctionDef)
        and any(
            isinstance(r, ast.Return) and r.value is not None and _tests_platform(r.value, set()) for r in ast.walk(f)
        )
    }


def _guarded(node: ast.AST, parents: dict, guards: set[str] = frozenset()) -> bool:
    child, cur = node, parents.get(node)
    while cur is not None:
        if isinstance(cur, ast.Try) and child in cur.body and any(_catches(h) for h in cur.handlers):
            return True
        if isinstance(cur, ast.If | ast.IfExp | ast.While) and _tests_platform(cur.test, guards):
            return True
        if isinstance(cur, ast.FunctionDef | ast.AsyncFunctionDef):
            # an early `if not hasattr(os, ...): return` (or a platform test) before the use
            if any(isinstance(s, ast.If) and _tests_platform(s.test, guards) for s in cur.body):
                return True
        child, cur = cur, parents.get(cur)
    return False


def unguarded(tree: ast.AST, waived: set[str] = frozenset()) -> list[str]:
    parents, problems, guards = _parents(tree), [], _guard_functions(tree)
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module.split(".")[0]]
            if node.module in PLATFORM_NAMES:
                names += [f"{node.module}.{a.name}" for a in node.names if a.name in PLATFORM_NAMES[node.module]]
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.attr in PLATFORM_NAMES.get(node.value.id, ())
        ):
            names = [f"{node.value.id}.{node.attr}"]
        for name in names:
            if (name in PLATFORM_MODULES or "." in name) and name not in waived and not _guarded(node, parents, guards):
                problems.append(f"line {node.lineno}: {name}")
    return problems


FILES = learner_files()


def test_the_walk_reaches_the_course_package():
    rel = {p.relative_to(ROOT).as_posix() for p in FILES}
    assert "torchcourse/__init__.py" in rel and "torchcourse/timing.py" in rel and "torchcourse/distributed.py" in rel
    assert "notebooks/17_compile_once.py" in rel and "torchcourse/grading/exercises/m03.py" in rel
    assert {f for f, _ in WAIVED} <= rel, "a waiver for a file the walk no longer reaches"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_unguarded_platform_only_import(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    rel = path.relative_to(ROOT).as_posix()
    problems = unguarded(tree, {name for (f, name) in WAIVED if f == rel})
    for script in embedded_scripts(tree):
        problems += [f"(a script in a string) {p}" for p in unguarded(script)]
    assert not problems, f"{path.relative_to(ROOT)}: needs a guard on Windows or macOS: {problems}"


def test_the_walk_finds_what_it_must():
    bad = ast.parse("import resource\nimport os\nos.killpg(1, 9)\n")
    assert unguarded(bad) == ["line 1: resource", "line 3: os.killpg"]
    good = ast.parse(
        "try:\n    import fcntl\nexcept ImportError:\n    fcntl = None\n"
        "import os\nif hasattr(os, 'killpg'):\n    os.killpg(1, 2)\n"
        "def f():\n    if not hasattr(os, 'sched_setaffinity'):\n        return None\n"
        "    return os.sched_getaffinity(0)\n"
    )
    assert unguarded(good) == []
    worker = ast.parse('W = """\nimport json, resource\n"""\n')
    assert [unguarded(s) for s in embedded_scripts(worker)] == [["line 2: resource"]]


def test_the_other_pythons_layer_runs_every_answer_through_its_check():
    """Issue 35: the layer run on each other supported Python holds the facts, the module tests and
    every reference and wrong answer through its check (the repeat test, one round each). A stop once
    dropped the repeat test from it to save time, and with it every check's verdict on 3.12 and 3.13
    (module 17's check failed every right answer there once)."""
    import glob
    import importlib.util

    spec = importlib.util.spec_from_file_location("other_pythons", ROOT / "scripts" / "other_pythons.py")
    layer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(layer)
    files = {Path(p).name for pattern in layer.FAST_LAYER for p in glob.glob(str(ROOT / pattern))}
    for needed in ("test_facts", "test_checks", "test_check_leaks", "test_check_repeat", "test_module17"):
        needed += ".py"
        assert needed in files, f"{needed} is not in the other Pythons' fast layer"
    source = Path(layer.__file__).read_text()
    assert 'TORCHCOURSE_CHECK_ROUNDS="1"' in source, "the layer runs each answer once, not zero or twelve times"
