"""deploy() with MCP servers and skills: config entries, targets and partial support, conflicts
between deployments, options. Every test asserts the files on disk."""

from __future__ import annotations

import json
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

from agenttools_runtime import paths
from agenttools_runtime.clients import get_client
from agenttools_runtime.deploy import deploy, deployed
from agenttools_runtime.errors import (
    AgentSkillBackupsLeft,
    AgentSkillNotInstalled,
    AgentSkillsDisabled,
    AgentSkillsNotDeployed,
    DeploymentExists,
    DuplicateBundleConfigKey,
    InvalidMCPServerNameOption,
    InvalidSkillsDirectory,
    MCPServerNotRemoved,
    MCPServersNotDeployed,
    UnknownInstallLocation,
    UnsupportedSkillsClient,
)
from agenttools_runtime.mcp.install import read_server_entries
from tests.helpers.state import rewrite_record, save_entry

from .conftest import bundle, inline, server, snapshot, write_skill


def entries(config: Path, client: str) -> dict[str, dict[str, object]]:
    return read_server_entries(config, get_client(client))


def no_warnings() -> warnings.catch_warnings[None]:
    ctx = warnings.catch_warnings()
    ctx.__enter__()
    warnings.simplefilter("error")
    return ctx


def test_servers_and_skills_to_claude_code_and_back(home: Path, state: Path) -> None:
    config = home / ".claude.json"
    config.write_text('{"theme": "dark", "mcpServers": {"theirs": {"command": "x"}}}\n')
    tools = bundle("weather", [inline("forecast")], [server("weather"), server("radar")])
    dep = deploy("claude-code", tools)
    found = entries(config, "claude-code")
    assert set(found) == {"theirs", "weather", "radar"}
    assert found["weather"]["command"] == "uvx"
    assert json.loads(config.read_text())["theme"] == "dark"
    assert (home / ".claude" / "skills" / "forecast" / "SKILL.md").exists()
    assert dep.server == "weather"
    assert dep.mcp_server_names == ["weather", "radar"]
    assert dep.config_file == config
    assert dep.config_keys == ["weather", "radar"]
    dep.remove()
    assert set(entries(config, "claude-code")) == {"theirs"}
    assert json.loads(config.read_text())["theme"] == "dark"
    assert not (home / ".claude" / "skills" / "forecast").exists()
    assert deployed() == []


def test_mcp_server_name_option(home: Path) -> None:
    dep = deploy("cursor", bundle("one", servers=[server("s")]), mcp_server_name="custom")
    assert set(entries(home / ".cursor" / "mcp.json", "cursor")) == {"custom"}
    assert dep.config_keys == ["custom"]
    with pytest.raises(InvalidMCPServerNameOption, match='"two" has 2 servers'):
        deploy("cursor", bundle("two", servers=[server("a"), server("b")]), mcp_server_name="k")


def test_an_ad_hoc_server_deployment_resolves_to_no_bundle(home: Path) -> None:
    """A server given as a value has no name to resolve later: ``agent_tools()`` is None
    (not whatever a distribution might offer under that name), like an ad hoc bundle."""
    dep = deploy("cursor", server("adhoc-server"))
    assert dep.toolset_type == "MCPServer" and dep.location is None
    assert dep.agent_tools() is None
    assert deploy("codex", bundle("adhoc", [inline("x")])).agent_tools() is None
    assert deploy("claude-code").agent_tools().name == "agenttools"  # built-in: resolved


def test_duplicate_config_keys_in_one_bundle(home: Path) -> None:
    with pytest.raises(DuplicateBundleConfigKey, match='"same"'):
        deploy("cursor", bundle("b", servers=[server("a", key="same"), server("b", key="same")]))
    assert not (home / ".cursor").exists()


# -- conflicts ---------------------------------------------------------------------------------


def test_same_config_key_in_the_same_file_conflicts(home: Path, state: Path) -> None:
    first = deploy("cursor", bundle("first", servers=[server("a", key="shared")]))
    before = snapshot(home, state)
    with pytest.raises(DeploymentExists, match=first.uuid):
        deploy("cursor", bundle("second", servers=[server("b", key="shared")]))
    assert snapshot(home, state) == before
    second = deploy(
        "cursor", bundle("second", servers=[server("b", key="shared")]), overwrite="upgrade"
    )
    found = entries(home / ".cursor" / "mcp.json", "cursor")
    assert found["shared"]["args"] == ["b-mcp"]
    assert [d.uuid for d in deployed()] == [second.uuid]


