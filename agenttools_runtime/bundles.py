"""``AgentTools`` bundles, the built-in bundle, and name resolution.

A bundle is a named set of MCP servers and agent skills. It is built in (``agenttools``),
declared by an installed distribution (``location`` is that :class:`InstalledDistribution`),
or ad hoc (``location`` None: a value built by the caller). Bundles store *specifications*:
names (``"dist/item"`` for distribution items, a bare name for built-in items), or values
(:class:`MCPServer`, skill specs). Names resolve to objects only when asked
(:meth:`AgentTools.servers`, :meth:`AgentTools.skill_sources`).

In a bundle's skill list a ``str`` that looks like a name (``"skill"`` or ``"dist/skill"``)
is a name; use a ``Path`` for a skill directory (in ad hoc bundles, a string naming an
existing skill directory is that directory).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agenttools_runtime import __version__, errors
from agenttools_runtime.discovery import (
    InstalledDistribution,
    SearchPath,
    find_distributions,
    get_distribution,
    try_get_distribution,
)
from agenttools_runtime.mcp.server import MCPServer, Origin
from agenttools_runtime.names import (
    SKILL_FILE,
    canonical_dist_name,
    is_item_reference,
    is_name_shaped,
)
from agenttools_runtime.skills.spec import Skill, SkillSource

if TYPE_CHECKING:
    from agenttools_runtime.skills.spec import SkillSpec

    ToolsetType = Literal["AgentTools", "MCPServer"]

BUILTIN_BUNDLE = "agenttools"

_MAPPING_KEYS = frozenset({"name", "description", "mcp-servers", "mcp_servers", "skills"})

BUILTIN_SKILLS_DIR = Path(__file__).resolve().parent / "builtin_skills"
BUILTIN_SKILL_NAMES: tuple[str, ...] = ("agenttools",)
BUILTIN_SERVERS: dict[str, MCPServer] = {
    "agenttools": MCPServer(
        name="agenttools",
        module="agenttools",
        args=("serve",),
        description=(
            "Serves the agent skills of the installed Python distributions over MCP "
            "(python -m agenttools serve)."
        ),
        # `agenttools serve` is `python -m agenttools serve`; serving needs the [serve] extra
        origin=Origin("agenttools", __version__, {"agenttools": "agenttools"}, ("serve",)),
    ),
}


@dataclass(frozen=True, slots=True)
class AgentTools:
    """A bundle of MCP servers and agent skills.

    ``location`` is ``"builtin"``, the :class:`InstalledDistribution` that declares it, or
    None for ad hoc bundles. ``mcp_servers`` / ``skills`` hold the stored specifications:
    qualified names (``"dist/item"``), built-in names, or values (:class:`MCPServer`, skill
    specs). ``toolset_type`` is ``"MCPServer"`` for a single server wrapped as an implicit
    bundle. ``name`` is the bundle's own name; :attr:`qualified_name` adds the distribution.

    Validated on construction: ``InvalidAgentToolsObject`` for a name that is not a non-empty
    string, item lists that are not lists of specifications, and (ad hoc bundles) a name with
    ``/`` or the name of a built-in bundle. Empty lists are allowed (deploying needs an item).
    ``search`` (where its distribution was found) is neither compared nor shown.
    """

    name: str
    mcp_servers: Sequence[str | MCPServer] = ()
    skills: Sequence[str | SkillSpec] = ()
    description: str | None = None
    location: InstalledDistribution | Literal["builtin"] | None = None
    toolset_type: ToolsetType = "AgentTools"
    marker: str | None = None
    search: SearchPath | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        name, location = self.name, self.location
        if not isinstance(name, str) or not name.strip():
            raise errors.InvalidAgentToolsObject(
                reason=f"the name must be a non-empty string, not {name!r}"
            )
        if self.description is not None and not isinstance(self.description, str):
            raise errors.InvalidAgentToolsObject(
                reason=f'the description of "{name}" must be a string'
            )
        server_specs = _server_specs(name, self.mcp_servers)
        skill_specs = _skill_specs(name, self.skills)
        if location is None:
            skill_specs = tuple(_directory_or_name(s) for s in skill_specs)
        if location is None and self.toolset_type == "AgentTools":
            if "/" in name:
                raise errors.InvalidAgentToolsObject(
                    reason=f'the name "{name}" contains "/", which is reserved for '
                    "distribution bundles (dist/bundle)"
                )
            if name in BUILTIN_BUNDLES:
                raise errors.InvalidAgentToolsObject(
                    reason=f'"{name}" is the name of a built-in bundle; choose another name'
                )
        object.__setattr__(self, "mcp_servers", server_specs)
        object.__setattr__(self, "skills", skill_specs)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> AgentTools:
        """An ad hoc bundle from ``{"name", "description", "mcp-servers", "skills"}``
        (``mcp_servers`` is accepted too). Servers may be names, :class:`MCPServer` values or
        declaration mappings with a ``name`` key; skills any skill specification.
        Raises ``InvalidAgentToolsObject``."""
        if not isinstance(data, Mapping):
            raise errors.InvalidAgentToolsObject(reason=repr(data))
        unknown = sorted(str(k) for k in data if k not in _MAPPING_KEYS)
        if unknown:
            raise errors.InvalidAgentToolsObject(
                reason=f"unknown keys {', '.join(unknown)} (expected name, description, "
                "mcp-servers, skills)"
            )
        if "mcp-servers" in data and "mcp_servers" in data:
            raise errors.InvalidAgentToolsObject(
                reason=f'both "mcp-servers" and "mcp_servers" given for "{data.get("name")}"; use one'
            )
        return cls(
            name=data.get("name"),  # type: ignore[arg-type]  # validated in __post_init__
            mcp_servers=data.get("mcp-servers", data.get("mcp_servers", ())),
            skills=data.get("skills", ()),
            description=data.get("description"),
        )

    # -- names, without loading anything -----------------------------------------------------
    @property
    def server_names(self) -> list[str]:
        """Qualified names as stored (``"dist/server"``), or the names of server values."""
        return [s if isinstance(s, str) else s.name for s in self.mcp_servers]

    @property
    def skill_names(self) -> list[str]:
        """Names as stored (``"dist/skill"``, built-in names), or the names of skill values."""
        return [skill_spec_name(s) for s in self.skills]

    @property
    def qualified_name(self) -> str:
        """``dist/bundle`` for distribution bundles, the name otherwise."""
        if isinstance(self.location, InstalledDistribution):
            return f"{self.location.name}/{self.name}"
        return self.name

    @property
    def distribution(self) -> str | None:
        """The normalized name of the declaring distribution, if any."""
        return self.location.name if isinstance(self.location, InstalledDistribution) else None

    @property
    def is_builtin(self) -> bool:
        return self.location == "builtin"

    # -- resolved objects ----------------------------------------------------------------------
    def servers(self) -> list[MCPServer]:
        """Resolved servers, each with the environment of its distribution.

        Raises ``DistributionNotInstalled`` (naming the ``pip install`` to run),
        ``DistributionServerNotFound``, ``MCPServerNotFound``, ``InvalidManifest``."""
        return [self.server(spec) for spec in self.mcp_servers]

    def server(self, spec: str | MCPServer) -> MCPServer:
        """Resolve one of this bundle's server specifications (see :meth:`servers`)."""
        if isinstance(spec, MCPServer):
            return spec
        dist_name, _, item = spec.rpartition("/")
        if dist_name:
            return self.item_distribution(dist_name).server(item)
        server = BUILTIN_SERVERS.get(spec)
        if server is None:
            raise errors.MCPServerNotFound(name=spec)
        return server

    def item_distribution(self, name: str) -> InstalledDistribution:
        """The installed distribution *name* of a qualified item (``"dist/item"``): this
        bundle's own when it is that one, else looked up where the bundle was found."""
        if isinstance(
            self.location, InstalledDistribution
        ) and self.location.name == canonical_dist_name(name):
            return self.location
        return get_distribution(name, self.search)

    def to_json(self) -> dict[str, Any]:
        """Stored data, JSON-ready (server and skill values by name)."""
        location: Any
        if isinstance(self.location, InstalledDistribution):
            location = {
                "distribution": self.location.name,
                "version": self.location.version,
                "dist_info": str(self.location.dist_info),
                "editable": self.location.source_root is not None,
            }
        else:
            location = self.location
        return {
            "name": self.name,
            "qualified_name": self.qualified_name,
            "toolset_type": self.toolset_type,
            "location": location,
            "description": self.description,
            "marker": self.marker,
            "mcp_servers": self.server_names,
            "skills": self.skill_names,
        }


