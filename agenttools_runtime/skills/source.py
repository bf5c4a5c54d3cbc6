"""Skill specifications and the normalized skill source they all become.

A skill may be given as a skill directory (``Path``, or a ``str`` path, holding ``SKILL.md``),
a :class:`Skill` object, or an inline mapping (``name``, ``description``, ``body`` and optional
frontmatter keys ``license``, ``compatibility``, ``allowed-tools``, ``metadata``, other keys).
Every form normalizes (:func:`to_source`) to a :class:`SkillSource`: validated name and
description, identity (for upgrade decisions), version, the files to write and their manifest.

Directory sources are listed with :func:`~agenttools_runtime.skills.hashing.iter_source_files`
(junk and version-control metadata skipped; links followed only while they stay inside the
skill). Inline skills get a deterministic generated ``SKILL.md``.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Mapping
from pathlib import Path

from agenttools_runtime import errors, regular_files
from agenttools_runtime.names import SKILL_FILE, check_skill_description, check_skill_name
from agenttools_runtime.paths import canonical_path_key
from agenttools_runtime.skills.hashing import hash_bytes, hash_text, iter_source_files
from agenttools_runtime.values import Value, replace

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any

# Keys of an inline mapping that are not passed through as extra frontmatter.
_MAPPING_KEYS = (
    "name",
    "description",
    "body",
    "license",
    "compatibility",
    "allowed-tools",
    "allowed_tools",
    "metadata",
)
_EXEC_BITS = stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH


class Skill(Value):
    """A skill: either a directory (``path``) or an inline definition (``body`` and
    frontmatter fields).

    When ``path`` is an existing directory holding ``SKILL.md``, that directory is the source
    (every file of it is installed) and ``body`` is informational; otherwise ``SKILL.md`` is
    generated from the fields. Values are validated by :func:`to_source`, not here.
    """

    __slots__ = (
        "allowed_tools", "body", "compatibility", "description", "extra", "license", "metadata",
        "name", "path",
    )  # fmt: skip
    name: str
    description: str
    body: str | None
    path: Path | None
    license: str | None
    compatibility: str | None
    allowed_tools: str | list[str] | None
    metadata: Mapping[str, Any]
    extra: Mapping[str, Any]

    def __init__(
        self,
        name: str,
        description: str,
        body: str | None = None,
        path: Path | None = None,
        license: str | None = None,
        compatibility: str | None = None,
        allowed_tools: str | list[str] | None = None,
        metadata: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(
            name=name,
            description=description,
            body=body,
            path=path,
            license=license,
            compatibility=compatibility,
            allowed_tools=allowed_tools,
            metadata={} if metadata is None else metadata,
            extra={} if extra is None else extra,
        )

    @classmethod
    def from_directory(cls, path: Path | str | os.PathLike[str]) -> Skill:
        """Read a skill directory (or its ``SKILL.md``): name, description, body and the
        other frontmatter keys from ``SKILL.md``.

        Raises ``AgentSkillNotFound`` when *path* does not exist, ``InvalidAgentSkill`` when
        it is not a directory holding ``SKILL.md``, ``InvalidSkillFrontmatter`` for a
        missing/invalid frontmatter block or a missing ``name``, ``AgentSkillUnreadable``
        when ``SKILL.md`` cannot be read.
        """
        directory = _skill_directory(path)
        from agenttools_runtime.skills.skill_md import read_skill_md  # see _render

        skill_md = directory / SKILL_FILE
        try:
            document = read_skill_md(skill_md)
        except OSError as exc:
            raise errors.AgentSkillUnreadable(path=skill_md) from exc
        front = dict(document.frontmatter)
        if "name" not in front:
            raise errors.InvalidSkillFrontmatter(
                source=skill_md, reason='the frontmatter has no "name" key'
            )
        skill = cls.from_mapping({**front, "body": document.body})
        return _replace_path(skill, directory)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Skill:
        """An inline definition: ``name``, ``description``, ``body`` and optional
        ``license``, ``compatibility``, ``allowed-tools`` (or ``allowed_tools``),
        ``metadata`` (a mapping); any other key is kept as extra frontmatter, in order.

        Raises ``InvalidAgentSkill`` for values of the wrong type.
        """
        if not isinstance(data, Mapping):
            raise errors.InvalidAgentSkill(reason=repr(data))
        name = data.get("name")
        description = data.get("description")
        body = data.get("body")
        if body is not None and not isinstance(body, str):
            raise errors.InvalidAgentSkill(reason=f'the body of "{name}" must be text')
        for key in ("license", "compatibility"):
            value = data.get(key)
            if value is not None and not isinstance(value, str):
                raise errors.InvalidAgentSkill(reason=f'"{key}" of "{name}" must be text')
        allowed_tools = data.get("allowed-tools", data.get("allowed_tools"))
        if allowed_tools is not None and not _is_tools(allowed_tools):
            raise errors.InvalidAgentSkill(
                reason=f'"allowed-tools" of "{name}" must be text or a list of text'
            )
        metadata = data.get("metadata") or {}
        if not isinstance(metadata, Mapping):
            raise errors.InvalidAgentSkill(reason=f'"metadata" of "{name}" must be a mapping')
        extra = {str(k): v for k, v in data.items() if k not in _MAPPING_KEYS}
        return cls(
            name=name,  # type: ignore[arg-type]  # validated by to_source
            description=description,  # type: ignore[arg-type]
            body=body,
            license=data.get("license"),
            compatibility=data.get("compatibility"),
            allowed_tools=list(allowed_tools) if isinstance(allowed_tools, list) else allowed_tools,
            metadata=dict(metadata),
            extra=extra,
        )


SkillSpec = Path | str | Skill | Mapping[str, "Any"]
"""What callers may pass where a skill is accepted (``str`` is a path to a directory)."""


class SkillSource(Value):
    """The normalized source of one skill (the spec's "normalized skill source").

    ``files`` maps ``/``-separated relative paths (sorted) to a source ``Path`` or generated
    ``str`` content; ``manifest`` maps the same paths to their hashes
    (:func:`agenttools_runtime.skills.hashing.hash_bytes`). ``identifier`` is the source
    identity: ``"<dist>/<name>"`` for distribution skills, the name for built-in skills,
    ``"File:" + canonical_path_key(dir)`` for directories, a caller-given default (or None)
    for inline skills. ``directory`` is the source directory when there is one (used to
    detect source == destination). ``executable`` lists files to mark executable.
    ``contents``: the bytes of files already read and verified against ``manifest`` (a
    wheel's files hashed on first use), so that a deploy writes what it verified without
    reading it again; neither compared nor shown.
    """

    __slots__ = (
        "contents", "description", "directory", "executable", "files", "identifier", "manifest",
        "name", "version",
    )  # fmt: skip
    _uncompared = _unshown = frozenset({"contents"})
    name: str
    description: str
    identifier: str | None
    version: str | None
    files: Mapping[str, Path | str]
    manifest: Mapping[str, str]
    directory: Path | None
    executable: frozenset[str]
    contents: Mapping[str, bytes]

    def __init__(
        self,
        name: str,
        description: str,
        identifier: str | None,
        version: str | None,
        files: Mapping[str, Path | str],
        manifest: Mapping[str, str],
        directory: Path | None = None,
        executable: frozenset[str] = frozenset(),
        contents: Mapping[str, bytes] | None = None,
    ) -> None:
        super().__init__(
            name=name,
            description=description,
            identifier=identifier,
            version=version,
            files=files,
            manifest=manifest,
            directory=directory,
            executable=executable,
            contents={} if contents is None else contents,
        )


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
    if isinstance(spec, (str, os.PathLike)):
        skill = Skill.from_directory(spec)
    elif isinstance(spec, Skill):
        skill = spec
    elif isinstance(spec, Mapping):
        skill = Skill.from_mapping(spec)
    else:
        raise errors.InvalidAgentSkill(reason=repr(spec))
    name = check_skill_name(skill.name)
    description = check_skill_description(name, skill.description)
    directory = _usable_directory(skill.path)
    if directory is not None:
        return _directory_source(name, description, directory, identifier, version)
    text = _render(skill, name, description)
    return SkillSource(
        name=name,
        description=description,
        identifier=identifier if identifier is not None else default_identifier,
        version=version,
        files={SKILL_FILE: text},
        manifest={SKILL_FILE: hash_text(text)},
    )


def directory_identifier(directory: Path | str) -> str:
    """The identity of a directory source: ``"File:" + canonical_path_key(directory)``."""
    return "File:" + canonical_path_key(directory)


# -- helpers ---------------------------------------------------------------------------------


def _skill_directory(path: Path | str | os.PathLike[str]) -> Path:
    directory = Path(os.path.abspath(os.path.expanduser(os.fspath(path))))
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


def _directory_source(
    name: str,
    description: str,
    directory: Path,
    identifier: str | None,
    version: str | None,
) -> SkillSource:
    files: dict[str, Path | str] = {}
    manifest: dict[str, str] = {}
    executable: set[str] = set()
    for rel, path in iter_source_files(directory):
        try:
            data = regular_files.read_bytes(path)
            mode = os.stat(path).st_mode
        except OSError as exc:
            raise errors.AgentSkillUnreadable(path=path) from exc
        files[rel] = path
        manifest[rel] = hash_bytes(data)
        # wheels and zips may drop modes; a shebang says "this is a script" on its own
        if mode & _EXEC_BITS or data.startswith(b"#!"):
            executable.add(rel)
    if SKILL_FILE not in files:
        raise errors.InvalidAgentSkill(reason=f"{directory} has no {SKILL_FILE}", path=directory)
    return SkillSource(
        name=name,
        description=description,
        identifier=identifier if identifier is not None else directory_identifier(directory),
        version=version,
        files=dict(sorted(files.items())),
        manifest=dict(sorted(manifest.items())),
        directory=directory,
        executable=frozenset(executable),
    )


def _render(skill: Skill, name: str, description: str) -> str:
    # skill_md (the frontmatter schema) only for SKILL.md files read or written here: a
    # wheel's skill is described by its manifest (`agenttools show` needs it not); yaml only
    # for frontmatter beyond one-line strings (render_skill_md imports it then)
    from agenttools_runtime.skills.skill_md import render_skill_md

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
    except Exception as exc:
        yaml = sys.modules.get("yaml")  # loaded by then if the error is one of its
        if yaml is None or not isinstance(exc, yaml.YAMLError):
            raise
        raise errors.InvalidAgentSkill(
            reason=f'the frontmatter of "{name}" cannot be written: {exc}'
        ) from None


def _replace_path(skill: Skill, directory: Path) -> Skill:
    return replace(skill, path=directory)


def _is_tools(value: object) -> bool:
    return isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(v, str) for v in value)
    )
