"""A project locked from a ``--find-links`` directory with no index (pip's and uv's
environment variables): the lock names the directory as the wheel's source, and a frozen sync
on another machine fetches it from there as find-links, not as a simple-API index; a location
that is not a URL is a clear error, not a traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers.envs import run, use_home
from tests.helpers.wheels import build_wheel

pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).resolve().parents[2] / "sample_packages" / "skills-only"
LINKS = ("PIP_FIND_LINKS", "UV_FIND_LINKS")
NO_INDEX = ("PIP_NO_INDEX", "UV_NO_INDEX")


def test_a_frozen_sync_of_a_lock_from_find_links_fetches_from_them(
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wheels = tmp_path / "wheels"
    build_wheel(SAMPLE, wheels)
    for name in LINKS:
        monkeypatch.setenv(name, str(wheels))
    for name in NO_INDEX:
        monkeypatch.setenv(name, "1")
    use_home(monkeypatch, tmp_path / "me")
    (repo / "agenttools.toml").write_text(
        '[agenttools]\nclients = ["claude-code"]\n\n[[bundle]]\nrequirement = "skills-only"\n',
        encoding="utf-8",
    )
    locked = run(capsys, "lock")
    assert locked.status == 0, locked.err
    assert f'index = "{wheels}"' in (repo / "agenttools.lock").read_text()

    # another machine: another HOME and state, no find-links configured, nothing deployed
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("agenttools.toml", "agenttools.lock"):
        shutil.copy(repo / name, clone / name)
    for name in (*LINKS, *NO_INDEX):
        monkeypatch.delenv(name)
    use_home(monkeypatch, tmp_path / "teammate")
    monkeypatch.chdir(clone)
    frozen = run(capsys, "sync", "--frozen")
    assert frozen.status == 0, frozen.err
    assert "Traceback" not in frozen.err
    skills = sorted(p.name for p in (clone / ".claude" / "skills").iterdir())
    assert skills == ["changelog-entry", "commit-message"]
    assert run(capsys, "verify").status == 0


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
