"""What every config format shares: where the entries are (:class:`Container`), the
format's protocol, the two errors a format raises, config data compared and made plain, and
the data an edit must leave (what a format checks its splice against)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from agenttools_runtime.settings.secrets import is_digest, matches


class ConfigFormat(Protocol):
    """What a format module (``json_format``, ``toml_format``, ``yaml_format``) provides:
    text in, text out. ``set_entry``/``remove_entry`` return the new text (the same string
    when nothing changes) and whether the entry was there before."""

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
    kind = _kind(value)
    if kind in _SCALARS:
        return kind(value)
    return None if value is None else str(value)


def newline(text: str) -> str:
    """The newline *text* uses (its first line's): what a splice writes."""
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def without_final_newline(text: str) -> str:
    for nl in ("\r\n", "\n"):
        if text.endswith(nl):
            return text[: -len(nl)]
    return text


def is_blank_or_comment(line: str) -> bool:
    """Whether *line* holds nothing but blanks, or a ``#`` comment (TOML, YAML)."""
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


def nest(path: Sequence[str], leaf: Any) -> Any:
    """*leaf* under the keys of *path*, outermost first (``{"a": {"b": leaf}}``)."""
    for key in reversed(path):
        leaf = {key: leaf}
    return leaf


def only_entry(container: Container, key: str, entry: Any) -> Any:
    """The value of a container that holds just *entry*: ``[entry]`` or ``{key: entry}``."""
    return [entry] if container.list_key else {key: entry}


def is_entry(item: Any, list_key: str, key: str) -> bool:
    """Whether *item* of a list container is the entry *key*."""
    return isinstance(item, Mapping) and item.get(list_key) == key


def where(path: tuple[str, ...]) -> str:
    """The place *path* names in a message: the quoted dotted path, or the top level."""
    return f'"{".".join(path)}"' if path else "the top level"


def lookup(data: Any, path: tuple[str, ...], mapping: str) -> Any:
    """The value at *path* in parsed *data*: None when missing or null (nothing to lose, it is
    filled on set). ``StructureError`` when a part of the path is not *mapping* (the
    format's word for one: "an object", "a table")."""
    node = data
    for depth, part in enumerate(path):
        if not isinstance(node, Mapping):
            raise StructureError(f"{where(path[:depth])} is not {mapping}")
        if node.get(part) is None:
            return None
        node = node[part]
    return node


def entries_of(value: Any, container: Container, mapping: str) -> dict[str, Any]:
    """The entries of the container's parsed *value*, by key (in a list, the items with a
    string *list_key*; the last of one key wins). ``StructureError`` when it is not the
    container's kind (*mapping*, as in :func:`lookup`, or a list)."""
    if container.list_key is None:
        if not isinstance(value, Mapping):
            raise StructureError(f"{where(container.path)} is not {mapping}")
        return dict(value)
    if not isinstance(value, list):
        raise StructureError(f"{where(container.path)} is not a list")
    return {
        item[container.list_key]: item
        for item in value
        if isinstance(item, Mapping) and isinstance(item.get(container.list_key), str)
    }


def expected(data: Any, container: Container, key: str, entry: Mapping[str, Any] | None) -> Any:
    """Plain *data* (changed in place) as an edit must leave it: the entry *key* set to
    *entry*, or removed (None); missing containers on the path created."""
    data = {} if data is None else data
    node = data
    for depth, part in enumerate(container.path):
        child = node.get(part)
        if child is None:
            child = [] if container.list_key and depth == len(container.path) - 1 else {}
            node[part] = child
        node = child
    list_key = container.list_key
    if list_key is None:
        if entry is None:
            node.pop(key, None)
        else:
            node[key] = dict(entry)
        return data
    items = [i for i in node if not is_entry(i, list_key, key)]
    if entry is not None:
        replaced = [dict(entry) if is_entry(i, list_key, key) else i for i in node]
        items = replaced if len(items) != len(node) else [*node, dict(entry)]
    node[:] = items
    return data


_SCALARS = (bool, int, float, str)


def _kind(value: Any) -> type:
    # parsers return subclasses (quoted YAML strings, tomlkit items): compare the base kind
    return next((kind for kind in _SCALARS if isinstance(value, kind)), type(value))
