"""``python -m agenttools`` / ``agenttools``: the argparse front end. No logic lives here.

Each command group is a module of this package with a ``register(subparsers, common)``
function; handlers import what they need when they run. ``main`` imports only the module of
the command being run and lists the others from ``COMMAND_HELP`` (start-up time is measured:
``benchmarks/startup.py``). A new command goes into ``COMMAND_MODULES`` and ``COMMAND_HELP``
and its module passes ``help=COMMAND_HELP[name]`` (``tests/test_startup_imports.py`` checks
that the tables and the modules agree). ``main(argv)`` returns the exit status: 0 ok,
1 failure, 2 usage. Expected failures (:class:`AgentToolsError`) print their message — never
a traceback; so does an ``OSError`` from any file operation (one line: the operation, the path,
the system's reason; exit 1). A closed output pipe (``agenttools list | head -1``) ends the
command quietly with the status of a process killed by SIGPIPE (141).
"""

from __future__ import annotations

import sys
from dataclasses import KW_ONLY, dataclass, field

from agenttools_runtime import __version__

# ``typing`` costs a tenth of the start-up time and nothing here needs it at run time;
# type checkers take this name to be true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    import warnings
    from collections.abc import Callable, Collection, Mapping, Sequence
    from typing import Any

    from agenttools_runtime.errors import AgentToolsError, FileOperationFailed

    Handler = Callable[[argparse.Namespace], int]

# Command -> the module of this package that registers it, in the order --help lists them.
COMMAND_MODULES: dict[str, str] = {
    "clients": "clients",
    "skills": "skills",
    "mcp": "mcp",
    "list": "discovery",
    "show": "discovery",
    "deploy": "deploy",
    "deployed": "deploy",
    "remove": "deploy",
    "verify": "lifecycle",
    "sync": "lifecycle",
    "doctor": "doctor",
    "skill": "uri",
    "serve": "uri",
    "validate": "validate",
    "bundle": "bundle",
    "completion": "completion",
}

# Command -> its line in ``agenttools --help`` (the modules pass it to ``add_parser``).
COMMAND_HELP: dict[str, str] = {
    "clients": "list supported AI clients, their files, and which are detected here",
    "skills": "install or uninstall skill folders directly (untracked)",
    "mcp": "write or remove MCP server entries in a client's config file directly (untracked)",
    "list": "list the agent tools bundles of the installed distributions",
    "show": "show one bundle in full: skills, their files, server command lines",
    "deploy": "deploy a bundle's MCP servers and skills into a client (tracked, reversible)",
    "deployed": "list the recorded deployments and their status (ok, outdated, drifted, ...)",
    "remove": "remove deployments: their config entries and the skills nothing else uses",
    "verify": "check deployed skill files and config entries for changes (exit 1 if any)",
    "sync": "upgrade outdated deployments from the installed distributions; --prune orphans",
    "doctor": "check agenttools' state for what interrupted operations left; --fix repairs it",
    "skill": "load a skill (or one of its files) by skill:// URI or name; --list them",
    "serve": "serve installed skills over MCP (stdio)",
    "validate": "check a project's [tool.agenttools], its skills and MCP server declarations",
    "bundle": "add a project's skills and MCP servers to a wheel built by any tool",
    "completion": "print the shell completion script (bash, zsh, fish)",
}


# What ``agenttools --help`` says above and below the commands (cli/top_help.py prints it
# without argparse).
DESCRIPTION = (
    "Deploy the Agent Skills and MCP servers that installed Python distributions ship into AI "
    "clients (Claude Code, Cursor, Codex, Gemini CLI, VS Code, ...), tracked and reversible."
)
EPILOG = (
    "Run 'agenttools COMMAND --help' for a command's options. "
    "Exit status: 0 ok, 1 failure, 2 usage."
)


class UsageError(Exception):
    """A command line that cannot be acted on (exit 2)."""


def nonempty(value: str) -> str:
    """The argparse ``type`` of every option or argument naming a path, a client, a key or
    an id: an empty value (``--project ''``, an unset shell variable) is a usage error naming
    the option, rather than silently meaning "none" or the current directory."""
    if not value:
        import argparse  # (loaded already: the parser is parsing)

        raise argparse.ArgumentTypeError("must not be empty")
    return value


