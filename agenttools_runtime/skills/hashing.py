"""Hashing skill files and comparing installed skill directories against a baseline.

A skill's file hashes map ``/``-separated relative paths to SHA-256 hex digests, sorted by path
(``SkillSource.manifest`` and a registry entry's baseline hold such maps; the wheel's
``manifest.json`` is :mod:`agenttools_runtime.wheel.manifest`). A
file's hash is over its bytes with ``\\r\\n`` turned into ``\\n`` when the file has no NUL
byte, so a CRLF checkout of the same skill hashes the same. Junk is never copied, hashed or
counted; version-control metadata is never copied or hashed, and its presence in an installed
directory makes it "Modified".
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from enum import Enum
from hashlib import sha256
from pathlib import Path

from agenttools_runtime import errors, regular_files
from agenttools_runtime.skills.walk import walk

FileHashes = dict[str, str]  # "/"-separated relative path -> SHA-256 hex digest


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


def hash_bytes(data: bytes) -> str:
    # (searches before a copy: copying a large file without a CR costs more than looking; a
    # single byte first, memchr's speed: "\r\n" scanned 16 KB of text in 13 µs, "\r" in 0.4)
    if b"\r" in data and b"\0" not in data and b"\r\n" in data:
        data = data.replace(b"\r\n", b"\n")
    return sha256(data).hexdigest()


def hash_text(text: str) -> str:
    return hash_bytes(text.encode("utf-8"))


def hash_file(path: str | os.PathLike[str]) -> str:
    """Hash one file. ``OSError`` propagates (callers decide what unreadable means)."""
    return hash_bytes(regular_files.read_bytes(path))


def iter_source_files(directory: Path) -> Iterator[tuple[str, Path]]:
    """Yield ``(relative path, absolute path)`` for every file of a skill source directory,
    sorted, skipping junk, version-control metadata (also reached through a link) and
    anything that is not a regular file (pipes, sockets, devices).

    Symbolic links are followed when they stay inside *directory*; a link that leads outside
    raises ``AgentSkillUnsafeLink`` (a skill must be self-contained, and copying would
    otherwise follow it anywhere on disk), one back up into a directory that contains it
    ``InvalidAgentSkill``, one that leads nowhere (or a directory that cannot be listed)
    ``AgentSkillUnreadable``.
    """
    files = []
    for entry in walk(directory):
        path = Path(entry.path)
        if entry.kind == "file":
            files.append((entry.rel, path))
        elif entry.kind == "outside":
            raise errors.AgentSkillUnsafeLink(path=path, target=entry.link)
        elif entry.kind in ("dangling", "unreadable"):
            raise errors.AgentSkillUnreadable(path=path)
        elif entry.kind == "loop":  # a link back up the tree would be walked forever
            raise errors.InvalidAgentSkill(
                reason=f"the symbolic link {path} leads back to {entry.link}, which contains it",
                path=str(path),
            )
    # sorted by relative path ("a-b/x" before "a/x"), not by walk order
    yield from sorted(files)


def installed_hashes(directory: Path) -> tuple[FileHashes, bool]:
    """Hash an installed skill directory: ``(manifest, clean)``.

    ``clean`` is False when the directory holds version-control metadata, an unreadable
    file or directory, something that is neither file nor directory, or a link leading
    outside it, nowhere, into version-control metadata or round in a loop — anything that
    makes it "Modified" whatever the hashes say.
    """
    manifest: FileHashes = {}
    clean = True
    for entry in walk(directory):
        if entry.kind == "file":
            try:
                manifest[entry.rel] = hash_file(entry.path)
            except OSError:
                clean = False
        elif entry.kind not in ("directory", "junk"):  # never opened: not ours
            clean = False
    return dict(sorted(manifest.items())), clean


def directory_state(directory: Path, baseline: Mapping[str, str]) -> DirectoryState:
    """Missing / Unmodified / Modified, comparing *directory* against *baseline*."""
    if not os.path.lexists(directory):
        return DirectoryState.MISSING
    if not directory.is_dir():
        return DirectoryState.MODIFIED
    manifest, clean = installed_hashes(directory)
    if clean and manifest == dict(baseline):
        return DirectoryState.UNMODIFIED
    return DirectoryState.MODIFIED


def destination_state(root: Path, name: str) -> DestinationState:
    """Classify ``root/name``: Missing, Dangling (a broken link), File, Link (a directory
    reached through a link of its own), or Directory."""
    path = root / name
    if not os.path.lexists(path):
        return DestinationState.MISSING
    if not path.exists():
        return DestinationState.DANGLING
    if not path.is_dir():
        return DestinationState.FILE
    # a directory reached through a link of its own (its name is one path component, so a
    # link anywhere else would be the root's, which every entry of the root shares)
    if path.is_symlink():
        return DestinationState.LINK
    return DestinationState.DIRECTORY
