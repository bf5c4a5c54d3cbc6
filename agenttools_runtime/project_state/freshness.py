"""Whether a project's sync has anything to do, answered from the facts alone — the lock is
the one this machine last applied, every deployment that sync made is still recorded, and
every skill file the lock lists is what it records, every config file holding its entries is
byte for byte what that sync left — and what a sync reports.

This is the path of ``sync`` with nothing to do (a git hook's): it reads ``agenttools.toml``
as TOML (its fingerprint, no validation), the lock, this machine's record of the project and
the files, and imports neither the deploy engine nor the config formats.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttools_runtime import paths, regular_files
from agenttools_runtime.errors import AgentToolsError, AgentToolsWarning
from agenttools_runtime.project_state import lockfile, machine, rawfile
from agenttools_runtime.project_state.filecheck import Checked, check_files, config_digests
from agenttools_runtime.project_state.lockfile import LOCK_FILE, Lock


@dataclass(frozen=True, slots=True)
class Action:
    """What a sync did (or would do) for one deployment: ``deployed``, ``up to date``,
    ``removed`` (``would …`` in a dry run), with the deployment's UUID."""

    identity: str
    action: str
    uuid: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"deployment": self.identity, "action": self.action, "uuid": self.uuid}


@dataclass(slots=True)
class SyncReport:
    """A sync's result: the lock (``lock_action``: ``up to date``, ``written``, ``would
    write``), every action, the warnings, and what verify finds afterwards."""

    lock: Lock
    lock_action: str
    actions: list[Action] = field(default_factory=list)
    warnings: list[AgentToolsWarning] = field(default_factory=list)
    checked: Checked | None = None

    @property
    def ok(self) -> bool:
        return self.checked is None or self.checked.ok


def up_to_date(project_file: Path, *, frozen: bool = False) -> SyncReport | None:
    """The report of a sync of the project of *project_file* with nothing to do, else None
    (then the sync runs; it also reports every problem this does not look at). *frozen*:
    the lock is taken as it is (``agenttools.toml`` not read)."""
    root = project_file.parent
    path = root / LOCK_FILE
    try:
        data = regular_files.read_bytes(path)
        lock = lockfile.loads_bytes(data, path)
        if not frozen and lock.input != rawfile.fingerprint(rawfile.read(project_file)[1]):
            return None
    except (OSError, ValueError, AgentToolsError):
        return None  # (the sync runs, and says what is wrong)
    record = machine.read(root)
    if record.lock_sha256 != hashlib.sha256(data).hexdigest():
        return None
    if set(record.deployments) != {d.identity for d in lock.deployments}:
        return None
    deployments = paths.deployments_dir()
    if not all((deployments / uid).is_dir() for uid in record.deployments.values()):
        return None
    checked = checked_by_record(root, lock, record)
    if checked is None:
        return None
    ordered = sorted(lock.deployments, key=lambda d: (d.bundle, d.client, d.scope))
    actions = [Action(d.identity, "up to date", record.deployments[d.identity]) for d in ordered]
    return SyncReport(lock, "up to date", actions, checked=checked)


def checked_by_record(root: Path, lock: Lock, record: machine.ProjectRecord) -> Checked | None:
    """What verify finds, known without parsing a config file: every skill file the lock
    lists hashed against it, and every config file holding its entries byte for byte what
    this machine's last verified sync of this lock left (*record*, whose ``lock_sha256`` the
    caller matched). None when a file differs (then the entries themselves are checked)."""
    if config_digests(root, lock) != dict(record.config_files):
        return None
    hashes: dict[str, str | None] = {}
    project = [d for d in lock.deployments if d.scope == "project"]
    if any(check_files(root, d, hashes) for d in project):
        return None
    files = sum(len(d.files) for d in project)
    entries = sum(len(d.entries) for d in project)
    return Checked((), len(lock.deployments), files, entries)