# -- name resolution -------------------------------------------------------------------------
if TYPE_CHECKING:
    # what names a bundle: its name, a bundle, a server, an ad hoc mapping, None (built in)
    ToolsSpec = str | AgentTools | MCPServer | Mapping[str, Any] | None


def resolve_tools(
    tools: ToolsSpec,
    search: SearchPath | None = None,
) -> AgentTools:
    """The spec's name resolution, in order:

    1. a value: an :class:`AgentTools` as is, a mapping as an ad hoc bundle, an
       :class:`MCPServer` wrapped as an implicit single-server bundle; None → the built-in
       bundle;
    2. a built-in bundle name;
    3. the name of an installed distribution that ships a manifest: its single offered
       bundle (``AgentToolsBundleNameAmbiguous`` listing the names when several,
       ``AgentToolsNotFound`` when none) — never reinterpreted as a server name;
    4. ``dist/bundle``; then ``dist/server``, wrapped as an implicit single-server bundle
       (``toolset_type="MCPServer"``); ``DistributionNotInstalled`` naming the ``pip install``
       when ``dist`` is not installed, ``DistributionAgentToolsNotFound`` when it has neither;
    5. a bare server name declared by exactly one distribution, wrapped
       (``MCPServerNameAmbiguous`` when several), else ``AgentToolsNotFound``.

    Distribution names match after PEP 503 normalization; bundles whose marker is false here
    are not offered. Nothing but manifests is read.
    """
    if tools is None:
        return BUILTIN_BUNDLES[BUILTIN_BUNDLE]
    if isinstance(tools, AgentTools):
        return tools
    if isinstance(tools, MCPServer):
        return wrap_server(tools)
    if isinstance(tools, Mapping):
        return AgentTools.from_mapping(tools)
    if not isinstance(tools, str):
        raise errors.InvalidAgentToolsObject(reason=repr(tools))
    return _resolve_name(tools, search)


