"""Why the course's torch.compile kernels trail Numba's on an AVX2 CPU: a reproducer, one workload at a time.

Run from the repository root (CPU use: one core)::

    .peers/venv/bin/python docs/benchmarks/gaps_reproduce.py                      # GA fitness 1 (about 40 s)
    .peers/venv/bin/python docs/benchmarks/gaps_reproduce.py --workload kmeans    # K-Means assignment
    .peers/venv/bin/python docs/benchmarks/gaps_reproduce.py --workload fitness2  # GA fitness 2
    .peers/venv/bin/python docs/benchmarks/gaps_reproduce.py --workload callpath  # the compiled call, its kernel
    ... --asm                                                                     # and each hot loop's instructions

``--workload fitness1`` (the default). At one thread (torch and Numba) it compiles, for the gene sum of
module 13 (rows of 1,000 int8 genes):

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

``--workload kmeans`` and ``--workload fitness2`` (one loop over the points, no loop around it) compile the
course's kernel (``kmeans.assign_best``: float32 columns, 2 means, int8 labels; ``ga.fitness2_best``: float64
columns; timed through the course's own compiled kernel, as the functions call it), the benchmark's probe
(``torchcourse.bench.probes``: the same loads and stores, no arithmetic), inductor's own C++ for the course's
kernel rebuilt as it is and with one change per hypothesis, all called directly (the C++ is patched, the
course's code is not), course-side rewrites of the kernel written here (the course's kernels are left as they
are), and Numba's rewrite (``_kmeans_cols2``, ``_fitness2_cols``). For each: the hot loop's instructions by
kind, its memory operands by kind (the columns it streams, counting a second read of the same address;
loop-invariant reloads; stack spills), and interleaved timings on the benchmark's sizes (10,000,000 points
for K-Means, 4,000,000 for fitness 2, read from memory): every variant called once per round, the order
rotated each round, minimum and median of the rounds. A one-second check compiles a few lines of AVX
intrinsics with inductor's compiler and floating-point flags, to show what GCC makes of ``_mm256_blendv_*``
on a compare mask and of ``x * w + 0.0``.
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
import collections  # noqa: E402
import pathlib  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import numba  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch._inductor import config as inductor_config  # noqa: E402
from torch._inductor.codecache import CppPythonBindingsCodeCache  # noqa: E402
from torch._inductor.utils import run_and_get_code  # noqa: E402

from torchcourse.bench import peers, probes  # noqa: E402
from torchcourse.bench.workloads import ga, kmeans  # noqa: E402

ROWS = 20_000  # x ga.GENES (1,000) int8 genes: 20 MB
REPEATS = 7
ROUNDS = 15  # kmeans, fitness2: interleaved rounds


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


def fitness1(args) -> None:
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


# ----------------------------------------------------------------- K-Means and fitness 2: one loop over the points


def all_loops(insns: list[Insn]) -> list[tuple[int, int]]:
    """Every loop (a jump back to an earlier instruction), as (first, last) indices."""
    where = {label: i for i, insn in enumerate(insns) for label in insn.label.split()}
    return [(where[t], j) for j, insn in enumerate(insns) if (t := _target(insn)) in where and where[t] < j]


def _steps(loop: list[Insn]) -> set[str]:
    """The registers an iteration of ``loop`` moves by a constant (``add $n``, ``sub $n``, ``inc``)."""
    steps = {insn.args for insn in loop if insn.op.startswith("inc")}
    for insn in loop:
        if insn.op.startswith(("add", "sub")) and (m := re.match(r"\$(-?(?:0x)?[0-9a-f]+),\s*(%\w+)$", insn.args)):
            steps.add(m[2])
    return steps


def _frame(function: list[Insn], steps: set[str]) -> set[str]:
    """%rsp, %rbp, and the registers the function points into its frame (``lea -0x50(%rbp),%rbx``) and
    never sets otherwise (inductor's prologue points %r10 at the caller's frame, then may reuse it)."""
    frame = {"%rsp", "%rbp"}
    for insn in function:
        if insn.op.startswith("lea") and (m := re.match(r"-?\w*\((%r[sb]p)\),\s*(%\w+)$", insn.args)):
            frame.add(m[2])
    written = {
        insn.args.rsplit(",", 1)[-1].strip()
        for insn in function
        if insn.op.startswith(("mov", "xor")) and "(" not in insn.args.rsplit(",", 1)[-1]
    }
    return frame - (written - {"%rsp", "%rbp"}) - steps


def _operands(insn: Insn) -> list[tuple[bool, str, str, str]]:
    """(is a write, the whole memory operand, base, index) for each memory operand of ``insn``."""
    if insn.op.startswith(("lea", "nop")):
        return []
    operands = re.split(r",\s*(?![^()]*\))", insn.args)  # AT&T: sources first, the destination last
    last = len(operands) - 1
    found = []
    for k, operand in enumerate(operands):
        if m := _MEM.search(operand):
            write = k == last and last > 0 and not insn.op.startswith(("cmp", "test", "vucomis", "ucomis"))
            found.append((write, m[0], m[2], m[3]))
    return found


def bytes_moved(loop: list[Insn], function: list[Insn]) -> int:
    """How far an iteration of ``loop`` moves the pointers it reads through (the largest step times scale)."""
    steps = {}
    for insn in loop:
        if insn.op.startswith("inc"):
            steps[insn.args] = steps.get(insn.args, 0) + 1
        elif insn.op.startswith("add") and (m := re.match(r"\$(-?(?:0x)?[0-9a-f]+),\s*(%\w+)$", insn.args)):
            steps[m[2]] = steps.get(m[2], 0) + int(m[1], 0)
    frame = _frame(function, set(steps))
    moved = 0
    for insn in loop:
        for write, operand, base, index in _operands(insn):
            if write or base in frame:
                continue
            scale = int(m[1]) if (m := re.search(r",(\d)\)$", operand)) else 1
            if index in steps:
                moved = max(moved, steps[index] * scale)
            elif base in steps:
                moved = max(moved, steps[base])
    return moved


def flat_hot_loop(function: list[Insn]) -> tuple[list[Insn], int]:
    """The loop over the points of a kernel with no loop around it: of the loops that read the inputs
    through pointers they move (and call nothing), the one that reads the most bytes an iteration,
    preferring innermost loops; also how many loops lie inside it (0 unless none of the innermost loops
    reads the inputs, as where the loop goes lane by lane through a stack buffer)."""
    spans = [(a, b) for a, b in all_loops(function) if not any(i.op.startswith(("call", "ret")) for i in function[a:b])]
    inside = {s: sum(s[0] <= c and d <= s[1] and (c, d) != s for c, d in spans) for s in spans}
    moved = {s: bytes_moved(function[s[0] : s[1] + 1], function) for s in spans}
    innermost = [s for s in spans if moved[s] and not inside[s]]
    a, b = max(innermost or [s for s in spans if moved[s]], key=lambda s: (moved[s], s[0] - s[1]))
    return function[a : b + 1], inside[(a, b)]


_KINDS = (  # (kind, opcode), the first that matches; "move" includes loads and stores, scalar ones too
    ("FMA", r"vf(n?m)(add|sub)"),
    ("FP arith", r"v(add|sub|mul|div|min|max|sqrt)(ps|pd|ss|sd)$"),
    ("compare", r"v(cmp|pcmpgt|pcmpeq)|v?u?comis"),
    ("blend/logic", r"v(blendv|pblendv|andn|pandn|and|pand|or|por|xor|pxor)"),
    ("convert/pack", r"v(cvt|pack|pmins|pmaxs|perm|extract|insert|pshufb|pmov[sz]x|punpck|unpck|pshufd|pinsr|pextr)"),
    ("broadcast", r"vp?broadcast"),
    ("move", r"v?mov"),
    ("loop/scalar", r""),
)


def flat_census(loop: list[Insn], function: list[Insn], itemsize: int) -> dict[str, int]:
    """Of one iteration of ``loop``: its instructions by kind (each in one kind, :data:`_KINDS`), the points
    it consumes (bytes its input pointers move, over ``itemsize``), and its memory operands by kind: reads
    of the streamed columns (``col``; ``col again``: reads of an address already read this iteration),
    reads of loop-invariant memory (``invariant``: a constant or a weight, through a register the loop does
    not move), stack reads and writes (spills), and writes of the output."""
    steps = _steps(loop)
    frame = _frame(function, steps)
    out: dict[str, int] = collections.Counter()
    seen: set[tuple] = set()
    bumped: dict[str, int] = collections.Counter()  # how far each pointer has moved so far this iteration
    for insn in loop:
        out[next(kind for kind, pattern in _KINDS if re.match(pattern, insn.op))] += 1
        for write, operand, base, index in _operands(insn):
            where = "stack" if base in frame else "col" if (base in steps or index in steps) else "invariant"
            if write:
                out["stack write" if where == "stack" else "out write"] += 1
            elif where == "col":  # the same address twice, though its pointer moved in between, is one
                disp, _, _, scale = _MEM.search(operand).groups()
                scale = int(scale or 1)
                at = int(disp or "0", 0) + bumped[base] + bumped[index] * scale
                key = (base, index, scale, at)
                out["col again" if key in seen else "col"] += 1
                seen.add(key)
            else:
                out["stack read" if where == "stack" else "invariant"] += 1
        if insn.op.startswith("add") and (m := re.match(r"\$(-?(?:0x)?[0-9a-f]+),\s*(%\w+)$", insn.args)):
            bumped[m[2]] += int(m[1], 0)
        elif insn.op.startswith("inc"):
            bumped[insn.args] += 1
    out["insns"] = len(loop)
    out["points"] = bytes_moved(loop, function) // itemsize
    return out


@dataclass
class Variant:
    name: str
    insns: list[Insn]
    call: object  # () -> None
    result: object = None  # () -> tensor or array to compare with the course's kernel; None: a probe
    note: str = ""


def kernel_and_args(fn, *args):
    """Compile ``fn`` with torch.compile; return the argument types, C++ source and .so of its one C++
    kernel, and ``args`` in the order that kernel takes them (from the wrapper's size asserts)."""
    _, (code, *_) = run_and_get_code(torch.compile(fn), *args)
    types, source, so = inductor_kernel_from_code(code)
    shapes = dict(re.findall(r"assert_size_stride\((arg\d+_1), (\(.*?\)), \(.*?\)", code))
    names = re.search(r"\n\s+cpp_fused_\w+\((.*?)\)\n", code)[1].split(", ")
    tensors = [a for a in args if isinstance(a, torch.Tensor)]

    def find(name: str):
        shape = tuple(int(x) for x in re.findall(r"\d+", shapes[name]))
        (match,) = [t for t in tensors if tuple(t.shape) == shape]
        return match

    return types, source, so, [find(n) for n in names]


def inductor_kernel_from_code(code: str):
    types, source = re.search(r"cpp_pybinding\((\[.*?\]), r'''\n(.*?)'''\)", code, re.DOTALL).groups()
    strip = lambda text: "\n".join(line.strip() for line in text.splitlines())  # noqa: E731
    body = strip(source[source.index('extern "C"') :])
    # the newest match: a kernel built again under another config has the same source
    found = [p.with_suffix(".so") for p in pathlib.Path(CACHE).rglob("*.main.cpp") if body in strip(p.read_text())]
    return eval(types), source, max(found, key=lambda p: p.stat().st_mtime_ns)


def patch(source: str, *subs: tuple[str, str]) -> str:
    """``source`` with each ``(pattern, replacement)`` applied (``re.sub``); each must match."""
    for pattern, replacement in subs:
        source, n = re.subn(pattern, replacement, source)
        assert n, f"nothing matched {pattern!r}"
    return source


def build(types: list[str], source: str, tag: str, config: dict | None = None):
    """Build ``source`` (tagged with a comment, so that each variant has a .so of its own) under inductor's
    compile command (with ``config`` patched into inductor's config); return the callable and its .so."""
    tagged = f"{source}\n// gaps_reproduce: {tag}\n"
    with inductor_config.patch(config or {}):
        fn = CppPythonBindingsCodeCache.load_pybinding(types, tagged)
    so = next(p.with_suffix(".so") for p in pathlib.Path(CACHE).rglob("*.main.cpp") if tagged in p.read_text())
    return fn, so


def numba_insns(kernel) -> list[Insn]:
    return llvm_insns("\n".join(kernel.inspect_asm().values()))


def so_count() -> int:
    return sum(1 for _ in pathlib.Path(CACHE).rglob("*.main.so"))


def time_interleaved(variants: list[Variant], rounds: int) -> dict[str, tuple[float, float]]:
    """Each variant called once a round (the order rotated by one each round), after one untimed call;
    the minimum and median in ms."""
    for v in variants:
        v.call()
    times: dict[str, list[float]] = {v.name: [] for v in variants}
    for r in range(rounds):
        for v in variants[r % len(variants) :] + variants[: r % len(variants)]:
            t0 = time.perf_counter()
            v.call()
            times[v.name].append(time.perf_counter() - t0)
    return {k: (1e3 * min(t), 1e3 * statistics.median(t)) for k, t in times.items()}


_BLEND_C = r"""
#include <immintrin.h>
extern "C" __m256 select_01(__m256 a, __m256 b) {  /* where(a > b, 1.0, 0.0), as inductor writes it */
  return _mm256_blendv_ps(_mm256_setzero_ps(), _mm256_set1_ps(1.0f), _mm256_cmp_ps(a, b, _CMP_GT_OQ));
}
extern "C" __m256d select_1(__m256d x, __m256d a, __m256d b, __m256d inf) {  /* where(a <= b, x, inf) */
  return _mm256_blendv_pd(inf, x, _mm256_cmp_pd(a, b, _CMP_LE_OQ));
}
extern "C" __m256d select_2(__m256d x, __m256d a, __m256d b, __m256d inf) {  /* two chained, as inductor */
  __m256d r = _mm256_blendv_pd(inf, x, _mm256_cmp_pd(a, b, _CMP_LE_OQ));
  return _mm256_blendv_pd(inf, r, _mm256_cmp_pd(b, x, _CMP_LT_OQ));
}
extern "C" __m256 add_zero(__m256 x, __m256 w) {  /* x * w + 0.0, as inductor writes 0 + x * w */
  return _mm256_add_ps(_mm256_mul_ps(x, w), _mm256_setzero_ps());
}
extern "C" __m256d select_and(__m256d x, __m256d a, __m256d b, __m256d inf) {  /* the masks ANDed */
  __m256d m = _mm256_and_pd(_mm256_cmp_pd(a, b, _CMP_LE_OQ), _mm256_cmp_pd(b, x, _CMP_LT_OQ));
  return _mm256_blendv_pd(inf, x, m);
}
"""


def blend_check() -> None:
    """Compile :data:`_BLEND_C` with inductor's compiler, -O3 and inductor's floating-point flags (then once
    more with -fno-signed-zeros added at the end) and print what each function became."""
    from torch._inductor.cpp_builder import _get_ffast_math_flags

    folder = pathlib.Path(tempfile.mkdtemp(prefix="gaps_blend_"))
    (folder / "blend.cpp").write_text(_BLEND_C)
    flags = ["-O3", *(f"-{f}" for f in _get_ffast_math_flags()), "-mavx2", "-mfma"]
    version = subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"\n{version} {' '.join(flags)} on a few lines of intrinsics ({folder / 'blend.cpp'}):")
    for extra in ([], ["-fno-signed-zeros"]):
        subprocess.run(["g++", *flags, *extra, "-c", "blend.cpp", "-o", "blend.o"], cwd=folder, check=True)
        for name in ("add_zero",) if extra else ("select_01", "select_1", "select_2", "select_and", "add_zero"):
            insns = [i for i in objdump_insns(folder / "blend.o", name) if re.match(r"v", i.op)]
            label = f"{name} {' '.join(extra)}"
            print(f"  {label:28s} " + "; ".join(f"{i.op} {i.args}" for i in insns))


