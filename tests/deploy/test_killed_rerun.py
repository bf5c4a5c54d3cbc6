"""A command killed half-way, then the same command again, in real processes: the rerun
finishes what the dead one started, exits 0 and says nothing that is not true.

- ``remove --all``, ``remove ID1 ID2`` and ``remove ID`` killed inside a removal (at the
  named point after its journal is written, or a few changes later): the rerun counts the
  removal its recovery finished as removed, not as "No deployment found".
- ``mcp install`` and ``mcp uninstall`` killed between writing an atomic write's temp file
  and renaming it (the named point ``atomic-write:temp-written``), the config file a link
  (``~/.codex/config.toml`` → ``~/dotfiles/codex.toml``): the temp file beside the link's
  target is deleted by the next command (the rerun, ``deployed``, ``remove --all``), and
  ``doctor`` names it until then.

The kill comes from the process itself at a named point (``crashing_child.py``), never after
a sleep.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.venvs import activate, fake_distribution, fake_site, skill_files

from .invariants import orphans, snapshot

CHILD = Path(__file__).with_name("crashing_child.py")
USER_TOML = '# mine\n[mcp_servers.mine]\ncommand = "my-server"\n'


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two distributions: ``weather`` (a server and 12 skills) and ``news`` (a server and
    one skill)."""
    site = fake_site(tmp_path_factory.mktemp("rerun") / "venv")
    fake_distribution(
        site,
        "weather",
        servers={"weather": {"command": "weather-mcp", "args": ["serve"]}},
        skills={
            f"forecast-{i}": skill_files(f"forecast-{i}", "Forecasts.", {"notes.md": "n\n" * 40})
            for i in range(12)
        },
    )
    fake_distribution(
        site,
        "news",
        servers={"news": {"command": "news-mcp"}},
        skills={"headlines": skill_files("headlines", "Headlines.", {})},
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


def signalled(signum: str, moment: str, *argv: str | Path) -> subprocess.CompletedProcess[str]:
    """Run the command in a process that sends itself SIG*signum* at *moment*."""
    return subprocess.run(
        [sys.executable, str(CHILD), signum, moment, *map(str, argv)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def killed(moment: str, *argv: str | Path) -> None:
    """Run the command in a process that SIGKILLs itself at *moment*; assert it did."""
    proc = signalled("KILL", moment, *argv)
    assert proc.returncode == -signal.SIGKILL, (moment, proc.returncode, proc.stderr)


def deploy_both(site: Path) -> list[str]:
    ids = []
    for name in ("weather", "news"):
        done = agenttools("deploy", "claude-code", name, "--path", site, "--json")
        assert done.returncode == 0, done.stderr
        ids.append(json.loads(done.stdout)["deployment"]["uuid"])
    return ids


def journals(state: Path) -> list[str]:
    directory = state / "deployments" / ".journal"
    return sorted(os.listdir(directory)) if directory.is_dir() else []


def assert_all_gone(home: Path, state: Path, before: dict[str, object]) -> None:
    listed = agenttools("deployed", "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["deployments"] == []
    assert snapshot(home) == before
    assert orphans(home, state) == []
    assert journals(state) == []


@pytest.mark.parametrize(
    "moment", ["point:remove:journal-written", "after:remove:journal-written@9"]
)
def test_remove_all_killed_is_finished_by_remove_all(
    site: Path, home: Path, state: Path, moment: str
) -> None:
    before = snapshot(home)
    deploy_both(site)
    killed(moment, "remove", "--all")
    assert any("-remove-" in name for name in journals(state))  # it died inside the removal

    again = agenttools("remove", "--all")

    assert again.returncode == 0, again.stdout + again.stderr
    assert "Not removed" not in again.stdout and "No deployment found" not in again.stdout
    assert "An interrupted removal" in again.stderr and "was finished" in again.stderr
    assert_all_gone(home, state, before)


def test_remove_of_two_ids_killed_in_the_first_is_finished_by_the_same_command(
    site: Path, home: Path, state: Path
) -> None:
    before = snapshot(home)
    first, second = deploy_both(site)
    killed("after:remove:journal-written@5", "remove", first, second)

    again = agenttools("remove", first[:8], second)

    assert again.returncode == 0, again.stdout + again.stderr
    assert f"Removed deployment {first}" in again.stdout
    assert f"Removed deployment {second}" in again.stdout
    assert "Not removed" not in again.stdout
    assert_all_gone(home, state, before)


def test_remove_of_one_id_killed_is_finished_by_the_same_command(
    site: Path, home: Path, state: Path
) -> None:
    before = snapshot(home)
    first, second = deploy_both(site)
    killed("after:remove:journal-written@3", "remove", first, "--json")

    again = agenttools("remove", first, "--json")

    assert again.returncode == 0, again.stdout + again.stderr
    assert json.loads(again.stdout)["removed"] == first
    assert agenttools("remove", second).returncode == 0
    assert_all_gone(home, state, before)


@pytest.fixture
def linked_codex(home: Path) -> tuple[Path, Path]:
    """``~/.codex/config.toml``, a link to ``~/dotfiles/codex.toml`` (the user's file)."""
    dotfile = home / "dotfiles" / "codex.toml"
    dotfile.parent.mkdir()
    dotfile.write_text(USER_TOML, encoding="utf-8")
    link = home / ".codex" / "config.toml"
    link.parent.mkdir()
    link.symlink_to(Path("..") / "dotfiles" / "codex.toml")
    return link, dotfile


def temp_files(home: Path) -> list[str]:
    return [p for p in orphans(home) if p.endswith(".tmp")]


@pytest.mark.parametrize("then", ["rerun", "deployed", "remove-all"])
def test_a_killed_mcp_install_leaves_no_temp_file_after_the_next_command(
    site: Path, home: Path, state: Path, linked_codex: tuple[Path, Path], then: str
) -> None:
    link, dotfile = linked_codex
    install = ("mcp", "install", "codex", "weather/weather", "--path", site)
    killed("point:atomic-write:temp-written", *install)
    (left,) = temp_files(home)
    assert Path(left).parent == dotfile.parent  # beside the link's target
    assert dotfile.read_text() == USER_TOML  # never renamed over it

    found = agenttools("doctor", "--json")
    assert found.returncode == 1
    assert left in [f["path"] for f in json.loads(found.stdout)["findings"]]

    command = {"rerun": install, "deployed": ("deployed",), "remove-all": ("remove", "--all")}
    done = agenttools(*command[then])
    assert done.returncode == 0, done.stderr

    assert temp_files(home) == []
    assert journals(state) == []
    assert link.is_symlink()
    clean = agenttools("doctor")
    assert clean.returncode == 0, clean.stdout


def test_a_killed_mcp_uninstall_leaves_no_temp_file_after_the_rerun(
    site: Path, home: Path, state: Path, linked_codex: tuple[Path, Path]
) -> None:
    link, dotfile = linked_codex
    assert agenttools("mcp", "install", "codex", "weather/weather", "--path", site).returncode == 0
    killed("point:atomic-write:temp-written", "mcp", "uninstall", "codex", "weather")
    assert len(temp_files(home)) == 1

    again = agenttools("mcp", "uninstall", "codex", "weather")

    assert again.returncode == 0, again.stderr
    assert temp_files(home) == [] and journals(state) == []
    assert dotfile.read_text() == USER_TOML and link.is_symlink()


@pytest.mark.parametrize("signum", ["INT", "TERM"])
def test_a_signal_during_mcp_install_and_uninstall_waits_for_the_edit_and_says_so(
    site: Path, home: Path, state: Path, linked_codex: tuple[Path, Path], signum: str
) -> None:
    link, dotfile = linked_codex
    status = 128 + int(getattr(signal, f"SIG{signum}"))
    install = ("mcp", "install", "codex", "weather/weather", "--path", site)
    done = signalled(signum, "point:atomic-write:temp-written", *install)
    assert done.returncode == status, done.stderr
    assert f'interrupted; the entry "weather" was written into {link}' in done.stderr
    assert "[mcp_servers.weather]" in dotfile.read_text() and temp_files(home) == []

    done = signalled(
        signum, "point:atomic-write:temp-written", "mcp", "uninstall", "codex", "weather"
    )
    assert done.returncode == status, done.stderr
    assert 'the uninstall of the entry "weather"' in done.stderr and "was finished" in done.stderr
    assert dotfile.read_text() == USER_TOML and link.is_symlink() and temp_files(home) == []
    assert journals(state) == []


def test_a_signal_during_an_mcp_install_or_uninstall_that_changes_nothing_says_so(
    site: Path, home: Path, state: Path, linked_codex: tuple[Path, Path]
) -> None:
    link, dotfile = linked_codex
    install = ("mcp", "install", "codex", "weather/weather", "--path", site)
    assert agenttools(*install).returncode == 0
    written = dotfile.read_text()

    again = signalled("TERM", "point:mcp:locked", *install)

    assert again.returncode == 128 + signal.SIGTERM, again.stderr
    assert f'the entry "weather" was already in {link}: nothing was changed' in again.stderr
    assert dotfile.read_text() == written
    assert agenttools("mcp", "uninstall", "codex", "weather").returncode == 0

    absent = signalled("INT", "point:mcp:locked", "mcp", "uninstall", "codex", "weather")

    assert absent.returncode == 128 + signal.SIGINT, absent.stderr
    assert f'the entry "weather" was not in {link}: nothing was changed' in absent.stderr
    assert dotfile.read_text() == USER_TOML and journals(state) == []


def test_a_sigterm_after_a_deploy_committed_says_it_was_committed(
    site: Path, home: Path, state: Path
) -> None:
    # the first deploy on a machine records the wheel files it verified after the lock
    done = signalled(
        "TERM", "point:deploy:recording-verified", "deploy", "codex", "news", "--path", site
    )
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert "was committed" in done.stderr
    listed = agenttools("deployed", "--json")
    (deployment,) = json.loads(listed.stdout)["deployments"]
    assert deployment["status"] == "ok"


def test_doctor_fix_deletes_the_temp_file_a_killed_install_listed(
    site: Path, home: Path, state: Path, linked_codex: tuple[Path, Path]
) -> None:
    killed("point:atomic-write:temp-written", "mcp", "install", "codex", "weather", "--path", site)
    (left,) = temp_files(home)

    fixed = agenttools("doctor", "--fix", "--json")

    assert fixed.returncode == 0, fixed.stdout
    findings = json.loads(fixed.stdout)["findings"]
    assert [f["fixed"] for f in findings if f["path"] == left] == [True]
    assert temp_files(home) == [] and journals(state) == []


def test_a_killed_removal_whose_journal_names_no_bundle_is_finished_and_said_plainly(
    site: Path, home: Path, state: Path
) -> None:
    """A removal's journal that does not name the bundle or client (they are optional in it):
    the rerun finishes it and says which deployment, without an empty name."""
    before = snapshot(home)
    first, second = deploy_both(site)
    killed("after:remove:journal-written@3", "remove", first)
    directory = state / "deployments" / ".journal"
    (name,) = [n for n in journals(state) if "-remove-" in n]
    data = json.loads((directory / name).read_text())
    del data["name"], data["client"]
    (directory / name).write_text(json.dumps(data))

    again = agenttools("remove", first)

    assert again.returncode == 0, again.stdout + again.stderr
    assert f"Removed deployment {first}." in again.stdout.splitlines()
    assert agenttools("remove", second).returncode == 0
    assert_all_gone(home, state, before)
