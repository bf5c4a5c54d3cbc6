"""What an export renders: one bundle of one distribution, resolved to its servers and the bytes
of its skills (:class:`Package`), from any of the three places a bundle can be.

- an installed distribution or bundle (``weather-tools``, ``weather-tools/weather-tools``):
  name resolution and verified skill files of :mod:`agenttools_runtime.bundles`;
- a wheel file: its manifest and skill files as :mod:`agenttools_runtime.wheel.archive` reads
  them, each file checked against the manifest's hash;
- a project directory: the build plan of :mod:`agenttools_runtime.project.build` (the checks
  of ``agenttools validate``, and the files the wheel would carry).

Skills a bundle names from another distribution (``other-dist/skill``) come from that
distribution as installed. Nothing is imported, built or installed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agenttools_runtime import __version__, errors
from agenttools_runtime.bundles import AgentTools, marker_holds, resolve_tools
from agenttools_runtime.discovery import InstalledDistribution, SearchPath, get_distribution
from agenttools_runtime.export.metadata import DistMetadata, from_core_metadata, from_pyproject
from agenttools_runtime.mcp.server import MCPServer, Origin, console_scripts
from agenttools_runtime.names import SKILL_FILE, canonical_dist_name
from agenttools_runtime.project.build import load_plan
from agenttools_runtime.project.problems import Problem
from agenttools_runtime.project.pyproject import PYPROJECT, Project, load_project
from agenttools_runtime.project.values import dig, table
from agenttools_runtime.skill_sources import distribution_skill_source, skill_sources
from agenttools_runtime.skills.hashing import hash_bytes
from agenttools_runtime.skills.spec import SkillSource
from agenttools_runtime.wheel import archive, contents, layout
from agenttools_runtime.wheel.manifest import BundleEntry, WheelManifest, parse


@dataclass(frozen=True, slots=True)
class ExportSkill:
    """One skill as it is written into a plugin: every file's bytes (``/``-separated relative
    paths, sorted) and the files to mark executable."""

    name: str
    description: str
    files: Mapping[str, bytes]
    executable: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Package:
    """One bundle, resolved: what every format renders. ``name`` is the bundle's (the
    plugin's default name), ``distribution`` the distribution as published, ``servers``
    carry the :class:`~agenttools_runtime.mcp.server.Origin` a portable command needs."""

    name: str
    distribution: str
    version: str
    description: str | None
    metadata: DistMetadata
    servers: tuple[MCPServer, ...] = ()
    skills: tuple[ExportSkill, ...] = ()
    source: str = field(default="", compare=False)


def load_package(
    source: str, *, bundle: str | None = None, search: SearchPath | None = None
) -> Package:
    """The bundle *source* names: a ``.whl`` file, a directory holding ``pyproject.toml``
    (either with ``#BUNDLE`` to pick one of several bundles), or the name of an installed
    distribution or bundle (resolved as ``agenttools deploy`` does; *bundle* picks one of a
    distribution's bundles). Raises ``ExportSourceNotFound``,
    ``ExportSourceInvalid``, the project's located problems (``ProjectInvalid``) and the
    errors of name resolution and of verifying the skill files."""
    spec, hash_mark, named = source.partition("#")
    if hash_mark and named:  # (a wheel or project: SOURCE#BUNDLE)
        source, bundle = spec, named
    path = Path(os.path.expanduser(source))
    if source.endswith(".whl") or path.is_file():
        if not path.is_file():
            raise errors.ExportSourceNotFound(source=source, reason=" (no such wheel file)")
        return _from_wheel(path, source, bundle, search)
    if path.is_dir() and (path / PYPROJECT).is_file():
        return _from_project(path, source, bundle, search)
    if path.is_dir() and (os.sep in source or source.startswith(".")):
        raise errors.ExportSourceNotFound(
            source=source, reason=f" (the directory has no {PYPROJECT})"
        )
    if bundle is not None and "/" not in source:
        source = f"{source}/{bundle}"
    return _from_installed(resolve_tools(source, search), source)


# -- installed distributions -------------------------------------------------------------------
def _from_installed(tools: AgentTools, source: str) -> Package:
    location = tools.location
    if isinstance(location, InstalledDistribution):
        distribution, version = location.display_name, location.version
        metadata = _installed_metadata(location)
        name = tools.name if tools.name != location.display_name else location.name
    else:  # the built-in bundle, or an ad hoc one
        distribution, version, metadata, name = (
            "agenttools",
            __version__,
            DistMetadata(),
            tools.name,
        )
    return Package(
        name=name,
        distribution=distribution,
        version=version,
        description=tools.description or metadata.summary,
        metadata=metadata,
        servers=tuple(tools.servers()),
        skills=tuple(_skill_of_source(s) for s in skill_sources(tools)),
        source=source,
    )


def _installed_metadata(dist: InstalledDistribution) -> DistMetadata:
    try:
        return from_core_metadata((dist.dist_info / "METADATA").read_bytes())
    except OSError:
        return DistMetadata()


def _skill_of_source(source: SkillSource) -> ExportSkill:
    files: dict[str, bytes] = {}
    for rel, origin in source.files.items():
        data = source.contents.get(rel)
        if data is None:
            data = origin.encode("utf-8") if isinstance(origin, str) else origin.read_bytes()
        files[rel] = data
    return ExportSkill(
        source.name, source.description, dict(sorted(files.items())), source.executable
    )


# -- wheels ------------------------------------------------------------------------------------
def _from_wheel(wheel: Path, source: str, bundle: str | None, search: SearchPath | None) -> Package:
    read = archive.read_contents(wheel)
    raw = read.bundled.get(layout.MANIFEST_FILE)
    if raw is None:
        raise errors.ExportSourceInvalid(
            source=source,
            reason="the wheel carries no agenttools manifest (build it with the agenttools "
            "hook or backend, or add the files with 'agenttools bundle')",
        )
    manifest = parse(raw, read.info.name)
    chosen = _choose_bundle(manifest, bundle, source)
    origin = Origin(manifest.distribution, manifest.version, console_scripts(read.entry_points))

    def skill(name: str) -> ExportSkill:
        entry = manifest.skills.get(name)
        if entry is None:
            raise errors.DistributionSkillNotFound(name=name, distribution=manifest.distribution)
        files: dict[str, bytes] = {}
        for rel, expected in sorted(entry.files.items()):
            data = read.bundled.get(f"{layout.SKILLS_DIR}/{name}/{rel}")
            if data is None or hash_bytes(data) != expected:
                what = "is missing" if data is None else "does not match the manifest's hash"
                reason = f"its file {layout.SKILLS_DIR}/{name}/{rel} {what}"
                raise errors.ExportSourceInvalid(source=source, reason=reason)
            files[rel] = data
        return ExportSkill(name, entry.description, files, frozenset(entry.executable))

    return _package(
        manifest, chosen, origin, from_core_metadata(read.metadata), skill, search, source
    )


# -- projects ----------------------------------------------------------------------------------
def _from_project(
    root: Path, source: str, bundle: str | None, search: SearchPath | None
) -> Package:
    project = load_project(root)
    if isinstance(project, Problem):
        raise errors.ExportSourceInvalid(source=source, reason=project.message)
    version = project_version(project, source)
    plan = load_plan(root, version)
    manifest = plan.manifest
    chosen = _choose_bundle(manifest, bundle, source)
    scripts = table(dig(project.data, "project", "scripts"))
    origin = Origin(
        manifest.distribution,
        version,
        {name: str(target).split(":", 1)[0].strip() for name, target in scripts.items()},
    )
    members = {m.path: m for m in contents.members(plan)}  # the files the wheel would carry

    def skill(name: str) -> ExportSkill:
        entry = manifest.skills[name]
        prefix = f"{layout.SKILLS_DIR}/{name}/"
        own = {p[len(prefix) :]: m for p, m in members.items() if p.startswith(prefix)}
        files = {rel: member.data for rel, member in sorted(own.items())}
        executable = frozenset(rel for rel, member in own.items() if member.executable)
        return ExportSkill(name, entry.description, files, executable)

    metadata = from_pyproject(table(dig(project.data, "project")))
    return _package(manifest, chosen, origin, metadata, skill, search, source)


def project_version(project: Project, source: str) -> str:
    """The static ``[project].version`` of *project*; ``ExportSourceInvalid`` when it is
    dynamic (known only when a backend builds it) or missing."""
    version = dig(project.data, "project", "version")
    if isinstance(version, str) and version:
        return version
    dynamic = dig(project.data, "project", "dynamic")
    how = "is dynamic" if isinstance(dynamic, list) and "version" in dynamic else "is not given"
    raise errors.ExportSourceInvalid(
        source=source,
        reason=f"its [project].version {how}; build the wheel (python -m build) and export the "
        "wheel file, whose version is known",
    )


# -- shared ------------------------------------------------------------------------------------
def _choose_bundle(manifest: WheelManifest, bundle: str | None, source: str) -> BundleEntry:
    """The bundle named *bundle* (the only one when None). Of bundles sharing a name, the
    one whose marker holds here, as for ``deploy``."""
    offered: dict[str, BundleEntry] = {}
    for entry in manifest.declared_bundles(canonical_dist_name(manifest.distribution)):
        key = canonical_dist_name(entry.name)
        if key not in offered or (_holds(entry) and not _holds(offered[key])):
            offered[key] = entry
    if bundle is not None:
        found = offered.get(canonical_dist_name(bundle))
        if found is not None:
            return found
        names = ", ".join(b.name for b in offered.values()) or "none"
        reason = f'it has no bundle "{bundle}" (its bundles: {names})'
        raise errors.ExportSourceInvalid(source=source, reason=reason)
    if len(offered) == 1:
        return next(iter(offered.values()))
    if not offered:
        raise errors.ExportSourceInvalid(source=source, reason="it declares no servers or skills")
    names = ", ".join(b.name for b in offered.values())
    raise errors.ExportSourceInvalid(
        source=source,
        reason=f"it has several bundles ({names}); choose one with {source}#BUNDLE or --bundle",
    )


def _holds(bundle: BundleEntry) -> bool:
    return bundle.marker is None or marker_holds(bundle.marker)


def _package(
    manifest: WheelManifest,
    bundle: BundleEntry,
    origin: Origin,
    metadata: DistMetadata,
    own_skill: Callable[[str], ExportSkill],
    search: SearchPath | None,
    source: str,
) -> Package:
    dist = canonical_dist_name(manifest.distribution)
    servers = []
    for reference in bundle.mcp_servers:
        owner, _, name = reference.rpartition("/")
        if owner and canonical_dist_name(owner) != dist:
            servers.append(get_distribution(owner, search).server(name))
            continue
        entry = manifest.servers.get(name)
        if entry is None:
            raise errors.DistributionServerNotFound(name=name, distribution=manifest.distribution)
        servers.append(MCPServer.from_entry(entry, distribution=dist, origin=origin))
    skills = []
    for reference in bundle.skills:
        owner, _, name = reference.rpartition("/")
        if owner and canonical_dist_name(owner) != dist:
            other = get_distribution(owner, search)
            skills.append(_skill_of_source(distribution_skill_source(other, name)))
        else:
            skills.append(own_skill(name))
    for skill in skills:
        if SKILL_FILE not in skill.files:  # (the manifest reader refuses such a manifest)
            raise errors.ExportSourceInvalid(
                source=source, reason=f'skill "{skill.name}" has no {SKILL_FILE}'
            )
    return Package(
        name=dist if bundle.implicit else bundle.name,
        distribution=manifest.distribution,
        version=manifest.version,
        description=bundle.description or metadata.summary,
        metadata=metadata,
        servers=tuple(servers),
        skills=tuple(skills),
        source=source,
    )
