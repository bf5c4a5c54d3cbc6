"""PyYAML's safe loader refusing repeated keys: the SKILL.md frontmatter parser wherever the
frontmatter is more than plain ``key: value`` lines (:mod:`.plain_yaml` reads those)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import yaml


class UniqueKeyLoader(yaml.SafeLoader):
    """A SafeLoader that rejects duplicate keys (as strictyaml does)."""

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        keys: set[Any] = set()
        for key_node, _value in node.value:
            key = self.construct_object(key_node, deep=deep)
            if not isinstance(key, Hashable):  # "? [a, b]": PyYAML would raise TypeError
                raise yaml.constructor.ConstructorError(
                    None, None, "found unhashable key", key_node.start_mark
                )
            if key in keys:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key '{key}'", key_node.start_mark
                )
            keys.add(key)
        return super().construct_mapping(node, deep)
