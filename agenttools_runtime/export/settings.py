"""A server's settings as another format sees them: each environment variable (or header) it
is started with, and whether that format may write its value or must leave it to the user.

:func:`server_settings` is the one place the formats take a server's settings from. A server has
the literal ``env`` of its declaration (and the literal ``headers`` of a url server): not
secret, written as they are; and its declared settings (``[...env.VAR]`` tables:
``required``, ``secret``, ``default``, ``choices``, ``description``) as
:class:`~agenttools_runtime.mcp.settings.Setting` values without a ``value``; every format
renders what this function returns through its own user-configurable settings, and never
writes a secret's value.
"""

from __future__ import annotations

from collections.abc import Sequence

from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.mcp.settings import Setting, SettingKind


def server_settings(server: MCPServer) -> tuple[Setting, ...]:
    """Every setting of *server*: its literal ``env`` (stdio servers) and ``headers`` (url
    servers), then its declared settings (:attr:`MCPServer.settings`), each once."""
    settings = [Setting(name, value) for name, value in server.env.items()]
    settings += [Setting(name, value, kind="header") for name, value in server.headers.items()]
    given = {(s.kind, s.name) for s in settings}
    settings += [s for s in server.settings if (s.kind, s.name) not in given]
    return tuple(settings)


def literal_values(settings: Sequence[Setting], kind: SettingKind) -> dict[str, str]:
    """The values a format writes as they are: those of the literal settings of *kind*."""
    return {
        s.name: s.value for s in settings if s.kind == kind and s.is_literal and s.value is not None
    }


def user_given(settings: Sequence[Setting], kind: SettingKind) -> tuple[Setting, ...]:
    """The settings of *kind* whose value the user gives (the declared ones)."""
    return tuple(s for s in settings if s.kind == kind and not s.is_literal)
