"""Conformance with the real clients: entries written by ``agenttools mcp install`` (our code,
for the real ``weather-tools`` wheel installed in a real venv) are listed by each client's
own ``mcp list`` — and, where the client health-checks, it starts the server and connects.
Then ``agenttools mcp uninstall`` removes them and the client no longer lists them.

Run locally: ``pytest -m clients`` (first run installs the npm packages, ~30 s).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.mcp.install import (
    install_mcp_server,
    read_server_entries,
    resolve_mcp_target,
    uninstall_mcp_server,
)
from agenttools_runtime.mcp.server import MCPServer
from tests.clients.npm import (
    CLIENTS,
    InstallOutcome,
    NpmClient,
    client_env,
    installed,
    list_servers,
    listing,
    run_client,
)
from tests.helpers.venvs import Venv, create_venv
from tests.helpers.wheels import build_sample_wheel

pytestmark = [pytest.mark.slow, pytest.mark.clients]
IN_CI = os.environ.get("CI", "").lower() == "true"


@pytest.fixture(scope="session")
def npm_clients() -> dict[str, InstallOutcome]:
    """Every npm client, installed in parallel (cached across runs; started in the background
    when the run collected this module)."""
    return installed()


@pytest.fixture(scope="session")
def weather_venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    """A venv with the real weather-tools wheel; its MCP SDK dependency is taken from the test
    environment through a ``.pth`` line (the venv has no index to install it from)."""
    wheel = build_sample_wheel("weather-tools", tmp_path_factory)
    venv = create_venv(tmp_path_factory.mktemp("weather-venv") / "venv", [wheel])
    (venv.site_packages / "test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    probe = venv.run("-c", "import mcp, weather_tools.server")
    assert probe.returncode == 0, probe.stderr
    return venv


def _client(npm_clients: dict[str, InstallOutcome], client_id: str) -> NpmClient:
    outcome = npm_clients[client_id]
    if not outcome.ok:
        message = f"{outcome.client.package}@{outcome.client.version}: {outcome.detail}"
        if IN_CI:
            pytest.fail(f"could not install {message}")
        pytest.skip(f"cannot install {message}")
    return outcome.client


@pytest.mark.parametrize("client_id", sorted(CLIENTS))
def test_client_lists_and_connects(
    client_id: str,
    npm_clients: dict[str, InstallOutcome],
    weather_venv: Venv,
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    client = _client(npm_clients, client_id)
    work = tmp_path / "work"
    work.mkdir()
    for rel, content in client.setup.items():
        target = home / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content.format(cwd=work))
    config = resolve_mcp_target(client_id).config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(client.existing)

    python = os.fspath(weather_venv.python)
    status = main(["mcp", "install", client_id, "weather-tools/weather", "--python", python])
    assert status == 0, capsys.readouterr().err
    remote = MCPServer("docs", url="http://127.0.0.1:9/mcp", headers={"X-Api-Key": "k"})
    install_mcp_server(client_id, remote)

    # where the client health-checks its servers, wait until it has connected to ours
    pattern = client.connected_pattern("weather")
    listed = list_servers(client, home, work, until=None if pattern is None else pattern.search)
    output = listed.stdout + listed.stderr
    assert listed.returncode == 0, output
    for key in ("weather", "docs", "other"):  # ours, and the user's server kept
        assert key in output, output
    if pattern is not None:
        assert pattern.search(output), output
    if client.shows_command:
        assert python in output or "weather_tools" in output, output

    assert main(["mcp", "uninstall", client_id, "weather"]) == 0
    listed = list_servers(client, home, work)
    output = listed.stdout + listed.stderr
    assert "weather" not in output and "docs" in output and "other" in output, output

    uninstall_mcp_server(client_id, "docs")
    assert set(read_server_entries(config, resolve_mcp_target(client_id).client)) == {"other"}
    if not client.rewrites_config:
        assert config.read_text() == client.existing  # every byte of the user's file is back


def test_claude_code_reads_the_entry_back(
    npm_clients: dict[str, InstallOutcome], weather_venv: Venv, home: Path, tmp_path: Path
) -> None:
    client = _client(npm_clients, "claude-code")
    assert (
        main(
            [
                "mcp",
                "install",
                "claude-code",
                "weather-tools/weather",
                "--python",
                os.fspath(weather_venv.python),
            ]
        )
        == 0
    )
    shown = run_client(client, home, tmp_path, "mcp", "get", "weather")
    assert shown.returncode == 0, shown.stderr
    assert "Type: stdio" in shown.stdout
    assert f"Command: {weather_venv.python}" in shown.stdout
    assert "Args: -m weather_tools.server" in shown.stdout
    assert "WEATHER_UNITS=metric" in shown.stdout


def test_gemini_cli_project_servers_with_the_console_script(
    npm_clients: dict[str, InstallOutcome],
    weather_venv: Venv,
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A project-scope deploy to Gemini CLI writes ``<project>/.gemini/settings.json`` with the
    portable command (the distribution's console script by name, the default runner of a
    project): ``gemini mcp list`` inside the (trusted) project starts it from the PATH and
    connects; outside the project, and after ``remove``, it is not listed."""
    client = _client(npm_clients, "gemini-cli")
    project = tmp_path / "project"
    project.mkdir()
    trusted = home / ".gemini" / "trustedFolders.json"
    trusted.parent.mkdir(parents=True)
    trusted.write_text(json.dumps({os.fspath(project): "TRUST_FOLDER"}))
    python = os.fspath(weather_venv.python)
    where = ["--project", os.fspath(project), "--python", python]
    scripts = weather_venv.python.parent  # where the teammate's environment puts weather-mcp
    # the environment activated, as where the client runs: the deploy checks the PATH too
    monkeypatch.setenv("PATH", os.pathsep.join([os.fspath(scripts), os.environ["PATH"]]))
    status = main(["deploy", "gemini-cli", "weather-tools/weather", *where, "--json"])
    out = capsys.readouterr().out
    assert status == 0, out
    deployment = json.loads(out)["deployment"]
    assert deployment["mcp_servers"][0]["runner"] == "script"
    settings = project / ".gemini" / "settings.json"
    entry = json.loads(settings.read_text())["mcpServers"]["weather"]
    assert entry["command"] == "weather-mcp" and entry["args"] == []
    assert not (home / ".gemini" / "settings.json").exists()  # the user's file is not touched

    pattern = client.connected_pattern("weather")
    assert pattern is not None
    listed = list_servers(client, home, project, until=pattern.search, path=[scripts])
    output = listed.stdout + listed.stderr
    assert listed.returncode == 0, output
    assert pattern.search(output), output
    assert "weather-mcp" in output, output
    elsewhere = list_servers(client, home, tmp_path, path=[scripts])
    assert "weather" not in elsewhere.stdout + elsewhere.stderr

    assert main(["remove", deployment["uuid"]]) == 0
    listed = list_servers(client, home, project, path=[scripts])
    assert "weather" not in listed.stdout + listed.stderr


