"""The wheel files ``--runner uvx`` environments and locked syncs are made from
(:func:`agenttools_runtime.envs.remote.download_wheel`): downloaded into the cache and kept
there by hash, or read where they are; a cache the download cannot be written into is a clear
error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.envs import environments, run
from tests.helpers.index import IndexServer

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
