"""The skill registry: reference counts for skill directories that deployments installed.

One JSON file per installed skill directory, ``<state>/deployments/.skill-registry/<key>.json``,
keyed by :func:`agenttools_runtime.paths.registry_key` (SHA-256 of the canonical skills root
plus the skill name). An entry holds the baseline hashes (what agenttools last wrote), whether
the directory is *external* (it existed before any deployment referenced it; never deleted),
and the UUIDs of the deployments that reference it.

A reference is stale when its deployment record is gone (see
:func:`agenttools_runtime.deploy.records.is_stale`). Stale references are pruned only under
the deployment lock: by :func:`sweep` at the start of every deploy and removal, when the
install decision computes live references, and on :func:`release`.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agenttools_runtime import fs, paths
from agenttools_runtime.deploy import plan, records
from agenttools_runtime.errors import (
    AgentSkillInUse,
    AgentSkillNotRemoved,
    AgentSkillRemoveFailed,
    AgentSkillRemoveFailedWarning,
    AgentSkillReplacedNotRemoved,
    AgentToolsWarning,
)
from agenttools_runtime.skills import fsops
from agenttools_runtime.skills.hashing import (
    DestinationState,
    DirectoryState,
    destination_state,
    directory_state,
)

ENTRY_SCHEMA = 1


@dataclass(frozen=True)
class RegistryEntry:
    """One installed skill directory. ``directory`` is the path as installed (not
    case-folded); ``hashes`` the baseline manifest; ``extra`` unknown fields, kept."""

    key: str
    directory: str
    name: str
    identifier: str | None = None
    version: str | None = None
    hashes: Mapping[str, str] = field(default_factory=dict)
    external: bool = False
    references: tuple[str, ...] = ()
    timestamp: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return Path(self.directory)

    @property
    def root(self) -> Path:
        return Path(self.directory).parent

    def with_reference(self, uid: str) -> RegistryEntry:
        refs = self.references if uid in self.references else (*self.references, uid)
        return replace(self, references=refs, timestamp=records.now_timestamp())

    def to_json(self) -> dict[str, Any]:
        data = dict(self.extra)
        data.update(
            {
                "schema": ENTRY_SCHEMA,
                "registry_key": self.key,
                "directory": self.directory,
                "name": self.name,
                "identifier": self.identifier,
                "version": self.version,
                "hashes": dict(sorted(self.hashes.items())),
                "external": self.external,
                "references": list(self.references),
                "timestamp": self.timestamp,
            }
        )
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RegistryEntry:
        known = {"schema", "registry_key", "directory", "name", "identifier", "version",
                 "hashes", "external", "references", "timestamp"}  # fmt: skip
        return cls(
            key=str(data["registry_key"]),
            directory=str(data["directory"]),
            name=str(data["name"]),
            identifier=data.get("identifier"),
            version=data.get("version"),
            hashes={str(k): str(v) for k, v in dict(data.get("hashes") or {}).items()},
            external=bool(data.get("external", False)),
            references=tuple(str(r) for r in data.get("references") or ()),
            timestamp=str(data.get("timestamp", "")),
            extra={k: v for k, v in data.items() if k not in known},
        )


def registry_dir() -> Path:
    return paths.skill_registry_dir()


def entry_path(key: str) -> Path:
    return registry_dir() / f"{key}.json"


def encode(entry: RegistryEntry) -> bytes:
    return (json.dumps(entry.to_json(), indent=2, sort_keys=True) + "\n").encode("utf-8")


def load_entry(key: str) -> RegistryEntry | None:
    """The entry for *key*; None when there is none or it cannot be read (an unreadable
    entry is skipped, never overwritten by the sweep)."""
    path = entry_path(key)
    try:
        return RegistryEntry.from_json(json.loads(path.read_text("utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def entry_exists(key: str) -> bool:
    return entry_path(key).is_file()


def iter_entries() -> Iterator[RegistryEntry]:
    try:
        names = sorted(os.listdir(registry_dir()))
    except FileNotFoundError:
        return
    for name in names:
        if name.endswith(".json") and not name.startswith("."):
            entry = load_entry(name[: -len(".json")])
            if entry is not None:
                yield entry


def find_entry(skills_root: Path, name: str, key: str) -> RegistryEntry | None:
    """By key, failing that by skill directory: an entry whose directory is the same skill
    of the same (link-resolved) skills root. A per-skill link is a different directory."""
    entry = load_entry(key)
    if entry is not None:
        return entry
    wanted = paths.canonical_path_key(skills_root) + "/" + name
    for candidate in iter_entries():
        if candidate.name != name:
            continue
        if paths.canonical_path_key(candidate.root) + "/" + candidate.name == wanted:
            return candidate
    return None


def find_physical_entry(directory: Path) -> RegistryEntry | None:
    """An entry whose directory is *directory* once every link is resolved."""
    physical = os.path.realpath(directory)
    for candidate in iter_entries():
        if os.path.realpath(candidate.directory) == physical:
            return candidate
    return None


def save_entry(entry: RegistryEntry) -> None:
    path = entry_path(entry.key)
    fs.mkdir(path.parent)
    fs.write_bytes_atomic(path, encode(entry))


def delete_entry(key: str) -> None:
    fs.unlink(entry_path(key), missing_ok=True)


def live_references(
    entry: RegistryEntry, exclude: Sequence[str] = (), deployments: Path | None = None
) -> tuple[str, ...]:
    """*entry*'s references that are not stale and not in *exclude*."""
    return tuple(
        r for r in entry.references if r not in exclude and not records.is_stale(r, deployments)
    )


