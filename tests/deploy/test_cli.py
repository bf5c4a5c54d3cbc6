"""``agenttools deploy`` / ``deployed`` / ``remove`` on fake installed distributions: real
files under a temporary HOME, versions of distribution skills, removal after uninstall."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.clients import get_client
from agenttools_runtime.mcp.install import read_server_entries
from tests.helpers.venvs import fake_distribution, fake_site
from tests.helpers.weather import weather

from .conftest import snapshot


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_deploy_deployed_remove(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    site = fake_site(tmp_path / "site")
    weather(site, "1.2.0")
    status, out, err = run(
        capsys, "deploy", "claude-code", "weather-tools/weather-tools", "--path", str(site)
    )
    assert status == 0, err
    assert 'Deployed "weather-tools/weather-tools" to Claude Code' in out
    skill = home / ".claude" / "skills" / "weather-report"
    assert (skill / "scripts" / "run.sh").stat().st_mode & 0o100
    entry = read_server_entries(home / ".claude.json", get_client("claude-code"))["weather"]
    assert entry["args"] == ["-m", "weather_tools.server"]
    assert entry["env"] == {"UNITS": "metric"}

    status, out, _ = run(capsys, "deployed", "--json")
    data = json.loads(out)
    (dep,) = data["deployments"]
    assert dep["agent_tools"]["distribution"] == "weather-tools"
    assert dep["agent_tools"]["distribution_version"] == "1.2.0"
    assert dep["skills"]["installed"][0]["identifier"] == "weather-tools/weather-report"
    status, out, _ = run(capsys, "deployed", "cursor")
    assert out.strip() == "No deployments."

    # removal needs nothing but the record: the distribution is gone
    shutil.rmtree(site)
    status, out, err = run(capsys, "remove", dep["uuid"][:8])
    assert status == 0, err
    assert f"Removed deployment {dep['uuid']}" in out
    assert not skill.exists()
    assert "weather" not in read_server_entries(home / ".claude.json", get_client("claude-code"))


def test_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    site, newer = fake_site(tmp_path / "site"), fake_site(tmp_path / "newer")
    weather(site, "1.2.0")
    weather(newer, "1.3.0")
    assert (
        run(capsys, "deploy", "cursor", "weather-tools/weather-tools", "--path", str(site))[0] == 0
    )
    status, out, err = run(
        capsys, "deploy", "cursor", "weather-tools/weather-tools", "--path", str(newer)
    )
    assert status == 1
    assert err.startswith("agenttools: The agent tools") and "--upgrade" in err
    assert (
        "with another version (1.2.0 deployed, 1.3.0 installed)" in err
        and len(err.splitlines()) == 1
    )
    assert "Traceback" not in err
    status, _, err = run(capsys, "remove", "ffffffff")
    assert status == 1 and 'No deployment found for "ffffffff"' in err
    status, out, _ = run(capsys, "remove", "nope", "--json")
    assert status == 1 and json.loads(out)["error"]["tag"] == "DeploymentNotFound"


def test_versions_of_distribution_skills(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    old, new = fake_site(tmp_path / "old"), fake_site(tmp_path / "new")
    weather(old, "1.2.0", body="Version one.")
    weather(new, "1.3.0", body="Version two.")
    skill = home / ".cursor" / "skills" / "weather-report" / "SKILL.md"
    assert (
        run(capsys, "deploy", "cursor", "weather-tools/weather-tools", "--path", str(old))[0] == 0
    )
    # the other bundle of the newer version shares the skill: upgrading needs --upgrade
    status, _, err = run(capsys, "deploy", "cursor", "weather-tools/reports", "--path", str(new))
    assert status == 1 and "A different version of the skill" in err
    assert "Version one." in skill.read_text()
    status, _, err = run(
        capsys, "deploy", "cursor", "weather-tools/reports", "--path", str(new), "--upgrade"
    )
    assert status == 0, err
    assert "Version two." in skill.read_text()
    # an older version never downgrades what others use; it is kept with a warning
    status, _, err = run(
        capsys, "deploy", "cursor", "weather-tools/weather-tools", "--path", str(old), "--force"
    )
    assert status == 0
    assert "installed version (1.3.0) is newer than 1.2.0" in err
    assert "Version two." in skill.read_text()


def test_dry_run_and_json(
    capsys: pytest.CaptureFixture[str], home: Path, state: Path, tmp_path: Path
) -> None:
    site = fake_site(tmp_path / "site")
    weather(site, "1.2.0")
    status, out, _ = run(
        capsys, "deploy", "codex", "weather-tools/weather-tools", "--path", str(site), "--dry-run"
    )
    assert status == 0
    assert "Dry run" in out and 'write entry "weather"' in out and "weather-report" in out
    assert snapshot(home, state) == {}
    status, out, _ = run(
        capsys,
        "deploy",
        "codex",
        "weather-tools/weather-tools",
        "--path",
        str(site),
        "--json",
        "--no-skills",
    )
    data = json.loads(out)
    assert data["ok"] and data["deployment"]["skills"]["skipped"] == [
        "weather-tools/weather-report"
    ]
    assert not (home / ".agents").exists()
    assert "weather" in (home / ".codex" / "config.toml").read_text()


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "deploy", "cursor", "--no-skills", "--skills-dir", "x")[0] == 2
    assert run(capsys, "deploy", "cursor", "--upgrade", "--force")[0] == 2
    assert run(capsys, "deploy", "--all-clients", "x", "y")[0] == 2


def test_all_clients_cli(capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path) -> None:
    site = fake_site(tmp_path / "site")
    weather(site, "1.2.0")
    status, out, err = run(
        capsys,
        "deploy",
        "--all-clients",
        "weather-tools/weather-tools",
        "--path",
        str(site),
        "--json",
    )
    assert status == 0, err
    data = json.loads(out)
    assert data["results"]["claude-desktop"]["skipped"] == "Unsupported"
    assert "uuid" in data["results"]["cursor"]
    assert "LM Studio" in err  # the summarized AgentSkillsNotDeployedWarning


def test_deploy_needs_a_target_unless_all_clients(capsys: pytest.CaptureFixture[str]) -> None:
    status, _out, err = run(capsys, "deploy")
    assert status == 2 and "TARGET is required" in err


def test_all_clients_without_tools_deploys_the_builtin_bundle(
    capsys: pytest.CaptureFixture[str], home: Path
) -> None:
    status, out, err = run(capsys, "deploy", "--all-clients", "--json")
    assert status == 0, err
    results = json.loads(out)["results"]
    assert "uuid" in results["claude-code"]
    assert "agenttools" in json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert (home / ".claude" / "skills" / "agenttools" / "SKILL.md").is_file()


def test_conflict_names_the_shared_key_and_the_real_bundle(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    """After the bundle, its one server alone conflicts through the config key: the message
    names that key, the file and the bundle that wrote it (not the server as "deployed")."""
    site = fake_site(tmp_path / "site")
    weather(site, "1.2.0")
    status, out, err = run(
        capsys, "deploy", "codex", "weather-tools/weather-tools", "--path", str(site)
    )
    assert status == 0, err
    uuid = json.loads(run(capsys, "deployed", "--json")[1])["deployments"][0]["uuid"]
    config = home / ".codex" / "config.toml"
    status, out, err = run(capsys, "deploy", "codex", "weather-tools/weather", "--path", str(site))
    assert status == 1
    assert err.strip() == (
        f'agenttools: The MCP server key "weather" in {config} is already written by deployment '
        f'{uuid} of "weather-tools/weather-tools". Use --upgrade (overwrite="upgrade") to replace '
        "that deployment, or --name KEY to write it under another key."
    )
    status, out, _ = run(
        capsys, "deploy", "codex", "weather-tools/weather", "--path", str(site), "--json"
    )
    error = json.loads(out)["error"]
    assert error["tag"] == "DeploymentConfigKeyTaken"
    assert (error["key"], error["uuid"], error["bundle"]) == (
        "weather",
        uuid,
        "weather-tools/weather-tools",
    )
    # the same bundle again is "already deployed", naming that bundle: up to date when the
    # content is the same (exit 0), else which version is deployed and which installed
    status, _, err = run(capsys, "deploy", "cursor", "weather-tools/reports", "--path", str(site))
    assert status == 0, err
    status, out, err = run(capsys, "deploy", "cursor", "weather-tools/reports", "--path", str(site))
    assert status == 0, err
    assert '"weather-tools/reports" 1.2.0 is already deployed to Cursor, up to date' in out
    newer = fake_site(tmp_path / "newer")
    weather(newer, "1.3.0")
    status, _, err = run(capsys, "deploy", "cursor", "weather-tools/reports", "--path", str(newer))
    assert status == 1
    assert 'The agent tools "weather-tools/reports" are already deployed to Cursor' in err
    assert "with another version (1.2.0 deployed, 1.3.0 installed)" in err


def test_a_unique_server_name_deploys_from_the_environment_given(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    # "weather" is no distribution but the one server of weather-tools in --path: the
    # ordinary deploy of that server, not an offer to install a distribution "weather"
    site = fake_site(tmp_path / "site")
    weather(site, "1.2.0")
    status, out, err = run(capsys, "deploy", "claude-code", "weather", "--path", str(site))
    assert status == 0, err
    assert 'Deployed "weather-tools/weather" to Claude Code' in out
    assert "weather" in read_server_entries(home / ".claude.json", get_client("claude-code"))


@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]])
def test_an_ambiguous_server_name_of_the_environment_given_is_said_to_be_ambiguous(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, dry_run: list[str]
) -> None:
    # two distributions in --path declare "weather": the ambiguity names both, never an
    # offer to install (or, with --dry-run, a look-up in an index of) a distribution "weather"
    site = fake_site(tmp_path / "site")
    weather(site, "1.2.0")
    fake_distribution(site, "other-weather", servers={"weather": {"module": "other.server"}})
    status, out, err = run(
        capsys, "deploy", "claude-code", "weather", "--path", str(site), *dry_run
    )
    assert (status, out) == (1, "")
    assert 'Several installed distributions declare an MCP server named "weather"' in err
    assert "other-weather/weather, weather-tools/weather" in err
    assert "--install" not in err
    assert not (home / ".claude.json").exists()


def _something_else_at(path: Path, what: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if what == "regular file":
        path.write_text("the user's\n")
    elif what == "named pipe":
        os.mkfifo(path)
    else:
        path.symlink_to(path.with_name("nowhere"))


@pytest.mark.parametrize("what", ["regular file", "named pipe", "symbolic link to nothing"])
def test_a_deployments_directory_that_is_no_directory_is_one_clear_error(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, what: str
) -> None:
    """Bug: deploy (and doctor) said 'Cannot access <state>/deployments: File exists
    (EEXIST)', deployed 'Not a directory (ENOTDIR)' (for a link to nothing: No deployments.),
    remove 'No deployment found'."""
    site = fake_site(tmp_path / "site")
    weather(site, "1.2.0")
    deployments = tmp_path / "agenttools-state" / "deployments"
    _something_else_at(deployments, what)
    aside = deployments.parent / "deployments-set-aside" / "deployments"
    for argv in (
        ["deploy", "claude-code", "weather-tools/weather-tools", "--path", str(site)],
        ["deploy", "claude-code", "weather-tools/weather-tools", "--path", str(site), "--dry-run"],
        ["deployed"],
        ["remove", "0123abcd"],
    ):
        status, out, err = run(capsys, *argv)
        assert status == 1 and out == "", argv
        assert err == (
            f"agenttools: {deployments} is a {what}, not the directory of agenttools' "
            "deployment records: nothing is changed while it is there. Run 'agenttools "
            f"doctor --fix' to set it aside (it moves it to {aside}), or move it away "
            "yourself.\n"
        ), argv
    status, out, _ = run(capsys, "deployed", "--json")
    assert status == 1 and json.loads(out)["error"]["tag"] == "StateDirectoryUnusable"
    assert not (home / ".claude.json").exists()
    assert not (home / ".claude" / "skills").exists()


def test_a_registry_that_is_no_directory_stops_a_deploy_before_anything_is_written(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    """Bug: the deploy stopped with 'Cannot access <registry>/<key>.json: Not a directory'
    once it had begun writing (rolled back)."""
    site = fake_site(tmp_path / "site")
    weather(site, "1.2.0")
    registry = tmp_path / "agenttools-state" / "deployments" / ".skill-registry"
    _something_else_at(registry, "regular file")
    argv = ["deploy", "claude-code", "weather-tools/weather-tools", "--path", str(site)]
    status, _, err = run(capsys, *argv)
    assert status == 1
    assert f"{registry} is a regular file, not the directory of agenttools' skill registry" in err
    assert "'agenttools doctor --fix' to set it aside" in err
    assert not (home / ".claude.json").exists()
    assert not (home / ".claude" / "skills").exists()
