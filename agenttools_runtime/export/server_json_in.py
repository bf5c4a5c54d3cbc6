"""Reading a ``server.json`` of the MCP registry (``agenttools mcp install --server-json FILE``):
the server it describes as an entry any client can run.

- a ``pypi`` package: ``uvx [runtime arguments] IDENTIFIER==VERSION [package arguments]``;
- an ``npm`` package: ``npx -y [runtime arguments] IDENTIFIER@VERSION [package arguments]``;
- otherwise the first remote: its URL and headers.

The file is untrusted: it is read only when it is a regular file of at most
:data:`MAX_BYTES`, parsed within the nesting limits, validated against the registry's published
schema, and every value that becomes part of a command line is checked beyond the schema (a
package name, a version, an environment variable's or header's name), so that one clear error
names the first problem and nothing is written. The inputs it declares (``environmentVariables``,
header values, argument values, URL variables: ``isRequired``, ``isSecret``, ``default``,
``choices``) are :class:`~agenttools_runtime.mcp.settings.Setting` values, which the caller
resolves (asked on a terminal, or given) before :meth:`RegistryServer.server`.
"""

from __future__ import annotations

import json
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from agenttools_runtime import errors, names
from agenttools_runtime.export.server_json import SCHEMA_FILE
from agenttools_runtime.export.validation import problems
from agenttools_runtime.limits import shape_problem
from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.mcp.settings import Setting, SettingKind

if TYPE_CHECKING:
    from agenttools_runtime.mcp.server import Transport

MAX_BYTES = 1_000_000  # real server.json files are a few kilobytes
MAX_TEXT = 4096  # characters of one value
RUNNERS = {"pypi": "uvx", "npm": "npx"}
NPM_NAME = r"(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*"
VERSION = r"[A-Za-z0-9][A-Za-z0-9._+!-]*"  # exact: no ranges, no spaces, no shell syntax
ENV_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
HEADER_NAME = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
TRANSPORTS: dict[str, Transport] = {"streamable-http": "http", "sse": "sse"}


@dataclass(frozen=True, slots=True)
class RegistryServer:
    """The server a ``server.json`` describes, as one launch. Values may hold ``{name}``
    placeholders of :attr:`settings` (the inputs the file declares); :meth:`server` fills
    them in."""

    name: str
    version: str
    description: str | None
    kind: str  # "pypi", "npm" or "remote"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    url: str | None = None
    transport: Transport = "stdio"
    headers: tuple[tuple[str, str], ...] = ()
    settings: tuple[Setting, ...] = ()

    @property
    def key(self) -> str:
        """The entry's default key: the name after the namespace (``io.github.x/weather``
        → ``weather``)."""
        return self.name.rpartition("/")[2]

    @property
    def secrets(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.settings if s.secret)

    def server(self, values: Mapping[str, str]) -> MCPServer:
        """The server with *values* (by setting name) filled in; an environment variable,
        header or argument whose value is an optional setting without a value is left out."""
        known = {s.name for s in self.settings}

        def fill(template: str) -> str | None:
            return _fill(template, values, known)

        return MCPServer(
            name=self.key,
            command=self.command,
            url=None if self.url is None else fill(self.url) or self.url,
            args=tuple(v for v in (fill(a) for a in self.args) if v is not None),
            env={k: v for k, t in self.env if (v := fill(t)) is not None},
            transport=self.transport,
            headers={k: v for k, t in self.headers if (v := fill(t)) is not None},
            description=self.description,
        )


def read_server_json(path: Path) -> RegistryServer:
    """The server of the ``server.json`` at *path*. Raises ``ServerJsonInvalid`` (not a
    regular file, too large, not JSON, nested too deep, against the schema, a value that
    cannot go into a command line) or ``ServerJsonUnsupported`` (no pypi or npm package and
    no remote, or a package that is not run over stdio)."""
    document = _load(path)
    found = problems(document, SCHEMA_FILE)
    if found:
        raise errors.ServerJsonInvalid(file=str(path), reason=f"{found[0]} (the registry's schema)")
    return _Reader(path).server(document)