def build_parser(
    commands: Collection[str] | None = None, *, placeholders: bool = True
) -> argparse.ArgumentParser:
    """The command-line parser. With *commands*, only the modules registering those commands
    are imported; every other command is a placeholder that ``--help`` still lists, unless
    not *placeholders* (a command line that starts with its command never shows the others:
    skipping them saves two thirds of the parser's set-up)."""
    import importlib

    from agenttools_runtime.cli._parser import Parser

    parser = Parser(prog="agenttools", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"agenttools {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    common = Parser(add_help=False)
    common.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    wanted = COMMAND_MODULES.keys() if commands is None else commands
    modules = {COMMAND_MODULES[name] for name in wanted}
    for name, help_line in COMMAND_HELP.items():
        if name in subparsers.choices:
            continue  # registered with an earlier command of its module
        if COMMAND_MODULES[name] in modules:  # registers every command of that module
            importlib.import_module(f"{__name__}.{COMMAND_MODULES[name]}").register(
                subparsers, common
            )
        elif placeholders:
            subparsers.add_parser(name, help=help_line, add_help=False)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command *argv* (by default this process's command line: see
    :func:`_as_process`) and return its exit status."""
    if argv is None:
        return _as_process(sys.argv[1:])
    return _main(list(argv))


def _as_process(arguments: list[str]) -> int:
    """Run the command of this process, which ends when it returns, with fewer collections
    of the cyclic garbage collector: a command's start-up creates objects (modules,
    functions, classes) that live until the end, which the collector would examine over and
    over as they are made (every 700 allocations), and all at once as the interpreter exits:
    together a sixth of what a deploy's start-up costs (``benchmarks/state_store.py``).
    Collections stay bounded (every 100,000 allocations: ``mypy`` does the same), and the
    collection at exit skips what is left (the interpreter does not promise to finalize
    objects that still exist at exit: everything agenttools writes is closed before this
    returns). Only CPython's collector has thresholds and a permanent generation (PyPy's
    gc module has neither function): elsewhere the collector is left as it is."""
    import gc

    tuned = hasattr(gc, "set_threshold") and hasattr(gc, "freeze")
    if tuned:
        gc.set_threshold(100_000, 50, 50)
    try:
        return _main(arguments)
    finally:
        if tuned:
            gc.freeze()


def _main(arguments: list[str]) -> int:
    if arguments == ["--version"]:  # answered without building a parser (start-up time)
        print(f"agenttools {__version__}")
        return 0
    if arguments in (["--help"], ["-h"]):  # argparse's text, without argparse (start-up time)
        from agenttools_runtime.cli.top_help import help_width, top_help

        text = top_help(help_width())
        if text is not None:
            sys.stdout.write(text)
            return 0
    # The top-level parser has no option taking a value: the first word is the command.
    command = next((a for a in arguments if not a.startswith("-")), "")
    known = command in COMMAND_MODULES
    # A line that starts with its command: its simplest forms are read without argparse, and
    # the other commands are never shown (only the top-level help and an unknown command's
    # error list them).
    leading = known and arguments[0] == command
    if leading and command == "deploy":  # an identical redeploy: answered without the engine
        from agenttools_runtime.uptodate import answer

        try:
            known_answer = answer(arguments[1:])
        except KeyboardInterrupt:  # (only read: nothing was deployed)
            print("agenttools: interrupted; nothing was deployed", file=sys.stderr)
            return 130
        if known_answer is not None:
            try:
                sys.stdout.write(known_answer.output)
                sys.stdout.flush()
            except BrokenPipeError:
                return _closed_pipe()
            return known_answer.status
    args = quick_arguments(arguments) if leading else None
    if args is not None:  # the common case of a few commands, answered on strings
        lean = lean_handler(command)
        try:
            status = None if lean is None else lean(args)
            if status is not None:
                sys.stdout.flush()
                return status
        except BrokenPipeError:
            return _closed_pipe()
    if args is None:
        parser = build_parser([command] if known else [], placeholders=not leading)
        try:
            args = parser.parse_args(arguments)
        except SystemExit as exc:  # argparse exits 2 on usage errors, 0 for --help/--version
            return int(exc.code or 0)
        if getattr(args, "handler", None) is None:  # no command
            parser.print_help(sys.stderr)
            return 2
    handler: Handler = args.handler
    try:
        status = run_handler(handler, args)
        # flushed here, not at exit, so that a reader gone away is seen (and is quiet)
        sys.stdout.flush()
    except BrokenPipeError:
        return _closed_pipe()
    return status


@dataclass(frozen=True, slots=True)
class Quick:
    """How :func:`quick_arguments` reads the simplest command lines of one command: its
    ``handler``, its on/off options (``--json``: ``store_true``), its positionals in order
    (destination, and whether it must be given; each a plain string), and the value of every
    other destination the command's parser sets (``tests/test_startup_imports.py`` checks
    that argparse gives the same for every command with a ``QUICK`` table). A command with
    more options also names those that store a constant (``consts``: option -> (destination,
    value)), that take a value (``values``: the last one given; ``appending``: each one, in
    a list), the values an option allows (``choices``) and the options of which one at most
    may be given (``exclusive``: argparse's mutually exclusive groups)."""

    handler: Handler
    flags: tuple[str, ...] = ("--json",)
    positionals: tuple[tuple[str, bool], ...] = ()
    defaults: Mapping[str, object] = field(default_factory=dict)
    _: KW_ONLY
    consts: Mapping[str, tuple[str, object]] = field(default_factory=dict)
    values: tuple[str, ...] = ()
    appending: tuple[str, ...] = ()
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    exclusive: tuple[tuple[str, ...], ...] = ()


def quick_arguments(arguments: Sequence[str]) -> argparse.Namespace | None:
    """The parsed form of ``COMMAND WORD...`` without argparse, when the command's module has
    a ``QUICK`` entry for it and every word is one of its options (with its value: ``--opt
    VALUE`` or ``--opt=VALUE``) or its next positional, the positionals side by side; None
    for anything else (another option, ``-h``, an abbreviation, ``--``, an empty word, a
    value starting with ``-`` or not among the option's choices, two options of one
    exclusive group, positionals apart, too many or too few), which argparse then parses
    (and reports, if it is an error). Importing argparse and building the parser is a third
    of what ``agenttools list`` costs beyond the interpreter (``benchmarks/startup.py``)."""
    command, *words = arguments
    name = f"{__name__}.{COMMAND_MODULES[command]}"
    __import__(name)  # (importlib.import_module: importlib and warnings, 0.05x start-up)
    module = sys.modules[name]
    quick: Quick | None = getattr(module, "QUICK", {}).get(command)
    if quick is None:
        return None
    values: dict[str, object] = {"command": command, "handler": quick.handler}
    # a new list each time (an appending option's default), as argparse makes one
    values.update((k, list(v) if isinstance(v, list) else v) for k, v in quick.defaults.items())
    values.update((_dest(flag), False) for flag in quick.flags)
    values.update((_dest(option), None) for option in (*quick.values, *quick.appending))
    values.update((dest, None) for dest, _ in quick.positionals)
    pending = iter(quick.positionals)
    given: set[str] = set()
    # argparse takes the positionals of a run of words at once: one given apart is an error
    # (or, with other argparse versions, not): argparse says which
    positionals_seen = positionals_done = False
    remaining = iter(words)
    for word in remaining:
        if not word:  # (an option's `nonempty` type, or an empty TOOLS: argparse says)
            return None
        option, equals, value = word.partition("=") if word.startswith("--") else (word, "", "")
        if word in quick.flags or word in quick.consts:
            dest, constant = quick.consts.get(word, (_dest(word), True))
            values[dest] = constant
        elif option in quick.values or option in quick.appending:
            if not equals:
                value = next(remaining, "")
            if not value or value.startswith("-"):
                return None  # (argparse: an empty value's error, or a negative number's rules)
            if value not in quick.choices.get(option, (value,)):
                return None
            if option in quick.appending:
                listed = values[_dest(option)]
                values[_dest(option)] = [*(listed if isinstance(listed, list) else ()), value]
            else:
                values[_dest(option)] = value
        elif word.startswith("-") or positionals_done:
            return None
        else:
            positional = next(pending, None)
            if positional is None:
                return None
            values[positional[0]] = word
            positionals_seen = True
            continue
        given.add(option)
        positionals_done = positionals_seen
    if any(required for _, required in pending):
        return None
    if any(len(given.intersection(group)) > 1 for group in quick.exclusive):
        return None
    from types import SimpleNamespace

    # what handlers read of an argparse.Namespace: its attributes
    return SimpleNamespace(**values)  # type: ignore[return-value]


def lean_handler(command: str) -> Callable[[argparse.Namespace], int | None] | None:
    """The ``LEAN`` handler of *command*'s module (after :func:`quick_arguments` read the
    line): it answers the common case without the error classes, the warning machinery and
    most of the library (``run_handler`` imports the 130 error classes alone: 0.1x ``python
    -c pass``), and returns None for anything else, which the command's handler then does in
    full. It raises nothing and warns of nothing."""
    module = sys.modules[f"{__name__}.{COMMAND_MODULES[command]}"]
    lean: dict[str, Callable[[argparse.Namespace], int | None]] = getattr(module, "LEAN", {})
    return lean.get(command)


def _dest(option: str) -> str:
    """argparse's destination of a long option: ``--no-local`` -> ``no_local``."""
    return option.lstrip("-").replace("-", "_")


# The exit status of a process that SIGPIPE ended (128 + 13), as `cmd | head` expects.
CLOSED_PIPE = 141


def _closed_pipe() -> int:
    """The reader of our output went away: write nothing more, say nothing (the interpreter
    would print an error flushing what is still buffered at exit)."""
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
        except (AttributeError, OSError, ValueError):  # no file descriptor (a test's buffer)
            pass
    return CLOSED_PIPE


def run_handler(handler: Handler, args: argparse.Namespace) -> int:
    """Run one command: warnings to stderr (or into the JSON), expected errors as one message."""
    import warnings

    from agenttools_runtime.errors import AgentToolsError, AgentToolsWarning

    as_json = bool(getattr(args, "json", False))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AgentToolsWarning)
        try:
            status = handler(args)
        except AgentToolsError as exc:
            _print_warnings(caught, as_json)
            _print_error(exc, as_json, _hint(exc, args))
            return 1
        except UsageError as exc:
            print(f"agenttools: {exc}", file=sys.stderr)
            return 2
        except BrokenPipeError:
            raise  # our output's reader went away: main() ends quietly
        except OSError as exc:  # a file operation the system refused, after any rollback
            _print_warnings(caught, as_json)
            _print_error(file_error(exc), as_json)
            return 1
        except KeyboardInterrupt as exc:  # SIGINT, or SIGTERM during a locked operation
            _print_warnings(caught, as_json)
            outcome = getattr(exc, "outcome", "")
            print(f"agenttools: interrupted{'; ' + outcome if outcome else ''}", file=sys.stderr)
            return int(getattr(exc, "exit_status", 130))
    _print_warnings(caught, as_json)
    return status


