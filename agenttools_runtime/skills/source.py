"""Skill specifications normalized: every form of :mod:`agenttools_runtime.skills.spec`
becomes a :class:`~agenttools_runtime.skills.spec.SkillSource` (:func:`to_source`): validated
name and description, identity (for upgrade decisions), version, the files to write and their
manifest. ``SKILL.md`` is read and written here (PyYAML), so what only lists bundles does not
import this module.

Directory sources are listed with :func:`~agenttools_runtime.skills.hashing.iter_source_files`
(junk and version-control metadata skipped; links followed only while they stay inside the
skill). Inline skills get a deterministic generated ``SKILL.md``.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from agenttools_runtime import errors, regular_files
from agenttools_runtime.names import SKILL_FILE, check_skill_description, check_skill_name
from agenttools_runtime.paths import absolute_path, canonical_path_key
from agenttools_runtime.skills.hashing import hash_bytes, hash_text, iter_source_files
from agenttools_runtime.skills.skill_md import parse_skill_md, render_skill_md
from agenttools_runtime.skills.spec import Skill, SkillSource, SkillSpec

_EXEC_BITS = stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH


def to_source(
    spec: SkillSpec | SkillSource,
    default_identifier: str | None = None,
    *,
    identifier: str | None = None,
    version: str | None = None,
) -> SkillSource:
    """Normalize any skill specification.

    *default_identifier* is used for inline skills (directories are always
    ``"File:<canonical dir>"``); *identifier* overrides every form (distribution skills pass
    ``"<dist>/<name>"``) and *version* is recorded as given. A :class:`SkillSource` is
    returned unchanged.

    Raises ``InvalidAgentSkill``, ``AgentSkillNotFound``, ``InvalidAgentSkillName``,
    ``InvalidAgentSkillDescription``, ``InvalidSkillFrontmatter``, ``AgentSkillUnreadable``
    or ``AgentSkillUnsafeLink``.
    """
    if isinstance(spec, SkillSource):
        return spec
    if isinstance(spec, (str, os.PathLike)):  # every file read once, SKILL.md parsed from it
        skill_dir = _skill_directory(spec)
        read = _read_directory(skill_dir)
        skill = _skill_of_skill_md(read.contents[SKILL_FILE], skill_dir)
        name = check_skill_name(skill.name)
        description = check_skill_description(name, skill.description)
        return _directory_source(name, description, skill_dir, identifier, version, read)
    if isinstance(spec, Skill):
        skill = spec
    elif isinstance(spec, Mapping):
        skill = Skill.from_mapping(spec)
    else:
        raise errors.InvalidAgentSkill(reason=repr(spec))
    name = check_skill_name(skill.name)
    description = check_skill_description(name, skill.description)
    directory = _usable_directory(skill.path)
    if directory is not None:
        read = _read_directory(directory)
        return _directory_source(name, description, directory, identifier, version, read)
    text = _render(skill, name, description)
    return SkillSource(
        name=name,
        description=description,
        identifier=identifier if identifier is not None else default_identifier,
        version=version,
        files={SKILL_FILE: text},
        manifest={SKILL_FILE: hash_text(text)},
    )


def skill_from_directory(path: Path | str | os.PathLike[str]) -> Skill:
    """Read a skill directory (or its ``SKILL.md``): name, description, body and the
    other frontmatter keys from ``SKILL.md``.

    Raises ``AgentSkillNotFound`` when *path* does not exist, ``InvalidAgentSkill`` when
    it is not a directory holding ``SKILL.md``, ``InvalidSkillFrontmatter`` for a
    missing/invalid frontmatter block or a missing ``name``, ``AgentSkillUnreadable``
    when ``SKILL.md`` cannot be read.
    """
    directory = _skill_directory(path)
    skill_md = directory / SKILL_FILE
    try:
        data = regular_files.read_bytes(skill_md)
    except OSError as exc:
        raise errors.AgentSkillUnreadable(path=skill_md) from exc
    return _skill_of_skill_md(data, directory)


def _skill_of_skill_md(data: bytes, directory: Path) -> Skill:
    """The skill of *directory* whose ``SKILL.md`` holds *data*."""
    skill_md = directory / SKILL_FILE
    document = parse_skill_md(data, str(skill_md))
    if "name" not in document.frontmatter:
        raise errors.InvalidSkillFrontmatter(
            source=skill_md, reason='the frontmatter has no "name" key'
        )
    skill = Skill.from_mapping({**document.frontmatter, "body": document.body})
    return replace(skill, path=directory)


# -- helpers ---------------------------------------------------------------------------------


def _skill_directory(path: Path | str | os.PathLike[str]) -> Path:
    directory = absolute_path(path)
    if directory.name == SKILL_FILE and directory.is_file():
        directory = directory.parent
    if not directory.exists():
        raise errors.AgentSkillNotFound(name=os.fspath(path), path=directory)
    if not directory.is_dir() or not (directory / SKILL_FILE).is_file():
        special = regular_files.problem(directory / SKILL_FILE) if directory.is_dir() else None
        reason = (
            f"{directory / SKILL_FILE} cannot be read: {special}"
            if special
            else f"{directory} is not a skill directory (a directory that contains {SKILL_FILE})"
        )
        raise errors.InvalidAgentSkill(reason=reason, path=directory)
    return directory


def _usable_directory(path: Path | None) -> Path | None:
    if path is None:
        return None
    directory = Path(os.path.abspath(os.fspath(path)))
    return directory if (directory / SKILL_FILE).is_file() else None


@dataclass(frozen=True, slots=True)
class _DirectoryFiles:
    """Every file of a skill directory, read once: path, hash, bytes, executable or not."""

    files: dict[str, Path]
    manifest: dict[str, str]
    contents: dict[str, bytes]
    executable: frozenset[str]


def _read_directory(directory: Path) -> _DirectoryFiles:
    files: dict[str, Path] = {}
    manifest: dict[str, str] = {}
    contents: dict[str, bytes] = {}
    executable: set[str] = set()
    for rel, path in iter_source_files(directory):
        try:
            data, info = regular_files.read_with_stat(path)
        except OSError as exc:
            raise errors.AgentSkillUnreadable(path=path) from exc
        files[rel] = path
        manifest[rel] = hash_bytes(data)
        contents[rel] = data
        # wheels and zips may drop modes; a shebang says "this is a script" on its own
        if info.st_mode & _EXEC_BITS or data.startswith(b"#!"):
            executable.add(rel)
    if SKILL_FILE not in files:
        raise errors.InvalidAgentSkill(reason=f"{directory} has no {SKILL_FILE}", path=directory)
    return _DirectoryFiles(
        dict(sorted(files.items())), dict(sorted(manifest.items())), contents, frozenset(executable)
    )


def _directory_source(
    name: str,
    description: str,
    directory: Path,
    identifier: str | None,
    version: str | None,
    read: _DirectoryFiles,
) -> SkillSource:
    """The source of a skill directory; its files' bytes, read once, go with it (a deploy or
    a build writes what was hashed, without reading it again)."""
    return SkillSource(
        name=name,
        description=description,
        identifier=f"File:{canonical_path_key(directory)}" if identifier is None else identifier,
        version=version,
        files=dict(read.files),
        manifest=read.manifest,
        directory=directory,
        executable=read.executable,
        contents=read.contents,
    )


def _render(skill: Skill, name: str, description: str) -> str:
    try:
        return render_skill_md(
            name,
            description,
            skill.body or "",
            license=skill.license,
            compatibility=skill.compatibility,
            allowed_tools=skill.allowed_tools,
            metadata=skill.metadata,
            extra=skill.extra,
        )
    except yaml.YAMLError as exc:
        raise errors.InvalidAgentSkill(
            reason=f'the frontmatter of "{name}" cannot be written: {exc}'
        ) from None
