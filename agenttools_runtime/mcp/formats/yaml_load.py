"""Parsing a YAML config file for editing: ruamel's round-trip data, with the limits
(nesting, aliases) and the shapes clients' readers reject (a mapping or sequence as a key)
refused as a :class:`ParseError` naming the line and column."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent, CollectionStartEvent
from ruamel.yaml.nodes import CollectionNode, MappingNode, SequenceNode

from agenttools_runtime import limits
from agenttools_runtime.mcp.formats.base import ParseError


class _LimitedComposer(Composer):
    """ruamel's composer, refusing mappings and sequences nested beyond the limit (it
    recurses once per level)."""

    nesting = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.parser.peek_event()
        if not isinstance(event, CollectionStartEvent):
            return super().compose_node(parent, index)
        self.nesting += 1
        try:
            if self.nesting > limits.MAX_NESTING:
                raise ComposerError(None, None, limits.too_deep(), event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self.nesting -= 1


def loader() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.Composer = _LimitedComposer
    return yaml


def load(text: str) -> Any:
    """The round-trip data of *text*; raises :class:`ParseError`, also for a document nested
    too deep or whose aliases expand beyond the limits (its data would be walked)."""
    try:
        data = loader().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = exc.problem or exc.context or "invalid YAML"
        if mark is None:
            raise ParseError(message, 1, 1) from None
        raise ParseError(message, mark.line + 1, mark.column + 1) from None
    except YAMLError as exc:
        raise ParseError(str(exc).splitlines()[0], 1, 1) from None
    except TypeError:  # a key holding a mapping: ruamel cannot even hash it ("? a: {}")
        raise ParseError(
            "a mapping key that is a mapping or a sequence", *_complex_key_node(text)
        ) from None
    except (AttributeError, KeyError, ValueError):
        # ruamel's constructor on a tag its value does not fit ("!!int x", "!!bool x",
        # "!!omap" on a scalar) or a merge of a mapping into itself ("b: &b {<<: *b}")
        raise ParseError(
            "a tag its value does not fit (such as !!int on a word) or a mapping merged "
            "into itself (<<)",
            0,
            0,
        ) from None
    problem = limits.shape_problem(data)
    if problem is not None:  # aliases: a recursive one, or a "billion laughs"
        raise ParseError(problem, *_first_alias(text))
    where = _complex_key(data)
    if where is not None:  # "[a]: x", "? {a: 1}": clients' readers (and PyYAML) reject them
        raise ParseError("a mapping key that is a mapping or a sequence", *where)
    return data


def _complex_key(data: Any) -> tuple[int, int] | None:
    """Line and column (1-based) of the first mapping key that is a mapping or a sequence."""
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, CommentedMap):
            for key in node:
                if isinstance(key, (tuple, list, Mapping)):
                    line, column = node.lc.key(key)
                    return line + 1, column + 1
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return None


def _complex_key_node(text: str) -> tuple[int, int]:
    """:func:`_complex_key` on the node graph (for a document whose data cannot be built)."""
    stack, seen = [loader().compose(text)], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:  # an alias: the same node again (or itself, recursively)
            continue
        seen.add(id(node))
        if isinstance(node, MappingNode):
            for key, value in node.value:
                if isinstance(key, CollectionNode):
                    return key.start_mark.line + 1, key.start_mark.column + 1
                stack.append(value)
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
    return 1, 1


def _first_alias(text: str) -> tuple[int, int]:
    """Line and column (1-based) of the first alias (``*name``) of *text*, else 1, 1."""
    try:
        for event in YAML(typ="rt").parse(text):
            if isinstance(event, AliasEvent):
                return event.start_mark.line + 1, event.start_mark.column + 1
    except YAMLError:
        pass
    return 1, 1
