"""Reading the checked file's values defensively: a value of any TOML type where another was
expected is reported once, by the key checks, and everything else reads it as nothing. (A path
the file names is looked up with ``os.path.isfile``/``isdir``: False, never an error, for a
name too long or a NUL, where ``Path.is_file`` raises.)"""

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


def is_inside(path: Path, root: Path) -> bool:
    """Whether *path* is *root* or below it, lexically (the caller resolves links)."""
    return Path(os.path.abspath(path)).is_relative_to(os.path.abspath(root))
