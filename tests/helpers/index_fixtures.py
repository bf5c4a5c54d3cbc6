"""The session fixtures of managed-environment tests (tests/envs, and the real-client test of
a managed environment): real indexes on loopback (pypiserver, one behind basic auth), a
``--find-links`` wheelhouse (also served as a page of links by Python's http.server, which
serves no ranges: ``plain_http``), real ``weather-tools`` wheels in 1.2.0 and 1.3.0 (a skill
changed), and installer configuration isolated in every test that uses them. Import the
fixtures a module needs (``from tests.helpers.index_fixtures import old_index  # noqa: F401``)
or all of them into a ``conftest.py``."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.index import (
    IndexServer,
    apply_isolation,
    base_wheels,
    package_directory,
    plain_wheel,
    sample_release,
    serve,
)
from tests.helpers.wheels import build_sample_wheel

USER, PASSWORD = "alice", "s3cr3t-Token-4711"


@dataclass(frozen=True)
class Releases:
    old: Path  # weather-tools 1.2.0
    new: Path  # weather-tools 1.3.0
    plain: Path  # plain-dist 1.0, no agent tools


@pytest.fixture(scope="session")
def releases(tmp_path_factory: pytest.TempPathFactory) -> Releases:
    return Releases(
        sample_release(tmp_path_factory, "1.2.0"),
        sample_release(tmp_path_factory, "1.3.0"),
        plain_wheel(tmp_path_factory),
    )


@pytest.fixture(scope="session")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory, releases: Releases) -> Path:
    """A ``--find-links`` directory: weather-tools 1.2.0 and 1.3.0, plain-dist, and everything
    they need (agenttools, the MCP SDK, hatchling)."""
    skills_only = build_sample_wheel("skills-only", tmp_path_factory)
    wheels = [
        *base_wheels(tmp_path_factory),
        releases.old,
        releases.new,
        releases.plain,
        skills_only,
    ]
    return package_directory(tmp_path_factory, "wheelhouse", wheels)


@pytest.fixture
def plain_http(wheelhouse: Path) -> Iterator[str]:
    """The wheelhouse behind Python's http.server: a page of links, and no HTTP ranges."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(wheelhouse))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="session")
def old_only(tmp_path_factory: pytest.TempPathFactory, releases: Releases) -> Path:
    """A package directory with weather-tools 1.2.0, plain-dist and the base wheels."""
    wheels = [*base_wheels(tmp_path_factory), releases.old, releases.plain]
    return package_directory(tmp_path_factory, "old-only", wheels)


@pytest.fixture(scope="session")
def index(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path) -> Iterator[IndexServer]:
    """An open index serving the wheelhouse (1.2.0 and 1.3.0)."""
    yield from serve([wheelhouse], tmp_path_factory.mktemp("index"))


@pytest.fixture(scope="session")
def old_index(tmp_path_factory: pytest.TempPathFactory, old_only: Path) -> Iterator[IndexServer]:
    """An open index serving weather-tools 1.2.0 only."""
    yield from serve([old_only], tmp_path_factory.mktemp("old-index"))


@pytest.fixture(scope="session")
def auth_index(tmp_path_factory: pytest.TempPathFactory, old_only: Path) -> Iterator[IndexServer]:
    """The 1.2.0 index behind basic auth (USER, PASSWORD)."""
    yield from serve(
        [old_only], tmp_path_factory.mktemp("auth-index"), user=USER, password=PASSWORD
    )


@pytest.fixture
def publishing(tmp_path: Path, old_only: Path, releases: Releases) -> Iterator[Publishing]:
    """An index of this test's own that starts with 1.2.0 and can publish more."""
    own = tmp_path / "published"
    own.mkdir()
    for wheel in old_only.iterdir():
        (own / wheel.name).symlink_to(wheel.resolve())
    server = IndexServer([own], tmp_path / "published-server")
    try:
        yield Publishing(server, own)
    finally:
        server.stop()


@dataclass(frozen=True)
class Publishing:
    server: IndexServer
    directory: Path

    def publish(self, wheel: Path) -> None:
        (self.directory / wheel.name).symlink_to(wheel.resolve())


@pytest.fixture
def isolated_installers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    apply_isolation(monkeypatch, tmp_path)
