"""``agenttools serve``: every installed skill over MCP (stdio), for clients without a skills
directory (Claude Desktop, LM Studio, Amazon Q …) and for any FastMCP skills client.

Wire formats (see ``docs/skill-uri.md``):

- FastMCP's skills provider: every file of a skill is a listed resource
  ``skill://{path}/{file}`` (mime type from the extension, ``.md`` → ``text/markdown``;
  ``SKILL.md`` carries the frontmatter description), plus ``skill://{path}/_manifest``
  (``application/json``: ``{"skill", "files": [{"path", "size", "hash"}]}``, indent 2).
  Text is served byte-exact (no newline translation, no BOM stripping): the digests are over
  the raw bytes, as FastMCP's ``Client.read_skill`` verifies them.
- The MCP Skills extension (SEP-2640, ``io.modelcontextprotocol/skills``): ``skills/list``
  and ``skills/get`` on modern protocol versions; an unknown URI is error -32602.
- One prompt per skill, named like its path, with one optional ``arguments`` argument:
  SKILL.md with ``$1`` … ``$ARGUMENTS`` substituted (clients that offer prompts but never
  read resources by themselves, Claude Desktop among them).

``{path}`` is the skill name. When several sources have different skills of one name, each is
served as ``{source}/{name}`` instead and a ``ServedSkillsNamespaced`` warning says so; the
same skill found twice (identical files, e.g. a deployed copy) is served once.

The ``mcp`` package is imported only when a server is built.
"""

from __future__ import annotations

import json
import math
import mimetypes
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, Literal

from agenttools_runtime import __version__
from agenttools_runtime.discovery import SearchPath
from agenttools_runtime.errors import (
    AgentToolsError,
    InvalidSkillFrontmatter,
    MCPSDKMissing,
    ServedSkillsNamespaced,
    SkillNotServed,
)
from agenttools_runtime.names import SKILL_FILE, is_skill_description, is_skill_name
from agenttools_runtime.skills.skill_md import parse_skill_md
from agenttools_runtime.skilluri.arguments import substitute_skill_md
from agenttools_runtime.skilluri.providers.base import (
    MANIFEST_REFERENCE,
    ProvidedSkill,
    digest,
    file_listing_json,
    resource_uri,
)
from agenttools_runtime.skilluri.providers.builtin import BUILTIN_PROVIDER, BuiltinSkillProvider
from agenttools_runtime.skilluri.providers.directory import DirectorySkillProvider
from agenttools_runtime.skilluri.providers.distribution import distribution_providers
from agenttools_runtime.skilluri.providers.local import LocalSkillProvider

SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
SERVER_NAME = "agenttools"
# SEP-2640 / FastMCP limits per skill.
MAX_FILES = 512
MAX_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class ServedSkill:
    """A skill as served: a snapshot of its files (so every digest matches what is read).

    ``path`` is the URI prefix (the name, or ``{origin}/{name}`` when namespaced); ``origin``
    the provider it came from (a distribution name or ``local``).
    """

    path: str
    name: str
    origin: str
    description: str
    frontmatter: Mapping[str, Any]
    files: Mapping[str, bytes] = field(repr=False)
    directory: Path | None = None

    def file_uri(self, relpath: str) -> str:
        return resource_uri(self.path, relpath)

    @property
    def uri(self) -> str:
        """The ``SKILL.md`` resource URI (the skill's SEP-2640 identity)."""
        return self.file_uri(SKILL_FILE)

    @property
    def manifest_uri(self) -> str:
        return self.file_uri(MANIFEST_REFERENCE)

    def entry(self) -> dict[str, Any]:
        """The SEP-2640 skill entry: every file with its digest and size."""
        return {
            "uri": self.uri,
            "frontmatter": dict(self.frontmatter),
            "resources": [
                {"uri": self.file_uri(rel), "digest": digest(data), "size": len(data)}
                for rel, data in sorted(self.files.items())
            ],
        }


def mime_type(relpath: str) -> str:
    if relpath.endswith(".md"):
        return "text/markdown"
    return mimetypes.guess_type(relpath)[0] or "application/octet-stream"


