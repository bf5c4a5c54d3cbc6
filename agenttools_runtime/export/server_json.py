"""The MCP registry's ``server.json`` (schema 2025-12-11) of the server a project publishes with
``[tool.agenttools.mcp-servers.NAME.registry]``: written into the sdist by the build hook and
the wrapping backend, printed by ``agenttools server-json``.

A ``module`` or ``script`` server is the PyPI package of the distribution (``registryType``
pypi, the exact version, ``runtimeHint`` uvx, stdio), its ``args`` the package arguments and
its environment variables those of :func:`~agenttools_runtime.export.settings.server_settings`
(``isRequired``/``isSecret``/``default``/``choices`` as declared; a literal value as the
fixed ``value``, never a secret's). A ``url`` server is a remote. The document is validated
against the registry's published schema before anyone sees it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from agenttools_runtime.export.metadata import from_pyproject
from agenttools_runtime.export.output import json_bytes
from agenttools_runtime.export.settings import server_settings
from agenttools_runtime.export.validation import check
from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.mcp.settings import Setting
from agenttools_runtime.project.build import BuildPlan

SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
SCHEMA_FILE = "mcp-registry-2025-12-11-server.schema.json"
FILE_NAME = "server.json"
TITLE = "MCP registry server.json"
PYPI = "https://pypi.org"
TRANSPORTS = {"http": "streamable-http", "sse": "sse"}
FORGES = {"github.com": "github", "gitlab.com": "gitlab"}


def server_json(plan: BuildPlan, project: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``server.json`` document of the server of *plan* that declares a registry entry
    (None when none does), for the version of *plan*'s manifest; *project* is the
    ``[project]`` table. Raises ``ExportSchemaViolation`` (a bug, as the project's checks
    hold the registry's rules)."""
    if not plan.registries:
        return None
    name, registry = next(iter(plan.registries.items()))
    manifest = plan.manifest
    server = MCPServer.from_entry(manifest.servers[name])
    metadata = from_pyproject(project)
    description = registry.get("description") or server.description or metadata.summary or name
    document: dict[str, Any] = {
        "$schema": SCHEMA_URL,
        "name": registry["name"],
        "description": description,
        "version": manifest.version,
    }
    if registry.get("title"):
        document["title"] = registry["title"]
    repository = _repository(metadata.repository or metadata.homepage)
    if repository is not None:
        document["repository"] = repository
    if metadata.homepage:
        document["websiteUrl"] = metadata.homepage
    settings = server_settings(server)
    if server.is_remote:
        remote: dict[str, Any] = {"type": TRANSPORTS[server.transport], "url": server.url}
        headers = [_input(s) for s in settings if s.kind == "header"]
        if headers:
            remote["headers"] = headers
        document["remotes"] = [remote]
    else:
        package: dict[str, Any] = {
            "registryType": "pypi",
            "registryBaseUrl": PYPI,
            "identifier": manifest.distribution,
            "version": manifest.version,
            "runtimeHint": "uvx",
            "transport": {"type": "stdio"},
        }
        if server.args:
            placeholders = {s.name: s for s in settings if s.kind == "arg"}
            package["packageArguments"] = [_argument(a, placeholders) for a in server.args]
        variables = [_input(s) for s in settings if s.kind == "env"]
        if variables:
            package["environmentVariables"] = variables
        document["packages"] = [package]
    check(document, SCHEMA_FILE, TITLE)
    return document


def server_json_bytes(plan: BuildPlan, project: Mapping[str, Any]) -> bytes | None:
    """:func:`server_json` as the file's bytes (sorted keys, one final newline)."""
    document = server_json(plan, project)
    return None if document is None else json_bytes(document)


def _input(setting: Setting) -> dict[str, Any]:
    """A ``KeyValueInput`` of the registry: the literal value as ``value``; a value the user
    gives as what a client asks with (never a secret's value)."""
    item: dict[str, Any] = {"name": setting.name}
    if setting.is_literal and setting.value is not None:
        item["value"] = setting.value
        return item
    item["isRequired"] = setting.required
    item["isSecret"] = setting.secret
    if setting.description:
        item["description"] = setting.description
    if setting.default is not None and not setting.secret:
        item["default"] = setting.default
    if setting.choices:
        item["choices"] = list(setting.choices)
    return item


def _argument(value: str, placeholders: Mapping[str, Setting]) -> dict[str, Any]:
    """A positional argument; its ``{name}`` placeholders as the registry's variables."""
    from agenttools_runtime.schema import PLACEHOLDER

    argument: dict[str, Any] = {"type": "positional", "value": value}
    used = [placeholders[n] for n in PLACEHOLDER.findall(value) if n in placeholders]
    if used:
        argument["variables"] = {s.name: _input(s) for s in used}
        for variable in argument["variables"].values():
            variable.pop("name")
    return argument


def _repository(url: str | None) -> dict[str, str] | None:
    if not url:
        return None
    parts = urlsplit(url)
    source = FORGES.get((parts.hostname or "").lower())
    if source is None or parts.scheme != "https":
        return None
    return {"url": url.removesuffix(".git"), "source": source}
