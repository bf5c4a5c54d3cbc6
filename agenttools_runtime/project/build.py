"""The build plan: a checked project compiled into its ``WheelManifest`` (the manifest's one
writer) and the map of files the wheel carries under ``.dist-info/extra_metadata/agenttools/``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from agenttools_runtime.project.check import check_project
from agenttools_runtime.project.problems import MISSING_CONFIG, Problem, ProjectInvalid
from agenttools_runtime.project.pyproject import Project
from agenttools_runtime.wheel import layout
from agenttools_runtime.wheel.manifest import ServerEntry, SkillEntry, WheelManifest


@dataclass(frozen=True)
class BuildPlan:
    """What the hook writes under ``.dist-info/extra_metadata/agenttools/``: the manifest and
    every skill file (``skills/<name>/<relpath>`` -> source file or generated text)."""

    manifest: WheelManifest
    files: Mapping[str, Path | str]
    warnings: tuple[Problem, ...] = ()
    sources: tuple[Path, ...] = ()  # project files the skills are built from

    def manifest_bytes(self) -> bytes:
        return self.manifest.to_bytes()


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
    if result.errors or not result.has_config or project.name is None:
        problems = result.errors or [
            Problem(project.pyproject, None, "MissingConfig", MISSING_CONFIG)
        ]
        raise ProjectInvalid(problems, project.root)
    files: dict[str, Path | str] = {}
    skills: dict[str, SkillEntry] = {}
    for name, skill in result.skills.items():
        skills[name] = SkillEntry(
            name=name,
            description=skill.description,
            kind=skill.kind,
            files=dict(skill.source.manifest),
            executable=tuple(sorted(skill.source.executable)),
            path=skill.path,
        )
        for rel, source in skill.files.items():
            files[layout.skill_file(name, rel)] = source
    manifest = WheelManifest(
        distribution=project.name,
        version=version,
        root=result.root,
        bundles=tuple(result.bundles),
        servers={n: ServerEntry(n, table) for n, table in result.servers.items()},
        skills=skills,
        source_root=None if source_root is None else str(source_root),
    )
    sources = tuple(dict.fromkeys(p for s in result.skills.values() for p in s.sources))
    return BuildPlan(manifest, files, tuple(result.problems), sources)
