"""Target resolution: scope, location key, config file and skills root per target form."""

from __future__ import annotations

from pathlib import Path

import pytest

from agenttools_runtime import clients, paths
from agenttools_runtime.deploy.targets import resolve_target
from agenttools_runtime.errors import (
    InvalidProjectDirectory,
    NoSkillsLocation,
    UnknownClient,
    UnknownInstallLocation,
    UnsupportedMCPClientProject,
    UnsupportedSkillsClient,
)


def test_user_scope(home: Path) -> None:
    t = resolve_target("ClaudeCode")
    assert (t.client.id, t.scope, t.location_key) == ("claude-code", "user", "user")
    assert t.config_file == home / ".claude.json"
    assert t.skills_root == home / ".claude" / "skills"
    assert t.mcp_problem is None and t.skills_problem is None


def test_unsupported_components_are_problems_not_errors(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = resolve_target("lm-studio")
    assert t.skills_root is None and isinstance(t.skills_problem, UnsupportedSkillsClient)
    monkeypatch.setattr(clients, "normalize_os", lambda os_name=None: "unix")
    t = resolve_target("claude-desktop")
    assert t.config_file is None and isinstance(t.mcp_problem, UnknownInstallLocation)


def test_project_scope(tmp_path: Path) -> None:
    t = resolve_target("cursor", project=tmp_path)
    assert t.scope == str(tmp_path)
    assert t.location_key == paths.canonical_path_key(tmp_path)
    assert isinstance(t.mcp_problem, UnsupportedMCPClientProject)
    assert t.skills_root == tmp_path / ".cursor" / "skills"
    with pytest.raises(InvalidProjectDirectory):
        resolve_target("cursor", project=tmp_path / "missing")


def test_explicit_config_file(home: Path, tmp_path: Path) -> None:
    t = resolve_target("zed", config=tmp_path / "settings.json")
    assert t.scope is None
    assert t.location_key == paths.canonical_path_key(tmp_path / "settings.json")
    assert t.skills_root is None and isinstance(t.skills_problem, NoSkillsLocation)
    own = resolve_target("codex", config=home / ".codex" / "config.toml")
    assert own.scope == "user" and own.skills_root == home / ".agents" / "skills"
    proj = resolve_target("vscode", config=tmp_path / ".vscode" / "mcp.json")
    assert proj.scope == str(tmp_path) and proj.skills_root == tmp_path / ".github" / "skills"


def test_skills_dir_override_and_disable(tmp_path: Path) -> None:
    t = resolve_target("lm-studio", skills_dir=tmp_path / "s")
    assert t.skills_root == tmp_path / "s" and t.skills_problem is None
    t = resolve_target("cursor", skills_dir=None)
    assert t.skills_root is None and t.skills_disabled


def test_unknown_client() -> None:
    with pytest.raises(UnknownClient):
        resolve_target("nope")
