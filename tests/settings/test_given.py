"""Values given for no setting a server declares (settings/given.py): named by where they were
given (``--env #2``, ``FILE:LINE``, ``value #1``), never by their text — a secret typed
without its name (``--env c2Vj…==``) reads as a name — in what deploy, mcp install and
configure say, with or without ``--json``, and in every file under HOME or the state."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.deploy import deployed
from tests.helpers.venvs import activate, fake_distribution, fake_site

# a secret of the shape API keys often have (base64 with its padding), and ones that are not
# a name in other ways: spaces, a dot, a quote
SECRETS = [
    "c2VjcmV0LXRva2VuLTEyMzQ1Njc4OQ==",
    "sk live 0123456789abcdef=x",
    "weather.c2VjcmV0LXRva2VuLTEy==",
    "'Bearer 9f8e7d6c5b4a39281706='",
]
TOKEN = "kept-token-value-4242"  # the declared secret's own value
SETTINGS = {
    "UNITS": {"choices": ["metric", "imperial"], "default": "metric"},
    "TOKEN": {"secret": True, "required": True},
}
SERVER = {"module": "weather_tools.server", "env": SETTINGS}
DEPLOY = ["deploy", "claude-code", "weather-tools", "--no-skills"]
INSTALL = ["mcp", "install", "claude-code", "weather-tools/weather"]
SAYS = (
    '{where} names no setting of the MCP server "weather" (its text is not shown: it may hold '
    "a secret); its settings are: TOKEN, UNITS."
)


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = fake_site(tmp_path / "venv")
    fake_distribution(site, "weather-tools", servers={"weather": SERVER}, schema=2)
    activate(monkeypatch, site)
    return site


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return status, out, err


def pieces(typed: str) -> set[str]:
    """*typed* and every 8 characters of it: none may be anywhere."""
    return {typed, *(typed[i : i + 8] for i in range(len(typed) - 7))}


def assert_never_shown(typed: str, home: Path, *texts: str) -> None:
    state = Path(os.environ["AGENTTOOLS_HOME"])
    files = [p for root in (home, state) for p in root.rglob("*") if p.is_file()]
    kept = "".join(p.read_text(errors="replace") for p in files)
    for piece in pieces(typed):
        for text in (*texts, kept):
            assert piece not in text, (piece, text)


def deploy_one(capsys: pytest.CaptureFixture[str], site: Path) -> str:
    status, _, err = run(capsys, *DEPLOY, "--path", str(site), "--env", f"TOKEN={TOKEN}")
    assert status == 0, err
    (dep,) = deployed()
    return dep.uuid


@pytest.mark.parametrize("typed", SECRETS)
@pytest.mark.parametrize("command", ["deploy", "mcp install", "configure"])
def test_a_name_of_no_setting_is_said_by_its_position(
    command: str, typed: str, home: Path, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if command == "configure":
        uid = deploy_one(capsys, site)
        argv, where = ["configure", uid, "UNITS=imperial", typed], "value #2"
    else:
        argv = [*(DEPLOY if command == "deploy" else INSTALL), "--path", str(site)]
        argv += ["--env", f"TOKEN={TOKEN}", "--env", typed]
        where = "--env #2"
    before = (home / ".claude.json").read_bytes() if command == "configure" else None
    for json_flag in ([], ["--json"]):
        status, out, err = run(capsys, *argv, *json_flag)
        assert status == 1, (out, err)
        if json_flag:
            (problem,) = [json.loads(out)["error"]]
            assert problem["tag"] == "SettingNotDeclared" and problem["given"] == where
        else:
            assert err == f"agenttools: {SAYS.format(where=where)}\n"
        assert_never_shown(typed, home, out, err)
    if before is None:
        assert not (home / ".claude.json").exists()
    else:
        assert (home / ".claude.json").read_bytes() == before


@pytest.mark.parametrize("command", ["deploy", "configure"])
def test_a_line_of_an_env_file_is_said_by_its_number(
    command: str, home: Path, site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env_file = tmp_path / "given" / ".env"
    env_file.parent.mkdir()
    env_file.write_text(f"# values\nUNITS=imperial\n\nexport {SECRETS[0]}\n", encoding="utf-8")
    if command == "configure":
        argv = ["configure", deploy_one(capsys, site)]
    else:
        argv = [*DEPLOY, "--path", str(site), "--env", f"TOKEN={TOKEN}"]
    status, out, err = run(capsys, *argv, "--env-file", str(env_file))
    assert status == 1, (out, err)
    assert err == f"agenttools: {SAYS.format(where=f'{env_file}:4')}\n"
    assert_never_shown(SECRETS[0], home, out, err)


def test_a_name_of_no_server_of_the_bundle_is_said_by_its_position(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    site = fake_site(tmp_path / "venv")
    servers = {"weather": SERVER, "alerts": {"module": "weather_tools.alerts"}}
    fake_distribution(site, "weather-tools", servers=servers, schema=2)
    activate(monkeypatch, site)
    argv = [*DEPLOY, "--path", str(site), "--env", f"weather.TOKEN={TOKEN}"]
    # a plain name in a bundle of two servers, and SERVER. before a name it does not declare
    no_server = (
        "--env #2 names no server of the bundle (its text is not shown: it may hold a "
        "secret); give SERVER.VAR=VALUE with SERVER one of: alerts, weather"
    )
    not_of_alerts = (
        '--env #2 names no setting of the MCP server "alerts" (its text is not shown: it may '
        "hold a secret); its settings are: none."
    )
    cases = [
        (SECRETS[0], no_server),
        (SECRETS[2], SAYS.format(where="--env #2")),
        (f"alerts.{SECRETS[0]}", not_of_alerts),
    ]
    for typed, says in cases:
        status, out, err = run(capsys, *argv, "--env", typed)
        assert status in (1, 2), (out, err)
        assert err == f"agenttools: {says}\n"
        assert_never_shown(typed, home, out, err)
    assert not (home / ".claude.json").exists()


def test_the_server_json_of_mcp_install_says_it_by_position_too(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    described = {
        "$schema": "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json",
        "name": "io.github.example/notes",
        "description": "Notes.",
        "version": "3.1.0",
        "packages": [
            {
                "registryType": "npm",
                "identifier": "@example/notes-mcp",
                "version": "3.1.0",
                "transport": {"type": "stdio"},
                "environmentVariables": [{"name": "NOTES_TOKEN", "isSecret": True}],
            }
        ],
    }
    path = tmp_path / "given" / "server.json"
    path.parent.mkdir()
    path.write_text(json.dumps(described), encoding="utf-8")
    argv = ["mcp", "install", "claude-code", "--server-json", str(path), "--env", SECRETS[0]]
    status, out, err = run(capsys, *argv)
    assert status == 1, (out, err)
    assert '--env #1 names no setting of the MCP server "notes"' in err
    assert err.rstrip().endswith("its settings are: NOTES_TOKEN.")
    assert_never_shown(SECRETS[0], home, out, err)


def test_a_name_given_twice_takes_the_later_value_and_shows_neither(
    home: Path, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [*DEPLOY, "--path", str(site), "--env", "TOKEN=first-value-0123", "--env"]
    status, out, err = run(capsys, *argv, f"TOKEN={TOKEN}")
    assert status == 0, err
    (entry,) = json.loads((home / ".claude.json").read_text())["mcpServers"].values()
    assert entry["env"]["TOKEN"] == TOKEN
    assert "first-value-0123" not in out + err and TOKEN not in out + err