def agreement(result: torch.Tensor, reference: torch.Tensor) -> str:
    if torch.equal(result, reference):
        return "equal"
    finite = torch.isfinite(reference)
    if result.is_floating_point() and torch.equal(finite, torch.isfinite(result)):
        a, b = result[finite], reference[finite]
        return f"not equal: max rel. error {((a - b).abs() / b.abs().clamp_min(1e-300)).max().item():.0e}"
    return f"NO: {(result != reference).sum().item():,} differ"


_COLUMNS = {  # census key: its column's heading
    **{"insns": "insns", "points": "points", "FP arith": "FP arith", "FMA": "FMA", "compare": "compare"},
    **{"blend/logic": "blend/and", "convert/pack": "cvt/pack", "broadcast": "bcast", "move": "move"},
}
_MEMORY = {
    **{"col": "col", "col again": "col again", "invariant": "invariant"},
    **{"stack read": "spill rd", "stack write": "spill wr", "out write": "out wr"},
}


def report(title: str, variants: list[Variant], itemsize: int, rounds: int, show_asm: bool) -> None:
    loops = {v.name: flat_hot_loop(v.insns) for v in variants}
    times = time_interleaved(variants, rounds)
    reference = torch.as_tensor(variants[0].result()).clone()
    print(
        f"torch {torch.__version__}, numba {numba.__version__}, 1 thread; {title}; {rounds} interleaved rounds; "
        f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )
    w = max(len(v.name) for v in variants)
    print("\nhot loop, one iteration: instructions by kind (the rest: scalar and loop control) | memory operands")
    head = " ".join(f"{c:>9s}" for c in _COLUMNS.values()) + " | " + " ".join(f"{c:>9s}" for c in _MEMORY.values())
    print(f"{'kernel':{w}s} {head} {'ins/pt':>6s}")
    for v in variants:
        loop, inner = loops[v.name]
        c = flat_census(loop, v.insns, itemsize)
        per = c["insns"] / c["points"] if c["points"] else float("nan")
        cells = " ".join(f"{c.get(k, 0):9d}" for k in _COLUMNS) + " | " + " ".join(f"{c.get(k, 0):9d}" for k in _MEMORY)
        print(f"{v.name:{w}s} {cells} {per:6.2f}" + (f"  (+{inner} inner loop)" if inner else ""))
    print(f"\n{'kernel':{w}s} {'min ms':>8s} {'median':>8s}  same result as the course's kernel")
    for v in variants:
        same = "(probe)" if v.result is None else agreement(torch.as_tensor(v.result()), reference)
        print(f"{v.name:{w}s} {times[v.name][0]:8.2f} {times[v.name][1]:8.2f}  {same}{'  ' + v.note if v.note else ''}")
    if show_asm:
        for v in variants:
            print(f"\n--- {v.name}: hot loop")
            for insn in loops[v.name][0]:
                print(f"    {insn.op:12s} {insn.args}")
    blend_check()
    print(f"inductor's C++ and .so files: {CACHE}")


