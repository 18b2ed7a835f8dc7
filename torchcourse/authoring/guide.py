"""Write the instructor guide (docs/INSTRUCTORS.md) from the lessons themselves.

    python -m torchcourse.authoring.guide          # rewrite docs/INSTRUCTORS.md
    python -m torchcourse.authoring.guide --check  # exit 1 when the file is out of date (a test runs this)

Schedules, objectives, key points and the mistakes learners make are read from each lesson's
"**Time.**" line, "**Objectives.**" list, "## Key points" bullets and the bold headings of its
"## Common mistakes" section, so the guide cannot drift from the notebooks. The hand-written
parts (running a room, the checklist) live in this module's templates.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass

from torchcourse.authoring.course import ROOT, Module, by_number, written_modules

GUIDE = ROOT / "docs" / "INSTRUCTORS.md"

# Which modules each workshop format teaches, in order. Every module's stated prerequisites come
# earlier in the same format (module 07 names 00-06, module 09 names 05 and 07): the one day is
# the tensor in memory; the two days add speed, the GPU and the first torch.compile. Modules
# left out stay available as self-study; the guide says which. Tests hold the limits below.
ONE_DAY = ["00", "01", "02", "03", "04"]
ONE_DAY_CAPS = {"04": 0}  # a day ends with 04's lesson; its exercises are for after the day (both formats)
TWO_DAY = [["00", "01", "02", "03", "04"], ["05", "06", "07", "09"]]
DAY_START, DAY_END = 9 * 60, 16 * 60 + 30  # a 7.5 h day in the room
MAX_CONTENT = 6 * 60  # at most 6 h of lessons and exercises a day: the rest is slack
MAX_STRETCH = 90  # minutes between two breaks, at most
OPENING, WRAP_UP = ("Welcome, setup problems, questions", 15), ("Questions and wrap-up", 15)
BREAK, LUNCH = ("Break", 15), ("Lunch", 60)
LUNCH_FROM = 11 * 60 + 45  # the first break from this time on is lunch
PREDICTION_MIN = 2  # minutes a predict-then-run cell adds to a lesson
EXERCISE_CAP = 25  # minutes of exercises per module in the room; the rest is for after the day
RUNTIME_BOUND_S = 300  # "every notebook runs in under 5 minutes": tests/test_schedule.py holds it
NOTE_SECTIONS = ["While it runs", "Checkpoints", "Where people get lost", "If you are late"]
NOTES = ROOT / "docs" / "instructor-notes"
COMPILER_THROUGHOUT = ["17"]  # every section compiles (in worker processes, with inductor itself)


@dataclass
class Plan:
    """What a workshop does with one module: minutes of lesson, the exercises done in the room and
    their minutes, what is left for after (optional sections, stretch and later exercises)."""

    module: Module
    teach: int
    exercises: int
    skipped_sections: list[str]
    exercises_done: list[str]
    stretch: list[str]
    later: list[str]  # non-stretch exercises past the room's exercise time, for after the day


OPTIONAL = re.compile(r"^# (#{2,3}) (.+) \(optional\)\s*$", re.MULTILINE)


def optional_sections(text: str) -> tuple[list[str], int, int]:
    """Headings of the lesson's ``(optional)`` sections, the source lines they span (each runs to
    the next heading of its level or above) and the lesson's lines from its first section on."""
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.startswith("# ## ")), 0)
    names, spanned = [], 0
    for m in OPTIONAL.finditer(text):
        level, at = len(m.group(1)), text[: m.start()].count("\n")
        end = next(
            (
                j
                for j in range(at + 1, len(lines))
                if re.match(r"^# (#{2,3}) ", lines[j]) and len(re.match(r"^# (#+)", lines[j]).group(1)) <= level
            ),
            len(lines),
        )
        names.append(m.group(2).strip())
        spanned += end - at
    return names, spanned, max(len(lines) - first, 1)