# -- reading ----------------------------------------------------------------------------------
def _load(path: Path) -> Any:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise errors.ServerJsonInvalid(file=str(path), reason=exc.strerror or str(exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise errors.ServerJsonInvalid(file=str(path), reason="it is not a regular file")
        if info.st_size > MAX_BYTES:
            reason = f"it is {info.st_size:,} bytes; a server.json is at most {MAX_BYTES:,}"
            raise errors.ServerJsonInvalid(file=str(path), reason=reason)
        data = os.read(fd, MAX_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES:  # (grew since the stat)
        raise errors.ServerJsonInvalid(file=str(path), reason=f"it is over {MAX_BYTES:,} bytes")
    try:
        value = json.loads(data)
    except RecursionError:
        raise errors.ServerJsonInvalid(file=str(path), reason="it is nested too deep") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise errors.ServerJsonInvalid(file=str(path), reason=f"not JSON ({exc})") from None
    shape = shape_problem(value)
    if shape is not None:
        raise errors.ServerJsonInvalid(file=str(path), reason=f"it is {shape}")
    return value


class _Reader:
    """One reading of a schema-valid document: its inputs, collected as they are met."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.settings: dict[str, Setting] = {}

    def fail(self, where: str, reason: str) -> errors.ServerJsonInvalid:
        return errors.ServerJsonInvalid(file=str(self.path), reason=f"at {where}: {reason}")

    def server(self, document: dict[str, Any]) -> RegistryServer:
        name, version = document["name"], document["version"]
        self.text("/version", version, VERSION)
        description = document.get("description")
        for index, package in enumerate(document.get("packages") or ()):
            if package.get("registryType") in RUNNERS:
                return self.package(f"/packages/{index}", package, name, description)
        for index, remote in enumerate(document.get("remotes") or ()):
            return self.remote(f"/remotes/{index}", remote, name, version, description)
        kinds = sorted({str(p.get("registryType")) for p in document.get("packages") or ()})
        listed = f" (its packages: {', '.join(kinds)})" if kinds else ""
        raise errors.ServerJsonUnsupported(
            file=str(self.path),
            reason=f"it describes no pypi or npm package and no remote{listed}; agenttools "
            "installs those",
        )

    def package(
        self, where: str, package: dict[str, Any], name: str, description: str | None
    ) -> RegistryServer:
        registry = package["registryType"]
        identifier = package["identifier"]
        pattern = names.DIST_NAME_PATTERN if registry == "pypi" else NPM_NAME
        self.text(f"{where}/identifier", identifier, pattern, what=f"a {registry} package name")
        version = package.get("version")
        if not isinstance(version, str):
            raise self.fail(where, f"a {registry} package needs its exact version")
        self.text(f"{where}/version", version, VERSION, what="an exact version")
        runner = RUNNERS[registry]
        hint = package.get("runtimeHint")
        if hint is not None and hint != runner:
            raise errors.ServerJsonUnsupported(
                file=str(self.path),
                reason=f"at {where}/runtimeHint: agenttools runs {registry} packages with {runner}, "
                f'not "{str(hint)[:40]}"',
            )
        transport = package["transport"]["type"]
        if transport != "stdio":
            raise errors.ServerJsonUnsupported(
                file=str(self.path),
                reason=f"at {where}/transport: the package serves {transport}; agenttools "
                "starts packages that serve stdio",
            )
        args = [*self.arguments(f"{where}/runtimeArguments", package.get("runtimeArguments"))]
        base = package.get("registryBaseUrl")
        if base is not None:
            self.url(f"{where}/registryBaseUrl", base)
        if registry == "pypi":
            if base is not None and urlsplit(base).hostname != "pypi.org":
                args += ["--default-index", base.rstrip("/") + "/simple"]
            args.append(f"{identifier}=={version}")
        else:
            if base is not None and urlsplit(base).hostname != "registry.npmjs.org":
                args += ["--registry", base]
            args = ["-y", *args, f"{identifier}@{version}"]
        args += self.arguments(f"{where}/packageArguments", package.get("packageArguments"))
        env = self.pairs(
            f"{where}/environmentVariables", package.get("environmentVariables"), "env"
        )
        return RegistryServer(
            name=name,
            version=version,
            description=description,
            kind=registry,
            command=runner,
            args=tuple(args),
            env=env,
            settings=tuple(self.settings.values()),
        )

    def remote(
        self, where: str, remote: dict[str, Any], name: str, version: str, description: str | None
    ) -> RegistryServer:
        for variable, spec in (remote.get("variables") or {}).items():
            self.setting(f"{where}/variables/{variable}", variable, spec, "url")
        url = remote["url"]
        self.text(f"{where}/url", url)
        self.url(f"{where}/url", VARIABLE.sub("x", url))
        headers = self.pairs(f"{where}/headers", remote.get("headers"), "header")
        return RegistryServer(
            name=name,
            version=version,
            description=description,
            kind="remote",
            url=url,
            transport=TRANSPORTS[remote["type"]],
            headers=headers,
            settings=tuple(self.settings.values()),
        )

    def arguments(self, where: str, items: Any) -> list[str]:
        out: list[str] = []
        for index, item in enumerate(items or ()):
            place = f"{where}/{index}"
            self.variables(place, item)
            if item["type"] != "named":  # (the schema requires a valueHint without a value)
                out.append(self.value(place, item, item.get("valueHint", ""), "arg"))
                continue
            flag = item["name"]
            self.text(f"{place}/name", flag, r"-{1,2}[A-Za-z0-9][A-Za-z0-9._-]*")
            if item.get("value") is None and not (item.get("isRequired") or "default" in item):
                out.append(flag)  # a flag without a value
                continue
            out.append(f"{flag}={self.value(place, item, flag.lstrip('-'), 'arg')}")
        return out

    def pairs(self, where: str, items: Any, kind: SettingKind) -> tuple[tuple[str, str], ...]:
        out = []
        pattern = ENV_NAME if kind == "env" else HEADER_NAME
        for index, item in enumerate(items or ()):
            place = f"{where}/{index}"
            key = item["name"]
            self.text(f"{place}/name", key, pattern, what="a name")
            self.variables(place, item)
            out.append((key, self.value(place, item, key, kind)))
        return tuple(out)

    def value(self, where: str, item: dict[str, Any], name: str, kind: SettingKind) -> str:
        """*item*'s value, else the ``{placeholder}`` of the input *name* it then declares."""
        value = item.get("value")
        if value is None:
            self.setting(where, name, item, kind)
            value = "{" + _ident(name) + "}"
        self.text(f"{where}/value", value)
        return value

    def variables(self, where: str, item: dict[str, Any]) -> None:
        for variable, spec in (item.get("variables") or {}).items():
            self.setting(f"{where}/variables/{variable}", variable, spec, "env")

    def setting(self, where: str, name: str, spec: dict[str, Any], kind: SettingKind) -> None:
        ident = _ident(name)
        if not ident:
            raise self.fail(where, f'"{name[:40]}" cannot name an input')
        choices = tuple(spec.get("choices") or ())
        default = spec.get("default")
        for text in (*choices, *([default] if default is not None else [])):
            self.text(where, text)
        described = spec.get("description")
        self.settings.setdefault(
            ident,
            Setting(
                name=ident,
                kind=kind,
                description=described[:MAX_TEXT] if isinstance(described, str) else None,
                required=bool(spec.get("isRequired")),
                secret=bool(spec.get("isSecret")),
                default=default,
                choices=choices,
            ),
        )

    def text(self, where: str, value: str, pattern: str | None = None, *, what: str = "") -> None:
        if len(value) > MAX_TEXT or any(c in value for c in "\0\r\n"):
            raise self.fail(where, "the value is too long or holds a NUL or a line break")
        if pattern is not None and re.fullmatch(pattern, value) is None:
            shown = value if len(value) <= 60 else value[:57] + "..."
            raise self.fail(where, f"{json.dumps(shown)} is not {what or 'allowed here'}")

    def url(self, where: str, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc or " " in url:
            raise self.fail(where, f"{json.dumps(url[:60])} is not an http(s) URL")


def _ident(name: str) -> str:
    """The name of an input, as ``{placeholders}`` spell it."""
    return re.sub(r"\W", "_", name).strip("_") if name else ""


def _fill(template: str, values: Mapping[str, str], known: set[str]) -> str | None:
    """*template* with every ``{name}`` of an input (*known*) replaced by its value; None when
    one has none (the entry is left out). Other braces stay as they are."""
    missing = False

    def replace(match: re.Match[str]) -> str:
        nonlocal missing
        name = match.group(1)
        if name in values:
            return values[name]
        if name in known:
            missing = True
        return match.group(0)

    filled = VARIABLE.sub(replace, template)
    return None if missing else filled
