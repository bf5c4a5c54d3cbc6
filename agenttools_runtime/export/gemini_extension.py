"""Gemini CLI extensions: ``gemini-extension.json`` with the servers inline (``mcpServers``, each
entry as Gemini CLI's settings hold it) and the skills under ``skills/``.

A setting the user gives becomes one of the extension's ``settings`` (``sensitive`` for a
secret, kept in Gemini CLI's keychain storage): Gemini CLI asks for it when the extension is
installed and passes it to the extension's servers as the environment variable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agenttools_runtime import errors
from agenttools_runtime.clients import get_client
from agenttools_runtime.export.common import ExportedServer, exported_servers, skill_files
from agenttools_runtime.export.naming import check_name
from agenttools_runtime.export.output import Tree, tree_of
from agenttools_runtime.export.source import Package
from agenttools_runtime.export.validation import check
from agenttools_runtime.mcp.entries import build_entry

FORMAT = "gemini-extension"
TITLE = "Gemini CLI extension"
MANIFEST = "gemini-extension.json"


def servers_document(servers: Sequence[ExportedServer]) -> dict[str, Any]:
    """``mcpServers`` and, for the environment variables the user gives, ``settings`` (each
    once, ``sensitive`` for a secret). Raises ``ExportUnsupported`` for a header the user
    gives (extension settings are environment variables)."""
    if not servers:
        return {}
    client = get_client("gemini-cli")
    document: dict[str, Any] = {
        "mcpServers": {s.key: build_entry(client, s.server, s.key) for s in servers}
    }
    settings: dict[str, dict[str, Any]] = {}
    for exported in servers:
        for setting in exported.settings:
            if setting.kind != "env":
                raise errors.ExportUnsupported(
                    server=exported.key,
                    format_name=TITLE,
                    reason=f"the header {setting.name} needs a value from the user, and Gemini "
                    "CLI's extension settings are environment variables only",
                )
            settings.setdefault(
                setting.name,
                {
                    "name": setting.name,
                    "description": setting.description or f"The value of {setting.name}.",
                    "envVar": setting.name,
                    "sensitive": setting.secret,
                },
            )
    if settings:
        document["settings"] = [settings[k] for k in sorted(settings)]
    return document


def render(package: Package, *, name: str | None = None) -> Tree:
    """The extension of *package*. Raises ``ExportNameInvalid``, ``ExportUnsupported``,
    ``ExportSchemaViolation``."""
    extension_name = check_name(name or package.name, FORMAT, TITLE)
    extension: dict[str, Any] = {"name": extension_name, "version": package.version}
    if package.description:
        extension["description"] = package.description
    extension.update(servers_document(exported_servers(package, TITLE)))
    check(extension, "gemini-extension.schema.json", TITLE)
    return tree_of({MANIFEST: extension}, skill_files(package))
