"""The shape of the JSON in state files, checked before anything is trusted.

Every reader of a state file (journal, index and its log, record, registry entry, ledger)
takes its values through :mod:`agenttools_runtime.jsonform` (the objects that are
dataclasses) or these functions (the parts of irregular shape), which return the value when
it has the JSON type the file's schema says and raise :class:`Malformed` (a ``ValueError``)
naming the field when it has not: a file of the wrong shape is then *unreadable* — reported
by ``doctor``, never acted on — instead of a ``TypeError`` deep inside a command. Types are
exact: ``true`` is not a number, ``1`` is not a string.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agenttools_runtime.jsonform import Malformed as Malformed


def obj(value: object, what: str) -> dict[str, Any]:
    """*value* as a JSON object."""
    if type(value) is not dict:
        raise Malformed(f"{what} is not an object")
    return value


def items(data: Mapping[str, Any], key: str, what: str) -> list[Any]:
    """The array field *key* (empty when absent; null is not an array: a record's null list
    of entries read as none would leave them untracked)."""
    if key not in data:
        return []
    value = data[key]
    if type(value) is not list:
        raise Malformed(f"{what}.{key} is not an array")
    return value


def table(data: Mapping[str, Any], key: str, what: str) -> dict[str, Any]:
    """The object field *key* (empty when absent; null is not an object)."""
    if key not in data:
        return {}
    return obj(data[key], f"{what}.{key}")


def is_name(value: object) -> bool:
    """Whether *value* is a plain file name that is not hidden: what a record directory, a
    registry entry or a journal side file is called (never a path that leads elsewhere)."""
    return (
        type(value) is str
        and value not in ("", "..")
        and not value.startswith(".")
        and not any(c in value for c in "/\\\0")
    )
