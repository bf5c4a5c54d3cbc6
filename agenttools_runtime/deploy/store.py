"""One locked operation's access to the deployment state: records, registry, index.

A :class:`Store` is opened once per operation under the lock: the state paths are computed
once, the index is loaded (and validated) once, and every read and write of a record or a
registry entry goes through it, so the index stays in step with them. :meth:`Store.save`
writes the index back, once, at the end.

Registry entries are written without an fsync of their own (``durable=False``): while an
operation runs, its intent journal (fsynced) holds their before and after bytes; records and
the index are fsynced.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agenttools_runtime import errors, paths
from agenttools_runtime.deploy import index, records, registry
from agenttools_runtime.deploy.index import SkillKeys, StateIndex
from agenttools_runtime.deploy.journal import Journal
from agenttools_runtime.deploy.records import DeploymentRecord
from agenttools_runtime.deploy.registry import RegistryEntry
from agenttools_runtime.paths import StatePaths


@dataclass(frozen=True, slots=True)
class RootKeys:
    """A skills root's keys, computed once per operation: ``real`` (its canonical path),
    ``lexical`` and ``canonical`` (comparison keys, see :mod:`.index`)."""

    real: Path
    lexical: str
    canonical: str

    def skill(self, name: str) -> SkillKeys:
        """The keys of the real skill directory *name* in this root."""
        folded = name.casefold() if paths.case_insensitive_fs() else name
        return SkillKeys(
            f"{self.lexical}/{folded}", f"{self.canonical}/{folded}", str(self.real / name)
        )


@dataclass(slots=True)
class Store:
    """The state of one operation (see the module docstring)."""

    state: StatePaths
    index: StateIndex
    # the interrupted operations recovery handled under this lock
    recovered: list[Journal] = field(default_factory=list)
    _records: dict[str, DeploymentRecord | None] = field(
        default_factory=dict, init=False, repr=False
    )
    _roots: dict[str, RootKeys] = field(default_factory=dict, init=False, repr=False)
    # the uuids records that cannot be read may be (see live_references)
    _claimed: frozenset[str] | None = field(default=None, init=False, repr=False)

    @classmethod
    def open(cls, state: StatePaths | None = None) -> Store:
        state = state or paths.state_paths()
        return cls(state, index.load(state))

    def reload(self) -> None:
        """Forget what this operation changed in memory: read the index and records again
        (after a rollback put the files back)."""
        self.index = index.load(self.state)
        self._records.clear()
        self._claimed = None

    def save(self) -> None:
        """Write the index if anything changed it. When that fails the stored index is
        removed instead (it is rebuilt on next use): a stale one must not be trusted."""
        if not self.index.dirty:
            return
        try:
            index.save(self.state, self.index)
        except OSError:
            with contextlib.suppress(OSError):
                index.invalidate(self.state)

    # -- registry ------------------------------------------------------------------------

    def entry(self, key: str) -> RegistryEntry | None:
        return registry.load_entry(key, self.state)

    def entries(self) -> Iterator[RegistryEntry]:
        """Every readable entry (O(n): the sweep and doctor only)."""
        for key in sorted(self.index.skills):
            entry = self.entry(key)
            if entry is not None:
                yield entry

    def root(self, root: Path) -> RootKeys:
        """*root*'s keys (a skills root does not change during an operation under the lock:
        what it creates in it are real directories)."""
        found = self._roots.get(str(root))
        if found is None:
            real = paths.canonical_path(root)
            canonical = real.as_posix()
            if paths.case_insensitive_fs():
                canonical = canonical.casefold()
            found = RootKeys(real, index.lexical_key(root), canonical)
            self._roots[str(root)] = found
        return found

    def skill_keys(self, directory: str | Path) -> SkillKeys:
        """The index keys of a skill directory (from its root's, when that is known)."""
        path = Path(directory)
        root = self._roots.get(str(path.parent))
        if root is not None and not path.is_symlink():
            return root.skill(path.name)
        return SkillKeys.of(directory)

    def entry_key(self, skills_root: Path, name: str) -> str:
        """The registry key of the skill *name* in *skills_root*
        (:func:`~agenttools_runtime.paths.registry_key`, from the root's keys)."""
        return paths.registry_key_for(self.root(skills_root).canonical, name)

    def entry_at(self, skills_root: Path, name: str) -> RegistryEntry | None:
        """The entry of the skill *name* in *skills_root*: by its key (:meth:`entry_key`),
        failing that by skill directory: an entry whose directory is the same skill of the
        same (link-resolved) skills root. A per-skill link is a different directory."""
        entry = self.entry(self.entry_key(skills_root, name))
        if entry is not None:
            return entry
        root = self.root(skills_root)
        wanted = root.skill(name)
        for candidate_key in self.index.skills_by_directory(wanted):
            candidate = self.entry(candidate_key)
            if candidate is None or candidate.name != name:
                continue
            if self.root(candidate.root).skill(candidate.name).canonical == wanted.canonical:
                return candidate
        return None

    def find_physical_entry(self, directory: Path) -> RegistryEntry | None:
        """An entry whose directory is *directory* once every link is resolved."""
        return next(self.physical_entries(directory), None)

    def physical_entries(self, directory: str | Path) -> Iterator[RegistryEntry]:
        physical = index.physical_key(directory)
        for key in self.index.skills_by_physical(directory):
            candidate = self.entry(key)
            if candidate is not None and index.physical_key(candidate.directory) == physical:
                yield candidate

    def put_entry(self, entry: RegistryEntry, *, new: bool = False) -> None:
        """Write *entry* (with *new*, one a journal says did not exist: see
        :func:`registry.write_entry`) and index it."""
        registry.write_entry(entry, self.state, new=new)
        self.index.put_skill(entry.key, self.skill_keys(entry.directory))

    def delete_entry(self, key: str) -> None:
        registry.remove_entry(key, self.state)
        self.index.drop_skill(key)

    def live_references(self, entry: RegistryEntry, exclude: Iterable[str] = ()) -> tuple[str, ...]:
        """*entry*'s references that are not stale and not in *exclude*. A record that
        cannot be read keeps every reference it may be: its directory's name and the uuid it
        says (read once per operation, for the few records the index could not read)."""
        if self._claimed is None:
            unread = self.index.record_names - self.index.records.keys()
            self._claimed = records.claimed_by_unreadable(unread, self.state.deployments)
        claimed, excluded = self._claimed, set(exclude)
        return tuple(
            r
            for r in entry.references
            if r not in excluded
            and (r in claimed or not records.is_stale(r, self.state.deployments))
        )

    # -- records -------------------------------------------------------------------------

    def record(self, uid: str) -> DeploymentRecord | None:
        """The readable record *uid* (None when missing or unreadable)."""
        if uid not in self._records:
            try:
                self._records[uid] = records.read_record(
                    records.record_path(uid, self.state.deployments)
                )
            except errors.InvalidDeploymentRecord:
                self._records[uid] = None
        return self._records[uid]

    def records(self, uids: Iterable[str]) -> list[DeploymentRecord]:
        return records.oldest_first(self.record(uid) for uid in uids)

    def publish_record(self, record: DeploymentRecord) -> None:
        records.write_record(record, self.state.deployments)
        self._cache(record)

    def rewrite_record(self, record: DeploymentRecord) -> None:
        records.write_record_file(record, self.state.deployments)
        self._cache(record)

    def delete_record(self, uid: str) -> None:
        records.delete_record(uid, self.state.deployments)
        self._records[uid] = None
        self.index.drop_record(uid)

    def _cache(self, record: DeploymentRecord) -> None:
        self._records[record.uuid] = record
        self.index.put_record(record.uuid, index.summarize(record))