def collect_skills(
    search: SearchPath | None = None,
    *,
    include_local: bool = False,
    project_dir: Path | str | None = None,
) -> list[ServedSkill]:
    """Every installed distribution's skills and agenttools' built-in ones (then, with
    *include_local*, the client skill directories), sorted by URI.

    A skill that FastMCP's client would reject (name not the Agent Skills form or not equal
    to its frontmatter ``name``, missing description, non-JSON frontmatter, more than 512
    files or 16 MiB, a link leaving the folder) is skipped with a ``SkillNotServed`` warning.
    Different skills of one name are namespaced (``ServedSkillsNamespaced`` warning).
    """
    providers: list[DirectorySkillProvider] = list(distribution_providers(search))
    if not any(p.name == BUILTIN_PROVIDER for p in providers):
        providers.append(BuiltinSkillProvider())
    if include_local:
        providers.append(LocalSkillProvider(project_dir=project_dir))
    candidates: dict[str, list[ServedSkill]] = {}
    for provider in providers:
        for provided in provider.skills():
            try:
                served = _snapshot(provider, provided)
            except _NotServable as exc:
                location = f"{provider.name}:{provided.directory}"
                warnings.warn(
                    SkillNotServed(skill=provided.name, location=location, reason=str(exc)),
                    stacklevel=2,
                )
                continue
            candidates.setdefault(served.name, []).append(served)
    result: list[ServedSkill] = []
    for name, found in sorted(candidates.items()):
        distinct: list[ServedSkill] = []
        for skill in found:
            if not any(skill.files == other.files for other in distinct):
                distinct.append(skill)
        if len(distinct) == 1:
            result.append(distinct[0])
            continue
        namespaced = [replace(s, path=f"{s.origin}/{name}") for s in distinct]
        warnings.warn(
            ServedSkillsNamespaced(
                skill=name,
                origins=[s.origin for s in distinct],
                uris=[s.uri for s in namespaced],
            ),
            stacklevel=2,
        )
        result.extend(namespaced)
    return sorted(result, key=lambda s: s.uri)


class _NotServable(Exception):
    """Why FastMCP's client would reject a skill (the reason of ``SkillNotServed``)."""


def _snapshot(provider: DirectorySkillProvider, skill: ProvidedSkill) -> ServedSkill:
    """*skill* as served, its files read once. Raises :class:`_NotServable`."""
    name = skill.name
    try:
        listed = provider.files(skill)
        if len(listed) > MAX_FILES:
            raise _NotServable(f"it has more than {MAX_FILES} files")
        files = provider.contents(skill, listed)
    except (AgentToolsError, OSError) as exc:
        raise _NotServable(str(exc)) from None
    if sum(len(data) for data in files.values()) > MAX_BYTES:
        raise _NotServable("it is larger than 16 MiB")
    if SKILL_FILE not in files:
        raise _NotServable(f"it has no {SKILL_FILE}")
    try:
        frontmatter = wire_frontmatter(files[SKILL_FILE])
    except ValueError as exc:
        raise _NotServable(
            f"its {SKILL_FILE} frontmatter cannot be read as FastMCP's client reads it: {exc}"
        ) from None
    if not is_skill_name(name) or frontmatter.get("name") != name:
        raise _NotServable(
            f"its {SKILL_FILE} frontmatter name must be '{name}', a valid skill name"
        )
    description = frontmatter.get("description")
    if not is_skill_description(description):
        raise _NotServable("its frontmatter has no description of 1 to 1024 characters")
    return ServedSkill(name, name, provider.name, description, frontmatter, files, skill.directory)


def wire_frontmatter(skill_md: bytes) -> dict[str, Any]:
    """SKILL.md's frontmatter as FastMCP's client reads it (the SEP-2640 entry must hold the
    same mapping, or ``read_skill`` refuses the skill): the one reader's
    (:func:`~agenttools_runtime.skills.skill_md.parse_skill_md`, whose rules are that
    client's), holding JSON values only.

    Raises ``ValueError`` (the reason) for what that client refuses: not UTF-8, no
    frontmatter block, invalid YAML, YAML aliases, non-string or duplicate keys, values that
    are not JSON (dates: quote them).
    """
    try:
        text = skill_md.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("SKILL.md is not UTF-8") from None
    try:
        value = parse_skill_md(text).frontmatter
    except InvalidSkillFrontmatter as exc:
        raise ValueError(exc.data["reason"]) from None
    if not _is_json(value):
        raise ValueError("it holds values that are not JSON (dates, ...); quote them")
    return value


def _is_json(value: Any) -> bool:
    if value is None or type(value) in (str, bool, int):
        return True
    if type(value) is float:
        return math.isfinite(value)
    if type(value) is list:
        return all(_is_json(v) for v in value)
    if type(value) is dict:
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    return False


# -- the MCP server --------------------------------------------------------------------------


