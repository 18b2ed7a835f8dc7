"""Without a C++ compiler the compile lessons go on: torch.compile falls back to
``backend="aot_eager"`` (graph capture, guards, recompiles and breaks as usual) and says so in
one line; a cell that reads generated code says in one line that it needs the compiler. With a
compiler nothing changes, so the stored outputs stay as they are."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import torch

from torchcourse import compiletools

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = """
import torch
from torchcourse.preflight import check_torch
from torchcourse import compiletools

check_torch()  # what every notebook's setup cell calls
print("active:", compiletools.fallback_active())
counter = compiletools.compile_counter()
f = torch.compile(lambda x: (x * 2).sin().sum())
print("first:", torch.allclose(f(torch.arange(4.0)), torch.arange(4.0).mul(2).sin().sum()))
print("again:", torch.allclose(f(torch.arange(5.0)), torch.arange(5.0).mul(2).sin().sum()))
g = torch.compile(lambda x: x + 1, mode="max-autotune")
print("mode:", g(torch.ones(2)).tolist())
with compiletools.captured_logs(output_code=True) as logs:
    torch.compile(lambda x: x.cos() + 1)(torch.ones(3))
try:
    logs.require(r"cpp_fused", "the generated kernels")
except compiletools.NeedsCompiler as exc:
    print("needs:", exc)
import subprocess, sys
child = "import torch, torchcourse; print('child:', torch.compile(lambda x: x + 1)(torch.ones(1)).item())"
print(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True).stdout.strip())
"""


def test_compile_falls_back_to_aot_eager_without_a_compiler(tmp_path):
    empty = tmp_path / "empty-path"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty), "CXX": str(tmp_path / "no-such-c++"), "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert lines[0] == "active: True"
    assert lines.count(compiletools.NO_COMPILER_LINE) == 1, "the line is said once, at the first compiled call"
    assert lines.index(compiletools.NO_COMPILER_LINE) == 1, "said at the first compiled call, not before"
    assert "first: True" in lines and "again: True" in lines and "mode: [2.0, 2.0]" in lines
    needs = [line for line in lines if line.startswith("needs:")]
    assert len(needs) == 1 and "needs a C++ compiler" in needs[0]
    assert "child: 2.0" in lines, "a process the notebook starts falls back too, quietly"
    assert "InvalidCxxCompiler" not in proc.stdout + proc.stderr


@pytest.mark.skipif(compiletools.find_compiler() is None, reason="needs a C++ compiler")
def test_with_a_compiler_nothing_changes():
    original = torch._TorchCompileInductorWrapper.__call__
    assert compiletools.fall_back_without_compiler() is False
    assert not compiletools.fallback_active()
    assert torch._TorchCompileInductorWrapper.__call__ is original


def test_the_probe_follows_inductors_search(monkeypatch):
    monkeypatch.setenv("CXX", "/no/such/compiler")
    if sys.platform != "win32" and "torch._inductor.config" not in sys.modules:
        assert compiletools.inductor_candidates() == ["/no/such/compiler"]
    monkeypatch.setattr(compiletools, "inductor_candidates", lambda: ["/no/such/compiler"])
    assert compiletools.find_compiler() is None
