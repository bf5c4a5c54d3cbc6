"""The wheel files ``--runner uvx`` environments and locked syncs are made from
(:func:`agenttools_runtime.envs.remote.download_wheel`): downloaded into the cache and kept
there by hash, or read where they are; a cache the download cannot be written into is a clear
error; whichever way a file came, it is checked against its published hash."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from packaging.version import Version

from agenttools_runtime.envs.remote import RemoteWheel, WheelFile, download_wheel
from agenttools_runtime.envs.simple import IndexFile
from agenttools_runtime.errors import RemoteHashMismatch
from tests.helpers.envs import environments, run
from tests.helpers.index import IndexServer
from tests.helpers.index_fixtures import Releases

pytestmark = pytest.mark.slow


def test_a_cache_the_download_cannot_be_written_into_is_a_clear_error(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    old_index: IndexServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "wheels").write_text("a file where the cache's wheels directory should be\n")
    monkeypatch.setenv("AGENTTOOLS_CACHE_DIR", str(cache))
    done = run(
        capsys,
        "deploy",
        "claude-code",
        "weather-tools",
        "-i",
        old_index.url(),
        "--runner",
        "uvx",
        "--install",
    )
    assert done.status == 1, done.out
    assert "Traceback" not in done.err
    # the write that failed, not a later read of a file that is not there
    assert f"Cannot create the directory {cache / 'wheels'}/" in done.err, done.err
    assert "Not a directory" in done.err
    assert environments(tmp_path / "agenttools-state") == []
    assert not (home / ".claude.json").exists()


def deploy_uvx(capsys: pytest.CaptureFixture[str], *where: str) -> tuple[int, str]:
    done = run(
        capsys, "deploy", "claude-code", "weather-tools", *where, "--runner", "uvx", "--install"
    )
    return done.status, done.err


def receipt_sha256(state: Path) -> str:
    (name,) = environments(state)
    data = json.loads((state / "envs" / name / "agenttools-receipt.json").read_text())
    (own,) = [d for d in data["resolved"] if d["name"] == "weather-tools"]
    return str(own["sha256"])


def test_a_kept_wheel_that_is_not_that_file_any_more_is_downloaded_again(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    old_index: IndexServer,
    releases: Releases,
) -> None:
    state = tmp_path / "agenttools-state"
    published = hashlib.sha256(releases.old.read_bytes()).hexdigest()
    status, err = deploy_uvx(capsys, "-i", old_index.url())
    assert status == 0, err
    kept = tmp_path / "agenttools-cache" / "wheels" / published / releases.old.name
    assert kept.read_bytes() == releases.old.read_bytes()
    kept.write_bytes(releases.new.read_bytes())  # (another file under its name: 1.3.0's)
    assert run(capsys, "remove", "--all").status == 0
    assert environments(state) == []

    status, err = deploy_uvx(capsys, "-i", old_index.url())
    assert status == 0, err
    assert receipt_sha256(state) == published
    assert kept.read_bytes() == releases.old.read_bytes()
    skill = home / ".claude" / "skills" / "weather-report" / "SKILL.md"
    assert "Changed in 1.3.0" not in skill.read_text(encoding="utf-8")


def test_a_local_wheel_that_does_not_match_its_published_hash_is_refused(
    releases: Releases,
) -> None:
    # (a page that publishes hashes and links files on this machine: a file: mirror)
    wrong = "0" * 64
    item = IndexFile(releases.old.name, releases.old.resolve().as_uri(), wrong, False, "mirror")
    wheel = RemoteWheel("weather-tools", Version("1.2.0"), item)
    with pytest.raises(RemoteHashMismatch) as raised:
        download_wheel(wheel, timeout=10)
    assert raised.value.data["actual"] == hashlib.sha256(releases.old.read_bytes()).hexdigest()
    right = IndexFile(item.filename, item.url, raised.value.data["actual"], False, "mirror")
    found = download_wheel(RemoteWheel("weather-tools", Version("1.2.0"), right), timeout=10)
    assert found == WheelFile(releases.old.resolve(), right.sha256)
