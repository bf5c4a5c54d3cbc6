"""Intent journals: what an operation on the deployment state is about to do, written
(atomically, fsynced) before it changes anything, deleted once it is done.

``<state>/deployments/.journal/<sequence>-<kind>-<uuid>.json``, with the bytes a config file
had before the operation beside it (``….config-<n>``). Three kinds:

``deploy``
    Every config file it edits (its path, the SHA-256 of its bytes before and after, what
    each key held before and will hold, a copy of the bytes before), every skill directory it
    creates or replaces (the content's manifest, the names of the staging directory it is
    built in and of the backup the old entry is moved to), every registry entry it writes
    (the file's bytes before), the deployment id of the record it publishes and the
    deployments it replaces. The changes are applied in that order; publishing the record is the commit
    point. An interrupted deploy whose record was not published is **rolled back**; one
    whose record was published is **finished** (backups deleted, replaced deployments
    removed). See :mod:`agenttools_runtime.deploy.apply`.
``remove``
    The deployment being removed (and the one replacing it, if any). A removal is always **finished**: every step of it can be
    repeated (:mod:`agenttools_runtime.deploy.removal`).
``sweep``
    The release of registry entries left without references; **finished** by sweeping
    again.

Journals nest (a deploy's replaced deployments are removed under journals of their own), so
the next locked command handles them newest first (:mod:`agenttools_runtime.deploy.recovery`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from agenttools_runtime import fs
from agenttools_runtime.deploy import shapes
from agenttools_runtime.mcp.origin import Origin
from agenttools_runtime.paths import StatePaths

JOURNAL_SCHEMA = 1
SUFFIX = ".json"


class Kind(str, Enum):
    DEPLOY = "deploy"
    REMOVE = "remove"
    SWEEP = "sweep"


@dataclass(frozen=True, slots=True)
class ConfigChange:
    """One config file a deploy edits. ``before``/``after`` are SHA-256 digests of its bytes
    (``before`` None: the file did not exist); ``entries`` maps each key written to
    ``[prior value or None, new value]``; ``prior_copy`` names the journal file holding the
    bytes before; ``created_dirs`` the parent directories the write creates; ``restore``
    each replaced entry as it was (its text and the hunk of the write: a rollback of a file
    changed since puts it back byte-for-byte where it can)."""

    file: str
    format: str
    container: tuple[str, ...]
    list_key: str | None
    before: str | None
    after: str
    entries: Mapping[str, tuple[Any, Any]]
    prior_copy: str | None = None
    created_dirs: tuple[str, ...] = ()
    restore: Mapping[str, Origin] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "format": self.format,
            "container": list(self.container),
            "list_key": self.list_key,
            "before": self.before,
            "after": self.after,
            "entries": {k: list(v) for k, v in self.entries.items()},
            "prior_copy": self.prior_copy,
            "created_dirs": list(self.created_dirs),
            "restore": {k: v.to_json() for k, v in self.restore.items()},
        }

    @classmethod
    def from_json(cls, data: object) -> ConfigChange:
        what = "a config change"
        change = shapes.obj(data, what)
        entries = shapes.table(change, "entries", what)
        if not all(type(v) is list and len(v) == 2 for v in entries.values()):
            raise shapes.Malformed(f"{what}.entries is not an object of [before, after] pairs")
        restore = shapes.table(change, "restore", what)
        prior_copy = shapes.optional_text(change, "prior_copy", what)
        if prior_copy is not None and not shapes.is_name(prior_copy):
            raise shapes.Malformed(f"{what}.prior_copy is not a file name")
        return cls(
            file=shapes.text(change, "file", what),
            format=shapes.text(change, "format", what),
            container=tuple(shapes.texts(change, "container", what)),
            list_key=shapes.optional_text(change, "list_key", what),
            before=shapes.optional_text(change, "before", what),
            after=shapes.text(change, "after", what),
            entries={k: (v[0], v[1]) for k, v in entries.items()},
            prior_copy=prior_copy,
            created_dirs=tuple(shapes.texts(change, "created_dirs", what)),
            restore={
                k: Origin.from_json(shapes.origin(v, f"{what}.restore")) for k, v in restore.items()
            },
        )


@dataclass(frozen=True, slots=True)
class SkillChange:
    """One skill directory a deploy writes: ``root/name`` gets the content whose manifest is
    ``manifest``, built in the staging directory ``staging`` (a name: see
    ``fsops.temp_locations``); what was there moves to the backup ``backup`` (None: nothing
    was there)."""

    name: str
    root: str
    manifest: Mapping[str, str]
    staging: str
    backup: str | None
    created_dirs: tuple[str, ...] = ()
    link: str | None = None  # deploy --link: root/name becomes a link to this directory

    @property
    def directory(self) -> Path:
        return Path(self.root) / self.name

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "root": self.root,
            "manifest": dict(self.manifest),
            "staging": self.staging,
            "backup": self.backup,
            "created_dirs": list(self.created_dirs),
        }
        if self.link is not None:
            data["link"] = self.link
        return data

    @classmethod
    def from_json(cls, data: object) -> SkillChange:
        what = "a skill change"
        change = shapes.obj(data, what)
        staging = shapes.text(change, "staging", what)
        backup = shapes.optional_text(change, "backup", what)
        name = shapes.text(change, "name", what)
        if not shapes.is_name(name):
            raise shapes.Malformed(f"{what} names the skill {name!r}, not a skill name")
        for temp in (staging, backup):
            # (entries beside the skills root: never a path that leads elsewhere)
            if temp is not None and not _is_temp_entry(temp):
                raise shapes.Malformed(f"{what} names {temp!r}, not a staging or backup name")
        return cls(
            name=name,
            root=shapes.text(change, "root", what),
            manifest=shapes.text_table(change, "manifest", what),
            staging=staging,
            backup=backup,
            created_dirs=tuple(shapes.texts(change, "created_dirs", what)),
            link=shapes.optional_text(change, "link", what),
        )


@dataclass(frozen=True, slots=True)
class EntryChange:
    """One registry entry a deploy writes, and its file's text before (None: there was none):
    all an undo needs (a committed deploy's entries are all written: nothing to redo)."""

    key: str
    before: str | None

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "before": self.before}

    @classmethod
    def from_json(cls, data: object) -> EntryChange:
        what = "a registry change"
        change = shapes.obj(data, what)
        key = shapes.text(change, "key", what)
        if not shapes.is_name(key):
            raise shapes.Malformed(f"{what}.key is not a registry key")
        return cls(key, shapes.optional_text(change, "before", what))


