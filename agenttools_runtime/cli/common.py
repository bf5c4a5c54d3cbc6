"""What the command modules share: the parser class, the argument type and the groups of
options several commands take, and how a command prints its result."""

from __future__ import annotations

import argparse
import json
import textwrap
from collections.abc import Callable
from typing import Any, TextIO

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
    """An epilog of example command lines (shown as written: give the parser
    ``formatter_class=HelpFormatter``)."""
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)


def nonempty(value: str) -> str:
    """The argparse ``type`` of every option or argument naming a path, a client, a key or
    an id: an empty value (``--project ''``, an unset shell variable) is a usage error naming
    the option, rather than silently meaning "none" or the current directory."""
    if not value:
        raise argparse.ArgumentTypeError("must not be empty")
    return value


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
    """TARGET plus the options that select where a client's files are."""
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


def is_terminal(*streams: TextIO | None) -> bool:
    """Whether every one of *streams* is a terminal (a stream is None in a process started
    with it closed)."""
    return all(s is not None and s.isatty() for s in streams)
