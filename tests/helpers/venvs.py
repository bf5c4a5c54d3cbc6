"""Installed distributions for tests: fake dist-info trees (fast) and real temporary venvs.

Fake trees (unit tests; no subprocess)::

    site = fake_site(tmp_path / "venv")
    dist_info = fake_distribution(
        site, "weather-tools", "1.2.0",
        servers={"weather": {"module": "weather_tools.server"}},
        skills={"weather-report": {"description": "...", "files": {"SKILL.md": "..."}}},
        bundles=None,               # None: one implicit bundle named after the distribution
    )
    search = SearchPath.for_paths([site])

``fake_distribution`` writes ``<name>-<version>.dist-info`` with METADATA, RECORD and the
agenttools manifest exactly as the build hook lays it out (skill files under
``extra_metadata/agenttools/skills/<name>/``, hashes with ``hash_bytes``), and what its servers
start: a stub of each ``module`` in *site*, a stub of each ``script`` and each ``command``
named without a directory (executable: the distribution's console scripts) in the scripts
directory of the environment *site* belongs to (a command found on the ``PATH`` is left to
it) — so a deploy's check that each entry can start
passes, as it does for a real install (a ``command`` once ``activate`` put that directory on
the ``PATH``, as activating a venv does). ``fake_site(root)`` makes *root* such an
environment (laid out as ``python -m venv`` lays it out, its interpreter a link to this one's
base interpreter: no subprocess) and returns its site-packages; a bare directory has no
interpreter that imports from it, so a deploy from it refuses its ``module``/``script``
servers (as ``deploy --path`` of a ``pip install --target`` directory does). ``write_tree``
writes any ``{relative path: text | bytes}`` mapping (like pypa/installer's tests).

Real venvs (slow tests; mark them ``@pytest.mark.slow``)::

    venv = create_venv(tmp_path / "venv", wheels=[wheel_path])     # one-off
    venv = shared_venv(tmp_path_factory, "weather", wheels=[...])   # session-wide, xdist-safe

``create_venv`` runs ``python -m venv --without-pip`` and installs with the *outer* pip
(``python -m pip --python <venv python> install --no-deps ...``), so no network and no pip
inside the venv: about a second. ``shared_venv`` builds a venv once per test run under pytest's
shared base temp directory (a file lock makes xdist workers wait for the first one) and
returns the same :class:`Venv` to every caller with the same *key*; treat it as read-only.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agenttools_runtime.skills.hashing import hash_bytes
from tests.helpers.cache import run_dir

SKILL_TEMPLATE = "---\nname: {name}\ndescription: {description}\n---\n\n# {name}\n\nDo things.\n"


# -- fake dist-info trees --------------------------------------------------------------------
def write_tree(root: Path, files: Mapping[str, str | bytes]) -> None:
    """Write ``{"a/b.txt": "text" | b"bytes"}`` under *root*."""
    for rel, content in files.items():
        path = root.joinpath(*rel.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8", newline="")


def skill_files(
    name: str,
    description: str = "A test skill.",
    extra: Mapping[str, str | bytes] | None = None,
) -> dict[str, Any]:
    """A skill table for :func:`fake_distribution`: a valid SKILL.md plus *extra* files
    (``{"scripts/run.sh": "..."}``)."""
    files: dict[str, str | bytes] = {
        "SKILL.md": SKILL_TEMPLATE.format(name=name, description=description),
        **(extra or {}),
    }
    return {"description": description, "files": files}


def fake_distribution(
    site: Path,
    name: str,
    version: str = "1.0.0",
    *,
    servers: Mapping[str, Mapping[str, Any]] | None = None,
    skills: Mapping[str, Mapping[str, Any]] | None = None,
    bundles: Sequence[Mapping[str, Any]] | None = None,
    source_root: Path | None = None,
    manifest: Any = None,
    raw_manifest: str | bytes | None = None,
    schema: int = 1,
    stubs: bool = True,
) -> Path:
    """Write an installed distribution ``name`` into *site*; return its dist-info path.

    *skills* maps skill names to ``{"description", "files": {rel: content}, "executable"?,
    "kind"?, "path"?}`` (see :func:`skill_files`). *bundles* defaults to one implicit bundle
    named *name* holding everything; pass ``[]`` for none. *manifest* replaces the computed
    manifest (any JSON value); *raw_manifest* writes those bytes instead (corrupt manifests).
    Without servers, skills, manifest and raw_manifest, no manifest is written at all.
    Stubs of what *servers* start are written too (see the module docstring): in a
    :func:`fake_site` their entries pass a deploy's start check; ``stubs=False`` writes none
    (a distribution whose module or script is missing).
    """
    escaped = name.replace("-", "_")
    dist_info = site / f"{escaped}-{version}.dist-info"
    files: dict[str, str | bytes] = {
        "METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n",
        "WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        "INSTALLER": "pip\n",
        "RECORD": "",
    }
    has_manifest = bool(servers or skills) or manifest is not None or raw_manifest is not None
    if has_manifest:
        data = manifest
        if data is None:
            data = _manifest(
                name, version, servers or {}, skills or {}, bundles, source_root, schema
            )
        for skill_name, table in (skills or {}).items():
            for rel, content in table.get("files", {}).items():
                files[f"extra_metadata/agenttools/skills/{skill_name}/{rel}"] = content
        files["extra_metadata/agenttools/manifest.json"] = (
            raw_manifest
            if raw_manifest is not None
            else json.dumps(data, indent=2, sort_keys=True) + "\n"
        )
    write_tree(dist_info, files)
    if stubs:
        _server_stubs(site, servers or {})
    return dist_info


STUB_MODULE = '''"""A stub of a module a test distribution's MCP server declares."""\n'''
STUB_SCRIPT = "#!/bin/sh\n# a stub of a console script a test distribution's MCP server declares\n"


