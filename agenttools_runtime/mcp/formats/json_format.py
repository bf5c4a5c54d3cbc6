"""JSON and JSONC (comments, trailing commas) by minimal text splice.

Only the bytes of the one entry (plus the comma that separates it) change; every other byte of
the file — comments, indentation, key order, escapes, number spellings, newline style — stays.

Speed: ``~/.claude.json`` is often megabytes. Navigation walks only the objects on the path
to the container; every value it steps over is skipped with the C scanner of :mod:`json`
(``raw_decode``), which also validates it. Only a value that the strict scanner rejects
(it holds a comment or a trailing comma) goes through the pure-Python JSONC scanner, which is
also the one that reports errors with their line and column.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agenttools_runtime import limits
from agenttools_runtime.mcp.formats.base import (
    Container,
    ParseError,
    StructureError,
    entries_of,
    nest,
    newline,
    only_entry,
    same_data,
    where,
)

_WS = re.compile(r"[ \t\r\n]*")
_SPACED = re.compile(r'"[ \t]*:[ \t]')
# Patterns that a deploy into a plain config file does not use are compiled where they are
# first used (re keeps them): compiling them all at import was half of this module's
# start-up cost (benchmarks/state_store.py, the fresh deploy's).
_COMMENT = r"//[^\r\n]*|/\*.*?\*/"  # re.S
_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"
_LITERALS = {"true": True, "false": False, "null": None}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_STRICT = json.JSONDecoder(parse_constant=_reject_constant)


@dataclass(slots=True)
class _Member:
    """One member of an object (``key`` set) or item of an array (``key`` None)."""

    key: str | None
    start: int  # the key's opening quote (objects) or the value's first character (arrays)
    value_start: int
    value_end: int
    comma: int | None  # position of the comma after the value, if any


@dataclass(slots=True)
class _Composite:
    start: int  # the "{" / "["
    end: int  # one past the "}" / "]"
    members: list[_Member]

    @property
    def closing(self) -> int:
        return self.end - 1


class _Scanner:
    """Positions-based scanner over one text; raises :class:`ParseError`."""

    def __init__(self, text: str) -> None:
        self.text = text

    def error(self, message: str, pos: int) -> ParseError:
        return ParseError.at(message, self.text, pos)

    def skip(self, pos: int) -> int:
        """Skip whitespace and comments."""
        text = self.text
        while True:
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            if text.startswith("//", pos):
                nl = text.find("\n", pos)
                pos = len(text) if nl < 0 else nl
            elif text.startswith("/*", pos):
                close = text.find("*/", pos + 2)
                if close < 0:
                    raise self.error("unterminated /* comment", pos)
                pos = close + 2
            else:
                return pos

    def value(self, pos: int, build: bool) -> tuple[Any, int]:
        """Parse (``build``) or just validate the value at *pos*; returns (value, end)."""
        try:
            return _STRICT.raw_decode(self.text, pos)
        except (ValueError, RecursionError):
            return self._slow_value(pos, build)

    def composite(self, pos: int) -> _Composite:
        """The object or array starting at *pos*, with its members' positions."""
        text = self.text
        opener = text[pos]
        closer = "}" if opener == "{" else "]"
        members: list[_Member] = []
        i = self.skip(pos + 1)
        while True:
            if i >= len(text):
                raise self.error(f"missing {closer!r}", pos)
            if text[i] == closer:
                return _Composite(pos, i + 1, members)
            key: str | None = None
            start = i
            if opener == "{":
                if text[i] != '"':
                    raise self.error("expected a string key", i)
                key, i = self._string(i)
                i = self.skip(i)
                if not text.startswith(":", i):
                    raise self.error("expected ':'", i)
                i = self.skip(i + 1)
            if i >= len(text):
                raise self.error("expected a value", i)
            value_start = i
            _value, value_end = self.value(i, build=False)
            i = self.skip(value_end)
            comma: int | None = None
            if text.startswith(",", i):
                comma = i
                i = self.skip(i + 1)
            elif i < len(text) and text[i] != closer:
                raise self.error(f"expected ',' or {closer!r}", i)
            members.append(_Member(key, start, value_start, value_end, comma))

    def _string(self, pos: int) -> tuple[str, int]:
        try:
            return json.decoder.scanstring(self.text, pos + 1, True)  # type: ignore[attr-defined,no-any-return]
        except json.JSONDecodeError as exc:
            # json's "Invalid control character at" reads as a sentence without "at"
            message = exc.msg.removesuffix(" starting at").removesuffix(" at")
            raise self.error(message[:1].lower() + message[1:], exc.pos) from None

    def _slow_value(self, pos: int, build: bool) -> tuple[Any, int]:
        text = self.text
        if pos >= len(text):
            raise self.error("expected a value", pos)
        ch = text[pos]
        if ch == '"':
            return self._string(pos)
        if ch in "{[":
            obj: Any = {} if ch == "{" else []
            comp = self.composite(pos)
            if build:
                for m in comp.members:
                    item, _ = self.value(m.value_start, True)
                    if m.key is None:
                        obj.append(item)
                    else:
                        obj[m.key] = item
            return obj, comp.end
        number = re.compile(_NUMBER).match(text, pos)
        if number and number.end() > pos:
            literal = number.group()
            is_float = any(c in literal for c in ".eE")
            return (float(literal) if is_float else int(literal)), number.end()
        for word, value in _LITERALS.items():
            if text.startswith(word, pos):
                return value, pos + len(word)
        raise self.error("expected a value", pos)