def build_server(skills: Sequence[ServedSkill], name: str = SERVER_NAME) -> Any:
    """An ``mcp.server.MCPServer`` serving *skills* (resources plus the Skills extension).

    Raises ``MCPSDKMissing`` when the ``mcp`` package (``agenttools[serve]``) is absent.
    """
    MCPServer, SkillFile, SkillsExtension = _mcp_classes()
    server = MCPServer(
        name,
        version=__version__,
        instructions=(
            "Agent Skills of the installed Python distributions. Read a skill's "
            "skill://{name}/SKILL.md resource, then the files it refers to."
        ),
        extensions=[SkillsExtension(skills)],
        log_level="WARNING",
    )
    for skill in skills:
        for rel, data in sorted(skill.files.items()):
            server.add_resource(
                SkillFile(
                    uri=skill.file_uri(rel),
                    name=f"{skill.path}/{rel}",
                    description=skill.description if rel == SKILL_FILE else None,
                    mime_type=mime_type(rel),
                    data=data,
                )
            )
        server.prompt(name=skill.path, description=skill.description)(_prompt(skill))
        server.add_resource(
            SkillFile(
                uri=skill.manifest_uri,
                name=f"{skill.path}/{MANIFEST_REFERENCE}",
                description=f"File listing for {skill.name}",
                mime_type="application/json",
                data=file_listing_json(skill.name, skill.files).encode("utf-8"),
            )
        )
    return server


def _prompt(skill: ServedSkill) -> Callable[[str | None], str]:
    """The skill as an MCP prompt (for clients that offer prompts but never read resources on
    their own): SKILL.md with the seed-convention arguments substituted in its body."""

    def render(arguments: str | None = None) -> str:
        return substitute_skill_md(skill.files[SKILL_FILE], arguments).decode("utf-8")

    return render


def serve(
    search: SearchPath | None = None,
    *,
    include_local: bool = False,
    project_dir: Path | str | None = None,
) -> None:
    """Collect the skills and serve them over stdio until the client disconnects."""
    skills = collect_skills(search, include_local=include_local, project_dir=project_dir)
    build_server(skills).run()


@cache
def _mcp_classes() -> tuple[Any, Any, Any]:
    """``(MCPServer, SkillFile, SkillsExtension)``: the ``mcp``-based classes, defined on first
    use (``mcp`` is an optional extra)."""
    try:
        import mcp_types
        from mcp.server.mcpserver import Extension, MCPServer, MethodBinding
        from mcp.server.mcpserver.resources.base import Resource
        from mcp.shared.exceptions import MCPError
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS
    except ImportError:
        raise MCPSDKMissing(feature="agenttools serve") from None

    class SkillFile(Resource):
        """One file, served from its snapshot: text when textual and UTF-8, else a blob."""

        data: bytes

        async def read(self) -> str | bytes:
            textual = self.mime_type.startswith("text/") or self.mime_type == "application/json"
            if textual:
                try:
                    return self.data.decode("utf-8")  # not utf-8-sig: a BOM stays
                except UnicodeDecodeError:
                    pass
            return self.data

    class ListSkillsParams(mcp_types.PaginatedRequestParams):
        pass

    class GetSkillParams(mcp_types.RequestParams):
        uri: str

    class ListSkillsResult(mcp_types.PaginatedResult, mcp_types.CacheableResult):
        skills: list[dict[str, Any]]
        result_type: Literal["complete"] = "complete"

    class GetSkillResult(mcp_types.CacheableResult):
        skill: dict[str, Any]
        result_type: Literal["complete"] = "complete"

    versions = frozenset(MODERN_PROTOCOL_VERSIONS)

    class SkillsExtension(Extension):
        identifier = SKILLS_EXTENSION

        def __init__(self, skills: Sequence[ServedSkill]) -> None:
            # JSON round trip: entries are plain JSON, whatever YAML produced
            self._entries = {s.uri: json.loads(json.dumps(s.entry())) for s in skills}

        def methods(self) -> Sequence[Any]:
            return (
                MethodBinding("skills/list", ListSkillsParams, self._list, versions),
                MethodBinding("skills/get", GetSkillParams, self._get, versions),
            )

        async def _list(self, ctx: Any, params: Any) -> Any:
            return ListSkillsResult(skills=[self._entries[u] for u in sorted(self._entries)])

        async def _get(self, ctx: Any, params: Any) -> Any:
            entry = self._entries.get(params.uri)
            if entry is None:
                raise MCPError(
                    code=mcp_types.INVALID_PARAMS, message=f"Unknown skill URI: {params.uri}"
                )
            return GetSkillResult(skill=entry)

    return MCPServer, SkillFile, SkillsExtension