# K-Means: course-side rewrites of kmeans._columns_kernel (k means, d coordinates), for this note only.


def _km_nozero(C: torch.Tensor, W: torch.Tensor, c: torch.Tensor, out: torch.Tensor) -> None:
    """kmeans._argmax_scores with each score's sum started from its first product, not from 0."""
    coords = [C[i] for i in range(C.shape[0])]

    def score(j: int) -> torch.Tensor:
        terms = [x * W[i, j] for i, x in enumerate(coords)]
        return c[j] + sum(terms[1:], terms[0])

    best = score(0)
    idx = torch.zeros_like(best)
    for j in range(1, W.shape[1]):
        s = score(j)
        idx = torch.where(s > best, float(j), idx)
        best = torch.maximum(s, best)
    out.copy_(idx)


def _km_floats(C: torch.Tensor, W: list[list[float]], c: list[float], out: torch.Tensor) -> None:
    """:func:`_km_nozero` with the means' numbers as Python floats (``W.tolist()``, ``c.tolist()``)."""
    coords = [C[i] for i in range(C.shape[0])]

    def score(j: int) -> torch.Tensor:
        terms = [x * W[i][j] for i, x in enumerate(coords)]
        return c[j] + sum(terms[1:], terms[0])

    best = score(0)
    idx = torch.zeros_like(best)
    for j in range(1, len(c)):
        s = score(j)
        idx = torch.where(s > best, float(j), idx)
        best = torch.maximum(s, best)
    out.copy_(idx)


