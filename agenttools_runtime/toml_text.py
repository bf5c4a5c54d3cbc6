"""TOML read as text, for what a parser does not tell: where each table header and key is.

``tomllib`` gives the data, ``tomlkit`` edits documents; neither says on which line a key is
(a problem's ``pyproject.toml:LINE``) or where a table's text starts (a config edit that
splices one table and keeps every other byte). :func:`scan` is the one scanner for both: a
pass over the text that skips strings (multi-line ones too), comments and the brackets of
values, and yields every header and key line with its position. The text is assumed to be
TOML that a parser accepted; on anything else the scan stays defined (it finds less).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Literal

from agenttools_runtime import limits

# A key path inside a TOML document: table and key names, and array indexes.
KeyPath = tuple[str | int, ...]

# one part of a dotted key: a basic string (escapes decoded), a literal string or a bare key
_KEY_PART = re.compile(r"""[ \t]*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|([A-Za-z0-9_-]+))[ \t]*(\.|$)""")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True, slots=True)
class Statement:
    """One header or key line: its kind, its key (a dotted key split into its parts), the
    1-based line and the offset of that line's start; for a key, the line on which its value
    first reached each depth of arrays and inline tables (``opened[0]``: the first bracket)."""

    kind: Literal["table", "array", "key"]
    key: tuple[str, ...]
    line: int
    start: int
    opened: tuple[int, ...] = ()


def scan(text: str) -> Iterator[Statement]:
    """Every ``[table]`` and ``[[array]]`` header and every ``key = value`` line of *text*, in
    order (keys inside values, strings and comments are not statements)."""
    i, n, line = 0, len(text), 1
    while i < n:
        start = i
        while i < n and text[i] in " \t\r":
            i += 1
        if i >= n:
            return
        char = text[i]
        if char == "\n":
            i, line = i + 1, line + 1
            continue
        if char == "#":
            i = _line_end(text, i)
            continue
        if char == "[":
            array = text.startswith("[[", i)
            inner = i + (2 if array else 1)
            close = _key_end(text, inner, "]")
            key = split_key(text[inner:close]) if close is not None else None
            if key is not None:
                yield Statement("array" if array else "table", key, line, start)
            i = _line_end(text, i)
            continue
        equals = _key_end(text, i, "=")
        if equals is None:  # not a statement (the parser refused the file, or gave its data)
            i = _line_end(text, i)
            continue
        end, opened, lines = _value_end(text, equals + 1, line)
        key = split_key(text[i:equals])
        if key is not None:
            yield Statement("key", key, line, start, opened)
        i, line = end, line + lines


def split_key(source: str) -> tuple[str, ...] | None:
    """The parts of a dotted key (``a."b.c".'d'`` -> ``("a", "b.c", "d")``), escapes of basic
    strings decoded as the parser decodes them; None when *source* is not a key."""
    parts: list[str] = []
    pos = 0
    while pos < len(source):
        match = _KEY_PART.match(source, pos)
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


class TomlLines:
    """Where each key of a TOML document is: key paths (array-of-tables entries by index)
    mapped to 1-based lines, from :func:`scan`."""

    def __init__(self, text: str) -> None:
        self._lines: dict[KeyPath, int] = {}
        counters: dict[KeyPath, int] = {}
        table: KeyPath = ()
        for statement in scan(text):
            if statement.kind == "key":
                self._lines.setdefault((*table, *statement.key), statement.line)
                continue
            parts = statement.key
            table = _with_indexes(parts, counters)
            if statement.kind == "array":
                index = counters.get(parts, -1) + 1
                counters[parts] = index
                table = (*table, index)
            self._lines.setdefault(table, statement.line)

    def line(self, key: KeyPath) -> int | None:
        """The line of *key*; else the first line of a key inside it (``[a.b.c]`` for ``a.b``
        without its own header); else the line of its nearest ancestor that has one."""
        key = tuple(key)
        for end in range(len(key), 0, -1):
            prefix = key[:end]
            found = self._lines.get(prefix)
            if found is not None:
                return found
            # "[[a]]" is stored as a.0: a key of "a" found inside it
            inside = [n for k, n in self._lines.items() if k[:end] == prefix]
            if inside:
                return min(inside)
        return None


def deep_line(text: str) -> int | None:
    """The line where *text* (TOML) first nests beyond ``limits.MAX_NESTING``, counting as the
    parsed data does: the document, each part of the table header and of the dotted key, then
    the arrays and inline tables of the value."""
    table = 1  # the document
    for statement in scan(text):
        if statement.kind != "key":
            table = 1 + len(statement.key) + (statement.kind == "array")
            if table > limits.MAX_NESTING:
                return statement.line
            continue
        base = table + len(statement.key) - 1
        if base > limits.MAX_NESTING:
            return statement.line
        allowed = limits.MAX_NESTING - base
        if len(statement.opened) > allowed:
            return statement.opened[allowed]
    return None


def format_key(key: KeyPath) -> str:
    """``tool.agenttools.bundles[0].skills``; names that are not bare keys are quoted."""
    out = ""
    for part in key:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = part if _BARE_KEY.fullmatch(part) else json.dumps(part, ensure_ascii=False)
            out += f".{text}" if out else text
    return out


def _with_indexes(parts: tuple[str, ...], counters: Mapping[KeyPath, int]) -> KeyPath:
    """A header's key with the current index after each array of tables it passes through."""
    out: list[str | int] = []
    for i, part in enumerate(parts):
        out.append(part)
        prefix = parts[: i + 1]
        if prefix in counters and i + 1 < len(parts):
            out.append(counters[prefix])
    return tuple(out)


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end < 0 else end


