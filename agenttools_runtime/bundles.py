"""``AgentTools`` bundles, the built-in bundle, and name resolution.

INTERFACE STUB (owned by the discovery work; signatures here are what other modules use).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from agenttools_runtime.discovery import InstalledDistribution, SearchPath
from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.skills.source import SkillSource, SkillSpec

ToolsetType = Literal["AgentTools", "MCPServer"]
BUILTIN_BUNDLE = "agenttools"


@dataclass(frozen=True)
class AgentTools:
    """A bundle of MCP servers and agent skills.

    ``location`` is ``"builtin"``, the :class:`InstalledDistribution` that declares it, or
    None for ad hoc bundles. ``mcp_servers`` / ``skills`` hold the stored specifications:
    qualified names (``"dist/item"``) or values (:class:`MCPServer`, skill specs).
    ``toolset_type`` is ``"MCPServer"`` for a single server wrapped as an implicit bundle.
    """

    name: str
    mcp_servers: Sequence[str | MCPServer] = ()
    skills: Sequence[str | SkillSpec] = ()
    description: str | None = None
    location: InstalledDistribution | Literal["builtin"] | None = None
    toolset_type: ToolsetType = "AgentTools"
    marker: str | None = None
    search: SearchPath | None = field(default=None, compare=False, repr=False)

    @property
    def server_names(self) -> list[str]:
        raise NotImplementedError

    @property
    def skill_names(self) -> list[str]:
        raise NotImplementedError

    @property
    def qualified_name(self) -> str:
        """``dist/bundle`` for distribution bundles, the name otherwise."""
        raise NotImplementedError

    def servers(self) -> list[MCPServer]:
        """Resolved servers (with the environment of their distribution)."""
        raise NotImplementedError

    def skill_sources(self) -> list[SkillSource]:
        """Resolved, hashed skill sources; distribution skills verified against the manifest.
        Inline/ad hoc skills get the default identifier ``"<ToolsetType>:<name>/<skill>"``."""
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError


def resolve_tools(
    tools: str | AgentTools | MCPServer | Mapping[str, Any] | None,
    search: SearchPath | None = None,
) -> AgentTools:
    """The spec's name resolution: ad hoc value; built-in name; ``dist/bundle``; a bare
    distribution with exactly one bundle; a server (``dist/server`` or unique bare name)
    wrapped as an implicit single-server bundle. None → the built-in bundle."""
    raise NotImplementedError


def agent_tools_objects(
    pattern: str | None = None, include_builtin: bool = False, search: SearchPath | None = None
) -> list[AgentTools]:
    raise NotImplementedError
