"""A project locked from a ``--find-links`` location with no index (pip's and uv's environment
variables), a directory or a page of links over HTTP: the lock names the location as the
wheel's source and records that it is find-links (a lock without that record, from an earlier
agenttools, is read as before), a frozen sync on another machine fetches it from there as
find-links, not as a simple-API index, and ``uvx`` entries say ``--find-links``; an index
path with no tree there is a clear error, not a traceback. With an index and find-links both, a
virtual environment's lock names for each wheel the one it came from, and a frozen sync
fetches each from there."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.helpers.envs import environments, run, use_home
from tests.helpers.index_fixtures import Publishing, Releases
from tests.helpers.wheels import build_wheel

pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).resolve().parents[2] / "sample_packages" / "skills-only"
LINKS = ("PIP_FIND_LINKS", "UV_FIND_LINKS")
NO_INDEX = ("PIP_NO_INDEX", "UV_NO_INDEX")


def clone_of(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Another machine: a copy of the project's agenttools.toml and lock, its own HOME and
    state, no find-links configured, nothing deployed; the current directory."""
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("agenttools.toml", "agenttools.lock"):
        shutil.copy(repo / name, clone / name)
    for name in (*LINKS, *NO_INDEX):
        monkeypatch.delenv(name, raising=False)
    use_home(monkeypatch, tmp_path / "teammate")
    monkeypatch.chdir(clone)
    return clone


@pytest.mark.parametrize("kind_recorded", [True, False], ids=["this-lock", "earlier-lock"])
def test_a_frozen_sync_of_a_lock_from_find_links_fetches_from_them(
    kind_recorded: bool,
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
    lock = repo / "agenttools.lock"
    text = lock.read_text(encoding="utf-8")
    assert f'index = "{wheels}"\nindex-kind = "find-links"\n' in text
    if not kind_recorded:  # (what an earlier agenttools wrote: the kind is inferred)
        lock.write_text(text.replace('index-kind = "find-links"\n', ""), encoding="utf-8")

    clone = clone_of(repo, tmp_path, monkeypatch)
    frozen = run(capsys, "sync", "--frozen")
    assert frozen.status == 0, frozen.err
    assert "Traceback" not in frozen.err
    skills = sorted(p.name for p in (clone / ".claude" / "skills").iterdir())
    assert skills == ["changelog-entry", "commit-message"]
    assert run(capsys, "verify").status == 0


def test_an_index_path_with_no_tree_there_is_a_clear_error(
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
    # (a path is a local simple-API tree for pip and uv, and for agenttools' own reads)
    assert "No distribution named skills-only on /not/a/url" in locked.err, locked.err
    assert not (repo / "agenttools.lock").exists()


def test_a_lock_from_a_page_of_links_over_http_syncs_frozen_elsewhere(
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    plain_http: str,
) -> None:
    for name in LINKS:
        monkeypatch.setenv(name, plain_http)
    for name in NO_INDEX:
        monkeypatch.setenv(name, "1")
    use_home(monkeypatch, tmp_path / "me")
    (repo / "agenttools.toml").write_text(
        '[agenttools]\nclients = ["claude-code"]\nrunner = "uvx"\n\n'
        '[[bundle]]\nrequirement = "weather-tools"\n',
        encoding="utf-8",
    )
    synced = run(capsys, "sync")
    assert synced.status == 0, synced.err
    text = (repo / "agenttools.lock").read_text(encoding="utf-8")
    assert f'index = "{plain_http}"\nindex-kind = "find-links"\n' in text
    entry = json.loads((repo / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["weather"]
    assert entry["args"] == [
        "--find-links",
        plain_http,
        "--from",
        "weather-tools==1.3.0",
        "weather-mcp",
    ]

    # another machine, whose find-links do not name the page: fetched from it as find-links
    clone = clone_of(repo, tmp_path, monkeypatch)
    frozen = run(capsys, "sync", "--frozen")
    assert frozen.status == 0, frozen.err
    assert (clone / ".mcp.json").read_bytes() == (repo / ".mcp.json").read_bytes()
    assert run(capsys, "verify").status == 0


def test_a_venv_lock_names_find_links_for_a_wheel_from_them_beside_an_index(
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    publishing: Publishing,
    releases: Releases,
) -> None:
    # the index has weather-tools 1.2.0 and its dependencies; the find-links 1.3.0 only
    links = tmp_path / "links"
    links.mkdir()
    (links / releases.new.name).symlink_to(releases.new.resolve())
    for name in LINKS:
        monkeypatch.setenv(name, str(links))
    use_home(monkeypatch, tmp_path / "me")
    url = publishing.server.url()
    (repo / "agenttools.toml").write_text(
        f'[agenttools]\nclients = ["claude-code"]\nindex-url = "{url}"\n\n'
        '[[bundle]]\nrequirement = "weather-tools"\nscope = "user"\nrunner = "python"\n',
        encoding="utf-8",
    )
    synced = run(capsys, "sync")
    assert synced.status == 0, synced.err
    text = (repo / "agenttools.lock").read_text(encoding="utf-8")
    own, *dependencies = text.split("[[distribution.dependency]]")
    assert f'version = "1.3.0"\nwheel = "{releases.new.name}"' in own, own
    assert f'index = "{links}"\nindex-kind = "find-links"\n' in own, own
    assert len(dependencies) > 10  # (the MCP SDK and what it needs: from the index, each)
    for table in dependencies:
        assert f'index = "{url}"\nindex-kind = "simple-api"\n' in table, table

    # another machine, no find-links of its own: each file from where the lock says
    clone_of(repo, tmp_path, monkeypatch)
    frozen = run(capsys, "sync", "--frozen")
    assert frozen.status == 0, frozen.err
    (name,) = environments(tmp_path / "teammate" / "agenttools-state")
    assert name.startswith("weather-tools-1.3.0-")
