"""Claude Code plugins: ``.claude-plugin/plugin.json`` with the servers inline (``mcpServers``,
each entry as Claude Code's own config holds it) and the skills under ``skills/``.

A setting the user gives becomes a ``userConfig`` option (``sensitive`` for a secret, which
Claude Code keeps in its secure storage) and the entry reads it as ``${user_config.KEY}``:
Claude Code asks for it when the plugin is enabled.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenttools_runtime.clients import get_client
from agenttools_runtime.export.common import (
    ExportedServer,
    exported_servers,
    plugin_fields,
    setting_keys,
    skill_files,
)
from agenttools_runtime.export.output import Tree, tree_of
from agenttools_runtime.export.source import Package
from agenttools_runtime.export.validation import check
from agenttools_runtime.mcp.entries import build_entry
from agenttools_runtime.mcp.settings import Setting

FORMAT = "claude-plugin"
TITLE = "Claude Code plugin"
MANIFEST = ".claude-plugin/plugin.json"
SCHEMA = "claude-code-plugin-manifest.schema.json"


def render(package: Package, *, name: str | None = None, prefix: str = "") -> Tree:
    """The plugin of *package*, its files under *prefix* (a marketplace's ``plugins/<name>/``).
    Raises ``ExportNameInvalid``, ``UnsupportedTransport``, ``ExportSchemaViolation``."""
    plugin = plugin_fields(package, name, FORMAT, TITLE)
    plugin.update(servers_document(exported_servers(package, TITLE)))
    check(plugin, SCHEMA, TITLE)
    return tree_of({f"{prefix}{MANIFEST}": plugin}, skill_files(package, prefix))


def servers_document(servers: Sequence[ExportedServer]) -> dict[str, Any]:
    """``mcpServers`` and, for the settings the user gives, ``userConfig``: each an option
    (``sensitive`` for a secret) that the entry reads as ``${user_config.KEY}``."""
    if not servers:
        return {}
    keys = setting_keys(servers)
    document: dict[str, Any] = {"mcpServers": {s.key: _entry(s, keys) for s in servers}}
    options = {
        keys[(s.key, setting.name)]: _option(setting) for s in servers for setting in s.settings
    }
    if options:
        document["userConfig"] = options
    return document


def _entry(exported: ExportedServer, keys: dict[tuple[str, str], str]) -> dict[str, Any]:
    entry = build_entry(get_client("claude-code"), exported.server, exported.key)
    for setting in exported.settings:
        reference = "${user_config." + keys[(exported.key, setting.name)] + "}"
        field = "headers" if setting.kind == "header" else "env"
        entry.setdefault(field, {})[setting.name] = reference
    return entry


def _option(setting: Setting) -> dict[str, Any]:
    description = setting.description or f"The value of {setting.name}."
    if setting.choices:
        description += f" One of: {', '.join(setting.choices)}."
    option: dict[str, Any] = {
        "type": "string",
        "title": setting.name,
        "description": description,
        "required": setting.required,
        "sensitive": setting.secret,
    }
    if setting.default is not None:
        option["default"] = setting.default
    return option
