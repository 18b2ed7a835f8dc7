"""Why the course's torch.compile kernels for GA fitness 1 trail Numba's on an AVX2 CPU: a reproducer.

Run from the repository root (about 40 s, most of it compiling; CPU use: one core)::

    .peers/venv/bin/python docs/benchmarks/gaps_reproduce.py          # the table
    .peers/venv/bin/python docs/benchmarks/gaps_reproduce.py --asm    # and each hot loop's instructions

At one thread (torch and Numba) it compiles, for the gene sum of module 13 (rows of 1,000 int8 genes):

* inductor's kernel of the course's ``sum_best`` (``ga._sum_words``: int64 words, 16-bit lanes) and of the
  plain ``population.sum(dim=1, dtype=torch.int32)`` (``ga.sum_torch``);
* the same two C++ kernels with one change each, an experiment on inductor's side, not a course rewrite:
  their full-width vector loads written as plain loads (``loadu(p)``, or ``loadu_one_fourth(p)``, the fast
  path ATen's AVX-512 code takes for 16 int8 lanes) instead of ``loadu(p, count)``, which on AVX2 copies the
  lanes through a stack buffer;
* ``_sum_words`` compiled with ``torch._inductor.config.cpp.simdlen = 1``: inductor writes scalar C++ and
  leaves vectorising to the C++ compiler (a config switch the course could set without touching the kernel);
* Numba's kernels from ``torchcourse.bench.peers``: the rewrite ``_sum_words``, the loops ``_sum_loop``
  (int64 sums) and ``_sum_loop32`` (int32 sums).

For each it disassembles the innermost hot loop (``objdump -d`` of inductor's .so in a temporary
TORCHINDUCTOR_CACHE_DIR; Numba's ``inspect_asm()``), counts its instructions, the genes one iteration
consumes (from how far its pointer moves), the stack accesses among them, the widest vector register it
uses, and times the kernel on 20,000 x 1,000 genes (20 MB; minimum of a few calls). The instruction counts
are the robust part; the times depend on the machine and its load. Inductor's generated .cpp and .so files
are left in the temporary folder, whose path is printed at the end.
"""

from __future__ import annotations

import os
import sys
import tempfile

# Before torch and numba are imported: one thread, and inductor's files in a folder of our own.
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["NUMBA_NUM_THREADS"] = "1"
os.environ["TORCHINDUCTOR_CACHE_DIR"] = CACHE = tempfile.mkdtemp(prefix="gaps_inductor_")
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

import argparse  # noqa: E402
import pathlib  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch._inductor import config as inductor_config  # noqa: E402
from torch._inductor.codecache import CppPythonBindingsCodeCache  # noqa: E402
from torch._inductor.utils import run_and_get_code  # noqa: E402

from torchcourse.bench import peers  # noqa: E402
from torchcourse.bench.workloads import ga  # noqa: E402

ROWS = 20_000  # x ga.GENES (1,000) int8 genes: 20 MB
REPEATS = 7


# ----------------------------------------------------------------- reading loops out of assembly


@dataclass
class Insn:
    label: str  # the address (objdump) or the labels before it (LLVM's assembly), to find jump targets
    op: str
    args: str


def objdump_insns(so: pathlib.Path, symbol: str = "kernel") -> list[Insn]:
    """The instructions of ``symbol`` (and its ``.cold`` parts are left out) in a shared object."""
    text = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(so)], capture_output=True, text=True).stdout
    block = next(b for b in text.split("\n\n") if re.match(rf"[0-9a-f]+ <{symbol}>:", b))
    rows = (re.match(r"\s+([0-9a-f]+):\s+(\S+)\s*(.*)", line) for line in block.splitlines()[1:])
    return [Insn(m[1], m[2], re.sub(r"\s+#.*", "", m[3])) for m in rows if m]


def llvm_insns(asm: str) -> list[Insn]:
    """The instructions of LLVM's textual assembly (Numba's ``inspect_asm``), labels kept."""
    insns, labels = [], []
    for line in asm.splitlines():
        line = line.split("#")[0].rstrip()
        if m := re.match(r"^(\.?\w+):", line):
            labels.append(m[1])
        elif line.startswith("\t") and not line.strip().startswith("."):
            op, _, args = line.strip().partition("\t")
            insns.append(Insn(" ".join(labels), op, args.strip()))
            labels = []
    return insns


def _target(insn: Insn) -> str | None:
    if not insn.op.startswith("j"):
        return None
    m = re.match(r"([0-9a-f]+) <", insn.args) or re.match(r"(\.?\w+)$", insn.args)
    return m[1] if m else None


