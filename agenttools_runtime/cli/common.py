"""What the command modules share: the parser class, how a command's parser is made, the
argument type and the groups of options several commands take, and how a command prints its
result."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from agenttools_runtime.errors import ProjectWarning
from agenttools_runtime.suggest import did_you_mean

Handler = Callable[[argparse.Namespace], int]


class UsageError(Exception):
    """A command line that cannot be acted on (exit 2)."""


class Parser(argparse.ArgumentParser):
    """argparse's parser, saying "did you mean" for an unknown command or choice, and, when
    given an *unrecognized_hint*, that hint after the "unrecognized arguments" error of its
    command (how ``deploy`` takes several clients)."""

    def __init__(self, *args: Any, unrecognized_hint: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.unrecognized_hint = unrecognized_hint

    def parse_known_args(  # type: ignore[override]
        self, args: Any = None, namespace: Any = None
    ) -> tuple[argparse.Namespace, list[str]]:
        parsed, extras = super().parse_known_args(args, namespace)
        if extras and self.unrecognized_hint:
            self.error(f"unrecognized arguments: {' '.join(extras)} ({self.unrecognized_hint})")
        return parsed, extras

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        choices = action.choices
        if choices is not None and isinstance(value, str) and value not in choices:
            known = [str(c) for c in choices]
            raise argparse.ArgumentError(
                action,
                f"invalid choice: {value!r}.{did_you_mean(value, known)} "
                f"(choose from {', '.join(map(repr, known))})",
            )
        super()._check_value(action, value)


def refuse_both(args: argparse.Namespace, first: str, second: str) -> None:
    """A usage error when the options *first* and *second* (``"--python"``, ``"--path"``)
    are both given."""
    given = [getattr(args, o.lstrip("-").replace("-", "_"), None) for o in (first, second)]
    if all(given):
        raise UsageError(f"use either {first} or {second}, not both")


def fill_paragraphs(text: str) -> str:
    """*text* with each paragraph given as one line filled to 78 columns (broken at spaces
    only); paragraphs laid out by hand (examples) as written."""
    return "\n\n".join(
        p if "\n" in p else textwrap.fill(p, width=78, break_on_hyphens=False)
        for p in text.split("\n\n")
    )


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs by :func:`fill_paragraphs` when help is printed (not when
    the parser is built: most runs print no help)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return super()._fill_text(fill_paragraphs(text), width, indent)


def examples(*lines: str) -> str:
    """An epilog of example command lines (shown as written by :class:`HelpFormatter`, the
    formatter :func:`add_command` gives)."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def nonempty(value: str) -> str:
    """The argparse ``type`` of every option or argument naming a path, a client, a key or
    an id: an empty value (``--project ''``, an unset shell variable) is a usage error naming
    the option, rather than silently meaning "none" or the current directory."""
    if not value:
        raise argparse.ArgumentTypeError("must not be empty")
    return value


