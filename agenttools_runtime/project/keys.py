"""Keys and value types against the schema (``schema.py``): an unknown key with a
did-you-mean, a value of the wrong TOML type, a value outside its choices, nested tables."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Any

from agenttools_runtime import schema
from agenttools_runtime.project.context import Checker
from agenttools_runtime.toml_text import KeyPath


def check_keys(
    checker: Checker, table: schema.Table, value: Mapping[str, Any], key: KeyPath
) -> None:
    """Every key of *value* (the table at *key*) against *table*, recursively."""
    for name, item in value.items():
        spec = table.key(name)
        if spec is None:
            if table is schema.SKILL and name in schema.CLIENT_EXTENSION_KEYS:
                checker.add(
                    (*key, name),
                    "ClientExtensionKey",
                    f"'{name}' is a {schema.CLIENT_EXTENSION_KEYS[name]} extension, not part of "
                    "the Agent Skills spec; other clients ignore it and skills-ref rejects it",
                    "warning",
                )
                continue
            hint = _did_you_mean(name, table.names)
            checker.add((*key, name), "UnknownKey", f'unknown key "{name}"{hint}')
            continue
        problem = schema.type_problem(spec, item)
        if problem:
            checker.add((*key, name), "InvalidType", problem)
        elif spec.choices and item not in spec.choices:
            choices = ", ".join(f'"{c}"' for c in spec.choices)
            checker.add((*key, name), "InvalidValue", f'"{item}" is not one of {choices}')
        elif spec.kind == "table" and spec.item is not None:
            check_keys(checker, spec.item, item, (*key, name))
            for required in spec.item.required:
                if required not in item:
                    checker.add((*key, name), "MissingKey", f'needs "{required}"')
        elif spec.kind in ("setting-map", "table-map", "table-list") and spec.item is not None:
            subs = enumerate(item) if spec.kind == "table-list" else item.items()
            for sub, subvalue in subs:
                if isinstance(subvalue, dict):
                    check_keys(checker, spec.item, subvalue, (*key, name, sub))
                elif spec.kind != "setting-map":  # (a string in a setting map is a value)
                    checker.add((*key, name, sub), "InvalidType", "must be a table")


def _did_you_mean(name: str, candidates: Sequence[str]) -> str:
    close = difflib.get_close_matches(name, candidates, n=1, cutoff=0.8)
    if not close:
        # a prefix or a different separator is a typo too ("body_file", "mcp_servers")
        close = [c for c in candidates if c.replace("-", "_") == name.replace("-", "_")]
    if close:
        return f'; did you mean "{close[0]}"?'
    return (
        f" (known keys: {', '.join(candidates)})" if candidates else " (this table takes no keys)"
    )