def loops(insns: list[Insn]) -> list[list[Insn]]:
    """The innermost loops nested in another loop (a loop over a row, inside the loop over rows). A loop:
    a jump back to an earlier instruction; innermost: no other jump back inside it. (Loops over the
    outputs after the reduction sit in no outer loop and are left out.)"""
    where = {label: i for i, insn in enumerate(insns) for label in insn.label.split()}
    back = [(where[t], j) for j, insn in enumerate(insns) if (t := _target(insn)) in where and where[t] < j]
    inner = [(a, b) for a, b in back if not any(a <= c and d <= b and (c, d) != (a, b) for c, d in back)]
    return [insns[a : b + 1] for a, b in inner if any(c < a and b < d for c, d in back)]


_MEM = re.compile(r"(-?(?:0x)?[0-9a-f]*)\((%\w+)?(?:,(%\w+)(?:,(\d))?)?\)")


def census(loop: list[Insn], function: list[Insn]) -> dict[str, int]:
    """Instructions in one iteration of ``loop``; bytes (int8 genes) it reads from the row (memory reads
    through a register the loop moves by a constant, times the index's scale); its stack accesses (through
    %rsp, %rbp, or a register the function points into its frame with ``lea -0x50(%rbp),%rbx`` and the loop
    does not move); and the widest vector register it names."""
    steps: dict[str, int] = {}  # register -> how far one iteration moves it
    for insn in loop:
        m = re.match(r"\$(-?(?:0x)?[0-9a-f]+),\s*(%\w+)$", insn.args)
        if insn.op.startswith("add") and m:
            steps[m[2]] = steps.get(m[2], 0) + int(m[1], 0)
        elif insn.op.startswith("inc"):
            steps[insn.args] = steps.get(insn.args, 0) + 1
    frame = {"%rsp", "%rbp"}
    for insn in function:
        if insn.op.startswith("lea") and (m := re.match(r"-?\w*\((%r[sb]p)\),\s*(%\w+)$", insn.args)):
            frame.add(m[2])
    frame -= set(steps)
    moved = stack = 0
    for insn in loop:
        operands = re.split(r",\s*(?![^()]*\))", insn.args)  # AT&T: sources first, the destination last
        for k, operand in enumerate(operands):
            for _disp, base, index, scale in _MEM.findall(operand):
                if base in frame:
                    stack += 1
                elif k < len(operands) - 1 or len(operands) == 1:  # a read (cmp/test aside, close enough)
                    if index in steps:
                        moved = max(moved, steps[index] * int(scale or 1))
                    elif base in steps:
                        moved = max(moved, steps[base])
    text = " ".join(insn.args for insn in loop)
    width = 256 if "ymm" in text else 128 if "xmm" in text else 64
    return {"insns": len(loop), "genes": moved, "stack": stack, "width": width}


def hot_loop(function: list[Insn]) -> list[Insn]:
    """Of :func:`loops`, the one that reads the most genes an iteration (then: the most vector instructions)."""
    vector = lambda loop: sum("mm" in insn.args for insn in loop)  # noqa: E731
    return max(loops(function), key=lambda loop: (census(loop, function)["genes"], vector(loop)))


# ----------------------------------------------------------------- inductor's kernels


def inductor_kernel(fn, *args) -> tuple[list[str], str, pathlib.Path]:
    """Compile ``fn`` with torch.compile; return the argument types and C++ source of its one C++ kernel,
    and the .so inductor built from it (found in our cache folder by its source)."""
    _, (code, *_) = run_and_get_code(torch.compile(fn), *args)
    types, source = re.search(r"cpp_pybinding\((\[.*?\]), r'''\n(.*?)'''\)", code, re.DOTALL).groups()
    strip = lambda text: "\n".join(line.strip() for line in text.splitlines())  # noqa: E731
    body = strip(source[source.index('extern "C"') :])
    so = next(p.with_suffix(".so") for p in pathlib.Path(CACHE).rglob("*.main.cpp") if body in strip(p.read_text()))
    return eval(types), source, so  # types: a list literal of C type names, written by inductor


def patched_kernel(types: list[str], source: str, pattern: str, replacement: str):
    """Build ``source`` with its loads rewritten (``re.sub``); return the callable and its .so."""
    new, n = re.subn(pattern, replacement, source)
    assert n, f"no load matched {pattern!r}"
    fn = CppPythonBindingsCodeCache.load_pybinding(types, new)
    so = next(p.with_suffix(".so") for p in pathlib.Path(CACHE).rglob("*.main.cpp") if new in p.read_text())
    return fn, so


# ----------------------------------------------------------------- the run


