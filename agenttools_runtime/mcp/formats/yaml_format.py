"""YAML (Goose ``config.yaml``, Continue ``config.yaml`` and block files).

The file is parsed with :mod:`ruamel.yaml` (validation and limits: :mod:`.yaml_load`;
positions of keys and list items), and
the entry's lines are spliced in or out, so every other line — comments, quoting, indentation
— stays byte-for-byte. Every splice is checked by re-parsing (the result must hold exactly the
old data with the one entry changed). A flow-style container
(``extensions: {a: {...}}``) is spliced as text by :mod:`.yaml_flow`. Layouts neither splice
handles are edited with ruamel's round-trip dumper instead, which keeps comments and data but
may re-indent; its result is checked the same way, and refused when it fails.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedOrderedMap, CommentedSeq
from ruamel.yaml.util import load_yaml_guess_indent

from agenttools_runtime.mcp.formats.base import (
    Container,
    ParseError,
    StructureError,
    entries_of,
    expected,
    is_blank_or_comment,
    is_entry,
    lookup,
    nest,
    newline,
    only_entry,
    same_data,
    where,
    without_final_newline,
)
from agenttools_runtime.mcp.formats.yaml_flow import flow_item, splice
from agenttools_runtime.mcp.formats.yaml_flow import quoted as _quoted
from agenttools_runtime.mcp.formats.yaml_load import load as _load
from agenttools_runtime.mcp.formats.yaml_load import loader as _loader

_EMPTY_VALUE = re.compile(
    r"^(?P<head>[^#\n]*?:)(?P<gap>[ \t]*)(?:\{[ \t]*\}|\[[ \t]*\]|~|null|Null|NULL)?"
    r"(?P<comment>[ \t]*#[^\r\n]*)?(?P<nl>\r?\n)?$"
)
_SEQ_LINE = re.compile(r"^([ \t]*)-[ \t]")
# lines as ruamel counts them (its marks index this list): not str.splitlines, which also
# breaks at U+2028, form feeds and others a quoted scalar may hold
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_OMAP = "is a YAML !!omap, which agenttools does not edit"
_EMPTY_FLOW_ROOT = re.compile(r"^[ \t]*\{[ \t]*\}[ \t]*(?P<comment>#[^\r\n]*)?(?:\r?\n)?$")


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _dump(value: Any, seq_offset: int, nl: str) -> list[str]:
    yaml = YAML(typ="rt")
    yaml.width = 4096
    yaml.default_flow_style = False
    yaml.indent(mapping=2, sequence=2 + seq_offset, offset=seq_offset)
    out = io.StringIO()
    yaml.dump(_quoted(value), out)
    return [line.rstrip("\r\n") + nl for line in _lines(out.getvalue())]


def _lines(text: str) -> list[str]:
    return _LINE.findall(text)


def _indent(lines: list[str], prefix: str) -> list[str]:
    return [prefix + line if line.strip() else line for line in lines]


def _seq_offset(lines: list[str]) -> int:
    """How far the file indents ``- `` under its parent key (0: "indentless")."""
    for i in range(1, len(lines)):
        match = _SEQ_LINE.match(lines[i])
        prev = lines[i - 1]
        if match and prev.rstrip().endswith(":"):
            return max(0, len(match.group(1)) - _col(prev))
    return 2


def _col(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _block_end(lines: list[str], first: int, col: int) -> int:
    """Index one past the last line of the block that starts on line *first* at column
    *col*: following lines indented deeper belong to it; trailing blank lines and comments
    at *col* or less do not."""
    last = first
    for j in range(first + 1, len(lines)):
        line = lines[j]
        if not line.strip():
            continue
        if _col(line) > col:
            last = j
        elif not line.lstrip().startswith("#"):
            break
    return last + 1


def _below_last_key(
    lines: list[str], mapping: CommentedMap, shift: int, value: Any, offset: int, nl: str
) -> str:
    """*lines* with the keys of *value* added to the block mapping *mapping* (its lines
    *shift* further down than ruamel marked them), below its last key's block."""
    line, col = mapping.lc.key(list(mapping.keys())[-1])
    end = _block_end(lines, line + shift, col)
    body = _indent(_dump(value, offset, nl), " " * col)
    return "".join([*lines[:end], *body, *lines[end:]])