def _km_bool(C: torch.Tensor, W: torch.Tensor, c: torch.Tensor, out: torch.Tensor) -> None:
    """Two means only: the label is the comparison itself, a bool copied into the int8 output."""
    x0, x1 = C[0], C[1]
    out.copy_(c[1] + (x0 * W[0, 1] + x1 * W[1, 1]) > c[0] + (x0 * W[0, 0] + x1 * W[1, 0]))


FMA = {"cpp.enable_floating_point_contract_flag": "fast"}  # inductor's -ffp-contract=off made =fast


def kmeans_workload(args) -> None:
    n = args.points or 10_000_000
    X, means = kmeans.make_blobs(n)
    C = kmeans.to_columns(torch.from_numpy(X.astype(np.float32)))
    M = torch.from_numpy(means.astype(np.float32))
    W, c = kmeans.linear_scores(M)
    outs = [torch.empty(n, dtype=torch.int8) for _ in range(13)]
    variants: list[Variant] = []

    def add(name, insns, call, out, note=""):
        variants.append(Variant(name, insns, call, (lambda: out) if out is not None else None, note))

    out = outs.pop()
    types, src, so, order = kernel_and_args(kmeans._columns_kernel, C, W, c, out)
    course = kmeans._compiled(kmeans._columns_kernel)  # what assign_best calls, after linear_scores(M)
    add("torch assign_best's kernel", objdump_insns(so), lambda o=out: course(C, W, c, o), out)
    o = outs.pop()
    _, _, so_p, _ = kernel_and_args(probes.km_probe, C, o)
    probe = torch.compile(probes.km_probe)
    add("probe: x0 + x1 to int8", objdump_insns(so_p), lambda o=o: probe(C, o), None)

    # Inductor's C++ for assign_best, one change per hypothesis (then all three, then with FMA).
    zero = re.search(
        r"auto (tmp\d+) = static_cast<float>\(0\.0\);\s*auto (tmp\d+) = at::vec::Vectorized<float>\(\1\);", src
    )[2]
    restrict = (r"int8_t\* out_ptr1", "int8_t* __restrict__ out_ptr1")
    no_zero = (rf"= (tmp\d+) \+ {zero};", r"= \1;")
    blend = (
        r"decltype\((tmp\d+)\)::blendv\((tmp\d+), (tmp\d+), (tmp\d+)\.template cast<float,1>\(\)\)",
        r"(\3 & at::vec::Vectorized<float>(\4))",
    )
    for name, subs, config in (
        ("C++: as generated, called directly", [], None),
        ("C++: int8_t* __restrict__ out_ptr1", [restrict], None),
        ("C++: adds of 0.0 removed", [no_zero], None),
        ("C++: blendv(0, 1, m) as 1.0 & m", [blend], None),
        ("C++: all three", [restrict, no_zero, blend], None),
        (
            "C++: all three, -ffp-contract=fast",
            [restrict, no_zero, blend],
            {"cpp.enable_floating_point_contract_flag": "fast"},
        ),
    ):
        fn, so2 = build(types, patch(src, *subs), name, config)
        o = outs.pop()
        args_o = [o if a is out else a for a in order]
        add(name, objdump_insns(so2), lambda fn=fn, a=args_o: fn(*a), o)

    # Course-side rewrites (the course's kernel is left as it is).
    o = outs.pop()
    _, _, so2, _ = kernel_and_args(_km_nozero, C, W, c, o)
    nozero = torch.compile(_km_nozero)
    add("course: no 0 (sum from first product)", objdump_insns(so2), lambda o=o: nozero(C, W, c, o), o)
    o = outs.pop()
    Wl, cl = W.tolist(), c.tolist()
    _, _, so2, _ = kernel_and_args(_km_floats, C, Wl, cl, o)
    floats = torch.compile(_km_floats)
    floats(C, Wl, cl, o)
    before = so_count()
    floats(C, [[w + 0.5 for w in row] for row in Wl], [v + 0.5 for v in cl], torch.empty_like(o))
    note = "new means compiled a new kernel" if so_count() > before else "new means reused the kernel"
    dynamic = torch.compile(_km_floats, dynamic=True)  # the floats as inputs, not constants
    _, (code, *_) = run_and_get_code(dynamic, C, Wl, cl, o)
    loads = len(set(re.findall(r"in_ptr\d+\[static_cast<int64_t>\(0L\)\]", code)))
    before = so_count()
    dynamic(C, [[w + 0.5 for w in row] for row in Wl], [v + 0.5 for v in cl], torch.empty_like(o))
    note += f"; dynamic=True: {'a new' if so_count() > before else 'no new'} kernel for new means, "
    note += f"{loads} numbers read through pointers"
    add("course: no 0, means as Python floats", objdump_insns(so2), lambda o=o: floats(C, Wl, cl, o), o, note)
    o = outs.pop()
    _, _, so2, _ = kernel_and_args(_km_bool, C, W, c, o)
    boolean = torch.compile(_km_bool)
    add("course: no 0, bool label (2 means)", objdump_insns(so2), lambda o=o: boolean(C, W, c, o), o)

    def km_fma(C, W, c, out):  # a new code object, so that Dynamo compiles it afresh under the patch
        _km_nozero(C, W, c, out)

    o = outs.pop()
    with inductor_config.patch(FMA):
        _, _, so2, _ = kernel_and_args(km_fma, C, W, c, o)
        fma = torch.compile(km_fma)
        fma(C, W, c, o)
    add("course: no 0, config fp-contract=fast", objdump_insns(so2), lambda o=o: fma(C, W, c, o), o)

    nb = peers.numba_kernels()["kmeans_cols2"]
    Cn, Wn, cn, o8 = C.numpy(), W.numpy(), c.numpy(), np.empty(n, np.int8)
    nb(Cn, Wn, cn, o8)
    add("numba _kmeans_cols2", numba_insns(nb), lambda: nb(Cn, Wn, cn, o8), o8)
    title = f"K-Means assignment, {n:,} points as float32 columns, 2 means, int8 labels"
    report(title, variants, 4, args.rounds, args.asm)


# Fitness 2: course-side rewrites of ga._fitness2_columns, for this note only.


def _f2_and(C: torch.Tensor, out: torch.Tensor) -> None:
    """One select of the constraints' ``&`` (``ga.fitness2_torch`` on columns)."""
    x, y, z = C[0], C[1], C[2]
    out.copy_(torch.where(ga.feasible2(x, y, z), ga.f2(x, y, z), torch.inf))


def _f2_cost_first(C: torch.Tensor, out: torch.Tensor) -> None:
    """The cost first, then each constraint at its own select."""
    x, y, z = C[0], C[1], C[2]
    cost = ga.f2(x, y, z)
    for ok in (x >= 1, y > 3, y <= 7, z < 0, x + y + z >= 3, x**2 + z**2 <= 10):
        cost = torch.where(ok, cost, torch.inf)
    out.copy_(cost)


def _f2_masked_fill(C: torch.Tensor, out: torch.Tensor) -> None:
    """The cost with ``masked_fill`` where the constraints' ``&`` fails."""
    x, y, z = C[0], C[1], C[2]
    out.copy_(ga.f2(x, y, z).masked_fill(~ga.feasible2(x, y, z), torch.inf))


_BLENDV_D = r"decltype\((tmp\d+)\)::blendv\((tmp\d+), (tmp\d+), (tmp\d+)\.template cast<double,(\d)>\(\)\)"


