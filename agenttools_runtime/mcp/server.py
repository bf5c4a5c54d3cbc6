"""``MCPServer``: a declaration of how to start one MCP server (the ``[tool.agenttools.mcp-servers]``
table of a distribution, or an ad hoc value), and how it launches in a given environment."""

from __future__ import annotations

import os
import re
import sys
import sysconfig
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agenttools_runtime import errors, regular_files
from agenttools_runtime.mcp.settings import Setting
from agenttools_runtime.schema import PLACEHOLDER
from agenttools_runtime.wheel.manifest import ServerEntry

if TYPE_CHECKING:
    ServerKind = Literal["module", "script", "command", "url"]
    Transport = Literal["stdio", "http", "sse"]

LAUNCH_KEYS: tuple[ServerKind, ...] = ("module", "script", "command", "url")


@dataclass(frozen=True, slots=True)
class Environment:
    """The Python environment a distribution is installed in: where its interpreter and
    console scripts are. ``module`` / ``script`` servers are launched from it."""

    python: Path
    scripts_dir: Path

    @classmethod
    def current(cls) -> Environment:
        """This interpreter's environment, its interpreter by the one name whichever
        launched it (``python3 -m agenttools``, a console script whose ``#!`` says
        ``python3.12``, ``python -m agenttools``): ``python`` beside it when that is the same
        file, so what a deployment records and writes does not depend on the launcher."""
        return cls(_canonical_python(Path(sys.executable)), Path(sysconfig.get_path("scripts")))

    def script_path(self, script: str, platform: str | None = None) -> Path:
        platform = sys.platform if platform is None else platform
        name = f"{script}.exe" if platform == "win32" else script
        return self.scripts_dir / name


@dataclass(frozen=True, slots=True)
class Origin:
    """The installed distribution that declares a server, as a portable command needs it:
    its name as published (``project``, with ``extras`` to install), its ``version``, and
    its console scripts, each mapped to the module that ``python -m`` runs to the same
    effect (``{"weather-mcp": "weather_tools.server"}``)."""

    project: str
    version: str
    scripts: Mapping[str, str] = field(default_factory=dict)
    extras: tuple[str, ...] = ()

    @classmethod
    def of_dist_info(cls, project: str, version: str, dist_info: Path) -> Origin:
        """Read the console scripts from ``<dist_info>/entry_points.txt`` (none when it is
        missing or unreadable)."""
        try:
            text = regular_files.read_bytes(dist_info / "entry_points.txt").decode("utf-8")
        except (OSError, UnicodeDecodeError):
            text = ""
        return cls(project, version, console_scripts(text))


def _filled(arg: str, values: Mapping[str, str], placeholders: set[str]) -> str | None:
    """*arg* with its ``{name}`` placeholders filled in; None (left out) when one of them
    has no value."""
    missing = False

    def value(match: re.Match[str]) -> str:
        nonlocal missing
        name = match.group(1)
        if name not in placeholders:
            return match.group(0)
        if name not in values:
            missing = True
            return ""
        return values[name]

    filled = PLACEHOLDER.sub(value, arg)
    return None if missing else filled


def _canonical_python(executable: Path) -> Path:
    """*executable* as ``python`` (``python.exe``) of its directory when that is the same
    file; never resolved through links (a venv's interpreter is a link out of the venv)."""
    name = "python.exe" if executable.suffix.lower() == ".exe" else "python"
    candidate = executable.with_name(name)
    if candidate == executable:
        return executable
    try:
        return candidate if os.path.samefile(candidate, executable) else executable
    except OSError:
        return executable


def console_scripts(text: str) -> dict[str, str]:
    """``[console_scripts]`` of an ``entry_points.txt``: script name -> module
    (``name = pkg.mod:func [extra]`` gives ``pkg.mod``)."""
    found: dict[str, str] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
            continue
        name, sep, value = line.partition("=")
        if section == "console_scripts" and sep:
            module = value.split("[", 1)[0].split(":", 1)[0].strip()
            if name.strip() and module:
                found[name.strip()] = module
    return found