def test_npm_install_times(npm_clients: dict[str, InstallOutcome]) -> None:
    """Not a timing assertion: reports what the install cost (see -rA / the docs)."""
    for outcome in npm_clients.values():
        print(
            f"{outcome.client.package}@{outcome.client.version}: {outcome.detail} in {outcome.seconds:.1f}s"
        )
    assert all(o.ok for o in npm_clients.values()) or not IN_CI


# -- skill folders shared by several clients --------------------------------------------------

WEATHER_SKILLS = ("forecast-help", "station-lookup", "weather-report")
# how each client lists its skills, and what it prints once it has (with or without ours:
# Copilot CLI and OpenCode have built-in skills, Gemini CLI 0.61 has none)
SKILL_LISTINGS = {
    "gemini-cli": (("skills", "list"), re.compile(r"Discovered Agent Skills|No skills discovered")),
    "copilot-cli": (("skill", "list"), re.compile(r"^Builtin skills:", re.MULTILINE)),
    "opencode": (("debug", "skill"), re.compile(r'"location": "<built-in>"')),
}


def _list_skills(client: NpmClient, home: Path, cwd: Path) -> str:
    """The client's skill listing, once the client has answered (on a loaded machine a client
    may fail to start: it is run again until it lists, up to the listing deadline)."""
    command, answered = SKILL_LISTINGS[client.client]
    done = listing(client, home, cwd, command, until=answered.search)
    output = done.stdout + done.stderr
    assert done.returncode == 0 and answered.search(output), output
    return output


