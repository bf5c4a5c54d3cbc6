"""The sample packages' own code: the weather MCP server is a real stdio MCP server (official
SDK) with deterministic tools; the weather-report skill's script runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SAMPLES = Path(__file__).resolve().parents[1] / "sample_packages"
WEATHER = SAMPLES / "weather-tools"


class StdioClient:
    """A minimal MCP client speaking newline-delimited JSON-RPC over a child's stdio."""

    def __init__(self, *command: str, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **env},
        )
        self.next_id = 0

    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}})
        assert self.process.stdout is not None
        reply = json.loads(self.process.stdout.readline())
        assert reply["id"] == self.next_id, reply
        return reply["result"]

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message) + "\n")
        self.process.stdin.flush()

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=30)


@pytest.mark.slow
def test_weather_server_speaks_mcp_over_stdio() -> None:
    client = StdioClient(
        sys.executable,
        "-m",
        "weather_tools.server",
        env={"PYTHONPATH": str(WEATHER / "src"), "WEATHER_UNITS": "imperial"},
    )
    try:
        init = client.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "agenttools-tests", "version": "0"},
            },
        )
        assert init["serverInfo"]["name"] == "weather"
        client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = client.request("tools/list")["tools"]
        assert sorted(t["name"] for t in tools) == ["current_weather", "forecast", "list_stations"]
        result = client.request(
            "tools/call", {"name": "current_weather", "arguments": {"station": "eddb"}}
        )
        assert result["isError"] is False
        text = result["content"][0]["text"]
        assert json.loads(text)["temperature"] == "52.7 °F"  # 11.5 °C, deterministic
    finally:
        assert client.close() == 0


def test_weather_report_script_runs() -> None:
    script = WEATHER / "skills" / "weather-report" / "scripts" / "report.py"
    assert os.access(script, os.X_OK)
    done = subprocess.run(
        [sys.executable, str(script), "eddb", "11.5 °C", "overcast"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == "EDDB: 11.5 °C, overcast.\n"
