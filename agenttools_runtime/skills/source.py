"""Skill specifications and the normalized skill source they all become.

INTERFACE STUB (owned by the skills-core work; signatures here are what other modules use).

A skill may be given as a skill directory (``Path`` holding ``SKILL.md``), a :class:`Skill`
object, or an inline mapping (``name``, ``description``, ``body`` and optional frontmatter
keys ``license``, ``compatibility``, ``allowed-tools``, ``metadata``, other keys). Every form
normalizes to a :class:`SkillSource`: validated name and description, identity (for upgrade
decisions), version, the files to write and their manifest.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Skill:
    """A skill: either a directory (``path``) or an inline definition (``body`` and
    frontmatter fields)."""

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
    def from_directory(cls, path: Path | str) -> Skill:
        raise NotImplementedError

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Skill:
        raise NotImplementedError


SkillSpec = Path | str | Skill | Mapping[str, Any]
"""What callers may pass where a skill is accepted (``str`` is a path to a directory)."""


@dataclass(frozen=True)
class SkillSource:
    """The normalized source of one skill (the spec's "normalized skill source").

    ``files`` maps ``/``-separated relative paths (sorted) to a source ``Path`` or generated
    ``str`` content; ``manifest`` maps the same paths to their hashes
    (:func:`agenttools_runtime.skills.manifest.hash_bytes`). ``identifier`` is the source
    identity: ``"<dist>/<name>"`` for distribution skills, the name for built-in skills,
    ``"File:" + canonical_path_key(dir)`` for directories, a caller-given default (or None)
    for inline skills. ``directory`` is the source directory when there is one (used to
    detect source == destination). ``executable`` lists files to mark executable.
    """

    name: str
    description: str
    identifier: str | None
    version: str | None
    files: Mapping[str, Path | str]
    manifest: Mapping[str, str]
    directory: Path | None = None
    executable: frozenset[str] = frozenset()


def to_source(spec: SkillSpec, default_identifier: str | None = None) -> SkillSource:
    """Normalize any skill specification. Raises ``InvalidAgentSkill``,
    ``InvalidAgentSkillName``, ``InvalidAgentSkillDescription``, ``InvalidSkillFrontmatter``,
    ``AgentSkillUnreadable`` or ``AgentSkillUnsafeLink``."""
    raise NotImplementedError
