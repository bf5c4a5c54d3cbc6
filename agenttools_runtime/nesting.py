"""How deeply a parsed value of untrusted text (``manifest.json``, SKILL.md frontmatter) nests,
measured without recursion, so a hostile file gives a clear error instead of a RecursionError
in whatever code walks the value next."""

from __future__ import annotations

from collections.abc import Mapping


def deeper_than(value: object, limit: int) -> bool:
    """True when *value* has lists or mappings nested more than *limit* levels (a scalar is
    depth 0, ``[]`` and ``{}`` are depth 1)."""
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: list[object] = list(item.values())
        elif isinstance(item, (list, tuple)):
            children = list(item)
        else:
            continue
        if depth + 1 > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
