"""``agenttools mcp install|uninstall|list`` through ``main(argv)``, with hand-made installed
distributions on ``--path``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from tests.helpers.venvs import activate, fake_distribution, fake_site

WEATHER = {"weather": {"module": "weather_tools.server", "env": {"WEATHER_UNITS": "metric"}}}


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = fake_site(tmp_path / "site")
    fake_distribution(site, "weather-tools", servers=WEATHER)
    fake_distribution(site, "other-tools", servers={"helper": {"command": "helper-mcp"}})
    activate(monkeypatch, site)  # (its servers' commands: console scripts there)
    return site


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_install_list_uninstall(home: Path, site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = home / ".claude.json"
    config.write_text('{\n  "numStartups": 3\n}\n')
    status, out, _ = run(
        capsys, "mcp", "install", "claude-code", "weather-tools/weather", "--path", str(site)
    )
    assert status == 0 and 'installed MCP server "weather"' in out
    entry = json.loads(config.read_text())["mcpServers"]["weather"]
    assert entry["args"] == ["-m", "weather_tools.server"]
    assert Path(entry["command"]).is_absolute()

    status, out, _ = run(capsys, "mcp", "list", "claude-code", "--json")
    data = json.loads(out)
    assert status == 0 and data["entries"]["weather"] == entry and data["scope"] == "user"
    status, out, _ = run(capsys, "mcp", "list", "claude-code")
    assert "weather" in out and "-m weather_tools.server" in out

    status, out, _ = run(capsys, "mcp", "uninstall", "claude-code", "weather")
    assert status == 0 and "removed" in out
    assert config.read_text() == '{\n  "numStartups": 3\n}\n'  # as it was: no empty container
    status, out, _ = run(capsys, "mcp", "uninstall", "claude-code", "weather", "--json")
    assert status == 0 and json.loads(out)["removed"] is False


def test_uninstall_of_dist_server_takes_its_config_key(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    site = fake_site(tmp_path / "site")
    keyed = {"keyed": {"command": "keyed-mcp", "config-key": "kd"}}
    fake_distribution(site, "keyed-tools", servers=keyed)
    activate(monkeypatch, site)
    assert run(capsys, "mcp", "install", "cursor", "keyed-tools/keyed", "--path", str(site))[0] == 0
    config = home / ".cursor" / "mcp.json"
    assert list(json.loads(config.read_text())["mcpServers"]) == ["kd"]
    argv = ("mcp", "uninstall", "cursor", "keyed-tools/keyed", "--path", str(site), "--json")
    status, out, _ = run(capsys, *argv, "--name", "keyed")  # --name wins: not installed
    assert status == 0 and json.loads(out)["key"] == "keyed" and not json.loads(out)["removed"]
    status, out, _ = run(capsys, *argv)
    assert status == 0 and json.loads(out)["key"] == "kd" and json.loads(out)["removed"]
    status, out, _ = run(capsys, "mcp", "uninstall", "cursor", "kd", "--json")  # a bare key
    assert status == 0 and json.loads(out)["key"] == "kd" and not json.loads(out)["removed"]


def test_bare_name_and_key_override(
    home: Path, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(
        capsys, "mcp", "install", "cursor", "helper", "--name", "h", "--path", str(site), "--json"
    )
    assert status == 0 and json.loads(out)["key"] == "h"
    assert (
        json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]["h"]["command"]
        == "helper-mcp"
    )


def test_project_and_config(
    home: Path, site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    status, _, _ = run(
        capsys, "mcp", "install", "codex", "weather", "--project", str(project), "--path", str(site)
    )
    assert (
        status == 0 and "[mcp_servers.weather]" in (project / ".codex" / "config.toml").read_text()
    )
    custom = tmp_path / "custom.yaml"
    status, _, _ = run(
        capsys, "mcp", "install", "goose", "weather", "--config", str(custom), "--path", str(site)
    )
    assert status == 0 and "cmd:" in custom.read_text()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["mcp", "install", "claude-code", "nope"], 'No MCP server found for name "nope"'),
        (["mcp", "install", "claude-code", "missing-dist/x"], "missing-dist"),
        (["mcp", "install", "not-a-client", "weather"], 'Unknown client "not-a-client"'),
        (
            ["mcp", "install", "claude-desktop", "weather"],
            "Unable to determine the MCP configuration",
        ),
    ],
)
def test_errors_are_one_line(
    home: Path, site: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, _, err = run(capsys, *argv, "--path", str(site))
    assert status == 1 and message in err and "Traceback" not in err


def test_unparseable_config_is_reported(
    home: Path, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = home / ".claude.json"
    config.write_text('{"mcpServers": {,}}')
    status, _, err = run(capsys, "mcp", "install", "claude-code", "weather", "--path", str(site))
    assert status == 1 and "line 1, column 17" in err
    assert config.read_text() == '{"mcpServers": {,}}'


def test_file_system_errors_are_one_line(
    home: Path, site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    status, _, err = run(
        capsys,
        "mcp",
        "install",
        "cursor",
        "weather",
        "--config",
        str(blocker / "mcp.json"),
        "--path",
        str(site),
    )
    assert status == 1 and "Traceback" not in err
    assert err == f"agenttools: Cannot access {blocker / 'mcp.json'}: Not a directory (ENOTDIR).\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["install", "cursor", "weather", "--path", "{site}"],
        ["uninstall", "cursor", "weather"],
        ["list", "cursor"],
    ],
    ids=["install", "uninstall", "list"],
)
def test_a_file_system_error_names_the_path_it_is_about(
    home: Path,
    site: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
) -> None:
    """Bug: any file-system error of mcp install, uninstall and list was said as
    ConfigFileInvalid, 'Cannot edit <the client's config file>: …; it was not changed.', so a
    file where agenttools' state directory goes was blamed on the config file (and list
    said 'edit'); the CLI's general handler names the path and the operation
    (FileOperationFailed), as every other command does (and StateDirectoryUnusable names the
    state directory that is a file)."""
    state = tmp_path / "state"
    monkeypatch.setenv("AGENTTOOLS_HOME", str(state))
    state.mkdir()
    (state / "deployments").write_text("not a directory\n")
    config = home / ".cursor" / "mcp.json"
    config.parent.mkdir()
    config.write_text('{"mcpServers": {"weather": {"command": "x"}}}\n')
    if argv[0] == "list":  # (a read: the config file's parent is a file)
        config = tmp_path / "not-a-dir" / "mcp.json"
        config.parent.write_text("")
        argv = [*argv, "--config", str(config)]
    given = [a.format(site=site) for a in argv]
    status, out, _ = run(capsys, "mcp", *given, "--json")
    error = json.loads(out)["error"]
    # (a file where the deployments directory goes is said as what it is: its own error)
    tag = "FileOperationFailed" if argv[0] == "list" else "StateDirectoryUnusable"
    assert status == 1 and error["tag"] == tag, error
    gone_wrong = config if argv[0] == "list" else state / "deployments"
    assert error["path"] == str(gone_wrong) and "Cannot edit" not in error["message"]


@pytest.mark.parametrize("given", ["=sk-NEVER-PRINTED-7", "sk-NEVER-PRINTED-7"])
def test_an_env_assignment_without_a_name_never_shows_its_value(
    home: Path, site: Path, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    secret = "sk-NEVER-PRINTED-7"
    argv = ["mcp", "install", "claude-code", "weather-tools/weather", "--path", str(site)]
    status, out, err = run(capsys, *argv, "--env", given)
    assert status == 2 and "#1 is not NAME=VALUE" in err and secret not in out + err
    assert not (home / ".claude.json").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["deploy", "claude-code", "units-tools/units-tools"],
        ["mcp", "install", "claude-code", "units-tools/units"],
    ],
    ids=["deploy", "mcp install"],
)
def test_env_assignments_are_read_alike_by_deploy_and_mcp_install(
    home: Path, site: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """One reading of ``--env NAME=VALUE`` for every command: the name without the spaces
    around it, the value as given; a name of spaces is no name. (``mcp install`` took
    " UNITS" for a setting of that name, and " " for a name.)"""
    units = {"choices": ["metric", "imperial"], "default": "metric"}
    server = {"module": "weather_tools.server", "env": {"UNITS": units}}
    fake_distribution(site, "units-tools", servers={"units": server}, schema=2)
    where = ["--path", str(site)]
    status, _, err = run(capsys, *argv, *where, "--env", " UNITS =imperial")
    assert status == 0, err
    (entry,) = json.loads((home / ".claude.json").read_text())["mcpServers"].values()
    assert entry["env"] == {"UNITS": "imperial"}
    status, out, err = run(capsys, *argv, *where, "--env", " =sk-NEVER-PRINTED-8", "--force")
    assert status == 2 and "--env #1 is not NAME=VALUE" in err
    assert "sk-NEVER-PRINTED-8" not in out + err
