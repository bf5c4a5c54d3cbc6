"""Adversarial: the project lock's ``index-kind`` and the one hash check of each wheel, on a
real find-links directory, real wheels and real environments: a lock whose kind is spelt
otherwise or names the wrong kind, and a wheel at the locked location that is no longer the
file the lock pinned (the same name and version, other bytes). A frozen sync then stops with
a clear error, deploys nothing and writes nothing into the project."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers.envs import run, snapshot, use_home
from tests.helpers.index_fixtures import isolated_installers  # noqa: F401 (a fixture)
from tests.helpers.wheels import build_wheel

pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).resolve().parents[2] / "sample_packages" / "skills-only"
LINKS = ("PIP_FIND_LINKS", "UV_FIND_LINKS")
NO_INDEX = ("PIP_NO_INDEX", "UV_NO_INDEX")
KIND = 'index-kind = "find-links"\n'


@pytest.fixture
def locked(
    isolated_installers: None,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> tuple[Path, Path]:
    """A project locked from a find-links directory (no index), then the clone of it on
    another machine whose installers name no source, the current directory: (the clone, the
    wheel directory)."""
    wheels = tmp_path / "wheels"
    build_wheel(SAMPLE, wheels)
    for name in LINKS:
        monkeypatch.setenv(name, str(wheels))
    for name in NO_INDEX:
        monkeypatch.setenv(name, "1")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo)
    use_home(monkeypatch, tmp_path / "me")
    (repo / "agenttools.toml").write_text(
        '[agenttools]\nclients = ["claude-code"]\n\n[[bundle]]\nrequirement = "skills-only"\n',
        encoding="utf-8",
    )
    done = run(capsys, "lock")
    assert done.status == 0, done.err
    assert KIND in (repo / "agenttools.lock").read_text(encoding="utf-8")
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("agenttools.toml", "agenttools.lock"):
        shutil.copy(repo / name, clone / name)
    for name in (*LINKS, *NO_INDEX):
        monkeypatch.delenv(name)
    use_home(monkeypatch, tmp_path / "teammate")
    monkeypatch.chdir(clone)
    return clone, wheels


def refused_cleanly(capsys: pytest.CaptureFixture[str], clone: Path) -> str:
    before = snapshot(clone)
    frozen = run(capsys, "sync", "--frozen")
    assert frozen.status == 1, (frozen.out, frozen.err)
    assert "Traceback" not in frozen.out + frozen.err
    assert snapshot(clone) == before
    assert not (clone / ".claude").exists()
    return frozen.err


@pytest.mark.parametrize(
    "kind", ['"Find-Links"', '"find_links"', '""', "1", '["find-links"]', "{}"]
)
def test_an_index_kind_of_another_spelling_or_type_is_a_clear_error(
    locked: tuple[Path, Path], capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    clone, _ = locked
    lock = clone / "agenttools.lock"
    lock.write_text(
        lock.read_text(encoding="utf-8").replace(KIND, f"index-kind = {kind}\n"), "utf-8"
    )
    err = refused_cleanly(capsys, clone)
    assert "index-kind" in err and "agenttools.lock" in err, err


def test_a_wheel_that_is_no_longer_the_one_locked_is_refused(
    locked: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The find-links directory publishes no hash; the lock does: a wheel rebuilt there with
    other contents under the same name must not be installed from the lock."""
    clone, wheels = locked
    (original,) = wheels.glob("*.whl")
    project = tmp_path / "changed" / "skills-only"
    shutil.copytree(SAMPLE, project)
    skill = project / "skills" / "changelog-entry" / "SKILL.md"
    skill.write_text(skill.read_text(encoding="utf-8") + "\nSomething else.\n", "utf-8")
    other = tmp_path / "other-wheels"
    build_wheel(project, other)
    (rebuilt,) = other.glob("*.whl")
    assert rebuilt.name == original.name and rebuilt.read_bytes() != original.read_bytes()
    shutil.copy(rebuilt, original)
    err = refused_cleanly(capsys, clone)
    assert original.name in err and "agenttools.lock records" in err, err


def test_a_find_links_location_locked_as_a_simple_api_index_fails_clearly(
    locked: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The lock says ``simple-api`` for a directory: it is fetched as an index, which it is
    not; a clear error (no distribution there), not a traceback, nothing written."""
    clone, _ = locked
    lock = clone / "agenttools.lock"
    text = lock.read_text(encoding="utf-8")
    lock.write_text(text.replace(KIND, 'index-kind = "simple-api"\n'), "utf-8")
    assert "No distribution named skills-only on" in refused_cleanly(capsys, clone)
