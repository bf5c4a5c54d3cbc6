"""Deployment records: JSON with a version, unknown fields kept, published by rename."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from agenttools_runtime.deploy import deploy, records
from agenttools_runtime.deploy.records import DeploymentRecord
from agenttools_runtime.errors import InvalidDeploymentRecord
from tests.helpers.faults import inject
from tests.helpers.state import rewrite_record

from .conftest import bundle, inline, server


def test_record_has_every_field(home: Path, state: Path) -> None:
    dep = deploy("claude-code", bundle("b", [inline("s")], [server("one"), server("two", "k2")]))
    data = json.loads((state / "deployments" / dep.uuid / "deployment.json").read_text())
    assert set(data) == {
        "version", "uuid", "timestamp", "agenttools_version", "created_by", "toolset",
        "agent_tools", "client", "target", "scope", "location_key", "mcp_servers", "skills",
        "hooks", "meta", "created",
    }  # fmt: skip
    # what it created (no litter): ~/.claude.json, and ~/.claude/skills with its parent
    assert [(c["kind"], c["path"]) for c in data["created"]] == [
        ("file", str(home / ".claude.json")),
        ("dir", str(home / ".claude")),
        ("dir", str(home / ".claude" / "skills")),
    ]
    assert data["toolset"] == "one"  # the primary server
    assert data["agent_tools"] == {
        "type": "AgentTools",
        "name": "b",
        "location": None,
        "distribution": None,
        "distribution_version": None,
    }
    # (each entry also holds the digest of the declaration it was written from, and the
    # entry as written)
    assert [
        {k: v for k, v in s.items() if k not in ("declaration", "written")}
        for s in data["mcp_servers"]
    ] == [
        {"name": "one", "config_key": "one", "config_file": str(home / ".claude.json")},
        {"name": "two", "config_key": "k2", "config_file": str(home / ".claude.json")},
    ]
    assert data["mcp_servers"][1]["written"] == {
        "type": "stdio", "command": "uvx", "args": ["two-mcp"], "env": {},
    }  # fmt: skip
    assert all(len(s["declaration"]) == 64 for s in data["mcp_servers"])
    assert len(data["skills"]["installed"][0]["content"]) == 64
    assert data["target"] == {"client": "claude-code", "project": None, "config": None,
                              "skills_dir": None}  # fmt: skip
    assert data["skills"]["skipped"] == [] and data["skills"]["not_installed"] == []
    assert data["timestamp"].endswith("Z")


def test_unknown_fields_are_kept_when_read_and_rewritten(home: Path, state: Path) -> None:
    dep = deploy("cursor", bundle("b", [inline("s")]))
    path = state / "deployments" / dep.uuid / "deployment.json"
    data = json.loads(path.read_text())
    data["from_the_future"] = {"x": [1, 2]}
    data["installed"] = "a top-level name this version only uses inside skills"
    data["skills"]["future_list"] = ["f"]
    data["skills"]["installed"][0]["extra"] = 1
    data["skills"]["installed"][0]["origin"] = {"y": 2}
    path.write_text(json.dumps(data))
    record = records.read_record(path)
    assert {k: v for k, v in record.extra.items() if k != "created"} == {
        "from_the_future": {"x": [1, 2]},
        "installed": "a top-level name this version only uses inside skills",
    }
    rewrite_record(record)
    again = json.loads(path.read_text())
    assert again["from_the_future"] == {"x": [1, 2]}
    assert again["installed"] == data["installed"]
    assert again["skills"]["future_list"] == ["f"]
    assert again["skills"]["installed"][0]["extra"] == 1
    assert again["skills"]["installed"][0]["origin"] == {"y": 2}
    assert again == data
    assert DeploymentRecord.from_json(again) == record


def test_unknown_fields_of_a_server_entry_survive_a_partial_removal(
    home: Path, state: Path
) -> None:
    """A removal that cannot remove an entry rewrites the record with that entry: what a
    later version recorded about it is kept."""
    from agenttools_runtime.errors import MCPServerNotRemoved

    dep = deploy("cursor", bundle("b", [], [server("s")]))
    path = state / "deployments" / dep.uuid / "deployment.json"
    data = json.loads(path.read_text())
    data["mcp_servers"][0]["written_by"] = "a later agenttools"
    path.write_text(json.dumps(data))
    config = home / ".cursor" / "mcp.json"
    config.write_text(config.read_text() + "{ not json")
    with pytest.warns(MCPServerNotRemoved):
        dep.remove()
    kept = json.loads(path.read_text())
    assert kept["mcp_servers"] == data["mcp_servers"]


def test_unreadable_and_future_records(state: Path, tmp_path: Path) -> None:
    bad = tmp_path / "deployment.json"
    bad.write_text("[]")
    with pytest.raises(InvalidDeploymentRecord, match="cannot be read"):
        records.read_record(bad)
    bad.write_text(json.dumps({"version": "x"}))
    with pytest.raises(InvalidDeploymentRecord):
        records.read_record(bad)


def test_publishing_is_a_rename_of_a_staging_directory(home: Path, state: Path) -> None:
    with inject() as injector:
        dep = deploy("cursor", bundle("b", [inline("s")]))
    ops = [
        (op, p)
        for op, p in injector.log
        if "deployments" in str(p) and ".skill-registry" not in str(p)
    ]
    staging = state / "deployments" / f".staging-{dep.uuid}"
    assert ("mkdir", staging) in ops
    assert ("write", staging / "deployment.json") in ops
    assert ("rename", staging) in ops
    assert not staging.exists()


def test_a_failed_publish_leaves_no_staging_directory(home: Path, state: Path) -> None:
    with inject(fail_at_checkpoint="deploy:registry-written"), pytest.raises(OSError):
        deploy("cursor", bundle("b", [inline("s")]))
    assert not (state / "deployments").exists()  # rolled back: nothing, not even the folder


def test_staleness(state: Path) -> None:
    assert records.is_stale("nope", state / "deployments")
    (state / "deployments" / "half").mkdir(parents=True)
    assert records.is_stale(
        "half", state / "deployments"
    )  # a crashed write: directory without deployment.json
    (state / "deployments" / "half" / "deployment.json").write_text("garbage")
    assert not records.is_stale("half", state / "deployments")  # exists but unreadable: not stale
    assert list(records.load_records()) == []


def test_removing_an_unreadable_record_says_so(home: Path, state: Path) -> None:
    from agenttools_runtime.deploy import remove_deployment

    dep = deploy("cursor", bundle("b", [inline("s")]))
    (state / "deployments" / dep.uuid / "deployment.json").write_text("{")
    with pytest.raises(InvalidDeploymentRecord, match=dep.uuid):
        remove_deployment(dep.uuid[:8])
    assert (home / ".cursor" / "skills" / "s").is_dir()


def test_a_record_named_in_capitals_is_found_by_a_prefix_in_any_case(
    home: Path, state: Path
) -> None:
    """UUIDs are case-insensitive on input (RFC 9562): a record whose name agenttools did not
    give (in capitals) is found by a prefix as by its whole name, in either case, by
    ``remove`` as by ``verify`` (it was found by its exact name only)."""
    from agenttools_runtime.deploy import remove_deployment
    from agenttools_runtime.deploy.selection import select

    dep = deploy("cursor", bundle("b", [], [server("one")]))
    record = records.read_record(state / "deployments" / dep.uuid / "deployment.json")
    named = replace(record, uuid=dep.uuid.upper())
    shutil.rmtree(state / "deployments" / dep.uuid)
    (state / "deployments" / named.uuid).mkdir()
    rewrite_record(named)
    pool = records.load_records()
    for ident in (dep.uuid[:8], named.uuid[:8], dep.uuid, named.uuid):
        assert select(pool, ids=[ident]) == [named]
    assert remove_deployment(dep.uuid[:8]).removed
    assert records.load_records() == []


def test_removing_on_a_machine_without_deployments_creates_nothing(state: Path) -> None:
    from agenttools_runtime.deploy import remove_deployment
    from agenttools_runtime.errors import DeploymentNotFound

    with pytest.raises(DeploymentNotFound):
        remove_deployment("3f2a9c1e")
    assert not state.exists()  # no state directory, no lock file
