"""The package's rooms (torchcourse/README.md): at most 12 modules at the top, no module over
400 lines, no import cycle, and imports that go one way between the rooms."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from torchcourse import ROOT

PACKAGE = ROOT / "torchcourse"
ROOMS = ("grading", "authoring", "bench")


def _name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(path: Path) -> set[str]:
    """The torchcourse modules ``path`` imports, at any depth of its code (lazy imports count)."""
    found: set[str] = set()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {  # `if TYPE_CHECKING:` imports are for annotations, never run
        id(n)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for stmt in block.body
        for n in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        found.update(n for n in names if n in MODULES)
    return found


GRAPH = {name: _imports(path) - {name} for name, path in MODULES.items()}


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ROOMS else "learner"


def test_at_most_twelve_modules_at_the_top():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= 12, f"{len(top)} modules at the top of torchcourse/: {top}"
    assert sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()) == sorted(ROOMS)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_module_over_400_lines(name):
    lines = len(MODULES[name].read_text(encoding="utf-8").splitlines())
    assert lines <= 400, f"{MODULES[name].relative_to(ROOT)} has {lines} lines: split it (torchcourse/README.md)"


def test_no_import_cycle():
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(GRAPH[node]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt) :] + [nxt] if nxt in path else [node, nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for name in sorted(GRAPH):
        if name not in state:
            visit(name, [name])


def test_imports_go_one_way_between_the_rooms():
    wrong = []
    for name, targets in GRAPH.items():
        for t in targets:
            src, dst = _room(name), _room(t)
            if dst == "authoring" and src != "authoring":
                wrong.append(f"{name} imports {t}: nothing outside authoring/ imports it")
            if src == "learner" and dst != "learner" and t != "torchcourse.grading.checks":
                wrong.append(f"{name} imports {t}: the learner's room imports only check and hint from grading")
    assert not wrong, "\n".join(sorted(wrong))


def test_the_drawing_names_every_module():
    drawing = (PACKAGE / "README.md").read_text(encoding="utf-8")
    missing = [
        p.relative_to(PACKAGE).as_posix()
        for p in sorted(PACKAGE.rglob("*.py"))
        if p.name != "__init__.py"
        and p.parent.name != "exercises"
        and p.parent.name != "workloads"
        and p.name != "__main__.py"
        and p.stem not in drawing
    ]
    assert not missing, f"torchcourse/README.md does not draw {missing}"


def _notebook_sources() -> list[Path]:
    return sorted(p for folder in ("notebooks", "exercises", "solutions") for p in (ROOT / folder).glob("*.py"))


def test_every_temporary_folder_a_notebook_makes_is_deleted_by_it():
    """A lesson that gives inductor a private cache (``tempfile.mkdtemp``) deletes it in a later cell:
    lessons 11, 12 and 14 left theirs (2-12 MB a run) in the learner's temporary folder for good."""
    import re

    made = re.compile(r"^(\w+) = (?:Path\()?tempfile\.mkdtemp\(", re.M)
    missing = []
    for path in _notebook_sources():
        text = path.read_text(encoding="utf-8")
        names = {m.group(1): m.end() for m in made.finditer(text)}
        if text.count("tempfile.mkdtemp(") != len(names):
            missing.append(f"{path.name}: a mkdtemp whose folder has no name to delete it by")
        for name, at in names.items():
            if not re.search(rf"shutil\.rmtree\({name}\b", text[at:]):
                missing.append(f"{path.name}: {name}")
    assert not missing, missing
