"""The limits agenttools puts on the untrusted text it parses: how deep values may nest, and
how many values a YAML document with aliases may expand to.

Parsers recurse once per level of nesting, so a config file or ``pyproject.toml`` nested a
thousand levels deep would end in ``RecursionError``; a YAML "billion laughs" document (aliases
of aliases) expands to more values than memory holds. Real files nest a handful of levels and
hold hundreds of values; beyond these limits a file is refused with a clear error naming it,
and nothing is written.
"""

from __future__ import annotations

from collections.abc import Mapping

# Containers (tables, objects, arrays, mappings, sequences) inside each other, the document's
# top level counting as one: a value inside 100 arrays is accepted, inside 101 it is not.
MAX_NESTING = 100
# Values a parsed document may hold, counting an aliased value once per use (YAML).
MAX_VALUES = 100_000


def shape_problem(
    value: object, max_nesting: int = MAX_NESTING, max_values: int = MAX_VALUES
) -> str | None:
    """Why parsed *value* (mappings, lists, scalars) is beyond the limits (``"nested more
    than 100 levels deep"``), else None; a format without aliases passes ``sys.maxsize`` as
    *max_values*. Iterative, and it stops at the first excess: a value
    that contains itself (a recursive YAML alias) is too deep, not an endless walk."""
    stack: list[tuple[object, int]] = [(value, 0)]
    count = 0
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > max_values:
            return f"more than {max_values:,} values once its aliases are expanded"
        if isinstance(item, Mapping):
            children = list(item.values())
        elif isinstance(item, (list, tuple)):
            children = list(item)
        else:
            continue
        if depth + 1 > max_nesting:
            return too_deep(max_nesting)
        stack.extend((child, depth + 1) for child in children)
    return None


def too_deep(max_nesting: int = MAX_NESTING) -> str:
    """The reason given for a file nested beyond *max_nesting* levels."""
    return f"nested more than {max_nesting} levels deep"
