"""Leaving no litter (fake dist-info trees, in-process CLI, real files under a temporary HOME
and a real git repository): what a deploy created — a config file, the container key it added
to a user's file, the folders above its skills — goes with the last deployment that used it,
unless someone touched it; and ``clients`` does not count what only agenttools created as a
client's trace."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.clients import all_clients
from agenttools_runtime.deploy import deployed
from tests.helpers.venvs import fake_distribution, fake_site, skill_files
from tests.helpers.weather import weather

TOOLS = "weather-tools/weather-tools"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def files(root: Path) -> dict[str, bytes | None]:
    """Every path under *root*: a file's bytes, None for a directory."""
    return {
        p.relative_to(root).as_posix(): None if p.is_dir() else p.read_bytes()
        for p in sorted(root.rglob("*"))
    }


def git_status(project: Path) -> str:
    done = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = fake_site(tmp_path / "site")
    weather(path, "1.2.0")
    return path


def test_a_project_that_started_empty_is_empty_again(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    # every client with a project scope, MCP or skills
    targets = [
        c.id
        for c in all_clients().values()
        if c.project_mcp_config is not None or c.project_skills is not None
    ]
    assert len(targets) >= 15
    code, out, err = run(
        capsys, "deploy", ",".join(targets), TOOLS, "--path", str(site), "--project", str(project)
    )
    assert code == 0, out + err
    assert len(deployed()) == len(targets)
    made = git_status(project)
    for created in (".mcp.json", ".codex/config.toml", "opencode.json", ".vscode/mcp.json"):
        assert created in made
    assert ".claude/skills/weather-report/SKILL.md" in made

    code, out, err = run(capsys, "remove", "--all")
    assert code == 0, err
    assert git_status(project) == ""
    assert sorted(os.listdir(project)) == [".git"]
    assert deployed() == []


def test_a_users_config_file_gets_its_bytes_back(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    # files the user had: agenttools adds its container (opencode's "mcp", codex's table)
    # and takes away exactly what it added
    opencode = home / ".config" / "opencode" / "opencode.json"
    opencode.parent.mkdir(parents=True)
    opencode.write_text('{\n    "$schema": "https://opencode.ai/config.json",\n  "theme": "x"\n}')
    codex = home / ".codex" / "config.toml"
    codex.parent.mkdir()
    codex.write_text('# my settings\nmodel = "o3"\n\n# profiles follow\n[profiles.fast]\nx = 1\n')
    claude = home / ".claude.json"
    claude.write_text('{"numStartups": 3}\n')
    before = files(home)
    code, _, err = run(capsys, "deploy", "opencode,codex,claude-code", TOOLS, "--path", str(site))
    assert code == 0, err
    assert '"mcp"' in opencode.read_text() and "mcp_servers" in codex.read_text()
    assert "mcpServers" in claude.read_text()
    assert run(capsys, "remove", "--all")[0] == 0
    assert files(home) == before


@pytest.mark.parametrize(
    ("client", "relative", "original"),
    [
        ("goose", ".config/goose/config.yaml", "extensions:\n"),
        ("goose", ".config/goose/config.yaml", "# mine\nextensions: ~  # later\nx: 1\n"),
        ("goose", ".config/goose/config.yaml", "extensions: {a: {type: builtin}}  # flow\n"),
        ("zed", ".config/zed/settings.json", '{"context_servers": null}\n'),
        ("claude-code", ".claude.json", '{\n  "mcpServers": null,\n  "x": 1\n}'),
    ],
)
def test_a_null_or_flow_container_gets_its_bytes_back(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    site: Path,
    client: str,
    relative: str,
    original: str,
) -> None:
    config = home / relative
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(original)
    before = files(home)
    code, _, err = run(capsys, "deploy", client, TOOLS, "--path", str(site), "--no-skills")
    assert code == 0, err
    assert "weather" in config.read_text()
    assert run(capsys, "remove", "--all")[0] == 0
    assert config.read_text() == original
    assert files(home) == before


@pytest.mark.parametrize(
    ("client", "relative", "original"),
    [
        ("goose", ".config/goose/config.yaml", "# mine\nextensions: ~  # later\nx: 1\n"),
        ("goose", ".config/goose/config.yaml", "extensions: {a: {type: builtin}}  # flow\n"),
        ("zed", ".config/zed/settings.json", '{"context_servers": null}\n'),
        ("codex", ".codex/config.toml", "# mine\nmodel = 'o3'\n\n[profiles.fast]\nx = 1"),
        ("opencode", ".config/opencode/opencode.json", '{"theme": "x"}'),
    ],
)
def test_mcp_install_and_uninstall_give_the_bytes_back(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    site: Path,
    client: str,
    relative: str,
    original: str,
) -> None:
    """What the write of the one entry adds is read from the text it wrote (no probe)."""
    config = home / relative
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(original)
    code, _, err = run(
        capsys, "mcp", "install", client, "weather-tools/weather", "--path", str(site)
    )
    assert code == 0, err
    assert "weather" in config.read_text()
    code, _, err = run(capsys, "mcp", "uninstall", client, "weather")
    assert code == 0, err
    assert config.read_text() == original


def test_a_null_container_the_user_filled_stays(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    config = home / ".config" / "zed" / "settings.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"context_servers": null}\n')
    assert run(capsys, "deploy", "zed", TOOLS, "--path", str(site), "--no-skills")[0] == 0
    data = json.loads(config.read_text())
    data["context_servers"]["mine"] = {"command": "mine"}
    config.write_text(json.dumps(data))
    assert run(capsys, "remove", "--all")[0] == 0
    assert json.loads(config.read_text()) == {"context_servers": {"mine": {"command": "mine"}}}


def test_what_the_user_touched_stays(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    code, _, err = run(
        capsys, "deploy", "claude-code", TOOLS, "--path", str(site), "--project", str(project)
    )
    assert code == 0, err
    # the user adds a server of their own to the .mcp.json agenttools created, and a file of
    # their own to the .claude folder it created
    mcp = project / ".mcp.json"
    data = json.loads(mcp.read_text())
    data["mcpServers"]["mine"] = {"command": "mine"}
    mcp.write_text(json.dumps(data, indent=2))
    (project / ".claude" / "settings.json").write_text("{}\n")
    code, _, err = run(capsys, "remove", "--all")
    assert code == 0, err
    assert json.loads(mcp.read_text()) == {"mcpServers": {"mine": {"command": "mine"}}}
    assert files(project) == {
        ".claude": None,
        ".claude/settings.json": b"{}\n",
        ".mcp.json": mcp.read_bytes(),
    }


def test_the_last_deployment_using_a_created_file_takes_it(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, tmp_path: Path
) -> None:
    other = fake_site(tmp_path / "other")
    fake_distribution(
        other,
        "notes",
        "2.0",
        servers={"notes": {"module": "notes.server"}},
        skills={"note-taking": skill_files("note-taking")},
    )
    assert run(capsys, "deploy", "codex", TOOLS, "--path", str(site))[0] == 0
    assert run(capsys, "deploy", "codex", "notes", "--path", str(other))[0] == 0
    config = home / ".codex" / "config.toml"
    assert run(capsys, "remove", "--bundle", "weather-tools")[0] == 0
    assert "notes" in config.read_text() and "weather" not in config.read_text()
    assert (home / ".agents" / "skills" / "note-taking").is_dir()
    assert not (home / ".agents" / "skills" / "weather-report").exists()
    assert run(capsys, "remove", "--bundle", "notes")[0] == 0
    assert not (home / ".codex").exists() and not (home / ".agents").exists()


def test_a_folder_made_again_by_the_user_is_theirs(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    assert run(capsys, "deploy", "cursor", TOOLS, "--path", str(site))[0] == 0
    skills = home / ".cursor" / "skills"
    # the user moves agenttools' skills folder away and makes one of their own there
    aside = home / "aside"
    skills.rename(aside)
    skills.mkdir()
    code, _, _ = run(capsys, "remove", "--all")
    assert code == 0
    assert skills.is_dir()  # empty, but not the folder agenttools created
    assert (aside / "weather-report" / "SKILL.md").is_file()  # moved: no longer where it was
    assert not (home / ".cursor" / "mcp.json").exists()


def test_detection_ignores_what_only_agenttools_created(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    site: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))

    def detection() -> dict[str, dict[str, object]]:
        data = json.loads(run(capsys, "clients", "--json")[1])
        return {c["id"]: c for c in data["clients"]}

    assert run(capsys, "deploy", "cursor,codex", TOOLS, "--path", str(site))[0] == 0
    found = detection()
    assert not found["cursor"]["detected"] and not found["codex"]["detected"]
    assert {t["path"] for t in found["cursor"]["ignored"]} == {  # type: ignore[union-attr]
        str(home / ".cursor"),
        str(home / ".cursor" / "mcp.json"),
        str(home / ".cursor" / "skills"),
    }
    assert str(found["codex"]["reason"]).startswith("only paths agenttools created exist (")
    out = run(capsys, "clients")[1]
    assert "  detected:     no (only paths agenttools created exist (" in out

    # the client's own traces: a file it wrote into its folder, its executable on PATH
    (home / ".cursor" / "argv.json").write_text("{}\n")
    codex = bin_dir / "codex"
    codex.write_text("#!/bin/sh\n")
    codex.chmod(codex.stat().st_mode | stat.S_IXUSR)
    found = detection()
    assert found["cursor"]["detected_by"] == [{"kind": "folder", "path": str(home / ".cursor")}]
    assert found["codex"]["detected_by"] == [
        {"kind": "executable", "path": str(codex), "name": "codex"}
    ]
    out = run(capsys, "clients")[1]
    assert f"  detected:     yes (the executable codex on PATH ({codex}))" in out
    assert f"  detected:     yes (its folder {home / '.cursor'})" in out

    # once everything is removed, what the client wrote stays, and so does its detection
    assert run(capsys, "remove", "--all")[0] == 0
    assert sorted(os.listdir(home / ".cursor")) == ["argv.json"]
    assert not (home / ".codex").exists()
    assert detection()["cursor"]["detected"]


def test_a_copy_another_client_reads_goes_with_the_last_of_them(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    # Cursor also reads ~/.claude/skills: its deployment uses the copy Claude Code's made
    assert run(capsys, "deploy", "claude-code,cursor", TOOLS, "--path", str(site))[0] == 0
    copy = home / ".claude" / "skills" / "weather-report"
    assert copy.is_dir() and not (home / ".cursor" / "skills").exists()
    assert run(capsys, "remove", "--client", "claude-code")[0] == 0
    assert copy.is_dir() and not (home / ".claude.json").exists()  # Cursor still uses it
    assert run(capsys, "remove", "--client", "cursor")[0] == 0
    assert sorted(p.name for p in home.iterdir() if p.name != ".rustup") == []