def _server_stubs(site: Path, servers: Mapping[str, Mapping[str, Any]]) -> None:
    """What *servers* start, where their entries look for it: each ``module`` (its packages'
    ``__init__.py`` too) in *site*, each ``script`` and bare ``command`` in the scripts
    directory of the environment *site* belongs to (none: a bare directory has no
    interpreter). A file that is there already is kept (a test's own module, another
    version's stub)."""
    scripts = environment_scripts(site)
    for table in servers.values():
        module = table.get("module")
        if isinstance(module, str) and module:
            parts = module.split(".")
            for depth in range(1, len(parts)):
                _write_new(site.joinpath(*parts[:depth], "__init__.py"), STUB_MODULE)
            _write_new(site.joinpath(*parts[:-1], f"{parts[-1]}.py"), STUB_MODULE)
        script = table.get("script")
        command = table.get("command")
        if isinstance(command, str) and "/" not in command and shutil.which(command) is None:
            script = command  # (a real command — uvx, echo — is not shadowed)
        if isinstance(script, str) and script and scripts is not None:
            path = scripts / (f"{script}.exe" if sys.platform == "win32" else script)
            if _write_new(path, STUB_SCRIPT):
                path.chmod(0o755)


def install_console_scripts(dist_info: Path, scripts: Mapping[str, str]) -> None:
    """Give the distribution at *dist_info* console scripts (``{"weather-mcp":
    "weather_tools.server:main"}``): its ``entry_points.txt``, and a stub of each in the
    scripts directory of its environment (as an installer writes them)."""
    lines = "".join(f"{name} = {target}\n" for name, target in scripts.items())
    (dist_info / "entry_points.txt").write_text(f"[console_scripts]\n{lines}", encoding="utf-8")
    bin_dir = environment_scripts(dist_info.parent)
    for name in scripts if bin_dir is not None else ():
        path = bin_dir / (f"{name}.exe" if sys.platform == "win32" else name)
        if _write_new(path, STUB_SCRIPT):
            path.chmod(0o755)


def _write_new(path: Path, text: str) -> bool:
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return True


def environment_scripts(site: Path) -> Path | None:
    """The scripts directory of the virtual environment *site* is the site-packages of
    (``<root>/lib/pythonX.Y/site-packages`` or ``<root>/Lib/site-packages`` beside a
    ``pyvenv.cfg``), or None."""
    for root in (site.parent.parent.parent, site.parent.parent):
        if (root / "pyvenv.cfg").is_file():
            return root / ("Scripts" if sys.platform == "win32" else "bin")
    return None


def activate(monkeypatch: pytest.MonkeyPatch, site: Path) -> None:
    """Put the scripts directory of the environment *site* belongs to first on the ``PATH``
    (what ``source venv/bin/activate`` does to it), for this test and what it starts."""
    scripts = environment_scripts(site)
    assert scripts is not None, f"{site} is no environment's site-packages (see fake_site)"
    monkeypatch.setenv("PATH", os.pathsep.join([os.fspath(scripts), os.environ.get("PATH", "")]))


def fake_site(root: Path) -> Path:
    """Make *root* a virtual environment as ``python -m venv --without-pip`` makes one on
    POSIX (``pyvenv.cfg``, ``bin/python`` a link to this interpreter's base interpreter, an
    empty site-packages), without running anything; return its site-packages. Its
    interpreter runs and imports from it like any venv's. (On Windows: ``create_venv``.)"""
    if sys.platform == "win32":
        return create_venv(root).site_packages
    venv = venv_at(root)
    base = Path(getattr(sys, "_base_executable", sys.executable))
    venv.site_packages.mkdir(parents=True, exist_ok=True)
    venv.scripts.mkdir(parents=True, exist_ok=True)
    (root / "pyvenv.cfg").write_text(
        f"home = {base.parent}\ninclude-system-site-packages = false\n"
        f"version = {sysconfig.get_python_version()}\n",
        encoding="utf-8",
    )
    if not venv.python.exists():
        venv.python.symlink_to(base)
    return venv.site_packages