def _one_blend(source: str) -> str:
    """The chain of selects ``t1 = blendv(inf, cost, m1); t2 = blendv(inf, t1, m2) ...`` written as one select
    of the ANDed masks, ``t1 = blendv(inf, cost, m1 & m2 & ...)``; the later ones copy it."""
    chain = re.findall(rf"auto (tmp\d+) = {_BLENDV_D};", source)
    assert len(chain) > 1, "no chain of selects"
    first, masks = chain[0], " & ".join(m[4] for m in chain)
    lines = []
    for line in source.split("\n"):
        if (m := re.match(rf"(\s*)auto (tmp\d+) = {_BLENDV_D};", line)) and m[2] == first[0]:
            line = f"{m[1]}auto {m[2]} = decltype({m[5]})::blendv({m[4]}, {m[5]}, "
            line += f"({masks}).template cast<double,{m[7]}>());"
        elif m:
            line = f"{m[1]}auto {m[2]} = {first[0]};"
        lines.append(line)
    return "\n".join(lines)


def fitness2_workload(args) -> None:
    n = args.points or 4_000_000
    C = ga.to_columns(ga.random_points(n, ga.BOX2))
    outs = [torch.empty(n, dtype=torch.float64) for _ in range(11)]
    variants: list[Variant] = []

    def add(name, insns, call, out, note=""):
        variants.append(Variant(name, insns, call, (lambda: out) if out is not None else None, note))

    out = outs.pop()
    types, src, so, order = kernel_and_args(ga._fitness2_columns, C, out)
    course = ga._compiled_kernel(ga._fitness2_columns)  # what fitness2_best calls
    add("torch fitness2_best's kernel", objdump_insns(so), lambda o=out: course(C, o), out)
    o = outs.pop()
    _, _, so_p, _ = kernel_and_args(probes.f2_probe, C, o)
    probe = torch.compile(probes.f2_probe)
    add("probe: x + y + z", objdump_insns(so_p), lambda o=o: probe(C, o), None)

    # Inductor's C++ for fitness2_best, one change per hypothesis, then both.
    four = [
        (r"VectorizedN<double,2>", "VectorizedN<double,1>"),
        (r"VecMask<double,2>", "VecMask<double,1>"),
        (r"cast<double,2>", "cast<double,1>"),
        (r"x0\+=static_cast<int64_t>\(8L\)", "x0+=static_cast<int64_t>(4L)"),
        (r"static_cast<int64_t>\(8\)\)", "static_cast<int64_t>(4))"),
    ]
    for name, source in (
        ("C++: as generated, called directly", src),
        ("C++: 4 points an iteration, not 8", patch(src, *four)),
        ("C++: one blendv of the ANDed masks", _one_blend(src)),
        ("C++: both", _one_blend(patch(src, *four))),
    ):
        fn, so2 = build(types, source, name)
        o = outs.pop()
        args_o = [o if a is out else a for a in order]
        add(name, objdump_insns(so2), lambda fn=fn, a=args_o: fn(*a), o)

    # Course-side rewrites (the course's kernel is left as it is).
    for name, kernel in (
        ("course: & of the constraints, one where", _f2_and),
        ("course: & of the constraints, masked_fill", _f2_masked_fill),
        ("course: cost first", _f2_cost_first),
    ):
        o = outs.pop()
        _, src2, so2, _ = kernel_and_args(kernel, C, o)
        compiled = torch.compile(kernel)
        note = "same C++ as fitness2_best" if src2 == src else ""
        add(name, objdump_insns(so2), lambda o=o, f=compiled: f(C, o), o, note)

    nb = peers.numba_kernels()["fitness2_cols"]
    Cn, on = C.numpy(), np.empty(n)
    nb(Cn, on)
    add("numba _fitness2_cols", numba_insns(nb), lambda: nb(Cn, on), on)
    report(f"GA fitness 2, {n:,} points as float64 columns", variants, 8, args.rounds, args.asm)


