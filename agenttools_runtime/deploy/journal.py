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
import json
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from agenttools_runtime import fs
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
    def from_json(cls, data: Mapping[str, Any]) -> ConfigChange:
        return cls(
            file=str(data["file"]),
            format=str(data["format"]),
            container=tuple(str(p) for p in data["container"]),
            list_key=data.get("list_key"),
            before=data.get("before"),
            after=str(data["after"]),
            entries={str(k): (v[0], v[1]) for k, v in data["entries"].items()},
            prior_copy=data.get("prior_copy"),
            created_dirs=tuple(str(d) for d in data.get("created_dirs", ())),
            restore={str(k): Origin.from_json(v) for k, v in data.get("restore", {}).items()},
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
    def from_json(cls, data: Mapping[str, Any]) -> SkillChange:
        return cls(
            name=str(data["name"]),
            root=str(data["root"]),
            manifest={str(k): str(v) for k, v in data["manifest"].items()},
            staging=str(data["staging"]),
            backup=data.get("backup"),
            created_dirs=tuple(str(d) for d in data.get("created_dirs", ())),
            link=data.get("link"),
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
    def from_json(cls, data: Mapping[str, Any]) -> EntryChange:
        return cls(str(data["key"]), data.get("before"))


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
    def from_json(cls, path: Path, data: Mapping[str, Any]) -> Journal:
        if data.get("schema") != JOURNAL_SCHEMA:
            raise ValueError(f"unknown journal schema {data.get('schema')!r}")
        known = {"schema", "kind", "uuid", "name", "client", "created", "pid", "replaces",
                 "owned_by", "force", "config", "skills", "entries"}  # fmt: skip
        return cls(
            path=path,
            kind=Kind(data["kind"]),
            uuid=str(data.get("uuid") or ""),
            name=str(data.get("name") or ""),
            client=str(data.get("client") or ""),
            created=str(data.get("created") or ""),
            pid=int(data.get("pid") or 0),
            replaces=tuple(str(u) for u in data.get("replaces", ())),
            owned_by=data.get("owned_by"),
            force=bool(data.get("force", False)),
            config=tuple(ConfigChange.from_json(c) for c in data.get("config", ())),
            skills=tuple(SkillChange.from_json(s) for s in data.get("skills", ())),
            entries=tuple(EntryChange.from_json(e) for e in data.get("entries", ())),
            extra={k: v for k, v in data.items() if k not in known},
        )


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
        except (OSError, ValueError, KeyError, TypeError) as exc:
            yield Unreadable(path, str(exc))


def orphan_files(state: StatePaths) -> list[Path]:
    """Files in the journal directory that no journal names: side files of a journal whose
    writing died before the journal itself, temp files of an atomic write."""
    try:
        names = os.listdir(state.journals)
    except (FileNotFoundError, NotADirectoryError):
        return []
    named: set[str] = set()
    for item in pending(state):
        named.add(item.path.name)
        if isinstance(item, Journal):
            named.update(p.name for p in item.side_files)
    return sorted(state.journals / n for n in names if n not in named)
