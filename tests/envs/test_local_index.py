"""A package index that is a local tree of the simple API (``--index-url file:///…/simple``,
or ``PIP_INDEX_URL`` / ``UV_DEFAULT_INDEX`` set to one), read by agenttools itself as pip and
uv read it: a project's page is ``<index>/<project>/index.html`` (a directory of wheels
without one is no page, for pip and uv alike), its links relative to it; ``file:/path`` (one
slash) is the same URL, and a path to the tree (absolute or not) the same tree, for pip and uv
alike. ``list --index`` reads the tree's own ``index.html``, else its
project directories."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest
from packaging.utils import parse_wheel_filename

from tests.helpers.envs import environments, run, use_home

pytestmark = pytest.mark.slow


def simple_tree(root: Path, wheels: list[Path], *, root_page: bool = True) -> Path:
    """A PEP 503 tree at *root*: the wheels under ``files/``, a page per project under
    ``simple/<project>/index.html`` linking them relatively with their hashes, and (with
    *root_page*) ``simple/index.html`` listing the projects. The ``simple`` directory."""
    files, simple = root / "files", root / "simple"
    files.mkdir(parents=True)
    projects: dict[str, list[Path]] = {}
    for wheel in wheels:
        (files / wheel.name).symlink_to(wheel.resolve())
        projects.setdefault(str(parse_wheel_filename(wheel.name)[0]), []).append(wheel)
    for name, own in projects.items():
        page = simple / name / "index.html"
        page.parent.mkdir(parents=True)
        links = [
            f'<a href="../../files/{quote(w.name)}#sha256='
            f'{hashlib.sha256(w.read_bytes()).hexdigest()}">{w.name}</a><br>'
            for w in own
        ]
        page.write_text("<html><body>\n" + "\n".join(links) + "\n</body></html>\n")
    if root_page:
        links = [f'<a href="{name}/">{name}</a><br>' for name in sorted(projects)]
        (simple / "index.html").write_text(
            "<html><body>\n" + "\n".join(links) + "\n</body></html>\n"
        )
    return simple


@pytest.fixture
def tree(tmp_path: Path, wheelhouse: Path) -> Path:
    return simple_tree(tmp_path / "tree", sorted(wheelhouse.iterdir()))


SPELLINGS = {
    "file-url": lambda tree: tree.as_uri(),
    "one-slash": lambda tree: f"file:{tree}",
    "path": str,
    "relative-path": lambda tree: os.path.relpath(tree),
    "variable": lambda tree: tree.as_uri(),
}


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_local_simple_tree_is_read_as_an_index(
    spelling: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    tree: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    url = SPELLINGS[spelling](tree)
    given: tuple[str, ...] = ("--index-url", url)
    if spelling == "variable":
        monkeypatch.setenv("PIP_INDEX_URL", url)
        given = ()
    shown = run(capsys, "show", "weather-tools", "--index", *given, "--json")
    assert shown.status == 0, shown.err
    # (a path as given is made absolute, as a find-links path is)
    absolute = str(tree) if spelling == "relative-path" else url
    assert shown.json()["version"] == "1.3.0" and shown.json()["index"] == absolute
    listed = run(capsys, "list", "--index", *given, "--json")
    assert listed.status == 0, listed.err
    rows = {r["distribution"]: r["version"] for r in listed.json()["distributions"]}
    assert rows == {"skills-only": "0.1.0", "weather-tools": "1.3.0"}
    done = run(capsys, "deploy", "cursor", "weather-tools", *given, "--runner", "uvx", "--install")
    assert done.status == 0, done.err
    assert environments(tmp_path / "agenttools-state") != []


def test_a_tree_without_its_own_page_is_listed_by_its_project_directories(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, wheelhouse: Path
) -> None:
    tree = simple_tree(tmp_path / "tree", sorted(wheelhouse.iterdir()), root_page=False)
    listed = run(capsys, "list", "--index", "--index-url", tree.as_uri(), "--json")
    assert listed.status == 0, listed.err
    rows = {r["distribution"]: r["version"] for r in listed.json()["distributions"]}
    assert rows == {"skills-only": "0.1.0", "weather-tools": "1.3.0"}


def test_a_project_directory_of_wheels_without_a_page_has_none(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, wheelhouse: Path
) -> None:
    # (pip and uv: "from versions: none" / "not found in the package registry")
    tree = tmp_path / "bare" / "simple"
    (tree / "weather-tools").mkdir(parents=True)
    for wheel in wheelhouse.glob("weather_tools-*.whl"):
        (tree / "weather-tools" / wheel.name).symlink_to(wheel.resolve())
    shown = run(capsys, "show", "weather-tools", "--index", "--index-url", tree.as_uri())
    assert shown.status == 1, shown.out
    assert "Traceback" not in shown.err
    assert f"No distribution named weather-tools on {tree.as_uri()}" in shown.err, shown.err


@pytest.mark.parametrize("runner", ["uvx", "python"])
def test_a_project_locked_from_a_local_tree_syncs_frozen_from_it(
    runner: str,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    tree: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("UV_DEFAULT_INDEX", tree.as_uri())
    scope = 'scope = "user"\nrunner = "python"\n' if runner == "python" else 'runner = "uvx"\n'
    (project / "agenttools.toml").write_text(
        '[agenttools]\nclients = ["cursor"]\n\n[[bundle]]\nrequirement = "weather-tools"\n' + scope
    )
    synced = run(capsys, "sync")
    assert synced.status == 0, synced.err
    lock = (project / "agenttools.lock").read_text()
    assert f'index = "{tree.as_uri()}"\nindex-kind = "simple-api"\n' in lock

    # another machine, no index configured: each file fetched from the tree the lock names
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("agenttools.toml", "agenttools.lock"):
        shutil.copy(project / name, clone / name)
    monkeypatch.delenv("UV_DEFAULT_INDEX")
    use_home(monkeypatch, tmp_path / "teammate")
    monkeypatch.chdir(clone)
    frozen = run(capsys, "sync", "--frozen")
    assert frozen.status == 0, frozen.err
    assert run(capsys, "verify").status == 0


def test_an_install_the_tree_cannot_serve_says_the_installers_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, tree: Path
) -> None:
    argv = ("deploy", "cursor", "weather-tools==9.9", "--index-url", tree.as_uri(), "--install")
    done = run(capsys, *argv)
    assert done.status == 1, done.out
    assert "Traceback" not in done.err and "Cannot reach" not in done.err, done.err
    assert "weather-tools" in done.err and "9.9" in done.err, done.err
    assert environments(tmp_path / "agenttools-state") == []
