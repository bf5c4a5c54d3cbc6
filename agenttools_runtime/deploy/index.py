"""The state index: lookups over the skill registry and the records that cost O(1) per skill.

``<state>/deployments/.index.json`` holds, for every registry entry, the keys it is looked up
by (its skill directory as installed, canonical and physical), and for every record what
conflict detection and removal need (toolset, client, location key, config entries, registry
keys). So a deploy reads the entries and records it touches, never all of them.

It is derived data, never the only copy of anything: on load it is checked against the names
in the registry and deployments directories (one listing each, no file read), and rebuilt
from the entries and records when it is missing, unreadable, or names something that is not
there or misses something that is (state written by an older agenttools, or by hand). A
lookup answers *candidates*; callers confirm a hit by reading the entry or record itself, so
a stale index can cost a miss, never a wrong answer. It is rewritten (one fsynced file) by
each operation that changes the state, as that operation's last write.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttools_runtime import fs, paths
from agenttools_runtime.paths import StatePaths

INDEX_SCHEMA = 1
ENTRY_SUFFIX = ".json"


@dataclass(frozen=True)
class SkillKeys:
    """How one registry entry is found: ``lexical`` (its directory as installed, absolute,
    case-folded where the platform is), ``canonical`` (links resolved, when indexed) and
    ``physical`` (``os.path.realpath``, when indexed)."""

    lexical: str
    canonical: str
    physical: str

    @classmethod
    def of(cls, directory: str | Path) -> SkillKeys:
        return cls(
            lexical_key(directory), paths.canonical_path_key(directory), physical_key(directory)
        )


@dataclass(frozen=True)
class RecordSummary:
    """What the index keeps of one record."""

    toolset_type: str
    toolset_name: str
    client: str
    location_key: str
    config_entries: tuple[tuple[str, str], ...]  # (config key, canonical config file key)
    registry_keys: tuple[str, ...]

    def to_json(self) -> list[Any]:
        return [
            self.toolset_type,
            self.toolset_name,
            self.client,
            self.location_key,
            [list(pair) for pair in self.config_entries],
            list(self.registry_keys),
        ]

    @classmethod
    def from_json(cls, data: list[Any]) -> RecordSummary:
        kind, name, client, location, entries, keys = data
        return cls(
            str(kind),
            str(name),
            str(client),
            str(location),
            tuple((str(k), str(f)) for k, f in entries),
            tuple(str(k) for k in keys),
        )


@dataclass
class StateIndex:
    """The index in memory: ``skills`` (registry key → :class:`SkillKeys`), ``records``
    (UUID → :class:`RecordSummary`), and the directory listings it was validated against
    (``entry_names``: registry file names, ``record_names``: non-dot names in the
    deployments directory, whether they hold a readable record or not). ``needs_sweep``
    says stale references may exist (the stored index could not be used: the state changed
    behind agenttools' back, or a sweep was cut short); ``pending`` are entries a release
    kept without references, to release again later."""

    skills: dict[str, SkillKeys] = field(default_factory=dict)
    records: dict[str, RecordSummary] = field(default_factory=dict)
    entry_names: set[str] = field(default_factory=set)
    record_names: set[str] = field(default_factory=set)
    needs_sweep: bool = False
    pending: set[str] = field(default_factory=set)
    dirty: bool = False
    _by_lexical: dict[str, set[str]] = field(default_factory=dict, repr=False)
    _by_canonical: dict[str, set[str]] = field(default_factory=dict, repr=False)
    _by_physical: dict[str, set[str]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for key, keys in self.skills.items():
            self._link(key, keys)

    # -- lookups -------------------------------------------------------------------------

    def skills_by_directory(self, keys: SkillKeys) -> list[str]:
        """Registry keys whose directory is the one with these *keys* as given or once links
        are resolved (candidates: confirm by reading the entry)."""
        found = self._by_lexical.get(keys.lexical, set()) | self._by_canonical.get(
            keys.canonical, set()
        )
        return sorted(found)

    def skills_by_physical(self, directory: str | Path) -> list[str]:
        """Registry keys whose directory was, when indexed, the physical *directory*."""
        return sorted(self._by_physical.get(physical_key(directory), set()))

    def records_for_probe(
        self, identity: tuple[str, str, str, str], config_entries: Iterable[tuple[str, str]]
    ) -> list[str]:
        """UUIDs of records with this toolset identity (type, name, client, location key) or
        one of these config entries (candidates for the spec's conflict rules)."""
        wanted = set(config_entries)
        return sorted(
            uid
            for uid, summary in self.records.items()
            if (summary.toolset_type, summary.toolset_name, summary.client, summary.location_key)
            == identity
            or wanted.intersection(summary.config_entries)
        )

    def records_with_config_entry(self, entry: tuple[str, str]) -> list[str]:
        return sorted(uid for uid, s in self.records.items() if entry in s.config_entries)

    # -- changes -------------------------------------------------------------------------

    def put_skill(self, key: str, keys: SkillKeys) -> None:
        self._unlink(key)
        self.skills[key] = keys
        self._link(key, keys)
        self.entry_names.add(key + ENTRY_SUFFIX)
        self.dirty = True

    def drop_skill(self, key: str) -> None:
        self._unlink(key)
        self.skills.pop(key, None)
        self.entry_names.discard(key + ENTRY_SUFFIX)
        self.dirty = True

    def put_record(self, uid: str, summary: RecordSummary) -> None:
        self.records[uid] = summary
        self.record_names.add(uid)
        self.dirty = True

    def drop_record(self, uid: str) -> None:
        self.records.pop(uid, None)
        self.record_names.discard(uid)
        self.dirty = True

    def _link(self, key: str, keys: SkillKeys) -> None:
        self._by_lexical.setdefault(keys.lexical, set()).add(key)
        self._by_canonical.setdefault(keys.canonical, set()).add(key)
        self._by_physical.setdefault(keys.physical, set()).add(key)

    def _unlink(self, key: str) -> None:
        old = self.skills.get(key)
        if old is None:
            return
        for table, value in (
            (self._by_lexical, old.lexical),
            (self._by_canonical, old.canonical),
            (self._by_physical, old.physical),
        ):
            keys = table.get(value)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del table[value]

    # -- storage -------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": INDEX_SCHEMA,
            "skills": {k: [v.lexical, v.canonical, v.physical] for k, v in self.skills.items()},
            "records": {k: v.to_json() for k, v in self.records.items()},
            "entry_names": sorted(self.entry_names),
            "record_names": sorted(self.record_names),
            "needs_sweep": self.needs_sweep,
            "pending": sorted(self.pending),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> StateIndex:
        if data.get("schema") != INDEX_SCHEMA:
            raise ValueError(f"unknown index schema {data.get('schema')!r}")
        return cls(
            skills={str(k): SkillKeys(*map(str, v)) for k, v in data["skills"].items()},
            records={str(k): RecordSummary.from_json(v) for k, v in data["records"].items()},
            entry_names={str(n) for n in data["entry_names"]},
            record_names={str(n) for n in data["record_names"]},
            needs_sweep=bool(data.get("needs_sweep", False)),
            pending={str(k) for k in data.get("pending", ())},
        )


def load(state: StatePaths) -> StateIndex:
    """The index of *state*, validated against the directory listings; rebuilt (and marked
    ``needs_sweep`` and ``dirty``) when it cannot be trusted."""
    entry_names, record_names = listings(state)
    try:
        index = StateIndex.from_json(json.loads(state.index.read_bytes()))
    except (OSError, ValueError, KeyError, TypeError):
        index = None
    if (
        index is not None
        and index.entry_names == entry_names
        and index.record_names == record_names
    ):
        return index
    fresh = rebuild(state, entry_names, record_names)
    # a fresh state needs no sweep, nor an index file; state written around the index (or
    # by an older agenttools, which keeps none) may hold references to records that are gone
    fresh.needs_sweep = bool(entry_names)
    fresh.dirty = index is not None or bool(entry_names) or bool(record_names)
    return fresh


def save(state: StatePaths, index: StateIndex) -> None:
    """Write the index (atomically, fsynced) and mark it clean."""
    data = json.dumps(index.to_json(), separators=(",", ":"), sort_keys=True).encode("utf-8")
    fs.mkdir(state.deployments)
    fs.write_bytes_atomic(state.index, data)
    index.dirty = False


def invalidate(state: StatePaths) -> None:
    """Forget the stored index (the next load rebuilds it): for changes made around it."""
    fs.unlink(state.index, missing_ok=True)


def listings(state: StatePaths) -> tuple[set[str], set[str]]:
    """(registry entry file names, non-dot names in the deployments directory)."""
    return _names(state.registry, ENTRY_SUFFIX), _names(state.deployments, "")


def rebuild(
    state: StatePaths, entry_names: set[str] | None = None, record_names: set[str] | None = None
) -> StateIndex:
    """An index made by reading every entry and record (unreadable ones are left out, and
    their names kept so the listing still matches)."""
    from agenttools_runtime.deploy import records, registry

    if entry_names is None or record_names is None:
        entry_names, record_names = listings(state)
    index = StateIndex(entry_names=set(entry_names), record_names=set(record_names), dirty=True)
    for name in sorted(entry_names):
        entry = registry.load_entry(name[: -len(ENTRY_SUFFIX)], state)
        if entry is not None:
            keys = SkillKeys.of(entry.directory)
            index.skills[entry.key] = keys
            index._link(entry.key, keys)
    for record in records.load_records(state.deployments):
        index.records[record.uuid] = summarize(record)
    return index


def summarize(record: Any) -> RecordSummary:
    """The index's view of a :class:`~agenttools_runtime.deploy.records.DeploymentRecord`."""
    return RecordSummary(
        record.toolset_type,
        record.toolset_name,
        record.client,
        record.location_key,
        tuple((s.config_key, paths.canonical_path_key(s.config_file)) for s in record.mcp_servers),
        tuple(s.registry_key for s in record.installed),
    )


def lexical_key(directory: str | Path) -> str:
    """A directory as given, absolute, ``/``-separated, case-folded where the platform's file
    systems are case-insensitive (no link resolved)."""
    text = Path(os.path.abspath(os.path.expanduser(os.fspath(directory)))).as_posix()
    return text.casefold() if paths.case_insensitive_fs() else text


def physical_key(directory: str | Path) -> str:
    return os.path.realpath(directory)


def _names(directory: Path, suffix: str) -> set[str]:
    try:
        names = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return set()
    return {n for n in names if not n.startswith(".") and n.endswith(suffix)}