@dataclass(frozen=True, slots=True)
class MCPServer:
    """One MCP server declaration. Exactly one of ``module``, ``script``, ``command``, ``url``.

    ``distribution`` is the PEP 503-normalized name of the distribution that declares it
    (None for ad hoc servers); ``environment`` is where ``module``/``script`` servers run
    (None: the current interpreter's); ``origin`` what a portable command needs to know of
    that distribution (see :mod:`agenttools_runtime.mcp.runners`); it is not compared.
    """

    name: str
    module: str | None = None
    script: str | None = None
    command: str | None = None
    url: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    transport: Transport = "stdio"
    headers: Mapping[str, str] = field(default_factory=dict)
    description: str | None = None
    config_key: str | None = None
    distribution: str | None = None
    environment: Environment | None = None
    origin: Origin | None = field(default=None, compare=False)
    # the declared settings whose values the user gives (``env``/``headers`` hold the
    # literal ones, and after :meth:`configured` the given ones too)
    settings: tuple[Setting, ...] = ()
    # variables the client passes from its own environment (a client whose entries name
    # them in a list, Codex's env_vars), and headers whose value is such a variable
    env_vars: tuple[str, ...] = ()
    header_vars: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        launch = (self.module, self.script, self.command, self.url)
        given = [k for k, v in zip(LAUNCH_KEYS, launch, strict=True) if v is not None]
        if len(given) != 1:
            raise errors.InvalidAgentToolsObject(
                reason=f'MCP server "{self.name}" needs exactly one of module, script, command, '
                f"url (has {', '.join(given) or 'none'})"
            )
        if self.url is None and self.transport != "stdio":
            raise errors.InvalidAgentToolsObject(
                reason=f'MCP server "{self.name}": transport "{self.transport}" needs a url'
            )
        if self.url is not None and self.transport == "stdio":
            object.__setattr__(self, "transport", "http")

    def configured(self, values: Mapping[str, str]) -> MCPServer:
        """The server with the values of its declared settings (by name) added to its
        environment or headers, in declaration order; a setting without a value is left
        out."""
        env, headers = dict(self.env), dict(self.headers)
        for setting in self.settings:
            if setting.name in values and setting.kind != "arg":
                (env if setting.kind == "env" else headers)[setting.name] = values[setting.name]
        placeholders = {s.name for s in self.settings if s.kind == "arg"}
        args = self.args
        if placeholders:
            args = tuple(
                a for a in (_filled(a, values, placeholders) for a in args) if a is not None
            )
        return replace(self, env=env, headers=headers, args=args)

    @property
    def kind(self) -> ServerKind:
        for key in LAUNCH_KEYS:
            if getattr(self, key) is not None:
                return key
        raise AssertionError("unreachable")  # pragma: no cover

    @property
    def key(self) -> str:
        """The key written into client configs: ``config_key``, else the name."""
        return self.config_key or self.name

    @property
    def qualified_name(self) -> str:
        return f"{self.distribution}/{self.name}" if self.distribution else self.name

    @property
    def is_remote(self) -> bool:
        return self.url is not None

    def launch(self, platform: str | None = None) -> tuple[str, list[str]]:
        """``(command, args)`` with absolute paths of the environment, for stdio servers."""
        env = self.environment or Environment.current()
        if self.module is not None:
            return os.fspath(env.python), ["-m", self.module, *self.args]
        if self.script is not None:
            return os.fspath(env.script_path(self.script, platform)), list(self.args)
        if self.command is not None:
            return self.command, list(self.args)
        raise ValueError(f'MCP server "{self.name}" is remote ({self.url}); it has no command')

    def command_line(self, platform: str | None = None) -> list[str]:
        command, args = self.launch(platform)
        return [command, *args]

    @classmethod
    def from_declaration(cls, name: str, table: Mapping[str, Any]) -> MCPServer:
        """Build an ad hoc server from a ``[tool.agenttools.mcp-servers.<name>]`` table (or
        its manifest copy, which uses the same keys), checked by the same schema as the build
        hook checks it: ``InvalidAgentToolsObject`` naming the key of the wrong type or
        value."""
        try:
            entry = ServerEntry.from_table(name, table)
        except ValueError as exc:
            raise errors.InvalidAgentToolsObject(reason=f'MCP server "{name}": {exc}') from None
        return cls.from_entry(entry)

    @classmethod
    def from_entry(
        cls,
        entry: ServerEntry,
        *,
        distribution: str | None = None,
        environment: Environment | None = None,
        origin: Origin | None = None,
    ) -> MCPServer:
        """The server of a manifest's (already checked) entry."""
        return cls(
            name=entry.name,
            module=entry.module,
            script=entry.script,
            command=entry.command,
            url=entry.url,
            args=entry.args or (),
            env=entry.env or {},
            transport=entry.transport or ("http" if entry.url is not None else "stdio"),
            headers=entry.headers or {},
            description=entry.description,
            config_key=entry.config_key,
            distribution=distribution,
            environment=environment,
            origin=origin,
            settings=entry.settings,
        )