def _manifest(
    name: str,
    version: str,
    servers: Mapping[str, Mapping[str, Any]],
    skills: Mapping[str, Mapping[str, Any]],
    bundles: Sequence[Mapping[str, Any]] | None,
    source_root: Path | None,
    schema: int,
) -> dict[str, Any]:
    skill_tables: dict[str, Any] = {}
    for skill_name, table in skills.items():
        entry: dict[str, Any] = {
            "description": table.get("description", "A test skill."),
            "kind": table.get("kind", "directory"),
            "files": {
                rel: hash_bytes(c if isinstance(c, bytes) else c.encode("utf-8"))
                for rel, c in sorted(table.get("files", {}).items())
            },
        }
        if entry["kind"] == "directory":
            entry["path"] = table.get("path", f"skills/{skill_name}")
        if table.get("executable"):
            entry["executable"] = list(table["executable"])
        skill_tables[skill_name] = entry
    if bundles is None:
        bundles = [
            {
                "name": name,
                "implicit": True,
                "mcp-servers": sorted(servers),
                "skills": sorted(skills),
            }
        ]
    data: dict[str, Any] = {
        "schema": schema,
        "distribution": name,
        "version": version,
        "root": "skills",
        "bundles": [dict(b) for b in bundles],
        "mcp-servers": {k: dict(v) for k, v in servers.items()},
        "skills": skill_tables,
    }
    if source_root is not None:
        data["source-root"] = str(source_root)
    return data


# -- real venvs ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Venv:
    """A virtual environment: its directory, interpreter, scripts and site-packages."""

    root: Path
    python: Path
    scripts: Path
    site_packages: Path

    def install(self, *wheels: str | Path) -> None:
        """Install wheels into this venv with the outer pip (``--no-deps``, offline)."""
        pip_install(self.python, [os.fspath(w) for w in wheels])

    def run(self, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        """Run this venv's interpreter (text mode, output captured, not checked)."""
        return subprocess.run(
            [os.fspath(self.python), *args], capture_output=True, text=True, check=False, **kwargs
        )


def create_venv(path: Path, wheels: Sequence[Path | str] = ()) -> Venv:
    """A new venv at *path* (no pip inside) with *wheels* installed (``--no-deps``).

    For an editable install, pass an editable wheel (``sample_wheel(name, editable=True)``
    from ``tests.helpers.wheels``): that is what ``pip install -e`` installs, without a build
    backend running inside the venv."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", os.fspath(path)],
        check=True,
        capture_output=True,
    )
    venv = venv_at(path)
    if wheels:
        venv.install(*wheels)
    return venv


def venv_at(path: Path) -> Venv:
    """The :class:`Venv` of an existing venv directory."""
    scripts_name = "Scripts" if sys.platform == "win32" else "bin"
    python = path / scripts_name / ("python.exe" if sys.platform == "win32" else "python")
    if sys.platform == "win32":
        site_packages = path / "Lib" / "site-packages"
    else:
        version = sysconfig.get_python_version()
        site_packages = path / "lib" / f"python{version}" / "site-packages"
    return Venv(path, python, path / scripts_name, site_packages)


def pip_install(python: Path, args: Sequence[str]) -> None:
    """``<outer python> -m pip --python <python> install --no-deps --no-index ARGS``; raises
    ``RuntimeError`` with pip's output on failure."""
    command = [
        sys.executable,
        "-m",
        "pip",
        "--python",
        os.fspath(python),
        "--disable-pip-version-check",
        "--no-input",
        "install",
        "--no-deps",
        "--no-index",
        *args,
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")


def shared_venv(
    factory: pytest.TempPathFactory, key: str, wheels: Sequence[Path | str] = ()
) -> Venv:
    """A venv built once per test run for *key* and shared by every caller and xdist worker
    (pytest's base temp dir is per worker; its parent is shared by the run). Read-only."""
    from filelock import FileLock

    root = run_dir(factory, "agenttools-venvs")
    path = root / key
    with FileLock(os.fspath(root / f"{key}.lock")):
        done = path / ".complete"
        if not done.exists():
            if path.exists():  # a worker died half-way: start over
                import shutil

                shutil.rmtree(path)
            create_venv(path, wheels)
            done.write_text("ok\n")
    return venv_at(path)