# -- the document --------------------------------------------------------------------------


class _Document:
    def __init__(self, text: str, nesting_checked: bool = False) -> None:
        if not nesting_checked:  # a text cut from a checked one nests no deeper
            _check_nesting(text)
        self.text = text
        self.scan = _Scanner(text)
        start = self.scan.skip(0)
        if start >= len(text):
            raise self.scan.error("expected a value", start)
        if text[start] not in "{[":
            raise StructureError("the top level is not a JSON object")
        self.root = self.scan.composite(start)
        trailing = self.scan.skip(self.root.end)
        if trailing < len(text):
            raise self.scan.error("unexpected content after the top-level value", trailing)
        self.newline = newline(text)
        # multi-line layout when the top-level value spans lines (not just a final newline)
        self.pretty = "\n" in text[self.root.start : self.root.end]
        # separators of single-line objects: as the file spells them
        self.spaced = self.pretty or _SPACED.search(text, 0, 65536) is not None
        self.unit = self._indent_unit()

    # layout ---------------------------------------------------------------------------------

    def _indent_unit(self) -> str:
        """The whitespace before the first top-level member that has only whitespace before
        it on its line ("  " when none has)."""
        for m in self.root.members:
            prefix = self.text[self.text.rfind("\n", 0, m.start) + 1 : m.start]
            if prefix and prefix.strip(" \t") == "":
                return prefix
        return "  "

    def own_indent(self, pos: int) -> str:
        """The indentation of the line *pos* is on."""
        line_start = self.text.rfind("\n", 0, pos) + 1
        line = self.text[line_start:pos]
        return line[: len(line) - len(line.lstrip(" \t"))]

    def last_token_end(self, start: int, stop: int) -> int:
        """End of the last comment in ``text[start:stop]`` (which holds only blanks and
        comments), else *start*."""
        end = start
        for match in re.compile(_COMMENT, re.S).finditer(self.text, start, stop):
            end = match.end()
        return end

    def line_comments_end(self, start: int, stop: int) -> int:
        """End of the comments in ``text[start:stop]`` (only blanks and comments) that begin
        on the line of *start* (or on the line a block comment of it ends on), else *start*."""
        end = start
        for match in re.compile(_COMMENT, re.S).finditer(self.text, start, stop):
            if "\n" in self.text[end : match.start()]:
                break
            end = match.end()
        return end

    def render(self, value: Any, indent: str, inline: bool = False) -> str:
        if inline or not self.pretty:
            separators = (", ", ": ") if self.spaced else (",", ":")
            return json.dumps(value, ensure_ascii=False, separators=separators)
        text = json.dumps(value, ensure_ascii=False, indent=self.unit, separators=(",", ": "))
        return text.replace("\n", self.newline + indent)

    def render_member(self, key: str | None, value: Any, indent: str, inline: bool = False) -> str:
        rendered = self.render(value, indent, inline)
        if key is None:
            return rendered
        colon = ": " if self.spaced else ":"
        return json.dumps(key, ensure_ascii=False) + colon + rendered

    # navigation ------------------------------------------------------------------------------

    def walk(
        self, path: tuple[str, ...]
    ) -> tuple[_Composite, int, _Composite | None, _Member | None]:
        """Walk *path*: ``(deepest existing object, number of keys found, container, the
        member whose null value ended the walk)``. The container is None when part of the
        path is missing; a ``null`` on the path counts as missing (it is replaced, nothing is
        lost), else the last item is None. The document is not changed: documents are shared
        by the reads and edits of one text."""
        current = self.root
        for depth, key in enumerate(path):
            if self.text[current.start] != "{":
                raise StructureError(f"{where(path[:depth])} is not an object")
            member = next((m for m in reversed(current.members) if m.key == key), None)
            if member is None:
                return current, depth, None, None
            if self.text.startswith("null", member.value_start):
                return current, depth, None, member
            if self.text[member.value_start] not in "{[":
                raise StructureError(f"{where(path[: depth + 1])} is not an object")
            current = self.scan.composite(member.value_start)
        return current, len(path), current, None

    def entry_index(self, container: _Composite, spec: Container, key: str) -> list[int]:
        """Indexes of the members that are the entry *key* (the last one wins for reads)."""
        if spec.list_key is None:
            return [i for i, m in enumerate(container.members) if m.key == key]
        found = []
        for i, m in enumerate(container.members):
            if self.text[m.value_start] != "{":
                continue
            item, _ = self.scan.value(m.value_start, True)
            if item.get(spec.list_key) == key:
                found.append(i)
        return found

    # edits -----------------------------------------------------------------------------------

    def insert(
        self, into: _Composite, items: list[tuple[str | None, Any]]
    ) -> list[tuple[int, int, str]]:
        """Edits that append members (``(key, value)``; key None in arrays) to *into*, in the
        layout of its neighbours. Several members go in one edit, so they share one comma."""
        text = self.text
        members = into.members
        multiline = self.pretty and (not members or "\n" in text[into.start : members[0].start])
        if not multiline:
            sep = ", " if self.spaced else ","
            rendered = sep.join(self.render_member(k, v, "", inline=True) for k, v in items)
            if not members:
                return [(into.start + 1, into.start + 1, rendered)]
            last = members[-1]
            if last.comma is not None:
                return [(last.comma + 1, last.comma + 1, " " + rendered + ",")]
            return [(last.value_end, last.value_end, sep + rendered)]
        nl = self.newline
        if members:
            last = members[-1]
            indent = self.own_indent(last.start)
        else:
            outer = self.own_indent(into.start)
            indent = outer + self.unit
        rendered = ("," + nl + indent).join(self.render_member(k, v, indent) for k, v in items)
        if members:
            # right below the last member (and a comment on its line): comment lines further
            # down are the user's notes, a commented-out member, or head what follows
            if last.comma is not None:
                at = self.line_comments_end(last.comma + 1, into.closing)
                return [(at, at, nl + indent + rendered + ",")]
            at = self.line_comments_end(last.value_end, into.closing)
            return [(last.value_end, last.value_end, ","), (at, at, nl + indent + rendered)]
        at = self.last_token_end(into.start + 1, into.closing)
        tail = "" if "\n" in text[at : into.closing] else nl + outer
        return [(at, at, nl + indent + rendered + tail)]

    def remove(self, into: _Composite, index: int) -> list[tuple[int, int, str]]:
        """Edits that delete member *index* and its separator, leaving comments around it."""
        text = self.text
        members = into.members
        m = members[index]
        prev_comma = members[index - 1].comma if index > 0 else None
        boundary = (prev_comma + 1) if prev_comma is not None else into.start + 1
        start = self.last_token_end(boundary, m.start)
        if m.comma is not None:
            end = m.comma + 1
            if index == 0 and "\n" not in text[start:end]:
                start = m.start  # inline first member: take the blank after it instead
                end = _WS.match(text, end).end()  # type: ignore[union-attr]
        else:
            end = m.value_end
        edits = [(start, end, "")]
        if m.comma is None and prev_comma is not None:
            edits.append((prev_comma, prev_comma + 1, ""))
        if len(members) == 1:
            inner = text[into.start + 1 : start] + text[end : into.closing]
            if inner.strip(" \t\r\n") == "":
                return [(into.start + 1, into.closing, "")]  # an emptied container is {} / []
        return edits


