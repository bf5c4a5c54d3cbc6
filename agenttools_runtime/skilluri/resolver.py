"""Resolving ``skill://`` URIs against providers in priority order: the default providers, a
bare name's collisions, SKILL.md with arguments, a reference file or the ``_manifest``; and the
listing of every skill, grouped by provider in priority order (the scheme document's
"Available skills" text and its JSON form)."""

from __future__ import annotations

import base64
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agenttools_runtime.discovery import SearchPath
from agenttools_runtime.errors import (
    SkillNameCollision,
    SkillNotFound,
    SkillProviderExists,
    SkillProviderFailed,
    SkillProviderNotFound,
    SkillProviderSkipped,
    SkillReferenceNotFound,
)
from agenttools_runtime.names import SKILL_FILE, canonical_dist_name
from agenttools_runtime.skilluri.arguments import check_convention, substitute_skill_md
from agenttools_runtime.skilluri.parse import SkillURI, format_skill_uri, parse_skill_uri
from agenttools_runtime.skilluri.providers.base import (
    MANIFEST_REFERENCE,
    ProvidedSkill,
    SkillProvider,
)
from agenttools_runtime.skilluri.providers.builtin import BuiltinSkillProvider
from agenttools_runtime.skilluri.providers.distribution import distribution_providers
from agenttools_runtime.skilluri.providers.local import LocalSkillProvider
from agenttools_runtime.skilluri.providers.mcp import MCPSkillProvider

if TYPE_CHECKING:
    from agenttools_runtime.skilluri.arguments import Convention

    ResultKind = Literal["skill", "reference", "manifest"]
    # name -> server, or (name, server) pairs in order; a server as MCPSkillProvider takes it
    MCPServers = Mapping[str, Any] | Sequence[tuple[str, Any]]


@dataclass(frozen=True, slots=True)
class ResolvedSkill:
    """What a URI resolved to.

    ``kind`` is ``skill`` (SKILL.md, arguments substituted), ``reference`` (a file of the
    skill, verbatim) or ``manifest`` (FastMCP's ``_manifest`` JSON). ``content`` is the bytes;
    ``text`` the same decoded as UTF-8 (None for binary files). ``also_provided_by`` names the
    lower-priority providers that have a skill of that name too (a bare name's collision).
    """

    uri: str
    skill: ProvidedSkill
    kind: ResultKind
    reference: str | None
    content: bytes
    also_provided_by: tuple[str, ...] = ()

    @property
    def provider(self) -> str:
        return self.skill.provider

    @property
    def text(self) -> str | None:
        try:
            return self.content.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def to_json(self) -> dict[str, Any]:
        text = self.text
        data: dict[str, Any] = {
            "uri": self.uri,
            "provider": self.provider,
            "skill": self.skill.name,
            "kind": self.kind,
            "reference": self.reference,
            "directory": None if self.skill.directory is None else str(self.skill.directory),
            "also_provided_by": list(self.also_provided_by),
        }
        if text is None:
            data["content_base64"] = base64.b64encode(self.content).decode("ascii")
        else:
            data["content"] = text
        return data


@dataclass(frozen=True, slots=True)
class ProviderListing:
    name: str
    kind: str
    skills: tuple[ProvidedSkill, ...]
    error: str | None = None


@dataclass(frozen=True, slots=True)
class SkillListing:
    """Every provider's skills, in priority order. ``winners`` maps each name to the
    provider a bare name resolves to."""

    providers: tuple[ProviderListing, ...]
    winners: Mapping[str, str] = field(default_factory=dict)

    def render(self) -> str:
        """The scheme document's "Available skills" text, grouped by provider."""
        groups = [p for p in self.providers if p.skills]
        if not groups:
            return "No skills available"
        lines = ["Available skills:"]
        for group in groups:
            count = len(group.skills)
            lines += ["", f"## {group.name} ({count} skill{'' if count == 1 else 's'})"]
            for skill in group.skills:
                description = " ".join(skill.description.split())  # one line per skill
                lines.append(f"- **{skill.name}**: {description}".rstrip())
                lines.append(f"  URI: `{skill.uri}`")
                winner = self.winners.get(skill.name)
                if winner is not None and winner != group.name:
                    lines.append(f"  Shadowed: the bare name '{skill.name}' resolves to {winner}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "providers": [
                {
                    "name": p.name,
                    "kind": p.kind,
                    "error": p.error,
                    "skills": [
                        {**s.to_json(), "resolves_bare_name": self.winners.get(s.name) == p.name}
                        for s in p.skills
                    ],
                }
                for p in self.providers
            ]
        }


