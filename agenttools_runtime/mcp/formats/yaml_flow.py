"""Splicing one entry into or out of a flow-style YAML container (``extensions: {a: {...}}``,
``mcpServers: [{name: a}]``) as text, so the other entries and what follows the closing
bracket (a comment, its column) stay byte for byte; and quoting what we write for YAML 1.1
readers.

The positions come from ruamel's node graph (each node's start and end in the text). The
caller checks every splice by re-parsing, and falls back to its round-trip edit when this
returns ``None`` or the result does not hold the expected data.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.scalarstring import SingleQuotedScalarString

from agenttools_runtime.mcp.formats.base import Container

_STR = "tag:yaml.org,2002:str"
_YAML_1_1 = VersionedResolver(version=(1, 1))


def quoted(value: Any) -> Any:
    """*value* with every string a YAML 1.1 reader would take for something else (``yes``,
    ``on``, ``y``, ``1:20``, ``1_000``) single-quoted: ruamel writes YAML 1.2, where those
    are plain strings, but PyYAML and older client parsers read YAML 1.1. Only what we write
    is quoted; the user's own scalars keep their spelling."""
    if isinstance(value, Mapping):
        return {quoted(k): quoted(v) for k, v in value.items()}
    if isinstance(value, list):
        return [quoted(v) for v in value]
    if type(value) is str and _YAML_1_1.resolve(ScalarNode, value, (True, False)) != _STR:
        return SingleQuotedScalarString(value)
    return value


def flow_item(key: str, entry: Mapping[str, Any], list_key: str | None) -> str:
    """The entry as one flow item: ``key: {...}`` in a mapping, ``{...}`` in a list."""
    yaml = YAML(typ="rt")
    yaml.width = 1 << 20  # one line
    yaml.default_flow_style = True
    out = io.StringIO()
    yaml.dump(quoted({key: dict(entry)} if list_key is None else dict(entry)), out)
    text = out.getvalue().strip()
    return text[1:-1] if list_key is None else text  # a pair: without the mapping's braces


def splice(text: str, container: Container, key: str, item: str | None) -> str | None:
    """*text* with *key*'s item of the flow container at ``container.path`` replaced by (or
    added as) *item*, or removed (*item* ``None``); ``None`` when that container is not a
    flow collection (or *key* to remove is not in it)."""
    try:
        node: Node | None = YAML(typ="rt").compose(text)
    except (YAMLError, RecursionError):
        return None
    for part in container.path:
        node = _value(node, part)
    if not isinstance(node, (MappingNode, SequenceNode)) or not node.flow_style:
        return None
    if container.list_key is None:
        if not isinstance(node, MappingNode):
            return None
        spans = [(k.start_mark.index, v.end_mark.index) for k, v in node.value]
        found = [i for i, (k, _v) in enumerate(node.value) if _is(k, key)]
    else:
        if not isinstance(node, SequenceNode):
            return None
        spans = [(n.start_mark.index, n.end_mark.index) for n in node.value]
        found = [i for i, n in enumerate(node.value) if _is(_value(n, container.list_key), key)]
    if len(found) > 1:
        return None
    index = found[0] if found else None
    if item is None:
        if index is None:
            return None
        start, end = spans[index]
        if index > 0:  # ", item" after the one before
            start = spans[index - 1][1]
        elif len(spans) > 1:  # "item, " before the next
            end = spans[1][0]
        return text[:start] + text[end:]
    if index is not None:
        start, end = spans[index]
        return text[:start] + item + text[end:]
    if spans:
        at = spans[-1][1]
        return text[:at] + ", " + item + text[at:]
    at = node.start_mark.index + 1  # an empty {} / []: just inside the bracket
    return text[:at] + item + text[at:]


def _value(node: Node | None, key: str) -> Node | None:
    if not isinstance(node, MappingNode):
        return None
    matches = [v for k, v in node.value if _is(k, key)]
    return matches[0] if len(matches) == 1 else None


def _is(node: Node | None, key: str) -> bool:
    return isinstance(node, ScalarNode) and node.tag == _STR and node.value == key
