"""The skill registry: reference counts for skill directories that deployments installed.

One JSON file per installed skill directory, ``<state>/deployments/.skill-registry/<key>.json``,
keyed by :func:`agenttools_runtime.paths.registry_key` (SHA-256 of the canonical skills root
plus the skill name). An entry holds the baseline hashes (what agenttools last wrote), whether
the directory is *external* (it existed before any deployment referenced it; never deleted),
and the UUIDs of the deployments that reference it.

A reference is stale when its deployment record is gone (see
:func:`agenttools_runtime.deploy.records.is_stale`). Stale references are pruned only under
the deployment lock (:mod:`agenttools_runtime.deploy.removal`: the sweep and the release
decision; the install decision ignores them). This module is the entry data and its files;
lookups go through :class:`agenttools_runtime.deploy.store.Store` and its index.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agenttools_runtime import fs, jsonform, paths, regular_files
from agenttools_runtime.deploy import records, shapes
from agenttools_runtime.paths import StatePaths
from agenttools_runtime.skills import fsops
from agenttools_runtime.skills.walk import walk

ENTRY_SCHEMA = 1
ENTRY_SUFFIX = ".json"
STATS = "stats"
# the backup of what a forced deploy replaced that was not agenttools' (the user's folder,
# file or link): kept beside the skills root under this name, put back by the last release
REPLACED = "replaced"


def replaced_backup_name(key: str) -> str:
    """The backup name of what a forced deploy replaced at entry *key*'s directory."""
    return f"{fsops.KEPT_BACKUP_PREFIX}{key[:32]}"


def replaced_backup(entry: RegistryEntry) -> str | None:
    """The backup *entry* keeps of what it replaced (None: nothing of the user's)."""
    name = entry.extra.get(REPLACED)
    return name if name == replaced_backup_name(entry.key) else None


def _are_names(values: tuple[str, ...]) -> bool:
    return all(map(shapes.is_name, values))


@dataclass(frozen=True, slots=True)
class RegistryEntry(jsonform.Form):
    """One installed skill directory. ``directory`` is the path as installed (not
    case-folded); ``hashes`` the baseline manifest; ``stats`` the stat cache (see
    :func:`file_stats`; empty: none); ``extra`` unknown fields, kept."""

    WHAT = "the registry entry"
    key: str = field(
        metadata=jsonform.key("registry_key", check=shapes.is_name, means="a registry key")
    )
    directory: str
    name: str
    identifier: str | None = None
    version: str | None = None
    hashes: Mapping[str, str] = field(default_factory=dict)
    external: bool = False
    references: tuple[str, ...] = field(
        default=(), metadata=jsonform.key(check=_are_names, means="deployment ids")
    )
    timestamp: str = ""
    stats: Mapping[str, list[int]] = field(
        default_factory=dict, compare=False, metadata=jsonform.NOT_JSON
    )
    extra: Mapping[str, Any] = field(default_factory=dict, metadata=jsonform.EXTRA)

    @property
    def path(self) -> Path:
        return Path(self.directory)

    @property
    def root(self) -> Path:
        return Path(self.directory).parent

    def with_reference(self, uid: str) -> RegistryEntry:
        refs = self.references if uid in self.references else (*self.references, uid)
        return self.with_references(refs)

    def with_references(self, references: tuple[str, ...]) -> RegistryEntry:
        """This entry referenced by *references* instead, timestamped now."""
        return replace(self, references=references, timestamp=records.now_timestamp())

    def to_json(self) -> dict[str, Any]:
        data = {**jsonform.Form.to_json(self), "schema": ENTRY_SCHEMA}
        if self.stats:
            data[STATS] = {k: list(v) for k, v in self.stats.items()}
        return data

    @classmethod
    def from_json(cls, data: object, what: str | None = None) -> RegistryEntry:
        """Parse an entry; ``ValueError`` (:class:`~.shapes.Malformed`) when it is not of
        the shape its schema says. A stat cache of the wrong shape is dropped (a cache)."""
        schema = data.get("schema") if type(data) is dict else None
        if schema != ENTRY_SCHEMA or type(schema) is not int:  # (True == 1: not a schema)
            raise shapes.Malformed(f"unknown registry entry schema {schema!r}")
        stats = data.get(STATS) if type(data) is dict else None
        known = frozenset({"schema", STATS})
        return jsonform.load(
            cls, data, what or cls.WHAT, known, stats=stats if _is_stats(stats) else {}
        )


