"""``agenttools`` / ``python -m agenttools``: the command line, one argparse parser.

Each command group is a module of this package with a ``register(subparsers)`` function
that adds its commands (their help, options and handler); ``COMMAND_MODULES`` lists them and
their commands in the order ``agenttools --help`` shows them, and a new module is one more
line there. Handlers import the library they need when they run: the parser is all a command's
start-up builds. ``main(argv)`` is the one error boundary and returns the exit status: 0 ok,
1 failure, 2 usage. Expected failures (:class:`AgentToolsError`) print their message, never
a traceback; so does an ``OSError`` from any file operation (one line: the operation, the
path, the system's reason; exit 1). An interrupted command says what became of its work. A
closed output pipe (``agenttools list | head -1``) ends the command quietly with the status
of a process killed by SIGPIPE (141).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import json
import os
import sys
import warnings
from collections.abc import Sequence

from agenttools_runtime import __version__, fs
from agenttools_runtime.cli.common import Handler, Parser, UsageError, warning_line
from agenttools_runtime.errors import AgentToolsError, AgentToolsWarning, FileOperationFailed

# The modules of this package that register the commands, and the commands each registers,
# in the order --help lists them. argparse builds a parser for every subcommand up front (a
# sixth of `agenttools list`'s whole process); a command line that names a command imports
# and builds only its module, which is all that reads its arguments.
COMMAND_MODULES = {
    "clients": ("clients",),
    "skills": ("skills",),
    "mcp": ("mcp",),
    "discovery": ("list", "show"),
    "deploy": ("deploy", "deployed", "remove"),
    "configure": ("configure",),
    "lifecycle": ("verify", "sync"),
    "project": ("add", "drop", "lock"),
    "doctor": ("doctor",),
    "envs": ("envs",),
    "uri": ("skill", "serve"),
    "validate": ("validate",),
    "bundle": ("bundle",),
    "export": ("export", "server-json"),
    "completion": ("completion",),
}
COMMAND_OWNERS = {name: module for module, names in COMMAND_MODULES.items() for name in names}

DESCRIPTION = (
    "Deploy the Agent Skills and MCP servers that installed Python distributions ship into AI "
    "clients (Claude Code, Cursor, Codex, Gemini CLI, VS Code, ...), tracked and reversible."
)
EPILOG = (
    "Run 'agenttools COMMAND --help' for a command's options. "
    "Exit status: 0 ok, 1 failure, 2 usage."
)

# The exit status of a process that SIGPIPE ended (128 + 13), as `cmd | head` expects.
CLOSED_PIPE = 141


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The command-line parser: every command of every module of ``COMMAND_MODULES``; given
    the first word of a command line that is a *command*, only the commands of the module
    that registers it (the same parsers: their usage, help and errors do not change).
    ``completion`` describes the whole command line and gets every command."""
    owner = COMMAND_OWNERS.get(command) if command is not None else None
    modules = list(COMMAND_MODULES) if owner is None or owner == "completion" else [owner]
    parser = Parser(prog="agenttools", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"agenttools {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    # the whole command line, for the commands that describe it (completion scripts)
    parser.set_defaults(root_parser=parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command *argv* (by default this process's command line) and return its exit
    status."""
    words = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(words[0] if words else None)
    try:
        args = parser.parse_args(words)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 for --help/--version
        return int(exc.code or 0)
    except BrokenPipeError:  # (--help into a reader gone away)
        return _closed_pipe()
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:  # no command
        parser.print_help(sys.stderr)
        return 2
    try:
        status = _run(handler, args)
        # flushed here, not at exit, so that a reader gone away is seen (and is quiet)
        sys.stdout.flush()
    except BrokenPipeError:
        return _closed_pipe()
    return status


def _run(handler: Handler, args: argparse.Namespace) -> int:
    """Run one command: warnings to stderr, expected errors as one message."""
    as_json = bool(getattr(args, "json", False))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AgentToolsWarning)
        try:
            status = handler(args)
        except AgentToolsError as exc:
            _print_warnings(caught)
            _print_error(exc, as_json, _hint(exc, args))
            return 1
        except UsageError as exc:
            print(f"agenttools: {exc}", file=sys.stderr)
            return 2
        except BrokenPipeError:
            raise  # our output's reader went away: main() ends quietly
        except OSError as exc:  # a file operation the system refused, after any rollback
            _print_warnings(caught)
            _print_error(_file_error(exc), as_json)
            return 1
        except KeyboardInterrupt as exc:  # SIGINT, or SIGTERM during a locked operation
            _print_warnings(caught)
            outcome = getattr(exc, "outcome", "")
            print(f"agenttools: interrupted{'; ' + outcome if outcome else ''}", file=sys.stderr)
            return int(getattr(exc, "exit_status", 130))
    _print_warnings(caught)
    return status


def _closed_pipe() -> int:
    """The reader of our output went away: write nothing more, say nothing (the interpreter
    would print an error flushing what is still buffered at exit)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        except (AttributeError, OSError, ValueError):  # no file descriptor (a test's buffer)
            pass
    return CLOSED_PIPE


def _hint(error: AgentToolsError, args: argparse.Namespace) -> str:
    """ "Did you mean" for a bundle or server name that was not found (in the environment
    the command looked in)."""
    from agenttools_runtime.cli.discovery import search_from_args
    from agenttools_runtime.name_hints import NAME_ERRORS, hint_for

    if error.tag not in NAME_ERRORS:
        return ""
    try:
        search = search_from_args(args, quiet=True)
    except (AgentToolsError, UsageError):
        return ""
    return hint_for(error, search)


def _print_error(exc: AgentToolsError, as_json: bool, hint: str = "") -> None:
    if as_json:
        error = exc.to_json()
        if hint:
            error["hint"] = hint.strip()
        print(json.dumps({"ok": False, "error": error}, indent=2))
    else:
        print(f"agenttools: {exc}{hint}", file=sys.stderr)


def _print_warnings(caught: list[warnings.WarningMessage]) -> None:
    # a command may meet the same state twice (doctor --fix recovers before and after its
    # fixes): a line already printed is not printed again
    for line in dict.fromkeys(warning_line(item.message) for item in caught):
        print(line, file=sys.stderr)


def _file_error(exc: OSError) -> FileOperationFailed:
    """The one-line error for *exc*: the operation and path that
    :func:`agenttools_runtime.fs.failure_of` recorded, else the path(s) the error names."""

    def name(value: object) -> str:
        return os.fsdecode(value) if isinstance(value, (str, bytes)) else str(value)

    reason = exc.strerror or str(exc) or type(exc).__name__
    code = errno.errorcode.get(exc.errno) if exc.errno is not None else None
    if code is not None:
        reason += f" ({code})"
    failure = fs.failure_of(exc)
    if failure is not None:
        verb, path = fs.OPERATIONS.get(failure[0], failure[0]), str(failure[1])
        other = None if exc.filename is None else name(exc.filename)
        if other is not None and other != path and not _is_temp_file_of(other, path):
            reason += f": {other}"  # e.g. the file inside a tree being deleted
    elif exc.filename is not None and exc.filename2 is not None:
        verb, path = "move", f"{name(exc.filename)} to {name(exc.filename2)}"
    elif exc.filename is not None:
        verb, path = "access", name(exc.filename)
    else:
        verb, path = "complete a file operation", "here"
    return FileOperationFailed(operation=verb, path=path, reason=reason, errno=exc.errno)


def _is_temp_file_of(name: str, path: str) -> bool:
    """Whether *name* is the temp file an atomic write of *path* goes through."""
    base = os.path.basename(name)
    same_dir = os.path.dirname(name) == os.path.dirname(path)
    return same_dir and fs.is_temp_name(base) and base.startswith(f".{os.path.basename(path)}.")
