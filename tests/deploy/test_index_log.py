"""The state index's log (``index.log``): an operation appends what it changed instead of
rewriting the index; a load replays the lines of the index's generation and stops at a torn
one; the log is folded into a new index once it has grown; the result always equals the
index rebuilt from the entries and records."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenttools_runtime import paths
from agenttools_runtime.deploy import deploy, index
from agenttools_runtime.errors import AgentSkillInUse
from tests.helpers.state import iter_entries

from .conftest import bundle, inline, server
from .invariants import inconsistencies


def stored(state: paths.StatePaths) -> index.StateIndex:
    found = index.read_stored(state)
    assert found is not None
    return found


def same_as_rebuilt(state: paths.StatePaths) -> None:
    """What a load answers equals the index rebuilt from the files; and so does what is
    stored (the index with its log replayed) when its log is whole."""
    fresh = index.rebuild(state)
    kept = index.read_stored(state)
    for loaded in (index.load(state), *([kept] if kept and kept.ops is not None else [])):
        assert loaded.skills == fresh.skills and loaded.records == fresh.records
        assert loaded.entry_names == fresh.entry_names
        assert loaded.record_names == fresh.record_names


def test_an_operation_appends_to_the_log_and_leaves_the_index(home: Path, state: Path) -> None:
    deploy("codex", bundle("one", [inline("a"), inline("b")], [server("s1")]))
    state_paths = paths.state_paths()
    deploy("zed", bundle("two", [inline("c")]))  # the index is written whole once...
    base = state_paths.index.read_bytes()
    inode = state_paths.index.stat().st_ino
    three = deploy("cursor", bundle("three", [inline("d"), inline("e")], [server("s3")]))
    three.remove()  # ...then each operation appends a line
    assert state_paths.index.read_bytes() == base
    assert state_paths.index.stat().st_ino == inode
    assert len(state_paths.index_log.read_bytes().splitlines()) >= 2
    same_as_rebuilt(state_paths)
    assert stored(state_paths).stamp == index.stamp(state_paths)  # trusted without listings
    assert inconsistencies(state) == []


def test_a_torn_last_line_is_not_trusted_and_the_next_save_rewrites(
    home: Path, state: Path
) -> None:
    deploy("codex", bundle("one", [inline("a")]))
    deploy("zed", bundle("two", [inline("b")]))
    state_paths = paths.state_paths()
    deploy("cursor", bundle("three", [inline("c"), inline("d")]))
    log = state_paths.index_log.read_bytes()
    state_paths.index_log.write_bytes(log[: len(log) - 25])  # killed while it appended
    torn = stored(state_paths)
    assert torn.ops is None  # written whole by its next save
    same_as_rebuilt(state_paths)  # what the log lost, the listings and a rebuild restore
    deploy("goose", bundle("four", [inline("e")]))
    assert not state_paths.index_log.exists()
    same_as_rebuilt(state_paths)
    assert inconsistencies(state) == []


def test_lines_of_an_earlier_generation_are_skipped(home: Path, state: Path) -> None:
    deploy("codex", bundle("one", [inline("a")]))
    deploy("zed", bundle("two", [inline("b")]))
    state_paths = paths.state_paths()
    deploy("cursor", bundle("three", [inline("c")]))
    old_log = state_paths.index_log.read_bytes()
    # the index written anew (a rebuild), its old log left beside it (killed before deleting
    # it): the old lines describe changes the new index already holds
    index.invalidate(state_paths)
    deploy("goose", bundle("four", [inline("d")]))
    assert not state_paths.index_log.exists()
    state_paths.index_log.write_bytes(old_log)
    found = stored(state_paths)
    assert found.ops == []  # read cleanly, the old lines skipped
    assert found.skills == index.rebuild(state_paths).skills
    same_as_rebuilt(state_paths)


def test_the_log_is_folded_into_a_new_index_once_it_has_grown(
    home: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(index, "LOG_MIN_BYTES", 2_000)
    state_paths = paths.state_paths()
    generations = set()
    largest = 0
    for i in range(12):
        deploy(
            ("codex", "zed", "cursor")[i % 3],
            bundle(f"b{i}", [inline(f"s{i}-{j}") for j in range(4)]),
        )
        generations.add(stored(state_paths).generation)
        if state_paths.index_log.exists():
            largest = max(largest, state_paths.index_log.stat().st_size)
    assert len(generations) > 1  # folded at least once
    assert largest <= max(2_000, state_paths.index.stat().st_size // index.LOG_SHARE) + 4_000
    same_as_rebuilt(state_paths)


def test_a_new_registry_entry_is_created_in_place(
    home: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No temp file and rename for an entry the journal records as new (one directory
    operation); an entry that exists is still replaced atomically."""
    from agenttools_runtime import fs

    atomic: list[str] = []
    real = fs.write_bytes_atomic

    def recording(path: Path, data: bytes, *args: object, **kwargs: object) -> None:
        atomic.append(path.parent.name)
        real(path, data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(fs, "write_bytes_atomic", recording)
    shared = inline("shared")
    one = deploy("codex", bundle("one", [shared, inline("own")]))
    assert ".skill-registry" not in atomic  # two new entries: created in place
    assert len(list(iter_entries())) == 2
    two = deploy("goose", bundle("two", [shared]))  # goose reads codex's root: a reference added
    assert atomic.count(".skill-registry") == 1  # the existing entry: replaced atomically
    with pytest.warns(AgentSkillInUse):  # (one still uses "shared")
        two.remove()
    one.remove()
    assert list(iter_entries()) == []
    assert inconsistencies(state) == []
