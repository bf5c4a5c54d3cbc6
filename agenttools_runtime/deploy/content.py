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
from pathlib import Path

from agenttools_runtime import regular_files
from agenttools_runtime.sha256 import sha256

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (a deploy's start-up)
if TYPE_CHECKING:
    from typing import Any

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
    from agenttools_runtime.wheel import layout

    try:
        return sha256(
            regular_files.read_bytes(os.fspath(dist_info) + layout.MANIFEST_SUFFIX)
        ).hexdigest()
    except OSError:
        return None


def distribution_fields(dist: InstalledDistribution, search: SearchPath | None) -> dict[str, Any]:
    """What a record keeps of the distribution a bundle came from and of its environment."""
    environment = dist.environment
    fields: dict[str, Any] = {
        DIST_INFO: str(dist.dist_info),
        MANIFEST_SHA256: manifest_digest(dist.dist_info),
    }
    if environment is not None:
        paths = [] if search is None else [os.path.abspath(p) for p in search.paths]
        fields[ENVIRONMENT] = {
            "python": str(environment.python),
            "scripts": str(environment.scripts_dir),
            "paths": paths,
        }
    return fields


def builtin_fields() -> dict[str, Any]:
    """What a record of the built-in bundle keeps of the environment its server runs in."""
    from agenttools_runtime.mcp.server import Environment

    environment = Environment.current()
    return {
        ENVIRONMENT: {
            "python": str(environment.python),
            "scripts": str(environment.scripts_dir),
            "paths": [],
        }
    }


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return sha256(text.encode("utf-8")).hexdigest()
