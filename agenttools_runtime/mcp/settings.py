"""The settings a server is started with (environment variables, HTTP headers, argument values)
and how the values a user must give are gathered: from ``--env NAME=VALUE``, else asked on a
terminal (secrets without echo), else one error listing every one missing.

``mcp install --server-json`` uses it for the inputs a ``server.json`` declares; the declared
settings of ``[tool.agenttools.mcp-servers.NAME.env.VAR]`` (deploy's ``--env``) are the same
:class:`Setting` values and go through the same :func:`resolve_values`.
"""

from __future__ import annotations

import getpass
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, TextIO

from agenttools_runtime import errors

SettingKind = Literal["env", "header", "arg", "url"]


@dataclass(frozen=True, slots=True)
class Setting:
    """One value a server is started with: an environment variable (``kind="env"``), an HTTP
    header (``"header"``), a command-line argument (``"arg"``) or a variable of a URL template
    (``"url"``). ``value`` is the author's literal value (written as it is; never a
    secret's); without one the user gives it, asked for with ``description``, ``required``,
    ``secret``, ``default`` and ``choices``."""

    name: str
    value: str | None = None
    kind: SettingKind = "env"
    description: str | None = None
    required: bool = False
    secret: bool = False
    default: str | None = None
    choices: tuple[str, ...] = ()

    @property
    def is_literal(self) -> bool:
        """Whether the author gave the value, so it is written as it is (never a secret)."""
        return self.value is not None and not self.secret


Ask = Callable[[Setting], str]


def resolve_values(
    server: str,
    settings: Sequence[Setting],
    given: Mapping[str, str],
    ask: Ask | None,
) -> dict[str, str]:
    """The value of every setting of *server* that has one, by name: the literal value, else
    the one *given* (``--env``), else — for a required setting — the answer to *ask* (None:
    not on a terminal), else its default. A required setting left
    without a value is listed in one ``RequiredSettingsMissing``; a value outside a
    setting's ``choices`` is ``SettingValueInvalid``. Optional settings without a value or a
    default are left out. A value given for no setting of *server* is
    ``SettingNotDeclared`` (a typo would otherwise pass unnoticed)."""
    known = {s.name for s in settings}
    if any(name not in known for name in given):
        # (not named: a secret typed without its name reads as one; the CLI says by position)
        names = ", ".join(sorted(known)) or "none"
        raise errors.SettingNotDeclared(given="A value given", server=server, settings=names)
    values: dict[str, str] = {}
    missing: list[str] = []
    for setting in settings:
        value = setting.value if setting.is_literal else given.get(setting.name)
        if value is None and ask is not None and setting.required:
            value = ask(setting) or setting.default
        if value is None:
            value = setting.default
        if value is None:
            if setting.required:
                missing.append(setting.name)
            continue
        if setting.choices and value not in setting.choices:
            reason = f"must be one of {', '.join(setting.choices)}"
            raise errors.SettingValueInvalid(name=setting.name, server=server, reason=reason)
        values[setting.name] = value
    if missing:
        raise errors.RequiredSettingsMissing(server=server, names=missing)
    return values


def is_terminal(*streams: TextIO | None) -> bool:
    """Whether every one of *streams* is a terminal (a stream is None in a process started
    with it closed)."""
    return all(s is not None and s.isatty() for s in streams)


def terminal_ask() -> Ask | None:
    """A prompt on the terminal (a secret without echo), or None when stdin or stderr is
    not a terminal (a script, CI): then nothing is asked."""
    if not is_terminal(sys.stdin, sys.stderr):
        return None

    def ask(setting: Setting) -> str:
        hints = []
        if setting.choices:
            hints.append("/".join(setting.choices))
        if setting.default:
            hints.append(f"default {setting.default}")
        label = f"{setting.name} ({setting.description})" if setting.description else setting.name
        prompt = label + (f" [{', '.join(hints)}]" if hints else "") + ": "
        if setting.secret:
            return getpass.getpass(prompt, stream=sys.stderr)
        print(prompt, end="", file=sys.stderr, flush=True)
        return sys.stdin.readline().rstrip("\r\n")

    return ask
