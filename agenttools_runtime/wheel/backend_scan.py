"""``[tool.agenttools] backend`` and ``backend-path`` read from pyproject.toml's lines, without
a TOML parser, for the hook processes that need nothing else (``get_requires_for_build_*``).

Importing ``tomllib`` (which imports ``typing``) costs such a process more than the rest of what
it does. :func:`backend_setting` reads the common shape itself and gives up on anything else:
a file with a multi-line string, a quoted or unusual key on the way to ``tool.agenttools``,
those settings written in any other form than ``backend = "…"`` and ``backend-path = […]`` of
plain strings under a ``[tool.agenttools]`` header, or a line it cannot follow. For every
text it answers, the answer is what ``tomllib`` reads (tests/wheel/test_backend_scan.py
compares the two on generated files); otherwise it returns None and the caller parses the
file. A file that is not TOML at all reaches no hook: the frontend parses pyproject.toml for
``[build-system]`` before it calls one.
"""

from __future__ import annotations

import re

_TABLE = ("tool", "agenttools")
_SETTINGS = ("backend", "backend-path")
_BARE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
# (patterns compiled where used, re keeps them: most files need neither)
# one key of a dotted key: bare, or quoted without escapes; then a dot or the end
_KEY_PART = r"""[ \t]*(?:([A-Za-z0-9_-]+)|"([^"\\]*)"|'([^']*)')[ \t]*(\.|$)"""
# one string of an array (no escapes: a backslash makes the file the parser's), then a comma
# or the end of the array
_ARRAY_ITEM = r"""\s*(?:"([^"\\]*)"|'([^']*)')\s*(,|$)"""


def backend_setting(text: str) -> tuple[str, list[str]] | None:
    """``(backend, backend-path)`` of ``[tool.agenttools]`` in pyproject.toml *text*
    (``backend-path`` ``[]`` when absent), or None when the text is beyond this reader."""
    if '"""' in text or "'''" in text:
        return None
    text = text.replace("\r\n", "\n")
    table: tuple[str, ...] = ()
    backend: str | None = None
    paths: list[str] | None = None
    lines = iter(text.split("\n"))
    for line in lines:
        code = _code(line)
        if code is None:
            return None
        code = code.strip()
        if not code:
            continue
        if code.startswith("["):
            header = _header(code)
            if header is None or _sets(header, array=code.startswith("[[")):
                return None
            table = header
            continue
        key, equals, value = code.partition("=")
        keys = _dotted(key)
        if not equals or keys is None:
            return None
        while _depth(value) > 0:  # an array over several lines
            more = _code(next(lines, "\0"))
            if more is None:
                return None
            value += "\n" + more
        value = value.strip()
        if table != _TABLE or len(keys) != 1 or keys[0] not in _SETTINGS:
            if _sets(table + keys, array=True):
                return None  # the settings in another form (dotted keys, inline tables)
            continue
        if keys == ("backend",):
            if backend is not None:
                return None
            backend = _string(value)
            if backend is None:
                return None
        elif keys == ("backend-path",):
            if paths is not None:
                return None
            paths = _strings(value)
            if paths is None:
                return None
    if backend is None:
        return None
    return backend, paths if paths is not None else []


def _sets(path: tuple[str, ...], *, array: bool) -> bool:
    """Whether a table header or key *path* sets ``backend`` or ``backend-path`` (or a table
    below them); with *array* (an ``[[array]]`` header or a key's value) also whether it sets
    ``tool`` or ``tool.agenttools`` as a whole."""
    if path[:2] == _TABLE and len(path) > 2:
        return path[2] in _SETTINGS
    return array and path == _TABLE[: len(path)]


def _code(line: str) -> str | None:
    """*line* without its comment; None when a string does not end on it (or on a NUL)."""
    quote = ""
    index = 0
    while index < len(line):
        char = line[index]
        if char == "\0":
            return None
        if quote:
            if char == "\\" and quote == '"':
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[:index]
        index += 1
    return None if quote else line


def _header(code: str) -> tuple[str, ...] | None:
    """The bare keys of a ``[a.b]`` or ``[[a.b]]`` header line; None for quoted keys."""
    inner = code[2:-2] if code.startswith("[[") and code.endswith("]]") else code[1:-1]
    if not code.endswith("]"):
        return None
    return _dotted(inner)


def _dotted(key: str) -> tuple[str, ...] | None:
    """``a."b" . c`` -> ``("a", "b", "c")``; None for an escape or anything not a key."""
    if "'" not in key and '"' not in key:  # bare keys only, the common case
        names = tuple(part.strip(" \t") for part in key.split("."))
        return names if all(name and _BARE.issuperset(name) for name in names) else None
    pattern = re.compile(_KEY_PART)
    parts: list[str] = []
    position = 0
    while True:
        match = pattern.match(key, position)
        if match is None:
            return None
        bare, basic, literal, dot = match.groups()
        parts.append(next(part for part in (bare, basic, literal) if part is not None))
        position = match.end()
        if not dot:
            return tuple(parts) if position == len(key) else None


def _depth(value: str) -> int:
    """Brackets and braces opened and not closed in *value* (strings skipped)."""
    depth = 0
    quote = ""
    escaped = False
    for char in value:
        if quote:
            if escaped:
                escaped = False
            elif char == "\\" and quote == '"':
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
    return depth


def _string(value: str) -> str | None:
    """The text of a one-line string without escapes; None for anything else."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        text = value[1:-1]
        if value[0] not in text and "\\" not in text:
            return text
    return None


def _strings(value: str) -> list[str] | None:
    """The items of an array of such strings (a trailing comma allowed); None otherwise."""
    if not (value.startswith("[") and value.endswith("]")):
        return None
    inner = value[1:-1].strip()
    pattern = re.compile(_ARRAY_ITEM)
    items: list[str] = []
    position = 0
    while position < len(inner):
        match = pattern.match(inner, position)
        if match is None:
            return None
        basic, literal, _comma = match.groups()
        items.append(basic if basic is not None else literal)
        position = match.end()
    return items