def _callpath_pair(workload: str, n: int, own_kernel) -> tuple[dict, list[torch.Tensor]]:
    """The course's compiled kernel for ``workload`` on ``n`` points and the same kernel called straight."""
    torch._dynamo.reset()
    if workload == "kmeans":
        X, means = kmeans.make_blobs(n)
        C = kmeans.to_columns(torch.from_numpy(X.astype(np.float32)))
        W, c = kmeans.linear_scores(torch.from_numpy(means.astype(np.float32)))
        outs = [torch.empty(n, dtype=torch.int8) for _ in range(2)]
        _, _, _, order = kernel_and_args(kmeans._columns_kernel, C, W, c, outs[0])
        torch._dynamo.reset()
        course = torch.compile(kmeans._columns_kernel)
        course(C, W, c, outs[0])
        kernel, args_k = own_kernel(), [outs[1] if a is outs[0] else a for a in order]
        calls = {"compiled": lambda: course(C, W, c, outs[0]), "kernel": lambda: kernel(*args_k)}
        if n >= 10_000_000:  # the swap test: each writes into the other's buffer too
            args_0 = [outs[0] if a is outs[1] else a for a in args_k]
            calls |= {"compiled, B": lambda: course(C, W, c, outs[1]), "kernel, A": lambda: kernel(*args_0)}
        return calls, outs
    C = ga.to_columns(ga.random_points(n, ga.BOX2))
    outs = [torch.empty(n, dtype=torch.float64) for _ in range(2)]
    course = torch.compile(ga._fitness2_columns)
    course(C, outs[0])
    kernel = own_kernel()
    return {"compiled": lambda: course(C, outs[0]), "kernel": lambda: kernel(C, outs[1])}, outs


