"""Small projects built through ``agenttools_hook.backend`` by each real backend, the
wheelhouse isolated builds install from, and the frontends that build them.

``make_project(directory, backend)`` writes a src-layout project ``demo-<backend>``: a
package with an MCP server module, a directory skill ``<backend>-notes`` (with an executable
script and a reference) and an inline skill ``<backend>-help`` whose body is a ``body-file``.
Skill names carry the backend so that every project's wheel can share one venv and one
client without their skills colliding.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from filelock import FileLock

from tests.helpers.wheels import build_agenttools_wheel, cache_dir

SOURCE_DATE_EPOCH = "1700000000"  # 2023-11-14: builds that honour it are reproducible

# Every build requirement of the isolated builds of tests/hook/ (hatchling's too).
WHEELHOUSE_REQUIREMENTS = ("hatchling", "editables")


@dataclass(frozen=True)
class Backend:
    """A PEP 517 backend from the package index: its requirement and import name."""

    key: str
    requirement: str
    backend: str

    @property
    def distribution(self) -> str:
        return f"demo-{self.key}"

    @property
    def module(self) -> str:
        return self.distribution.replace("-", "_")


BACKENDS = {
    b.key: b
    for b in (
        Backend("setuptools", "setuptools>=77", "setuptools.build_meta"),
        Backend("uv-build", "uv_build>=0.7", "uv_build"),
        Backend("poetry-core", "poetry-core>=2", "poetry.core.masonry.api"),
        Backend("flit-core", "flit_core>=3.12", "flit_core.buildapi"),
        Backend("pdm-backend", "pdm-backend>=2.4", "pdm.backend"),
    )
}

SKILL = """---
name: {name}
description: Notes on building {key} projects with agenttools.
---

# {name}

Run `scripts/run.sh`; see references/notes.md.
"""


def make_project(directory: Path, backend: Backend, *, wrap: bool = True) -> Path:
    """Write the project of *backend* into *directory* (``wrap=False``: built by the backend
    alone, ``[tool.agenttools]`` kept, as for ``agenttools bundle``)."""
    files = {
        "pyproject.toml": pyproject(backend, wrap=wrap),
        f"src/{backend.module}/__init__.py": '"""A demo package."""\n',
        f"src/{backend.module}/server.py": 'print("a stdio MCP server would run here")\n',
        f"skills/{backend.key}-notes/SKILL.md": SKILL.format(
            name=f"{backend.key}-notes", key=backend.key
        ),
        f"skills/{backend.key}-notes/scripts/run.sh": "#!/bin/sh\necho built\n",
        f"skills/{backend.key}-notes/references/notes.md": "Line one.\r\nLine two.\r\n",
        "docs/help.md": f"# Help\n\nHow {backend.key} builds this project.\n",
    }
    for rel, text in files.items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
    os.chmod(directory / f"skills/{backend.key}-notes/scripts/run.sh", 0o755)
    return directory


def pyproject(backend: Backend, *, wrap: bool = True) -> str:
    build_backend = "agenttools_hook.backend" if wrap else backend.backend
    requires = f'["agenttools", "{backend.requirement}"]' if wrap else f'["{backend.requirement}"]'
    return f"""[build-system]
requires = {requires}
build-backend = "{build_backend}"

[project]
name = "{backend.distribution}"
version = "0.1.0"
description = "A demo of agenttools with {backend.key}."
requires-python = ">=3.10"

[tool.agenttools]
backend = "{backend.backend}"

[tool.agenttools.mcp-servers.{backend.key}-server]
module = "{backend.module}.server"

[tool.agenttools.skills.{backend.key}-notes]

[tool.agenttools.skills.{backend.key}-help]
description = "How {backend.key} builds this project."
body-file = "docs/help.md"
"""


WHEELHOUSE_REQUIREMENTS += tuple(b.requirement for b in BACKENDS.values())


# -- the wheelhouse --------------------------------------------------------------------------
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """agenttools' wheel of this checkout with its dependencies, hatchling, editables and
    every backend of :data:`BACKENDS`, downloaded once per session (file-locked for xdist
    workers), for ``--no-index --find-links`` builds that never see agenttools on an index."""
    ours = build_agenttools_wheel(tmp_path_factory)
    house = cache_dir(tmp_path_factory) / "wheelhouse"
    with FileLock(str(house.with_name("wheelhouse.lock")), timeout=900):
        if not house.is_dir():
            staging = house.with_name("wheelhouse.partial")
            shutil.rmtree(staging, ignore_errors=True)
            run([sys.executable, "-m", "pip", "download", "--dest", str(staging),
                 *WHEELHOUSE_REQUIREMENTS, str(ours)])  # fmt: skip
            staging.rename(house)
    return house


def cached(
    tmp_path_factory: pytest.TempPathFactory, key: str, make: Callable[[Path], object]
) -> Path:
    """The directory ``make(directory)`` filled, once per session for *key* (file-locked)."""
    cache = cache_dir(tmp_path_factory)
    final = cache / key
    with FileLock(str(cache / f"{key}.lock"), timeout=900):
        if not final.is_dir():
            staging = cache / f".{key}.partial"
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir()
            make(staging)
            staging.rename(final)
    return final


# -- frontends -------------------------------------------------------------------------------
def run(
    command: Sequence[str],
    *,
    check: bool = True,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        list(command),
        capture_output=True,
        text=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", **(env or {})},
        cwd=cwd,
        timeout=600,
        check=False,
    )
    if check:
        assert done.returncode == 0, f"{command}:\n{done.stdout}\n{done.stderr}"
    return done


def offline(house: Path) -> dict[str, str]:
    """pip and uv install build requirements from *house* only."""
    return {
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(house),
        "UV_NO_INDEX": "1",
        "UV_FIND_LINKS": str(house),
    }


def python_m_build(
    project: Path, out: Path, house: Path | None, *extra: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``python -m build``: isolated from *house* (its environments made by uv, a tenth of
    pip's time; tests/hook/test_frontends.py builds with pip's), or ``--no-isolation``."""
    isolation = ["--no-isolation"] if house is None else ["--installer", "uv"]
    env = {"SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH, **(offline(house) if house else {})}
    command = [
        sys.executable,
        "-m",
        "build",
        *isolation,
        *extra,
        "--outdir",
        str(out),
        str(project),
    ]
    return run(command, env=env, check=check)


def pip_wheel(
    project: Path, out: Path, house: Path, *, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """``pip wheel`` with build isolation (metadata first: prepare_metadata_for_build_wheel)."""
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-index", "--find-links",
               str(house), "--wheel-dir", str(out), str(project)]  # fmt: skip
    return run(command, env={"SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH}, check=check)


def uv_build(
    project: Path, out: Path, house: Path, cache: Path
) -> subprocess.CompletedProcess[str]:
    """``uv build`` (the sdist, then the wheel from it), isolated, offline."""
    command = [sys.executable, "-m", "uv", "build", "--python", sys.executable, "--no-index",
               "--find-links", str(house), "--out-dir", str(out), str(project)]  # fmt: skip
    env = {"SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH, "UV_CACHE_DIR": str(cache)}
    return run(command, env=env)
