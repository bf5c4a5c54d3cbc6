"""Skill specifications and the normalized skill source they all become: the values.

A skill may be given as a skill directory (``Path``, or a ``str`` path, holding ``SKILL.md``),
a :class:`Skill` object, or an inline mapping (``name``, ``description``, ``body`` and optional
frontmatter keys ``license``, ``compatibility``, ``allowed-tools``, ``metadata``, other keys).
Every form normalizes (:func:`agenttools_runtime.skills.source.to_source`, which reads and
parses what these values name) to a :class:`SkillSource`. Nothing here reads a file: listing
bundles handles these values without the ``SKILL.md`` reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttools_runtime import errors

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


@dataclass(frozen=True, slots=True)
class Skill:
    """A skill: either a directory (``path``) or an inline definition (``body`` and
    frontmatter fields).

    When ``path`` is an existing directory holding ``SKILL.md``, that directory is the source
    (every file of it is installed) and ``body`` is informational; otherwise ``SKILL.md`` is
    generated from the fields (:func:`~agenttools_runtime.skills.source.skill_from_directory`
    reads one from a directory). Values are validated by ``to_source``, not here.
    """

    name: str
    description: str
    body: str | None = None
    path: Path | None = None
    license: str | None = None
    compatibility: str | None = None
    allowed_tools: str | list[str] | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict)

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


@dataclass(frozen=True, slots=True)
class SkillSource:
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

    name: str
    description: str
    identifier: str | None
    version: str | None
    files: Mapping[str, Path | str]
    manifest: Mapping[str, str]
    directory: Path | None = None
    executable: frozenset[str] = frozenset()
    contents: Mapping[str, bytes] = field(default_factory=dict, compare=False, repr=False)


def _is_tools(value: object) -> bool:
    return isinstance(value, str) or (
        isinstance(value, list) and all(isinstance(v, str) for v in value)
    )
