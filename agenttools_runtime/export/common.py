"""What the plugin formats share: the skills as files under ``skills/``, the manifest's name,
version and metadata fields, each server's key and portable form, and the names of the
settings a user gives."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from agenttools_runtime import errors
from agenttools_runtime.export.launch import portable
from agenttools_runtime.export.naming import check_name
from agenttools_runtime.export.output import OutputFile
from agenttools_runtime.export.settings import literal_values, server_settings, user_given
from agenttools_runtime.export.source import Package
from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.mcp.settings import Setting

SKILLS = "skills"


@dataclass(frozen=True, slots=True)
class ExportedServer:
    """One server as a format writes it: its entry ``key``, the portable ``server`` (whose
    ``env``/``headers`` hold only the literal values) and the ``settings`` the user gives."""

    key: str
    server: MCPServer
    settings: tuple[Setting, ...]


def skill_files(package: Package, prefix: str = "") -> dict[str, OutputFile]:
    """Every file of every skill, at ``<prefix>skills/<name>/<path>``. Raises
    ``ExportSourceInvalid`` for two skills of one name (from two distributions)."""
    files: dict[str, OutputFile] = {}
    seen: set[str] = set()
    for skill in package.skills:
        if skill.name in seen:
            reason = f'it has two skills named "{skill.name}"; a plugin holds one of each name'
            raise errors.ExportSourceInvalid(source=package.source or package.name, reason=reason)
        seen.add(skill.name)
        for rel, data in skill.files.items():
            files[f"{prefix}{SKILLS}/{skill.name}/{rel}"] = OutputFile(
                data, rel in skill.executable
            )
    return files


def plugin_fields(package: Package, name: str | None, format_id: str, title: str) -> dict[str, Any]:
    """The fields a plugin manifest starts with: ``name`` (*name*, else the package's;
    ``ExportNameInvalid`` when the format does not take it), ``version`` and
    :func:`metadata_fields`."""
    plugin_name = check_name(name or package.name, format_id, title)
    return {"name": plugin_name, "version": package.version, **metadata_fields(package)}


def metadata_fields(package: Package) -> dict[str, Any]:
    """``description``, ``author``, ``homepage``, ``repository``, ``license`` and
    ``keywords`` as every plugin manifest spells them (only those known)."""
    meta = package.metadata
    fields: dict[str, Any] = {}
    if package.description:
        fields["description"] = package.description
    author = meta.author_json()
    if author:
        fields["author"] = author
    for key, value in (
        ("homepage", meta.homepage),
        ("repository", meta.repository),
        ("license", meta.license),
    ):
        if value:
            fields[key] = value
    if meta.keywords:
        fields["keywords"] = list(meta.keywords)
    return fields


def exported_servers(package: Package, format_name: str) -> list[ExportedServer]:
    """Each server of *package* in its portable form (:func:`portable`), with only its
    literal settings as values; ``ExportSourceInvalid`` for two servers of one key."""
    result: list[ExportedServer] = []
    for server in package.servers:
        settings = server_settings(server)
        launch = replace(
            portable(server, format_name),
            env=literal_values(settings, "env"),
            headers=literal_values(settings, "header"),
        )
        if any(e.key == server.key for e in result):
            reason = f'two of its servers use the key "{server.key}"'
            raise errors.ExportSourceInvalid(source=package.source or package.name, reason=reason)
        given = user_given(settings, "env") + user_given(settings, "header")
        result.append(ExportedServer(server.key, launch, given))
    return result


def setting_keys(servers: Iterable[ExportedServer]) -> dict[tuple[str, str], str]:
    """A name for each setting the user gives, unique across the plugin: the variable's own
    name when no other server has one of that name, else ``<server key>_<name>``; only
    letters, digits and ``_`` (what Claude Code's ``userConfig`` keys allow)."""
    pairs = [(s.key, setting.name) for s in servers for setting in s.settings]
    counts = Counter(name for _, name in pairs)
    keys = {}
    for server_key, name in pairs:
        key = name if counts[name] == 1 else f"{server_key}_{name}"
        key = re.sub(r"\W", "_", key)
        keys[(server_key, name)] = key if re.match(r"[A-Za-z_]", key) else f"_{key}"
    return keys
