"""Skills roots that several clients read: the facts about the other copies of a skill.

A client reads skills from more roots than the one agenttools writes for it (the client
table's ``skill_reads``). This module gathers, for one incoming skill, what is in those other
roots (:func:`other_copies`), and, for a copy a deployment creates, which other deployments'
clients read that root too and already have the skill from another one (:func:`seen_twice`).
What to do about them is decided in :mod:`agenttools_runtime.deploy.plan`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenttools_runtime import paths
from agenttools_runtime.deploy import registry
from agenttools_runtime.deploy.plan import CopyKind, CopyRole, OtherCopy
from agenttools_runtime.deploy.registry import RegistryEntry
from agenttools_runtime.deploy.store import Store
from agenttools_runtime.names import SKILL_FILE
from agenttools_runtime.skills.hashing import DestinationState, destination_state
from agenttools_runtime.skills.hashing import installed_hashes as hash_installed
from agenttools_runtime.skills.spec import SkillSource

# what a client sees in a root: a skill directory, or a link to one
_SEEN = (DestinationState.DIRECTORY, DestinationState.LINK)


@dataclass(frozen=True, slots=True)
class OtherCopyPlan:
    """Another copy and what it is to the deployment (see :class:`plan.CopyRole`)."""

    directory: Path
    facts: OtherCopy
    role: CopyRole

    def to_json(self) -> dict[str, Any]:
        return {
            "directory": str(self.directory),
            "kind": self.facts.kind.value,
            "identical": self.facts.identical,
            "role": self.role.value,
        }


def other_copies(
    source: SkillSource,
    own_root: Path,
    reads: Sequence[Path],
    replaced: Sequence[str],
    store: Store,
) -> list[tuple[Path, OtherCopy]]:
    """The copies of *source*'s name in the roots of *reads* other than *own_root*, in the
    client's order, each a skill directory and what is known of it. A root that is
    *own_root* through a link, a copy that is the own directory through a link, and
    anything that is no skill directory (no ``SKILL.md``, a file, a broken link) are not
    other copies."""
    name = source.name
    seen = {store.root(own_root).canonical}
    own_physical: str | None = None  # a realpath walk: only when a copy is there
    found: list[tuple[Path, OtherCopy]] = []
    for root in reads:
        keys = store.root(root)
        if keys.canonical in seen:
            continue
        seen.add(keys.canonical)
        directory = root / name
        state = destination_state(root, name)
        if state not in _SEEN or not (directory / SKILL_FILE).is_file():
            continue
        if own_physical is None:
            own_physical = os.path.realpath(own_root / name)
        if os.path.realpath(directory) == own_physical:
            continue
        entry = store.entry_at(root, name)
        kind = CopyKind.FOREIGN
        if entry is not None:
            kind = CopyKind.EXTERNAL if entry.external else CopyKind.OURS
        users = store.live_references(entry) if entry is not None else []
        facts = OtherCopy(
            kind,
            identical=_identical(source, entry, directory),
            directory=state is DestinationState.DIRECTORY,
            leaving=kind is CopyKind.OURS and all(r in replaced for r in users),
            held=any(r in replaced for r in users),
            same_source=(
                kind is CopyKind.OURS
                and entry is not None
                and source.identifier is not None
                and entry.identifier == source.identifier
            ),
        )
        found.append((directory, facts))
    return found


def _identical(source: SkillSource, entry: RegistryEntry | None, directory: Path) -> bool:
    """Whether *directory* holds exactly the incoming files (from the entry's stat cache
    when it can tell, else by hashing)."""
    manifest = dict(source.manifest)
    cached = entry is not None and dict(entry.hashes) == manifest
    if cached and entry is not None and registry.unmodified_by_stats(entry, directory):
        return True
    disk, clean = hash_installed(directory)
    return clean and disk == manifest


# -- a new copy, seen twice by another deployment's client ------------------------------------


@dataclass(frozen=True, slots=True)
class SeenTwice:
    """Deployment *uuid* of *client* uses *other*; the new copy *path* is in a root that
    client reads too."""

    client: str
    name: str
    path: Path
    other: Path
    uuid: str


def seen_twice(
    created: Sequence[Path],
    scope_reads: dict[str, tuple[Path, ...]],
    location_key: str,
    target_client: str,
    store: Store,
) -> Iterator[SeenTwice]:
    """For each skill directory in *created* (new copies): the other deployments (at the
    same location) whose client reads its root and uses a copy of that name in another
    root. *scope_reads* maps client ids to the roots each reads at this scope."""

    @functools.cache  # each other root listed once, not 50 lexists
    def listing(root: Path) -> frozenset[str]:
        """The names in *root* (folded where the platform's file systems ignore case)."""
        try:
            return frozenset(_folded(n) for n in os.listdir(root))
        except OSError:
            return frozenset()

    for path in created:
        root, name = path.parent, path.name
        root_key = store.root(root).canonical
        for client, reads in sorted(scope_reads.items()):
            if client == target_client:
                continue
            keys = [store.root(r).canonical for r in reads]
            if root_key not in keys:
                continue
            for other_root, other_key in zip(reads, keys, strict=True):
                if other_key == root_key:
                    continue
                if _folded(name) not in listing(other_root):
                    continue  # (the common case, decided without reading the registry)
                hit = _used_by(store, other_root, name, client, location_key)
                if hit is not None:
                    yield SeenTwice(client, name, path, other_root / name, hit)
                    break


def _folded(name: str) -> str:
    return name.casefold() if paths.case_insensitive_fs() else name


def _used_by(store: Store, root: Path, name: str, client: str, location_key: str) -> str | None:
    """A deployment of *client* at *location_key* that references the entry of
    ``root/name`` (its id), if there is one."""
    if not os.path.lexists(root / name):
        return None  # (the common case, decided without reading the registry)
    entry = store.entry_at(root, name)
    if entry is None:
        return None
    for uid in store.live_references(entry):
        record = store.record(uid)
        if record is not None and record.client == client and record.location_key == location_key:
            return uid
    return None
