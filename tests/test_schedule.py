"""The workshop schedules in docs/INSTRUCTORS.md fit a day, respect prerequisites and take the
core path; stretch exercises come last; the runtime statements hold for the stored notebooks;
every module has its instructor notes."""

from __future__ import annotations

import re

import pytest

from torchcourse.authoring import guide
from torchcourse.authoring import schedule as sched
from torchcourse.authoring.course import MODULES, ROOT, by_number, written_modules

FORMATS = {"one-day": [sched.ONE_DAY], "two-day": sched.TWO_DAY}
CAPS = {"one-day": sched.ONE_DAY_CAPS, "two-day": sched.ONE_DAY_CAPS}
DAYS = [(name, i, day) for name, days in FORMATS.items() for i, day in enumerate(days, 1)]


@pytest.mark.parametrize("name,index,numbers", DAYS, ids=[f"{n}-day{i}" for n, i, _ in DAYS])
def test_a_day_fits_with_breaks_and_slack(name, index, numbers):
    plans = sched.format_plans(numbers, CAPS[name])
    day = sched.schedule(plans)
    assert max(day.stretches) <= sched.MAX_STRETCH, f"{name} day {index}: {day.stretches} min between breaks"
    assert day.content <= sched.MAX_CONTENT, f"{name} day {index}: {day.content} min of content"
    assert day.end <= sched.DAY_END, f"{name} day {index} ends at {day.end // 60}:{day.end % 60:02d}"
    whats = [what for _, what, _ in day.rows]
    assert whats[0] == sched.OPENING[0] and whats[-1] == sched.WRAP_UP[0]
    assert "Lunch" in whats
    # every block of every module is in the table, once
    for p in plans:
        n = p.module.number
        lesson = sum(m for _, what, m in day.rows if what.startswith(f"{n} · "))
        assert lesson == p.teach, (n, lesson, p.teach)
        assert sum(m for _, what, m in day.rows if what.startswith(f"{n}: exercises")) == pytest.approx(
            p.exercises, abs=2
        )


def test_the_schedule_never_runs_90_minutes_without_a_break():
    # a synthetic day of long lessons: the scheduler splits them
    long = [sched.plan(m) for m in written_modules()[:8]]
    day = sched.schedule(long)
    assert max(day.stretches) <= sched.MAX_STRETCH


@pytest.mark.parametrize("name", FORMATS)
def test_no_module_comes_before_its_prerequisites(name):
    order = [n for day in FORMATS[name] for n in day]
    for i, n in enumerate(order):
        missing = [p for p in by_number(n).prerequisites if p not in order[:i]]
        assert not missing, f"{name}: module {n} is taught before its prerequisites {missing}"


def test_prerequisites_are_read_from_the_lessons():
    assert by_number("07").prerequisites == ["00", "01", "02", "03", "04", "05", "06"]  # "Modules 00-06"
    assert by_number("09").prerequisites == ["05", "07"]
    assert set(by_number("12").prerequisites) >= {"04", "09", "11"}


def test_workshops_take_the_core_path():
    for m in {by_number(n) for day in FORMATS["two-day"] for n in day} | {by_number(n) for n in sched.ONE_DAY}:
        text = m.path("notebooks", ".py").read_text(encoding="utf-8")
        optional = [h.strip() for h in re.findall(r"^# #{2,3} (.+) \(optional\)\s*$", text, re.MULTILINE)]
        p = sched.plan(m, cap=sched.EXERCISE_CAP)
        assert p.skipped_sections == optional
        assert not set(p.exercises_done) & set(p.stretch), "a stretch exercise is scheduled in the room"
        full = sched.plan(m, core=False)
        assert p.teach <= full.teach and p.exercises <= full.exercises


def test_stretch_exercises_come_last():
    """In each exercises notebook the stretch exercises (heading ending in "(stretch)") are the
    last ones, and the registered EXERCISES follow the notebook's order."""
    import importlib

    wrong = {}
    for m in written_modules():
        ex = sched.exercises_of(m)
        flags = [s for _, s in ex]
        if flags != sorted(flags):
            wrong[m.number] = [k for k, s in ex]
            continue
        registered = [e.id for e in importlib.import_module(f"torchcourse.grading.exercises.m{m.number}").EXERCISES]
        assert registered == [k for k, _ in ex], m.number
    assert not wrong, f"stretch exercises not last: {wrong}"


def test_runtime_statements_hold_for_the_stored_notebooks():
    bound = sched.RUNTIME_BOUND_S
    for folder in ("notebooks", "solutions", "exercises"):
        times = sched.stored_runtimes(folder)
        assert len(times) == len(written_modules()), f"{folder}: a notebook has no recorded cell timings"
        slow = {k: round(v) for k, v in times.items() if v >= bound}
        assert not slow, f"{folder}: stored runs over {bound} s: {slow}"
    rendered = guide.GUIDE.read_text(encoding="utf-8")
    assert f"runs top to bottom in under {bound // 60} minutes" in rendered
    # every "in under N seconds/minutes" statement a learner reads about whole notebooks
    for path in [ROOT / "notebooks" / "00_start_here.py", guide.GUIDE]:
        text = re.sub(r"\s+", " ", path.read_text(encoding="utf-8").replace("\n#", "\n"))
        for n, unit in re.findall(r"top to bottom (?:that way, )?in under (\d+) (seconds|minutes)", text):
            limit = int(n) * (60 if unit == "minutes" else 1)
            slowest = max(sched.stored_runtimes("notebooks").values())
            assert slowest < limit, f"{path.name} says 'in under {n} {unit}'; a stored run took {slowest:.0f} s"


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.number)
def test_every_module_has_instructor_notes(module):
    notes = guide.instructor_notes(module.number)
    assert notes, f"docs/instructor-notes/{module.number}.md is missing"
    for section in guide.NOTE_SECTIONS:
        assert notes.get(section), f"docs/instructor-notes/{module.number}.md: '## {section}' is missing or empty"