def add_command(
    subparsers: Any,
    name: str,
    handler: Handler,
    *,
    formatter_class: type[argparse.HelpFormatter] = HelpFormatter,
    **kwargs: Any,
) -> argparse.ArgumentParser:
    """The parser of command *name* (its ``help``, ``description``, ``epilog`` in *kwargs*),
    run by *handler*, taking ``--json`` as every command does."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        name, formatter_class=formatter_class, **kwargs
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout")
    parser.set_defaults(handler=handler)
    return parser


def add_command_group(subparsers: Any, name: str, **kwargs: Any) -> Any:
    """A command of subcommands (``mcp``, ``skills``): the subparsers to add them to; run
    without one, it prints its help (exit 2)."""
    parser = subparsers.add_parser(name, **kwargs)

    def print_help(args: argparse.Namespace) -> int:
        parser.print_help()
        return 2

    parser.set_defaults(handler=print_help)
    return parser.add_subparsers(dest=f"{name}_command", metavar="COMMAND")


def emit(args: argparse.Namespace, data: Any, text: str | Callable[[], str]) -> None:
    """Print *data* as JSON with ``--json``, else the human *text*."""
    if args.json:
        print(json.dumps(data, indent=2, default=str))
    else:
        rendered = text() if callable(text) else text
        if rendered:
            print(rendered)


def announce(args: argparse.Namespace, text: str) -> None:
    """What the command acts on, before its result: stdout's first line, or stderr with
    ``--json`` (where stdout holds only the JSON document)."""
    print(text, file=sys.stderr if args.json else sys.stdout, flush=True)


def ask_yes_no(question: str) -> bool | None:
    """*question* asked on the terminal, followed by ``[y/N]``, on stderr (stdout holds only
    a command's result, its JSON with ``--json``): True for ``y`` or ``yes`` in any case,
    False for any other answer, an empty one, end of input or a read error. None, with
    nothing asked, when stdin or stderr is not a terminal (a script, CI, a redirected stderr
    where the question would go unseen). Ctrl-C while it waits interrupts the command
    (``KeyboardInterrupt``), as anywhere else: it is no answer to go on with."""
    from agenttools_runtime.mcp.settings import is_terminal

    if not is_terminal(sys.stdin, sys.stderr):
        return None
    print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
    try:
        answer = sys.stdin.readline()
    except OSError:
        answer = ""
    return answer.strip().lower() in ("y", "yes")


def columns(table: Sequence[Sequence[str]]) -> list[str]:
    """The rows of *table* as lines: each cell but the last padded to its column's width,
    two spaces apart, trailing spaces dropped."""
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]) - 1)]
    return [
        "  ".join([*(c.ljust(w) for c, w in zip(row, widths, strict=False)), row[-1]]).rstrip()
        for row in table
    ]


def warn_all(said: Iterable[Warning]) -> None:
    """Each of *said* (what the library returned rather than warned) as a warning of the
    command: printed on stderr as every warning is, ``Warning: …``, when it ends."""
    for warning in said:
        warnings.warn(warning, stacklevel=2)


def warning_line(message: Warning | str) -> str:
    """A warning as stderr shows it: ``Warning: …`` (a project's warning without the
    ``warning:`` of its check's line: said once)."""
    text = message.without_severity if isinstance(message, ProjectWarning) else str(message)
    return text if text.startswith("Warning") else f"Warning: {text}"


def finish_interrupted_if_left() -> None:
    """What an interrupted operation left (its journal: of a deployment or of a managed
    environment) is finished or undone first, so that what is read is the state as it now
    stays; the engine is imported only when a journal is there."""
    from agenttools_runtime import paths

    if paths.state_paths().interrupted_left():
        from agenttools_runtime.deploy.lock import finish_interrupted

        finish_interrupted()


def add_target_arguments(
    parser: argparse.ArgumentParser,
    *,
    target: str,
    project: str,
    config: str | None = None,
    skills_dir: str | None = None,
    optional: bool = False,
) -> None:
    """TARGET (a client; *optional*: it may be left out) and the options that select where
    its files are, each with its help (left out when None)."""
    parser.add_argument(
        "target", type=nonempty, metavar="TARGET", nargs="?" if optional else None, help=target
    )
    parser.add_argument("--project", type=nonempty, metavar="DIR", help=project)
    if config is not None:
        parser.add_argument("--config", type=nonempty, metavar="FILE", help=config)
    if skills_dir is not None:
        parser.add_argument("--skills-dir", type=nonempty, metavar="DIR", help=skills_dir)


def add_overwrite_arguments(parser: argparse.ArgumentParser, *, upgrade: str, force: str) -> None:
    """``--upgrade`` / ``--force`` (mutually exclusive) into ``args.overwrite``:
    ``"upgrade"``, ``"all"``, else ``"none"``."""
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--upgrade", action="store_const", dest="overwrite", const="upgrade", help=upgrade
    )
    mode.add_argument("--force", action="store_const", dest="overwrite", const="all", help=force)
    parser.set_defaults(overwrite="none")


BUNDLE_FORMS = "(dist/bundle, a distribution, or a bundle name)"


def add_selection_arguments(
    parser: argparse.ArgumentParser,
    *,
    client: str = "only this client's deployments",
    bundle: str = f"only deployments of this bundle {BUNDLE_FORMS}",
) -> None:
    """``--client CLIENT`` / ``--bundle BUNDLE``: the deployments a command acts on
    (``verify``, ``sync``, ``remove``), *client* and *bundle* their help."""
    parser.add_argument("--client", type=nonempty, metavar="CLIENT", help=client)
    parser.add_argument("--bundle", type=nonempty, metavar="BUNDLE", help=bundle)


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    """``--check`` / ``--no-check`` (mutually exclusive) into ``args.check``: ``"connect"``,
    ``"none"``, else ``"start"``: the start check of every command that writes MCP server
    entries (``deploy``, ``sync``, ``configure``, ``mcp install``, ``add``, ``drop``)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--check",
        dest="check",
        action="store_const",
        const="connect",
        help="go further than the default check that each stdio server can start: start it "
        "as the client would and wait for its answer to MCP initialize "
        "(AGENTTOOLS_CHECK_TIMEOUT seconds, default 30); a server that does not answer is "
        "refused",
    )
    group.add_argument(
        "--no-check",
        dest="check",
        action="store_const",
        const="none",
        help="skip the check made by default, before anything is written, that each stdio "
        "server's entry can start: its interpreter exists and finds the module (looked up "
        "along that environment's sys.path, not imported), its script exists and is "
        "executable, its command is an absolute path or on the PATH (with the uvx runner: "
        "uvx, all a portable entry needs here); URL servers have nothing to start. A "
        "server that cannot start is refused in one line saying why, and nothing is written "
        "(of a deploy: neither the bundle's other servers nor its skills)",
    )
    parser.set_defaults(check="start")


def add_environment_arguments(parser: argparse.ArgumentParser) -> None:
    """``--python`` / ``--path``: discover the distributions of another environment."""
    parser.add_argument(
        "--python",
        type=nonempty,
        metavar="PATH",
        help="discover the distributions of the environment of this interpreter (default: "
        "the active virtual environment, VIRTUAL_ENV, else the one agenttools runs in)",
    )
    parser.add_argument(
        "--path",
        type=nonempty,
        metavar="DIR",
        action="append",
        help="discover the distributions in this site-packages directory (repeatable)",
    )