def _key_end(text: str, pos: int, stop: str) -> int | None:
    """The offset of *stop* after the key starting at *pos* (quoted parts skipped); None when
    the line ends first."""
    n = len(text)
    while pos < n:
        char = text[pos]
        if char == stop:
            return pos
        if char == "\n":
            return None
        if char in "\"'":
            pos = _string_end(text, pos)
            continue
        pos += 1
    return None


def _value_end(text: str, pos: int, line: int) -> tuple[int, tuple[int, ...], int]:
    """Where the value starting at *pos* ends (the newline after it, or the end), the line
    on which each depth of its brackets was first reached, and the newlines inside it."""
    n = len(text)
    depth = 0
    opened: list[int] = []
    newlines = 0
    while pos < n:
        char = text[pos]
        if char == "\n":
            if depth == 0:
                return pos, tuple(opened), newlines
            newlines += 1
        elif char == "#":
            pos = _line_end(text, pos)
            continue
        elif char in "\"'":
            end = _string_end(text, pos)
            newlines += text.count("\n", pos, end)
            pos = end
            continue
        elif char in "[{":
            depth += 1
            if depth > len(opened):
                opened.append(line + newlines)
        elif char in "]}" and depth:
            depth -= 1
        pos += 1
    return n, tuple(opened), newlines


def _string_end(text: str, pos: int) -> int:
    """The offset just after the string that starts at *pos* (a quote): basic or literal,
    one line or multi-line; the end of the line (one-line) or text (multi-line) if unclosed."""
    quote = text[pos]
    n = len(text)
    if text.startswith(quote * 3, pos):
        i = pos + 3
        while i < n:
            if quote == '"' and text[i] == "\\":
                i += 2
                continue
            if text.startswith(quote * 3, i):
                i += 3
                while i < n and text[i] == quote:  # """a"""" ends with its last three quotes
                    i += 1
                return i
            i += 1
        return n
    i = pos + 1
    while i < n and text[i] != quote and text[i] != "\n":
        i += 2 if (quote == '"' and text[i] == "\\") else 1
    return min(i + 1, n) if i < n and text[i] == quote else i
