"""The state index and what it makes cheap: lookups that read only the entries and records a
deploy touches, state written without an index (by an earlier agenttools) still working, and
an identical redeploy that writes nothing."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from agenttools_runtime import paths
from agenttools_runtime.deploy import deploy, deployed, index, records, registry
from agenttools_runtime.errors import AgentSkillInUse, DeploymentExists
from tests.helpers.faults import inject
from tests.helpers.state import iter_entries

from .conftest import bundle, inline, server, write_skill
from .invariants import inconsistencies


def test_a_deploy_reads_the_entries_and_records_it_touches_not_all(
    home: Path, state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(40):
        deploy(("cursor", "codex", "zed")[i % 3], bundle(f"old-{i}", [inline(f"old-{i}")]))
    reads = {"entries": 0, "records": 0}
    real_entry, real_record = registry.load_entry, records.read_record

    def count_entry(key: str, state: object = None) -> object:
        reads["entries"] += 1
        return real_entry(key, state)  # type: ignore[arg-type]

    def count_record(path: Path) -> object:
        reads["records"] += 1
        return real_record(path)

    monkeypatch.setattr(registry, "load_entry", count_entry)
    monkeypatch.setattr(records, "read_record", count_record)
    deploy("claude-code", bundle("new", [inline(f"n{i}") for i in range(5)], [server("s")]))
    # one look per new skill (a miss), none of the 40 existing entries or records
    assert reads == {"entries": 5, "records": 0}


def test_state_written_without_an_index_keeps_working(home: Path, state: Path) -> None:
    shared = write_skill(home / "sources" / "shared")
    one = deploy("codex", bundle("one", [shared]))
    two = deploy("goose", bundle("two", [shared]))
    state_paths = paths.state_paths()
    shutil.rmtree(state_paths.index.parent)  # as an earlier agenttools left it: no index
    for entry in iter_entries():  # and entries without the stat cache
        data = json.loads(registry.entry_path(entry.key).read_text())
        data.pop("stats", None)
        registry.entry_path(entry.key).write_text(json.dumps(data))
    three = deploy("zed", bundle("three", [shared]))  # the same directory, found by key
    assert state_paths.index.exists()
    (entry,) = iter_entries()
    assert sorted(entry.references) == sorted([one.uuid, two.uuid, three.uuid])
    with pytest.warns(AgentSkillInUse):
        one.remove()
        two.remove()
    three.remove()
    assert not (home / ".agents" / "skills" / "shared").exists()
    assert inconsistencies(state) == []


def test_a_corrupt_index_is_rebuilt(home: Path, state: Path) -> None:
    dep = deploy("cursor", bundle("b", [inline("x")]))
    paths.state_paths().index.write_text("{")
    other = deploy("cursor", bundle("c", [inline("x")]))  # the shared entry is found
    (entry,) = iter_entries()
    assert sorted(entry.references) == sorted([dep.uuid, other.uuid])
    assert json.loads(paths.state_paths().index.read_text())["schema"] == index.INDEX_SCHEMA


def test_a_record_added_behind_the_index_is_seen(home: Path, state: Path) -> None:
    dep = deploy("cursor", bundle("b", [inline("x")], [server("s")]))
    copy = records.read_record(records.record_path(dep.uuid, state / "deployments"))
    shutil.rmtree(records.record_dir(dep.uuid, state / "deployments"))
    deployed_uuid = "00000000-0000-4000-8000-000000000000"
    records.write_record(replace(copy, uuid=deployed_uuid), state / "deployments")
    with pytest.raises(DeploymentExists):
        deploy("cursor", bundle("b", [inline("x")], [server("s")]))


def test_an_identical_redeploy_writes_nothing_and_keeps_the_id(home: Path, state: Path) -> None:
    tools = bundle("same", [inline("a"), inline("b")], [server("s")])
    first = deploy("claude-code", tools)
    with inject() as counter:
        again = deploy("claude-code", tools, overwrite="upgrade")
    assert counter.count == 0, counter.log
    assert again.uuid == first.uuid
    assert [d.uuid for d in deployed()] == [first.uuid]
    # a real change still goes through the whole journaled path
    changed = deploy(
        "claude-code", bundle("same", [inline("a", "new\n"), inline("b")], [server("s")]),
        overwrite="upgrade",
    )  # fmt: skip
    assert changed.uuid != first.uuid
    assert [d.uuid for d in deployed()] == [changed.uuid]
    assert (home / ".claude" / "skills" / "a" / "SKILL.md").read_text().endswith("new\n")


def test_a_skill_edited_behind_the_stat_cache_is_still_seen(home: Path, state: Path) -> None:
    """The cache decides only what writes nothing: replacing a directory hashes it first."""
    from agenttools_runtime.errors import AgentSkillModified

    tools_v1 = bundle("b", [inline("edited", "one\n")])
    deploy("cursor", tools_v1)
    skill = home / ".cursor" / "skills" / "edited" / "SKILL.md"
    stat = skill.stat()
    data = skill.read_bytes().replace(b"one", b"two")  # same size
    skill.write_bytes(data)
    os.utime(skill, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same mtime
    with pytest.raises(AgentSkillModified):
        deploy("cursor", bundle("b", [inline("edited", "three\n")]), overwrite="upgrade")
    assert skill.read_bytes() == data