def _listed(client_id: str, output: str) -> list[str]:
    """The skill names a listing shows (each as often as it is shown)."""
    if client_id == "opencode":
        start = output.index("[")
        return [s["name"] for s in json.loads(output[start:])]
    if client_id == "gemini-cli":
        return re.findall(r"^(\S+) \[(?:Enabled|Disabled)\]", output, re.MULTILINE)
    return re.findall(r"^  (\S+) - ", output, re.MULTILINE)


@pytest.mark.parametrize("first", ["codex", "gemini-cli"])
def test_shared_skill_folders_list_each_skill_once(
    first: str,
    npm_clients: dict[str, InstallOutcome],
    weather_venv: Venv,
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """One bundle deployed to Codex and Gemini CLI (in either order): one copy in
    ~/.agents/skills serves both, and ``gemini skills list`` shows each skill once and no
    "Skill conflict detected". After Codex first, Copilot CLI and OpenCode (deployed too) list
    the same copy, once (the other order lists Gemini CLI only: the order is Gemini CLI's
    concern, and each listing costs seconds). Removing the first deployment keeps the copy for
    the others; removing all removes it, and no client lists the skills any more."""
    listed = ("gemini-cli", "copilot-cli", "opencode") if first == "codex" else ("gemini-cli",)
    clients = {c: _client(npm_clients, c) for c in listed}
    work = tmp_path / "work"
    work.mkdir()
    python = os.fspath(weather_venv.python)
    second = "gemini-cli" if first == "codex" else "codex"
    made: dict[str, str] = {}
    for target in (first, second, *listed[1:]):
        status = main(["deploy", target, "weather-tools", "--python", python, "--json"])
        out = capsys.readouterr().out
        assert status == 0, out
        made[target] = json.loads(out)["deployment"]["uuid"]
    agents = home / ".agents" / "skills"
    assert sorted(p.name for p in agents.iterdir()) == list(WEATHER_SKILLS)
    for own in (".gemini/skills", ".copilot/skills", ".config/opencode/skills"):
        assert not (home / own).exists(), own

    def listings() -> dict[str, str]:
        return {c: _list_skills(client, home, work) for c, client in clients.items()}

    for client_id, output in listings().items():
        names = _listed(client_id, output)
        assert sorted(n for n in names if n in WEATHER_SKILLS) == list(WEATHER_SKILLS), output
        assert "Skill conflict detected" not in output, output
        if client_id == "opencode":
            assert str(agents / "weather-report" / "SKILL.md") in output, output

    assert main(["remove", made.pop(first)]) == 0
    assert sorted(p.name for p in agents.iterdir()) == list(WEATHER_SKILLS)
    if "gemini-cli" in made:
        gemini = _list_skills(clients["gemini-cli"], home, work)
        names = _listed("gemini-cli", gemini)
        assert sorted(n for n in names if n in WEATHER_SKILLS) == list(WEATHER_SKILLS), gemini
        assert "Skill conflict detected" not in gemini, gemini
    assert main(["remove", *made.values()]) == 0
    assert not agents.exists() or not any(agents.iterdir())
    for client_id, output in listings().items():
        assert not set(_listed(client_id, output)) & set(WEATHER_SKILLS), output


# -- the skill folders each client reads, as its table row says ---------------------------------

# How each client shows the skills it loaded, run with a skill in every candidate folder: the
# command (``{log}``: a file it writes its debug log to, read instead of its output) and the
# pattern of a loaded skill's name in what it prints.
SKILL_LOADS: dict[str, tuple[tuple[str, ...], str]] = {
    "claude-code": (("-p", "hi", "--debug-file", "{log}"), r"Loading skills from: (.*)"),
    "codex": (("debug", "prompt-input"), r"- ([up]-[a-z0-9-]+): Skill found in"),
    "copilot-cli": (("skill", "list"), r"^  ([up]-[a-z0-9-]+) - "),
    "gemini-cli": (("skills", "list"), r"^([up]-[a-z0-9-]+) \[(?:Enabled|Disabled)\]"),
    "opencode": (("debug", "skill"), r'"name": "([up]-[a-z0-9-]+)"'),
    "qwen-code": (
        ("--debug", "--auth-type", "openai", "-p", "hi"),
        r"Successfully parsed skill: ([up]-[a-z0-9-]+) \((?:user|project)\)",
    ),
}


def _candidate_folders() -> tuple[set[tuple[str, ...]], set[tuple[str, ...]]]:
    """Every skills folder any client of the table writes or reads (home- and project-
    relative), and a few no row names, so that a folder a client reads unlisted shows."""
    from agenttools_runtime.clients import _resolve_location, all_clients, normalize_os

    user = {(".config", "agents", "skills"), (".opencode", "skills"), (".codex", "skills")}
    project = {(".codex", "skills"), (".gemini", "skills"), (".agents", "skills")}
    for client in all_clients().values():
        for spec in (client.skills, *(client.skill_reads.user if client.skill_reads else ())):
            parts = None if spec is None else _resolve_location(spec, normalize_os(None))
            if parts is not None:
                user.add(tuple(parts))
        for rel in (
            client.project_skills,
            *(client.skill_reads.project if client.skill_reads else ()),
        ):
            if rel is not None:
                project.add(tuple(rel))
    return user, project


def _skill_name(scope: str, parts: tuple[str, ...]) -> str:
    return f"{scope}-" + "-".join(p.strip(".").lower() for p in parts[:-1])


@pytest.mark.parametrize("client_id", sorted(SKILL_LOADS))
def test_each_client_reads_the_skill_folders_its_row_says(
    client_id: str, npm_clients: dict[str, InstallOutcome], home: Path, tmp_path: Path
) -> None:
    """A skill in every folder any client reads (named after its folder), then the client's
    own listing: the skills it loaded are exactly those of the folders its table row lists,
    in the home and in the project (the row's ``by: running`` at the client's version)."""
    from agenttools_runtime.clients import (
        get_client,
        project_skill_read_locations,
        skill_read_locations,
    )

    client = _client(npm_clients, client_id)
    row = get_client(client_id).skill_reads
    assert row is not None and row.by == "running" and row.verified == client.version
    work = tmp_path / "work"
    work.mkdir()
    if shutil.which("git"):  # (the project root, for clients that look for one)
        subprocess.run(["git", "init", "-q", str(work)], check=True)
    user, project = _candidate_folders()
    for scope, root, folders in (("u", home, user), ("p", work, project)):
        for parts in folders:
            name = _skill_name(scope, parts)
            skill = root.joinpath(*parts, name)
            skill.mkdir(parents=True, exist_ok=True)
            (skill / "SKILL.md").write_text(
                f"---\nname: {name}\ndescription: Skill found in {'/'.join(parts)}.\n---\n\n"
                f"Body of {name}.\n"
            )
    for rel, content in client.setup.items():
        target = home / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content.format(cwd=work))
    command, pattern = SKILL_LOADS[client_id]
    log = tmp_path / "client.log"
    env = {"OPENAI_API_KEY": "sk-none", "OPENAI_BASE_URL": "http://127.0.0.1:9"}  # (qwen: offline)
    done = subprocess.run(
        [os.fspath(client.binary), *(part.format(log=log) for part in command)],
        cwd=work,
        env={**client_env(home), **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    printed = done.stdout + done.stderr
    if client_id == "claude-code":
        printed = log.read_text()
    elif client_id == "qwen-code":
        printed = "".join(p.read_text() for p in (home / ".qwen" / "debug").glob("*.txt"))
    if client_id == "claude-code":  # the roots it loads from (user=…, project=[…])
        (roots,) = re.findall(pattern, printed)
        found = {
            _skill_name(
                "u" if Path(p).is_relative_to(home) else "p", _relative_parts(p, home, work)
            )
            for p in re.findall(r"(?:user|project)=\[?([^,\]]+)", roots)
        }
    else:
        found = set(re.findall(pattern, printed, re.MULTILINE))
    reads_user = {
        _skill_name("u", tuple(p.relative_to(home).parts)) for p in skill_read_locations(client_id)
    }
    reads_project = {
        _skill_name("p", tuple(p.relative_to(work).parts))
        for p in project_skill_read_locations(client_id, work)
    }
    assert found == reads_user | reads_project, (sorted(found), printed[-3000:])


def _relative_parts(path: str, home: Path, work: Path) -> tuple[str, ...]:
    real = Path(path)
    base = home if real.is_relative_to(home) else work
    return tuple(real.relative_to(base).parts)
