"""Codex plugins: ``.codex-plugin/plugin.json`` naming ``./skills/`` and ``./.mcp.json``, whose
entries have the keys of Codex's own ``[mcp_servers]`` tables (Codex CLI 0.171 reads them so).

Codex has no prompt for a plugin's settings: a variable the user gives is passed through from
the environment Codex runs in (``env_vars``; a header, ``env_http_headers``). Codex has no SSE
transport (``UnsupportedTransport``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenttools_runtime.clients import get_client
from agenttools_runtime.export.common import (
    ExportedServer,
    exported_servers,
    plugin_fields,
    skill_files,
)
from agenttools_runtime.export.output import Tree, tree_of
from agenttools_runtime.export.source import Package
from agenttools_runtime.export.validation import check
from agenttools_runtime.mcp.entries import build_entry

FORMAT = "codex-plugin"
TITLE = "Codex plugin"
MANIFEST = ".codex-plugin/plugin.json"
MCP = ".mcp.json"


def render(package: Package, *, name: str | None = None, prefix: str = "") -> Tree:
    """The plugin of *package*, its files under *prefix* (a marketplace's ``plugins/<name>/``).
    Raises ``ExportNameInvalid``, ``UnsupportedTransport``, ``ExportSchemaViolation``."""
    plugin = plugin_fields(package, name, FORMAT, TITLE)
    files = skill_files(package, prefix)
    documents: dict[str, Any] = {}
    if package.skills:
        plugin["skills"] = "./skills/"
    servers = exported_servers(package, TITLE)
    if servers:
        plugin["mcpServers"] = f"./{MCP}"
        mcp = servers_document(servers)
        check(mcp, "codex-mcp.schema.json", TITLE)
        documents[f"{prefix}{MCP}"] = mcp
    check(plugin, "codex-plugin.schema.json", TITLE)
    documents[f"{prefix}{MANIFEST}"] = plugin
    return tree_of(documents, files)


def servers_document(servers: Sequence[ExportedServer]) -> dict[str, Any]:
    """``.mcp.json``: each entry as Codex's ``[mcp_servers]`` tables hold it; a setting the
    user gives is passed through from Codex's environment (``env_vars``,
    ``env_http_headers``)."""
    return {"mcpServers": {s.key: _entry(s) for s in servers}}


def _entry(exported: ExportedServer) -> dict[str, Any]:
    entry = build_entry(get_client("codex"), exported.server, exported.key)
    for setting in exported.settings:
        if setting.kind == "header":
            entry.setdefault("env_http_headers", {})[setting.name] = setting.name
        else:
            entry.setdefault("env_vars", []).append(setting.name)
    return entry