def test_one_toolset_to_two_custom_config_files(home: Path, tmp_path: Path) -> None:
    tools = bundle("b", servers=[server("s")])
    one = deploy("cursor", tools, config=tmp_path / "one.json")
    two = deploy("cursor", tools, config=tmp_path / "two.json")
    assert one.scope is None and two.scope is None
    assert "s" in entries(tmp_path / "one.json", "cursor")
    assert "s" in entries(tmp_path / "two.json", "cursor")
    again = deploy("cursor", tools, config=tmp_path / "one.json")  # identical: nothing to do
    assert again.unchanged and again.uuid == one.uuid
    with pytest.raises(DeploymentExists):
        deploy("cursor", bundle("b", servers=[server("t")]), config=tmp_path / "one.json")


def test_replacement_keeps_config_keys_it_writes_again(home: Path) -> None:
    config = home / ".cursor" / "mcp.json"
    deploy("cursor", bundle("b", servers=[server("kept"), server("dropped")]))
    second = deploy("cursor", bundle("b", servers=[server("kept")]), overwrite="upgrade")
    assert set(entries(config, "cursor")) == {"kept"}
    second.remove()
    assert entries(config, "cursor") == {}


def test_removal_keeps_keys_another_deployment_records(home: Path, tmp_path: Path) -> None:
    # two deployments that record the same key in the same file (e.g. a replacement that
    # could not remove the old one completely): removing one must not remove the other's
    config = tmp_path / "shared.json"
    a = deploy("cursor", bundle("a", servers=[server("k")]), config=config)
    b = deploy("zed", bundle("b", servers=[server("k")]), config=tmp_path / "zed.json")
    assert a.uuid != b.uuid
    from agenttools_runtime.deploy import records

    forged = records.read_record(records.record_path(b.uuid, paths.deployments_dir()))
    forged = replace(forged, mcp_servers=a.record.mcp_servers)
    rewrite_record(forged)
    a.remove()
    assert "k" in entries(config, "cursor")


def test_unremovable_entry_is_reported(home: Path, state: Path) -> None:
    dep = deploy("cursor", bundle("b", servers=[server("s")]))
    config = home / ".cursor" / "mcp.json"
    ours = json.dumps(entries(config, "cursor")["s"])
    config.write_text("{ not json")
    with pytest.warns(MCPServerNotRemoved, match='"s" could not be removed'):
        result = dep.remove()
    assert config.read_text() == "{ not json"
    # the result says so (the CLI exits 1), and the record keeps what is left, so removing
    # again after fixing the file finishes
    assert not result.removed and [e.key for e in result.left] == ["s"]
    assert result.to_json()["ok"] is False and result.to_json()["removed"] is None
    (left,) = deployed()
    assert left.uuid == dep.uuid and left.config_keys == ["s"]
    config.write_text(f'{{"mcpServers": {{"s": {ours}, "mine": {{"command": "y"}}}}}}')
    assert left.remove().removed
    assert set(entries(config, "cursor")) == {"mine"}
    assert deployed() == []


# -- targets and partial support ---------------------------------------------------------------


def test_bundle_with_skills_to_lm_studio_deploys_the_servers_and_warns(home: Path) -> None:
    tools = bundle("mixed", [inline("unused")], [server("s")])
    with pytest.warns(AgentSkillsNotDeployed, match='"mixed" were not installed because LM Studio'):
        dep = deploy("lm-studio", tools)
    assert "s" in entries(home / ".lmstudio" / "mcp.json", "lm-studio")
    assert dep.skipped == ["unused"]
    assert dep.agent_skills == []
    assert [type(w) for w in dep.warnings] == [AgentSkillsNotDeployed]


def test_skills_only_bundle_to_lm_studio_fails(home: Path, state: Path) -> None:
    with pytest.raises(UnsupportedSkillsClient, match="LM Studio"):
        deploy("lm-studio", bundle("skills", [inline("s")]))
    assert snapshot(home) == {}
    assert deployed() == []


