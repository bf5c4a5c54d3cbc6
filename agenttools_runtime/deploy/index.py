"""The state index: lookups over the skill registry and the records that cost O(1) per skill.

``<state>/deployments/.index/index.json`` holds, for every registry entry, the keys it is looked up
by (its skill directory as installed, canonical and physical), and for every record what
conflict detection and removal need (toolset, client, location key, config entries). So a
deploy reads the entries and records it touches, never all of them.

It is derived data, never the only copy of anything. It carries a stamp of what it was written
against (the link count and modification time of the deployments directory, which change
with every record added, removed or renamed, and the registry directory's modification time;
the index lives in a directory of its own so that writing it changes neither); when the
stamp differs, it is checked against the names in both directories (one listing each, no
file read), and rebuilt from the entries and records when it is missing, unreadable, or
names something that is not there or misses something that is (state written by an older
agenttools, or by hand). A lookup answers *candidates*; callers confirm a hit by reading the
entry or record itself, so a stale index can cost a miss, never a wrong answer. Each
operation that changes the state saves it as its last write: by appending what it changed,
one line, to ``index.log`` beside it, or, once that log has grown to a quarter of the index
(or the index was rebuilt, or the log ends in a torn line), by writing the whole index anew
(a new *generation*) and deleting the log. Loading reads the index, then replays the log's
lines of its generation, stopping at a torn one. Appending keeps a deploy's cost flat as
deployments accumulate: rewriting 1,000 deployments' index was most of what they added to
each deploy.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from agenttools_runtime import fs, jsonform, paths, regular_files
from agenttools_runtime.deploy import records, registry, shapes
from agenttools_runtime.deploy.registry import ENTRY_SUFFIX
from agenttools_runtime.paths import StatePaths

if TYPE_CHECKING:
    from agenttools_runtime.deploy.records import DeploymentRecord

INDEX_SCHEMA = 2
# The log is folded into a new index once it is this share of the index's size (or this many
# bytes, for a small index): replaying it costs a load a fraction of parsing the index again.
LOG_SHARE = 4
LOG_MIN_BYTES = 16_384
# the links of the deployments directory, its modification time, the registry's (see stamp)
Stamp = tuple[int, int, int]


class SkillKeys(NamedTuple):
    """How one registry entry is found: ``lexical`` (its directory as installed, absolute,
    case-folded where the platform is), ``canonical`` (links resolved, when indexed) and
    ``physical`` (``os.path.realpath``, when indexed). Loading the index makes one per
    registry entry."""

    lexical: str
    canonical: str
    physical: str

    @classmethod
    def of(cls, directory: str | Path) -> SkillKeys:
        return cls(
            lexical_key(directory), paths.canonical_path_key(directory), physical_key(directory)
        )


@dataclass(slots=True, eq=False)
class StateIndex:
    """The index in memory: ``skills`` (registry key → :class:`SkillKeys`), ``records``
    (UUID → its :func:`summary <summarize>`), and the directory listings it was
    validated against (``entry_names``: registry file names, ``record_names``: non-dot names
    in the deployments directory, whether they hold a readable record or not).
    ``needs_sweep`` says stale references may exist (the stored index could not be used: the
    state changed behind agenttools' back, or a sweep was cut short); ``pending`` are entries
    a release kept without references, to release again later.

    Loading costs one JSON parse and little more: records stay in their JSON form, and the
    lookup tables are built on the first lookup that needs them."""

    skills: dict[str, SkillKeys] = field(default_factory=dict)
    records: dict[str, list[Any]] = field(default_factory=dict)
    entry_names: set[str] = field(default_factory=set)
    record_names: set[str] = field(default_factory=set)
    needs_sweep: bool = False
    pending: set[str] = field(default_factory=set)
    stamp: Stamp | None = None
    dirty: bool = False
    # the stored index this one was read from (None: made in memory), and what changed
    # since it was read or saved, as log operations (None: only a whole write will do)
    generation: str | None = None
    ops: list[list[Any]] | None = field(default=None, init=False)
    _table: dict[str, set[str]] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self.ops = [] if self.generation is not None else None

    # -- lookups -------------------------------------------------------------------------

    def skills_by_directory(self, keys: SkillKeys) -> list[str]:
        """Registry keys whose directory is the one with these *keys* as given or once links
        are resolved (candidates: confirm by reading the entry)."""
        table = self._lookup_table()
        return sorted(table.get(keys.lexical, set()) | table.get(keys.canonical, set()))

    def skills_by_physical(self, directory: str | Path) -> list[str]:
        """Registry keys whose directory was, when indexed, the physical *directory*
        (candidates: confirm by reading the entry)."""
        return sorted(self._lookup_table().get(physical_key(directory), set()))

    def records_for_probe(
        self, identity: tuple[str, str, str, str], config_entries: Iterable[tuple[str, str]]
    ) -> list[str]:
        """UUIDs of records with this toolset identity (type, name, client, location key) or
        one of these config entries (candidates for the spec's conflict rules)."""
        wanted_identity = list(identity)
        wanted = [list(pair) for pair in config_entries]
        return sorted(
            uid
            for uid, raw in self.records.items()
            if raw[:4] == wanted_identity or any(pair in raw[4] for pair in wanted)
        )

    def records_with_config_entry(self, entry: tuple[str, str]) -> list[str]:
        pair = list(entry)
        return sorted(uid for uid, raw in self.records.items() if pair in raw[4])

    # -- changes -------------------------------------------------------------------------

    def put_skill(self, key: str, keys: SkillKeys) -> None:
        self._unlink(key)
        self.skills[key] = keys
        if self._table is not None:
            self._link(self._table, key, keys)
        self.entry_names.add(key + ENTRY_SUFFIX)
        self._changed(["+s", key, _keys_json(keys)])

    def drop_skill(self, key: str) -> None:
        self._unlink(key)
        self.skills.pop(key, None)
        self.entry_names.discard(key + ENTRY_SUFFIX)
        self._changed(["-s", key])

    def put_record(self, uid: str, raw: list[Any]) -> None:
        self.records[uid] = raw
        self.record_names.add(uid)
        self._changed(["+r", uid, raw])

    def drop_record(self, uid: str) -> None:
        self.records.pop(uid, None)
        self.record_names.discard(uid)
        self._changed(["-r", uid])

    def _changed(self, op: list[Any]) -> None:
        self.dirty = True
        if self.ops is not None:
            self.ops.append(op)

    def replay(self, log: bytes) -> bool:
        """Apply the lines of *log* (``index.log``) written for this index's generation, in
        order; False when it ends in a torn line (a save killed half-way), where replaying
        stops. A line of another generation (written before the index was rewritten) is
        skipped; a line that is not a log line raises ``ValueError``/``KeyError``/
        ``TypeError``, as a malformed index does."""
        apply: dict[str, Callable[..., None]] = {
            "+s": self._replay_put_skill,
            "-s": self._replay_drop_skill,
            "+r": self._replay_put_record,
            "-r": self._replay_drop_record,
        }
        *lines, tail = log.split(b"\n")
        ops, self.ops = self.ops, None
        try:
            for raw in lines:
                try:
                    line = json.loads(raw)
                except ValueError:
                    return False  # torn, and more appended after it: stop here
                if type(line) is dict and line.get("generation") != self.generation:
                    continue
                logged = LogLine.from_json(line)
                for op in logged.ops:
                    apply[op[0]](*op[1:])
                self.needs_sweep, self.stamp = logged.needs_sweep, logged.stamp
                self.pending = set(logged.pending)
        finally:
            self.ops = ops
        self.dirty = False
        return not tail

    # (a line that parses may still be of the wrong shape: checked here, as lookups and
    # summaries trust what the index holds, so it raises instead of crashing a command later)
    def _replay_put_skill(self, key: str, keys: str | list[str]) -> None:
        if not (shapes.is_name(key) and _is_keys(keys)):
            raise ValueError("not a registry entry's keys")
        self.put_skill(key, _keys_from_json(keys))

    def _replay_drop_skill(self, key: str) -> None:
        if not _is_str(key):
            raise ValueError("not a registry key")
        self.drop_skill(key)

    def _replay_put_record(self, uid: str, raw: list[Any]) -> None:
        if not (shapes.is_name(uid) and _is_summary(raw)):
            raise ValueError("not a record summary")
        self.put_record(uid, raw)

    def _replay_drop_record(self, uid: str) -> None:
        if not _is_str(uid):
            raise ValueError("not a record UUID")
        self.drop_record(uid)

    def _lookup_table(self) -> dict[str, set[str]]:
        """Each key of every entry (as given, canonical, physical) → the entries that have
        it: one table, since every answer is confirmed against the entry anyway."""
        if self._table is None:
            table: dict[str, set[str]] = {}
            for key, keys in self.skills.items():
                self._link(table, key, keys)
            self._table = table
        return self._table

    @staticmethod
    def _link(table: dict[str, set[str]], key: str, keys: SkillKeys) -> None:
        for value in keys:
            table.setdefault(value, set()).add(key)

    def _unlink(self, key: str) -> None:
        old = self.skills.get(key)
        if old is None or self._table is None:
            return
        for value in old:
            found = self._table.get(value)
            if found is not None:
                found.discard(key)
                if not found:
                    del self._table[value]

    # -- storage -------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        # compact: listed names only where no item already implies them
        implied_entries = {k + ENTRY_SUFFIX for k in self.skills}
        return StoredIndex(
            schema=INDEX_SCHEMA,
            skills={k: _keys_json(v) for k, v in self.skills.items()},
            records=self.records,
            generation=self.generation,
            other_entry_names=tuple(sorted(self.entry_names - implied_entries)),
            other_record_names=tuple(sorted(self.record_names - set(self.records))),
            needs_sweep=self.needs_sweep,
            pending=tuple(sorted(self.pending)),
            stamp=self.stamp,
        ).to_json()

    @classmethod
    def from_json(cls, data: object) -> StateIndex:
        """Parse a stored index; ``ValueError`` (:class:`~.shapes.Malformed`) when it is not
        one of this schema, every value of the type it must have (lookups trust it)."""
        stored = StoredIndex.from_json(data)
        skills = {k: _keys_from_json(v) for k, v in stored.skills.items()}
        return cls(
            skills=skills,
            records=dict(stored.records),
            entry_names={k + ENTRY_SUFFIX for k in skills} | set(stored.other_entry_names),
            record_names=set(stored.records) | set(stored.other_record_names),
            needs_sweep=stored.needs_sweep,
            pending=set(stored.pending),
            stamp=stored.stamp,
            generation=stored.generation or None,
        )


def _keys_json(keys: SkillKeys) -> str | list[str]:
    # one string when the three keys agree (they do, but for links and case-insensitive
    # file systems)
    return keys.lexical if keys[0] == keys[1] == keys[2] else list(keys)


def _keys_from_json(value: str | list[str]) -> SkillKeys:
    if isinstance(value, str):
        return SkillKeys(value, value, value)
    return SkillKeys(*value)


def _is_str(value: object) -> bool:
    return type(value) is str


def _are_strs(value: object, count: int) -> bool:
    return type(value) is list and len(value) == count and all(type(v) is str for v in value)


def _is_keys(value: object) -> bool:
    """A registry entry's keys as stored: one string, or three."""
    return _is_str(value) or _are_strs(value, 3)


def _is_summary(raw: object) -> bool:
    """A record's summary as stored (see :func:`summarize`)."""
    return (
        type(raw) is list
        and len(raw) == 5
        and _are_strs(raw[:4], 4)
        and type(raw[4]) is list
        and all(_are_strs(pair, 2) for pair in raw[4])
    )


def _all(check: Callable[[object], bool]) -> Callable[[Mapping[str, Any]], bool]:
    """The check of a table whose keys are names and whose values pass *check*."""
    return lambda table: all(shapes.is_name(k) and check(v) for k, v in table.items())


@dataclass(frozen=True, slots=True)
class StoredIndex(jsonform.Form):
    """``index.json``: each registry entry's keys (by registry key: one string, or three),
    each record's summary (by UUID: see :func:`summarize`), the names listed that
    no item implies, and the state the log's lines also carry (see :class:`LogLine`)."""

    WHAT = "the index"
    schema: int = field(
        metadata=jsonform.key(check=INDEX_SCHEMA.__eq__, means=f"schema {INDEX_SCHEMA}")
    )
    skills: Mapping[str, Any] = field(
        metadata=jsonform.key(check=_all(_is_keys), means="registry entries' keys")
    )
    records: Mapping[str, Any] = field(
        metadata=jsonform.key(check=_all(_is_summary), means="record summaries")
    )
    generation: str | None = None
    other_entry_names: tuple[str, ...] = ()
    other_record_names: tuple[str, ...] = ()
    needs_sweep: bool = False
    pending: tuple[str, ...] = ()
    stamp: Stamp | None = None


_OPS = frozenset({"+s", "-s", "+r", "-r"})


@dataclass(frozen=True, slots=True)
class LogLine(jsonform.Form):
    """One line of ``index.log``: the operations of one save, in order, and the state after
    them (as :class:`StoredIndex` has it), for the index of ``generation``."""

    WHAT = "an index.log line"
    generation: str | None
    ops: tuple[tuple[Any, ...], ...] = field(
        metadata=jsonform.key(
            check=lambda ops: all(op and op[0] in _OPS for op in ops), means="operations"
        )
    )
    needs_sweep: bool = False
    pending: tuple[str, ...] = ()
    stamp: Stamp | None = None


def load(state: StatePaths) -> StateIndex:
    """The index of *state*, validated (by its stamp, else against the directory listings);
    rebuilt (and marked ``needs_sweep`` and ``dirty``) when it cannot be trusted."""
    index = read_stored(state)
    now = stamp(state)
    if index is not None and now is not None and index.stamp == now:
        return index
    entry_names, record_names = listings(state)
    if (
        index is not None
        and index.entry_names == entry_names
        and index.record_names == record_names
    ):
        return index  # (the next operation that changes the state stores the new stamp)
    fresh = rebuild(state, entry_names, record_names)
    # a fresh state needs no sweep, nor an index file; state written around the index (or
    # by an older agenttools, which keeps none) may hold references to records that are gone
    fresh.needs_sweep = bool(entry_names)
    fresh.dirty = index is not None or bool(entry_names) or bool(record_names)
    return fresh


def read_stored(state: StatePaths) -> StateIndex | None:
    """The stored index with its log replayed, as written (not validated: see :func:`load`);
    None when it is missing or unreadable. One whose log ends in a torn line is returned as
    far as the log goes, to be written whole by its next save."""
    try:
        index = StateIndex.from_json(json.loads(regular_files.read_bytes(state.index)))
        try:
            log = regular_files.read_bytes(state.index_log)
        except FileNotFoundError:
            return index
        if index.generation is None or not index.replay(log):
            index.ops = None
        return index
    except (OSError, ValueError, KeyError, TypeError, IndexError, RecursionError):
        return None  # (RecursionError: JSON nested deeper than the parser goes)


def save(state: StatePaths, index: StateIndex) -> None:
    """Store the index and mark it clean: what changed since it was read, appended to the
    log as one line, or the whole index written anew and the log deleted (see the module
    docstring). Not fsynced: an index that did not reach the disk is found missing,
    unreadable, torn or naming other files on the next load, and rebuilt."""
    fs.mkdir(state.index.parent)
    index.stamp = stamp(state)
    if index.generation is not None and index.ops is not None:
        line = LogLine(
            index.generation,
            tuple(map(tuple, index.ops)),
            index.needs_sweep,
            tuple(sorted(index.pending)),
            index.stamp,
        ).to_json()
        data = json.dumps(line, separators=(",", ":"), check_circular=False).encode() + b"\n"
        if _log_has_room(state, len(data)):
            fs.append_bytes(state.index_log, data)
            index.ops = []
            index.dirty = False
            return
    for name in os.listdir(state.index.parent):  # a save killed half-way (under the lock)
        if fs.is_temp_name(name):
            fs.unlink(state.index.parent / name, missing_ok=True)
    index.generation = os.urandom(8).hex()
    # compact, and not checked for cycles (it has none): a fifth of the write of 1,000 records
    data = json.dumps(index.to_json(), separators=(",", ":"), check_circular=False).encode()
    fs.write_bytes_atomic(state.index, data, durable=False)
    # (killed here, the log's lines are of the generation before: skipped by the next load)
    fs.unlink(state.index_log, missing_ok=True)
    index.ops = []
    index.dirty = False


def _log_has_room(state: StatePaths, adding: int) -> bool:
    try:
        stored = os.stat(state.index).st_size
    except OSError:
        return False
    try:
        logged = os.stat(state.index_log).st_size
    except FileNotFoundError:
        logged = 0
    return logged + adding <= max(LOG_MIN_BYTES, stored // LOG_SHARE)


def stamp(state: StatePaths) -> Stamp | None:
    """What changes whenever anyone adds, removes or renames a record or a registry entry:
    the number of links of the deployments directory (one per subdirectory: per record) and
    its modification time, and the registry directory's modification time. None where the
    file system does not count the links of a directory (then the listings are compared)."""
    try:
        deployments = os.stat(state.deployments)
    except FileNotFoundError:
        return (0, 0, 0)
    if deployments.st_nlink < 2:
        return None
    try:
        registry_mtime = os.stat(state.registry).st_mtime_ns
    except FileNotFoundError:
        registry_mtime = 0
    return (deployments.st_nlink, deployments.st_mtime_ns, registry_mtime)


def invalidate(state: StatePaths) -> None:
    """Forget the stored index (the next load rebuilds it): for changes made around it."""
    fs.unlink(state.index, missing_ok=True)
    fs.unlink(state.index_log, missing_ok=True)


def listings(state: StatePaths) -> tuple[set[str], set[str]]:
    """(registry entry file names, non-dot names in the deployments directory)."""
    return _names(state.registry, ENTRY_SUFFIX), _names(state.deployments, "")


def rebuild(
    state: StatePaths, entry_names: set[str] | None = None, record_names: set[str] | None = None
) -> StateIndex:
    """An index made by reading every entry and record (unreadable ones are left out, and
    their names kept so the listing still matches)."""
    if entry_names is None or record_names is None:
        entry_names, record_names = listings(state)
    index = StateIndex(entry_names=set(entry_names), record_names=set(record_names), dirty=True)
    for name in sorted(entry_names):
        entry = registry.load_entry(name.removesuffix(ENTRY_SUFFIX), state)
        if entry is not None:
            index.skills[entry.key] = SkillKeys.of(entry.directory)
    for record in records.load_records(state.deployments):
        index.records[record.uuid] = summarize(record)
    return index


def summarize(record: DeploymentRecord) -> list[Any]:
    """What the index keeps of one record, as stored: its toolset identity (type, name,
    client, location key) and its config entries (``[config key, canonical config file
    key]`` pairs)."""
    entries = [[s.config_key, paths.canonical_path_key(s.config_file)] for s in record.mcp_servers]
    return [record.toolset_type, record.toolset_name, record.client, record.location_key, entries]


def lexical_key(directory: str | Path) -> str:
    """A directory as given, absolute, ``/``-separated, case-folded where the platform's file
    systems are case-insensitive (no link resolved)."""
    text = os.path.abspath(os.path.expanduser(os.fspath(directory))).replace(os.sep, "/")
    return text.casefold() if paths.case_insensitive_fs() else text


def physical_key(directory: str | Path) -> str:
    return os.path.realpath(directory)


def _names(directory: Path, suffix: str) -> set[str]:
    try:
        names = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return set()
    return {n for n in names if not n.startswith(".") and n.endswith(suffix)}
