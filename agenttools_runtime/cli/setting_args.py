"""``--env`` / ``--env-file``: the values of the settings a bundle's servers declare, as the
commands that take them (``deploy``, ``configure``, ``show --tools``; ``mcp install``'s
``--env``) parse them."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttools_runtime.cli.common import UsageError, nonempty

if TYPE_CHECKING:
    from agenttools_runtime.discovery import SearchPath


def add_setting_arguments(parser: argparse.ArgumentParser) -> None:
    """``--env`` and ``--env-file``: the values of the servers' declared settings."""
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        type=nonempty,
        metavar="SERVER.VAR=VALUE",
        help="the value of a setting a server declares (SERVER: its name in the bundle; "
        "plain VAR=VALUE for a bundle of one server); required ones not given are asked for "
        "on a terminal, secret ones without echo; see docs/settings.md",
    )
    parser.add_argument(
        "--env-file",
        action="append",
        default=[],
        type=nonempty,
        metavar="FILE",
        help="read such values from FILE (one VAR=VALUE or SERVER.VAR=VALUE a line, as in a "
        ".env file); --env wins over it",
    )


def given_settings(args: argparse.Namespace) -> list[Any]:
    """The ``--env-file`` and ``--env`` assignments, in that order (later ones win)."""
    from agenttools_runtime.settings.given import read_env_file

    with given_as_usage_error():
        found = [a for f in args.env_file for a in read_env_file(Path(f))]
    return found + env_assignments(args)


def env_assignments(args: argparse.Namespace) -> list[Any]:
    """The ``--env`` assignments; a usage error names one that is not ``NAME=VALUE`` by its
    position, never its text."""
    from agenttools_runtime.settings.given import parse_pairs

    with given_as_usage_error():
        return parse_pairs(args.env)


def settings_for(args: argparse.Namespace, search: SearchPath | None, tools: str | None) -> Any:
    """The values given, by server of the bundle *tools* (before anything is deployed); one
    for a setting its server does not declare is ``SettingNotDeclared``, by its position."""
    given = given_settings(args)
    if not given:
        return {}
    from agenttools_runtime.bundles import resolve_tools
    from agenttools_runtime.settings.given import by_server

    servers = resolve_tools(tools, search).servers()
    declared = {s.name: [setting.name for setting in s.settings] for s in servers}
    with given_as_usage_error():
        return by_server(given, declared)


@contextlib.contextmanager
def given_as_usage_error() -> Iterator[None]:
    """A :class:`~agenttools_runtime.settings.given.GivenError` inside (a value that is not
    ``NAME=VALUE``, an ``--env-file`` that cannot be read, a name of no server) as the usage
    error it is (exit 2), with its message."""
    from agenttools_runtime.settings.given import GivenError

    try:
        yield
    except GivenError as exc:
        raise UsageError(str(exc)) from None
