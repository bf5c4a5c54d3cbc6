"""The provider interface of ``skill://``: a named source that lists its skills
(:class:`ProvidedSkill`) and reads their files; and FastMCP's wire format of a skill's files,
which the MCP provider reads and ``agenttools serve`` serves: their resource URIs and the
``_manifest`` (the JSON listing of the files with sizes and digests, as every provider answers
``skill://{skill}/_manifest``)."""

from __future__ import annotations

import abc
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from agenttools_runtime.errors import InvalidSkillProviderName
from agenttools_runtime.names import is_provider_name
from agenttools_runtime.skilluri.parse import SCHEME, format_skill_uri

# the reference that names a skill's file listing instead of one of its files
MANIFEST_REFERENCE = "_manifest"


@dataclass(frozen=True, slots=True)
class ProvidedSkill:
    """One skill a provider has.

    ``path`` is where the provider keeps it (its name, or a longer ``a/b/name`` path on MCP
    servers that nest skills); ``directory`` is its folder for local and distribution skills.
    ``prompt`` holds the argument names of an MCP prompt exposed as a skill (None for skills
    made of files).
    """

    provider: str
    name: str
    description: str
    path: str
    directory: Path | None = None
    origin: str = ""
    prompt: tuple[str, ...] | None = None

    @property
    def uri(self) -> str:
        return format_skill_uri(self.provider, self.path.split("/"))

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "name": self.name,
            "description": self.description,
            "uri": self.uri,
            "directory": None if self.directory is None else str(self.directory),
            "origin": self.origin,
            "kind": "files" if self.prompt is None else "prompt",
        }


class SkillProvider(abc.ABC):
    """A named source of skills. Subclasses list skills and read their files."""

    kind: str = "provider"

    def __init__(self, name: str) -> None:
        if not is_provider_name(name):
            raise InvalidSkillProviderName(provider=name)
        self.name = name

    @abc.abstractmethod
    def skills(self) -> Sequence[ProvidedSkill]:
        """Every skill, sorted by name. Raises ``SkillProviderFailed`` when unreachable."""

    def names(self) -> list[str]:
        """The names of every skill (for "Available: …"), possibly cheaper than :meth:`skills`."""
        return [s.name for s in self.skills()]

    def find(self, name: str) -> ProvidedSkill | None:
        return next((s for s in self.skills() if s.name == name), None)

    def locate(self, path: Sequence[str]) -> tuple[ProvidedSkill, tuple[str, ...]] | None:
        """The skill a URI path names and the reference segments after it."""
        skill = self.find(path[0])
        return None if skill is None else (skill, tuple(path[1:]))

    @abc.abstractmethod
    def read(self, skill: ProvidedSkill, reference: Sequence[str]) -> bytes:
        """The bytes of one file of *skill* (``("SKILL.md",)`` for the main file).

        Raises ``SkillReferenceNotFound`` or ``SkillPathTraversal``.
        """

    @abc.abstractmethod
    def manifest(self, skill: ProvidedSkill) -> str:
        """The skill's FastMCP ``_manifest`` JSON text."""

    def close(self) -> None:
        """Release what the provider holds open (MCP sessions); it may be used again."""
        return None  # directories hold nothing open

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def resource_uri(path: str, relpath: str) -> str:
    """The FastMCP resource URI of file *relpath* of the skill at *path*:
    ``skill://{path}/{relpath}``, percent-encoded except for its ``/``."""
    return f"{SCHEME}://{quote(path, safe='/')}/{quote(relpath, safe='/')}"


def digest(data: bytes) -> str:
    """``sha256:<hex>`` over the raw bytes (the FastMCP / SEP-2640 digest)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()  # raw bytes, unlike hash_bytes


def file_listing_json(name: str, files: Mapping[str, bytes]) -> str:
    """FastMCP's ``_manifest`` text: ``{"skill", "files": [{"path", "size", "hash"}]}``
    sorted by path, indented by 2, exactly as ``json.dumps`` writes it there."""
    entries = [
        {"path": path, "size": len(data), "hash": digest(data)}
        for path, data in sorted(files.items())
    ]
    return json.dumps({"skill": name, "files": entries}, indent=2)
