"""The preflight's verdict per part of the course, its exit codes, and its compiler probe run
with no compiler on PATH (the case where it used to say "ready")."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from torchcourse import compiletools, preflight
from torchcourse.authoring.course import MODULES
from torchcourse.compiletools import find_compiler, inductor_candidates

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _items(compiler_ok: bool = True, gloo_ok: bool = True, fatal: bool = False) -> list[preflight.Item]:
    return [
        preflight.Item("torch", not fatal, "2.13.0", "install torch", fatal=fatal),
        preflight.Item("CUDA", False, "no CUDA GPU found", "use a GPU machine"),
        preflight.Item("C++ compiler", compiler_ok, "g++" if compiler_ok else "none", need="compiler"),
        preflight.Item("compile (cpu)", compiler_ok, "ok", need="compiler"),
        preflight.Item("distributed", gloo_ok, "ok", need="gloo"),
    ]


def test_every_module_ready_exits_0():
    items = _items()
    assert preflight.verdict(items).startswith("Verdict: ready for every module (00-17)")
    assert "1 note(s)" in preflight.verdict(items)  # no GPU is a note, not a missing part
    assert preflight.exit_code(items) == preflight.EXIT_READY == 0


def test_no_compiler_names_the_modules_it_blocks_and_exits_2():
    items = _items(compiler_ok=False)
    line = preflight.verdict(items)
    assert "ready for 00-08, 15-16" in line
    assert "partly for 14" in line
    assert "not ready for 09-13, 17: no working C++ compiler" in line
    assert preflight.exit_code(items) == preflight.EXIT_PARTLY == 2


def test_the_verdict_follows_the_registered_needs():
    parts = preflight.readiness(_items(compiler_ok=False, gloo_ok=False))
    assert parts["not"] == [m.number for m in MODULES if m.needs]
    assert "15" in parts["not"] and "09" in parts["not"]
    assert parts["partly"] == [m.number for m in MODULES if m.partly and not m.needs]


def test_every_module_has_registered_needs():
    assert list(preflight.MODULE_NEEDS) == [m.number for m in MODULES]


def test_fatal_exits_1():
    items = _items(fatal=True)
    assert preflight.verdict(items).startswith("Verdict: not ready")
    assert preflight.exit_code(items) == preflight.EXIT_NOT_READY == 1


def test_exit_codes_are_distinct_and_documented():
    codes = {preflight.EXIT_READY, preflight.EXIT_PARTLY, preflight.EXIT_NOT_READY}
    assert len(codes) == 3
    for code in codes:
        assert f"({code})" in preflight.__doc__


def test_find_compiler_is_the_one_inductor_uses():
    """The course's cheap probe finds what inductor's own search finds."""
    from torch._inductor import cpp_builder

    found = find_compiler()
    try:
        expected = cpp_builder.get_cpp_compiler()
    except Exception:
        expected = None
    assert found == expected, (found, expected, inductor_candidates())


def no_compiler_env(tmp_path) -> dict:
    """PATH with no program on it at all (so no g++, c++, clang++) and CXX naming a missing file."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    return {**os.environ, "PATH": str(empty), "CXX": str(tmp_path / "no-such-c++"), "OMP_NUM_THREADS": "1"}


def test_preflight_without_a_compiler_says_which_modules_cannot_run(tmp_path):
    script = (
        "from torchcourse import preflight\n"
        "items = preflight.run(bandwidth=False, gloo_check=False)\n"
        "print(preflight.report(items))\n"
        "raise SystemExit(preflight.exit_code(items))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=no_compiler_env(tmp_path), capture_output=True, text=True
    )
    verdict = proc.stdout.strip().splitlines()[-1]
    assert proc.returncode == preflight.EXIT_PARTLY, proc.stdout + proc.stderr
    assert "not ready for 09-13, 17: no working C++ compiler" in verdict, verdict
    assert "! C++ compiler   none found" in proc.stdout


@pytest.mark.skipif(find_compiler() is None, reason="needs a C++ compiler")
def test_compile_probe_really_compiles():
    probe = compiletools.check_compile("cpu")
    assert probe["ok"], probe
    assert probe["compiler"] == find_compiler()
