"""Helpers for deploy tests: skill source directories, ad hoc bundles, and snapshots of every
file under a directory (so tests assert what is on disk, byte for byte)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from agenttools_runtime.bundles import AgentTools
from agenttools_runtime.mcp.server import MCPServer

from .invariants import snapshot as snapshot  # one snapshot for every deploy test


def write_skill(
    directory: Path,
    name: str | None = None,
    *,
    description: str = "A test skill.",
    body: str = "Do the thing.\n",
    files: Mapping[str, str] | None = None,
) -> Path:
    """A skill source directory with SKILL.md (and *files*)."""
    name = name or directory.name
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n\n{body}", encoding="utf-8"
    )
    for rel, text in (files or {}).items():
        path = directory / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return directory


def inline(name: str, body: str = "Inline body.\n", description: str = "Inline.") -> dict[str, str]:
    return {"name": name, "description": description, "body": body}


def server(name: str, key: str | None = None) -> MCPServer:
    return MCPServer(name=name, command="uvx", args=(f"{name}-mcp",), config_key=key)


def bundle(
    name: str, skills: Iterable[object] = (), servers: Iterable[MCPServer] = ()
) -> AgentTools:
    return AgentTools(name=name, skills=tuple(skills), mcp_servers=tuple(servers))  # type: ignore[arg-type]


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "agenttools-state"


@pytest.fixture
def sources(tmp_path: Path) -> Path:
    path = tmp_path / "sources"
    path.mkdir()
    return path
