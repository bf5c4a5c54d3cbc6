"""Reading the checked file's values defensively: a value of any TOML type where another was
expected is reported once, by the key checks, and everything else reads it as nothing."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def dig(data: Any, *keys: str) -> Any:
    """``data[k1][k2]…``, or None where a table is missing or is not a table."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def items(value: Any) -> list[Any]:
    """The items of a TOML array; nothing for a value of another type (reported on its own
    where the schema defines the key)."""
    return value if isinstance(value, list) else []


def table(value: Any) -> dict[str, Any]:
    """A TOML table; empty for a value of another type (reported on its own)."""
    return value if isinstance(value, dict) else {}


def strings(value: Any) -> list[str]:
    """The string items of a TOML array (a bundle's ``skills``, ``mcp-servers``)."""
    return [item for item in items(value) if isinstance(item, str)]


def is_file(path: Path) -> bool:
    """``Path.is_file``, and False for a path the system cannot look up at all (a name too
    long, a NUL: values of the file being checked)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def is_dir(path: Path) -> bool:
    """``Path.is_dir``, and False for a path the system cannot look up at all."""
    try:
        return path.is_dir()
    except (OSError, ValueError):
        return False


def is_inside(path: Path, root: Path) -> bool:
    """Whether *path* is *root* or below it, lexically (the caller resolves links)."""
    return Path(os.path.abspath(path)).is_relative_to(os.path.abspath(root))
