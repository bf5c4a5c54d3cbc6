"""SIGINT during a deploy to several clients or a removal of several ids, in a real process
signalled at a chosen point: the message accounts for every client or id already done, the
one it stopped at and those not reached; what was done so far is on stdout (flushed before
the exit with 130) with the command that undoes every committed deployment."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agenttools_runtime.deploy import deployed
from tests.helpers.venvs import fake_site
from tests.helpers.weather import weather

from .reliability import child_environment

CHILD = Path(__file__).with_name("crashing_child.py")
TOOLS = "weather-tools/weather-tools"
CLIENTS = ["claude-code", "cursor", "codex", "gemini-cli", "opencode", "qwen-code"]

pytestmark = pytest.mark.slow  # a child process per case


def child(
    tmp_path: Path, moment: str, *argv: str, sig: str = "INT"
) -> subprocess.CompletedProcess[str]:
    """``agenttools ARGV`` in a child process sent SIGINT (*sig*) at *moment* (see
    crashing_child)."""
    env = child_environment(tmp_path / "pycache")
    env.update(HOME=os.environ["HOME"], AGENTTOOLS_HOME=os.environ["AGENTTOOLS_HOME"])
    command = [sys.executable, str(CHILD), sig, moment, *argv]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = fake_site(tmp_path / "site")
    weather(path, "1.2.0")
    return path


@pytest.mark.parametrize(
    ("point", "current"),
    [
        ("deploy:locked", "codex: nothing was deployed"),
        ("deploy:skills-written", "codex: every change was rolled back"),
        ("deploy:record-written", None),  # the signal waits: codex's deployment is committed
    ],
)
def test_sigint_at_the_third_client_names_every_deployment_committed(
    tmp_path: Path, home: Path, site: Path, point: str, current: str | None
) -> None:
    argv = ["deploy", ",".join(CLIENTS), TOOLS, "--path", str(site)]
    result = child(tmp_path, f"point:{point}@3", *argv)
    assert result.returncode == 130, result.stderr
    made = {d.client: d.uuid for d in deployed()}
    assert set(made) == ({"claude-code", "cursor"} | ({"codex"} if current is None else set()))
    message = next(line for line in result.stderr.splitlines() if "interrupted" in line)
    assert "every change was rolled back" not in message or current is not None
    for client, uid in made.items():
        assert f"{client} ({uid})" in message
    if current is not None:
        assert current in message
    assert "not reached: gemini-cli, opencode, qwen-code" in message
    undo = f"agenttools remove {' '.join(made[c] for c in CLIENTS if c in made)}"
    assert undo in message
    # stdout (a pipe here) has the deployments done so far, the table and the undo command
    assert result.stdout.count("Deployed ") == 2
    assert "CLIENT  " in result.stdout
    assert f"Undo: {undo}" in result.stdout


def test_sigint_in_a_json_deploy_prints_the_results_so_far(
    tmp_path: Path, home: Path, site: Path
) -> None:
    argv = ["deploy", ",".join(CLIENTS), TOOLS, "--path", str(site), "--json"]
    result = child(tmp_path, "point:deploy:locked@2", *argv)
    assert result.returncode == 130, result.stderr
    data = json.loads(result.stdout)
    (only,) = deployed()
    assert data["interrupted"] is True and data["ok"] is False
    assert [row["client"] for row in data["summary"]] == ["claude-code"]
    assert data["undo"] == f"agenttools remove {only.uuid}"


def test_sigint_during_a_removal_of_several_ids_names_every_id_removed(
    tmp_path: Path, home: Path, site: Path
) -> None:
    argv = ["deploy", ",".join(CLIENTS[:4]), TOOLS, "--path", str(site), "--no-skills"]
    assert child(tmp_path, "never", *argv).returncode == 0
    ids = sorted(d.uuid for d in deployed())
    # the signal waits for the end of the third removal, then stops the loop
    result = child(tmp_path, "point:remove:journal-written@3", "remove", *ids)
    assert result.returncode == 130, result.stderr
    assert [d.uuid for d in deployed()] == ids[3:]
    message = next(line for line in result.stderr.splitlines() if "interrupted" in line)
    assert f"removed {', '.join(ids[:3])}" in message
    assert f"not reached: {ids[3]}" in message
    assert all(f"Removed deployment {uid}" in result.stdout for uid in ids[:2])


def test_the_same_deploy_after_a_kill_half_way_finishes_and_exits_0(
    tmp_path: Path, home: Path, site: Path
) -> None:
    argv = ["deploy", ",".join(CLIENTS), TOOLS, "--path", str(site)]
    env = child_environment(tmp_path / "pycache")
    env.update(HOME=os.environ["HOME"], AGENTTOOLS_HOME=os.environ["AGENTTOOLS_HOME"])
    command = [sys.executable, str(CHILD), "KILL", "point:deploy:skills-written@3", *argv]
    killed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert killed.returncode == -9
    assert len(deployed()) == 2
    again = child(tmp_path, "never", *argv)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "6 of 6 client(s) ok." in again.stdout
    assert "not done" not in again.stdout
    assert {d.client for d in deployed()} == set(CLIENTS)


@pytest.mark.parametrize(("sig", "status"), [("INT", 130), ("TERM", 143)])
def test_a_signal_while_the_bundle_is_read_says_nothing_was_deployed(
    tmp_path: Path, home: Path, site: Path, sig: str, status: int
) -> None:
    """Before the lock, while the wheel's files are verified (the first mutation is the
    cache of verified files, written where state exists), an interruption has changed
    nothing, and says so."""
    first = child(tmp_path, "never", "deploy", "cursor", TOOLS, "--path", str(site))
    assert first.returncode == 0, first.stderr
    # which wheel files were verified, forgotten: the next deploy verifies the wheel again
    # and writes that cache first
    shutil.rmtree(Path(os.environ["AGENTTOOLS_HOME"]) / "deployments" / ".verified", True)
    result = child(
        tmp_path, "write:1", "deploy", "claude-code", TOOLS, "--path", str(site), sig=sig
    )
    assert result.returncode == status, result.stderr
    # the first mutation is the cache of verified files before the lock ("nothing was
    # deployed") or, when that cache is not written, the journal under it ("every change was
    # rolled back"): either way nothing changed, which the state below shows
    assert (
        "agenttools: interrupted; nothing was deployed" in result.stderr
        or "agenttools: interrupted; every change was rolled back" in result.stderr
    ), result.stderr
    assert [d.client for d in deployed()] == ["cursor"]
    assert not (home / ".claude" / "skills").exists()
