"""Runners: the command a module/script server is written with, per runner and scope, and
what deploy and ``mcp install`` write, record and say."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from agenttools_runtime.bundles import BUILTIN_SERVERS
from agenttools_runtime.cli import main
from agenttools_runtime.clients import get_client
from agenttools_runtime.deploy import deploy, deployed
from agenttools_runtime.errors import MCPEntryMachineSpecific, RunnerUnavailable
from agenttools_runtime.mcp.install import read_server_entries
from agenttools_runtime.mcp.runners import choose_runner, console_script
from agenttools_runtime.mcp.server import Environment, MCPServer, Origin, console_scripts
from tests.helpers.venvs import activate, fake_site, install_console_scripts
from tests.helpers.weather import weather

ENV = Environment(Path("/venv/bin/python"), Path("/venv/bin"))
ORIGIN = Origin("Weather_Tools", "1.2.0", {"weather-mcp": "weather_tools.server"})
MODULE = MCPServer(
    "weather",
    module="weather_tools.server",
    args=("--units", "metric"),
    distribution="weather-tools",
    environment=ENV,
    origin=ORIGIN,
)


def test_console_scripts_of_entry_points_txt() -> None:
    text = (
        "[console_scripts]\n"
        "weather-mcp = weather_tools.server:main\n"
        "other=pkg.cli:run [extra]\n"
        "bare = pkg.mod\n"
        "# comment\n"
        "[gui_scripts]\n"
        "gui = pkg.gui:main\n"
    )
    assert console_scripts(text) == {
        "weather-mcp": "weather_tools.server",
        "other": "pkg.cli",
        "bare": "pkg.mod",
    }
    assert console_scripts("") == {}


@pytest.mark.parametrize(
    ("runner", "project", "command"),
    [
        (None, False, ["/venv/bin/python", "-m", "weather_tools.server", "--units", "metric"]),
        (None, True, ["weather-mcp", "--units", "metric"]),
        ("python", True, ["/venv/bin/python", "-m", "weather_tools.server", "--units", "metric"]),
        ("script", False, ["weather-mcp", "--units", "metric"]),
        (
            "uvx",
            True,
            ["uvx", "--from", "Weather_Tools==1.2.0", "weather-mcp", "--units", "metric"],
        ),
    ],
)
def test_module_server_per_runner_and_scope(
    runner: str | None, project: bool, command: list[str]
) -> None:
    choice = choose_runner(MODULE, runner, project=project)
    assert choice.command_line == command
    assert choice.runner == (runner or ("script" if project else "python"))
    assert choice.chosen is (runner is None)
    assert choice.server.qualified_name == "weather-tools/weather"  # still that server
    assert choice.server.env == MODULE.env


def test_script_server_and_servers_without_a_console_script() -> None:
    script = MCPServer("w", script="weather-mcp", environment=ENV, origin=ORIGIN)
    assert choose_runner(script, None, project=False).command_line == ["/venv/bin/weather-mcp"]
    assert choose_runner(script, None, project=True).command_line == ["weather-mcp"]
    # a module no console script runs: python, also in a project (with a warning, see below)
    lonely = MCPServer("x", module="weather_tools.other", environment=ENV, origin=ORIGIN)
    assert console_script(lonely) is None
    assert choose_runner(lonely, None, project=True).runner == "python"
    with pytest.raises(RunnerUnavailable, match=r"--runner script: .*no console script"):
        choose_runner(lonely, "script", project=True)
    # two scripts in one module: which one -m runs is unknown
    two = Origin("d", "1", {"a": "m", "b": "m"})
    assert console_script(MCPServer("y", module="m", origin=two)) is None
    # an ad hoc script server has no distribution uv could install
    adhoc = MCPServer("z", script="z-mcp")
    with pytest.raises(RunnerUnavailable, match="uvx"):
        choose_runner(adhoc, "uvx", project=True)


def test_command_and_url_servers_are_written_as_declared() -> None:
    for server in (
        MCPServer("c", command="npx", args=("-y", "x")),
        MCPServer("u", url="https://example.org/mcp"),
    ):
        choice = choose_runner(server, "uvx", project=True)
        assert choice.server == server and choice.runner is None


def test_builtin_server_runs_as_agenttools_serve() -> None:
    builtin = BUILTIN_SERVERS["agenttools"]
    assert choose_runner(builtin, None, project=True).command_line == ["agenttools", "serve"]
    uvx = choose_runner(builtin, "uvx", project=False).command_line
    assert uvx is not None and uvx[:2] == ["uvx", "--from"]
    assert uvx[2].startswith("agenttools[serve]==") and uvx[3:] == ["agenttools", "serve"]


def _site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """weather-tools 1.2.0 with its console script, its environment on the PATH (the script
    runner's entry runs it by name)."""
    site = fake_site(tmp_path / "site")
    install_console_scripts(weather(site, "1.2.0"), {"weather-mcp": "weather_tools.server:main"})
    activate(monkeypatch, site)
    return site


def test_project_deploy_writes_the_console_script_and_records_the_runner(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agenttools_runtime.discovery import SearchPath

    project = tmp_path / "project"
    project.mkdir()
    search = SearchPath.for_paths([_site(tmp_path, monkeypatch)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no machine-specific warning
        dep = deploy("claude-code", "weather-tools/weather-tools", project=project, search=search)
    entry = read_server_entries(project / ".mcp.json", get_client("claude-code"))["weather"]
    assert (entry["command"], entry["args"]) == ("weather-mcp", [])
    assert dep.record.mcp_servers[0].runner == "script"
    (listed,) = deployed()
    assert listed.record.mcp_servers[0].runner == "script"  # read back from the record file
    assert dep.launches["weather"].runner == "script"

    user = deploy("cursor", "weather-tools/weather-tools", search=search)
    entry = read_server_entries(home / ".cursor" / "mcp.json", get_client("cursor"))["weather"]
    assert Path(entry["command"]).is_absolute() and entry["args"][0] == "-m"
    assert user.record.mcp_servers[0].runner == "python"


def test_project_deploy_with_runner_python_warns_that_the_file_is_machine_specific(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agenttools_runtime.discovery import SearchPath

    project = tmp_path / "project"
    project.mkdir()
    search = SearchPath.for_paths([_site(tmp_path, monkeypatch)])
    with pytest.warns(MCPEntryMachineSpecific, match="machine-specific.*--runner script"):
        dep = deploy(
            "vscode",
            "weather-tools/weather-tools",
            project=project,
            search=search,
            runner="python",
            skills_dir=None,
        )
    entry = read_server_entries(project / ".vscode" / "mcp.json", get_client("vscode"))["weather"]
    assert Path(entry["command"]).is_absolute()
    assert [w.tag for w in dep.warnings] == ["MCPEntryMachineSpecific"]


def test_deploy_cli_says_what_it_chose(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = _site(tmp_path, monkeypatch)
    project = tmp_path / "project"
    project.mkdir()
    status = main(
        [
            *["deploy", "opencode", "weather-tools/weather-tools", "--path", str(site)],
            *["--project", str(project), "--runner", "uvx", "--no-skills"],
        ]
    )
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "uvx --from weather-tools==1.2.0 weather-mcp (runner uvx:" in out
    entry = read_server_entries(project / "opencode.json", get_client("opencode"))["weather"]
    assert entry["command"] == ["uvx", "--from", "weather-tools==1.2.0", "weather-mcp"]
    status = main(
        [
            *["deploy", "codex", "weather-tools/weather-tools", "--path", str(site)],
            *["--project", str(project), "--runner", "python", "--no-skills", "--json"],
        ]
    )
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["deployment"]["mcp_servers"][0]["runner"] == "python"
    assert data["deployment"]["launches"]["weather"]["command"][1:] == [
        "-m",
        "weather_tools.server",
    ]
    assert "machine-specific" in err


def test_mcp_install_project_uses_the_console_script(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = _site(tmp_path, monkeypatch)
    project = tmp_path / "project"
    project.mkdir()
    status = main(
        [
            *["mcp", "install", "claude-code", "weather-tools/weather", "--path", str(site)],
            *["--project", str(project)],
        ]
    )
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "runs: weather-mcp (runner script:" in out
    entry = read_server_entries(project / ".mcp.json", get_client("claude-code"))["weather"]
    assert entry["command"] == "weather-mcp"
    again = [
        *["mcp", "install", "claude-code", "weather-tools/weather", "--path", str(site)],
        *["--project", str(project), "--runner", "python", "--json"],
    ]
    # nothing records what mcp install wrote: another entry over it takes --force
    assert main(again) == 1
    assert json.loads(capsys.readouterr().out)["error"]["tag"] == "MCPServerEntryExists"
    status = main([*again, "--force"])
    out, err = capsys.readouterr()
    assert status == 0 and "machine-specific" in err
    assert json.loads(out)["launch"]["runner"] == "python"
