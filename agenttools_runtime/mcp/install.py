"""Installing and removing MCP server entries in client config files.

INTERFACE STUB (owned by the MCP config work; signatures here are what other modules use).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agenttools_runtime.clients import Client
from agenttools_runtime.mcp.server import MCPServer


@dataclass(frozen=True)
class MCPTarget:
    """Where an MCP entry goes: the client (decides the entry shape and format), the config
    file, and the scope (``"user"``, a project directory, or None when unknown)."""

    client: Client
    config_file: Path
    scope: str | Path | None


@dataclass(frozen=True)
class MCPInstallResult:
    client: Client
    config_file: Path
    key: str
    server: str
    created_file: bool
    replaced_entry: bool


@dataclass(frozen=True)
class MCPUninstallResult:
    client: Client
    config_file: Path
    key: str
    removed: bool  # False: the entry was not there ("not installed")


def resolve_mcp_target(
    target: str | Client, *, project: Path | str | None = None, config: Path | str | None = None
) -> MCPTarget:
    """client id → user scope; with *project* → project scope; with *config* → that file."""
    raise NotImplementedError


def add_server_entry(
    config_file: Path, client: Client, key: str, server: MCPServer, platform: str | None = None
) -> bool:
    """Write (create or replace) the entry *key* for *server* into *config_file*, in
    *client*'s shape and format, losslessly and atomically. Returns True when an entry of
    that key existed before. Raises ``ConfigFileUnparseable``, ``UnsupportedTransport``,
    ``ConfigFileChanged``."""
    raise NotImplementedError


def remove_server_entry(config_file: Path, client: Client, key: str) -> bool:
    """Remove the entry *key*; False when it was not there. Never rewrites a file that does
    not parse (``ConfigFileUnparseable``)."""
    raise NotImplementedError


def install_mcp_server(
    target: str | Client | MCPTarget,
    server: MCPServer,
    *,
    project: Path | str | None = None,
    config: Path | str | None = None,
    key: str | None = None,
) -> MCPInstallResult:
    raise NotImplementedError


def uninstall_mcp_server(
    target: str | Client | MCPTarget,
    key: str,
    *,
    project: Path | str | None = None,
    config: Path | str | None = None,
) -> MCPUninstallResult:
    raise NotImplementedError
