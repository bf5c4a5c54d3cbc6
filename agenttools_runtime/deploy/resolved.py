"""The tools one deploy puts in place, resolved before the lock: the bundle found, each server
with the config key it is written under, each skill read and hashed (all the slow work)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttools_runtime import errors, fs, paths, verified
from agenttools_runtime.bundles import resolve_tools
from agenttools_runtime.deploy import content
from agenttools_runtime.discovery import InstalledDistribution, SearchPath
from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.skill_sources import skill_sources
from agenttools_runtime.skills.spec import SkillSource
from agenttools_runtime.wheel import layout

if TYPE_CHECKING:  # an alias for the type checker only
    from agenttools_runtime.bundles import ToolsSpec


@dataclass(frozen=True, slots=True)
class ServerPlan:
    """One server of the bundle and the config key it is written under."""

    server: MCPServer
    key: str
    runner: str | None = None  # how a module/script server's command is written (mcp.runners)
    digest: str | None = None  # content.server_digest of the declaration (before the runner)
    # what a record keeps of the values of its declared settings (agenttools_runtime.settings)
    settings: Mapping[str, Any] | None = None
    # secret value -> the digest a record keeps in its place ("" for a value it had before:
    # masked in output, in no entry); never printed, never compared
    secrets: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)


@dataclass(frozen=True, slots=True)
class ResolvedTools:
    """A bundle with every server resolved and every skill hashed: all the slow work,
    done before the lock. ``skill_names`` are the bundle's skill names as stored (what a
    record lists under ``skipped``). ``unrecorded_since_ns``: when the wheel files were
    read, if there was no state directory yet to record them as verified in (None: they
    are recorded)."""

    name: str
    toolset_type: str
    builtin: bool
    agent_tools: Mapping[str, Any]
    servers: tuple[ServerPlan, ...]
    skills: tuple[SkillSource, ...]
    skill_names: tuple[str, ...]
    # skills deployed as links to their live source (deploy --link; editable installs)
    links: frozenset[str] = frozenset()
    unrecorded_since_ns: int | None = None

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
    read_since_ns = time.time_ns()
    # (where the cache of verified wheel files lives: a new machine has none yet)
    recorded = paths.state_paths().deployments.is_dir()
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
        sources = tuple(skill_sources(bundle))
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
        unrecorded_since_ns=None if recorded or not sources else read_since_ns,
    )


def record_verified(tools: ResolvedTools) -> None:
    """Record the wheel files of *tools*' skills that were read and verified when there was
    no state directory to record them in (:func:`agenttools_runtime.verified.remember`):
    the first deploy on a machine, once it made one."""
    if tools.unrecorded_since_ns is None:
        return
    fs.checkpoint("deploy:recording-verified")
    for source in tools.skills:
        dist_info = _wheel_copy_of(source)
        if dist_info is None or source.directory is None or not source.contents:
            continue
        files = {rel: source.manifest[rel] for rel in source.contents if rel in source.manifest}
        verified.remember(
            dist_info, source.name, source.directory, files, tools.unrecorded_since_ns
        )


def _wheel_copy_of(source: SkillSource) -> Path | None:
    """The ``.dist-info`` whose copy of the skill *source* is (``<dist-info>/`` +
    ``layout.SKILLS_DIR`` + ``/<name>``); None for any other source."""
    depth = len(layout.SKILLS_DIR.split("/"))
    if source.directory is None or len(source.directory.parents) <= depth:
        return None
    dist_info = source.directory.parents[depth]
    if dist_info / layout.SKILLS_DIR / source.name != source.directory:
        return None
    return dist_info if dist_info.name.endswith(".dist-info") else None
