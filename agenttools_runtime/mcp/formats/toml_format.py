"""TOML (Codex ``config.toml``): an entry is one ``[<container>.<key>]`` table, mappings inside
it (``env``) inline tables.

The file is parsed with :mod:`tomlkit` (validation, reading, rendering the new table), and the
entry's table is spliced in or out as lines, so every other byte stays as it was. tomlkit's own
document edit is used only where the entry is not a plain table (an inline-table container,
dotted keys), and every splice is checked by re-parsing: the result must hold exactly the old
data with the one entry changed.
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import tomlkit
import tomlkit.exceptions
from tomlkit.container import Container as TOMLContainer
from tomlkit.container import OutOfOrderTableProxy
from tomlkit.items import InlineTable, Table

from agenttools_runtime import limits
from agenttools_runtime.mcp.formats.base import (
    Container,
    ParseError,
    StructureError,
    entries_of,
    expected,
    is_blank_or_comment,
    lookup,
    newline,
    same_data,
    where,
    without_final_newline,
)
from agenttools_runtime.toml_text import scan

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_POSITION = re.compile(r" at line \d+ col \d+$")
_TOMLLIB_POSITION = re.compile(r" \(at line (\d+), column (\d+)\)$")


def _read(text: str) -> dict[str, Any]:
    """The data of *text* by the standard reader alone (reading needs no round-trip
    document): what :func:`_parse` decides, with the same errors and limits. Shared with
    the other reads and the edits of the text (:func:`_loaded`): never changed here."""
    try:
        data = _loaded(text)
    except ParseError as exc:
        error = exc
    except RecursionError:
        error = ParseError(limits.too_deep(), 0, 0)
    else:
        problem = _shape_problem(data)
        if problem is None:
            return data
        error = ParseError(problem, 0, 0)
    _parse(text)  # a file that does not parse: the edit's error, located where tomlkit can
    raise error


def _decode_error(exc: tomllib.TOMLDecodeError) -> ParseError:
    message = str(exc)
    where = _TOMLLIB_POSITION.search(message)
    line, column = (int(where.group(1)), int(where.group(2))) if where else (0, 0)
    return ParseError(_TOMLLIB_POSITION.sub("", message), line, column)


# Each text an operation meets is parsed once by each reader, as the JSON format does
# (``json_format._parsed``): a parse is a fact of the text alone, never changed by its users
# (an edit splices a new text, or edits a document of its own: :func:`_own`). Two of each:
# an edit's before and after. What is parsed:
# - the file: by tomlkit (the document an edit walks and renders from) and by the standard
#   reader (the reads, and the validity check: a file a client would reject is never
#   rewritten);
# - each edit's result, by both again (:func:`_same`): the splice must read as the old data
#   with the one entry changed, and parse for tomlkit too, or the next edit could not read
#   it. ``deploy`` and ``mcp install`` also remove the entry from that result again
#   (``deploy.litter``: what the write adds besides the entry), which gives (most often)
#   the file again: no new text. Only where the edit replaced an entry or wrote several is
#   a probe entry set and removed (``deploy.litter.skeleton``): one new text.
# - only where no splice can make the edit (dotted keys, an inline-table container): the
#   file once more by tomlkit (:func:`_own`).


@functools.lru_cache(maxsize=2)
def _parse(text: str) -> tomlkit.TOMLDocument:
    """The round-trip document of *text*, once it is valid TOML (both readers accept it)
    within the limits."""
    try:
        document = tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as exc:
        message = _POSITION.sub("", str(exc))
        raise ParseError(message, exc.line, exc.col + 1) from None
    except RecursionError:  # a tomlkit without its own depth limit (before 0.13.3)
        raise ParseError(limits.too_deep(), 0, 0) from None
    except tomlkit.exceptions.TOMLKitError as exc:  # "Redefinition of an existing table"
        # has no position: the standard reader's error, located, when it rejects the text too
        _loaded(text)
        raise ParseError(str(exc), 0, 0) from None
    problem = _shape_problem(document)  # dotted keys nest too
    if problem is not None:
        raise ParseError(problem, 0, 0)
    # tomlkit accepts some text that is not TOML (an unknown escape such as "\e"); the
    # standard reader decides, so that a file a client would reject is never rewritten
    _loaded(text)
    return document


@functools.lru_cache(maxsize=2)
def _loaded(text: str) -> dict[str, Any]:
    """The data of *text* by the standard reader; its error (a ``ParseError``) when it
    rejects the text."""
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise _decode_error(exc) from None
    return data


def _shape_problem(data: Any) -> str | None:
    """Why parsed *data* is beyond the limits: only its nesting can be (TOML has no aliases,
    so it holds no more values than its text spells out, however many that is)."""
    return limits.shape_problem(data, max_values=sys.maxsize)


@dataclass(slots=True)
class _Header:
    path: tuple[str, ...]
    start: int  # start of the header line
    end: int  # end of the table's last non-blank line (with its newline)
    block_end: int  # start of the next header (or end of text)


def _under(headers: list[_Header], path: tuple[str, ...]) -> list[_Header]:
    """The headers of the table at *path* and of the tables below it, in order."""
    return [h for h in headers if h.path[: len(path)] == path]


def _headers(text: str) -> list[_Header]:
    """Every ``[table]`` / ``[[array]]`` header (:func:`agenttools_runtime.toml_text.scan`:
    strings, comments and the brackets of values are no headers)."""
    n = len(text)
    found = [(s.key, s.start) for s in scan(text) if s.kind != "key"]
    headers = []
    for index, (path, start) in enumerate(found):
        block_end = found[index + 1][1] if index + 1 < len(found) else n
        headers.append(_Header(path, start, _content_end(text, start, block_end), block_end))
    return headers


def _content_end(text: str, start: int, stop: int) -> int:
    """End of the last line in ``[start, stop)`` that is not blank or a comment."""
    end = text.find("\n", start)
    end = stop if end < 0 or end >= stop else end + 1
    pos = end
    while pos < stop:
        nl = text.find("\n", pos)
        line_end = stop if nl < 0 or nl >= stop else nl + 1
        if not is_blank_or_comment(text[pos:line_end]):
            end = line_end
        pos = line_end
    return end


def _render(path: tuple[str, ...], key: str, entry: Mapping[str, Any], nl: str) -> str:
    doc = tomlkit.document()
    node = _walk(doc, path, create=True)
    assert node is not None
    node[key] = _entry_table(entry, tomlkit.table())
    return tomlkit.dumps(doc).replace("\n", nl)


def _entry_table(entry: Mapping[str, Any], table: Table | InlineTable) -> Table | InlineTable:
    """*table* holding *entry*, its mappings (``env``) as inline tables."""
    for name, value in entry.items():
        if isinstance(value, Mapping):
            inline = tomlkit.inline_table()
            inline.update(dict(value))
            value = inline
        table.append(name, value)
    return table


def _walk(
    doc: tomlkit.TOMLDocument, path: tuple[str, ...], create: bool
) -> TOMLContainer | Table | InlineTable | OutOfOrderTableProxy | None:
    current: TOMLContainer | Table | InlineTable | OutOfOrderTableProxy = doc
    for depth, key in enumerate(path):
        if key not in current:
            if not create:
                return None
            current[key] = tomlkit.table(is_super_table=True)
        value = current[key]
        if not isinstance(value, (Table, InlineTable, OutOfOrderTableProxy)):
            raise StructureError(f"{where(path[: depth + 1])} is not a table")
        current = value
    return current


def _same(text: str, want: dict[str, Any], path: tuple[str, ...]) -> bool:
    """Does *text* parse to *want* (an emptied container may be there or not)? Compared as
    JSON text, so that a ``nan`` is the same as itself (``==`` says it is not)."""
    try:
        data = _parse(text).unwrap()
    except ParseError:
        return False
    return _as_json(_prune(data, path)) == _as_json(_prune(want, path))


def _as_json(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, default=str)


def _prune(data: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    if not path:
        return data
    child = data.get(path[0])
    if isinstance(child, dict):
        child = _prune(child, path[1:])
        if child:
            data[path[0]] = child
        else:
            data.pop(path[0])
    return data


def read_entries(text: str, container: Container) -> dict[str, Any]:
    found = lookup(_read(text), container.path, "a table")
    if found is None:
        return {}
    entries = entries_of(found, container, "a table")
    # a copy: the data read is shared with the other reads and edits of the text
    return copy.deepcopy({k: v for k, v in entries.items() if isinstance(v, dict)})


def set_entry(
    text: str,
    container: Container,
    key: str,
    entry: Mapping[str, Any],
    defaults: Mapping[str, Any],
) -> tuple[str, bool]:
    doc = _parse(text)
    found = _walk(doc, container.path, create=False)
    existed = found is not None and key in found
    if existed and found is not None and same_data(found[key].unwrap(), dict(entry)):
        return text, True
    nl = newline(text)
    rendered = _render(container.path, key, entry, nl)
    want = expected(doc.unwrap(), container, key, entry)
    spliced = _splice_set(text, container.path, key, rendered, nl)
    if spliced is not None and _same(spliced, want, container.path):
        return spliced, existed
    doc = _own(text)
    found = _walk(doc, container.path, create=True)
    assert found is not None
    empty = tomlkit.inline_table() if isinstance(found, InlineTable) else tomlkit.table()
    found[key] = _entry_table(entry, empty)
    return _dumped(doc, want, container.path, key), existed


def remove_entry(text: str, container: Container, key: str) -> tuple[str, bool]:
    doc = _parse(text)
    found = _walk(doc, container.path, create=False)
    if found is None or key not in found:
        return text, False
    want = expected(doc.unwrap(), container, key, None)
    spliced = _splice_remove(text, container.path, key)
    if spliced is not None and _same(spliced, want, container.path):
        return spliced, True
    doc = _own(text)
    found = _walk(doc, container.path, create=False)
    assert found is not None
    del found[key]
    return _dumped(doc, want, container.path, key), True


def _own(text: str) -> tomlkit.TOMLDocument:
    """A document of the valid *text* for tomlkit to edit, where no splice can make the
    edit (an inline-table container, dotted keys): parsed again, as the one :func:`_parse`
    keeps is shared by the reads and edits of the text."""
    return tomlkit.parse(text)


def _dumped(
    doc: tomlkit.TOMLDocument, want: dict[str, Any], path: tuple[str, ...], key: str
) -> str:
    """The text of the edited *doc*, when it reads as *want*: tomlkit writes an entry of
    dotted root keys back as a table, under which the root keys that followed it would be
    read (``model`` becoming a key of the server)."""
    text = tomlkit.dumps(doc)
    if not _same(text, want, path):
        raise StructureError(f"the entry {key!r} cannot be edited without moving other keys")
    return text


def entry_span(text: str, container: Container, key: str) -> tuple[int, int] | None:
    """The entry's ``[table]`` and its sub-tables, when they follow each other (the
    lines ``set_entry`` replaces); None for an entry written another way (an inline
    table, dotted keys)."""
    _parse(text)
    entry_path = (*container.path, key)
    own = _under(_headers(text), entry_path)
    if not own or own[0].path != entry_path:
        return None
    if any(a.block_end != b.start for a, b in itertools.pairwise(own)):
        return None
    return own[0].start, own[-1].end


# -- splices ----------------------------------------------------------------------------------


def _splice_set(text: str, path: tuple[str, ...], key: str, rendered: str, nl: str) -> str | None:
    headers = _headers(text)
    entry_path = (*path, key)
    own = _under(headers, entry_path)
    if own:
        if own[0].path != entry_path:
            return None
        first = own[0]
        pieces = [text[: first.start], rendered]
        pos = first.end
        for h in own[1:]:
            pieces.append(text[pos : _blank_before(text, h.start)])
            pos = h.end
        pieces.append(text[pos:])
        return "".join(pieces)
    siblings = _under(headers, path)
    if text.strip() == "":
        return rendered
    at = _insert_position(text, siblings[-1]) if siblings else len(text)
    return _insert_table(text, at, rendered, nl)


def _splice_remove(text: str, path: tuple[str, ...], key: str) -> str | None:
    own = _under(_headers(text), (*path, key))
    if not own:
        return None
    pieces = []
    pos = 0
    for h in own:
        start = _blank_before(text, h.start)
        end = h.end
        if start == h.start:  # no separator before it: take the one after it
            end = _blank_after(text, end)
        pieces.append(text[pos:start])
        pos = end
    pieces.append(text[pos:])
    result = "".join(pieces)
    if not text.endswith(("\n", "\r")) and own[-1].block_end == len(text):
        # the table was the file's end, which had no final newline: neither has the rest
        result = without_final_newline(result)
    return "" if result.strip() == "" else result


def _blank_before(text: str, start: int) -> int:
    """*start* moved back over one empty line just before it (the separator we insert)."""
    if text.endswith("\n\n", 0, start):
        return start - 1
    if text.endswith("\r\n\r\n", 0, start):
        return start - 2
    return start


def _blank_after(text: str, end: int) -> int:
    for blank in ("\n", "\r\n"):
        if text.startswith(blank, end):
            return end + len(blank)
    return end


def _insert_position(text: str, last: _Header) -> int:
    """Where a new table goes after the container's last table *last*: below its content
    and the comment lines directly under it — unless those comments run straight into the
    next header (they head that table). Comments after a blank line belong to what follows,
    so the new table goes above them."""
    at = last.end
    pos = at
    while pos < last.block_end:
        line_end = text.find("\n", pos, last.block_end)
        line_end = last.block_end if line_end < 0 else line_end + 1
        if not text[pos:line_end].strip().startswith("#"):
            return at  # a blank line (or nothing more): the comments above stay with `last`
        pos = at = line_end
    if last.block_end < len(text):
        return last.end  # the comment block touches the next header: it heads that table
    return at


def _insert_table(text: str, at: int, rendered: str, nl: str) -> str:
    """*rendered* inserted at line start *at*, a blank line before it and after it (none
    after at the end of the file). A file without a final newline keeps lacking one."""
    before, after = text[:at], text[at:]
    bare_end = not after and not text.endswith(("\n", "\r"))
    if bare_end:
        before += nl
    piece = nl + rendered
    if after and after.split("\n", 1)[0].strip() != "":
        piece += nl  # the next line is not blank: separate the next table (or its comment)
    elif bare_end:
        piece = piece[: -len(nl)]
    return before + piece + after
