"""Smaller truths, through the CLI in real processes:

- ``deploy --force`` over the user's own skill folder replaces it while deployed; ``remove``
  puts the user's folder back, byte for byte (as a forced config entry is put back), or —
  when what was deployed there was changed since — keeps it where the warning says;
- after everything is removed, no state folder is left behind (nor after ``mcp install`` and
  ``mcp uninstall`` into an empty HOME);
- ``verify`` ends with the commands that repair, ``serve --list`` counts "1 file".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.venvs import activate, fake_distribution, fake_site, skill_files

from .invariants import snapshot

MINE = "---\nname: forecast\ndescription: My own forecasts.\n---\n\nMine.\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    site = fake_site(tmp_path_factory.mktemp("truths") / "venv")
    fake_distribution(
        site,
        "weather",
        servers={"weather": {"command": "weather-mcp"}},
        skills={"forecast": skill_files("forecast", "Forecasts.", {"notes.md": "n\n"})},
    )
    return site


@pytest.fixture(autouse=True)
def _activated(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The servers' commands are console scripts of the site's environment: on the PATH."""
    activate(monkeypatch, site)


def agenttools(*argv: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agenttools", *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def mine(home: Path) -> Path:
    """The user's own skill folder ``forecast`` (an executable script, a nested file)."""
    folder = home / ".claude" / "skills" / "forecast"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(MINE)
    script = folder / "scripts" / "run.sh"
    script.write_text("#!/bin/sh\necho mine\n")
    script.chmod(0o755)
    return folder


def test_a_forced_deploy_over_the_users_skill_folder_gives_it_back_on_remove(
    site: Path, home: Path, state: Path, mine: Path
) -> None:
    before = snapshot(home)
    refused = agenttools("deploy", "claude-code", "weather", "--path", site)
    assert refused.returncode == 1 and "--force" in refused.stderr

    forced = agenttools("deploy", "claude-code", "weather", "--path", site, "--force")
    assert forced.returncode == 0, forced.stderr
    assert "Mine." not in (mine / "SKILL.md").read_text()  # replaced while deployed
    assert "Backups left" not in forced.stderr
    assert agenttools("doctor").returncode == 0  # the kept copy is accounted for

    removed = agenttools("remove", "--all")

    assert removed.returncode == 0, removed.stderr
    assert snapshot(home) == before  # the user's folder is back, byte for byte, modes too


def test_the_users_folder_stays_where_the_warning_says_when_the_deployed_one_was_changed(
    site: Path, home: Path, mine: Path
) -> None:
    mine_before = snapshot(mine)
    assert agenttools("deploy", "claude-code", "weather", "--path", site, "--force").returncode == 0
    (mine / "notes.md").write_text("changed after the deploy\n")

    removed = agenttools("remove", "--all")

    assert removed.returncode == 0, removed.stderr
    assert (mine / "notes.md").read_text() == "changed after the deploy\n"  # kept: changed
    kept = [p for p in mine.parent.parent.iterdir() if "backup-replaced" in p.name]
    assert len(kept) == 1 and str(kept[0]) in removed.stderr
    assert snapshot(kept[0]) == {
        k.replace(str(mine), str(kept[0])): v for k, v in mine_before.items()
    }
    found = agenttools("doctor", "--json")
    assert str(kept[0]) in [f["path"] for f in json.loads(found.stdout)["findings"]]


def test_no_state_folder_is_left_once_everything_is_removed(
    site: Path, home: Path, state: Path
) -> None:
    assert agenttools("deploy", "claude-code", "weather", "--path", site).returncode == 0
    assert agenttools("verify").returncode == 0
    assert (state / "deployments").is_dir()

    assert agenttools("remove", "--all").returncode == 0

    assert not state.exists(), sorted(os.listdir(state))
    assert agenttools("deployed").returncode == 0 and not state.exists()


def test_mcp_install_and_uninstall_into_an_empty_home_leave_no_state_folder(
    site: Path, home: Path, state: Path
) -> None:
    assert agenttools("mcp", "install", "codex", "weather", "--path", site).returncode == 0
    assert agenttools("mcp", "uninstall", "codex", "weather").returncode == 0

    assert not state.exists(), sorted(os.listdir(state))


def test_a_state_folder_holding_something_set_aside_is_kept(
    site: Path, home: Path, state: Path
) -> None:
    assert agenttools("deploy", "claude-code", "weather", "--path", site).returncode == 0
    aside = state / "deployments" / ".journal-set-aside" / "0-deploy-x.json"
    aside.parent.mkdir()
    aside.write_text("[1]")

    assert agenttools("remove", "--all").returncode == 0

    assert aside.read_text() == "[1]"


def test_verify_ends_with_the_commands_that_repair(site: Path, home: Path) -> None:
    assert agenttools("deploy", "claude-code", "weather", "--path", site).returncode == 0
    (home / ".claude" / "skills" / "forecast" / "notes.md").write_text("edited\n")

    checked = agenttools("verify")

    assert checked.returncode == 1
    last = checked.stdout.strip().splitlines()[-1]
    assert "--upgrade" in last and "--force" in last
    assert "'agenttools verify' shows what changed" not in checked.stdout


def test_serve_list_counts_one_file_as_one_file(tmp_path: Path, home: Path) -> None:
    site = tmp_path / "site-packages"
    fake_distribution(site, "tiny", skills={"one": skill_files("one", "One file.", {})})

    listed = agenttools("serve", "--list", "--path", site)

    assert listed.returncode == 0, listed.stderr
    assert "1 file)" in listed.stdout, listed.stdout
    assert "1 files" not in listed.stdout


def test_a_skill_folder_named_otherwise_than_its_skill_deploys_with_a_warning(
    home: Path, tmp_path: Path
) -> None:
    from agenttools_runtime.deploy import deploy
    from agenttools_runtime.errors import AgentSkillNameDiffers

    from .conftest import bundle, write_skill

    folder = write_skill(tmp_path / "sources" / "weather-forecast", name="forecast")
    with pytest.warns(AgentSkillNameDiffers, match="Directory name 'weather-forecast' must match"):
        done = deploy("claude-code", bundle("b", [folder]))
    assert (home / ".claude" / "skills" / "forecast" / "SKILL.md").is_file()
    done.remove()


def test_a_skill_folder_named_as_its_skill_deploys_without_that_warning(
    site: Path, home: Path
) -> None:
    done = agenttools("deploy", "claude-code", "weather", "--path", site)

    assert done.returncode == 0, done.stderr
    assert "must match skill name" not in done.stderr
