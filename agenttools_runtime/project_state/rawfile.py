"""``agenttools.toml`` as TOML: its data (a file that is not TOML is one ``FILE:LINE``
problem) and the digest of that data — what the lock's ``input`` is, so that a comment or
the order of keys does not make a lock stale, and a command that only asks "is the lock
current?" needs no validation of the file (a file of the same data was valid when locked)."""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from agenttools_runtime import regular_files
from agenttools_runtime.errors import ProjectFileInvalid

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def read(path: Path) -> tuple[str, dict[str, Any]]:
    """The text of *path* and its data. Raises ``ProjectFileInvalid``, ``OSError``."""
    text = regular_files.read_bytes(path).decode("utf-8", errors="replace")
    return text, loads(text, path)


def loads(text: str, path: Path) -> dict[str, Any]:
    """The data of *text* (the file *path*). Raises ``ProjectFileInvalid``."""
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None) or _line_in(str(exc)) or 1
        message = getattr(exc, "msg", None) or str(exc)
        raise ProjectFileInvalid(report=f"{path}:{line}: not valid TOML: {message}") from None
    return data


def fingerprint(data: dict[str, Any]) -> str:
    """``sha256:…`` of the file's data, keys sorted."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _line_in(message: str) -> int | None:
    found = re.search(r"line (\d+)", message)
    return int(found.group(1)) if found else None