class SkillResolver:
    """Resolves ``skill://`` URIs against providers in priority (registration) order."""

    def __init__(self, providers: Iterable[SkillProvider] = ()) -> None:
        self._providers: dict[str, SkillProvider] = {}
        for provider in providers:
            self.register(provider)

    @classmethod
    def default(
        cls,
        *,
        search: SearchPath | None = None,
        project_dir: Path | str | None = None,
        mcp_servers: MCPServers = (),
        local: bool = True,
        distributions: bool = True,
    ) -> SkillResolver:
        """``local``, then every installed distribution with skills (by name) and agenttools'
        own built-in skills (``agenttools``), then *mcp_servers* (name → server, see
        :class:`MCPSkillProvider`) in the order given.
        A distribution whose name is taken by an earlier provider is skipped with a warning."""
        resolver = cls()
        if local:
            resolver.register(LocalSkillProvider(project_dir=project_dir))
        if distributions:
            shipped: list[SkillProvider] = [*distribution_providers(search), BuiltinSkillProvider()]
            for provider in shipped:
                if provider.name in resolver._providers:
                    reason = f"the name is taken by an earlier provider ({provider.name})"
                    _warn_skipped(provider, reason)
                    continue
                resolver.register(provider)
        items = mcp_servers.items() if isinstance(mcp_servers, Mapping) else mcp_servers
        for name, server in items:
            resolver.register(MCPSkillProvider(name, server))
        return resolver

    def close(self) -> None:
        """Close every provider (ends MCP sessions)."""
        for provider in self._providers.values():
            provider.close()

    def __enter__(self) -> SkillResolver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def register(self, provider: SkillProvider) -> None:
        """Add a provider after the existing ones. Raises ``SkillProviderExists``."""
        if provider.name in self._providers:
            raise SkillProviderExists(provider=provider.name)
        self._providers[provider.name] = provider

    @property
    def providers(self) -> tuple[SkillProvider, ...]:
        return tuple(self._providers.values())

    def provider(self, name: str) -> SkillProvider:
        """A provider by name (distribution names also after PEP 503 normalization).
        Raises ``SkillProviderNotFound``."""
        found = self._providers.get(name)
        if found is None:
            found = self._providers.get(canonical_dist_name(name))
        if found is None:
            available = ", ".join(self._providers) or "(none)"
            raise SkillProviderNotFound(provider=name, available=available)
        return found

    def locate(self, uri: str | SkillURI) -> tuple[ProvidedSkill, tuple[str, ...], tuple[str, ...]]:
        """``(skill, reference segments, other providers with that name)``.

        Raises the parse errors of :func:`parse_skill_uri`, ``SkillProviderNotFound``,
        ``SkillProviderFailed`` (an explicitly named provider is unreachable) and
        ``SkillNotFound``. A bare name takes the first provider that has it; when later ones
        have it too, a ``SkillNameCollision`` warning says which one won.
        """
        parsed = parse_skill_uri(uri) if isinstance(uri, str) else uri
        if parsed.provider is not None:
            provider = self.provider(parsed.provider)
            located = provider.locate(parsed.path)
            if located is None:
                available = ", ".join(provider.names()) or "(none)"
                raise SkillNotFound(skill=parsed.skill, available=available)
            return located[0], located[1], ()
        found: list[tuple[ProvidedSkill, tuple[str, ...]]] = []
        names: set[str] = set()
        for provider in self._providers.values():
            try:
                located = provider.locate(parsed.path)
                if located is None:
                    names.update(provider.names())
                else:
                    found.append(located)
            except SkillProviderFailed as exc:  # one dead server must not hide the others
                _warn_skipped(provider, exc.data["reason"])
        if not found:
            available = ", ".join(sorted(names)) or "(none)"
            raise SkillNotFound(skill=parsed.skill, available=available)
        (skill, reference), others = found[0], tuple(s.provider for s, _ in found[1:])
        if others:
            warnings.warn(
                SkillNameCollision(
                    skill=skill.name, providers=[skill.provider, *others], chosen=skill.uri
                ),
                stacklevel=2,
            )
        return skill, reference, others

    def resolve(
        self,
        uri: str | SkillURI,
        arguments: str | Sequence[str] | None = None,
        *,
        convention: Convention = "seed",
    ) -> ResolvedSkill:
        """Load what *uri* names: SKILL.md with *arguments* substituted in its body (never in
        the frontmatter), a reference file verbatim, or the ``_manifest`` JSON.

        Raises what :meth:`locate` raises, ``SkillReferenceNotFound``, ``SkillPathTraversal``
        (a reference that leads out of its skill, e.g. through a symbolic link) and
        ``ValueError`` for an unknown *convention*.
        """
        check_convention(convention)
        skill, reference, others = self.locate(uri)
        provider = self._providers[skill.provider]
        rel = "/".join(reference)
        kind: ResultKind = "reference"
        if not reference or reference == (SKILL_FILE,):
            kind, reference = "skill", ()
        elif reference == (MANIFEST_REFERENCE,):
            kind = "manifest"
        if skill.prompt is not None and isinstance(provider, MCPSkillProvider):
            if kind != "skill":  # a prompt has no files
                raise SkillReferenceNotFound(reference=rel, skill=skill.name)
            data = provider.render_prompt(skill, arguments, convention)
        elif kind == "skill":
            data = provider.read(skill, (SKILL_FILE,))
            if arguments is not None:
                data = substitute_skill_md(data, arguments, convention)
        elif kind == "manifest":
            data = provider.manifest(skill).encode("utf-8")
        else:
            data = provider.read(skill, reference)
        canonical = format_skill_uri(skill.provider, [*skill.path.split("/"), *reference])
        return ResolvedSkill(canonical, skill, kind, rel if reference else None, data, others)

    def list_skills(self) -> SkillListing:
        """Every provider's skills; an unreachable provider is listed with its error (and a
        ``SkillProviderSkipped`` warning)."""
        groups: list[ProviderListing] = []
        winners: dict[str, str] = {}
        for provider in self._providers.values():
            try:
                skills = tuple(provider.skills())
            except SkillProviderFailed as exc:
                _warn_skipped(provider, exc.data["reason"])
                groups.append(ProviderListing(provider.name, provider.kind, (), str(exc)))
                continue
            for skill in skills:
                winners.setdefault(skill.name, provider.name)
            groups.append(ProviderListing(provider.name, provider.kind, skills))
        return SkillListing(tuple(groups), winners)


def resolve_skill(
    uri: str,
    arguments: str | Sequence[str] | None = None,
    *,
    convention: Convention = "seed",
    mcp_servers: MCPServers = (),
    search: SearchPath | None = None,
    project_dir: Path | str | None = None,
) -> ResolvedSkill:
    """Resolve one URI with the default providers (see :meth:`SkillResolver.default` and
    :meth:`SkillResolver.resolve`)."""
    with SkillResolver.default(
        search=search, project_dir=project_dir, mcp_servers=mcp_servers
    ) as resolver:
        return resolver.resolve(uri, arguments, convention=convention)


def list_skills(
    *,
    mcp_servers: MCPServers = (),
    search: SearchPath | None = None,
    project_dir: Path | str | None = None,
) -> SkillListing:
    """Every skill of the default providers, grouped by provider in priority order."""
    with SkillResolver.default(
        search=search, project_dir=project_dir, mcp_servers=mcp_servers
    ) as resolver:
        return resolver.list_skills()


def _warn_skipped(provider: SkillProvider, reason: object) -> None:
    """``SkillProviderSkipped``, attributed to the caller of the resolver's method."""
    warnings.warn(SkillProviderSkipped(provider=provider.name, reason=reason), stacklevel=3)
