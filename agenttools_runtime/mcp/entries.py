"""From a server declaration to the entry each client expects in its config file.

Every per-client difference is data: :data:`STYLES` maps an entry style (the client table's
``entry_style``, refined per client by :data:`CLIENT_STYLES` where clients of one table style
write servers differently) to the fields of its local (stdio) entry and of its remote entry per
transport, in the order they are written. Sources: each client's documentation (``clients.json`` ``url``) and
``research/wolfram-agenttools.md`` §1.3.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from agenttools_runtime import errors
from agenttools_runtime.clients import Client, client_for_config_file
from agenttools_runtime.mcp.formats import Container
from agenttools_runtime.mcp.server import MCPServer


@dataclass(frozen=True, slots=True)
class Const:
    """A field whose value is always the same."""

    value: Any


@dataclass(frozen=True, slots=True)
class Field:
    """One key of an entry: its value comes from ``source`` (a :class:`Const`, or the name of
    a value of the launch: ``command``, ``args``, ``command_line``, ``env``, ``env_vars``,
    ``url``, ``headers``, ``header_vars``, ``request_options``, ``name``, ``description``); ``optional`` fields are left out when
    empty."""

    key: str
    source: str | Const
    optional: bool = False


@dataclass(frozen=True, slots=True)
class EntryStyle:
    """How one family of clients writes a server: the fields of a local (stdio) entry, and
    per remote transport (``http``: streamable HTTP, ``sse``) the fields of a remote one. A
    transport missing from ``remote`` is not supported by these clients."""

    local: tuple[Field, ...]
    remote: Mapping[str, tuple[Field, ...]] = field(default_factory=dict)
    list_key: str | None = None  # entries are list items matched by this field


def _typed(
    fields: tuple[Field, ...], key: str = "type", **types: str
) -> dict[str, tuple[Field, ...]]:
    """One remote form per transport, differing only in the *key* field's value."""
    return {transport: (Field(key, Const(value)), *fields) for transport, value in types.items()}


_HEADERS = Field("headers", "headers", True)
_GENERIC_LOCAL = (
    Field("type", Const("stdio")),
    Field("command", "command"),
    Field("args", "args"),
    Field("env", "env"),
)
_GENERIC_REMOTE = _typed((Field("url", "url"), _HEADERS), http="http", sse="sse")
_PLAIN_LOCAL = (Field("command", "command"), Field("args", "args"), Field("env", "env"))
# Cline (and Kiro, which reads Cline's entries): every entry enabled, nothing auto-approved
_CLINE_FLAGS = (Field("disabled", Const(False)), Field("autoApprove", Const([])))

STYLES: dict[str, EntryStyle] = {
    # Claude Code, Cursor, Amazon Q, Junie, Kimi, LM Studio, Augment (CLI)
    "generic": EntryStyle(_GENERIC_LOCAL, _GENERIC_REMOTE),
    # Claude Desktop's file holds local servers only (remote ones are added in its UI)
    "stdio-only": EntryStyle(_GENERIC_LOCAL),
    # Gemini CLI, Qwen Code: streamable HTTP is "httpUrl", SSE is "url"; no "type" key (a
    # "type" makes both reject the whole settings file — measured with the real clients)
    "gemini": EntryStyle(
        _PLAIN_LOCAL,
        {"http": (Field("httpUrl", "url"), _HEADERS), "sse": (Field("url", "url"), _HEADERS)},
    ),
    # Windsurf, Antigravity: remote servers by "serverUrl"
    "windsurf": EntryStyle(
        _PLAIN_LOCAL,
        {t: (Field("serverUrl", "url"), _HEADERS) for t in ("http", "sse")},
    ),
    "vscode": EntryStyle(_GENERIC_LOCAL, _GENERIC_REMOTE),
    "zed": EntryStyle(_PLAIN_LOCAL, {t: (Field("url", "url"), _HEADERS) for t in ("http", "sse")}),
    "cline": EntryStyle(
        (*_GENERIC_LOCAL, *_CLINE_FLAGS),
        _typed((Field("url", "url"), _HEADERS, *_CLINE_FLAGS), http="streamableHttp", sse="sse"),
    ),
    # Kiro: Cline's local entry; remote servers by "url" alone (its docs show no "type", and
    # its CLI reads "type" as stdio/http only, so Cline's "streamableHttp" would be refused)
    "kiro": EntryStyle(
        (*_GENERIC_LOCAL, *_CLINE_FLAGS),
        {t: (Field("url", "url"), _HEADERS, *_CLINE_FLAGS) for t in ("http", "sse")},
    ),
    "copilot-cli": EntryStyle(
        (
            Field("type", Const("local")),
            Field("command", "command"),
            Field("args", "args"),
            Field("env", "env"),
            Field("tools", Const(["*"])),
        ),
        _typed(
            (Field("url", "url"), _HEADERS, Field("tools", Const(["*"]))), http="http", sse="sse"
        ),
    ),
    "opencode": EntryStyle(
        (
            Field("type", Const("local")),
            Field("command", "command_line"),
            Field("enabled", Const(True)),
            Field("environment", "env", True),
        ),
        _typed(
            (Field("url", "url"), Field("enabled", Const(True)), _HEADERS),
            http="remote",
            sse="remote",
        ),
    ),
    "augment-ide": EntryStyle(
        (
            Field("name", "name"),
            Field("type", Const("stdio")),
            Field("command", "command"),
            Field("args", "args", True),
            Field("env", "env", True),
        ),
        {
            t: (Field("name", "name"), Field("type", Const(t)), Field("url", "url"), _HEADERS)
            for t in ("http", "sse")
        },
        list_key="name",
    ),
    # Codex: streamable HTTP only
    "codex": EntryStyle(
        (
            Field("command", "command"),
            Field("args", "args"),
            Field("env", "env", True),
            Field("env_vars", "env_vars", True),
        ),
        {
            "http": (
                Field("url", "url"),
                Field("http_headers", "headers", True),
                Field("env_http_headers", "header_vars", True),
            )
        },
    ),
    # Goose ignores extensions without "name"
    "goose": EntryStyle(
        (
            Field("name", "name"),
            Field("cmd", "command"),
            Field("args", "args"),
            Field("enabled", Const(True)),
            Field("envs", "env"),
            Field("type", Const("stdio")),
            Field("timeout", Const(300)),
            Field("description", "description"),
        ),
        {
            transport: (
                Field("name", "name"),
                Field("type", Const(goose_type)),
                Field("uri", "url"),
                Field("enabled", Const(True)),
                Field("envs", Const({})),
                _HEADERS,
                Field("timeout", Const(300)),
                Field("description", "description"),
            )
            for transport, goose_type in (("http", "streamable_http"), ("sse", "sse"))
        },
    ),
    "continue": EntryStyle(
        (
            Field("name", "name"),
            Field("command", "command"),
            Field("args", "args", True),
            Field("env", "env", True),
        ),
        {
            transport: (
                Field("name", "name"),
                Field("type", Const(continue_type)),
                Field("url", "url"),
                Field("requestOptions", "request_options", True),
            )
            for transport, continue_type in (("http", "streamable-http"), ("sse", "sse"))
        },
        list_key="name",
    ),
}

