"""A project locked from a ``--find-links`` directory with no index (pip's and uv's
environment variables): the lock names the directory as the wheel's source, and a frozen sync
on another machine fetches it from there as find-links, not as a simple-API index; a location
that is not a URL is a clear error, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.envs import run

pytestmark = pytest.mark.slow


def use_home(monkeypatch: pytest.MonkeyPatch, base: Path) -> None:
    (base / "home").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(base / "home"))
    monkeypatch.setenv("USERPROFILE", str(base / "home"))
    monkeypatch.setenv("AGENTTOOLS_HOME", str(base / "agenttools-state"))


def test_an_index_that_is_not_a_url_is_a_clear_error(
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_home(monkeypatch, tmp_path / "me")
    monkeypatch.setenv("PIP_INDEX_URL", "/not/a/url")
    monkeypatch.setenv("UV_DEFAULT_INDEX", "/not/a/url")
    (repo / "agenttools.toml").write_text(
        '[agenttools]\nclients = ["claude-code"]\n\n[[bundle]]\nrequirement = "skills-only"\n',
        encoding="utf-8",
    )
    locked = run(capsys, "lock")
    assert locked.status == 1, locked.out + locked.err
    assert "Traceback" not in locked.err
    assert "/not/a/url" in locked.err and "unknown url type" in locked.err
    assert not (repo / "agenttools.lock").exists()
