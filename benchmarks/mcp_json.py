"""Cost of adding one MCP entry to a large ``~/.claude.json`` (Claude Code keeps per-project
history there, often megabytes), against the baseline of ``json.load`` + ``json.dump`` of the
same file, measured in this process.

    python benchmarks/mcp_json.py [--size-mb 1.6] [--repeat 9]

Prints the fastest time of each and the median round-by-round ratio; the target is ≤ 3× the baseline for strict JSON.
The JSONC case puts comments and trailing commas inside the big value, which sends the
navigation through the pure-Python JSONC scanner for that value. ``mcp install`` is what the
command does (``install_mcp_server``: the state lock, an entry of that key refused unless it
holds the same data), which parses the file once, as ``add entry`` does.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from agenttools_runtime.clients import get_client
from agenttools_runtime.mcp.formats import json_format
from agenttools_runtime.mcp.install import (
    add_server_entry,
    install_mcp_server,
    remove_server_entry,
)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=1.6)
    parser.add_argument("--repeat", type=int, default=9)
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
        os.environ["AGENTTOOLS_HOME"] = str(Path(tmp) / "state")  # the lock's directory

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

        def install() -> None:
            path.write_text(strict)
            install_mcp_server(client, server, config=path)

        def write_only(text: str) -> Callable[[], object]:
            return lambda: path.write_text(text)

        jsonc = jsonc_variant(strict)
        cases: dict[str, Callable[[], object]] = {
            "baseline json.load + json.dump": baseline,
            "json.loads alone": lambda: json.loads(strict),
            "write the input file alone": write_only(strict),
            "add entry, strict JSON": ours(strict),
            "mcp install, strict JSON": install,
            "add entry, JSONC (comments)": ours(jsonc),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _round in range(args.repeat):  # interleaved: a drifting machine moves all alike
            for name, case in cases.items():
                # each run parses the file as a new process does (not from the last run's text)
                json_format._parsed.cache_clear()
                start = time.perf_counter()
                case()
                times[name].append(time.perf_counter() - start)

        path.write_text(strict)
        add_server_entry(path, client, "weather", server)
        remove_server_entry(path, client, "weather")
        assert path.read_text() == strict, "uninstall did not restore the file"

    size = len(strict.encode()) / 1e6
    base = times["baseline json.load + json.dump"]
    print(f"file: {size:.2f} MB strict JSON ({args.repeat} interleaved rounds)")
    print("  (min; median of the round-by-round ratios to the baseline; each run but the")
    print("  parse writes the input file first)")
    for name, values in times.items():
        ratio = statistics.median(v / b for v, b in zip(values, base, strict=True))
        print(f"  {name:31}: {min(values) * 1000:8.1f} ms  ratio {ratio:5.2f}x")
    add = times["add entry, strict JSON"]
    once = statistics.median(
        i / a for i, a in zip(times["mcp install, strict JSON"], add, strict=True)
    )
    print(f"  mcp install / add entry        : {once:5.2f}x (1: one parse, as add entry)")


if __name__ == "__main__":
    main()