def entry_path(key: str, state: StatePaths | None = None) -> Path:
    return (state or paths.state_paths()).registry / f"{key}{ENTRY_SUFFIX}"


def decode(data: bytes) -> RegistryEntry:
    """Parse an entry file's bytes; ``ValueError``/``KeyError``/``TypeError`` when malformed."""
    return RegistryEntry.from_json(json.loads(data))


def load_entry(key: str, state: StatePaths | None = None) -> RegistryEntry | None:
    """The entry for *key*; None when there is none or it cannot be read (an unreadable
    entry is skipped, never overwritten by the sweep) — also when it says it is another
    key's (copied or edited by hand: it is not this key's record)."""
    try:
        entry = decode(regular_files.read_bytes(entry_path(key, state)))
    except (OSError, ValueError, KeyError, TypeError, RecursionError):  # (or nested too deep)
        return None
    return entry if entry.key == key else None


def entry_keys(state: StatePaths | None = None) -> list[str]:
    """The keys of the entry files, in the order of their names (none without a registry)."""
    try:
        names = sorted(os.listdir((state or paths.state_paths()).registry))
    except FileNotFoundError:
        return []
    return [
        n.removesuffix(ENTRY_SUFFIX)
        for n in names
        if n.endswith(ENTRY_SUFFIX) and not n.startswith(".")
    ]


def write_entry(
    entry: RegistryEntry, state: StatePaths, *, durable: bool = False, new: bool = False
) -> None:
    """Write an entry file (the caller keeps the index in step: see ``Store``). With *new*
    (an entry that an intent journal records as not existing, whose undo deletes it torn or
    whole), the file is created in place, ``O_EXCL``: one directory operation instead of a
    temp file and a rename, which in a registry of 1,000 entries was the largest cost a
    deploy added; one found there after all is replaced atomically as any other."""
    path = entry_path(entry.key, state)
    fs.mkdir(path.parent)
    # compact, as the index and the journal: json's C encoder (an indent takes the pure
    # Python one, a tenth of the writes' time in a fresh deploy of 50 skills)
    text = json.dumps(entry.to_json(), sort_keys=True, separators=(",", ":"))
    data = (text + "\n").encode("utf-8")
    if new and not durable:
        try:
            fs.create_bytes(path, data)
            return
        except FileExistsError:
            pass
    fs.write_bytes_atomic(path, data, durable=durable)


def remove_entry(key: str, state: StatePaths) -> None:
    fs.unlink(entry_path(key, state), missing_ok=True)


# -- the stat cache --------------------------------------------------------------------------
#
# An entry may carry, under "stats", the size, modification time and inode of every file of
# its directory as they were when its content was known to equal its baseline hashes (right
# after agenttools wrote it, or hashed it). While they are all the same, the directory is
# taken to be unmodified without reading a byte (git's index makes the same bet). Only a
# decision that writes nothing may rest on it: anything that replaces or deletes a
# directory hashes it first.


def _is_stats(value: object) -> bool:
    return type(value) is dict and all(
        type(v) is list and len(v) == 3 and all(type(n) is int for n in v) for v in value.values()
    )


def file_stats(directory: Path) -> dict[str, list[int]] | None:
    """``{relative path: [size, mtime_ns, inode]}`` of every file under *directory* (junk
    skipped); None when anything makes a byte-for-byte look necessary (a link, version-control
    metadata, something that is neither file nor directory, an unreadable directory)."""
    found: dict[str, list[int]] = {}
    for item in walk(directory):
        if item.link is not None or item.kind not in ("file", "directory", "junk"):
            return None
        if item.kind == "file":
            st = item.lstat()
            found[item.rel] = [st.st_size, st.st_mtime_ns, st.st_ino]
    return found


def unmodified_by_stats(entry: RegistryEntry, directory: Path) -> bool:
    """Whether *entry*'s cached stats say its directory still holds its baseline."""
    return bool(entry.stats) and dict(entry.stats) == file_stats(directory)


def with_stats(entry: RegistryEntry, stats: dict[str, list[int]] | None) -> RegistryEntry:
    """*entry* caching *stats* (None: dropping any cache)."""
    return replace(entry, stats=stats or {})