# -- release and sweep -----------------------------------------------------------------------


@dataclass(frozen=True)
class ReleaseOutcome:
    """What happened to one skill directory on release."""

    name: str
    directory: str
    state: plan.ReleaseState
    removed: bool
    warning: AgentToolsWarning | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "directory": self.directory,
            "state": self.state.value,
            "removed": self.removed,
            "warning": None if self.warning is None else self.warning.to_json(),
        }


def release(key: str, uid: str | None, *, issue: bool = True) -> ReleaseOutcome | None:
    """The release decision for deployment *uid*'s reference to entry *key* (None: only
    prune stale references, as the sweep does). Returns None when there is no entry (the
    directory is left alone). Warnings are issued with ``warnings.warn`` when *issue*, and
    returned in the outcome either way."""
    entry = load_entry(key)
    if entry is None or (uid is not None and uid not in entry.references):
        return None  # no entry: leave the directory alone; already released: nothing to do
    remaining = live_references(entry, exclude=() if uid is None else (uid,))
    path = entry.path
    destination = destination_state(entry.root, entry.name)
    unmodified = (
        destination is DestinationState.DIRECTORY
        and directory_state(path, entry.hashes) is DirectoryState.UNMODIFIED
    )
    state = plan.release_state(bool(remaining), entry.external, destination, unmodified)
    action = plan.RELEASE_RULES[state]
    removed = False
    warning: AgentToolsWarning | None = None
    if state is plan.ReleaseState.IN_USE:
        if remaining != entry.references:
            save_entry(replace(entry, references=remaining, timestamp=records.now_timestamp()))
        warning = AgentSkillInUse(name=entry.name, path=path)
    elif action.remove_directory:
        if _physical_directory_in_use(entry):
            # another entry reaches the same physical directory and still needs it: keep
            # ours without references; a later sweep releases it once the others are gone
            if entry.references:
                save_entry(replace(entry, references=(), timestamp=records.now_timestamp()))
        else:
            try:
                fsops.remove_skill(entry.root, entry.name)
            except (AgentSkillRemoveFailed, OSError) as exc:
                if entry.references:
                    save_entry(replace(entry, references=(), timestamp=records.now_timestamp()))
                warning = AgentSkillRemoveFailedWarning(name=entry.name, path=path, reason=exc)
            else:
                removed = True
                delete_entry(entry.key)
    else:
        delete_entry(entry.key)
        warning = _release_warning(action.warning, entry)
    if warning is not None and issue:
        warnings.warn(warning, stacklevel=2)
    return ReleaseOutcome(entry.name, entry.directory, state, removed, warning)


def drop_reference(key: str, uid: str) -> None:
    """Remove *uid* from entry *key* without any release decision (the directory is
    referenced by the deployment that replaces *uid*)."""
    entry = load_entry(key)
    if entry is None or uid not in entry.references:
        return
    refs = tuple(r for r in entry.references if r != uid)
    save_entry(replace(entry, references=refs, timestamp=records.now_timestamp()))


def sweep(issue: bool = True) -> list[ReleaseOutcome]:
    """Prune stale references from every entry; an entry left without references goes
    through the release decision. Entries that cannot be read or processed are skipped."""
    outcomes: list[ReleaseOutcome] = []
    for entry in list(iter_entries()):
        remaining = live_references(entry)
        if remaining and remaining == entry.references:
            continue
        try:
            if remaining:
                save_entry(replace(entry, references=remaining))
                continue
            outcome = release(entry.key, None, issue=issue)
        except OSError:
            continue  # the sweep skips what it cannot process; the next one retries
        if outcome is not None:
            outcomes.append(outcome)
    return outcomes


def uninstall_hint(root: Path, name: str) -> str:
    """The command that force-removes a kept skill directory (the low-level uninstall, which
    removes it whether or not it was modified)."""
    return f'agenttools skills uninstall "{root}" {name}'


def _release_warning(tag: str | None, entry: RegistryEntry) -> AgentToolsWarning | None:
    if tag == "AgentSkillNotRemoved":
        hint = uninstall_hint(entry.root, entry.name)
        return AgentSkillNotRemoved(name=entry.name, path=entry.path, command=hint)
    if tag == "AgentSkillReplacedNotRemoved":
        return AgentSkillReplacedNotRemoved(name=entry.name, path=entry.path)
    return None


def _physical_directory_in_use(entry: RegistryEntry) -> bool:
    physical = os.path.realpath(entry.directory)
    for other in iter_entries():
        if other.key == entry.key:
            continue
        if os.path.realpath(other.directory) != physical:
            continue
        if other.external or live_references(other):
            return True
    return False
