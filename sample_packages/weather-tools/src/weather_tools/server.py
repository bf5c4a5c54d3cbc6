"""The `weather` MCP server (stdio): ``python -m weather_tools.server``.

Written with the official MCP Python SDK; works with mcp 1.x (FastMCP) and 2.x (MCPServer).
"""

from __future__ import annotations

from typing import Any

try:  # mcp >= 2
    from mcp.server.mcpserver import MCPServer as _Server
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP as _Server

from weather_tools import data

server = _Server("weather")


@server.tool()
def list_stations() -> list[str]:
    """The ICAO codes of the stations this server knows."""
    return sorted(data.STATIONS)


@server.tool()
def current_weather(station: str) -> dict[str, Any]:
    """The current observation at a station (ICAO code, e.g. EDDB)."""
    return data.observation(station)


@server.tool()
def forecast(station: str, days: int = 3) -> list[dict[str, Any]]:
    """A forecast for the next 1-7 days at a station."""
    return data.forecast(station, days)


def main() -> None:
    server.run()


if __name__ == "__main__":
    main()
