"""The tools one deploy puts in place, resolved before the lock: the bundle found, each server
with the config key it is written under, each skill read and hashed (all the slow work)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agenttools_runtime import errors
from agenttools_runtime.bundles import resolve_tools
from agenttools_runtime.deploy import content
from agenttools_runtime.discovery import InstalledDistribution, SearchPath
from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.skills.source import SkillSource

if TYPE_CHECKING:  # an alias for the type checker only (bundles keeps typing off `list`)
    from agenttools_runtime.bundles import ToolsSpec


@dataclass(frozen=True, slots=True)
class ServerPlan:
    """One server of the bundle and the config key it is written under."""

    server: MCPServer
    key: str
    runner: str | None = None  # how a module/script server's command is written (mcp.runners)
    digest: str | None = None  # content.server_digest of the declaration (before the runner)


@dataclass(frozen=True, slots=True)
class ResolvedTools:
    """A bundle with every server resolved and every skill hashed: all the slow work,
    done before the lock. ``skill_names`` are the bundle's skill names as stored (what a
    record lists under ``skipped``)."""

    name: str
    toolset_type: str
    builtin: bool
    agent_tools: Mapping[str, Any]
    servers: tuple[ServerPlan, ...]
    skills: tuple[SkillSource, ...]
    skill_names: tuple[str, ...]
    # skills deployed as links to their live source (deploy --link; editable installs)
    links: frozenset[str] = frozenset()

    @property
    def has_servers(self) -> bool:
        return bool(self.servers)

    @property
    def has_skills(self) -> bool:
        return bool(self.skill_names)


def resolve(
    tools: ToolsSpec,
    *,
    search: SearchPath | None = None,
    mcp_server_name: str | None = None,
    skills_disabled: bool = False,
) -> ResolvedTools:
    """Resolve *tools* (a name, ``AgentTools``, ``MCPServer``, mapping, or None for the
    built-in bundle). Raises the resolution errors, ``AgentToolsEmpty``,
    ``AgentSkillsDisabled`` (skills only, skills disabled), ``InvalidMCPServerNameOption``,
    ``DuplicateBundleConfigKey``, ``DuplicateAgentSkillName`` and the skill source errors."""
    bundle = resolve_tools(tools, search)
    name = bundle.qualified_name
    if not bundle.mcp_servers and not bundle.skills:
        raise errors.AgentToolsEmpty(name=name)
    if not bundle.mcp_servers and skills_disabled:
        raise errors.AgentSkillsDisabled(name=name)
    servers = bundle.servers()
    if mcp_server_name is not None and len(servers) != 1:
        raise errors.InvalidMCPServerNameOption(name=name, count=len(servers))
    server_plans = tuple(
        ServerPlan(s, mcp_server_name or s.key, digest=content.server_digest(s)) for s in servers
    )
    by_key: dict[str, list[str]] = {}
    for sp in server_plans:
        by_key.setdefault(sp.key, []).append(sp.server.name)
    for key, names in by_key.items():
        if len(names) > 1:
            raise errors.DuplicateBundleConfigKey(servers=names, name=name, key=key)
    sources: tuple[SkillSource, ...] = ()
    if not skills_disabled:
        sources = tuple(bundle.skill_sources())
        seen: set[str] = set()
        for source in sources:
            if source.name in seen:
                raise errors.DuplicateAgentSkillName(name=source.name)
            seen.add(source.name)
    location = bundle.location
    dist = location if isinstance(location, InstalledDistribution) else None
    agent_tools: dict[str, Any] = {
        "type": bundle.toolset_type,
        "name": name,
        "location": "builtin" if bundle.is_builtin else ("distribution" if dist else None),
        "distribution": dist.name if dist else None,
        "distribution_version": dist.version if dist else None,
    }
    if dist is not None:
        agent_tools.update(content.distribution_fields(dist, search or SearchPath.current()))
    elif bundle.is_builtin:  # its server runs in this interpreter's environment
        agent_tools.update(content.builtin_fields())
    return ResolvedTools(
        name=name,
        toolset_type=bundle.toolset_type,
        builtin=bundle.is_builtin,
        agent_tools=agent_tools,
        servers=server_plans,
        skills=sources,
        skill_names=tuple(bundle.skill_names),
    )
