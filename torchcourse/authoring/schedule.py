"""Workshop schedules from the lessons' measured times: which modules a format teaches, how long
each takes on the core path, and where the breaks go.

A module's minutes come from its lesson's "**Time.**" line plus a little per prediction cell; the
core path skips the lesson's ``(optional)`` sections and leaves stretch exercises (and, past a
cap, later ones) for after the day. :func:`schedule` lays a day out with an opening, breaks no
more than :data:`MAX_STRETCH` minutes apart, lunch and a wrap-up. ``docs/INSTRUCTORS.md``
(:mod:`torchcourse.authoring.guide`) prints the result; ``tests/test_schedule.py`` holds the limits.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from torchcourse.authoring.course import ROOT, Module, by_number

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


def format_plans(numbers: list[str], caps: dict[str, int] | None = None) -> list[Plan]:
    """The core-path plans of one day's modules, with :data:`EXERCISE_CAP` or the day's own cap."""
    caps = caps or {}
    return [plan(by_number(n), cap=caps.get(n, EXERCISE_CAP)) for n in numbers]


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
