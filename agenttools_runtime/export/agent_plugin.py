"""Agent Plugins (agentplugins/agent-plugins-spec, versions 1.0.0 and 1.1.0): a root
``plugin.json``, the skills under ``skills/``, the servers in ``mcp.json``.

The format has no user-configurable settings and no credential references ("Plugins MUST NOT
embed credentials or other secrets in env / headers"): a setting the user gives is left out
with an ``ExportSettingNotExported`` warning. Remote servers must use HTTPS unless they are
on a loopback host (§7.2.1).
"""

from __future__ import annotations

import ipaddress
import warnings
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from agenttools_runtime import errors
from agenttools_runtime.export.common import (
    ExportedServer,
    exported_servers,
    plugin_fields,
    skill_files,
)
from agenttools_runtime.export.output import Tree, tree_of
from agenttools_runtime.export.source import Package
from agenttools_runtime.export.validation import check

FORMAT = "agent-plugin"
TITLE = "Agent Plugins"
SPEC_VERSIONS = ("1.0.0", "1.1.0")
DEFAULT_SPEC_VERSION = "1.0.0"  # the published release; 1.1.0 is a draft
TRANSPORTS = {"http": "streamable-http", "sse": "sse"}


def render(package: Package, *, name: str | None = None, spec_version: str | None = None) -> Tree:
    """The plugin of *package* for Agent Plugins *spec_version* (default 1.0.0). Raises
    ``ExportNameInvalid``, ``ExportUnsupported``, ``ExportSchemaViolation``."""
    version = spec_version or DEFAULT_SPEC_VERSION
    if version not in SPEC_VERSIONS:
        raise ValueError(f"unknown Agent Plugins version {version!r}")
    plugin: dict[str, Any] = {
        "$schema": f"https://agent-plugins.org/schemas/{version}/plugin.schema.json",
        **plugin_fields(package, name, FORMAT, TITLE),
    }
    check(plugin, f"agent-plugins-{version}-plugin.schema.json", f"{TITLE} {version}")
    documents: dict[str, Any] = {"plugin.json": plugin}
    servers = exported_servers(package, TITLE)
    if servers:
        mcp = {
            "$schema": f"https://agent-plugins.org/schemas/{version}/mcp.schema.json",
            **servers_document(servers),
        }
        check(mcp, f"agent-plugins-{version}-mcp.schema.json", f"{TITLE} {version}")
        documents["mcp.json"] = mcp
    return tree_of(documents, skill_files(package))


def servers_document(servers: Sequence[ExportedServer]) -> dict[str, Any]:
    """``mcpServers`` of ``mcp.json``; a setting the user gives is left out with an
    ``ExportSettingNotExported`` warning (the format has nowhere to ask for it)."""
    return {"mcpServers": {s.key: _server(s) for s in servers}}


def _server(exported: ExportedServer) -> dict[str, Any]:
    key, server = exported.key, exported.server
    for setting in exported.settings:
        warnings.warn(
            errors.ExportSettingNotExported(
                format_name=TITLE,
                name=setting.name,
                server=key,
                reason="it has no user-configurable settings",
            ),
            stacklevel=4,
        )
    if server.url is not None:
        _check_url(key, server.url)
        entry: dict[str, Any] = {"type": TRANSPORTS[server.transport], "url": server.url}
        if server.headers:
            entry["headers"] = dict(server.headers)
        return entry
    command, args = server.launch()
    entry = {"type": "stdio", "command": command}
    if args:
        entry["args"] = list(args)
    if server.env:
        entry["env"] = dict(server.env)
    return entry


def _check_url(key: str, url: str) -> None:
    """§7.2.1: an absolute http(s) URL without user information or a fragment, HTTPS unless
    the host is ``localhost`` or a loopback address."""
    parts = urlsplit(url)
    reason = None
    if parts.username or parts.password or "@" in parts.netloc:
        reason = "its URL holds user information, which Agent Plugins forbids"
    elif parts.fragment:
        reason = "its URL has a fragment, which Agent Plugins forbids"
    elif parts.scheme == "http" and not _loopback(parts.hostname or ""):
        reason = "Agent Plugins requires HTTPS for a server that is not on a loopback host"
    if reason is not None:
        raise errors.ExportUnsupported(server=key, format_name=TITLE, reason=reason)


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