def _final_newline_as_in(text: str, spliced: str | None) -> list[str]:
    """The candidates for a splice of *text*: a file without a final newline keeps lacking
    one (the splice adds one to the last line), when the data allows."""
    if spliced is None:
        return []
    if text and not text.endswith(("\n", "\r")):
        bare = without_final_newline(spliced)
        if bare != spliced:
            return [bare, spliced]
    return [spliced]


def _item_spans(
    lines: list[str], seq: CommentedSeq, shift: int
) -> list[tuple[int, int, int]] | None:
    """``(first line, end line, dash column)`` of every item of a block sequence (its lines
    *shift* further down than ruamel marked them)."""
    spans = []
    for index in range(len(seq)):
        line, col = seq.lc.item(index)
        line += shift
        dash = lines[line].rfind("-", 0, col + 1)
        if dash < 0 or lines[line][:dash].strip():
            return None
        spans.append((line, _block_end(lines, line, dash), dash))
    return spans


def _entry_block(
    lines: list[str], node: Any, container: Container, key: str
) -> tuple[int, int, int] | None:
    """``(first line, end line, how many entries are *key*)`` of the entry *key* in the block
    collection *node* (in a list: the first such item, the one ``set_entry`` replaces);
    None in flow style or when it is not there."""
    if container.list_key is None:
        if not isinstance(node, CommentedMap) or node.fa.flow_style() or not _own_key(node, key):
            return None
        line, col = node.lc.key(key)
        return line, _block_end(lines, line, col), 1
    if not isinstance(node, CommentedSeq) or node.fa.flow_style():
        return None
    spans = _item_spans(lines, node, 0)
    matches = [i for i, v in enumerate(node) if is_entry(v, container.list_key, key)]
    if spans is None or not matches:
        return None
    start, end, _dash = spans[matches[0]]
    return start, end, len(matches)


def _entries(root: Any, container: Container) -> dict[str, Any]:
    """The entries of *container* in the parsed document *root*, as plain data."""
    node = None if root is None else lookup(root, container.path, "a mapping")
    return {} if node is None else entries_of(_plain(node), container, "a mapping")


def read_entries(text: str, container: Container) -> dict[str, Any]:
    return _entries(_load(text), container)


def set_entry(
    text: str,
    container: Container,
    key: str,
    entry: Mapping[str, Any],
    defaults: Mapping[str, Any],
) -> tuple[str, bool]:
    root = _load(text)
    if root is not None and not isinstance(root, CommentedMap):
        raise StructureError("the top level is not a mapping")
    _check_editable(root, container)
    existing = _entries(root, container)  # (parsed once: ruamel is slow on a large file)
    existed = key in existing
    if existed and same_data(existing[key], _plain(dict(entry))):
        return text, True
    # (the defaults a file lacks are added; same_data ignores the order of keys)
    want = {**defaults, **expected(_plain(root), container, key, entry)}
    spliced = _splice_set(text, root, container, key, dict(entry), defaults)
    if spliced is None and all(name in (root or {}) for name in defaults):
        spliced = splice(text, container, key, flow_item(key, entry, container.list_key))
    for candidate in _final_newline_as_in(text, spliced):
        if _holds(candidate, want):
            return candidate, existed
    edited = _roundtrip(text, container, key, dict(entry), defaults)
    if not _holds(edited, want):  # never a text that does not read back as written
        raise StructureError(
            f"the entry {key!r} cannot be written into this file's YAML (the edited text "
            "would not read back as the file's data with the entry)"
        )
    return edited, existed