def test_builtin_bundle_to_lm_studio_deploys_the_server_without_warning(home: Path) -> None:
    ctx = no_warnings()
    try:
        dep = deploy("lm-studio")
    finally:
        ctx.__exit__(None, None, None)
    assert "agenttools" in entries(home / ".lmstudio" / "mcp.json", "lm-studio")
    assert dep.skipped == ["agenttools"]
    assert dep.location == "builtin"


def test_builtin_bundle_to_claude_desktop(home: Path, tmp_path: Path) -> None:
    import sys

    if sys.platform.startswith("linux"):
        # Claude Desktop has no config file on Linux: the MCP failure, since the bundle has a
        # server
        with pytest.raises(UnknownInstallLocation, match="Claude Desktop"):
            deploy("claude-desktop")
    config = tmp_path / "claude_desktop_config.json"
    ctx = no_warnings()
    try:
        dep = deploy("claude-desktop", config=config)
    finally:
        ctx.__exit__(None, None, None)
    assert "agenttools" in entries(config, "claude-desktop")
    assert dep.skills_directory is None
    assert dep.skipped == ["agenttools"]
    assert not (home / ".claude").exists()


def test_builtin_bundle_leaves_a_conflicting_skill_out(home: Path) -> None:
    theirs = write_skill(home / ".cursor" / "skills" / "agenttools", body="Someone else's.\n")
    the_plan = deploy("cursor", dry_run=True)
    assert the_plan.ok and "agenttools: left out (the rest is deployed): conflict" in (
        the_plan.render()
    )
    with pytest.warns(AgentSkillNotInstalled, match='"agenttools" was not installed'):
        dep = deploy("cursor")
    assert "Someone else's." in (theirs / "SKILL.md").read_text()
    assert dep.not_installed == ["agenttools"]
    assert dep.agent_skills == []
    assert "agenttools" in entries(home / ".cursor" / "mcp.json", "cursor")
    forced = deploy("cursor", overwrite="all")
    assert "Someone else's." not in (theirs / "SKILL.md").read_text()
    assert forced.agent_skills == ["agenttools"]


