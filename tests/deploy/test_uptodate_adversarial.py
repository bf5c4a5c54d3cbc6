"""Adversarial cases for the engine-free answer to an identical redeploy
(``agenttools_runtime/uptodate.py``): inputs of the engine's answer that a ticket once did not
keep. Each case: deploy, let the ticket answer, change one thing as a user would, then the
ticket must agree with the engine or not answer at all."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from agenttools_runtime import status_cache, uptodate

from .test_cli import weather
from .test_uptodate import TOOLS, agrees, engine, warm


@pytest.fixture(autouse=True)
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(status_cache, "RACY_NS", 0)


def venv_site(root: Path) -> Path:
    """A virtual environment's layout around a site-packages directory: ``--path`` to it
    launches the bundle's servers with that environment's interpreter."""
    site = root / "lib" / "python3.11" / "site-packages"
    weather(site, "1.2.0")
    (root / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "bin").mkdir()
    (root / "bin" / "python").write_text("")
    return site


def test_the_environment_a_site_belongs_to(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    state: Path,
    tmp_path: Path,
) -> None:
    """The servers' interpreter comes from the environment around ``--path``: when it is no
    longer a virtual environment, the config entry the engine wants is another one."""
    venv = tmp_path / "venv"
    site = venv_site(venv)
    argv = ["deploy", "claude-code", TOOLS, "--path", str(site)]
    warm(capsys, monkeypatch, argv, False, state)
    command = json.loads((home / ".claude.json").read_text())["mcpServers"]["weather"]["command"]
    assert command == str(venv / "bin" / "python")
    (venv / "pyvenv.cfg").unlink()
    fast, (status, out) = agrees(capsys, monkeypatch, argv)
    assert fast is None and status == 1 and "up to date" not in out


def test_a_virtual_environment_made_where_virtual_env_points(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    state: Path,
    tmp_path: Path,
) -> None:
    """``VIRTUAL_ENV`` names a folder without an interpreter (the environment deleted while
    active): the engine looks in this interpreter's path, and leaves a ticket. Once an
    environment is made there again, the engine looks in it instead."""
    site = tmp_path / "site"
    weather(site, "1.2.0")
    monkeypatch.syspath_prepend(str(site))
    venv = tmp_path / "venv"
    monkeypatch.setenv("VIRTUAL_ENV", str(venv))
    argv = ["deploy", "claude-code", TOOLS, "--upgrade"]
    warm(capsys, monkeypatch, argv, False, state)
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)  # (without the site above)
    fast, (status, out) = agrees(capsys, monkeypatch, argv)
    assert fast is None and status != 0 and "up to date" not in out


def test_a_linked_config_file_changed_while_the_engine_answered(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    state: Path,
    tmp_path: Path,
) -> None:
    """``~/.claude.json`` a link into a dotfiles folder; the file it leads to rewritten by
    another program after the engine read it, before the ticket was written: that file's
    times are after the engine started, so no ticket is written (only the link's own times
    were looked at: the ticket then held the new file's signature with the old answer)."""
    site = tmp_path / "site"
    weather(site, "1.2.0")
    dotfiles = tmp_path / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "claude.json").write_text("{}")
    (home / ".claude.json").symlink_to(dotfiles / "claude.json")
    argv = ["deploy", "claude-code", TOOLS, "--path", str(site), "--upgrade"]
    assert engine(capsys, monkeypatch, argv)[0] == 0
    original = uptodate.write
    calls: list[bool] = []

    def meanwhile(*args: Any, **kwargs: Any) -> bool:
        if not calls:  # (another program rewrites its config file in place)
            data = json.loads((dotfiles / "claude.json").read_text())
            del data["mcpServers"]["weather"]
            (dotfiles / "claude.json").write_text(json.dumps(data))
        calls.append(True)
        return original(*args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(uptodate, "write", meanwhile)
        for _ in range(3):  # (until the engine found it up to date and tried to write one)
            assert engine(capsys, monkeypatch, argv)[0] == 0
            if calls:
                break
    assert calls
    fast, (status, out) = agrees(capsys, monkeypatch, argv)
    assert fast is None and status == 0 and "up to date" not in out


def test_a_linked_dist_info_edited_where_it_leads(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    state: Path,
    tmp_path: Path,
) -> None:
    """The ``.dist-info`` a link into a store (a symlink forest's site-packages): a wheel file
    rewritten where it leads is a change of the source, though the link and the folder it
    leads to keep their signatures."""
    store = tmp_path / "store"
    weather(store, "1.2.0")
    site = tmp_path / "site"
    site.mkdir()
    (dist_info,) = store.glob("*.dist-info")
    (site / dist_info.name).symlink_to(dist_info)
    argv = ["deploy", "claude-code", TOOLS, "--path", str(site), "--upgrade"]
    warm(capsys, monkeypatch, argv, False, state)
    (run,) = dist_info.rglob("run.sh")
    run.write_text("#!/bin/sh\nexit 1\n")
    fast, (_, out) = agrees(capsys, monkeypatch, argv)
    assert fast is None and "up to date" not in out