def remove_entry(text: str, container: Container, key: str) -> tuple[str, bool]:
    root = _load(text)
    if root is None:
        return text, False
    if not isinstance(root, CommentedMap):
        raise StructureError("the top level is not a mapping")
    if key not in _entries(root, container):
        return text, False
    _check_editable(root, container)
    want = expected(_plain(root), container, key, None)
    spliced = _splice_remove(text, root, container, key)
    if spliced is None:  # a flow container: its text is spliced
        spliced = splice(text, container, key, None)
    for candidate in _final_newline_as_in(text, spliced):
        if _holds(candidate, want):
            return candidate, True
    edited = _roundtrip(text, container, key, None, {})
    if not _holds(edited, want):  # never a removal said that did not happen
        raise StructureError(f"the entry {key!r} cannot be removed from this file's YAML")
    return edited, True


def entry_span(text: str, container: Container, key: str) -> tuple[int, int] | None:
    """The lines of the entry's block (a key of a block mapping, or an item of a block
    sequence: what ``set_entry`` replaces); None in flow style or at the root."""
    root = _load(text)
    if not isinstance(root, CommentedMap) or not container.path:
        return None
    lines = _lines(text)
    block = _entry_block(lines, lookup(root, container.path, "a mapping"), container, key)
    if block is None:
        return None
    start, end, _count = block
    before = sum(map(len, lines[:start]))
    return before, before + sum(map(len, lines[start:end]))


def _check_editable(root: CommentedMap | None, container: Container) -> None:
    """``StructureError`` when the container, or a mapping on its path, is one agenttools
    does not edit: an anchored or aliased node (``&b`` / ``*b``) is shared by every key
    naming it, so the entry would land in (or leave) the user's other keys too; keys from a
    merge key (``<<``) and the pairs of an ``!!omap`` have no lines of their own to splice."""
    node: Any = root
    for depth, part in enumerate(container.path):
        if isinstance(node, CommentedOrderedMap):  # (the top level may be one)
            raise StructureError(f"{where(container.path[:depth])} {_OMAP}")
        if not isinstance(node, CommentedMap) or part not in node:
            return  # (the rest of the path is missing: created as new mappings)
        here = where(container.path[: depth + 1])
        if not _own_key(node, part):
            raise StructureError(
                f"{here} comes from a YAML merge key (<<), which agenttools does not edit"
            )
        node = node[part]
        problem = _unsupported(node)
        if problem is not None:
            raise StructureError(f"{here} {problem}")


def _own_key(mapping: CommentedMap, key: str) -> bool:
    """Whether *key* is written in *mapping* itself, on a line ruamel marked: not taken from
    a merge key (``<<``), nor a pair of an ``!!omap`` (a sequence of one-pair mappings)."""
    if isinstance(mapping, CommentedOrderedMap):
        return False
    return any(name == key for name, _value in mapping.non_merged_items())


def _unsupported(node: Any) -> str | None:
    """Why agenttools does not edit the mapping or sequence *node* (see
    :func:`_check_editable`), or None."""
    if not isinstance(node, (CommentedMap, CommentedSeq)):
        return None
    anchor = node.yaml_anchor()
    if anchor is not None and anchor.value is not None:
        return (
            f"is a YAML anchor or alias (&{anchor.value} / *{anchor.value}), which other keys "
            "may share; agenttools does not edit it"
        )
    if isinstance(node, CommentedOrderedMap):
        return _OMAP
    if isinstance(node, CommentedMap) and node.merge:
        return "holds a YAML merge key (<<), which agenttools does not edit"
    return None


def _holds(text: str, want: Any) -> bool:
    try:
        return same_data(_plain(_load(text)), want)
    except ParseError:
        return False


