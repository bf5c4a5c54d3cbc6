"""What is at a skill's destination and how an installed skill directory compares with its
baseline: the states :mod:`~agenttools_runtime.skills.hashing` returns (and re-exports)."""

from __future__ import annotations

from enum import Enum


class DirectoryState(str, Enum):
    """An installed skill directory compared with its baseline manifest."""

    MISSING = "Missing"
    UNMODIFIED = "Unmodified"
    MODIFIED = "Modified"


class DestinationState(str, Enum):
    """What is at ``root/name`` before a write."""

    MISSING = "Missing"
    DANGLING = "Dangling"
    FILE = "File"
    LINK = "Link"
    DIRECTORY = "Directory"
