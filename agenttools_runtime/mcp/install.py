"""Installing and removing MCP server entries in client config files.

The three pieces: a server *declaration* (:class:`MCPServer`), the *entry* each client expects
(:mod:`agenttools_runtime.mcp.entries`), and a config file *format*
(:mod:`agenttools_runtime.mcp.formats`). :func:`add_server_entry` / :func:`remove_server_entry`
combine them for one file; :func:`install_mcp_server` / :func:`uninstall_mcp_server` add target
resolution (user scope, project scope, an explicit file). :func:`plan_server_entries`
computes the edit that writes several entries into one file without writing it (the deploy
engine journals it first).

Every write holds the state lock (:mod:`agenttools_runtime.lock`), the one a deploy holds, and
re-reads the file under it: a deploy, another ``mcp install`` and this one never interleave
their read-modify-write of a file, and a change by the client itself between the read and
the write is never lost (the edit is planned again on the new bytes).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenttools_runtime.clients import (
    Client,
    client_for_config_file,
    get_client,
    mcp_config_location,
    project_mcp_config_location,
)
from agenttools_runtime.errors import UnsupportedMCPClient
from agenttools_runtime.lock import state_lock
from agenttools_runtime.mcp import entries
from agenttools_runtime.mcp.formats import (
    Container,
    PlannedEdit,
    edit_config_file,
    get_format,
    plan_edit,
    read_entries,
)
from agenttools_runtime.mcp.server import MCPServer


@dataclass(frozen=True)
class MCPTarget:
    """Where an MCP entry goes: the client (decides the entry shape and format), the config
    file, and the scope (``"user"``, a project directory, or None when unknown)."""

    client: Client
    config_file: Path
    scope: str | Path | None

    def to_json(self) -> dict[str, Any]:
        return {
            "client": self.client.id,
            "config_file": str(self.config_file),
            "scope": None if self.scope is None else str(self.scope),
        }


@dataclass(frozen=True)
class MCPInstallResult:
    client: Client
    config_file: Path
    key: str
    server: str
    created_file: bool
    replaced_entry: bool
    changed: bool = True  # False: the same entry was already there

    def to_json(self) -> dict[str, Any]:
        return {
            "client": self.client.id,
            "config_file": str(self.config_file),
            "key": self.key,
            "server": self.server,
            "created_file": self.created_file,
            "replaced_entry": self.replaced_entry,
            "changed": self.changed,
        }


@dataclass(frozen=True)
class MCPUninstallResult:
    client: Client
    config_file: Path
    key: str
    removed: bool  # False: the entry was not there ("not installed")

    def to_json(self) -> dict[str, Any]:
        return {
            "client": self.client.id,
            "config_file": str(self.config_file),
            "key": self.key,
            "removed": self.removed,
        }


def resolve_mcp_target(
    target: str | Client | None,
    *,
    project: Path | str | None = None,
    config: Path | str | None = None,
) -> MCPTarget:
    """client id → user scope; with *project* → project scope; with *config* → that file.

    For an explicit file the client is *target*; when *target* is None it is guessed by exact
    location only (the client's user config file, or a path ending in its project config
    path), never by format. The scope is known only when the file is such a location of that
    client. Raises ``UnknownClient``, ``UnsupportedMCPClient``, ``UnsupportedMCPClientProject``,
    ``UnknownInstallLocation``, ``InvalidProjectDirectory``.
    """
    if config is not None:
        path = Path(os.path.abspath(Path(config).expanduser()))
        guessed = client_for_config_file(path)
        if target is None:
            if guessed is None:
                raise UnsupportedMCPClient(client_name=f"of the file {path}", file=path)
            client = guessed[0]
        else:
            client = get_client(target)
        if not client.supports_mcp:
            raise UnsupportedMCPClient(client_name=client.display_name, client=client.id)
        scope: str | Path | None = None
        if guessed is not None and guessed[0].id == client.id:
            scope = "user" if guessed[1] is None else guessed[1]
        return MCPTarget(client, path, scope)
    if target is None:
        raise ValueError("a client is needed unless an explicit config file is given")
    client = get_client(target)
    if project is not None:
        file = project_mcp_config_location(client, project)
        return MCPTarget(client, file, Path(os.path.abspath(Path(project).expanduser())))
    return MCPTarget(client, mcp_config_location(client), "user")


def add_server_entry(
    config_file: Path, client: Client, key: str, server: MCPServer, platform: str | None = None
) -> bool:
    """Write (create or replace) the entry *key* for *server* into *config_file*, in
    *client*'s shape and format, losslessly and atomically. Returns True when an entry of
    that key existed before. Raises ``ConfigFileUnparseable``, ``UnsupportedTransport``,
    ``ConfigFileChanged``."""
    return _add(config_file, client, key, server, platform)[0]


def remove_server_entry(config_file: Path, client: Client, key: str) -> bool:
    """Remove the entry *key*; False when it was not there. Never rewrites a file that does
    not parse (``ConfigFileUnparseable``)."""
    fmt = get_format(client.config_format)
    container = entries.container_for(client, config_file)
    with state_lock():
        removed, _written = edit_config_file(
            config_file, lambda text: _swap(fmt.remove_entry(text, container, key))
        )
    return removed


@dataclass(frozen=True)
class ConfigPlan:
    """The edit that writes several server entries into one config file, computed and not
    written: ``edit`` (bytes before and after), the ``container`` and ``format``, and for
    each key ``(what it held before or None, the entry written)`` as plain data."""

    client: Client
    edit: PlannedEdit
    format: str
    container: Container
    entries: Mapping[str, tuple[Any, Any]]


def plan_server_entries(
    config_file: Path,
    client: Client,
    servers: Sequence[tuple[str, MCPServer]],
    platform: str | None = None,
) -> ConfigPlan:
    """Read *config_file* and compute the edit that writes each ``(key, server)`` entry
    (call under the state lock, and write with ``formats.commit_edit``, which refuses when
    the file changed since: plan again then). Raises ``ConfigFileUnparseable``,
    ``ConfigFileInvalid``, ``UnsupportedTransport``."""
    built = {key: entries.build_entry(client, server, key, platform) for key, server in servers}
    fmt = get_format(client.config_format)
    container = entries.container_for(client, config_file)
    project = client_for_config_file(config_file)
    is_project = project is not None and project[1] is not None
    defaults = entries.required_top_level(client, config_file, is_project)
    prior: dict[str, Any] = {}

    def edit(text: str) -> tuple[str, None]:
        existing = fmt.read_entries(text, container)
        prior.update({key: plain(existing[key]) for key in built if key in existing})
        for key, entry in built.items():
            text, _existed = fmt.set_entry(text, container, key, entry, defaults)
        return text, None

    planned = plan_edit(config_file, edit, shared=is_project)
    return ConfigPlan(
        client,
        planned,
        client.config_format,
        container,
        {key: (prior.get(key), plain(entry)) for key, entry in built.items()},
    )


def plain(value: Any) -> Any:
    """Config data as plain JSON values (parsers return their own mapping and scalar types)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return None if value is None else str(value)