# an escape inside a string; strings and comments (their brackets are not structure)
# (each compiled where it is used, with re.S but _PIECE_COMMENT)
_ESCAPE = r"\\."
# a whole comment within one piece of the text between quotes
_PIECE_COMMENT = r"//[^\n\x00]*(?=\n|\Z)|/\*[^\x00]*?\*/"
_NOT_STRUCTURE = r'"[^"\\]*(?:\\.[^"\\]*)*"|//[^\n]*|/\*.*?\*/'
_BRACKETS = r'"[^"\\]*(?:\\.[^"\\]*)*"|//[^\n]*|/\*.*?\*/|[\[{]|[\]}]'
# structure -> its brackets, all of one kind ("[]"); other ASCII characters deleted
_ONLY_BRACKETS = {c: None for c in range(128) if chr(c) not in "[]{}"} | str.maketrans("{}", "[]")


def _check_nesting(text: str) -> None:
    """Refuse a document nested deeper than :data:`limits.MAX_NESTING` (the scanners recurse
    once per level), with the position where it gets too deep.

    The fast path runs in C (``~/.claude.json`` is often megabytes): the text outside strings
    (split at the quotes once escapes are gone, comments taken out), reduced to its brackets,
    from which every innermost pair is removed once per level. Only a text with a quote inside
    a comment (which throws the split off) takes the regular expression over all of it, and
    only one that is not empty after as many rounds as the limit (too deep, or unbalanced)
    is scanned for the position."""
    if text.count("{") + text.count("[") <= limits.MAX_NESTING:
        return
    plain = re.compile(_ESCAPE, re.S).sub("", text) if "\\" in text else text
    # the pieces between quotes, joined by NUL: a comment that a quote cut short ends at one
    outside = "\x00".join(plain.split('"')[::2])
    if "/" in outside:  # comments: outside every string, so the first one at least is here
        outside = re.compile(_PIECE_COMMENT).sub("", outside)
        if "/" in outside:  # a comment holding a quote (or not JSON at all)
            outside = re.compile(_NOT_STRUCTURE, re.S).sub("", text)
    brackets = outside.translate(_ONLY_BRACKETS)
    for _round in range(limits.MAX_NESTING):
        inner = brackets.replace("[]", "")
        if inner == brackets:
            break
        brackets = inner
    if not brackets:
        return
    depth = 0
    for match in re.compile(_BRACKETS, re.S).finditer(text):
        token = text[match.start()]
        if token in "[{":
            depth += 1
            if depth > limits.MAX_NESTING:
                raise ParseError.at(limits.too_deep(), text, match.start())
        elif token in "]}":
            depth -= 1


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    pieces = []
    pos = len(text)
    # edits at one position keep their list order (a comma before the member after it)
    ordered = sorted(enumerate(edits), key=lambda e: (e[1][0], e[1][1], e[0]), reverse=True)
    for _index, (start, end, replacement) in ordered:
        pieces.append(text[end:pos])
        pieces.append(replacement)
        pos = start
    pieces.append(text[:pos])
    return "".join(reversed(pieces))