# Clients whose entries differ from the rest of their table style.
CLIENT_STYLES: dict[str, str] = {
    "claude-desktop": "stdio-only",
    "gemini-cli": "gemini",
    "qwen-code": "gemini",
    "windsurf": "windsurf",
    "antigravity": "windsurf",
    "kiro": "kiro",
}

# A client reading its entries from another place in some files: (style, file name) -> path.
LEGACY_CONTAINERS: dict[tuple[str, str], tuple[str, ...]] = {
    ("vscode", "settings.json"): ("mcp", "servers"),  # VS Code before mcp.json
}

# Top-level keys a client requires in the file (added when missing, never changed), by
# whether it is a project's file (Continue: a block file of its own).
REQUIRED_TOP_LEVEL: dict[str, Callable[[bool], dict[str, Any]]] = {
    "continue": lambda block_file: {
        "name": "agenttools" if block_file else "Local Config",
        "version": "1.0.0",
        "schema": "v1",
    },
}


def container_for(client: Client, config_file: Path | None = None) -> Container:
    """Where *client*'s entries are inside *config_file* (its table container, or a legacy
    place chosen by the file's name)."""
    path = client.container
    if config_file is not None:
        path = LEGACY_CONTAINERS.get((client.entry_style, config_file.name), path)
    return Container(path, STYLES[client.entry_style].list_key)


def is_project_file(config_file: Path) -> bool:
    """Whether *config_file* is a client's project config file (shared: committed and read
    by the team)."""
    found = client_for_config_file(config_file)
    return found is not None and found[1] is not None


def required_top_level(client: Client, config_file: Path) -> dict[str, Any]:
    """Top-level keys *client* needs in *config_file* (Continue: ``name``/``version``/
    ``schema``, without which it ignores the file)."""
    make = REQUIRED_TOP_LEVEL.get(client.entry_style)
    return {} if make is None else make(is_project_file(config_file))


def build_entry(
    client: Client, server: MCPServer, key: str | None = None, platform: str | None = None
) -> dict[str, Any]:
    """The entry for *server* under *key* (default ``server.key``) in *client*'s shape.

    ``module``/``script`` servers get the absolute interpreter / console-script path of their
    environment (*platform* picks the ``.exe`` suffix; default this machine). Raises
    ``UnsupportedTransport`` when the client has no form for a remote server's transport.
    """
    key = server.key if key is None else key
    style = STYLES[CLIENT_STYLES.get(client.id, client.entry_style)]
    if server.is_remote:
        fields = style.remote.get(server.transport)
        if fields is None:
            raise errors.UnsupportedTransport(
                server=server.name,
                transport=server.transport,
                client_name=client.display_name,
                client=client.id,
            )
        values = _remote_values(server, key)
    else:
        fields = style.local
        values = _local_values(server, key, platform)
    entry: dict[str, Any] = {}
    for f in fields:
        value = f.source.value if isinstance(f.source, Const) else values[f.source]
        if f.optional and not value:
            continue
        entry[f.key] = _copy(value)
    return entry


def _local_values(server: MCPServer, key: str, platform: str | None) -> dict[str, Any]:
    command, args = server.launch(platform)
    return {
        "name": key,
        "command": command,
        "args": list(args),
        "command_line": [command, *args],
        "env": dict(server.env),
        "env_vars": list(server.env_vars),
        "description": server.description or "",
    }


def _remote_values(server: MCPServer, key: str) -> dict[str, Any]:
    headers = dict(server.headers)
    return {
        "name": key,
        "url": server.url,
        "headers": headers,
        "header_vars": dict(server.header_vars),
        "request_options": {"headers": headers} if headers else {},
        "description": server.description or "",
    }


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    if isinstance(value, PurePath):
        return str(value)
    return value
