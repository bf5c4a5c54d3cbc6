"""Adversarial: the one y/N question (``cli/common.ask_yes_no``) on a real pseudo-terminal:
answers that are not plain ``y``/``n`` (bytes that are not UTF-8, spaces and capitals, a
longer word), every stream a terminal, stdin closed altogether; whatever comes, no
traceback, and nothing is removed unless the answer was yes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agenttools_runtime.deploy import deployed
from tests.helpers.terminal import run_on_terminal
from tests.helpers.weather import orphaned_deployment

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX")

SYNC = ["sync", "--prune"]


@pytest.fixture
def orphaned(tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """One deployment whose distribution was uninstalled since: its id."""
    uuid = orphaned_deployment(tmp_path / "site")
    capsys.readouterr()
    return uuid


@pytest.mark.parametrize(
    ("answer", "removed"),
    [
        (b"  YES \n", True),
        (b"Y\n", True),
        (b"yes please\n", False),
        (b"no\n", False),
        (b"\xff\xfe\n", False),  # not UTF-8: no answer to go on with, and no traceback
        (b"y\xff\n", False),
    ],
    ids=["spaced-capitals", "capital", "longer", "no", "not-utf8", "y-then-not-utf8"],
)
def test_only_a_yes_removes_and_no_answer_shows_a_traceback(
    orphaned: str, answer: bytes, removed: bool
) -> None:
    done = run_on_terminal(SYNC, terminal=("stdin", "stderr"), answer=answer)
    assert done.asked_on == "terminal", done
    assert "Traceback" not in done.terminal + done.stdout, done
    if removed:
        assert done.status == 0 and deployed() == [], done
    else:
        assert done.status == 1 and len(deployed()) == 1, done
        assert "not confirmed" in done.stdout, done


@pytest.mark.parametrize(
    "env", [{"LC_ALL": "C.UTF-8"}, {"LC_ALL": "C", "PYTHONUTF8": "0"}], ids=["utf8", "c"]
)
def test_an_answer_that_is_not_utf8_is_no_under_any_locale(
    orphaned: str, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    done = run_on_terminal(SYNC, terminal=("stdin", "stderr"), answer=b"\xe9\n")
    assert done.asked_on == "terminal", done
    assert "Traceback" not in done.terminal + done.stdout, done
    assert done.status == 1 and len(deployed()) == 1, done


def test_every_stream_a_terminal_asks_once_there(orphaned: str) -> None:
    done = run_on_terminal(SYNC, terminal=("stdin", "stdout", "stderr"), answer=b"y\n")
    assert done.asked_on == "terminal" and done.terminal.count("[y/N]") == 1, done
    assert done.status == 0 and deployed() == []


def test_a_closed_stdin_asks_nothing_and_removes_nothing(orphaned: str) -> None:
    """Started with file descriptor 0 closed (``<&-``): ``sys.stdin`` is None."""
    done = subprocess.run(
        [sys.executable, "-m", "agenttools", *SYNC],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        preexec_fn=lambda: os.close(0),
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1 and len(deployed()) == 1, (done.stdout, done.stderr)
    assert "stdin or stderr is not a terminal" in done.stdout
