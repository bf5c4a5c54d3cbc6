"""One MCP client session kept open on an event loop of its own thread, so synchronous callers
(the ``skill://`` MCP provider) list resources and prompts, read resources and render prompts
over it; and what a server declaration becomes for ``mcp.Client``. Needs the ``mcp`` SDK.

A listing and the reads after it cost one server start-up, and callers work whether or not
they run inside an event loop themselves.
"""

from __future__ import annotations

import asyncio
import base64
import concurrent.futures
import os
import shlex
import sys
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TextIO, TypeVar

from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    Prompt,
    Resource,
    TextContent,
    TextResourceContents,
)

from agenttools_runtime.mcp.server import MCPServer

_T = TypeVar("_T")


class MCPSession:
    """A session with one MCP server. *server* is a command line (``str``, split
    shell-style, or a list), an ``http(s)://`` URL, an :class:`MCPServer` declaration, or
    anything ``mcp.Client`` accepts. Every call raises ``TimeoutError`` after *timeout*
    seconds, and whatever the SDK raises when the session fails."""

    def __init__(self, server: Any, timeout: float) -> None:
        target = client_target(server)
        if isinstance(target, StdioServerParameters):
            target = stdio_client(target, errlog=_server_errlog())
        self.timeout = timeout
        self._client: Client | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[Any] | None = None
        self._error: BaseException | None = None
        self._ready = threading.Event()
        self._thread = threading.Thread(
            target=lambda: asyncio.run(self._main(target)), name="agenttools-mcp", daemon=True
        )
        self._thread.start()
        if not self._ready.wait(timeout):
            self._abandon()
            raise TimeoutError(f"no answer within {timeout:g} s")
        if self._error is not None:
            raise self._error

    def resources(self) -> list[Resource]:
        """Every resource the server lists."""
        return self._call(lambda client: _paginate(client.list_resources, "resources"))

    def prompts(self) -> list[Prompt]:
        """Every prompt the server lists; none from a server without prompts."""
        return self._call(_list_prompts)

    def read(self, uri: str) -> bytes | None:
        """The bytes of one resource; None when the server refuses it (unknown) or answers
        with other than exactly one content."""
        return self._call(lambda client: _read_resource(client, uri))

    def prompt(self, name: str, arguments: dict[str, str]) -> tuple[str | None, str]:
        """``(the prompt's text messages joined by blank lines, "")``, or ``(None, the
        server's refusal)``."""
        return self._call(lambda client: _get_prompt(client, name, arguments))

    def close(self) -> None:
        if self._loop is not None and self._stop is not None and self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._stop.set)
            self._thread.join(self.timeout)

    async def _main(self, target: Any) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._stop = asyncio.Event()
        try:
            async with Client(target, read_timeout_seconds=self.timeout) as client:
                self._client = client
                self._ready.set()
                await self._stop.wait()
        except BaseException as exc:  # reported to the caller waiting in __init__ or _call
            self._error = exc
        finally:
            self._client = None
            self._ready.set()

    def _call(self, action: Callable[[Client], Coroutine[Any, Any, _T]]) -> _T:
        if self._client is None or self._loop is None:
            raise self._error or RuntimeError("the MCP session has ended")
        future = asyncio.run_coroutine_threadsafe(action(self._client), self._loop)
        try:
            return future.result(self.timeout)
        except concurrent.futures.TimeoutError:  # not TimeoutError on Python 3.10
            future.cancel()
            raise TimeoutError(f"no answer within {self.timeout:g} s") from None

    def _abandon(self) -> None:
        """Stop a server that does not start now, not when the SDK's own time-out ends it."""
        if self._loop is not None and self._task is not None:
            self._loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join(self.timeout)


def _server_errlog() -> TextIO:
    """Where a stdio server's stderr goes: this process's, as a file. (The SDK's default is
    the ``sys.stderr`` of when it was imported, which a notebook or a test's capture may have
    replaced by a stream with no file descriptor to give a child process.)"""
    for stream in (sys.stderr, sys.__stderr__):
        try:
            if stream is not None and stream.fileno() >= 0:
                return stream
        except (AttributeError, OSError, ValueError):
            continue
    return open(os.devnull, "w")  # (the child's stderr, for its lifetime)


def client_target(server: Any) -> Any:
    """What ``mcp.Client`` connects to for *server* (see :class:`MCPSession`); anything else
    is passed through as the SDK's own. Raises ``ValueError`` for an empty command."""
    if isinstance(server, MCPServer):
        if server.url is not None:
            return server.url
        command, args = server.launch()
        env = {**os.environ, **server.env} if server.env else None
        return StdioServerParameters(command=command, args=args, env=env)
    if isinstance(server, str):
        if server.startswith(("http://", "https://")):
            return server
        server = split_command(server)
    if isinstance(server, (list, tuple)):
        if not server:
            raise ValueError("an empty MCP server command")
        return StdioServerParameters(command=str(server[0]), args=[str(a) for a in server[1:]])
    return server


def split_command(command: str, posix: bool = os.name != "nt") -> list[str]:
    """A command line's words, split shell-style. On Windows (*posix* False) a backslash is a
    path separator, not an escape, and double quotes only group: ``"C:\\Program Files\\x.exe"
    --y`` is ``['C:\\Program Files\\x.exe', '--y']``. Raises ``ValueError`` for an unbalanced
    quote."""
    if posix:
        return shlex.split(command)
    lexer = shlex.shlex(command, posix=False)
    lexer.whitespace_split = True
    lexer.commenters = ""
    return [w[1:-1] if len(w) > 1 and w[0] == w[-1] == '"' else w for w in lexer]


async def _paginate(method: Callable[..., Awaitable[Any]], field: str) -> list[Any]:
    """Every item of a paginated MCP listing (``list_resources``, ``list_prompts``)."""
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(1000):  # a server paginating forever cannot hang us
        result = await method(cursor=cursor)
        items.extend(getattr(result, field))
        cursor = result.next_cursor
        if not cursor:
            break
    return items


async def _list_prompts(client: Client) -> list[Prompt]:
    try:
        return await _paginate(client.list_prompts, "prompts")
    except Exception:  # a server without prompts (or a broken listing): skills only
        return []


def _refusal(exc: Exception) -> str | None:
    """The server's message when *exc* is its answer to a request (an unknown resource, a
    prompt's missing argument); None when the session failed (closed, timed out): the
    server's failure, not a missing file."""
    if isinstance(exc, MCPError) and exc.error.code not in (CONNECTION_CLOSED, REQUEST_TIMEOUT):
        return exc.error.message
    return None


async def _get_prompt(
    client: Client, name: str, arguments: dict[str, str]
) -> tuple[str | None, str]:
    try:
        result = await client.get_prompt(name, arguments)
    except Exception as exc:
        refusal = _refusal(exc)
        if refusal is None:
            raise
        return None, refusal
    texts = [m.content.text for m in result.messages if isinstance(m.content, TextContent)]
    return "\n\n".join(texts), ""


async def _read_resource(client: Client, uri: str) -> bytes | None:
    try:
        result = await client.read_resource(uri)
    except Exception as exc:
        if _refusal(exc) is None:
            raise
        return None
    if len(result.contents) != 1:
        return None
    content = result.contents[0]
    if isinstance(content, TextResourceContents):
        return content.text.encode("utf-8")
    return base64.b64decode(content.blob)