def _is_blank(text: str) -> bool:
    """Nothing but blanks and comments (a JSONC file may start as a comment block)."""
    return _Scanner(text).skip(0) >= len(text)


def _found(text: str, container: Container) -> tuple[_Document, _Composite] | None:
    """The document of *text* and the value at the container's path (None: a text of only
    blanks and comments, or no container there)."""
    if _is_blank(text):
        return None
    doc = _parsed(text)
    found = doc.walk(container.path)[2]
    return None if found is None else (doc, found)


@functools.lru_cache(maxsize=2)
def _parsed(text: str) -> _Document:
    """The document of *text*, parsed once for the reads and edits of one operation (the
    entries read, each entry set, its span before and after): a fact of the text alone, never
    changed by its users (edits are splices of a new text). Two: an edit's before and after."""
    return _Document(text)


def read_entries(text: str, container: Container) -> dict[str, Any]:
    located = _found(text, container)
    if located is None:
        return {}
    doc, found = located
    value, _ = doc.scan.value(found.start, True)
    return entries_of(value, container, "an object")


def set_entry(
    text: str,
    container: Container,
    key: str,
    entry: Mapping[str, Any],
    defaults: Mapping[str, Any],
) -> tuple[str, bool]:
    entry = dict(entry)
    if _is_blank(text):
        leaf = only_entry(container, key, entry)
        document = {**defaults, **nest(container.path, leaf)} if container.path else leaf
        nl = "\r\n" if "\r\n" in text else "\n"
        rendered = json.dumps(document, ensure_ascii=False, indent=2).replace("\n", nl) + nl
        if text.strip(" \t\r\n") == "":
            return rendered, False
        # keep the comments, the document goes below them
        return text.rstrip(" \t\r\n") + nl + rendered, False
    doc = _parsed(text)
    parent, depth, found, null = doc.walk(container.path)
    edits: list[tuple[int, int, str]] = []
    root_items: list[tuple[str | None, Any]] = []
    if found is None:  # the path from its first missing (or null) key on is new
        rest = container.path[depth:]
        value = nest(rest[1:], only_entry(container, key, entry))
        if null is not None:
            inline = "\n" not in text[parent.start : parent.end]
            rendered = doc.render(value, doc.own_indent(null.start), inline)
            edits.append((null.value_start, null.value_end, rendered))
        elif parent is doc.root:
            root_items.append((rest[0], value))
        else:
            edits += doc.insert(parent, [(rest[0], value)])
        existed = False
    else:
        opener, kind = ("[", "a list") if container.list_key else ("{", "an object")
        if text[found.start] != opener:
            raise StructureError(f"{where(container.path)} is not {kind}")
        indexes = doc.entry_index(found, container, key)
        existed = bool(indexes)
        if indexes:
            m = found.members[indexes[-1]]
            current, _ = doc.scan.value(m.value_start, True)
            if same_data(current, entry):
                return text, True
            inline = "\n" not in text[found.start : found.end]
            rendered = doc.render(entry, doc.own_indent(m.start), inline)
            edits.append((m.value_start, m.value_end, rendered))
        else:
            member_key = None if container.list_key else key
            edits += doc.insert(found, [(member_key, entry)])
    if container.path and defaults and doc.text[doc.root.start] == "{":
        present = {m.key for m in doc.root.members}
        root_items += [(k, v) for k, v in defaults.items() if k not in present]
    if root_items:  # one edit: the members share the comma after the last value
        edits += doc.insert(doc.root, root_items)
    return _apply(text, edits), existed


def remove_entry(text: str, container: Container, key: str) -> tuple[str, bool]:
    located = _found(text, container)
    if located is None:
        return text, False
    doc, found = located
    indexes = doc.entry_index(found, container, key)
    if not indexes:
        return text, False
    # remove from the last occurrence backwards, re-scanning after each (rare duplicates)
    while True:
        text = _apply(text, doc.remove(found, indexes[-1]))
        if len(indexes) == 1:
            return text, True
        doc = _Document(text, nesting_checked=True)
        again = doc.walk(container.path)[2]
        assert again is not None
        found, indexes = again, doc.entry_index(again, container, key)


def entry_span(text: str, container: Container, key: str) -> tuple[int, int] | None:
    located = _found(text, container)
    if located is None or text[located[1].start] != ("[" if container.list_key else "{"):
        return None
    doc, found = located
    indexes = doc.entry_index(found, container, key)
    if not indexes:
        return None
    member = found.members[indexes[-1]]  # the one set_entry replaces
    return member.value_start, member.value_end