def callpath_workload(args) -> None:
    """The compiled call against its own kernel, the same .so called straight from the output code's module
    (no Dynamo guards, no AOTAutograd wrapper, no ``call()``), at several sizes. Calls in blocks of 20, the
    blocks of the two alternating; each call timed; calls 2-20 of a block (back to back) and the first call of
    a block (after the other variant's block) reported apart, minimum / median in ms. For K-Means at
    10,000,000 points each also writes into the other's output buffer (the swap test)."""
    from torch._inductor.codecache import PyCodeCache

    def own_kernel():
        (module, *_) = [m for m in reversed(PyCodeCache.modules) if any(k.startswith("cpp_fused") for k in vars(m))]
        (kernel,) = [getattr(module, k) for k in vars(module) if k.startswith("cpp_fused")]
        return kernel

    def blocks(calls: dict, n_blocks: int) -> dict[str, tuple[list[float], list[float]]]:
        times = {name: ([], []) for name in calls}
        for b in range(n_blocks):
            for name in list(calls)[:: 1 if b % 2 == 0 else -1]:
                for i in range(20):
                    t0 = time.perf_counter()
                    calls[name]()
                    times[name][0 if i == 0 else 1].append(time.perf_counter() - t0)
        return times

    ms = lambda t: f"{1e3 * min(t):8.4f} / {1e3 * statistics.median(t):8.4f}"  # noqa: E731
    print("workload    points      | back to back: compiled call, its kernel | first of a block: compiled, kernel")
    for workload in ("kmeans", "fitness2"):
        sizes = [1_000, 100_000, 1_000_000] + [10_000_000 if workload == "kmeans" else 4_000_000]
        for n in sizes if args.points is None else [args.points]:
            calls, outs = _callpath_pair(workload, n, own_kernel)
            t = blocks(calls, 16 if n <= 1_000_000 else 8)
            assert torch.equal(outs[0], outs[1])
            print(
                f"{workload:9s} {n:>11,} | {ms(t['compiled'][1])}  {ms(t['kernel'][1])} "
                f"| {ms(t['compiled'][0])}  {ms(t['kernel'][0])}",
                flush=True,
            )
            if "kernel, A" in t:
                print(
                    f"{'  swapped':9s} {n:>11,} | {ms(t['compiled, B'][1])}  {ms(t['kernel, A'][1])} "
                    "| (the compiled call into the kernel's buffer B, the kernel into the compiled call's A)",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", choices=("fitness1", "kmeans", "fitness2", "callpath"), default="fitness1")
    parser.add_argument("--asm", action="store_true", help="print each hot loop's instructions")
    parser.add_argument(
        "--rows", type=int, default=ROWS, help=f"fitness 1: chromosomes of 1,000 genes (default {ROWS:,})"
    )
    parser.add_argument("--points", type=int, help="kmeans, fitness2: points (default: the benchmark's, 10M and 4M)")
    parser.add_argument(
        "--rounds", type=int, default=ROUNDS, help=f"kmeans, fitness2: timing rounds (default {ROUNDS})"
    )
    args = parser.parse_args()
    torch.set_num_threads(1)
    numba.set_num_threads(1)
    {
        "fitness1": fitness1,
        "kmeans": kmeans_workload,
        "fitness2": fitness2_workload,
        "callpath": callpath_workload,
    }[args.workload](args)


if __name__ == "__main__":
    main()