def test_project_target_without_project_mcp_support_deploys_skills_and_warns(
    home: Path, tmp_path: Path
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    tools = bundle("mixed", [inline("proj-skill")], [server("s")])
    with pytest.warns(MCPServersNotDeployed, match="Cursor does not support MCP servers"):
        dep = deploy(("cursor", project), tools)
    assert (project / ".cursor" / "skills" / "proj-skill" / "SKILL.md").exists()
    assert dep.mcp_server_names == []
    assert not (home / ".cursor").exists()


def test_project_target_with_both(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    dep = deploy("claude-code", bundle("b", [inline("p")], [server("s")]), project=project)
    assert "s" in entries(project / ".mcp.json", "claude-code")
    assert (project / ".claude" / "skills" / "p").is_dir()
    assert dep.scope == str(project)
    dep.remove()
    assert entries(project / ".mcp.json", "claude-code") == {}
    assert not (project / ".claude" / "skills" / "p").exists()


def test_skills_dir_option(home: Path, tmp_path: Path) -> None:
    custom = tmp_path / "custom-skills"
    dep = deploy("cursor", bundle("b", [inline("here")], [server("s")]), skills_dir=custom)
    assert (custom / "here" / "SKILL.md").exists()
    assert not (home / ".cursor" / "skills").exists()
    assert "s" in entries(home / ".cursor" / "mcp.json", "cursor")
    assert dep.skills_directory == custom
    dep.remove()
    assert not (custom / "here").exists()


def test_skills_dir_that_is_a_skill_is_refused(home: Path, tmp_path: Path) -> None:
    skill = write_skill(tmp_path / "a-skill")
    with pytest.raises(InvalidSkillsDirectory):
        deploy("cursor", bundle("b", [inline("x")]), skills_dir=skill)


def test_no_skills(home: Path) -> None:
    dep = deploy("cursor", bundle("b", [inline("x")], [server("s")]), skills_dir=None)
    assert not (home / ".cursor" / "skills").exists()
    assert dep.skipped == ["x"]
    with pytest.raises(AgentSkillsDisabled):
        # checked before the target is looked at
        deploy("no-such-client", bundle("c", [inline("x")]), skills_dir=None)


def test_config_file_that_is_the_clients_own_gets_the_skills_root(
    home: Path, tmp_path: Path
) -> None:
    user = deploy(
        "cursor",
        bundle("u", [inline("u-skill")], [server("u")]),
        config=home / ".cursor" / "mcp.json",
    )
    assert user.scope == "user"
    assert (home / ".cursor" / "skills" / "u-skill").is_dir()
    project = tmp_path / "proj"
    project.mkdir()
    proj = deploy(
        "claude-code", bundle("p", [inline("p-skill")], [server("p")]), config=project / ".mcp.json"
    )
    assert proj.scope == str(project)
    assert (project / ".claude" / "skills" / "p-skill").is_dir()
    with pytest.warns(AgentSkillsNotDeployed):
        other = deploy(
            "cursor", bundle("o", [inline("o-skill")], [server("o")]), config=tmp_path / "x.json"
        )
    assert other.skills_directory is None


def test_dry_run_changes_nothing_and_lists_the_plan(home: Path, state: Path) -> None:
    existing = deploy("cursor", bundle("b", [inline("one")], [server("s")]))
    write_skill(home / ".cursor" / "skills" / "two", body="theirs\n")
    before = snapshot(home, state)
    the_plan = deploy(
        "cursor", bundle("b", [inline("one"), inline("two")], [server("s")]), dry_run=True
    )
    assert snapshot(home, state) == before
    assert not the_plan.ok
    text = the_plan.render()
    assert 'write entry "s"' in text
    assert "one: keep the installed directory (identical)" in text
    assert "two: conflict" in text
    assert (
        f'would fail: The agent tools "b" are already deployed to Cursor (deployment {existing.uuid})'
        in text
    )
    data = the_plan.to_json()
    assert [s["action"] for s in data["skills"]] == ["reference", None]
    forced = deploy(
        "cursor",
        bundle("b", [inline("one"), inline("two")], [server("s")]),
        dry_run=True,
        overwrite="all",
    )
    assert forced.ok and [r.uuid for r in forced.replaced] == [existing.uuid]
    assert snapshot(home, state) == before


def test_builtin_skill_upgrades_without_upgrade_level(home: Path) -> None:
    """A copy of the built-in skill written by an older agenttools (same identifier, older
    version, unchanged since) is upgraded when another deployment brings the current one."""
    from agenttools_runtime.deploy import registry

    first = deploy("copilot-cli")
    skill = home / ".copilot" / "skills" / "agenttools"
    key = first.record.installed[0].registry_key
    old_text = "---\nname: agenttools\ndescription: Old.\n---\n\nOld body.\n"
    (skill / "SKILL.md").write_text(old_text)
    from agenttools_runtime.skills.hashing import installed_hashes

    entry = registry.load_entry(key)
    assert entry is not None
    save_entry(replace(entry, hashes=installed_hashes(skill)[0], version="0.0.1"))
    second = deploy("vscode")  # shares ~/.copilot/skills; no overwrite level given
    assert "Old body." not in (skill / "SKILL.md").read_text()
    after = registry.load_entry(key)
    assert after is not None and after.version == second.record.installed[0].version != "0.0.1"
    assert sorted(after.references) == sorted([first.uuid, second.uuid])


def test_servers_only_bundle_to_a_project_without_project_mcp_fails(tmp_path: Path) -> None:
    from agenttools_runtime.errors import UnsupportedMCPClientProject

    project = tmp_path / "project"
    project.mkdir()
    with pytest.raises(UnsupportedMCPClientProject, match="Cursor"):
        deploy(("cursor", project), bundle("b", servers=[server("s")]))
    assert list(project.iterdir()) == []
    assert not (tmp_path / "agenttools-state").exists()  # failed before taking the lock


def test_a_server_the_client_cannot_take_fails_before_anything(home: Path, tmp_path: Path) -> None:
    from agenttools_runtime.errors import UnsupportedTransport
    from agenttools_runtime.mcp.server import MCPServer

    remote = MCPServer(name="remote", url="https://example.org/mcp", transport="sse")
    config = tmp_path / "config.toml"
    with pytest.raises(UnsupportedTransport, match="sse"):
        deploy("codex", bundle("r", servers=[server("local"), remote]), config=config)
    assert not config.exists()
    assert not (tmp_path / "agenttools-state").exists()


def test_dry_run_creates_no_state_takes_no_lock_and_does_not_sweep(home: Path, state: Path) -> None:
    """A dry run only reads: on a fresh machine it creates neither the state directory nor
    the lock file, and it does not run the sweep (a stale entry's directory stays until a
    real deploy or removal)."""
    import shutil

    the_plan = deploy("cursor", bundle("b", [inline("one")], [server("s")]), dry_run=True)
    assert the_plan.ok and not state.exists() and snapshot(home) == {}
    gone = deploy("cursor", bundle("gone", [inline("stale-skill")]))
    shutil.rmtree(state / "deployments" / gone.uuid)  # its reference is now stale
    before = snapshot(home, state)
    the_plan = deploy("cursor", bundle("b", [inline("one")]), dry_run=True)
    assert the_plan.ok and snapshot(home, state) == before
    deploy("cursor", bundle("b", [inline("one")]))  # the real deploy sweeps
    assert not (home / ".cursor" / "skills" / "stale-skill").exists()


def test_dry_run_says_which_config_entries_it_would_replace(home: Path, state: Path) -> None:
    """The plan tells a new key from one a recorded deployment wrote, from one agenttools did
    not write (a conflict without --force: removing the deployment would put it back) and
    from an identical one (kept); a config file that does not parse is a failure of the
    plan, as of the deploy."""
    config = home / ".cursor" / "mcp.json"
    ours = deploy("cursor", bundle("ours", servers=[server("mine")]))
    data = json.loads(config.read_text())
    data["mcpServers"]["theirs"] = {"command": "their-tool"}
    data["mcpServers"]["same"] = dict(data["mcpServers"]["mine"], args=["same-mcp"])
    config.write_text(json.dumps(data))
    before = snapshot(home, state)
    tools = bundle("b", servers=[server(n) for n in ("mine", "theirs", "fresh", "same")])
    the_plan = deploy("cursor", tools, dry_run=True, overwrite="upgrade")
    assert [r.uuid for r in the_plan.replaced] == [ours.uuid]
    assert [e.tag for e in the_plan.errors] == ["MCPServerEntryExists"]
    existing = {s["config_key"]: s["existing"] for s in the_plan.to_json()["mcp_servers"]}
    assert existing == {"mine": "deployed", "theirs": "foreign", "fresh": "none",
                        "same": "identical"}  # fmt: skip
    text = the_plan.render()
    assert 'write entry "theirs" (server theirs): replaces an entry agenttools did not' in text
    assert 'write entry "mine" (server mine): replaces the entry of a recorded' in text
    assert 'write entry "fresh" (server fresh)\n' in text
    assert 'write entry "same" (server same): already there, identical' in text
    assert f'would fail: The MCP server configuration "theirs" in {config} was not' in text
    assert deploy("cursor", tools, dry_run=True, overwrite="all").ok
    assert snapshot(home, state) == before
    config.write_text('{"mcpServers": {')
    before = snapshot(home, state)
    broken = deploy("cursor", tools, dry_run=True, overwrite="upgrade")
    assert not broken.ok and "would fail: " in broken.render()
    assert broken.to_json()["errors"][0]["tag"] == "ConfigFileUnparseable"
    assert snapshot(home, state) == before


def test_leftover_backups_beside_the_skills_root_are_reported_and_kept(home: Path) -> None:
    root = home / ".claude" / "skills"
    root.mkdir(parents=True)
    leftover = home / ".claude" / ".agenttools-backup-0123456789abcdef"
    (leftover / "my-skill").mkdir(parents=True)
    (leftover / "my-skill" / "SKILL.md").write_text("---\nname: my-skill\n---\nmine\n")
    with pytest.warns(AgentSkillBackupsLeft, match="agenttools-backup-0123456789abcdef") as got:
        dep = deploy("claude-code", bundle("weather", [inline("forecast")]))
    assert any(isinstance(w.message, AgentSkillBackupsLeft) for w in got)
    assert any(isinstance(w, AgentSkillBackupsLeft) for w in dep.warnings)
    assert (leftover / "my-skill" / "SKILL.md").read_text().endswith("mine\n")  # never touched
    assert (root / "forecast" / "SKILL.md").is_file()
