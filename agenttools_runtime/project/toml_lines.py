"""Where things are in a TOML text, read as lines without parsing it: the line of each key
path (``TomlLines``, so a problem points at its line), the line where values first nest too
deep, and how a key path is written in a message."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping

from agenttools_runtime import limits
from agenttools_runtime.toml_text import escaped, split_key

# A key path inside a TOML document: table and key names, and array indexes.
KeyPath = tuple[str | int, ...]

_KEY = r"""(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')"""
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
# compiled by the scans that use them (re keeps them), which only a problem's line needs
_HEADER = rf"^\s*(\[\[?)\s*({_DOTTED})\s*\]\]?\s*(?:#.*)?$"
_KEYLINE = rf"^\s*({_DOTTED})\s*=(.*)$"


class TomlLines:
    """Where each key of a TOML document is: a light scanner over the text (headers, array
    of tables, dotted keys, multi-line strings) that maps key paths to 1-based lines."""

    def __init__(self, text: str) -> None:
        self._lines: dict[KeyPath, int] = {}
        counters: dict[KeyPath, int] = {}
        table: KeyPath = ()
        in_string: str | None = None
        header_re, keyline_re = re.compile(_HEADER), re.compile(_KEYLINE)
        # TOML ends lines at "\n" only (str.splitlines also breaks at U+0085, U+2028 …)
        for number, line in enumerate(text.split("\n"), start=1):
            if in_string is not None:
                if in_string in line:
                    in_string = None
                continue
            header = header_re.match(line)
            if header:
                parts = _parts(header.group(2))
                table = self._with_indexes(parts, counters)
                if header.group(1) == "[[":
                    index = counters.get(parts, -1) + 1
                    counters[parts] = index
                    table = (*table, index)
                self._lines.setdefault(table, number)
                continue
            keyline = keyline_re.match(line)
            if keyline:
                self._lines.setdefault((*table, *_parts(keyline.group(1))), number)
                in_string = _open_multiline_string(keyline.group(2))

    def items(self) -> Iterable[tuple[KeyPath, int]]:
        """Every key path found, with its line."""
        return self._lines.items()

    @staticmethod
    def _with_indexes(parts: KeyPath, counters: Mapping[KeyPath, int]) -> KeyPath:
        out: list[str | int] = []
        for i, part in enumerate(parts):
            out.append(part)
            prefix = parts[: i + 1]
            if prefix in counters and i + 1 < len(parts):
                out.append(counters[prefix])
        return tuple(out)

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


def _open_multiline_string(value: str) -> str | None:
    """The quotes of a multi-line string that *value* (a line's rest after ``=``) opens and
    does not close, else None. Quotes inside other strings and comments do not count."""
    i, n = 0, len(value)
    while i < n:
        if value.startswith(('"""', "'''"), i):
            quote = value[i : i + 3]
            close = value.find(quote, i + 3)
            while quote == '"""' and close > 0 and escaped(value, close):
                close = value.find(quote, close + 1)
            if close < 0:
                return quote
            i = close + 3
        elif value[i] == '"':
            i += 1
            while i < n and value[i] != '"':
                i += 2 if value[i] == "\\" else 1
            i += 1
        elif value[i] == "'":
            close = value.find("'", i + 1)
            i = n if close < 0 else close + 1
        elif value[i] == "#":
            return None
        else:
            i += 1
    return None


def _parts(dotted: str) -> tuple[str, ...]:
    """The parts of a key the line regexes matched (none for one that is not a key: the
    parser refused the file, or gave us its data)."""
    return split_key(dotted) or ()


def format_key(key: KeyPath) -> str:
    """``tool.agenttools.bundles[0].skills``; names that are not bare keys are quoted."""
    out = ""
    for part in key:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = (
                part
                if re.fullmatch(r"[A-Za-z0-9_-]+", part)
                else json.dumps(part, ensure_ascii=False)
            )
            out += f".{text}" if out else text
    return out


def deep_line(text: str) -> int | None:
    """The line where *text* (TOML) first nests beyond the limit, counting as the parsed data
    does: the document, each part of the table header and of the dotted key, then the arrays
    and inline tables of the value."""
    depth = 0  # brackets open in the value
    base = 1  # containers around the current value: the document, the table, dotted keys
    table = 1
    number = 1
    i, n = 0, len(text)
    line_start = True
    header_re, keyline_re = re.compile(_HEADER), re.compile(_KEYLINE)
    while i < n:
        if line_start and depth == 0:
            line_start = False
            end = text.find("\n", i)
            line = text[i : n if end < 0 else end]
            header = header_re.match(line)
            keyline = None if header else keyline_re.match(line)
            if header:
                table = 1 + len(_parts(header.group(2))) + (header.group(1) == "[[")
                base = table
                if table > limits.MAX_NESTING:
                    return number
                i = n if end < 0 else end  # the header holds no value
                continue
            if keyline:
                base = table + len(_parts(keyline.group(1))) - 1
                if base > limits.MAX_NESTING:
                    return number
                i += keyline.start(2)  # the value: a quoted key's brackets are no values
                continue
        ch = text[i]
        if ch == "\n":
            number += 1
            line_start = True
        elif ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        elif ch in "\"'":
            quote = text[i : i + 3] if text.startswith(ch * 3, i) else ch
            end = i + len(quote)
            while end < n and not text.startswith(quote, end):
                end += 2 if (ch == '"' and text[end] == "\\") else 1
            number += text.count("\n", i, end)
            i = end + len(quote)
            continue
        elif ch in "[{":
            depth += 1
            if base + depth > limits.MAX_NESTING:
                return number
        elif ch in "]}" and depth:
            depth -= 1
        i += 1
    return None
