"""The CLI's y/N questions (``deploy``'s offer to install what is not installed, ``sync
--prune``'s removal of orphaned deployments), run as real subprocesses on a pseudo-terminal:
asked on stderr when stdin and stderr are terminals, so ``--json``'s stdout holds only its
JSON; never asked otherwise; end of input is no."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agenttools_runtime.deploy import deployed
from tests.helpers.terminal import run_on_terminal
from tests.helpers.weather import orphaned_deployment

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX")

DEPLOY = ["deploy", "cursor", "weather-tools", "--json"]  # not installed where it looks
SYNC = ["sync", "--prune", "--json"]


@pytest.fixture
def orphaned(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """One deployment whose distribution was uninstalled since: its id."""
    uuid = orphaned_deployment(tmp_path / "site")
    capsys.readouterr()
    return uuid


def test_deploy_asks_on_stderr_and_its_json_stdout_stays_clean(home: Path) -> None:
    """``deploy … --json | jq`` on a terminal: the question is on the terminal (stderr),
    stdout is the JSON document alone. (It was asked with ``input()``, on stdout, and only
    when stdout was a terminal too: never with ``--json`` piped.)"""
    done = run_on_terminal(DEPLOY, terminal=("stdin", "stderr"), answer=b"n\n")
    assert done.asked_on == "terminal", done
    assert (
        "weather-tools is not installed. Install it into a managed environment and deploy it "
        "from there? [y/N] "
    ) in done.terminal
    data = json.loads(done.stdout)
    assert done.status == 1 and data["error"]["tag"] == "DistributionNotInstalledHere"


def test_sync_asks_on_stderr_and_its_json_stdout_stays_clean(orphaned: str) -> None:
    done = run_on_terminal(SYNC, terminal=("stdin", "stderr"), answer=b"y\n")
    assert done.asked_on == "terminal", done
    assert f"1 orphaned deployment(s) would be removed:\r\n  {orphaned}  cursor" in done.terminal
    data = json.loads(done.stdout)
    assert done.status == 0 and [r["result"] for r in data["results"]] == ["removed"]
    assert deployed() == []


@pytest.mark.parametrize("argv", [DEPLOY, SYNC], ids=["deploy", "sync"])
def test_with_stdin_piped_nothing_is_asked(argv: list[str], orphaned: str) -> None:
    """stdin not a terminal (a script, CI): no question anywhere, the answer is no, and
    stdout is the JSON document alone."""
    done = run_on_terminal(argv, terminal=("stderr",), answer=b"y\n")
    assert done.asked_on == "" and "[y/N]" not in done.terminal + done.stdout
    data = json.loads(done.stdout)
    assert done.status == 1 and data["ok"] is False
    assert len(deployed()) == 1  # (sync: the orphan is not removed)


@pytest.mark.parametrize("argv", [DEPLOY, SYNC], ids=["deploy", "sync"])
def test_end_of_input_at_the_question_is_no(argv: list[str], orphaned: str) -> None:
    done = run_on_terminal(argv, terminal=("stdin", "stderr"), answer=b"\x04")  # Ctrl-D
    assert done.asked_on == "terminal", done
    assert "Traceback" not in done.terminal
    data = json.loads(done.stdout)
    assert done.status == 1 and data["ok"] is False
    assert len(deployed()) == 1


def test_sync_asks_nothing_when_stderr_is_not_a_terminal(orphaned: str) -> None:
    """``sync --prune 2>log`` on a terminal: the question would go to the log, unseen, and
    the command wait for its answer; it is not asked (and said so), as without a terminal.
    (It was asked whenever stdin was a terminal.)"""
    done = run_on_terminal(SYNC, terminal=("stdin",), answer=b"y\n")
    assert done.asked_on == "", done
    data = json.loads(done.stdout)
    assert done.status == 1 and [r["result"] for r in data["results"]] == ["not removed"]
    assert data["not_removed"].startswith("stdin or stderr is not a terminal")
    assert len(deployed()) == 1


@pytest.mark.parametrize("argv", [DEPLOY, SYNC], ids=["deploy", "sync"])
def test_ctrl_c_at_the_question_interrupts_the_command(argv: list[str], orphaned: str) -> None:
    """Ctrl-C while a question waits stops the command there (exit 130), as anywhere else:
    ``sync`` does none of its other work either. (``sync`` took it for a no and went on.)"""
    done = run_on_terminal(argv, terminal=("stdin", "stderr"), answer=None)
    assert done.asked_on == "terminal", done
    assert done.status == 130 and "agenttools: interrupted" in done.terminal, done
    assert "Traceback" not in done.terminal and done.stdout == ""
    assert len(deployed()) == 1