def best_ms(call) -> float:
    call()
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return 1e3 * min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asm", action="store_true", help="print each hot loop's instructions")
    parser.add_argument("--rows", type=int, default=ROWS, help=f"chromosomes of 1,000 genes (default {ROWS:,})")
    args = parser.parse_args()
    show_asm, rows_n = args.asm, args.rows

    torch.set_num_threads(1)
    numba.set_num_threads(1)
    pop = ga.gene_population(rows_n)
    pop_np = pop.numpy()
    out = torch.empty(rows_n, dtype=torch.int32)
    out_np = np.empty(rows_n, np.int32)
    expected = pop.sum(dim=1, dtype=torch.int32)

    rows = []  # (name, instructions of the function, its hot loop, ms)

    def add(name: str, insns: list[Insn], call, result) -> None:
        ms = best_ms(call)
        assert torch.equal(torch.as_tensor(result()).to(torch.int32), expected), name
        rows.append((name, insns, hot_loop(insns), ms))

    # torch.compile: the course's sum_best (its kernel is ga._sum_words) and the plain int32 sum.
    words = pop.view(torch.int64)
    t_words, src_words, so_words = inductor_kernel(ga._sum_words, pop, out)
    add("torch sum_best (int64 words)", objdump_insns(so_words), lambda: ga.sum_best(pop, out), lambda: out)
    t_sum, src_sum, so_sum = inductor_kernel(ga.sum_torch, pop)
    compiled_sum = torch.compile(ga.sum_torch)
    add("torch sum(dtype=int32)", objdump_insns(so_sum), lambda: compiled_sum(pop), lambda: compiled_sum(pop))

    # The same C++ with its full-width loads made plain loads (inductor-side experiment).
    fn, so = patched_kernel(
        t_words,
        src_words,
        r"(VectorizedN<int64_t,2>)::loadu\((.+?), static_cast<int64_t>\(8\)\)",
        r"\1::loadu(\2)",
    )
    scratch = torch.empty(rows_n, dtype=torch.int64)
    add("  same C++, loadu(p) for loadu(p, 8)", objdump_insns(so), lambda: fn(words, scratch, out), lambda: out)
    fn32, so = patched_kernel(
        t_sum,
        src_sum,
        r"Vectorized<int8_t>::loadu\((.+?), static_cast<int64_t>\(8\)\)",
        r"Vectorized<int8_t>::loadu_one_fourth(\1)",
    )
    add("  same C++, loadu_one_fourth(p)", objdump_insns(so), lambda: fn32(pop, out), lambda: out)

    # A switch on the course's side: scalar C++ from inductor, vectorised (or not) by the C++ compiler.
    def sum_words_scalar(p, o):  # a new code object, so that Dynamo compiles it afresh under the patch
        ga._sum_words(p, o)

    with inductor_config.patch({"cpp.simdlen": 1}):
        _, _, so = inductor_kernel(sum_words_scalar, pop, out)
        scalar = torch.compile(sum_words_scalar)
        scalar(pop, out)
    add("torch sum_best, cpp.simdlen=1", objdump_insns(so), lambda: scalar(pop, out), lambda: out)

    # Numba: the course's rewrite and the loops as written (parallel=True, one thread).
    nb = peers.numba_kernels()
    for name, call in {
        "numba _sum_words (int64 words)": lambda: nb["sum_words"](pop_np, out_np),
        "numba _sum_loop (int64 sums)": lambda: nb["sum_loop"](pop_np),
        "numba _sum_loop32 (int32 sums)": lambda: nb["sum_loop32"](pop_np),
    }.items():
        call()
        key = name.split()[1].lstrip("_")
        asm = "\n".join(nb[key].inspect_asm().values())
        add(name, llvm_insns(asm), call, call)

    print(
        f"torch {torch.__version__}, numba {numba.__version__}, 1 thread; {rows_n:,} x {ga.GENES:,} int8 genes; "
        f"min of {REPEATS} calls; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )
    head = f"{'kernel':38s} {'insns/iter':>10s} {'genes/iter':>10s} {'insns/gene':>10s} "
    print(head + f"{'stack/iter':>10s} {'vector':>7s} {'ms':>7s}")
    for name, insns, loop, ms in rows:
        c = census(loop, insns)
        per_gene = c["insns"] / c["genes"] if c["genes"] else float("nan")
        print(
            f"{name:38s} {c['insns']:10d} {c['genes']:10d} {per_gene:10.2f} "
            f"{c['stack']:10d} {c['width']:5d}-b {ms:7.2f}"
        )
    if show_asm:
        for name, _, loop, _ in rows:
            print(f"\n--- {name}: hot loop")
            for insn in loop:
                print(f"    {insn.op:12s} {insn.args}")
    print(f"inductor's C++ and .so files: {CACHE}")


if __name__ == "__main__":
    main()
