"""``python -m agenttools`` / ``agenttools``: the argparse front end. No logic lives here.

Each command group is a module of this package with a ``register(subparsers, common)``
function; handlers import what they need when they run, so ``--help`` and start-up stay fast.
``main(argv)`` returns the exit status: 0 ok, 1 failure, 2 usage. Expected failures
(:class:`AgentToolsError`) print their message — never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from agenttools_runtime import __version__

# Command modules, in the order their commands are listed by --help.
COMMAND_MODULES = (
    "agenttools_runtime.cli.clients",
    "agenttools_runtime.cli.skills",
    "agenttools_runtime.cli.mcp",
    "agenttools_runtime.cli.discovery",
    "agenttools_runtime.cli.deploy",
    "agenttools_runtime.cli.uri",
    "agenttools_runtime.cli.validate",
)

Handler = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """A command line that cannot be acted on (exit 2)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agenttools",
        description=(
            "Deploy the Agent Skills and MCP servers that installed Python distributions "
            "ship into AI clients (Claude Code, Cursor, Codex, Gemini CLI, VS Code, ...), "
            "tracked and reversible."
        ),
        epilog="Run 'agenttools COMMAND --help' for a command's options. "
        "Exit status: 0 ok, 1 failure, 2 usage.",
    )
    parser.add_argument("--version", action="version", version=f"agenttools {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(subparsers, common)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 for --help/--version
        return int(exc.code or 0)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    return run_handler(handler, args)


def run_handler(handler: Handler, args: argparse.Namespace) -> int:
    """Run one command: warnings to stderr (or into the JSON), expected errors as one message."""
    from agenttools_runtime.errors import AgentToolsError, AgentToolsWarning

    as_json = bool(getattr(args, "json", False))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AgentToolsWarning)
        try:
            status = handler(args)
        except AgentToolsError as exc:
            _print_warnings(caught, as_json)
            if as_json:
                print(json.dumps({"ok": False, "error": exc.to_json()}, indent=2))
            else:
                print(f"agenttools: {exc}", file=sys.stderr)
            return 1
        except UsageError as exc:
            print(f"agenttools: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("agenttools: interrupted", file=sys.stderr)
            return 130
    _print_warnings(caught, as_json)
    return status


def _print_warnings(caught: list[warnings.WarningMessage], as_json: bool) -> None:
    for item in caught:
        text = str(item.message)
        print(text if text.startswith("Warning") else f"Warning: {text}", file=sys.stderr)


def help_handler(parser: argparse.ArgumentParser) -> Handler:
    """A handler for a command group run without a subcommand: its help, exit 2."""

    def handler(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    return handler


def emit(args: argparse.Namespace, data: Any, text: str | Callable[[], str]) -> None:
    """Print *data* as JSON with ``--json``, else the human *text*."""
    if getattr(args, "json", False):
        print(json.dumps(data, indent=2, default=str))
    else:
        rendered = text() if callable(text) else text
        if rendered:
            print(rendered)


def add_target_arguments(parser: argparse.ArgumentParser, *, skills_dir: bool = True) -> None:
    """TARGET plus the options that select where a client's files are: the shared form of
    ``deploy``, ``skills`` and ``mcp``."""
    parser.add_argument(
        "target",
        metavar="TARGET",
        help="client id (claude-code, cursor, codex, ...; see 'agenttools clients')",
    )
    parser.add_argument(
        "--project",
        metavar="DIR",
        help="project scope: the client's files inside project directory DIR",
    )
    parser.add_argument(
        "--config", metavar="FILE", help="an explicit MCP config file instead of the client's own"
    )
    if skills_dir:
        parser.add_argument(
            "--skills-dir",
            metavar="DIR",
            help="install skills into DIR (a skills root holding skill folders)",
        )


def add_environment_arguments(parser: argparse.ArgumentParser) -> None:
    """``--python`` / ``--path``: discover distributions of another environment."""
    parser.add_argument(
        "--python",
        metavar="PATH",
        help="discover the distributions of the environment of this interpreter",
    )
    parser.add_argument(
        "--path",
        metavar="DIR",
        action="append",
        help="discover the distributions in this site-packages directory (repeatable)",
    )
