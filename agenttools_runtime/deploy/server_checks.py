"""The checks a deploy makes, before anything is written, that each stdio server of a target
can start from the entry it is about to write (``check="start"``, the default of every command
and function that writes entries: :mod:`agenttools_runtime.mcp.preflight`), or — ``check=
"connect"``, ``--check`` — that it starts and completes an MCP ``initialize`` within
:func:`connect_timeout` (:mod:`agenttools_runtime.mcp.probe`); ``"none"`` (``--no-check``)
checks nothing.

What "can start" means follows the entry as written, after its runner: ``python -m MODULE``
needs the interpreter and the module on its ``sys.path``; a console script by path needs the
file, executable; a command by name (a ``script`` runner's console script, ``uvx`` for a
portable ``uvx --from 'dist==X'`` entry, a declared ``command``) needs to be on the ``PATH``
— of this process, the nearest thing to the one the client starts servers with. A URL server
has nothing to start: it is not checked (reaching it is the client's business, at its time,
with its credentials).

Whatever *check* is, the built-in ``agenttools`` server is not written to run in an
interpreter without the MCP SDK (:func:`missing_sdk`)."""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from agenttools_runtime import errors
from agenttools_runtime.bundles import BUILTIN_SERVERS
from agenttools_runtime.deploy import content
from agenttools_runtime.deploy.resolved import ResolvedTools, ServerPlan
from agenttools_runtime.deploy.targets import DeployTarget
from agenttools_runtime.mcp.preflight import interpreter_paths, start_problem, version_problem
from agenttools_runtime.mcp.runners import RunnerChoice
from agenttools_runtime.mcp.server import Environment, MCPServer

Check = Literal["none", "start", "connect"]
CONNECT_TIMEOUT = 30.0  # seconds for a server to answer initialize (a cold interpreter, uvx)
TIMEOUT_VARIABLE = "AGENTTOOLS_CHECK_TIMEOUT"


def connect_timeout() -> float:
    """Seconds ``--check`` waits for a server's answer to ``initialize``: a positive
    ``AGENTTOOLS_CHECK_TIMEOUT`` when set, else :data:`CONNECT_TIMEOUT`."""
    try:
        value = float(os.environ.get(TIMEOUT_VARIABLE, ""))
    except ValueError:
        return CONNECT_TIMEOUT
    return value if value > 0 else CONNECT_TIMEOUT


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
    dist_info = tools.agent_tools.get(content.DIST_INFO)
    for sp in tools.servers:
        env, from_environment = _probe_env(sp)
        reason = entry_problem(
            sp.server,
            probed,
            check,
            dist_info=dist_info,
            env=env,
            # the secret values themselves (the plan maps each to its digest), and what the
            # entry's references take from this environment
            secrets=[*sp.secrets, *from_environment],
            by_script=sp.runner == "script",
        )
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


def entry_problem(
    server: MCPServer,
    probed: Sequence[str],
    check: Check,
    *,
    dist_info: str | None = None,
    env: Mapping[str, str] | None = None,
    secrets: Iterable[str] = (),
    by_script: bool = False,
) -> str | None:
    """Why the entry of *server* (as written: after its runner) would not start, or None:
    *check* as for :func:`server_problems`; *probed*: the ``sys.path`` discovery found its
    environment to have; *dist_info*: the copy whose skills are deployed (its entry must
    run that one); *env*: what the client gives it (``--check``; default its own ``env``);
    *secrets*: values masked in what a failed ``--check`` says; *by_script*: the entry
    starts the distribution's console script by name (the ``script`` runner), which runs
    the copy its environment imports."""
    if check == "none" or server.is_remote:
        return None
    python = (server.environment or Environment.current()).python
    paths = interpreter_paths(python, probed)
    reason = None
    # (a runner that starts it by name or with uvx has left module and script: not this env)
    if server.distribution and (server.module or server.script or by_script):
        reason = version_problem(dist_info, paths, python)
    if reason is None:
        reason = start_problem(server, paths)
    if reason is None and check == "connect":
        reason = _connect_problem(server, dict(server.env) if env is None else env, secrets)
    return reason


def _connect_problem(
    server: MCPServer, env: Mapping[str, str], secrets: Iterable[str]
) -> str | None:
    from agenttools_runtime.mcp.probe import ProbeFailed, probe
    from agenttools_runtime.settings.secrets import mask

    try:
        probe(server.command_line(), env, connect_timeout())
    except ProbeFailed as exc:
        return str(mask(str(exc), secrets))
    return None


def _probe_env(sp: ServerPlan) -> tuple[dict[str, str], list[str]]:
    """The entry's environment as the client gives it: a reference to a variable (project
    scope) becomes that variable's value here; and the values so taken from this
    environment (secrets, as far as anything may say)."""
    env = dict(sp.server.env)
    taken: list[str] = []
    recorded: Mapping[str, Any] = sp.settings or {}
    for name, value in recorded.items():
        if isinstance(value, Mapping) and "reference" in value:
            env[name] = os.environ.get(str(value["reference"]), "")
            taken.append(env[name])
    for name in sp.server.env_vars:
        env[name] = os.environ.get(name, "")
        taken.append(env[name])
    return env, taken


def missing_sdk(launches: Mapping[str, RunnerChoice]) -> errors.AgentToolsError | None:
    """``MCPSDKMissing`` when the built-in ``agenttools`` server would be written to run in
    an interpreter without the MCP SDK (the ``[serve]`` extra): it could never start."""
    builtin = BUILTIN_SERVERS["agenttools"]
    for key, choice in launches.items():
        if choice.runner == "uvx" or choice.server.name != builtin.name:
            continue  # uvx installs agenttools[serve] itself
        if choice.server.origin != builtin.origin:
            continue
        python = (choice.server.environment or Environment.current()).python
        if not has_mcp_sdk(python):
            return errors.MCPSDKMissing(
                feature=f'The built-in "agenttools" MCP server (config key "{key}", run by '
                f"{python})"
            )
    return None


def has_mcp_sdk(python: Path) -> bool:
    """Whether the interpreter *python* can import the MCP SDK (``mcp``), without importing
    it here (a subprocess for another interpreter)."""
    if os.path.abspath(python) == os.path.abspath(sys.executable):
        return importlib.util.find_spec("mcp") is not None
    import subprocess  # (only when another interpreter is asked)

    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('mcp') is None)"
    try:
        done = subprocess.run([os.fspath(python), "-c", probe], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0
