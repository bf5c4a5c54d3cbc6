"""The build plan: a checked project compiled into its ``WheelManifest`` (the manifest's one
writer) and the map of files the wheel carries under ``.dist-info/extra_metadata/agenttools/``;
``load_plan`` is how the hook's siblings (the wrapping backend, ``agenttools bundle``) get one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agenttools_runtime import errors
from agenttools_runtime.names import canonical_dist_name
from agenttools_runtime.project.check import check_project
from agenttools_runtime.project.invalid import ProjectInvalid
from agenttools_runtime.project.problems import MISSING_CONFIG, Problem
from agenttools_runtime.project.pyproject import Project, load_project
from agenttools_runtime.wheel import layout
from agenttools_runtime.wheel.manifest import ServerEntry, SkillEntry, WheelManifest


@dataclass(frozen=True, slots=True)
class BuildPlan:
    """What the hook writes under ``.dist-info/extra_metadata/agenttools/``: the manifest and
    every skill file (``skills/<name>/<relpath>`` -> source file or generated text), with the
    bytes of the source files as the checks read and hashed them (``contents``, by the same
    paths: what the wheel carries, without reading them again)."""

    manifest: WheelManifest
    files: Mapping[str, Path | str]
    warnings: tuple[Problem, ...] = ()
    sources: tuple[Path, ...] = ()  # project files the skills are built from
    contents: Mapping[str, bytes] = field(default_factory=dict, compare=False, repr=False)
    registries: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # server.json


def build_manifest(
    project: Project,
    version: str,
    *,
    source_root: Path | None = None,
    build_setup: bool = True,
) -> BuildPlan:
    """Check *project* and compile its manifest and file list.

    *source_root* is recorded for editable installs. ``build_setup=False`` skips the checks
    of the project's own build set-up (for ``agenttools bundle``). Raises
    :class:`ProjectInvalid` listing every error (warnings are in the plan).
    """
    result = check_project(project, build_setup=build_setup)
    if result.errors or project.config is None or project.name is None:
        problems = result.errors or [
            Problem(project.pyproject, None, "MissingConfig", MISSING_CONFIG)
        ]
        raise ProjectInvalid(problems, project.root)
    files: dict[str, Path | str] = {}
    contents: dict[str, bytes] = {}
    skills: dict[str, SkillEntry] = {}
    for name, skill in result.skills.items():
        skills[name] = SkillEntry(
            name=name,
            description=skill.source.description,
            kind=skill.kind,
            files=dict(skill.source.manifest),
            executable=tuple(sorted(skill.source.executable)),
            path=skill.path,
        )
        for rel, source in skill.source.files.items():
            files[layout.skill_file(name, rel)] = source
            if rel in skill.source.contents:
                contents[layout.skill_file(name, rel)] = skill.source.contents[rel]
    manifest = WheelManifest(
        distribution=project.name,
        version=version,
        root=result.root,
        bundles=tuple(result.bundles),
        servers={n: ServerEntry.from_table(n, t) for n, t in result.servers.items()},
        skills=skills,
        source_root=None if source_root is None else str(source_root),
    )
    sources = tuple(dict.fromkeys(p for s in result.skills.values() for p in s.sources))
    return BuildPlan(
        manifest, files, tuple(result.problems), sources, contents, dict(result.registries)
    )


def load_plan(
    root: Path,
    version: str,
    *,
    source_root: Path | None = None,
    build_setup: bool = True,
) -> BuildPlan:
    """Check the project in *root* and return its build plan for *version*.

    *source_root* is recorded for editable installs. ``build_setup=False`` leaves out the
    checks of how the project's own build runs agenttools (``agenttools bundle`` adds the
    files to a wheel built by anything). Raises
    :class:`~agenttools_runtime.project.ProjectInvalid` listing every error, each located.
    """
    project = read_project(root)
    return build_manifest(project, version, source_root=source_root, build_setup=build_setup)


def read_project(root: Path) -> Project:
    """:func:`~agenttools_runtime.project.load_project`, a ``pyproject.toml`` that cannot be
    read or parsed raised as :class:`~agenttools_runtime.project.ProjectInvalid`."""
    project = load_project(root)
    if isinstance(project, Problem):
        raise ProjectInvalid([project], project.path.parent)
    return project


def for_artifact(
    plan: BuildPlan, name: str, version: str, *, artifact: Path, project: Path
) -> BuildPlan:
    """*plan* for the distribution *name* and *version* a build produced (a dynamic version
    is known only then). Raises :class:`~agenttools_runtime.errors.WheelProjectMismatch` when
    *name* is not the project's ``[project].name``: the files belong to that project only."""
    project_name = plan.manifest.distribution
    if canonical_dist_name(name) != canonical_dist_name(project_name):
        raise errors.WheelProjectMismatch(
            wheel=str(artifact), wheel_name=name, project=str(project), project_name=project_name
        )
    return replace(plan, manifest=replace(plan.manifest, version=version))
