"""Cost of adding one MCP entry to a large ``~/.claude.json`` (Claude Code keeps per-project
history there, often megabytes), against the baseline of ``json.load`` + ``json.dump`` of the
same file, measured in this process.

    python benchmarks/mcp_json.py [--size-mb 1.6] [--repeat 5]

Prints the best-of-N times and the ratios; the target is ≤ 3× the baseline for strict JSON.
The JSONC case puts comments and trailing commas inside the big value, which sends the
navigation through the pure-Python JSONC scanner for that value.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agenttools_runtime.clients import get_client
from agenttools_runtime.mcp.install import add_server_entry, remove_server_entry
from agenttools_runtime.mcp.server import Environment, MCPServer


def claude_json(size_mb: float) -> str:
    """A realistic ``~/.claude.json``: settings, per-project history, a few servers."""
    doc: dict[str, object] = {
        "numStartups": 184,
        "installMethod": "npm-global",
        "autoUpdates": True,
        "tipsHistory": {f"tip-{i}": i for i in range(40)},
        "mcpServers": {
            "github": {"type": "stdio", "command": "npx", "args": ["-y", "gh-mcp"], "env": {}}
        },
        "projects": {},
    }
    projects: dict[str, object] = {}
    i = 0
    while len(json.dumps(doc, indent=2)) < size_mb * 1_000_000:
        projects[f"/home/me/src/project-{i}"] = {
            "allowedTools": ["Bash(git status:*)", "Bash(npm test:*)"],
            "history": [
                {
                    "display": f'refactor the parser step {j}, keep "quotes" and \\ escapes',
                    "pastedContents": {},
                }
                for j in range(40)
            ],
            "mcpContextUris": [],
            "enabledMcpjsonServers": [],
            "hasTrustDialogAccepted": True,
            "lastCost": 1.25 * i,
            "lastDuration": 123456 + i,
        }
        i += 25
        doc["projects"] = projects
    return json.dumps(doc, indent=2) + "\n"


def jsonc_variant(text: str) -> str:
    """The same file with comments and trailing commas inside the big value."""
    text = text.replace('"hasTrustDialogAccepted": true,', '"hasTrustDialogAccepted": true, // ok')
    return "// edited by hand\n" + text.replace(
        '"mcpContextUris": [],', '"mcpContextUris": [/* none */],', 1
    )


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=1.6)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    client = get_client("claude-code")
    server = MCPServer(
        "weather",
        module="weather_tools.server",
        environment=Environment(Path("/opt/venv/bin/python"), Path("/opt/venv/bin")),
    )
    strict = claude_json(args.size_mb)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / ".claude.json"

        def baseline() -> None:
            path.write_text(strict)
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
            data["mcpServers"]["weather"] = {"command": "x"}
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2)

        def ours(text: str) -> Callable[[], None]:
            def run() -> None:
                path.write_text(text)
                add_server_entry(path, client, "weather", server)

            return run

        def write_only(text: str) -> Callable[[], None]:
            return lambda: path.write_text(text)

        base = best(baseline, args.repeat)
        parse_only = best(lambda: json.loads(strict), args.repeat)
        setup = best(write_only(strict), args.repeat)
        add = best(ours(strict), args.repeat)
        jsonc = jsonc_variant(strict)
        add_jsonc = best(ours(jsonc), args.repeat)

        path.write_text(strict)
        add_server_entry(path, client, "weather", server)
        remove_server_entry(path, client, "weather")
        assert path.read_text() == strict, "uninstall did not restore the file"

    size = len(strict.encode()) / 1e6
    print(f"file: {size:.2f} MB strict JSON (best of {args.repeat})")
    print(f"  baseline json.load + json.dump : {base * 1000:8.1f} ms")
    print(f"  json.loads alone               : {parse_only * 1000:8.1f} ms")
    print(f"  add entry, strict JSON         : {add * 1000:8.1f} ms  ratio {add / base:5.2f}x")
    print(
        f"  add entry, JSONC (comments)    : {add_jsonc * 1000:8.1f} ms  ratio {add_jsonc / base:5.2f}x"
    )
    print(f"  (each run includes writing the input file: {setup * 1000:.1f} ms)")


if __name__ == "__main__":
    main()
