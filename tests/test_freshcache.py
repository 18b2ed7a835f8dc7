"""torchcourse.freshcache: an empty inductor cache for a fresh process that holds inductor's CPU
instruction-set test programs and nothing a verdict could depend on (17.5's check and lesson 17's
facts count the FX graph cache hits and misses of such a process)."""

from __future__ import annotations

from pathlib import Path

from torchcourse.grading import freshcache


def test_the_seed_holds_only_the_instruction_set_probes():
    seed = freshcache._seed()
    assert seed is not None, "the seed could not be built on this machine"
    names = {p.name for p in seed.iterdir()}
    assert names, "the seed is empty: inductor built no instruction-set test program"
    assert not names & {"fxgraph", "aotautograd", "kernel", "triton"}, names
    assert any(f.suffix == ".so" for p in seed.iterdir() for f in p.iterdir()), names


def test_a_seed_holding_cache_entries_is_refused(tmp_path, monkeypatch):
    polluted = tmp_path / "seed"
    (polluted / "ab").mkdir(parents=True)
    (polluted / "ab" / "cab.so").write_bytes(b"")
    (polluted / "fxgraph").mkdir()
    monkeypatch.setattr(freshcache, "_seed_path", lambda: polluted)
    assert freshcache._seed() is None
    made = freshcache.empty_cache_dir(tmp_path / "cache")
    assert made.is_dir() and not any(made.iterdir()), "with no usable seed, the cache starts empty"


def test_the_fresh_cache_is_a_copy(tmp_path):
    made = freshcache.empty_cache_dir(tmp_path / "cache")
    seed = freshcache._seed()
    assert sorted(p.relative_to(made) for p in made.rglob("*")) == sorted(p.relative_to(seed) for p in seed.rglob("*"))
    for f in made.rglob("*.so"):
        f.unlink()  # the copy is the process's own: changing it leaves the seed whole
    assert any(Path(seed).rglob("*.so"))
