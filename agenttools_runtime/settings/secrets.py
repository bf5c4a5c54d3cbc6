"""Secrets kept out of what agenttools records and prints.

A record keeps, for a secret setting, only a salted SHA-256 digest of its value
(``sha256:<salt>:<hex>``): enough to tell the value in the config file changed, not enough
to read it back. The entry a record keeps as written holds the digest in the secret's place
(:func:`redact`); comparing config data (``mcp.formats.same_data``) takes a digest as equal to
the value it was made from (:func:`matches`), so an entry that still holds its secret is no
drift. Output replaces a secret's value with ``*****`` (:func:`mask`).
"""

from __future__ import annotations

import hashlib
import secrets as _random
from collections.abc import Iterable, Mapping
from typing import Any

MARK = "*****"
PREFIX = "agenttools-secret:sha256:"


def digest(value: str, salt: str | None = None) -> str:
    """``agenttools-secret:sha256:<salt>:<hex>`` of *value* (a new random salt when none)."""
    salt = _random.token_hex(8) if salt is None else salt
    hexdigest = hashlib.sha256((salt + "\0" + value).encode("utf-8")).hexdigest()
    return f"{PREFIX}{salt}:{hexdigest}"


def is_digest(value: object) -> bool:
    return isinstance(value, str) and value.startswith(PREFIX) and value.count(":") == 3


def matches(recorded: str, value: str) -> bool:
    """Whether *recorded* (a :func:`digest`) was made from *value*."""
    if not is_digest(recorded):
        return False
    salt = recorded[len(PREFIX) :].partition(":")[0]
    return _random.compare_digest(digest(value, salt), recorded)


def kept_digest(value: str, previous: object) -> str:
    """The digest to record for *value*: *previous* when it was made from the same value (a
    redeploy with the same secret records the same), else a new one."""
    if isinstance(previous, str) and matches(previous, value):
        return previous
    return digest(value)


def redact(data: Any, digests: Mapping[str, str]) -> Any:
    """*data* (plain config data) with every string that is a secret's value (a key of
    *digests*) replaced by its digest."""
    if isinstance(data, Mapping):
        return {k: redact(v, digests) for k, v in data.items()}
    if isinstance(data, list):
        return [redact(v, digests) for v in data]
    if isinstance(data, str) and data in digests:
        return digests[data]
    return data


def mask(data: Any, values: Iterable[str]) -> Any:
    """*data* (JSON data or text) with every secret value in *values* replaced by
    ``*****``, wherever it occurs in a string."""
    found = sorted({v for v in values if v}, key=len, reverse=True)
    if not found:
        return data

    def scrub(item: Any) -> Any:
        if isinstance(item, Mapping):
            return {k: scrub(v) for k, v in item.items()}
        if isinstance(item, (list, tuple)):
            return [scrub(v) for v in item]
        if isinstance(item, str):
            for value in found:
                item = item.replace(value, MARK)
        return item

    return scrub(data)
