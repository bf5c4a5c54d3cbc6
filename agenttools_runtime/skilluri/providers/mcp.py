"""Skills an MCP server serves: FastMCP skills-provider resources, and AgentPool's prompt-based
skills, read over one session (:mod:`agenttools_runtime.skilluri.mcp_client`)."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote

from agenttools_runtime.errors import (
    AgentToolsError,
    MCPSDKMissing,
    SkillNameCollision,
    SkillProviderFailed,
    SkillReferenceNotFound,
)
from agenttools_runtime.names import SKILL_FILE
from agenttools_runtime.skilluri.arguments import split_arguments
from agenttools_runtime.skilluri.parse import SCHEME, is_listable
from agenttools_runtime.skilluri.providers.base import (
    MANIFEST_REFERENCE,
    ProvidedSkill,
    SkillProvider,
    resource_uri,
)

if TYPE_CHECKING:
    from agenttools_runtime.skilluri.arguments import Convention
    from agenttools_runtime.skilluri.mcp_client import MCPSession

    _T = TypeVar("_T")


class MCPSkillProvider(SkillProvider):
    """Skills an MCP server serves as FastMCP skills-provider resources.

    *server* is a command line (``str``, split shell-style, or a list), an ``http(s)://`` URL,
    an :class:`agenttools_runtime.mcp.server.MCPServer` declaration, or anything
    ``mcp.Client`` accepts (``StdioServerParameters``, an in-process ``mcp`` server).
    Every ``skill://{path}/SKILL.md`` resource is a skill named after the last segment of its
    path; ``skill://{name}/…`` URIs reach it by that name or by its full path. Every prompt of
    the server whose name no such skill has is a skill too (AgentPool's prompt-based skills):
    resolving it renders the prompt with the arguments. One session is
    opened on first use and kept until :meth:`close` (the listing is cached). Needs ``mcp``.
    """

    kind = "mcp"

    def __init__(self, name: str, server: Any, *, timeout: float = 60.0) -> None:
        super().__init__(name)
        self.server = server
        self.timeout = timeout
        self._cache: list[ProvidedSkill] | None = None
        self._connection: MCPSession | None = None

    def skills(self) -> Sequence[ProvidedSkill]:
        if self._cache is None:
            self._cache = self._session(self._list)
        return self._cache

    def locate(self, path: Sequence[str]) -> tuple[ProvidedSkill, tuple[str, ...]] | None:
        by_path = {s.path: s for s in self.skills()}
        for cut in range(len(path), 0, -1):  # the longest skill path wins
            skill = by_path.get("/".join(path[:cut]))
            if skill is not None:
                return skill, tuple(path[cut:])
        return super().locate(path)

    def find(self, name: str) -> ProvidedSkill | None:
        matches = [s for s in self.skills() if s.name == name]
        if len(matches) > 1:
            warnings.warn(
                SkillNameCollision(
                    skill=name,
                    providers=[s.uri for s in matches],
                    chosen=matches[0].uri,
                    provider=self.name,
                ),
                stacklevel=3,
            )
        return matches[0] if matches else None

    def read(self, skill: ProvidedSkill, reference: Sequence[str]) -> bytes:
        rel = "/".join(reference)
        uri = resource_uri(skill.path, rel)
        data = self._session(lambda session: session.read(uri))
        if data is None:
            raise SkillReferenceNotFound(reference=rel, skill=skill.name)
        return data

    def manifest(self, skill: ProvidedSkill) -> str:
        return self.read(skill, (MANIFEST_REFERENCE,)).decode("utf-8")

    def _list(self, session: MCPSession) -> list[ProvidedSkill]:
        found: dict[str, ProvidedSkill] = {}
        for resource in session.resources():
            uri = str(resource.uri)
            if not (uri.startswith(f"{SCHEME}://") and uri.endswith(f"/{SKILL_FILE}")):
                continue
            path = unquote(uri[len(SCHEME) + 3 : -len(SKILL_FILE) - 1])
            segments = path.split("/")
            if not all(is_listable(s) for s in segments):
                continue
            description = resource.description or f"MCP skill: {segments[-1]}"
            found[path] = ProvidedSkill(
                self.name, segments[-1], description, path, None, f"mcp:{self.name} {uri}"
            )
        names = {s.name for s in found.values()}
        for prompt in session.prompts():
            if prompt.name in names or prompt.name in found or not is_listable(prompt.name):
                continue
            arguments = tuple(a.name for a in prompt.arguments or ())
            description = prompt.description or f"MCP prompt: {prompt.name}"
            found[prompt.name] = ProvidedSkill(
                self.name,
                prompt.name,
                description,
                prompt.name,
                None,
                f"mcp:{self.name} prompt {prompt.name}",
                arguments,
            )
        return sorted(found.values(), key=lambda s: (s.name, s.path))

    def render_prompt(
        self, skill: ProvidedSkill, arguments: str | Sequence[str] | None, convention: Convention
    ) -> bytes:
        """Get a prompt skill from the server with *arguments* mapped onto its declared
        arguments in order (split by *convention*; the last one takes the rest, a single one
        the whole string); its text messages joined by blank lines."""
        declared = skill.prompt or ()
        values: dict[str, str] = {}
        if arguments is not None and declared:
            raw, positional = split_arguments(arguments, convention)
            if len(declared) == 1:
                values[declared[0]] = raw
            else:
                for index, name in enumerate(declared):
                    if index < len(positional):
                        last = index == len(declared) - 1
                        values[name] = " ".join(positional[index:]) if last else positional[index]
        text, refusal = self._session(lambda session: session.prompt(skill.name, values))
        if text is None:
            reason = f"the prompt '{skill.name}' could not be rendered ({refusal})"
            raise SkillProviderFailed(provider=self.name, reason=reason)
        return text.encode("utf-8")

    def close(self) -> None:
        """End the session with the server (it is opened again when needed)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def _session(self, action: Callable[[MCPSession], _T]) -> _T:
        try:
            # the MCP SDK is optional, and the session's asyncio costs start-up ~50 ms: only
            # imported when a server is read
            from agenttools_runtime.skilluri.mcp_client import MCPSession
        except ImportError:  # the SDK or one of its own dependencies
            raise MCPSDKMissing(
                feature=f"Reading skills from the MCP server '{self.name}'"
            ) from None
        try:
            if self._connection is None:
                self._connection = MCPSession(self.server, self.timeout)
            return action(self._connection)
        except AgentToolsError:
            raise
        except Exception as exc:  # an unreachable or broken server is the provider's failure
            self.close()
            raise SkillProviderFailed(provider=self.name, reason=_describe(exc)) from exc


def _describe(exc: BaseException) -> str:
    inner = getattr(exc, "exceptions", None)
    while inner:
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return str(exc) or type(exc).__name__
