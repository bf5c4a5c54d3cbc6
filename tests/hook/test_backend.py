"""The wrapping backend (``agenttools_hook.backend``) under real frontends and real backends
from the package index, and ``agenttools bundle`` on a wheel built without agenttools.

Each backend's project (tests/hook/backends.py) is built once per session by one frontend
with build isolation against the local wheelhouse: ``python -m build`` (setuptools,
flit-core, poetry-core: the sdist, then the wheel from it), ``uv build`` (uv-build) and
``pip wheel`` (pdm-backend: metadata first, then the wheel). All five wheels go into ONE venv
(distinct distributions and skill names, so one venv proves each), are listed and deployed.
Reproducibility and the failures use ``python -m build --no-isolation`` (no venv to make).
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.skills.hashing import hash_bytes
from tests.helpers.venvs import Venv, create_venv
from tests.helpers.wheels import manifest_bytes
from tests.hook.backends import (
    BACKENDS,
    Backend,
    cached,
    make_project,
    pip_wheel,
    python_m_build,
    run,
    uv_build,
    wheelhouse,
)

pytestmark = pytest.mark.slow
AGENTTOOLS = "extra_metadata/agenttools"
FRONTENDS = {  # backend -> the frontend that builds its wheel in these tests
    "setuptools": "python -m build",
    "flit-core": "python -m build",
    "poetry-core": "python -m build",
    "uv-build": "uv build",
    "pdm-backend": "pip wheel",  # its wheel copies the prepared .dist-info (ours included)
}


@pytest.fixture(scope="session")
def house(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return wheelhouse(tmp_path_factory)


def isolated_build(tmp_path_factory: pytest.TempPathFactory, house: Path, key: str) -> Path:
    """The output directory of *key*'s isolated build (wheel, and sdist where the frontend
    makes one), built once per session."""
    backend = BACKENDS[key]

    def make(out: Path) -> None:
        project = make_project(out.parent / f".{key}-project", backend)
        try:
            frontend = FRONTENDS[key]
            if frontend == "python -m build":
                python_m_build(project, out, house)
            elif frontend == "uv build":
                uv_build(project, out, house, cache=out.parent / ".uv-cache")
            else:
                pip_wheel(project, out, house)
        finally:
            shutil.rmtree(project, ignore_errors=True)

    return cached(tmp_path_factory, f"isolated-{key}", make)


def in_tree_build(tmp_path_factory: pytest.TempPathFactory, key: str) -> Path:
    """*key*'s wheel from ``python -m build --no-isolation --wheel``, once per session."""

    def make(out: Path) -> None:
        project = make_project(out.parent / f".{key}-tree", BACKENDS[key])
        try:
            python_m_build(project, out, None, "--wheel")
        finally:
            shutil.rmtree(project, ignore_errors=True)

    return wheel_in(cached(tmp_path_factory, f"in-tree-{key}", make))


def wheel_in(directory: Path) -> Path:
    (wheel,) = directory.glob("*.whl")
    return wheel


# -- checks ----------------------------------------------------------------------------------
def checked_manifest(wheel: Path) -> dict[str, Any]:
    """The wheel's manifest, after checking RECORD (every member's hash and size, nothing
    else listed) and every skill file against the manifest's hashes."""
    import base64
    import csv
    import hashlib

    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if not n.endswith("/")]
        (record,) = [n for n in names if n.count("/") == 1 and n.endswith(".dist-info/RECORD")]
        dist_info = record.split("/")[0]
        rows = list(csv.reader(archive.read(record).decode("utf-8").splitlines()))
        listed = {row[0]: row for row in rows}
        assert sorted(listed) == sorted(names)
        for name in names:
            if name == record:
                continue
            data = archive.read(name)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert listed[name][1:] == [f"sha256={digest.decode()}", str(len(data))], name
        manifest = json.loads(archive.read(f"{dist_info}/{AGENTTOOLS}/manifest.json"))
        for skill, entry in manifest["skills"].items():
            prefix = f"{dist_info}/{AGENTTOOLS}/skills/{skill}/"
            shipped = {n[len(prefix) :] for n in names if n.startswith(prefix)}
            assert shipped == set(entry["files"]), skill
            for rel, digest in entry["files"].items():
                assert hash_bytes(archive.read(prefix + rel)) == digest, rel
            for rel in entry["executable"]:
                assert archive.getinfo(prefix + rel).external_attr >> 16 & 0o111, rel
    return manifest


