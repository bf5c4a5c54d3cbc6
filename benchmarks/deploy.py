"""Deploy cost: a tracked deploy + remove against the untracked low-level writes.

In a temporary HOME and state directory, with a bundle of S inline skills (three files each)
and two ``command`` MCP servers, times interleaved, R rounds each:

- raw:     ``install_skills`` + ``install_mcp_server`` per server, then ``uninstall_skills`` +
           ``uninstall_mcp_server`` (the same files written and removed, nothing tracked);
- deploy:  ``deploy("claude-code", bundle)`` then ``Deployment.remove()`` (resolution, hashing,
           the lock, sweep, conflicts, preflight, undo log, registry, record; and back);
- redeploy: ``deploy(..., overwrite="upgrade")`` over an existing identical deployment (every
           skill already there: the decision is "add a reference", nothing re-copied).

Prints the medians and the ratios against raw. Run: ``python benchmarks/deploy.py [S] [R]``.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

from agenttools_runtime.bundles import AgentTools
from agenttools_runtime.deploy import deploy
from agenttools_runtime.mcp.install import install_mcp_server, uninstall_mcp_server
from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.skill_sources import skill_sources
from agenttools_runtime.skills.install import install_skills, uninstall_skills


def main() -> None:
    skills = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HOME"] = os.environ["USERPROFILE"] = str(Path(tmp) / "home")
        os.environ["AGENTTOOLS_HOME"] = str(Path(tmp) / "state")
        (Path(tmp) / "home").mkdir()
        specs = [
            {"name": f"skill-{i}", "description": f"Skill {i}.", "body": "Do it.\n" * 50}
            for i in range(skills)
        ]
        servers = [MCPServer(name=f"srv-{i}", command="uvx", args=(f"srv-{i}",)) for i in (1, 2)]
        tools = AgentTools(name="bench", skills=tuple(specs), mcp_servers=tuple(servers))
        sources = skill_sources(tools)

        def raw() -> None:
            install_skills("claude-code", sources)
            for s in servers:
                install_mcp_server("claude-code", s)
            uninstall_skills("claude-code", [s.name for s in sources])
            for s in servers:
                uninstall_mcp_server("claude-code", s.key)

        def tracked() -> None:
            deploy("claude-code", tools).remove()

        existing = None

        def redeploy() -> None:
            nonlocal existing
            existing = deploy("claude-code", tools, overwrite="upgrade")

        times: dict[str, list[float]] = {"raw": [], "deploy": [], "redeploy": []}
        cases: dict[str, Callable[[], None]] = {"raw": raw, "deploy": tracked}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(rounds):
                for name, fn in cases.items():
                    start = time.perf_counter()
                    fn()
                    times[name].append(time.perf_counter() - start)
            deploy("claude-code", tools)
            for _ in range(rounds):
                start = time.perf_counter()
                redeploy()
                times["redeploy"].append(time.perf_counter() - start)
    base = statistics.median(times["raw"])
    print(f"{skills} skills + 2 servers, {rounds} rounds (median)")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:<9} {median * 1000:8.2f} ms   {median / base:5.2f}x raw")


if __name__ == "__main__":
    main()
