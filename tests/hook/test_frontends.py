"""The hook under real build frontends with build isolation: ``pip wheel``, ``python -m build``
(wheel built from the sdist) and ``pip install -e``. ``agenttools`` comes from a locally
built wheel in a wheelhouse (``--no-index --find-links``), never from PyPI; hatchling and the
other build requirements are downloaded into that wheelhouse once (PyPI)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.venvs import create_venv
from tests.helpers.wheels import SAMPLES, build_wheel, manifest_bytes
from tests.hook import backends

pytestmark = pytest.mark.slow
EXTRA = "extra_metadata/agenttools"


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """agenttools' wheel plus hatchling, editables and every dependency, for offline builds
    (the one wheelhouse of tests/hook/, downloaded once per session)."""
    return backends.wheelhouse(tmp_path_factory)


def pip(args: list[str], **env: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def copy_sample(name: str, tmp_path: Path) -> Path:
    project = tmp_path / name
    shutil.copytree(SAMPLES / name, project, symlinks=True)
    return project


def test_pip_wheel_with_build_isolation(wheelhouse: Path, tmp_path: Path) -> None:
    project = copy_sample("weather-tools", tmp_path)
    out = tmp_path / "out"
    pip(
        [
            "wheel",
            "--no-deps",
            "--no-index",
            "--find-links",
            str(wheelhouse),
            "--wheel-dir",
            str(out),
            str(project),
        ]
    )
    (wheel,) = out.glob("*.whl")
    reference = build_wheel(SAMPLES / "weather-tools", tmp_path / "in-process")
    assert manifest_bytes(wheel) == manifest_bytes(reference)


def test_python_m_build_builds_the_wheel_from_the_sdist(wheelhouse: Path, tmp_path: Path) -> None:
    project = copy_sample("multi-bundle", tmp_path)
    out = tmp_path / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(project)],
        capture_output=True,
        text=True,
        env={**os.environ, "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheelhouse)},
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = out.glob("*.whl")
    reference = build_wheel(SAMPLES / "multi-bundle", tmp_path / "in-process")
    assert manifest_bytes(wheel) == manifest_bytes(reference)
    # nothing was staged in the output directory
    assert sorted(p.suffix for p in out.iterdir()) == [".gz", ".whl"]


def test_broken_project_fails_pip_with_the_messages(wheelhouse: Path, tmp_path: Path) -> None:
    project = copy_sample("broken", tmp_path)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-index",
            "--find-links",
            str(wheelhouse),
            "--wheel-dir",
            str(tmp_path / "out"),
            str(project),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode != 0
    output = done.stdout + done.stderr
    assert "AgentToolsBuildError: [tool.agenttools] has" in output
    assert (
        'pyproject.toml:26: UnknownKey: tool.agenttools.mcp-server: unknown key "mcp-server"'
        in (output)
    )


def test_pip_install_editable_records_the_source_root(wheelhouse: Path, tmp_path: Path) -> None:
    project = copy_sample("weather-tools", tmp_path)
    venv = create_venv(tmp_path / "venv")
    pip(
        [
            "--python",
            str(venv.python),
            "install",
            "--no-deps",
            "--no-index",
            "--find-links",
            str(wheelhouse),
            "-e",
            str(project),
        ]
    )
    (dist_info,) = venv.site_packages.glob("weather_tools-*.dist-info")
    manifest = json.loads((dist_info / EXTRA / "manifest.json").read_text())
    assert manifest["source-root"] == str(project)
    assert json.loads((dist_info / "direct_url.json").read_text())["dir_info"] == {"editable": True}
    assert (
        dist_info / EXTRA / "skills" / "weather-report" / "scripts" / "report.py"
    ).stat().st_mode & 0o100
