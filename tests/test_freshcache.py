"""torchcourse.freshcache: an empty inductor cache for a fresh process that holds inductor's CPU
instruction-set test programs and nothing a verdict could depend on (17.5's check and lesson 17's
facts count the FX graph cache hits and misses of such a process)."""

from __future__ import annotations

import shutil
from pathlib import Path

from torchcourse.grading import freshcache


def test_the_seed_holds_only_the_instruction_set_probes():
    seed = freshcache._seed()
    assert seed is not None, "the seed could not be built on this machine"
    names = {p.name for p in seed.iterdir()}
    assert names, "the seed is empty: inductor built no instruction-set test program"
    assert not names & {"fxgraph", "aotautograd", "kernel", "triton"}, names
    assert any(f.suffix == ".so" for p in seed.iterdir() for f in p.iterdir()), names


def test_a_seed_holding_cache_entries_is_replaced(tmp_path, monkeypatch):
    polluted = tmp_path / "seed"
    (polluted / "ab").mkdir(parents=True)
    (polluted / "ab" / "cab.so").write_bytes(b"")
    (polluted / "fxgraph").mkdir()
    monkeypatch.setattr(freshcache, "_seed_path", lambda: polluted)
    seed = freshcache._seed()  # built again, in a fresh Python (seconds)
    assert seed == polluted and not (seed / "fxgraph").exists() and not (seed / "ab" / "cab.so").exists()
    made = freshcache.empty_cache_dir(tmp_path / "cache")
    assert not (made / "fxgraph").exists() and freshcache._only_isa_probes(made)
    empty = freshcache.empty_cache_dir(tmp_path / "empty", seeded=False)
    assert empty.is_dir() and not any(empty.iterdir())


def test_the_fresh_cache_is_a_copy(tmp_path):
    made = freshcache.empty_cache_dir(tmp_path / "cache")
    seed = freshcache._seed()
    assert sorted(p.relative_to(made) for p in made.rglob("*")) == sorted(p.relative_to(seed) for p in seed.rglob("*"))
    for f in made.rglob("*.so"):
        f.unlink()  # the copy is the process's own: changing it leaves the seed whole
    assert any(Path(seed).rglob("*.so"))


def test_a_damaged_seed_does_not_fail_a_right_answer(tmp_path, monkeypatch):
    """An answer can write into the seed (it lives in the learner's temporary folder): one that
    overwrote its programs made every later 17.5 check fail, right answers too. The check now runs its
    fresh process once more on a truly empty directory and discards the seed."""
    from tests.test_checks import EXERCISES
    from torchcourse.grading.checks import PASS, evaluate

    damaged = tmp_path / "seed"
    shutil.copytree(freshcache._seed(), damaged)
    for so in damaged.rglob("*.so"):
        so.write_bytes(b"not an ELF")
    monkeypatch.setattr(freshcache, "_seed_path", lambda: damaged)
    ex = next(e for e in EXERCISES if e.id == "17.5")
    verdict = evaluate(ex, ex.reference)
    assert verdict[0] == PASS, verdict
    assert not damaged.exists() or not any(f.read_bytes() == b"not an ELF" for f in damaged.rglob("*.so"))
