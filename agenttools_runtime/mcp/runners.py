"""The runner: how a ``module``/``script`` server's command is written into a config file.

- ``python``: the absolute interpreter of the environment the distribution is installed in
  (``/abs/venv/bin/python -m weather_tools.server``; a ``script`` server: the absolute path
  of its console script). Exactly this environment, on this machine only.
- ``script``: the distribution's console script by name (``weather-mcp``), found on the
  ``PATH`` the client runs with: works for a teammate who installed the package in the
  environment they start the client from.
- ``uvx``: ``uvx --from weather-tools==1.2.0 weather-mcp``: uv installs the pinned release
  from the package index on first use (the distribution must be published there).

A ``module`` server has a console script when exactly one of its distribution's
``[project.scripts]`` entry points lives in that module (``weather-mcp =
"weather_tools.server:main"`` for ``module = "weather_tools.server"``, whose ``if __name__ ==
"__main__"`` runs the same function). Project scope (a file a team commits) defaults to
``script`` when there is one, else ``python`` with an ``MCPEntryMachineSpecific`` warning;
user scope defaults to ``python``. ``command`` and ``url`` servers are written as declared:
no runner applies.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agenttools_runtime import errors
from agenttools_runtime.mcp.runner_names import RUNNERS
from agenttools_runtime.mcp.server import MCPServer, Origin

_SAYS = {
    "python": "the absolute path in its environment, on this machine only",
    "script": "the console script of {project}, found on the client's PATH",
    "uvx": "uvx installs {project} {version} from the package index on first use",
}


# Where ``uvx`` entries install from (``uvx --default-index URL --from …``) while a deploy
# from a managed environment of a non-default index runs (:func:`uvx_sources`).
_uvx_sources: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
    "agenttools_uvx_sources", default=()
)


@contextlib.contextmanager
def uvx_sources(arguments: tuple[str, ...]) -> Iterator[None]:
    """``uvx`` entries written in the block get these index options first
    (``("--default-index", URL)``; never credentials)."""
    token = _uvx_sources.set(tuple(arguments))
    try:
        yield
    finally:
        _uvx_sources.reset(token)


@dataclass(frozen=True, slots=True)
class RunnerChoice:
    """What is written for one server: ``server`` as written (a ``command`` server for
    ``script``/``uvx``), the ``runner`` (None for ``command``/``url`` servers) and whether
    it was the default (``chosen``) or asked for."""

    server: MCPServer
    runner: str | None
    chosen: bool = True

    @property
    def command_line(self) -> list[str] | None:
        """The command line written (None for a remote server)."""
        return None if self.server.is_remote else self.server.command_line()

    def describe(self) -> str:
        """The command line and why, for the deploy output."""
        if self.server.is_remote:
            return f"{self.server.url} ({self.server.transport})"
        line = " ".join(_quote(part) for part in self.command_line or ())
        if self.runner is None:
            return line
        origin = self.server.origin
        why = _SAYS[self.runner].format(
            project=origin.project if origin else "its distribution",
            version=origin.version if origin else "",
        )
        return f"{line} (runner {self.runner}: {why})"

    def to_json(self) -> dict[str, Any]:
        return {
            "server": self.server.qualified_name,
            "runner": self.runner,
            "default": self.chosen,
            "command": self.command_line,
            "url": self.server.url,
        }


def console_script(server: MCPServer) -> str | None:
    """The console script that starts *server* by name: its ``script``, or the one entry
    point of its distribution living in its ``module`` (None when there is none, or
    several)."""
    if server.script is not None:
        return server.script
    if server.module is None or server.origin is None:
        return None
    found = sorted(
        name for name, module in server.origin.scripts.items() if module == server.module
    )
    return found[0] if len(found) == 1 else None


def choose_runner(server: MCPServer, runner: str | None, *, project: bool) -> RunnerChoice:
    """How *server* is written: *runner* when given (``RunnerUnavailable`` when it cannot
    be used for this server), else the scope's default (see the module docstring)."""
    if runner is not None and runner not in RUNNERS:
        raise ValueError(f"unknown runner {runner!r}; use one of {', '.join(RUNNERS)}")
    if server.kind not in ("module", "script"):
        return RunnerChoice(server, None, chosen=runner is None)
    script = console_script(server)
    if runner is None:
        return RunnerChoice(
            _as_command(server, script, server.args) if project and script else server,
            "script" if project and script else "python",
        )
    if runner == "python":
        return RunnerChoice(server, "python", chosen=False)
    if script is None:
        raise errors.RunnerUnavailable(
            server=server.qualified_name,
            runner=runner,
            reason=f"its distribution has no console script that runs the module {server.module} "
            "(declare one in [project.scripts], or use --runner python)",
        )
    if runner == "script":
        return RunnerChoice(_as_command(server, script, server.args), "script", chosen=False)
    origin = server.origin
    if origin is None:
        raise errors.RunnerUnavailable(
            server=server.qualified_name,
            runner=runner,
            reason="it does not come from an installed distribution uv could install",
        )
    args = (*_uvx_sources.get(), "--from", pinned_requirement(origin), script, *server.args)
    return RunnerChoice(_as_command(server, "uvx", args), "uvx", chosen=False)


def pinned_requirement(origin: Origin) -> str:
    """What ``uvx --from`` installs: the distribution with its extras, at the version the
    server comes from (``weather-tools[cli]==1.2.0``)."""
    extras = f"[{','.join(origin.extras)}]" if origin.extras else ""
    return f"{origin.project}{extras}=={origin.version}"


def machine_specific_warning(
    choice: RunnerChoice, key: str, config_file: Path | str
) -> errors.MCPEntryMachineSpecific | None:
    """The warning for a project file entry that holds an absolute path of this machine."""
    if choice.runner != "python":
        return None
    command = (choice.command_line or [""])[0]
    hint = (
        "Use --runner script or --runner uvx for a command that works on other machines."
        if console_script(choice.server)
        else "Its distribution has no console script for it: declare one in "
        "[project.scripts] (and use --runner script) for a portable command."
    )
    return errors.MCPEntryMachineSpecific(
        key=key, config_file=str(config_file), command=command, hint=hint
    )


def _as_command(server: MCPServer, command: str, args: tuple[str, ...]) -> MCPServer:
    return replace(server, module=None, script=None, command=command, args=tuple(args))


def _quote(part: str) -> str:
    if part and all(c.isalnum() or c in "-_./:=@%+," or c == os.sep for c in part):
        return part
    return "'" + part.replace("'", "'\"'\"'") + "'"
