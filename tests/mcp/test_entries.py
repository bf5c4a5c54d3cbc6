"""The entry each client gets: exact shapes per style, remote forms, unsupported transports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agenttools_runtime.clients import all_clients
from agenttools_runtime.errors import UnsupportedTransport
from agenttools_runtime.mcp.entries import STYLES, build_entry, container_for, required_top_level
from agenttools_runtime.mcp.server import Environment, MCPServer

ENV = Environment(Path("/v/bin/python"), Path("/v/bin"))
LOCAL = MCPServer("weather", module="w.server", env={"U": "metric"}, environment=ENV)
HTTP = MCPServer("docs", url="https://x.org/mcp", headers={"Authorization": "Bearer t"})
SSE = MCPServer("docs", url="https://x.org/sse", transport="sse")

LOCAL_SHAPES: dict[str, dict[str, Any]] = {
    "claude-code": {"type": "stdio", "command": "/v/bin/python", "args": ["-m", "w.server"], "env": {"U": "metric"}},
    "gemini-cli": {"command": "/v/bin/python", "args": ["-m", "w.server"], "env": {"U": "metric"}},
    "zed": {"command": "/v/bin/python", "args": ["-m", "w.server"], "env": {"U": "metric"}},
    "cline": {"type": "stdio", "command": "/v/bin/python", "args": ["-m", "w.server"], "env": {"U": "metric"}, "disabled": False, "autoApprove": []},
    "kiro": {"type": "stdio", "command": "/v/bin/python", "args": ["-m", "w.server"], "env": {"U": "metric"}, "disabled": False, "autoApprove": []},
    "copilot-cli": {"type": "local", "command": "/v/bin/python", "args": ["-m", "w.server"], "env": {"U": "metric"}, "tools": ["*"]},
    "opencode": {"type": "local", "command": ["/v/bin/python", "-m", "w.server"], "enabled": True, "environment": {"U": "metric"}},
    "augment-code-ide": {"name": "weather", "type": "stdio", "command": "/v/bin/python", "args": ["-m", "w.server"], "env": {"U": "metric"}},
    "codex": {"command": "/v/bin/python", "args": ["-m", "w.server"], "env": {"U": "metric"}},
    "goose": {"name": "weather", "cmd": "/v/bin/python", "args": ["-m", "w.server"], "enabled": True, "envs": {"U": "metric"}, "type": "stdio", "timeout": 300, "description": ""},
    "continue": {"name": "weather", "command": "/v/bin/python", "args": ["-m", "w.server"], "env": {"U": "metric"}},
}  # fmt: skip


@pytest.mark.parametrize("client_id", sorted(LOCAL_SHAPES))
def test_local_shapes(client_id: str) -> None:
    assert build_entry(all_clients()[client_id], LOCAL) == LOCAL_SHAPES[client_id]


REMOTE_SHAPES: dict[str, dict[str, Any]] = {
    "claude-code": {"type": "http", "url": "https://x.org/mcp", "headers": {"Authorization": "Bearer t"}},
    "gemini-cli": {"httpUrl": "https://x.org/mcp", "headers": {"Authorization": "Bearer t"}},
    "windsurf": {"serverUrl": "https://x.org/mcp", "headers": {"Authorization": "Bearer t"}},
    "zed": {"url": "https://x.org/mcp", "headers": {"Authorization": "Bearer t"}},
    "cline": {"type": "streamableHttp", "url": "https://x.org/mcp", "headers": {"Authorization": "Bearer t"}, "disabled": False, "autoApprove": []},
    "kiro": {"url": "https://x.org/mcp", "headers": {"Authorization": "Bearer t"}, "disabled": False, "autoApprove": []},
    "opencode": {"type": "remote", "url": "https://x.org/mcp", "enabled": True, "headers": {"Authorization": "Bearer t"}},
    "codex": {"url": "https://x.org/mcp", "http_headers": {"Authorization": "Bearer t"}},
    "goose": {"name": "docs", "type": "streamable_http", "uri": "https://x.org/mcp", "enabled": True, "envs": {}, "headers": {"Authorization": "Bearer t"}, "timeout": 300, "description": ""},
    "continue": {"name": "docs", "type": "streamable-http", "url": "https://x.org/mcp", "requestOptions": {"headers": {"Authorization": "Bearer t"}}},
}  # fmt: skip


@pytest.mark.parametrize("client_id", sorted(REMOTE_SHAPES))
def test_remote_shapes(client_id: str) -> None:
    assert build_entry(all_clients()[client_id], HTTP) == REMOTE_SHAPES[client_id]


def test_sse_forms() -> None:
    clients = all_clients()
    assert build_entry(clients["gemini-cli"], SSE) == {"url": "https://x.org/sse"}
    assert build_entry(clients["vscode"], SSE) == {"type": "sse", "url": "https://x.org/sse"}
    assert build_entry(clients["goose"], SSE)["type"] == "sse"


@pytest.mark.parametrize(("client_id", "server"), [("claude-desktop", HTTP), ("codex", SSE)])
def test_unsupported_transports(client_id: str, server: MCPServer) -> None:
    client = all_clients()[client_id]
    with pytest.raises(UnsupportedTransport) as info:
        build_entry(client, server)
    assert str(info.value) == (
        f'The MCP server "docs" uses the {server.transport} transport, which '
        f"{client.display_name} does not support."
    )


def test_key_and_command_servers() -> None:
    goose = all_clients()["goose"]
    server = MCPServer("weather", command="uvx", args=("weather-mcp",), config_key="wx")
    entry = build_entry(goose, server)
    assert entry["name"] == "wx" and entry["cmd"] == "uvx" and entry["args"] == ["weather-mcp"]
    assert build_entry(goose, server, key="other")["name"] == "other"


def test_every_table_style_exists() -> None:
    for client in all_clients().values():
        assert client.entry_style in STYLES


def test_containers_and_required_keys(tmp_path: Path) -> None:
    clients = all_clients()
    assert container_for(clients["vscode"], tmp_path / "mcp.json").path == ("servers",)
    assert container_for(clients["vscode"], tmp_path / "settings.json").path == ("mcp", "servers")
    assert container_for(clients["augment-code-ide"]).list_key == "name"
    continue_ = clients["continue"]
    assert required_top_level(continue_, tmp_path / "config.yaml")["name"] == "Local Config"
    block_file = tmp_path / ".continue" / "mcpServers" / "agenttools.yaml"
    assert required_top_level(continue_, block_file)["name"] == "agenttools"
    assert required_top_level(clients["goose"], tmp_path / "config.yaml") == {}
