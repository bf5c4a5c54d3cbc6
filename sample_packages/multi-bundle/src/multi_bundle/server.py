"""The `toolkit` MCP server (stdio): ``python -m multi_bundle.server``."""

from __future__ import annotations

try:  # mcp >= 2
    from mcp.server.mcpserver import MCPServer as _Server
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as _Server

server = _Server("toolkit")

TOPICS = {"install": "pip install multi-bundle", "deploy": "agenttools deploy CLIENT toolkit"}


@server.tool()
def toolkit_help(topic: str) -> str:
    """Help on a toolkit topic (install, deploy)."""
    return TOPICS.get(topic, f"no help on {topic!r}; topics: {', '.join(sorted(TOPICS))}")


def main() -> None:
    server.run()


if __name__ == "__main__":
    main()
