"""Project-state tests get the index fixtures (tests/helpers/index_fixtures.py) with installer
configuration isolated, and a project: a temporary git repository with one commit."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.helpers.index_fixtures import (  # noqa: F401 (fixtures)
    Publishing,
    Releases,
    index,
    isolated_installers,
    old_only,
    plain_http,
    publishing,
    releases,
    wheelhouse,
)

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.org",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.org",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@pytest.fixture(autouse=True)
def _isolated(isolated_installers: None, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    for name, value in GIT_IDENTITY.items():
        monkeypatch.setenv(name, value)


def git(cwd: Path, *argv: str) -> str:
    done = subprocess.run(["git", *argv], cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository with one commit (a README), the current directory."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "README.md").write_text("# a project\n", encoding="utf-8")
    git(root, "add", "README.md")
    git(root, "commit", "-q", "-m", "start")
    monkeypatch.chdir(root)
    return root


def fork_wheel(factory: pytest.TempPathFactory) -> Path:
    """``weather-fork`` 1.0: the weather-tools sample under another name, so its server
    writes the same config key ("weather")."""
    import shutil

    from tests.helpers.wheels import SAMPLES, _cached, build_wheel

    def make(out: Path) -> None:
        source = out.parent / ".src-weather-fork"
        shutil.rmtree(source, ignore_errors=True)
        shutil.copytree(SAMPLES / "weather-tools", source)
        try:
            pyproject = source / "pyproject.toml"
            text = pyproject.read_text(encoding="utf-8")
            text = text.replace('name = "weather-tools"', 'name = "weather-fork"')
            pyproject.write_text(text.replace('version = "1.2.0"', 'version = "1.0"'))
            build_wheel(source, out)
        finally:
            shutil.rmtree(source, ignore_errors=True)

    return _cached(factory, "weather-fork", make)


def write_project(root: Path, url: str, *clients: str, extra: str = "") -> Path:
    """An ``agenttools.toml`` with a comment, the index and *clients*, and no bundle yet."""
    path = root / "agenttools.toml"
    names = ", ".join(f'"{c}"' for c in clients)
    path.write_text(
        f"# the agent tools this project uses\n[agenttools]\nclients = [{names}]  # ours\n"
        f'index-url = "{url}"\n{extra}',
        encoding="utf-8",
    )
    return path


def notes_plus_wheel(factory: pytest.TempPathFactory) -> Path:
    """``notes-plus`` 1.0: the skills-only sample under another name, depending on
    ``plain-dist>=1.0`` (a managed environment with a dependency that can move)."""
    import shutil

    from tests.helpers.wheels import SAMPLES, _cached, build_wheel

    def make(out: Path) -> None:
        source = out.parent / ".src-notes-plus"
        shutil.rmtree(source, ignore_errors=True)
        shutil.copytree(SAMPLES / "skills-only", source)
        try:
            pyproject = source / "pyproject.toml"
            text = pyproject.read_text(encoding="utf-8")
            text = text.replace('name = "skills-only"', 'name = "notes-plus"')
            text = text.replace(
                'version = "0.1.0"', 'version = "1.0"\ndependencies = ["plain-dist>=1.0"]'
            )
            pyproject.write_text(text, encoding="utf-8")
            build_wheel(source, out)
        finally:
            shutil.rmtree(source, ignore_errors=True)

    return _cached(factory, "notes-plus-1.0", make)


def plain_release(factory: pytest.TempPathFactory, version: str, marker: str = "") -> Path:
    """``plain-dist`` of *version* (no agent tools); *marker* changes its bytes (another
    file under the same name: what a tampered index serves)."""
    import shutil

    from tests.helpers.wheels import _cached, build_wheel

    def make(out: Path) -> None:
        source = out.parent / f".src-plain-{version}-{marker}"
        shutil.rmtree(source, ignore_errors=True)
        (source / "plain_dist").mkdir(parents=True)
        (source / "plain_dist" / "__init__.py").write_text(f"# {marker}\n" if marker else "")
        (source / "pyproject.toml").write_text(
            '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
            f'[project]\nname = "plain-dist"\nversion = "{version}"\n'
        )
        try:
            build_wheel(source, out)
        finally:
            shutil.rmtree(source, ignore_errors=True)

    return _cached(factory, f"plain-dist-{version}-{marker or 'plain'}", make)