@dataclass(slots=True)
class Journal:
    """One operation's intent (see the module docstring). ``path`` is its file."""

    path: Path
    kind: Kind
    uuid: str
    name: str = ""
    client: str = ""
    created: str = ""
    pid: int = 0
    replaces: tuple[str, ...] = ()
    owned_by: str | None = None
    force: bool = False  # a removal with --force (entries the user changed go too)
    config: tuple[ConfigChange, ...] = ()
    skills: tuple[SkillChange, ...] = ()
    entries: tuple[EntryChange, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def side_files(self) -> list[Path]:
        return [self.path.parent / c.prior_copy for c in self.config if c.prior_copy]

    def describe(self) -> str:
        """What it was, for messages: ``deploy of "x" to claude-code (deployment …)``."""
        what = {Kind.DEPLOY: "deploy", Kind.REMOVE: "removal", Kind.SWEEP: "registry sweep"}
        text = what[self.kind]
        if self.name:
            text += f' of "{self.name}"'
        if self.client and self.kind is Kind.DEPLOY:
            text += f" to {self.client}"
        if self.uuid:
            text += f" (deployment {self.uuid})"
        return text

    def to_json(self) -> dict[str, Any]:
        return {
            **self.extra,
            "schema": JOURNAL_SCHEMA,
            "kind": self.kind.value,
            "uuid": self.uuid,
            "name": self.name,
            "client": self.client,
            "created": self.created,
            "pid": self.pid,
            "replaces": list(self.replaces),
            "owned_by": self.owned_by,
            "force": self.force,
            "config": [c.to_json() for c in self.config],
            "skills": [s.to_json() for s in self.skills],
            "entries": [e.to_json() for e in self.entries],
        }

    @classmethod
    def from_json(cls, path: Path, data: object) -> Journal:
        """Parse a journal; ``ValueError`` (:class:`~.shapes.Malformed`) when it is not one
        of this schema, of the shape it says."""
        what = "the journal"
        journal = shapes.obj(data, what)
        if journal.get("schema") != JOURNAL_SCHEMA or type(journal.get("schema")) is not int:
            raise shapes.Malformed(f"unknown journal schema {journal.get('schema')!r}")
        kind = journal.get("kind")
        if type(kind) is not str or kind not in _KINDS:
            raise shapes.Malformed(f"unknown journal kind {kind!r}")
        known = {"schema", "kind", "uuid", "name", "client", "created", "pid", "replaces",
                 "owned_by", "force", "config", "skills", "entries"}  # fmt: skip
        uids = [
            journal.get("uuid"),
            journal.get("owned_by"),
            *shapes.texts(journal, "replaces", what),
        ]
        for uid in uids:
            # (names of record directories: a path that leads elsewhere is never acted on)
            if uid is not None and uid != "" and not shapes.is_name(uid):
                raise shapes.Malformed(f"{what} names the deployment {uid!r}, not a UUID")
        return cls(
            path=path,
            kind=Kind(kind),
            uuid=shapes.text_or(journal, "uuid", what),
            name=shapes.text_or(journal, "name", what),
            client=shapes.text_or(journal, "client", what),
            created=shapes.text_or(journal, "created", what),
            pid=shapes.integer(journal, "pid", what, 0),
            replaces=tuple(shapes.texts(journal, "replaces", what)),
            owned_by=shapes.optional_text(journal, "owned_by", what),
            force=shapes.flag(journal, "force", what),
            config=tuple(ConfigChange.from_json(c) for c in shapes.items(journal, "config", what)),
            skills=tuple(SkillChange.from_json(c) for c in shapes.items(journal, "skills", what)),
            entries=tuple(EntryChange.from_json(c) for c in shapes.items(journal, "entries", what)),
            extra={k: v for k, v in journal.items() if k not in known},
        )


_KINDS = frozenset(k.value for k in Kind)


def _is_temp_entry(name: str) -> bool:
    """Whether *name* is one agenttools gives a staging directory or backup beside a skills
    root (a plain name with its mark: never a path that leads elsewhere)."""
    return name.startswith(fs.TEMP_MARK) and shapes.is_name(name[1:])


@dataclass(frozen=True, slots=True)
class PriorBytes:
    """The bytes a config file had before a deploy, saved beside its journal."""

    name: str
    data: bytes


def new_path(state: StatePaths, kind: Kind, uid: str) -> Path:
    """A fresh journal path; names sort in creation order (a nanosecond sequence)."""
    return state.journals / f"{time.time_ns():020d}-{kind.value}-{uid or 'none'}{SUFFIX}"


def write(journal: Journal, prior: Sequence[PriorBytes] = ()) -> None:
    """Write the journal durably (side files first: the journal's presence is the intent).
    When that fails, what was written of it is removed again."""
    directory = journal.path.parent
    written: list[Path] = []
    try:
        fs.mkdir(directory)
        for item in prior:
            written.append(directory / item.name)
            fs.write_bytes_atomic(directory / item.name, item.data)
        data = json.dumps(journal.to_json(), sort_keys=True, separators=(",", ":"))
        fs.write_bytes_atomic(journal.path, data.encode("utf-8"))
    except BaseException:
        for path in written:
            with contextlib.suppress(OSError):
                fs.unlink(path, missing_ok=True)
        raise


def delete(journal: Journal) -> None:
    """Delete the journal, then its side files (no fsync: a journal that reappears after a
    power cut is finished, or rolled back, again; both are idempotent). The directory stays,
    empty: creating and removing it for every operation would cost more than it tidies."""
    fs.unlink(journal.path, missing_ok=True)
    for path in journal.side_files:
        fs.unlink(path, missing_ok=True)


def any_left(state: StatePaths) -> bool:
    """Whether anything is in the journal directory (cheap: no journal is read)."""
    return state.journals_left()


def prior_bytes(journal: Journal, change: ConfigChange) -> bytes | None:
    if change.prior_copy is None:
        return None
    return (journal.path.parent / change.prior_copy).read_bytes()


def copy_problem(journal: Journal, change: ConfigChange) -> str | None:
    """Why the copy of *change*'s file before the deploy cannot be trusted (None: it can):
    it is missing, or its SHA-256 is not the one the journal recorded (tampered with, or
    corrupted). A rollback never writes such a copy over the user's file."""
    if change.before is None:
        if change.prior_copy is None:
            return None  # (the file did not exist: nothing to copy)
        return f"the journal keeps a copy ({change.prior_copy}) of a file it says did not exist"
    if change.prior_copy is None:
        return f"the journal keeps no copy of {change.file} as it was"
    copy = journal.path.parent / change.prior_copy
    try:
        data = copy.read_bytes()
    except OSError as exc:
        return f"the copy {copy} of {change.file} as it was cannot be read ({exc.strerror or exc})"
    if hashlib.sha256(data).hexdigest() != change.before:
        return (
            f"the copy {copy} of {change.file} as it was does not have the SHA-256 the "
            "journal recorded"
        )
    return None


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A journal file that cannot be parsed (reported by ``doctor``, never acted on)."""

    path: Path
    reason: str


def pending(state: StatePaths) -> Iterator[Journal | Unreadable]:
    """Every journal left in *state*, newest first (the order to handle them in)."""
    try:
        names = os.listdir(state.journals)
    except (FileNotFoundError, NotADirectoryError):
        return
    for name in sorted(
        (n for n in names if n.endswith(SUFFIX) and not n.startswith(".")), reverse=True
    ):
        path = state.journals / name
        try:
            yield Journal.from_json(path, json.loads(path.read_bytes()))
        except FileNotFoundError:
            continue
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
            yield Unreadable(path, str(exc) or type(exc).__name__)


def set_aside_directory(state: StatePaths) -> Path:
    """Where ``doctor --fix`` moves journals that cannot be read (never acted on)."""
    return state.deployments / ".journal-set-aside"


def set_aside(state: StatePaths, path: Path) -> Path:
    """Move the journal *path* that cannot be read, and the side files beside it that carry
    its name, out of the journal directory (call under the lock); returns where it went."""
    target = set_aside_directory(state)
    fs.mkdir(target)
    stem = path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else path.name
    for name in sorted(os.listdir(path.parent)):
        if name == path.name or name.startswith(f"{stem}.config-"):
            fs.rename(path.parent / name, target / name)
    return target / path.name


def set_aside_journals(state: StatePaths) -> list[Path]:
    """The journals set aside so far."""
    try:
        names = os.listdir(set_aside_directory(state))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [set_aside_directory(state) / n for n in sorted(names) if n.endswith(SUFFIX)]


def temp_logs(state: StatePaths) -> list[Path]:
    """The temp logs of lock holders that died (:func:`agenttools_runtime.fs.listing_temp_files`;
    call under the lock: the one this process writes is left out)."""
    try:
        names = os.listdir(state.journals)
    except (FileNotFoundError, NotADirectoryError):
        return []
    own = fs.current_temp_log()
    found = (state.journals / n for n in sorted(names) if n.endswith(fs.TEMP_LOG_SUFFIX))
    return [p for p in found if p != own]


def orphan_files(state: StatePaths) -> list[Path]:
    """Files in the journal directory that no journal names: side files of a journal whose
    writing died before the journal itself, temp files of an atomic write. (Temp logs are
    not: see :func:`temp_logs`.)"""
    try:
        names = os.listdir(state.journals)
    except (FileNotFoundError, NotADirectoryError):
        return []
    named: set[str] = {n for n in names if n.endswith(fs.TEMP_LOG_SUFFIX)}
    for item in pending(state):
        named.add(item.path.name)
        if isinstance(item, Journal):
            named.update(p.name for p in item.side_files)
    return sorted(state.journals / n for n in names if n not in named)
