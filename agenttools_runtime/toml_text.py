"""TOML read as text, for what a parser does not tell (where a key is, where a table's lines
start and end): a dotted key split into its parts, and whether a character is escaped."""

from __future__ import annotations

import json
import re

# compiled by split_key (re keeps it), which only a problem's line and a config edit need
_KEY_PART = r"""[ \t]*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))[ \t]*(\.|$)"""


def split_key(source: str) -> tuple[str, ...] | None:
    """The parts of a dotted key (``a."b.c".'d'`` -> ``("a", "b.c", "d")``), escapes of basic
    strings decoded as the parser decodes them; None when *source* is not a key."""
    parts: list[str] = []
    pos = 0
    key_part = re.compile(_KEY_PART)
    while pos < len(source):
        match = key_part.match(source, pos)
        if match is None:
            return None
        basic, literal, bare, _dot = match.groups()
        if basic is not None:
            try:
                parts.append(json.loads(f'"{basic}"'))
            except ValueError:
                return None
        else:
            parts.append(literal if literal is not None else bare)
        pos = match.end()
    return tuple(parts) or None


def escaped(text: str, pos: int) -> bool:
    """Whether the character at *pos* follows an odd number of backslashes."""
    backslashes = 0
    while pos - backslashes - 1 >= 0 and text[pos - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1