def wrap_server(server: MCPServer, location: InstalledDistribution | None = None) -> AgentTools:
    """A server as an implicit single-server bundle named after it."""
    spec: str | MCPServer = server
    if location is not None:
        spec = f"{location.name}/{server.name}"
    return AgentTools(
        name=server.name,
        mcp_servers=(spec,),
        description=server.description,
        location=location,
        toolset_type="MCPServer",
    )


def _resolve_name(name: str, search: SearchPath | None) -> AgentTools:
    if name in BUILTIN_BUNDLES:
        return BUILTIN_BUNDLES[name]
    if not name.strip():
        raise errors.AgentToolsNotFound(name=name, environment=_where(search))
    if "/" not in name:
        dist = try_get_distribution(name, search)
        # only distributions that ship a manifest claim their name: an unrelated installed
        # package does not hide a server of the same name
        if dist is not None and (dist.manifest is not None or dist.problem is not None):
            return _single_bundle(dist, search)
        owner = server_owner(name, search)
        if owner is None:
            raise errors.AgentToolsNotFound(name=name, environment=_where(search))
        return wrap_server(owner.server(name), owner)
    dist_name, _, item = name.partition("/")
    if not dist_name or not item or "/" in item:
        raise errors.AgentToolsNotFound(name=name, environment=_where(search))
    dist = get_distribution(dist_name, search)  # DistributionNotInstalled / problems raise
    offered = distribution_bundles(dist, search)
    # two bundles may share a name when their markers exclude each other: the offered one wins
    wanted = canonical_dist_name(item)
    found = next((b for b in offered if b.name == item), None) or next(
        (b for b in offered if canonical_dist_name(b.name) == wanted), None
    )
    if found is not None:
        return found
    # a bundle named explicitly whose marker is false here is an error, never silently
    # replaced by a server of the same name
    for bundle in distribution_bundles(dist, search, all_markers=True):
        if canonical_dist_name(bundle.name) == wanted:
            raise errors.AgentToolsNotForEnvironment(
                name=bundle.name,
                distribution=dist.display_name,
                environment=_where(search),
                marker=bundle.marker,
                requested=name,
            )
    if item in dist.server_names:
        return wrap_server(dist.server(item), dist)
    raise errors.DistributionAgentToolsNotFound(
        name=item, distribution=dist.display_name, requested=name
    )


def _single_bundle(dist: InstalledDistribution, search: SearchPath | None) -> AgentTools:
    dist.raise_problem()
    bundles = distribution_bundles(dist, search)
    if len(bundles) == 1:
        return bundles[0]
    if not bundles:
        raise errors.AgentToolsNotFound(
            name=dist.display_name, distribution=dist.name, environment=_where(search)
        )
    raise errors.AgentToolsBundleNameAmbiguous(
        distribution=dist.display_name, bundles=[b.qualified_name for b in bundles]
    )


def server_owner(name: str, search: SearchPath | None) -> InstalledDistribution | None:
    """The one installed distribution (without a problem) that declares the MCP server
    *name*, or None if none does. Raises ``MCPServerNameAmbiguous`` if several do."""
    owners = [d for d in find_distributions(search) if d.problem is None and name in d.server_names]
    if len(owners) > 1:
        qualified = [f"{d.name}/{name}" for d in owners]
        raise errors.MCPServerNameAmbiguous(name=name, names=qualified)
    return owners[0] if owners else None


def _where(search: SearchPath | None) -> str:
    """Where names were looked up, for messages (``the site-packages directory ...``)."""
    return (search or SearchPath.current()).describe()


# -- bundles of distributions ----------------------------------------------------------------
def distribution_bundles(
    dist: InstalledDistribution, search: SearchPath | None = None, *, all_markers: bool = False
) -> list[AgentTools]:
    """The bundles *dist* declares, in manifest order, as :class:`AgentTools` with qualified
    item names. Bundles whose marker is false for the environment are left out unless
    *all_markers*. A distribution with a problem has none."""
    manifest = dist.manifest
    if dist.problem is not None or manifest is None:
        return []
    marker_env = search.marker_environment if search is not None else None
    return [
        AgentTools(
            name=decl.name,
            mcp_servers=tuple(_qualify(dist.name, s) for s in decl.mcp_servers),
            skills=tuple(_qualify(dist.name, s) for s in decl.skills),
            description=decl.description,
            location=dist,
            marker=decl.marker or None,
            search=search,
        )
        for decl in manifest.declared_bundles(dist.display_name)
        if not decl.marker or all_markers or marker_holds(decl.marker, marker_env)
    ]


def marker_holds(marker: str, environment: Mapping[str, str] | None = None) -> bool:
    """Evaluate a PEP 508 marker for *environment* (None: this interpreter). An invalid
    marker, or one on a variable the environment lacks, never holds (the build hook rejects
    them; a hand-made manifest is not trusted)."""
    # packaging.markers: a sixth of `list`'s whole process; needed only where a marker is
    from packaging.markers import (
        InvalidMarker,
        Marker,
        UndefinedComparison,
        UndefinedEnvironmentName,
    )

    try:
        return Marker(marker).evaluate(dict(environment) if environment is not None else None)
    except (InvalidMarker, UndefinedComparison, UndefinedEnvironmentName):
        return False


def agent_tools_objects(
    pattern: str | None = None, include_builtin: bool = False, search: SearchPath | None = None
) -> list[AgentTools]:
    """Every bundle offered by the installed distributions (built-in ones first with
    *include_builtin*), optionally filtered by a shell-style *pattern* matched against the
    qualified name, the bundle name and the distribution name. Distributions with a problem
    contribute nothing (``find_distributions`` lists them)."""
    bundles: list[AgentTools] = list(DEFAULT_AGENT_TOOLS) if include_builtin else []
    for dist in find_distributions(search):
        bundles.extend(distribution_bundles(dist, search))
    if pattern is None:
        return bundles
    return [
        b
        for b in bundles
        if any(
            fnmatchcase(candidate, pattern)
            for candidate in (b.qualified_name, b.name, b.distribution or "")
            if candidate
        )
    ]


