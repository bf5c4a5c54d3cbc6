"""The client table (clients.py + clients.json) against the spec's tables, transcribed here
independently: every client's MCP and skills locations on every OS, lookups, Antigravity's
marker, every error, and ``agenttools clients --json``."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.clients import (
    SUPPORTED_CLIENTS,
    SUPPORTED_MCP_CLIENTS,
    Client,
    all_clients,
    client_for_config_file,
    get_client,
    mcp_config_location,
    normalize_os,
    project_mcp_config_location,
    project_skills_location,
    skills_location,
)
from agenttools_runtime.detection import detected_clients
from agenttools_runtime.errors import (
    InvalidProjectDirectory,
    UnknownClient,
    UnknownInstallLocation,
    UnknownSkillsLocation,
    UnsupportedMCPClient,
    UnsupportedMCPClientProject,
    UnsupportedSkillsClient,
    UnsupportedSkillsClientProject,
)

OSES = ("macos", "windows", "unix")
VSCODE_USER = {
    "macos": "Library/Application Support/Code/User",
    "windows": "AppData/Roaming/Code/User",
    "unix": ".config/Code/User",
}


def everywhere(path: str | None) -> dict[str, str | None]:
    return dict.fromkeys(OSES, path)


# id -> (CamelCase name, display name, aliases, format, container,
#        MCP config per OS (home-relative), project MCP config, skills, project skills)
# From research/wolfram-agenttools.md §1.2 and the spec's "Client Skill Locations" table.
EXPECTED: dict[str, tuple[Any, ...]] = {
    "amazon-q": ("AmazonQ", "Amazon Q Developer", ("AmazonQDeveloper", "Q", "QDeveloper"),
                 "json", ("mcpServers",), everywhere(".aws/amazonq/mcp.json"),
                 ".amazonq/mcp.json", None, None),
    "antigravity": ("Antigravity", "Antigravity",
                    ("GoogleAntigravity", "AntigravityCLI", "GoogleAntigravityCLI"),
                    "json", ("mcpServers",), everywhere(".gemini/antigravity/mcp_config.json"),
                    ".agents/mcp_config.json", ".gemini/antigravity/skills", ".agents/skills"),
    "augment-code": ("AugmentCode", "Augment Code", ("Auggie", "Augment"), "json",
                     ("mcpServers",), everywhere(".augment/settings.json"), None,
                     ".augment/skills", ".augment/skills"),
    "augment-code-ide": ("AugmentCodeIDE", "Augment Code IDE", ("AugmentIDE", "AuggieIDE"),
                         "json", (), {
                             os_: f"{user}/globalStorage/augment.vscode-augment/"
                             "augment-global-state/mcpServers.json"
                             for os_, user in VSCODE_USER.items()
                         }, None, ".augment/skills", ".augment/skills"),
    "claude-code": ("ClaudeCode", "Claude Code", (), "json", ("mcpServers",),
                    everywhere(".claude.json"), ".mcp.json", ".claude/skills", ".claude/skills"),
    "claude-desktop": ("ClaudeDesktop", "Claude Desktop", ("Claude",), "json", ("mcpServers",),
                       {"macos": "Library/Application Support/Claude/claude_desktop_config.json",
                        "windows": "AppData/Roaming/Claude/claude_desktop_config.json",
                        "unix": None}, None, None, None),
    "cline": ("Cline", "Cline", (), "json", ("mcpServers",), {
                  os_: f"{user}/globalStorage/saoudrizwan.claude-dev/settings/"
                  "cline_mcp_settings.json"
                  for os_, user in VSCODE_USER.items()
              }, None, ".cline/skills", ".cline/skills"),
    "codex": ("Codex", "Codex CLI", ("OpenAICodex",), "toml", ("mcp_servers",),
              everywhere(".codex/config.toml"), ".codex/config.toml", ".agents/skills",
              ".agents/skills"),
    "continue": ("Continue", "Continue", (), "yaml", ("mcpServers",),
                 everywhere(".continue/config.yaml"), ".continue/mcpServers/agenttools.yaml",
                 ".continue/skills", ".continue/skills"),
    "copilot-cli": ("CopilotCLI", "Copilot CLI", ("Copilot",), "json", ("mcpServers",),
                    everywhere(".copilot/mcp-config.json"), None, ".copilot/skills",
                    ".github/skills"),
    "cursor": ("Cursor", "Cursor", (), "json", ("mcpServers",), everywhere(".cursor/mcp.json"),
               None, ".cursor/skills", ".cursor/skills"),
    "gemini-cli": ("GeminiCLI", "Gemini CLI", ("Gemini",), "json", ("mcpServers",),
                   everywhere(".gemini/settings.json"), ".gemini/settings.json", ".agents/skills", ".agents/skills"),
    "goose": ("Goose", "Goose", (), "yaml", ("extensions",),
              {"macos": ".config/goose/config.yaml",
               "windows": "AppData/Roaming/Block/goose/config/config.yaml",
               "unix": ".config/goose/config.yaml"}, None, ".agents/skills", ".agents/skills"),
    "junie": ("Junie", "Junie", ("JetBrainsJunie",), "json", ("mcpServers",),
              everywhere(".junie/mcp/mcp.json"), ".junie/mcp/mcp.json", ".junie/skills",
              ".junie/skills"),
    "kimi-code": ("KimiCode", "Kimi Code", ("Kimi", "KimiCLI"), "json", ("mcpServers",),
                  everywhere(".kimi/mcp.json"), None, ".kimi/skills", ".kimi/skills"),
    "kiro": ("Kiro", "Kiro", (), "json", ("mcpServers",), everywhere(".kiro/settings/mcp.json"),
             ".kiro/settings/mcp.json", ".kiro/skills", ".kiro/skills"),
    "lm-studio": ("LMStudio", "LM Studio", (), "json", ("mcpServers",),
                  everywhere(".lmstudio/mcp.json"), None, None, None),
    "opencode": ("OpenCode", "OpenCode", (), "json", ("mcp",),
                 everywhere(".config/opencode/opencode.json"), "opencode.json",
                 ".config/opencode/skills", ".opencode/skills"),
    "qwen-code": ("QwenCode", "Qwen Code", ("Qwen",), "json", ("mcpServers",),
                  everywhere(".qwen/settings.json"), ".qwen/settings.json", ".qwen/skills",
                  ".qwen/skills"),
    "vscode": ("VisualStudioCode", "Visual Studio Code", ("VSCode",), "json", ("servers",),
               {os_: f"{user}/mcp.json" for os_, user in VSCODE_USER.items()},
               ".vscode/mcp.json", ".copilot/skills", ".github/skills"),
    "windsurf": ("Windsurf", "Windsurf", ("Codeium",), "json", ("mcpServers",),
                 everywhere(".codeium/windsurf/mcp_config.json"), None,
                 ".codeium/windsurf/skills", ".windsurf/skills"),
    "zed": ("Zed", "Zed", (), "json", ("context_servers",),
            {"macos": ".config/zed/settings.json", "windows": "AppData/Roaming/Zed/settings.json",
             "unix": ".config/zed/settings.json"}, ".zed/settings.json", ".agents/skills",
            ".agents/skills"),
}  # fmt: skip


def test_22_clients_with_the_design_ids() -> None:
    assert len(SUPPORTED_CLIENTS) == 22
    assert sorted(SUPPORTED_CLIENTS) == sorted(EXPECTED)
    assert list(all_clients()) == sorted(EXPECTED)
    assert set(SUPPORTED_MCP_CLIENTS) == set(EXPECTED)  # every client has an MCP config today


@pytest.mark.parametrize("client_id", sorted(EXPECTED))
def test_client_metadata(client_id: str) -> None:
    name, display, aliases, fmt, container, _mcp, project_mcp, skills, project_skills = EXPECTED[
        client_id
    ]
    c = get_client(client_id)
    assert (c.id, c.name, c.display_name, c.config_format, c.container) == (
        client_id,
        name,
        display,
        fmt,
        container,
    )
    assert set(aliases) <= set(c.aliases)
    assert c.supports_mcp
    assert c.supports_project is (project_mcp is not None)
    assert c.supports_skills is (skills is not None)
    assert c.supports_project_skills is (project_skills is not None)
    assert str(c) == display


@pytest.mark.parametrize("os_name", OSES)
@pytest.mark.parametrize("client_id", sorted(EXPECTED))
def test_mcp_config_location(home: Path, client_id: str, os_name: str) -> None:
    expected = EXPECTED[client_id][5][os_name]
    if expected is None:
        with pytest.raises(UnknownInstallLocation) as info:
            mcp_config_location(client_id, os_name)
        assert str(info.value).startswith(
            "Unable to determine the MCP configuration file of Claude Desktop on Unix."
        )
    else:
        assert mcp_config_location(client_id, os_name) == home / expected


@pytest.mark.parametrize("os_name", OSES)
@pytest.mark.parametrize("client_id", sorted(EXPECTED))
def test_skills_location(home: Path, client_id: str, os_name: str) -> None:
    expected = EXPECTED[client_id][7]
    if expected is None:
        with pytest.raises(UnsupportedSkillsClient) as info:
            skills_location(client_id, os_name)
        display = EXPECTED[client_id][1]
        assert str(info.value) == (
            f"No automatic agent skill installation support for client {display}."
        )
    else:
        assert skills_location(client_id, os_name) == home / expected


@pytest.mark.parametrize("client_id", sorted(EXPECTED))
def test_project_locations(tmp_path: Path, client_id: str) -> None:
    project_mcp, project_skills = EXPECTED[client_id][6], EXPECTED[client_id][8]
    if project_mcp is None:
        with pytest.raises(UnsupportedMCPClientProject):
            project_mcp_config_location(client_id, tmp_path)
    else:
        assert project_mcp_config_location(client_id, tmp_path) == tmp_path / project_mcp
    if project_skills is None:
        with pytest.raises(UnsupportedSkillsClientProject) as info:
            project_skills_location(client_id, tmp_path)
        assert "project-level agent skill installation" in str(info.value)
    else:
        assert project_skills_location(client_id, tmp_path) == tmp_path / project_skills


def test_locations_follow_home_at_call_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "one"))
    first = skills_location("claude-code", "unix")
    monkeypatch.setenv("HOME", str(tmp_path / "two"))
    assert first == tmp_path / "one" / ".claude" / "skills"
    assert skills_location("claude-code", "unix") == tmp_path / "two" / ".claude" / "skills"


@pytest.mark.parametrize("os_name", OSES)
def test_antigravity_marker(home: Path, os_name: str) -> None:
    assert skills_location("antigravity", os_name) == home / ".gemini" / "antigravity" / "skills"
    assert mcp_config_location("antigravity", os_name) == (
        home / ".gemini" / "antigravity" / "mcp_config.json"
    )
    # nothing is created by asking (creating config/skills early would strand legacy skills)
    assert not (home / ".gemini").exists()
    marker = home / ".gemini" / "config" / ".migrated"
    marker.parent.mkdir(parents=True)
    marker.write_text("")
    assert skills_location("antigravity", os_name) == home / ".gemini" / "config" / "skills"
    assert mcp_config_location("antigravity", os_name) == (
        home / ".gemini" / "config" / "mcp_config.json"
    )
    assert project_skills_location("antigravity", home) == home / ".agents" / "skills"


@pytest.mark.parametrize("client_id", sorted(EXPECTED))
def test_lookup_by_id_name_and_aliases_case_insensitively(client_id: str) -> None:
    name, _, aliases = EXPECTED[client_id][:3]
    for key in (client_id, name, *aliases):
        for variant in (key, key.upper(), key.lower(), key.swapcase()):
            assert get_client(variant).id == client_id, variant


def test_lookup_of_client_object_and_unknown() -> None:
    c = get_client("cursor")
    assert get_client(c) is c
    assert isinstance(c, Client)
    with pytest.raises(UnknownClient) as info:
        get_client("notepad")
    assert str(info.value).startswith('Unknown client "notepad". Known clients: amazon-q, ')
    assert "zed" in str(info.value)


def test_os_names() -> None:
    assert [
        normalize_os(n) for n in ("darwin", "MacOSX", "win32", "Windows", "linux", "freebsd13")
    ] == [
        "macos",
        "macos",
        "windows",
        "windows",
        "unix",
        "unix",
    ]
    with pytest.raises(ValueError):
        normalize_os("plan9")


def test_unknown_skills_location_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # No client lacks a skills location on one OS today; a row shaped like Claude Desktop's
    # MCP entry exercises the error.
    base = get_client("cursor")
    odd = replace(base, id="odd", skills={"macos": [".odd", "skills"]})
    assert skills_location(odd, "macos").parts[-2:] == (".odd", "skills")
    with pytest.raises(UnknownSkillsLocation) as info:
        skills_location(odd, "windows")
    assert str(info.value).startswith(
        "Unable to determine the skills location for Cursor on Windows."
    )


def test_unsupported_mcp_client_error() -> None:
    base = get_client("cursor")
    skills_only = replace(base, mcp_config=None)
    assert not skills_only.supports_mcp
    with pytest.raises(UnsupportedMCPClient) as info:
        mcp_config_location(skills_only)
    assert str(info.value) == "No automatic MCP server installation support for client Cursor."


@pytest.mark.parametrize("bad", ["missing", "file"])
def test_invalid_project_directory(tmp_path: Path, bad: str) -> None:
    path = tmp_path / bad
    if bad == "file":
        path.write_text("x")
    with pytest.raises(InvalidProjectDirectory):
        project_skills_location("cursor", path)
    with pytest.raises(InvalidProjectDirectory):
        project_mcp_config_location("claude-code", path)


def test_client_for_config_file(home: Path, tmp_path: Path) -> None:
    assert client_for_config_file(home / ".cursor" / "mcp.json") == (get_client("cursor"), None)
    assert client_for_config_file(tmp_path / "proj" / ".vscode" / "mcp.json") == (
        get_client("vscode"),
        tmp_path / "proj",
    )
    assert client_for_config_file(tmp_path / "random.json") is None


def test_detected_clients(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # (no client's executable)
    assert detected_clients() == []
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").write_text("{}")
    # written for codex, gemini-cli, goose and zed alike: it tells none of them
    (home / ".agents" / "skills").mkdir(parents=True)
    assert [c.id for c in detected_clients()] == ["cursor"]


def test_clients_cli_json(
    home: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # (no client's executable)
    (home / ".claude" / "skills").mkdir(parents=True)
    assert main(["clients", "--json", "--os", "unix"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True
    rows = {row["id"]: row for row in data["clients"]}
    assert list(rows) == sorted(EXPECTED)
    for client_id, (name, display, *_rest) in EXPECTED.items():
        mcp, project_mcp, skills, project_skills = EXPECTED[client_id][5:]
        row = rows[client_id]
        assert (row["name"], row["display_name"]) == (name, display)
        assert row["mcp_config"] == (None if mcp["unix"] is None else str(home / mcp["unix"]))
        assert row["skills"] == (None if skills is None else str(home / skills))
        assert row["project_mcp_config"] == project_mcp
        assert row["project_skills"] == project_skills
        assert row["supports_skills"] is (skills is not None)
        assert row["detected"] is (client_id == "claude-code")


def test_clients_cli_text(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["clients", "--os", "windows"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["CLIENT", "NAME", "MCP", "SKILLS", "PROJECT", "DETECTED"]
    assert str(home / "AppData" / "Roaming" / "Zed" / "settings.json") in out
    assert "claude-desktop" in out and "(no skills support)" in out


def test_docs_clients_md_matches_the_table() -> None:
    import importlib.util

    script = Path(__file__).resolve().parent.parent / "docs" / "gen_clients.py"
    spec = importlib.util.spec_from_file_location("gen_clients", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = module.render(module.load_table())
    assert module.DOC.read_text(encoding="utf-8") == text, "run: python docs/gen_clients.py"
    for client_id in EXPECTED:
        assert f"(`{client_id}`)" in text
    assert module.main(["--check"]) == 0


def test_every_skill_reads_row_says_how_it_was_checked() -> None:
    """``by`` is running (the real client, at ``verified``, on ``checked``), reading (its docs
    or source, on ``checked``) or spec (not checked: no date, no version); a row checked by
    running is one of the npm clients the real-client tests run, at the version they pin,
    and they hold the row to what that client loads (tests/clients/test_real_clients.py)."""
    import datetime

    from tests.clients.npm import CLIENTS as NPM_CLIENTS
    from tests.clients.test_real_clients import SKILL_LOADS

    for client in all_clients().values():
        reads = client.skill_reads
        if reads is None:
            continue
        assert reads.by in ("running", "reading", "spec"), client.id
        if reads.by == "spec":
            assert reads.checked is None and reads.verified is None, client.id
            continue
        assert reads.checked is not None, client.id
        datetime.date.fromisoformat(reads.checked)
        assert reads.how, client.id
        if reads.by == "running":
            assert NPM_CLIENTS[client.id].version == reads.verified, client.id
            assert client.id in SKILL_LOADS, client.id


def test_goose_reads_its_own_and_the_shared_folders(home: Path) -> None:
    """block/goose (crates/goose/src/skills/mod.rs): ~/.agents/skills, where goose itself
    writes, first; then its config folder's skills, ~/.claude/skills, ~/.config/agents/skills."""
    from agenttools_runtime.clients import skill_read_locations

    assert skill_read_locations("goose", "unix") == [
        home / ".agents" / "skills",
        home / ".config" / "goose" / "skills",
        home / ".claude" / "skills",
        home / ".config" / "agents" / "skills",
    ]
    assert skill_read_locations("goose", "windows")[1] == (
        home / "AppData" / "Roaming" / "Block" / "goose" / "config" / "skills"
    )
