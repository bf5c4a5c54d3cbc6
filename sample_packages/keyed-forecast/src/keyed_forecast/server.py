"""A small MCP server over stdio (JSON-RPC, one message per line), standard library only.

It refuses to start without ``FORECAST_API_KEY`` in its environment, so a client that lists
it as connected proves that the key reached it; its one tool answers in ``FORECAST_UNITS``.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

PROTOCOL = "2025-06-18"
TOOLS = [
    {
        "name": "forecast",
        "description": "Tomorrow's forecast for a city.",
        "inputSchema": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    }
]
PROMPTS = [{"name": "plan-the-day", "description": "Plan a day around the forecast."}]
RESOURCES = [
    {"uri": "forecast://regions", "name": "regions", "mimeType": "text/plain"},
]


def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
    if method == "initialize":
        return {
            "protocolVersion": params.get("protocolVersion", PROTOCOL),
            "capabilities": {"tools": {}, "prompts": {}, "resources": {}},
            "serverInfo": {"name": "keyed-forecast", "version": "1.0.0"},
        }
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "prompts/list":
        return {"prompts": PROMPTS}
    if method == "resources/list":
        return {"resources": RESOURCES}
    if method == "tools/call":
        city = str(params.get("arguments", {}).get("city", "?"))
        units = os.environ.get("FORECAST_UNITS", "metric")
        degrees = "21 °C" if units == "metric" else "70 °F"
        text = f"{city} ({os.environ.get('FORECAST_REGION', '?')}): sunny, {degrees}"
        return {"content": [{"type": "text", "text": text}]}
    if method == "ping":
        return {}
    raise LookupError(method)


def main() -> int:
    if not os.environ.get("FORECAST_API_KEY"):
        print("keyed-forecast: FORECAST_API_KEY is not set", file=sys.stderr)
        return 1
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message:
            continue  # a notification
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        try:
            reply["result"] = answer(str(message.get("method")), message.get("params") or {})
        except LookupError:
            reply["error"] = {"code": -32601, "message": "Method not found"}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
