"""Reference counting: which deployments use which managed environment (a deployment uses the
environment its distribution was found in: the record's ``dist_info`` and ``environment``
paths), and the removal of environments that none uses — "removed with the last of them".

A record that cannot be read counts as using every environment its text names, so that an
environment is never deleted under a deployment agenttools cannot read.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenttools_runtime import fs, regular_files
from agenttools_runtime.envs import journal, layout
from agenttools_runtime.envs.envlock import (
    environments_lock,
    environments_lock_held,
    try_environments_lock,
)
from agenttools_runtime.envs.layout import TRASH_PREFIX, environment_of, envs_dir
from agenttools_runtime.errors import ManagedEnvironmentKept, ManagedEnvironmentRemoved


@dataclass(frozen=True, slots=True)
class References:
    """Who uses which environment: ``users[name]`` the deployment ids; ``unreadable`` the
    text of every record that cannot be read."""

    users: Mapping[str, list[str]]
    unreadable: list[str]

    def of(self, name: str) -> list[str]:
        return list(self.users.get(name, ()))

    def used(self, name: str) -> bool:
        return bool(self.users.get(name)) or any(name in text for text in self.unreadable)


def environment_of_record(agent_tools: Mapping[str, Any]) -> str | None:
    """The managed environment a record's bundle came from (None: another environment)."""
    environment = agent_tools.get("environment") or {}
    places = [
        agent_tools.get("dist_info"),
        *(environment.get("paths") or ()),
        environment.get("python"),
    ]
    for place in places:
        name = environment_of(place) if isinstance(place, str) else None
        if name is not None:
            return name
    return None


def references() -> References:
    from agenttools_runtime.deploy import records

    users: dict[str, list[str]] = {}
    unreadable: list[str] = []
    for item in records.iter_records():
        if isinstance(item, records.DeploymentRecord):
            name = environment_of_record(item.agent_tools)
            if name is not None:
                users.setdefault(name, []).append(item.uuid)
        else:
            try:
                record = regular_files.read_bytes(item.path)
                unreadable.append(record.decode("utf-8", "replace"))
            except OSError:
                unreadable.append("")  # (a record not even readable as text: names nothing)
    return References(users, unreadable)


def release_record(
    agent_tools: Mapping[str, Any],
) -> list[ManagedEnvironmentRemoved | ManagedEnvironmentKept]:
    """After a deployment was removed: its managed environment goes when no other deployment
    uses it (what ``remove`` and ``sync --prune`` say)."""
    name = environment_of_record(agent_tools)
    return [] if name is None else release_unused([name])


def remove_environment(path: Path) -> None:
    """Delete the environment at *path*: renamed into the trash first (one atomic step: a
    half-deleted environment is never taken for one), then deleted."""
    trash = path.parent / f"{TRASH_PREFIX}{path.name}-{os.getpid()}-{os.urandom(4).hex()}"
    fs.rename(path, trash)
    fs.checkpoint("envs.remove", path)
    fs.rmtree(trash)


def empty_trash() -> None:
    """Delete what an interrupted removal left in the trash."""
    for entry in layout.trash_entries():
        with contextlib.suppress(OSError):
            fs.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else fs.unlink(entry)


def release_unused(
    names: Iterable[str], *, reason: str = "no deployment uses it any more"
) -> list[ManagedEnvironmentRemoved | ManagedEnvironmentKept]:
    """Remove those of the environments *names* that no deployment uses; one warning each
    (``ManagedEnvironmentRemoved``; ``ManagedEnvironmentKept`` when another agenttools
    process holds the environments lock and the state lock is held here: the next command
    removes it). Call it with the state lock released where possible."""
    wanted = sorted(set(names))
    if not wanted:
        return []
    from agenttools_runtime.lock import lock_held

    if lock_held():  # (the environments lock is never waited for under the state lock)
        with try_environments_lock() as taken:
            if not taken:
                return _kept_all(wanted)
            return _release(wanted, reason)
    with environments_lock():
        return _release(wanted, reason)


def _kept_all(names: list[str]) -> list[ManagedEnvironmentRemoved | ManagedEnvironmentKept]:
    if environments_lock_held():  # this process's own install in progress: it decides
        return []
    return [
        ManagedEnvironmentKept(
            name=n, reason="another install is running; the next command removes it"
        )
        for n in names
    ]


def _release(
    names: list[str], reason: str
) -> list[ManagedEnvironmentRemoved | ManagedEnvironmentKept]:
    refs = references()
    busy = journal.busy()
    said: list[ManagedEnvironmentRemoved | ManagedEnvironmentKept] = []
    for name in names:
        path = envs_dir() / name
        if refs.used(name) or name in busy or not path.is_dir():
            continue
        remove_environment(path)
        said.append(ManagedEnvironmentRemoved(name=name, reason=reason))
    return said
