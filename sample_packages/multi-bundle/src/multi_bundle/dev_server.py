"""The `toolkit-dev` MCP server (stdio), run as the `toolkit-dev-mcp` console script."""

from __future__ import annotations

import sys

try:  # mcp >= 2
    from mcp.server.mcpserver import MCPServer as _Server
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as _Server

server = _Server("toolkit-dev")


@server.tool()
def release_checklist() -> list[str]:
    """The steps of a toolkit release."""
    return ["run the tests", "update the changelog", "tag the release", "build and upload"]


def main() -> None:
    if "--verbose" in sys.argv:
        print("toolkit-dev: starting (stdio)", file=sys.stderr)
    server.run()


if __name__ == "__main__":
    main()