def _splice_set(
    text: str,
    root: CommentedMap | None,
    container: Container,
    key: str,
    entry: dict[str, Any],
    defaults: Mapping[str, Any],
) -> str | None:
    lines = _lines(text)
    nl = newline(text)
    offset = _seq_offset(lines)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += nl
    leaf = only_entry(container, key, entry)
    if not container.path:
        return None  # entries at the root: left to the round-trip edit
    if isinstance(root, CommentedMap) and not root:
        # "{}" as the whole document: the line goes, its comment and the others stay
        match = _EMPTY_FLOW_ROOT.match(lines[root.lc.line])
        if match is None:
            return None
        comment = [match.group("comment") + nl] if match.group("comment") else []
        lines[root.lc.line : root.lc.line + 1] = comment
        root = None
    if root is None:  # empty, or only comments
        return _append(lines, {}, container.path, leaf, defaults, offset, nl)
    new_lines = _defaults(lines, root, defaults, offset, nl)
    shift = len(new_lines) - len(lines)
    parent: CommentedMap = root
    empty_rest: tuple[str, ...] = ()
    for depth, part in enumerate(container.path):
        if part not in parent:  # the rest of the path is new
            rest = container.path[depth:]
            if parent is root:  # below everything
                return _append(lines, root, rest, leaf, defaults, offset, nl)
            # the last key of a (non-empty, block) mapping below the root
            return _below_last_key(new_lines, parent, shift, nest(rest, leaf), offset, nl)
        if depth == len(container.path) - 1:
            break
        child = parent[part]
        if child is None or (isinstance(child, CommentedMap) and not child):
            empty_rest = container.path[depth + 1 :]  # filled below, as an empty container
            break
        if not isinstance(child, CommentedMap) or child.fa.flow_style():
            return None
        parent = child
    last = container.path[len(container.path) - 1 - len(empty_rest)]
    node = parent[last]
    key_line, key_col = parent.lc.key(last)
    key_line += shift
    if node is None or (isinstance(node, (CommentedMap, CommentedSeq)) and not node):
        match = _EMPTY_VALUE.match(new_lines[key_line][key_col:])
        if match is None:
            return None
        head = new_lines[key_line][:key_col] + match.group("head") + (match.group("comment") or "")
        if container.list_key and not empty_rest:
            body = _render_seq_item(entry, key_col + offset, offset, nl)
        else:  # the entry (in the rest of the path) as the key's block
            body = _indent(_dump(nest(empty_rest, leaf), offset, nl), " " * (key_col + 2))
        return "".join([*new_lines[:key_line], head + nl, *body, *new_lines[key_line + 1 :]])
    if container.list_key is None:
        if not isinstance(node, CommentedMap) or node.fa.flow_style():
            return None
        if key not in node:
            return _below_last_key(new_lines, node, shift, leaf, offset, nl)
        line, col = node.lc.key(key)
        line += shift
        end = _block_end(new_lines, line, col)
        body = _indent(_dump(leaf, offset, nl), " " * col)
        return "".join([*new_lines[:line], *body, *new_lines[end:]])
    if not isinstance(node, CommentedSeq) or node.fa.flow_style():
        return None
    spans = _item_spans(new_lines, node, shift)
    if spans is None:
        return None
    index = next((i for i, v in enumerate(node) if is_entry(v, container.list_key, key)), None)
    start, end, dash = spans[-1 if index is None else index]
    if index is None:  # a new item, after the last one
        start = end
    body = _render_seq_item(entry, dash, offset, nl)
    return "".join([*new_lines[:start], *body, *new_lines[end:]])


def _splice_remove(text: str, root: CommentedMap, container: Container, key: str) -> str | None:
    lines = _lines(text)
    node = lookup(root, container.path, "a mapping")
    parent = lookup(root, container.path[:-1], "a mapping") if container.path else None
    if not isinstance(parent, CommentedMap) or not container.path:
        return None
    block = _entry_block(lines, node, container, key)
    if block is None or block[2] != 1:
        return None
    start, end, _count = block
    remaining = [*lines[:start], *lines[end:]]
    if len(node) == 1:  # an emptied container stays, as {} / []
        key_line, key_col = parent.lc.key(container.path[-1])
        line = remaining[key_line]
        match = _EMPTY_VALUE.match(line[key_col:])
        if match is None:
            return None
        colon = key_col + match.end("head")
        empty = " []" if container.list_key else " {}"
        remaining[key_line] = line[:colon] + empty + line[colon:]
    return "".join(remaining)


