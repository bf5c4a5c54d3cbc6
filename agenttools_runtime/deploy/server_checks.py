"""The checks a deploy makes that each stdio server of a target can start from the entry it is
about to write (:mod:`agenttools_runtime.mcp.preflight`), or — ``check="connect"``, ``deploy
--check`` — that it starts and completes an MCP ``initialize`` (:mod:`agenttools_runtime.mcp.
probe`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from agenttools_runtime import errors
from agenttools_runtime.deploy import content
from agenttools_runtime.deploy.resolved import ResolvedTools, ServerPlan
from agenttools_runtime.deploy.targets import DeployTarget
from agenttools_runtime.mcp.preflight import interpreter_paths, start_problem, version_problem
from agenttools_runtime.mcp.server import Environment

Check = Literal["none", "start", "connect"]
CONNECT_TIMEOUT = 30.0  # seconds for a server to answer initialize (a cold interpreter, uvx)


def server_problems(
    tools: ResolvedTools, where: DeployTarget, check: Check
) -> list[errors.AgentToolsError]:
    """One ``MCPServerCannotStart`` per server of *tools* whose entry for *where* would not
    start (none with ``check="none"``, or when nothing is written there)."""
    if check == "none" or where.config_file is None:
        return []
    found: list[errors.AgentToolsError] = []
    environment = tools.agent_tools.get(content.ENVIRONMENT) or {}
    probed = [str(p) for p in environment.get("paths") or ()]
    for sp in tools.servers:
        reason = _problem(tools, sp, probed, check)
        if reason is not None:
            found.append(
                errors.MCPServerCannotStart(
                    server=sp.key,
                    client_name=where.client.display_name,
                    reason=reason,
                    client=where.client.id,
                )
            )
    return found


def _problem(tools: ResolvedTools, sp: ServerPlan, probed: list[str], check: Check) -> str | None:
    server = sp.server
    if server.is_remote:
        return None
    python = (server.environment or Environment.current()).python
    paths = interpreter_paths(python, probed)
    reason = None
    # (a runner that starts it by name or with uvx has left module and script: not this env)
    if server.distribution and (server.module or server.script):
        reason = version_problem(tools.agent_tools.get(content.DIST_INFO), paths, python)
    if reason is None:
        reason = start_problem(server, paths)
    if reason is None and check == "connect":
        reason = _connect_problem(sp)
    return reason


def _connect_problem(sp: ServerPlan) -> str | None:
    from agenttools_runtime.mcp.probe import ProbeFailed, probe
    from agenttools_runtime.settings.secrets import mask

    try:
        probe(sp.server.command_line(), _probe_env(sp), CONNECT_TIMEOUT)
    except ProbeFailed as exc:
        return str(mask(str(exc), sp.secrets))
    return None


def _probe_env(sp: ServerPlan) -> dict[str, str]:
    """The entry's environment as the client gives it: a reference to a variable (project
    scope) becomes that variable's value here."""
    env = dict(sp.server.env)
    recorded: Mapping[str, Any] = sp.settings or {}
    for name, value in recorded.items():
        if isinstance(value, Mapping) and "reference" in value:
            env[name] = os.environ.get(str(value["reference"]), "")
    for name in sp.server.env_vars:
        env[name] = os.environ.get(name, "")
    return env