def deploy_and_check(
    capsys: pytest.CaptureFixture[str], home: Path, venv: Venv, distribution: str
) -> None:
    """Deploy *distribution*'s bundle to Claude Code; every deployed skill file has the
    manifest's hash, and the server runs the venv's python."""
    status = main(["deploy", "claude-code", distribution, "--python", str(venv.python), "--json"])
    out, err = capsys.readouterr()
    assert status == 0, out + err
    (dist_info,) = venv.site_packages.glob(f"{distribution.replace('-', '_')}-*.dist-info")
    manifest = json.loads((dist_info / AGENTTOOLS / "manifest.json").read_text())
    for skill, entry in manifest["skills"].items():
        deployed = home / ".claude" / "skills" / skill
        files = {p.relative_to(deployed).as_posix() for p in deployed.rglob("*") if p.is_file()}
        assert files == set(entry["files"]), skill
        for rel, digest in entry["files"].items():
            assert hash_bytes((deployed / rel).read_bytes()) == digest, rel
    config = json.loads((home / ".claude.json").read_text())
    (server,) = manifest["mcp-servers"]
    entry = config["mcpServers"][server]
    assert Path(entry["command"]).parent == venv.python.parent
    assert entry["args"] == ["-m", manifest["mcp-servers"][server]["module"]]


