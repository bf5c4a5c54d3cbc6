"""``agenttools --help`` without argparse: the text argparse prints for the top-level parser.

Importing argparse and building the parser costs about as much as the interpreter's own
start-up (``benchmarks/startup.py``: ``--help`` went from 2.3x to 1.x ``python -c pass``).
The layout is argparse's ``HelpFormatter`` worked out for this parser's fixed shape (usage on
one line, the commands' help at column 14, paragraphs wrapped at the width); on a terminal
too narrow for that shape ``top_help`` answers None and argparse prints the help.
``tests/test_startup_imports.py`` checks the text equals argparse's at every width it serves.
"""

from __future__ import annotations

import os
import sys

USAGE = "usage: agenttools [-h] [--version] COMMAND ..."
OPTIONS = (
    ("-h, --help", "show this help message and exit"),
    ("--version", "show program's version number and exit"),
)
HELP_COLUMN = 14  # argparse: the longest invocation ("completion", "-h, --help") + 2 + 2
NARROWEST = 60  # below it argparse's layout changes shape (usage, options' help wrap)


def help_width() -> int:
    """The width argparse formats help to: ``shutil.get_terminal_size().columns - 2``
    (``$COLUMNS``, else the terminal of stdout, else 80)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0 and sys.__stdout__ is not None:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return (columns or 80) - 2


def top_help(width: int) -> str | None:
    """What ``agenttools --help`` prints at *width* (None: narrower than this layout serves)."""
    from agenttools_runtime.cli import COMMAND_HELP, DESCRIPTION, EPILOG

    if width < NARROWEST:
        return None
    lines = [USAGE, "", *wrap(DESCRIPTION, width), "", "positional arguments:", "  COMMAND"]
    for name, text in COMMAND_HELP.items():
        lines.extend(_entry(4, name, text, width))
    lines += ["", "options:"]
    for name, text in OPTIONS:
        lines.extend(_entry(2, name, text, width))
    lines += ["", *wrap(EPILOG, width)]
    return "\n".join(lines) + "\n"


def _entry(indent: int, name: str, text: str, width: int) -> list[str]:
    """One argument's lines: its name, then its help from ``HELP_COLUMN`` (on the next line
    when the name does not leave two spaces before that column)."""
    body = wrap(text, width - HELP_COLUMN)
    pad = " " * HELP_COLUMN
    head = " " * indent + name
    if len(head) + 2 > HELP_COLUMN:
        return [head, *(pad + line for line in body)]
    return [head.ljust(HELP_COLUMN) + body[0], *(pad + line for line in body[1:])]


def wrap(text: str, width: int) -> list[str]:
    """``textwrap.wrap(text, width)`` for text of words no longer than *width* with no
    hyphen inside a word (what the help texts are: the test checks it), without textwrap
    (which imports ``re``)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines
