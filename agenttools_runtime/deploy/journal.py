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
    deployments it replaces. The changes are applied in that order; publishing the record
    is the commit point. An interrupted deploy whose record was not published is **rolled
    back**; one whose record was published is **finished** (backups deleted, replaced
    deployments removed). See :mod:`agenttools_runtime.deploy.apply`.
``remove``
    The deployment being removed (and the one replacing it, if any). A removal is always
    **finished**: every step of it can be repeated
    (:mod:`agenttools_runtime.deploy.removal`).
``sweep``
    The release of registry entries left without references; **finished** by sweeping
    again.

Journals nest (a deploy's replaced deployments are removed under journals of their own), so
the next locked command handles them newest first (:mod:`agenttools_runtime.deploy.recovery`).
The journals of managed environments (:mod:`agenttools_runtime.envs.journal`) are files of the
same form, named, written and listed by the same functions here.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import os
import stat
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Protocol, TypeVar

from agenttools_runtime import errors, fs, jsonform, regular_files
from agenttools_runtime.deploy import records, shapes
from agenttools_runtime.deploy.records import DeploymentRecord
from agenttools_runtime.mcp.origin import Origin
from agenttools_runtime.paths import StatePaths
from agenttools_runtime.state_directories import directory_problem, directory_set_aside

JOURNAL_SCHEMA = 1
SUFFIX = ".json"


class Kind(str, Enum):
    DEPLOY = "deploy"
    REMOVE = "remove"
    SWEEP = "sweep"


def _is_temp_entry(name: str | None) -> bool:
    """Whether *name* is one agenttools gives a staging directory or backup beside a skills
    root (a plain name with its mark: never a path that leads elsewhere)."""
    return name is None or (name.startswith(fs.TEMP_MARK) and shapes.is_name(name[1:]))


def _is_uid(uid: str | None) -> bool:
    # (names of record directories: a path that leads elsewhere is never acted on)
    return uid is None or uid == "" or shapes.is_name(uid)


_NAME = jsonform.key(check=shapes.is_name, means="a file name")
_TEMP = jsonform.key(check=_is_temp_entry, means="a staging or backup name")
_UID = jsonform.key(check=_is_uid, means="a deployment id")


@dataclass(frozen=True, slots=True)
class ConfigChange(jsonform.Form):
    """One config file a deploy edits. ``before``/``after`` are SHA-256 digests of its bytes
    (``before`` None: the file did not exist); ``entries`` maps each key written to
    ``[prior value or None, new value]``; ``prior_copy`` names the journal file holding the
    bytes before; ``created_dirs`` the parent directories the write creates; ``restore``
    each replaced entry as it was (its text and the hunk of the write: a rollback of a file
    changed since puts it back byte-for-byte where it can)."""

    WHAT = "a config change"
    file: str
    format: str
    container: tuple[str, ...]
    list_key: str | None
    before: str | None
    after: str
    entries: Mapping[str, tuple[Any, Any]]
    prior_copy: str | None = field(default=None, metadata=_NAME)
    created_dirs: tuple[str, ...] = ()
    restore: Mapping[str, Origin] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class SkillChange(jsonform.Form):
    """One skill directory a deploy writes: ``root/name`` gets the content whose manifest is
    ``manifest``, built in the staging directory ``staging`` (a name: see
    ``fsops.temp_locations``); what was there moves to the backup ``backup`` (None: nothing
    was there)."""

    WHAT = "a skill change"
    name: str = field(metadata=jsonform.key(check=shapes.is_name, means="a skill name"))
    root: str
    manifest: Mapping[str, str]
    staging: str = field(metadata=_TEMP)
    backup: str | None = field(metadata=_TEMP)
    created_dirs: tuple[str, ...] = ()
    # deploy --link: root/name becomes a link to this directory
    link: str | None = field(default=None, metadata=jsonform.OMIT_NONE)

    @property
    def directory(self) -> Path:
        return Path(self.root) / self.name


@dataclass(frozen=True, slots=True)
class EntryChange(jsonform.Form):
    """One registry entry a deploy writes, and its file's text before (None: there was none):
    all an undo needs (a committed deploy's entries are all written: nothing to redo)."""

    WHAT = "a registry change"
    key: str = field(metadata=jsonform.key(check=shapes.is_name, means="a registry key"))
    before: str | None


@dataclass(slots=True)
class Journal(jsonform.Form):
    """One operation's intent (see the module docstring). ``path`` is its file."""

    path: Path = field(metadata=jsonform.NOT_JSON)
    kind: Kind
    uuid: str = field(default="", metadata=_UID)
    name: str = ""
    client: str = ""
    created: str = ""
    pid: int = 0
    replaces: tuple[str, ...] = field(
        default=(),
        metadata=jsonform.key(check=lambda uids: all(map(_is_uid, uids)), means="deployment ids"),
    )
    owned_by: str | None = field(default=None, metadata=_UID)
    force: bool = False  # a removal with --force (entries the user changed go too)
    config: tuple[ConfigChange, ...] = ()
    skills: tuple[SkillChange, ...] = ()
    entries: tuple[EntryChange, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict, metadata=jsonform.EXTRA)

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
        return {**jsonform.Form.to_json(self), "schema": JOURNAL_SCHEMA}


def parse(path: Path, data: object) -> Journal:
    """The journal *path* holds (*data*, its JSON); ``ValueError``
    (:class:`~agenttools_runtime.jsonform.Malformed`) when it is not one of this schema, of
    the shape it says."""
    schema = data.get("schema") if type(data) is dict else None
    if schema != JOURNAL_SCHEMA or type(schema) is not int:
        raise shapes.Malformed(f"unknown journal schema {schema!r}")
    journal = jsonform.load(Journal, data, "the journal", frozenset({"schema"}), path=path)
    if journal.kind is Kind.REMOVE and not journal.uuid:
        # (finishing it acts on the record directory it names: never on the whole folder)
        raise shapes.Malformed("the journal of a removal names no deployment (uuid)")
    return journal


@dataclass(frozen=True, slots=True)
class PriorBytes:
    """The bytes a config file had before a deploy, saved beside its journal."""

    name: str
    data: bytes


def new_path(directory: Path, kind: str, name: str) -> Path:
    """A fresh journal path in *directory*, ``<sequence>-<kind>-<name>.json``: names sort in
    creation order (a nanosecond sequence)."""
    return directory / f"{time.time_ns():020d}-{kind}-{name}{SUFFIX}"


def begin(state: StatePaths, kind: Kind, record: DeploymentRecord | None = None) -> Journal:
    """A new journal of *kind* (for *record*'s deployment), made by this process now."""
    uid, name, client = (
        ("", "", "") if record is None else (record.uuid, record.toolset_name, record.client)
    )
    path = new_path(state.journals, kind.value, uid or "none")
    return Journal(path, kind, uid, name, client, created=records.now_timestamp(), pid=os.getpid())


class Intent(Protocol):
    """What :func:`write` writes: a journal of deployments or of managed environments."""

    @property
    def path(self) -> Path: ...

    def to_json(self) -> dict[str, Any]: ...


def write(journal: Intent, prior: Sequence[PriorBytes] = ()) -> None:
    """Write the journal durably (side files first: the journal's presence is the intent).
    When that fails, what was written of it is removed again. Raises
    ``JournalDirectoryUnusable`` when something else than a directory is where it goes."""
    directory = journal.path.parent
    check_directory(directory)
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


def prior_bytes(journal: Journal, change: ConfigChange) -> bytes | None:
    if change.prior_copy is None:
        return None
    return regular_files.read_bytes(journal.path.parent / change.prior_copy)


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
        data = regular_files.read_bytes(copy)
    except OSError as exc:
        return f"the copy {copy} of {change.file} as it was cannot be read ({exc.strerror or exc})"
    if hashlib.sha256(data).hexdigest() != change.before:
        return (
            f"the copy {copy} of {change.file} as it was does not have the SHA-256 the "
            "journal recorded"
        )
    return None


def directory_problem_detail(what: str, holding: str, changing: str) -> str:
    """How ``doctor`` says that something else than a directory (*what*, as
    :func:`directory_problem` names it) is where the directory of *holding* goes, so that
    every command that changes *changing* stops on it (the path is said before it)."""
    return (
        f"is {what}, not the directory of {holding}: every command that changes {changing} "
        "stops on it"
    )


def not_set_aside_detail(reason: str, name: str = "it") -> str:
    """How ``doctor`` says that what a finding names (*name*) could not be set aside
    (*reason*: what is where it would go, as
    :func:`agenttools_runtime.state_directories.set_aside_problem` says it, or the system's
    refusal), for the user to move it away (after the finding's own detail)."""
    return f"{name} could not be set aside ({reason}): move it away"


def set_aside_unusable_directory(directory: Path) -> Path:
    """Move what is at *directory* when it is not a directory (see
    :func:`directory_problem`) to :func:`directory_set_aside`, never over anything there
    (call under the lock of what it holds, when it can be taken); returns where it went."""
    target = directory_set_aside(directory)
    fs.mkdir(target.parent)
    rename_new(directory, target)
    return target


def check_directory(directory: Path) -> None:
    """Raise ``JournalDirectoryUnusable`` when something else than a directory is at the
    journal directory *directory*: no operation can be journaled (never removed: it is not
    agenttools')."""
    what = directory_problem(directory)
    if what is not None:
        raise errors.JournalDirectoryUnusable(
            path=directory, what=what, set_aside=directory_set_aside(directory)
        )


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A journal file that cannot be parsed (reported by ``doctor``, never acted on)."""

    path: Path
    reason: str


def pending(state: StatePaths) -> Iterator[Journal | Unreadable]:
    """Every journal left in *state*, newest first (the order to handle them in)."""
    return pending_in(
        state.journals, lambda path: parse(path, json.loads(regular_files.read_bytes(path)))
    )


T = TypeVar("T")


def pending_in(directory: Path, read: Callable[[Path], T]) -> Iterator[T | Unreadable]:
    """Every journal file in *directory* (by its suffix, dot-files skipped), newest first, as
    *read* makes it, or as :class:`Unreadable` when *read* raises (one gone meanwhile is
    skipped)."""
    for name in reversed(names(directory)):
        if not name.endswith(SUFFIX) or name.startswith("."):
            continue
        path = directory / name
        try:
            yield read(path)
        except FileNotFoundError:
            continue
        except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
            # (an OSError's strerror: every message names the file already)
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            yield Unreadable(path, reason or type(exc).__name__)


def set_aside_directory(state: StatePaths) -> Path:
    """Where ``doctor --fix`` moves journals that cannot be read (never acted on)."""
    return state.deployments / ".journal-set-aside"


def set_aside(state: StatePaths, path: Path) -> Path:
    """Move the journal *path* that cannot be read, and the side files beside it that carry
    its name, out of the journal directory (call under the lock), never over anything set
    aside before (:func:`move_aside`); returns where it went."""
    stem = path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else path.name
    moving = [n for n in names(path.parent) if n == path.name or n.startswith(f"{stem}.config-")]
    return move_aside(path.parent, moving, stem, set_aside_directory(state))[path.name]


def move_aside(directory: Path, moving: Sequence[str], stem: str, target: Path) -> dict[str, Path]:
    """Move the entries *moving* of *directory* (names that start with *stem*: a journal and
    its side files) into the directory *target*, never over anything there: when a name is
    taken, ``<stem>.<n>`` takes the place of the stem in every one of them, for the first n
    that leaves all of them free. Where each went, by its name."""
    fs.mkdir(target)
    for n in itertools.count():
        moved = {
            name: target / (f"{stem}.{n}{name[len(stem) :]}" if n else name) for name in moving
        }
        if not any(os.path.lexists(path) for path in moved.values()):
            break
    for name, path in moved.items():
        rename_new(directory / name, path)
    return moved


def rename_new(source: Path, target: Path) -> None:
    """Move *source* (a file, directory or link, as itself) to *target*, never over anything
    there: ``FileExistsError`` when something is. The name is taken first, exclusively (an
    empty directory for a directory, else an empty file), then *source* replaces that."""
    directory = stat.S_ISDIR(os.lstat(source).st_mode)
    if directory:
        fs.mkdir(target, parents=False, exist_ok=False)
    else:
        fs.create_bytes(target, b"")
    try:
        fs.replace(source, target)
    except BaseException:
        # (only the empty one taken above is there)
        if directory:
            fs.rmdir(target)
        else:
            fs.unlink(target)
        raise


def set_aside_journals(state: StatePaths) -> list[Path]:
    """The journals set aside so far."""
    directory = set_aside_directory(state)
    return [directory / n for n in names(directory) if n.endswith(SUFFIX)]


def temp_logs(state: StatePaths) -> list[Path]:
    """The temp logs of lock holders that died (:func:`agenttools_runtime.fs.listing_temp_files`;
    call under the lock: the one this process writes is left out)."""
    own = fs.current_temp_log()
    found = (state.journals / n for n in names(state.journals) if n.endswith(fs.TEMP_LOG_SUFFIX))
    return [p for p in found if p != own]


def orphan_files(state: StatePaths) -> list[Path]:
    """Files in the journal directory that no journal names: side files of a journal whose
    writing died before the journal itself, temp files of an atomic write. (Temp logs are
    not: see :func:`temp_logs`.)"""
    listed = names(state.journals)
    named: set[str] = {n for n in listed if n.endswith(fs.TEMP_LOG_SUFFIX)}
    for item in pending(state):
        named.add(item.path.name)
        if isinstance(item, Journal):
            named.update(p.name for p in item.side_files)
    return [state.journals / n for n in listed if n not in named]


def names(directory: Path) -> list[str]:
    """The names in *directory*, sorted (none when it is not there)."""
    try:
        return sorted(os.listdir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return []