# -- every backend, through a real frontend ----------------------------------------------------
@pytest.mark.parametrize("key", sorted(BACKENDS))
def test_frontend_builds_a_wheel_with_the_agenttools_files(
    key: str, house: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    out = isolated_build(tmp_path_factory, house, key)
    wheel = wheel_in(out)
    manifest = checked_manifest(wheel)
    backend = BACKENDS[key]
    assert manifest["distribution"] == backend.distribution
    assert manifest["version"] == "0.1.0"
    assert sorted(manifest["skills"]) == [f"{key}-help", f"{key}-notes"]
    assert manifest["skills"][f"{key}-notes"]["executable"] == ["scripts/run.sh"]
    # the same manifest as the in-tree build without isolation
    assert manifest_bytes(wheel) == manifest_bytes(in_tree_build(tmp_path_factory, key))
    for sdist in out.glob("*.tar.gz"):  # built first, then the wheel from it
        import tarfile

        with tarfile.open(sdist) as archive:
            names = {n.split("/", 1)[1] for n in archive.getnames() if "/" in n}
        assert {"pyproject.toml", "docs/help.md", f"skills/{key}-notes/scripts/run.sh"} <= names


def test_every_backends_wheel_installs_lists_and_deploys(
    house: Path,
    tmp_path_factory: pytest.TempPathFactory,
    tmp_path: Path,
    home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    wheels = [wheel_in(isolated_build(tmp_path_factory, house, key)) for key in sorted(BACKENDS)]
    venv = create_venv(tmp_path / "venv", wheels)
    assert main(["list", "--python", str(venv.python), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    names = {b["qualified_name"] for b in listed["bundles"]}
    assert {f"{b.distribution}/{b.distribution}" for b in BACKENDS.values()} <= names
    for backend in BACKENDS.values():
        deploy_and_check(capsys, home, venv, backend.distribution)


@pytest.mark.parametrize("key", sorted(BACKENDS))
def test_two_builds_are_byte_identical(
    key: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    first = in_tree_build(tmp_path_factory, key)
    project = make_project(tmp_path / "again", BACKENDS[key])  # new files, new mtimes
    python_m_build(project, tmp_path / "out", None, "--wheel")
    assert wheel_in(tmp_path / "out").read_bytes() == first.read_bytes()


# -- failures --------------------------------------------------------------------------------
BROKEN = """
[tool.agenttools.mcp-server.typo]
module = "nothing"

[tool.agenttools.skills.Bad_Name]
"""


@pytest.mark.parametrize("key", sorted(BACKENDS))
def test_a_broken_project_fails_every_backends_build_with_the_located_problems(
    key: str, tmp_path: Path
) -> None:
    project = make_project(tmp_path / "project", BACKENDS[key])
    pyproject = project / "pyproject.toml"
    lines = pyproject.read_text().splitlines()
    pyproject.write_text("\n".join(lines) + "\n" + BROKEN)
    typo = len(lines) + 2  # the [tool.agenttools.mcp-server.typo] line
    done = python_m_build(project, tmp_path / "out", None, "--wheel", check=False)
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "AgentToolsBuildError: [tool.agenttools] has 3 error(s):" in output
    assert (
        f"pyproject.toml:{typo}: UnknownKey: tool.agenttools.mcp-server: unknown key "
        '"mcp-server"; did you mean "mcp-servers"?'
    ) in output
    assert f"pyproject.toml:{typo + 3}: InvalidSkillName: tool.agenttools.skills.Bad_Name" in output
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_a_misspelled_backend_key_fails_an_isolated_build_clearly(
    house: Path, tmp_path: Path
) -> None:
    project = make_project(tmp_path / "project", BACKENDS["setuptools"])
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("\nbackend = ", "\nbakend = "))
    done = python_m_build(project, tmp_path / "out", house, check=False)
    output = done.stdout + done.stderr
    assert done.returncode != 0
    assert "AgentToolsBuildError: [tool.agenttools] has 2 error(s):" in output
    assert 'MissingBackend: tool.agenttools: build-backend is "agenttools_hook.backend"' in output
    assert 'UnknownKey: tool.agenttools.bakend: unknown key "bakend"; did you mean "backend"?' in (
        output
    )


def test_a_missing_agenttools_table_names_what_to_add(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project", BACKENDS["flit-core"])
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().split("[tool.agenttools]")[0])
    done = python_m_build(project, tmp_path / "out", None, "--wheel", check=False)
    assert done.returncode != 0
    assert (
        'pyproject.toml:3: MissingBackend: build-system.build-backend: "agenttools_hook.backend" '
        "needs [tool.agenttools] with backend = the backend that builds the project"
    ) in done.stdout + done.stderr


# -- editable installs -----------------------------------------------------------------------
def test_pip_install_editable_deploys_the_live_skill_files(
    house: Path, tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    backends = [BACKENDS["setuptools"], BACKENDS["pdm-backend"]]
    projects = [make_project(tmp_path / b.key, b) for b in backends]
    venv = create_venv(tmp_path / "venv")
    editables = [arg for project in projects for arg in ("-e", str(project))]
    run([*pip_prefix(venv), "--find-links", str(house), *editables])
    for backend, project in zip(backends, projects, strict=True):
        (dist_info,) = venv.site_packages.glob(f"{backend.module}-*.dist-info")
        manifest = json.loads((dist_info / AGENTTOOLS / "manifest.json").read_text())
        assert manifest["source-root"] == str(project)
        direct_url = json.loads((dist_info / "direct_url.json").read_text())
        assert direct_url["dir_info"] == {"editable": True}
        live = project / "skills" / f"{backend.key}-notes" / "SKILL.md"
        live.write_text(live.read_text() + "\nEdited after the install.\n")
        status = main(["deploy", "claude-code", backend.distribution, "--python", str(venv.python)])
        assert status == 0, capsys.readouterr()
        deployed = home / ".claude" / "skills" / f"{backend.key}-notes" / "SKILL.md"
        assert deployed.read_text() == live.read_text()


def pip_prefix(venv: Venv) -> list[str]:
    import sys

    return [sys.executable, "-m", "pip", "--python", str(venv.python), "install", "--no-deps",
            "--no-index"]  # fmt: skip


# -- agenttools bundle -----------------------------------------------------------------------
def test_bundle_adds_the_files_to_a_wheel_built_without_agenttools(
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    backend: Backend = BACKENDS["setuptools"]
    project = make_project(tmp_path / "project", backend, wrap=False)
    python_m_build(project, tmp_path / "plain", None, "--wheel")
    plain = wheel_in(tmp_path / "plain")
    with zipfile.ZipFile(plain) as archive:
        assert not [n for n in archive.namelist() if AGENTTOOLS in n]
    status = main(["bundle", str(plain), "--project", str(project), "-o", str(tmp_path / "out")])
    assert status == 0, capsys.readouterr()
    bundled = tmp_path / "out" / plain.name
    checked_manifest(bundled)
    # the same files as the wrapping backend's build of the same project
    assert manifest_bytes(bundled) == manifest_bytes(in_tree_build(tmp_path_factory, "setuptools"))
    with zipfile.ZipFile(plain) as before, zipfile.ZipFile(bundled) as after:
        for info in before.infolist():
            if not info.filename.endswith("/RECORD"):
                assert after.read(info.filename) == before.read(info), info.filename
                moved = after.getinfo(info.filename)
                assert (moved.date_time, moved.external_attr) == (
                    info.date_time,
                    info.external_attr,
                )
    venv = create_venv(tmp_path / "venv", [bundled])
    deploy_and_check(capsys, home, venv, backend.distribution)