def exercises_of(m: Module) -> list[tuple[str, bool]]:
    """(id, is stretch) for each exercise heading of ``solutions/NN_slug.py``, in notebook order."""
    path = m.path("solutions", ".py")
    if not path.exists():
        return []
    heads = re.findall(r"^# ### (\d\d\.\d+) · (.*)$", path.read_text(encoding="utf-8"), re.MULTILINE)
    return [(k, h.rstrip().endswith("(stretch)")) for k, h in heads]


def plan(m: Module, core: bool = True, cap: int | None = None) -> Plan:
    """Minutes for module ``m`` from its "**Time.**" line (the lesson's measured estimate), plus
    :data:`PREDICTION_MIN` per prediction cell. On the core path, the lesson's ``(optional)``
    sections are skipped (their share of the lesson's lines is taken off the teaching time) and
    the stretch exercises are left for after the workshop (their share of the exercise time).
    ``cap``: at most this many minutes of exercises in the room; the first exercises that fit are
    done there (each counts its share of the exercise time), the others are left for after."""
    text = m.path("notebooks", ".py").read_text(encoding="utf-8")
    teach, exercises = m.minutes or (0, 0)
    names, spanned, body = optional_sections(text) if core else ([], 0, 1)
    predictions = len(re.findall(r"^predict\(", text, re.MULTILINE))
    teach = round(teach * (1 - spanned / body)) + PREDICTION_MIN * predictions
    ex = exercises_of(m)
    each = exercises / len(ex) if ex else 0
    stretch = [k for k, s in ex if s] if core else []
    done = [k for k, _ in ex if k not in stretch]
    later: list[str] = []
    if cap is not None and each:
        keep = int(cap // each + 1e-9)
        done, later = done[:keep], done[keep:]
    minutes = round(each * len(done)) if ex else exercises
    return Plan(m, -(-teach // 5) * 5, -(-minutes // 5) * 5, names, done, stretch, later)


@dataclass
class Day:
    rows: list[tuple[int, str, int]]  # (start minute, what, minutes)
    content: int  # minutes of lessons and exercises
    stretches: list[int]  # minutes between consecutive breaks (start and end of day count)

    @property
    def end(self) -> int:
        start, _, length = self.rows[-1]
        return start + length


MIN_START = 10  # a lesson starts only with this many minutes left before the next break
LESSON_STEP = 5  # a lesson may be split by a break: at the section boundary nearest this many minutes


def _blocks(p: Plan) -> list[tuple[str, float, list[str]]]:
    """The module's lesson in :data:`LESSON_STEP`-minute steps, then one block per exercise, so a
    break can fall inside a lesson (at a section boundary) or between two exercises:
    (label, minutes, exercise ids)."""
    m = p.module
    steps = [LESSON_STEP] * (p.teach // LESSON_STEP) + ([p.teach % LESSON_STEP] if p.teach % LESSON_STEP else [])
    out: list[tuple[str, float, list[str]]] = [(f"{m.number} · {m.title}: lesson", s, []) for s in steps]
    if p.exercises_done:
        each = p.exercises / len(p.exercises_done)
        out += [(f"{m.number}: exercises", each, [k]) for k in p.exercises_done]
    elif p.exercises:
        out.append((f"{m.number}: exercises", p.exercises, []))
    return out


def _ids(ids: list[str]) -> str:
    """["05.1", "05.2", "05.3", "05.5"] -> "05.1-05.3, 05.5"."""
    runs: list[list[str]] = []
    for k in ids:
        if runs and int(k.split(".")[1]) == int(runs[-1][-1].split(".")[1]) + 1:
            runs[-1].append(k)
        else:
            runs.append([k])
    return ", ".join(r[0] if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def schedule(plans: list[Plan]) -> Day:
    """Lay a day out: an opening for setup problems, each module's lesson then its exercises, a
    break wherever the time since the last break would pass :data:`MAX_STRETCH` (the first from
    :data:`LUNCH_FROM` on is lunch), and a wrap-up."""
    rows: list[tuple[int, str, int]] = []
    clock, since, content, stretches, lunch = float(DAY_START), 0.0, 0.0, [], False
    open_row: list = []  # the row being extended: [start, label, minutes, ids]
    seen: set[str] = set()

    def close() -> None:
        if open_row:
            start, label, minutes, ids = open_row
            shown = label + (" (continued)" if label in seen and "lesson" in label else "")
            shown += f" {_ids(ids)}" if ids else ""
            seen.add(label)
            rows.append((round(start), shown, round(start + minutes) - round(start)))
            open_row.clear()

    def add(label: str, minutes: float, ids: list[str], merge: bool = True) -> None:
        nonlocal clock
        if merge and open_row and open_row[1] == label:
            open_row[2] += minutes
            open_row[3] += ids
        else:
            close()
            open_row[:] = [clock, label, minutes, list(ids)]
        clock += minutes

    add(*OPENING, [], merge=False)
    since = OPENING[1]
    blocks = [b for p in plans for b in _blocks(p)]
    for i, (label, minutes, ids) in enumerate(blocks):
        need = minutes + (WRAP_UP[1] if i == len(blocks) - 1 else 0)
        if "lesson" in label and (i == 0 or blocks[i - 1][0] != label):
            need = max(need, MIN_START)  # no lesson starts in the last minutes before a break
        if since + need > MAX_STRETCH + 1e-9 and since:
            stretches.append(round(since))
            name, length = LUNCH if not lunch and clock >= LUNCH_FROM else BREAK
            lunch = lunch or name == LUNCH[0]
            add(name, length, [], merge=False)
            since = 0
        add(label, minutes, ids)
        since += minutes
        content += minutes
    add(*WRAP_UP, [], merge=False)
    close()
    stretches.append(round(since + WRAP_UP[1]))
    return Day(rows, round(content), stretches)


def stored_runtimes(folder: str = "notebooks") -> dict[str, float]:
    """Seconds each stored notebook took to execute, from the cell timings nbclient records in
    each code cell's metadata (first cell's start to last cell's reply)."""
    import json
    from datetime import datetime

    out = {}
    for path in sorted((ROOT / folder).glob("[0-9][0-9]_*.ipynb")):
        stamps = []
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            e = cell.get("metadata", {}).get("execution", {})
            if cell["cell_type"] == "code" and e.get("iopub.execute_input") and e.get("shell.execute_reply"):
                stamps += [
                    datetime.fromisoformat(e[k].replace("Z", "+00:00"))
                    for k in ("iopub.execute_input", "shell.execute_reply")
                ]
        if stamps:
            out[path.stem] = (max(stamps) - min(stamps)).total_seconds()
    return out


def instructor_notes(number: str) -> dict[str, str]:
    """The four sections of ``docs/instructor-notes/NN.md`` (missing file: empty dict)."""
    path = NOTES / f"{number}.md"
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    found = re.findall(r"^## (.+?)\s*\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    return {name.strip(): body.strip() for name, body in found}


@dataclass
class LessonFacts:
    module: Module
    objectives: list[str]
    key_points: list[str]
    mistakes: list[str]


def _section(text: str, heading: str) -> str:
    m = re.search(rf"^# ## {re.escape(heading)}\s*$(.*?)(?=^# ## |\Z)", text, re.MULTILINE | re.DOTALL)
    return m.group(1) if m else ""


def _clean(line: str) -> str:
    return re.sub(r"\s+", " ", line).strip()


def lesson_facts(m: Module) -> LessonFacts:
    text = m.path("notebooks", ".py").read_text(encoding="utf-8")
    obj = re.search(r"\*\*Objectives\.\*\*.*?\n((?:# *\d+\..*\n(?:#    .*\n)*)+)", text)
    objectives = (
        [
            _clean(re.sub(r"\n#\s+", " ", o))
            for o in re.findall(r"^# *\d+\. (.*(?:\n#    .*)*)", obj.group(1), re.MULTILINE)
        ]
        if obj
        else []
    )
    keys = _section(text, "Key points")
    key_points = [_clean(re.sub(r"\n#\s+", " ", k)) for k in re.findall(r"^# \* (.*(?:\n#   .*)*)", keys, re.MULTILINE)]
    mistakes = [
        _clean(h).rstrip(".") for h in re.findall(r"^# \*\*(.+?)\*\*", _section(text, "Common mistakes"), re.MULTILINE)
    ]
    return LessonFacts(m, objectives, key_points, mistakes)


def _clock(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _hm(minutes: int) -> str:
    return f"{minutes // 60} h {minutes % 60:02d} min"


def day_table(day: Day) -> list[str]:
    rows = ["| time | what | min |", "|---|---|---|"]
    rows += [f"| {_clock(start)} | {what} | {minutes} |" for start, what, minutes in day.rows]
    return [*rows, f"| {_clock(day.end)} | End | |"]


def plans_note(plans: list[Plan]) -> list[str]:
    """What the core path leaves out of each module, one bullet each."""
    out = []
    for p in plans:
        cut = []
        if p.skipped_sections:
            cut.append("skip " + ", ".join(f"*{name}*" for name in p.skipped_sections))
        after = sorted(p.later + p.stretch, key=lambda k: int(k.split(".")[1]))
        if after:
            cut.append(f"exercise{'s' if len(after) > 1 else ''} {_ids(after)} after the day")
        if cut:
            out.append(f"* {p.module.number}: {'; '.join(cut)}.")
    return out


INTRO = """\
# Instructor guide

*Generated by `python -m torchcourse.authoring.guide` from the lessons (times, prerequisites,
optional sections, objectives, key points, common mistakes), the exercises and
`docs/instructor-notes/NN.md`; edit those or `torchcourse/authoring/guide.py`, not this file.*

The course teaches PyTorch as a computation library to people who know Python and some NumPy.
Every lesson is a notebook that runs top to bottom in under {bound} minutes on a 2-core CPU (the
stored runs took {fastest:.0f} s to {slowest:.0f} s, the longest module {slowest_module}), every
exercise has an automatic check, and CI re-runs all of them. Times below are the lessons' own
estimates of teaching and exercise time at workshop pace ("**Time.**" line), plus {pred} minutes
for each predict-then-run cell; check them against your group after the first session and adjust.

## How the schedules are made

* A day in the room is {day} (09:00 to 16:30) with at most {content} of lessons and exercises: it
  opens with {opening} minutes for setup problems and questions and closes with a {wrap}-minute
  wrap-up; the rest is breaks. There are never more than {stretch} minutes between two breaks:
  a break goes before any block that would take longer, the first from 11:45 on is lunch.
* Every module comes after the modules its **Prerequisites** line names.
* A workshop takes the *core path*: the lesson sections marked `(optional)` are skipped (their share
  of the lesson's lines comes off its teaching time) and the stretch exercises, the last in each
  notebook, are left for after the day (their share of the exercise time comes off too). At most
  {cap} minutes of exercises a module are done in the room, the first ones in the notebook; the
  rest are for after the day (each day's table lists them).
"""


def colab_runtimes(modules: list[Module]) -> str:
    """Which Colab runtime each module asks for (``Module.runtime``), as one phrase."""
    gpu = [m.number for m in modules if m.runtime == "gpu"]
    optional = [m.number for m in modules if m.runtime == "gpu-optional"]
    parts = [f"a GPU for module{'s' if len(gpu) > 1 else ''} {', '.join(gpu)}"] if gpu else []
    if optional:
        parts.append(f"a CPU with a GPU optional for {', '.join(optional)}")
    return "; ".join([*parts, "a CPU for the others"])


ROOM = """\
## Running it for a room

**The preflight first.** `python -m torchcourse.preflight` (module 00 runs the same) ends with one
verdict line per part of the course, e.g. `Verdict: ready for 00-08, 15-16; partly for 14 (a section
needs what is missing); not ready for 09-13, 17: no working C++ compiler`, and exits with 0 (ready
for every module), 2 (ready for some: the line names them) or 1 (the course cannot run: Python or
torch). It checks the C++ compiler by compiling and running a tiny function in a fresh process with
an empty compiler cache, so a `✓ compile (cpu)` line means the compile lessons will really compile.
Collect the verdict lines a week ahead.

**Without a compiler.** A learner whose machine has no C++ compiler can still follow {compile_modules}:
at the first compiled cell the notebook prints one line (`no C++ compiler: this lesson goes on with
graph capture only (backend='aot_eager'); ...`) and `torch.compile` captures graphs, guards,
recompiles and breaks as usual without generating code. Cells that read the generated code say in
one line that they need the compiler; timings of compiled code are then eager timings, and the
lesson's statements about speed print a note instead of `checked:`. Pair such a learner with a
neighbour for those cells, or send them to a hub or Colab. Module {throughout} is about the compiler's
caches and ahead-of-time packages in every section: without a compiler, take it on a hub or Colab.

**CPU laptops (the default).** Everything runs on a laptop CPU. Send the setup guide
(`docs/SETUP.md`) a week ahead. Each compile lesson points inductor at a new, empty cache on purpose,
so the room sees real cold compiles: the first compile in a notebook takes 10-20 s on a quiet
2-core laptop (much more on a loaded one), later ones 1-3 s. Warn the room before the first
compiled cell rather than letting learners think the kernel hung.

**A shared server.** Run one JupyterHub (or one `make lab LAB_ARGS="--no-browser --port N"`
per learner, each on its own port behind SSH tunnels). Set `CUDA_VISIBLE_DEVICES` per learner if
the server has several GPUs, and cap threads (`OMP_NUM_THREADS=4`) so that 20 kernels do not
fight over the CPU: module 05 shows how badly oversubscribed threads distort timings. The stored
outputs come from a CPU; on the GPU the timing cells print new numbers and the GPU cells stop
printing "skipped".

**Colab.** Open the notebooks from the repository in Colab. Every notebook's first code cell
(generated from `torchcourse/authoring/colab.py`) installs nothing on a laptop; on Colab it clones the
repository named by `[project.urls] Repository` in `pyproject.toml` (or by the
`TORCHCOURSE_REPO` environment variable, for a fork) and installs `torchcourse` from it, once per
session. The cell names the runtime: {colab_runtimes}. It also prints Colab's torch version when
it is not the pinned one, since the stored outputs were made with the pin.

**Learners' own copies.** `make lab` copies the lessons, exercises and worked answers into `work/`,
a folder git ignores (`scripts/workcopy.py`), and opens JupyterLab there. Learners write their answers
in `work/`; a later `git pull` never clashes with them, and the next `make lab` adds new lessons and
refreshes only the files a learner has not changed (where both changed, the new version lands beside
theirs as `NAME.new.ipynb`). Tell learners to work in `work/` and to pull before the workshop.

**Pacing.** Live-code the lesson cells (do not just run the stored notebook): learners follow
better when they type, and the checked outputs in the notebook tell them when their result
differs. Then give the exercises time; walk the room and watch for the mistakes listed per
module below. Learners who finish early take the stretch exercises (the last in each notebook).
"""

TROUBLES = [  # (problem, Linux, macOS, Windows)
    (
        "**No C++ compiler** (preflight: `! C++ compiler none found`; verdict: not ready for 09-13, 17)",
        "`sudo apt install g++` (Fedora: `sudo dnf install gcc-c++`). Inductor looks only for `$CXX` or `g++`: "
        "with only `clang++` installed, set `CXX=clang++` before starting Jupyter",
        "`xcode-select --install` (inductor looks for `$CXX` or `clang++`)",
        "Visual Studio Build Tools, workload 'Desktop development with C++'; start Jupyter from the "
        "'x64 Native Tools Command Prompt' so that `cl` is on `PATH` (inductor looks for `$CXX` or `cl`)",
    ),
    (
        "**Compiler found, compiling fails** (`! compile (cpu)` with an error)",
        "missing system headers: `sudo apt install build-essential`",
        "run `xcode-select --install` again after a macOS update",
        "use the x64 (not x86) prompt; the preflight's line names the error",
    ),
    (
        "**No GPU** (`! CUDA no CUDA GPU found`)",
        "fine: GPU cells say what they skip. For module 07, use Colab (T4 runtime) or a GPU server",
        "Apple GPUs (MPS) run the device-agnostic cells; CUDA-only cells say they skip",
        "fine, as on Linux",
    ),
    (
        "**Behind a proxy** (pip times out during `make lab`)",
        "`export HTTPS_PROXY=http://proxy:port` first; a private index: `PIP_INDEX_URL`",
        "the same, in the shell that runs `make lab`",
        "`set HTTPS_PROXY=http://proxy:port` in the same prompt",
    ),
    (
        "**Disk**",
        "the venv with the CPU build of torch takes about 1 GB; keep a few hundred MB free in the "
        "temporary folder for compiler caches",
        "the same",
        "the same; keep the course in a short path such as `C:\\course`",
    ),
    (
        "**Module 15 fails** (`! distributed`)",
        "a firewall that blocks ports on 127.0.0.1: allow local connections for Python",
        "allow Python when the firewall asks",
        "allow Python on private networks when Windows asks",
    ),
]


def troubleshooting() -> str:
    rows = ["| problem | Linux | macOS | Windows |", "|---|---|---|---|"]
    rows += ["| " + " | ".join(row) + " |" for row in TROUBLES]
    return "\n".join(
        [
            "## Setup troubleshooting by operating system",
            "",
            *rows,
            "",
            "When a learner's machine cannot be fixed in the room, move them to the hub or Colab for the day.",
            "",
        ]
    )


CHECKLIST = """\
## Pre-workshop checklist

1. A week before: send `docs/SETUP.md`; ask each learner for the preflight's verdict line and exit
   code. An exit code 2 says which modules will not run; fix those machines before the day, or plan
   a hub or Colab for them.
2. Run `make test` on the machine you will present from, or at least `python -m torchcourse.preflight`.
3. Run the benchmark on the presenting machine (`make bench`) so you can quote this room's
   numbers next to the published ones (the module 12 table, README).
4. Run the modules you will teach once on the presenting machine, to know how long its cold
   compiles take. Do not try to warm the compiler cache for the room: each compile lesson starts
   from a new, empty cache directory on purpose, to show the cold cost, so a warm cache from the
   day before is never used.
5. Decide the format (one day or two) and which modules become self-study; tell learners.
6. Have the `solutions/` notebooks open in a second tab for the walk-through after each exercise
   block.
7. On the day: ask everyone to open `work/notebooks/00_start_here.ipynb` and run the preflight cells
   first; the room's problems surface in the first ten minutes instead of in module 09.
"""


def format_plans(numbers: list[str], caps: dict[str, int] | None = None) -> list[Plan]:
    """The core-path plans of one day's modules, with :data:`EXERCISE_CAP` or the day's own cap."""
    caps = caps or {}
    return [plan(by_number(n), cap=caps.get(n, EXERCISE_CAP)) for n in numbers]


def _format(numbers: list[list[str]], facts: dict[str, LessonFacts], caps: dict[str, int] | None = None) -> list[str]:
    parts: list[str] = []
    days = [[n for n in day if n in facts] for day in numbers]
    for i, day_numbers in enumerate(days, 1):
        plans = format_plans(day_numbers, caps)
        day = schedule(plans)
        title = f"**Day {i}**: " if len(days) > 1 else ""
        parts += [
            f"{title}modules {', '.join(day_numbers)}: {_hm(day.content)} of lessons and exercises in a "
            f"{_hm(day.end - DAY_START)} day; longest stretch between breaks {max(day.stretches)} min.",
            "",
            *day_table(day),
            "",
        ]
        skips = plans_note(plans)
        if skips:
            parts += ["The core path of this day:", "", *skips, ""]
    return parts


def render() -> str:
    modules = written_modules()
    facts = {m.number: lesson_facts(m) for m in modules}
    runtimes = stored_runtimes()
    slowest = max(runtimes, key=runtimes.get) if runtimes else "none"
    parts = [
        INTRO.format(
            bound=RUNTIME_BOUND_S // 60,
            fastest=min(runtimes.values(), default=0),
            slowest=max(runtimes.values(), default=0),
            slowest_module=slowest[:2],
            pred=PREDICTION_MIN,
            day=_hm(DAY_END - DAY_START),
            content=_hm(MAX_CONTENT),
            opening=OPENING[1],
            wrap=WRAP_UP[1],
            stretch=MAX_STRETCH,
            cap=EXERCISE_CAP,
        )
    ]
    one = [n for n in ONE_DAY if n in facts]
    parts += [
        "## One-day workshop",
        "",
        "The day follows one thread: what a tensor is in memory. Creating tensors from data, storage and "
        "views, strides, dtypes. Speed, the GPU and `torch.compile` need these first (module 09 names 05 "
        "and 07 as prerequisites, 07 names 00-06): they are the second day of the two-day workshop.",
        "",
        *_format([one], facts, ONE_DAY_CAPS),
    ]
    rest = [m.number for m in modules if m.number not in one]
    if rest:
        parts += [f"Self-study after the day: modules {', '.join(rest)}.", ""]
    parts += ["## Two-day workshop", "", *_format(TWO_DAY, facts, ONE_DAY_CAPS)]
    taught = {n for day in TWO_DAY for n in day}
    left = [m.number for m in modules if m.number not in taught]
    if left:
        parts += [f"Self-study after the two days: modules {', '.join(left)}.", ""]
    compile_modules = ", ".join(
        m.number for m in modules if "compiler" in m.needs and m.number not in COMPILER_THROUGHOUT
    )
    parts += [
        ROOM.format(
            colab_runtimes=colab_runtimes(modules),
            compile_modules=compile_modules,
            throughout=", ".join(COMPILER_THROUGHOUT),
        ),
        troubleshooting(),
        CHECKLIST,
        "## Module by module",
        "",
    ]
    for f in facts.values():
        m = f.module
        time = f"{m.minutes[0]} min lesson + {m.minutes[1]} min exercises" if m.minutes else ""
        core = plan(m, cap=EXERCISE_CAP)
        prereq = ", ".join(m.prerequisites) or "none"
        parts += [
            f"### {m.number} · {m.title}",
            "",
            f"*{time}* (core path: {core.teach} + {core.exercises} min) · prerequisites: {prereq} · "
            f"lesson `notebooks/{m.stem}.ipynb`, exercises `exercises/{m.stem}.ipynb`, "
            f"answers `solutions/{m.stem}.ipynb`",
            "",
            "**Objectives**",
            "",
            *[f"{i}. {o}" for i, o in enumerate(f.objectives, 1)],
            "",
            "**Key points**",
            "",
            *[f"* {k}" for k in f.key_points],
            "",
        ]
        if f.mistakes:
            parts += [
                "**Mistakes learners make** (each shown with its real error in the lesson's Common mistakes)",
                "",
                *[f"* {k}" for k in f.mistakes],
                "",
            ]
        notes = instructor_notes(m.number)
        for name in NOTE_SECTIONS:
            if notes.get(name):
                parts += [f"**{name}**", "", notes[name], ""]
    return "\n".join(parts).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/INSTRUCTORS.md is out of date")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = GUIDE.read_text(encoding="utf-8") if GUIDE.exists() else ""
        if current != text:
            print("docs/INSTRUCTORS.md is out of date: run `python -m torchcourse.authoring.guide`")
            return 1
        print("docs/INSTRUCTORS.md is current")
        return 0
    GUIDE.parent.mkdir(exist_ok=True)
    GUIDE.write_text(text, encoding="utf-8")
    print(f"wrote {GUIDE.relative_to(ROOT)} ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
