"""Digests of what a deployment deployed, recorded so that later commands can tell whether the
installed distribution still has the same content without reading the deployed copies.

A deploy records, additively (unknown fields are kept by older and newer agenttools alike):

- in ``agent_tools``: ``environment`` (``{"python", "scripts", "paths"}``: the environment the
  bundle was discovered in, where ``module``/``script`` servers run), ``dist_info`` (the
  distribution's ``.dist-info`` directory) and ``manifest_sha256`` (of its agenttools
  manifest file) — see :func:`distribution_fields`;
- per installed skill, ``content``: :func:`files_digest` of the files the directory got;
- per MCP config entry, ``declaration``: :func:`server_digest` of the server declaration it
  was written from.

Pure functions over explicit inputs; nothing here reads the deployment state.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from hashlib import sha256
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttools_runtime import regular_files
from agenttools_runtime.mcp.server import Environment
from agenttools_runtime.wheel import layout

if TYPE_CHECKING:
    from agenttools_runtime.discovery import InstalledDistribution, SearchPath
    from agenttools_runtime.mcp.server import MCPServer

CONTENT = "content"
DECLARATION = "declaration"
ENVIRONMENT = "environment"
DIST_INFO = "dist_info"
MANIFEST_SHA256 = "manifest_sha256"
LINK = "link"


def files_digest(manifest: Mapping[str, str]) -> str:
    """One SHA-256 over a skill's ``{relative path: file hash}`` manifest."""
    return _digest(dict(sorted(manifest.items())))


def server_digest(server: MCPServer) -> str:
    """One SHA-256 over what a server entry is built from (how it starts, its arguments,
    environment, transport and headers; not its description)."""
    return _digest(
        {
            "kind": server.kind,
            "value": getattr(server, server.kind),
            "args": list(server.args),
            "env": dict(sorted(server.env.items())),
            "transport": server.transport,
            "headers": dict(sorted(server.headers.items())),
        }
    )


def manifest_digest(dist_info: Path) -> str | None:
    """SHA-256 of a distribution's agenttools manifest file; None when it cannot be read."""
    try:
        return sha256(
            regular_files.read_bytes(os.fspath(dist_info) + layout.MANIFEST_SUFFIX)
        ).hexdigest()
    except OSError:
        return None


def distribution_fields(dist: InstalledDistribution, search: SearchPath) -> dict[str, Any]:
    """What a record keeps of the distribution a bundle came from and of its environment."""
    fields: dict[str, Any] = {
        DIST_INFO: str(dist.dist_info),
        MANIFEST_SHA256: manifest_digest(dist.dist_info),
    }
    if dist.environment is not None:
        paths = [os.path.abspath(p) for p in search.paths]
        fields[ENVIRONMENT] = _environment(dist.environment, paths)
    return fields


def builtin_fields() -> dict[str, Any]:
    """What a record of the built-in bundle keeps of the environment its server runs in."""
    return {ENVIRONMENT: _environment(Environment.current(), [])}


def _environment(environment: Environment, paths: list[str]) -> dict[str, Any]:
    return {
        "python": str(environment.python),
        "scripts": str(environment.scripts_dir),
        "paths": paths,
    }


# What does not make a redeploy another deployment: its id and time, the agenttools that
# wrote the record, what it created then (litter's claims), and where discovery looked for
# the distribution (``paths``: the launcher's sys.path[0] is the working directory for
# ``python -m``, the scripts directory for the console script, a script's own directory for
# the API; kept for later lookups, no part of what was deployed).
_NOT_IDENTITY = ("uuid", "timestamp", "agenttools_version", "created")


def identity(record: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON of a deployment record (:meth:`DeploymentRecord.to_json`) without what does
    not make a redeploy another deployment: two records of one identity deploy the same
    things, the same way, to the same place."""
    same = {k: v for k, v in record.items() if k not in _NOT_IDENTITY}
    tools = same.get("agent_tools")
    if isinstance(tools, Mapping) and isinstance(tools.get(ENVIRONMENT), Mapping):
        environment = {k: v for k, v in tools[ENVIRONMENT].items() if k != "paths"}
        same["agent_tools"] = {**tools, ENVIRONMENT: environment}
    return same


def differences(deployed: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """What makes *new* (the record a redeploy would write) another deployment than
    *deployed*, each as a phrase for "deployed ... with": ``another version (1.2.0
    deployed, 1.3.0 installed)``, ``another interpreter (...)``, ``another --runner
    (...)``, ``other files (the skill weather-report, ...)``, ``other settings (...)`` for
    anything else. Empty when they are the same deployment (:func:`identity`)."""
    old, now = identity(deployed), identity(new)
    if old == now:
        return []
    found: list[str] = []
    tools_old, tools_now = _mapping(old.get("agent_tools")), _mapping(now.get("agent_tools"))
    version_old = tools_old.get("distribution_version")
    version_now = tools_now.get("distribution_version")
    if version_old != version_now:
        found.append(f"another version ({version_old} deployed, {version_now} installed)")
    env_old, env_now = _mapping(tools_old.get(ENVIRONMENT)), _mapping(tools_now.get(ENVIRONMENT))
    if env_old.get("python") != env_now.get("python"):
        found.append(
            f"another interpreter ({env_old.get('python')} deployed, {env_now.get('python')} now)"
        )
    servers_old = {s.get("config_key"): s for s in _mappings(old.get("mcp_servers"))}
    servers_now = {s.get("config_key"): s for s in _mappings(now.get("mcp_servers"))}
    runners_old = sorted({str(s.get("runner")) for s in servers_old.values()})
    runners_now = sorted({str(s.get("runner")) for s in servers_now.values()})
    if runners_old != runners_now:
        found.append(
            f"another --runner ({', '.join(runners_old)} deployed, {', '.join(runners_now)} now)"
        )
    files = [
        f"the MCP server entry {key}"
        for key in sorted(servers_old.keys() | servers_now.keys(), key=str)
        if _entry_of(servers_old.get(key)) != _entry_of(servers_now.get(key))
    ]
    skills_old = {s.get("name"): s for s in _mappings(_mapping(old.get("skills")).get("installed"))}
    skills_now = {s.get("name"): s for s in _mappings(_mapping(now.get("skills")).get("installed"))}
    files += [
        f"the skill {name}"
        for name in sorted(skills_old.keys() | skills_now.keys(), key=str)
        if _content_of(skills_old.get(name)) != _content_of(skills_now.get(name))
    ]
    if files:
        found.append(f"other files ({', '.join(files)})")
    if not found:  # what the phrases above do not name: say which fields
        fields = sorted(k for k in old.keys() | now.keys() if old.get(k) != now.get(k))
        found.append(f"other settings ({', '.join(fields)})")
    return found


def _entry_of(server: Mapping[str, Any] | None) -> Any:
    return None if server is None else (server.get(DECLARATION), server.get("written"))


def _content_of(skill: Mapping[str, Any] | None) -> Any:
    return None if skill is None else (skill.get(CONTENT), skill.get(LINK))


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _mappings(value: Any) -> list[Mapping[str, Any]]:
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return sha256(text.encode("utf-8")).hexdigest()