def _hint(error: Exception, args: argparse.Namespace) -> str:
    """ "Did you mean" for a bundle or server name that was not found (in the environment
    the command looked in)."""
    from agenttools_runtime.errors import AgentToolsError
    from agenttools_runtime.name_hints import NAME_ERRORS, hint_for

    if not isinstance(error, AgentToolsError) or error.tag not in NAME_ERRORS:
        return ""
    try:
        from agenttools_runtime.cli.discovery import search_from_args

        search = search_from_args(args, quiet=True)
    except (AgentToolsError, UsageError):
        return ""
    return hint_for(error, search)


def _print_error(exc: AgentToolsError, as_json: bool, hint: str = "") -> None:
    if as_json:
        import json

        error = exc.to_json()
        if hint:
            error["hint"] = hint.strip()
        print(json.dumps({"ok": False, "error": error}, indent=2))
    else:
        print(f"agenttools: {exc}{hint}", file=sys.stderr)


def file_error(exc: OSError) -> FileOperationFailed:
    """The one-line error for *exc*: the operation and path that
    :func:`agenttools_runtime.fs.failure_of` recorded, else the path(s) the error names."""
    import errno
    import os

    from agenttools_runtime import fs
    from agenttools_runtime.errors import FileOperationFailed

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
    import os

    from agenttools_runtime import fs

    base = os.path.basename(name)
    same_dir = os.path.dirname(name) == os.path.dirname(path)
    return same_dir and fs.is_temp_name(base) and base.startswith(f".{os.path.basename(path)}.")


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
        import json

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
        type=nonempty,
        metavar="TARGET",
        help="client id (claude-code, cursor, codex, ...; see 'agenttools clients')",
    )
    parser.add_argument(
        "--project",
        type=nonempty,
        metavar="DIR",
        help="project scope: the client's files inside project directory DIR",
    )
    parser.add_argument(
        "--config",
        type=nonempty,
        metavar="FILE",
        help="an explicit MCP config file instead of the client's own",
    )
    if skills_dir:
        parser.add_argument(
            "--skills-dir",
            type=nonempty,
            metavar="DIR",
            help="install skills into DIR (a skills root holding skill folders)",
        )


def add_environment_arguments(parser: argparse.ArgumentParser) -> None:
    """``--python`` / ``--path``: discover distributions of another environment."""
    parser.add_argument(
        "--python",
        type=nonempty,
        metavar="PATH",
        help="discover the distributions of the environment of this interpreter",
    )
    parser.add_argument(
        "--path",
        type=nonempty,
        metavar="DIR",
        action="append",
        help="discover the distributions in this site-packages directory (repeatable)",
    )
