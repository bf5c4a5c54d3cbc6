"""What every config format shares: where the entries are (:class:`Container`), the
format's protocol, the two errors a format raises, and config data compared and made plain."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from agenttools_runtime.settings.secrets import is_digest, matches


class ConfigFormat(Protocol):
    """Text in, text out. ``set_entry``/``remove_entry`` return the new text (the same
    string when nothing changes) and whether the entry was there before."""

    def read_entries(self, text: str, container: Container) -> dict[str, Any]: ...

    def set_entry(
        self,
        text: str,
        container: Container,
        key: str,
        entry: Mapping[str, Any],
        defaults: Mapping[str, Any],
    ) -> tuple[str, bool]: ...

    def remove_entry(self, text: str, container: Container, key: str) -> tuple[str, bool]: ...

    def entry_span(self, text: str, container: Container, key: str) -> tuple[int, int] | None:
        """Where the entry *key* is in *text*: the span ``set_entry`` replaces when the
        key is there (None: the key is missing, or in a layout whose span this format
        does not know; :mod:`agenttools_runtime.mcp.origin` then falls back to the
        entry's data)."""
        ...


@dataclass(frozen=True, slots=True)
class Container:
    """Where the entries are: a key path from the document root (``()`` is the root itself);
    with ``list_key`` the container is a list whose items are matched by that field
    (``{"name": key, ...}``), else a mapping keyed by the entry key."""

    path: tuple[str, ...]
    list_key: str | None = None


class ParseError(Exception):
    """The text is not valid in its format; ``line``/``column`` are 1-based (0: the parser
    gives no position)."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    @classmethod
    def at(cls, message: str, text: str, pos: int) -> ParseError:
        line = text.count("\n", 0, pos) + 1
        column = pos - (text.rfind("\n", 0, pos) + 1) + 1
        return cls(message, line, column)

    def describe(self) -> str:
        if not self.line:
            return self.message
        return f"line {self.line}, column {self.column}: {self.message}"


class StructureError(Exception):
    """The text parses, but not into something an entry can be put in (e.g. the container
    key holds a string). Reported as ``ConfigFileInvalid``; the file is left alone."""


def same_data(a: Any, b: Any) -> bool:
    """Equal as config data: like ``==``, but ``True`` is not ``1`` and ``1.0`` is not ``1``;
    a secret's digest (what a record keeps in its place) equals the value it was made from."""
    if isinstance(a, str) and isinstance(b, str) and a != b and (is_digest(a) or is_digest(b)):
        return matches(a, b) if is_digest(a) else matches(b, a)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(same_data(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_data(x, y) for x, y in zip(a, b, strict=True))
    return _kind(a) == _kind(b) and bool(a == b)


def plain(value: Any) -> Any:
    """Config data as plain JSON values (parsers return their own mapping and scalar types)."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return None if value is None else str(value)


def _kind(value: Any) -> type:
    # parsers return subclasses (quoted YAML strings, tomlkit items): compare the base kind
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind
    return type(value)