# -- helpers ---------------------------------------------------------------------------------
def _qualify(dist: str, item: str) -> str:
    owner, _, name = item.rpartition("/")
    return f"{canonical_dist_name(owner) if owner else dist}/{name}"


def _server_specs(bundle: str, specs: object) -> tuple[str | MCPServer, ...]:
    if isinstance(specs, (str, bytes, MCPServer, Mapping)) or not isinstance(specs, Sequence):
        raise errors.InvalidAgentToolsObject(reason=f'the MCP servers of "{bundle}" must be a list')
    result: list[str | MCPServer] = []
    for spec in specs:
        if isinstance(spec, (str, MCPServer)):
            if isinstance(spec, str) and not is_item_reference(spec):
                raise errors.InvalidAgentToolsObject(reason=f'"{spec}" is not an MCP server name')
            result.append(spec)
        elif isinstance(spec, Mapping) and isinstance(spec.get("name"), str):
            table = {k: v for k, v in spec.items() if k != "name"}
            result.append(MCPServer.from_declaration(spec["name"], table))
        else:
            raise errors.InvalidAgentToolsObject(
                reason=f'{spec!r} in the MCP servers of "{bundle}" is not a server name, an MCPServer '
                "or a declaration with a name"
            )
    return tuple(result)


def _skill_specs(bundle: str, specs: object) -> tuple[str | SkillSpec, ...]:
    if isinstance(specs, (str, bytes, os.PathLike, Mapping)) or not isinstance(specs, Sequence):
        raise errors.InvalidAgentToolsObject(reason=f'the skills of "{bundle}" must be a list')
    for spec in specs:
        if not isinstance(spec, (str, os.PathLike, Skill, Mapping, SkillSource)):
            raise errors.InvalidAgentToolsObject(
                reason=f'{spec!r} in the skills of "{bundle}" is not a skill specification'
            )
    return tuple(specs)


def _directory_or_name(spec: str | SkillSpec) -> str | SkillSpec:
    """In an ad hoc bundle, a string naming an existing skill directory is that directory (as
    for ``install_skills``), made absolute now; other name-shaped strings stay names."""
    if not isinstance(spec, str) or not is_name_shaped(spec):
        return spec
    path = os.path.abspath(os.path.expanduser(spec))
    return Path(path) if os.path.isfile(os.path.join(path, SKILL_FILE)) else spec


def skill_spec_name(spec: str | SkillSpec | SkillSource) -> str:
    """The name of a skill specification as a bundle lists it: a name as given, a value's
    name, a directory's ``SKILL.md`` name (else the directory's name)."""
    if isinstance(spec, str) and is_name_shaped(spec):
        return spec

    if isinstance(spec, Skill):
        return str(spec.name)
    if isinstance(spec, Mapping):
        return str(spec.get("name"))
    if isinstance(spec, SkillSource):
        return spec.name
    directory = Path(os.fspath(spec))
    if directory.name == SKILL_FILE:
        directory = directory.parent
    # the SKILL.md reader (PyYAML) is loaded for a skill directory of an ad hoc bundle only:
    # the bundles of installed distributions name their skills, and listing them reads none
    from agenttools_runtime.skills.skill_md import read_skill_md

    try:
        name = read_skill_md(directory / SKILL_FILE).frontmatter.get("name")
    except Exception:  # a name for display only; to_source reports the problem
        name = None
    return name if isinstance(name, str) and name else directory.name


# -- the built-in bundles (defined last: construction uses the helpers above) ------------------
BUILTIN_BUNDLES: dict[str, AgentTools] = {}
BUILTIN_BUNDLES[BUILTIN_BUNDLE] = AgentTools(
    name=BUILTIN_BUNDLE,
    mcp_servers=("agenttools",),
    skills=("agenttools",),
    description=(
        "agenttools itself: an MCP server that serves installed agent skills, and a skill that "
        "teaches an agent to find, deploy and remove agent tools bundles."
    ),
    location="builtin",
)
DEFAULT_AGENT_TOOLS: tuple[AgentTools, ...] = tuple(
    BUILTIN_BUNDLES[name] for name in sorted(BUILTIN_BUNDLES)
)