def _render_seq_item(entry: dict[str, Any], dash: int, offset: int, nl: str) -> list[str]:
    body = _dump(entry, offset, nl)
    first = " " * dash + "- " + body[0]
    return [first, *_indent(body[1:], " " * (dash + 2))]


def _defaults(
    lines: list[str],
    root: CommentedMap,
    defaults: Mapping[str, Any],
    offset: int,
    nl: str,
) -> list[str]:
    missing = {k: v for k, v in defaults.items() if k not in root}
    if not missing:
        return lines
    at = 0  # above everything, or below a "---" document start
    for index, line in enumerate(lines):
        if line.startswith("---"):
            at = index + 1
            break
        if not (line.startswith("%") or is_blank_or_comment(line)):
            break
    return [*lines[:at], *_dump(missing, offset, nl), *lines[at:]]


def _append(
    lines: list[str],
    root: CommentedMap | dict[str, Any],
    path: tuple[str, ...],
    leaf: Any,
    defaults: Mapping[str, Any],
    offset: int,
    nl: str,
) -> str:
    block: dict[str, Any] = {k: v for k, v in defaults.items() if k not in root}
    block[path[0]] = nest(path[1:], leaf)
    return "".join([*lines, *_dump(block, offset, nl)])


def _roundtrip(
    text: str,
    container: Container,
    key: str,
    entry: dict[str, Any] | None,
    defaults: Mapping[str, Any],
) -> str:
    try:
        _data, indent, block_seq = load_yaml_guess_indent(text) if text.strip() else (0, 2, 0)
    except IndexError:  # ruamel's guess runs off a line such as "  -   " (an empty item)
        indent, block_seq = 2, _seq_offset(_lines(text))
    yaml = _loader()
    yaml.width = 4096
    offset = block_seq or 0
    mapping = indent or 2
    # a dash "offset" in from its key needs the item's content 2 further in, or ruamel
    # writes "- name: x" with the item's other keys at the dash's column (invalid YAML)
    yaml.indent(mapping=mapping, sequence=max(mapping, offset + 2), offset=offset)
    root = yaml.load(text) if text.strip() else None
    if root is None:
        root = CommentedMap()
    missing = [(name, value) for name, value in defaults.items() if name not in root]
    for at, (name, value) in enumerate(missing):  # (on top, in their order, as a splice)
        root.insert(at, name, _quoted(value))
    node: Any = root
    for depth, part in enumerate(container.path):
        if node.get(part) is None:
            leaf = container.list_key and depth == len(container.path) - 1
            node[part] = CommentedSeq() if leaf else CommentedMap()
        node = node[part]
    if container.list_key is None:
        # a key written as a number (1:, 1.5:) is the entry its text names, as _plain reads it
        for written in [k for k in node if not isinstance(k, str) and str(k) == key]:
            del node[written]
        if entry is None:
            node.pop(key, None)
        else:
            node[_quoted(key)] = _quoted(entry)
    else:
        list_key = container.list_key
        index = next((i for i, v in enumerate(node) if is_entry(v, list_key, key)), None)
        if entry is None and index is not None:
            del node[index]
        elif entry is not None and index is not None:
            node[index] = _quoted(entry)
        elif entry is not None:
            node.append(_quoted(entry))
    out = io.StringIO()
    yaml.dump(root, out)
    # comments keep their "\r" in ruamel: one newline style, the file's
    return out.getvalue().replace("\r\n", "\n").replace("\n", newline(text))
