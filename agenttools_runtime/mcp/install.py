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
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, cast

from agenttools_runtime import errors
from agenttools_runtime.clients import (
    Client,
    client_for_config_file,
    get_client,
    mcp_config_location,
    project_mcp_config_location,
)
from agenttools_runtime.lock import state_lock
from agenttools_runtime.mcp import entries
from agenttools_runtime.mcp.formats import (
    ConfigFormat,
    Container,
    PlannedEdit,
    edit_config_file,
    get_format,
    plain,
    plan_edit,
    read_entries,
    same_data,
)
from agenttools_runtime.mcp.origin import Origin, capture, restore
from agenttools_runtime.mcp.server import MCPServer


class _Shown:
    """``to_json``: the fields a result shows (those in its ``repr``), in order, as JSON
    values (a client by its id, a path as text)."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        names = [f.name for f in fields(cast(Any, self)) if f.repr]
        return {name: _json_value(getattr(self, name)) for name in names}


def _json_value(value: Any) -> Any:
    if isinstance(value, Client):
        return value.id
    return str(value) if isinstance(value, Path) else value


@dataclass(frozen=True, slots=True)
class MCPTarget(_Shown):
    """Where an MCP entry goes: the client (decides the entry shape and format), the config
    file, and the scope (``"user"``, a project directory, or None when unknown)."""

    client: Client
    config_file: Path
    scope: str | Path | None


@dataclass(frozen=True, slots=True)
class MCPInstallResult(_Shown):
    """What ``install_mcp_server`` did; ``edit`` is the edit written (None: nothing was),
    from which what it created is claimed (not compared, not shown)."""

    client: Client
    config_file: Path
    key: str
    server: str
    created_file: bool
    replaced_entry: bool
    changed: bool = True  # False: the same entry was already there
    edit: PlannedEdit | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class MCPUninstallResult(_Shown):
    client: Client
    config_file: Path
    key: str
    removed: bool  # False: the entry was not there ("not installed")


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
                raise errors.UnsupportedMCPClient(client_name=f"of the file {path}", file=path)
            client = guessed[0]
        else:
            client = get_client(target)
        if not client.supports_mcp:
            raise errors.UnsupportedMCPClient(client_name=client.display_name, client=client.id)
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
    existed, _written = _add(config_file, client, key, server, platform)
    return existed


def remove_server_entry(config_file: Path, client: Client, key: str) -> bool:
    """Remove the entry *key*; False when it was not there. Never rewrites a file that does
    not parse (``ConfigFileUnparseable``)."""
    fmt = get_format(client.config_format)
    container = entries.container_for(client, config_file)
    with state_lock():
        removed, _written = edit_config_file(
            config_file, lambda text: fmt.remove_entry(text, container, key)
        )
    return removed


@dataclass(frozen=True, slots=True)
class ConfigPlan:
    """The edit that writes several server entries into one config file, computed and not
    written: ``edit`` (bytes before and after), the ``container`` and ``format``, for each
    key ``(what it held before or None, the entry written)`` as plain data, and — for each
    key that held an entry — ``undo``, that entry as it was (what a rollback puts back), and
    ``origins``, what a removal of the deployment puts back (see :class:`Owned`)."""

    client: Client
    edit: PlannedEdit
    format: str
    container: Container
    entries: Mapping[str, tuple[Any, Any]]
    undo: Mapping[str, Origin | None] = field(default_factory=dict)
    origins: Mapping[str, Origin | None] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Owned:
    """A key that a deployment being replaced wrote: what it ``written`` there (None: a
    record that does not say) and the ``origin`` it replaced then (None: nothing)."""

    written: Any
    origin: Origin | None

    def holds(self, value: Any, incoming: Any) -> bool:
        """Whether *value* (the key's entry now) is still the deployment's: what it wrote,
        or what is about to be written anyway (nothing of the user's is lost). A record that
        does not say what it wrote proves nothing: the entry is then the user's."""
        if self.written is not None and same_data(value, self.written):
            return True
        return same_data(value, incoming)


def plan_server_entries(
    config_file: Path,
    client: Client,
    servers: Sequence[tuple[str, MCPServer]],
    platform: str | None = None,
    owned: Mapping[str, Owned] | None = None,
) -> ConfigPlan:
    """Read *config_file* and compute the edit that writes each ``(key, server)`` entry
    (call under the state lock, and write with ``formats.commit_edit``, which refuses when
    the file changed since: plan again then). *owned*: the keys the deployments this one
    replaces wrote; an entry they wrote that is still theirs passes on their origin, any
    other entry found becomes the origin (the user's, put back when the deployment is
    removed). Raises ``ConfigFileUnparseable``, ``ConfigFileInvalid``,
    ``UnsupportedTransport``."""
    built = {key: entries.build_entry(client, server, key, platform) for key, server in servers}
    fmt, container, defaults, is_project = _placement(client, config_file)
    prior: dict[str, Any] = {}
    undo: dict[str, Origin | None] = {}
    origins: dict[str, Origin | None] = {}

    def edit(text: str) -> tuple[str, None]:
        existing = fmt.read_entries(text, container)
        prior.clear()
        prior.update({key: plain(existing[key]) for key in built if key in existing})
        undo.clear()
        origins.clear()
        for key, entry in built.items():
            before = text
            text, _existed = fmt.set_entry(text, container, key, entry, defaults)
            if key not in prior:
                continue
            undo[key] = capture(fmt, container, key, before, text, prior[key])
            own = (owned or {}).get(key)
            if own is None or not own.holds(prior[key], plain(entry)):
                origins[key] = undo[key]  # not (or no longer) a deployment's: the user's
            elif own.origin is None or before == text:
                origins[key] = own.origin
            else:  # written again: the hunk is taken against the file holding the origin
                base = restore(fmt, container, key, before, own.origin)
                again = capture(fmt, container, key, base, text, own.origin.value)
                origins[key] = replace(again, text=own.origin.text or again.text)
        return text, None

    planned = plan_edit(config_file, edit, shared=is_project)
    return ConfigPlan(
        client,
        planned,
        client.config_format,
        container,
        {key: (prior.get(key), plain(entry)) for key, entry in built.items()},
        {key: undo.get(key) for key in built},
        {key: origins.get(key) for key in built},
    )


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
    force: bool = False,
) -> MCPInstallResult:
    """Install *server* into *target*'s config file under *key* (default: its
    ``config-key``, else its name). An entry of that key that holds something else is
    replaced only with *force* (``MCPServerEntryExists``): nothing here records it, so
    nothing could put it back (``agenttools mcp install`` also replaces an entry a
    deployment wrote: :mod:`agenttools_runtime.deploy.ownership`). Errors: those of
    :func:`resolve_mcp_target` and :func:`add_server_entry`."""
    resolved = _target(target, project, config)
    key = server.key if key is None else key
    existed, written = _add(
        resolved.config_file, resolved.client, key, server, platform, force=force
    )
    return MCPInstallResult(
        resolved.client,
        resolved.config_file,
        key,
        server.qualified_name,
        created_file=written is not None and written.before is None,
        replaced_entry=existed,
        changed=written is not None,
        edit=written,
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
    config_file: Path,
    client: Client,
    key: str,
    server: MCPServer,
    platform: str | None,
    *,
    force: bool = True,
) -> tuple[bool, PlannedEdit | None]:
    entry = entries.build_entry(client, server, key, platform)
    fmt, container, defaults, is_project = _placement(client, config_file)

    def edit(text: str) -> tuple[str, bool]:
        # one parse: set_entry leaves the text as it is when the entry holds this data already,
        # so an entry of this key that it rewrites holds something else
        written, existed = fmt.set_entry(text, container, key, entry, defaults)
        if existed and written != text and not force:  # (on the bytes written over, locked)
            raise errors.MCPServerEntryExists(
                key=key,
                config_file=config_file,
                option="--force (force=True)",
                then="; it is not recorded, so nothing puts it back",
                note="",
            )
        return written, existed

    with state_lock():
        return edit_config_file(config_file, edit, shared=is_project)


def _placement(
    client: Client, config_file: Path
) -> tuple[ConfigFormat, Container, dict[str, Any], bool]:
    """How *client*'s entries go into *config_file*: its format, the container, the top-level
    keys the client requires there, and whether it is a project's file (shared: committed
    and read by the team)."""
    is_project = entries.is_project_file(config_file)
    defaults = entries.required_top_level(client, config_file)
    container = entries.container_for(client, config_file)
    return get_format(client.config_format), container, defaults, is_project
