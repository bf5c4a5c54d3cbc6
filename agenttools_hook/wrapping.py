"""The work of :mod:`agenttools_hook.backend`, the PEP 517 backend that wraps another: which
backend it wraps (``[tool.agenttools] backend``, imported in-process from ``backend-path``
if given, as frontends import theirs), and what it adds to that backend's results.

Every hook is the wrapped backend's, called with the same arguments; then

- wheels (``build_wheel``, ``build_editable``) get the files of :func:`~.contents.members`
  through :func:`~.archive.add_members` (an editable one records the project directory as
  ``source-root``, so deploys use the live skill files);
- ``prepare_metadata_for_build_*`` writes the same files into the ``.dist-info`` it returns,
  so the metadata a frontend reads first is the wheel's (PEP 517 wants them to match; a
  backend that copies that directory into its wheel is recognised as already carrying them);
- sdists get the project files a wheel build from them needs (:mod:`.sdist`), and the MCP
  registry's ``server.json`` of a server that declares a registry entry.

The project is checked before the wrapped backend runs (the checks of
``agenttools validate``); a project with errors raises
:class:`~agenttools_runtime.project.ProjectInvalid` listing every one. Hooks run with the
project directory as the working directory (PEP 517).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from agenttools_hook.delegate import PYPROJECT, ConfigSettings, backend_setting, load_backend
from agenttools_runtime.project.build import BuildPlan, build_manifest, for_artifact, read_project
from agenttools_runtime.project.pyproject import Project
from agenttools_runtime.wheel import archive, contents, sdist

Warn = Callable[[str], None]


def build_wheel(
    root: Path,
    wheel_directory: str,
    config_settings: ConfigSettings,
    metadata_directory: str | None,
    *,
    editable: bool,
    warn: Warn,
) -> str:
    """The wrapped backend's wheel (or editable wheel) with agenttools' files added. The
    wrapped backend builds into a new hidden directory in *wheel_directory*, where the wheel
    with the files added is written and then moved into place; the directory is removed."""
    backend = load_backend(root)
    plan = _plan(read_project(root), editable=editable, warn=warn)
    hook = backend.build_editable if editable else backend.build_wheel
    scratch = _new_directory(wheel_directory)
    try:
        name = str(hook(scratch, config_settings, metadata_directory))
        inner = Path(scratch) / name
        info = archive.read_info(inner)
        plan = for_artifact(plan, info.name, info.version, artifact=inner, project=root)
        # a new artifact, as the wrapped backend writes its own: not fsynced
        staged = Path(scratch) / f".{name}.agenttools"
        archive.add_members(inner, staged, contents.members(plan), atomic=False)
        os.replace(staged, Path(wheel_directory) / name)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return name


def prepare_metadata(
    root: Path,
    metadata_directory: str,
    config_settings: ConfigSettings,
    *,
    editable: bool,
    warn: Warn,
) -> str:
    """The wrapped backend's ``.dist-info`` with agenttools' files written into it."""
    backend = load_backend(root)
    plan = _plan(read_project(root), editable=editable, warn=warn)
    hook = (
        backend.prepare_metadata_for_build_editable
        if editable
        else backend.prepare_metadata_for_build_wheel
    )
    name = str(hook(metadata_directory, config_settings))
    dist_info = Path(metadata_directory) / name
    headers = archive.metadata_headers((dist_info / archive.METADATA).read_bytes())
    built, version = headers.get("name", ""), headers.get("version", "")
    plan = for_artifact(plan, built, version, artifact=dist_info, project=root)
    archive.write_members(dist_info, contents.members(plan))
    return name


def build_sdist(
    root: Path, sdist_directory: str, config_settings: ConfigSettings, *, warn: Warn
) -> str:
    """The wrapped backend's sdist, completed with the files a wheel build needs."""
    backend = load_backend(root)
    project = read_project(root)
    plan = _plan(project, editable=False, warn=warn)
    sources = [root / PYPROJECT, *plan.sources]
    for path in backend_setting(root)[1]:  # an in-tree backend builds the wheel too
        for directory, subdirectories, names in os.walk(root / path):
            subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
            sources += [Path(directory) / file for file in names]
    files = {Path(os.path.relpath(source, root)).as_posix(): source for source in sources}
    with tempfile.TemporaryDirectory(prefix="agenttools-sdist-") as scratch:
        name = str(backend.build_sdist(scratch, config_settings))
        registry = _server_json(plan, project, name, Path(scratch))
        if registry is not None:
            files[registry.name] = registry
        added = sdist.add_files(Path(scratch) / name, Path(sdist_directory) / name, files)
    if added:
        warn(f"agenttools: added to the sdist what {name} lacked: {', '.join(added)}")
    return name


# -- helpers ------------------------------------------------------------------------------------
def _server_json(plan: BuildPlan, project: Project, sdist_name: str, scratch: Path) -> Path | None:
    """The MCP registry's server.json for the version the sdist's name gives (written into
    *scratch*), when a server declares a registry entry."""
    if not plan.registries:
        return None
    from agenttools_runtime.export.server_json import FILE_NAME, server_json_bytes

    stem = sdist_name.removesuffix(".tar.gz")
    dist, _, version = stem.rpartition("-")
    artifact = scratch / sdist_name
    plan = for_artifact(plan, dist, version, artifact=artifact, project=project.root)
    data = server_json_bytes(plan, project.data.get("project") or {})
    if data is None:
        return None
    path = scratch / FILE_NAME
    path.write_bytes(data)
    return path


def _plan(project: Project, *, editable: bool, warn: Warn) -> BuildPlan:
    plan = build_manifest(project, "0", source_root=project.root if editable else None)
    for problem in plan.warnings:
        warn(f"agenttools: {problem.format(project.root)}")
    return plan


BUILD_DIRECTORY_PREFIX = ".agenttools-build-"


def _new_directory(parent: str) -> str:
    """A new directory in *parent* for one build: in the output directory, so the finished
    wheel is moved into place, not copied. Named for this host and process, so the next build
    removes it if this one was killed before it could (:func:`_sweep_abandoned`)."""
    _sweep_abandoned(parent)
    prefix = f"{BUILD_DIRECTORY_PREFIX}{_host()}-{os.getpid()}-"
    return tempfile.mkdtemp(prefix=prefix, dir=parent)


def _host() -> str:
    """This machine's name as it goes into a build directory's name (letters, digits, dots)."""
    node = os.uname().nodename if hasattr(os, "uname") else ""
    return "".join(c for c in node if c.isascii() and (c.isalnum() or c == ".")) or "host"


def _sweep_abandoned(parent: str) -> None:
    """Remove the build directories in *parent* that a killed build of this host left: named
    for a process of this host that no longer runs. Another host's (an output directory on a
    shared file system), a running build's, and any other name are left alone. POSIX only:
    elsewhere a process cannot be asked whether it runs without a handle to it."""
    if os.name != "posix":
        return
    try:
        names = [n for n in os.listdir(parent) if n.startswith(BUILD_DIRECTORY_PREFIX)]
    except OSError:
        return
    here = _host()
    for name in names:
        host, _, rest = name[len(BUILD_DIRECTORY_PREFIX) :].rpartition("-")[0].rpartition("-")
        if host != here or not rest.isdigit() or _runs(int(rest)):
            continue
        shutil.rmtree(os.path.join(parent, name), ignore_errors=True)


def _runs(pid: int) -> bool:
    """Whether process *pid* exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, and is another user's
        return True
    return True