def read_server_entries(config_file: Path, client: Client) -> dict[str, dict[str, Any]]:
    """The entries of *client*'s container in *config_file*, by key (empty when the file or
    the container is missing). Raises ``ConfigFileUnparseable`` / ``ConfigFileInvalid``."""
    container = entries.container_for(client, config_file)
    return read_entries(config_file, client.config_format, container)


def install_mcp_server(
    target: str | Client | MCPTarget,
    server: MCPServer,
    *,
    project: Path | str | None = None,
    config: Path | str | None = None,
    key: str | None = None,
    platform: str | None = None,
) -> MCPInstallResult:
    """Install *server* into *target*'s config file under *key* (default: its
    ``config-key``, else its name). Errors: those of :func:`resolve_mcp_target` and
    :func:`add_server_entry`."""
    resolved = _target(target, project, config)
    key = server.key if key is None else key
    with state_lock():
        created = not resolved.config_file.exists()
        existed, written = _add(resolved.config_file, resolved.client, key, server, platform)
    return MCPInstallResult(
        resolved.client,
        resolved.config_file,
        key,
        server.qualified_name,
        created_file=created and written,
        replaced_entry=existed,
        changed=written,
    )


def uninstall_mcp_server(
    target: str | Client | MCPTarget,
    key: str,
    *,
    project: Path | str | None = None,
    config: Path | str | None = None,
) -> MCPUninstallResult:
    """Remove the entry *key* from *target*'s config file; ``removed`` is False when it was
    not there (a missing file is never created)."""
    resolved = _target(target, project, config)
    removed = remove_server_entry(resolved.config_file, resolved.client, key)
    return MCPUninstallResult(resolved.client, resolved.config_file, key, removed)


def _target(
    target: str | Client | MCPTarget, project: Path | str | None, config: Path | str | None
) -> MCPTarget:
    if isinstance(target, MCPTarget):
        return target
    return resolve_mcp_target(target, project=project, config=config)


def _add(
    config_file: Path, client: Client, key: str, server: MCPServer, platform: str | None
) -> tuple[bool, bool]:
    entry = entries.build_entry(client, server, key, platform)
    fmt = get_format(client.config_format)
    container = entries.container_for(client, config_file)
    project = client_for_config_file(config_file)
    is_project = project is not None and project[1] is not None
    defaults = entries.required_top_level(client, config_file, is_project)
    with state_lock():
        return edit_config_file(
            config_file,
            lambda text: _swap(fmt.set_entry(text, container, key, entry, defaults)),
            shared=is_project,
        )


def _swap(pair: tuple[str, bool]) -> tuple[str, bool]:
    return pair
