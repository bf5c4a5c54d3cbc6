"""A project's skill files against its lock: each file the lock lists hashed once and
compared with the digest it records, and the files in a deployed skill folder that it does not
list — and the :class:`Finding` and :class:`Checked` every check of a project reports. (Config entries are
:mod:`agenttools_runtime.project_state.verifying`'s: they need the config formats.)"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenttools_runtime.project_state.lockfile import Lock, LockedDeployment
from agenttools_runtime.regular_files import read_bytes
from agenttools_runtime.skills.hashing import hash_bytes
from agenttools_runtime.skills.walk import walk

MODIFIED, MISSING, UNEXPECTED, UNREADABLE = "modified", "missing", "not in the lock", "unreadable"


@dataclass(frozen=True, slots=True)
class Finding:
    """One file or entry that is not what the lock records: its path (relative to the
    project), the config key for an entry, what is wrong, the deployment, and the line to
    annotate."""

    path: str
    problem: str
    deployment: str
    key: str | None = None
    line: int = 1

    @property
    def message(self) -> str:
        what = f'the MCP entry "{self.key}" in {self.path}' if self.key else self.path
        return {
            MODIFIED: f"{what} differs from what agenttools.lock records",
            MISSING: f"{what} is missing",
            UNEXPECTED: f"{what} is in a deployed skill folder but not in agenttools.lock",
            UNREADABLE: f"{what} cannot be read",
        }[self.problem] + f" ({self.deployment})"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "key": self.key,
            "problem": self.problem,
            "line": self.line,
            "deployment": self.deployment,
            "message": self.message,
        }


@dataclass(frozen=True, slots=True)
class Checked:
    """What a check of a project found, and how much it checked."""

    findings: tuple[Finding, ...]
    deployments: int
    files: int
    entries: int

    @property
    def ok(self) -> bool:
        return not self.findings


def check_files(root: Path, d: LockedDeployment, hashes: dict[str, str | None]) -> list[Finding]:
    """The findings of *d*'s skill files under *root*; *hashes* holds what was read already
    (a file two deployments list is read once)."""
    found: list[Finding] = []
    base = os.fspath(root)
    for item in d.files:
        if item.path not in hashes:
            try:
                hashes[item.path] = hash_bytes(read_bytes(os.path.join(base, item.path)))
            except FileNotFoundError:
                hashes[item.path] = None
            except OSError:
                hashes[item.path] = ""
        digest = hashes[item.path]
        if digest is None:
            found.append(Finding(item.path, MISSING, d.identity))
        elif digest == "":
            found.append(Finding(item.path, UNREADABLE, d.identity))
        elif digest != item.sha256:
            found.append(Finding(item.path, MODIFIED, d.identity))
    listed = {f.path for f in d.files}
    for folder in skill_folders(d):
        for rel in _walk(base, folder):
            if rel not in listed:
                found.append(Finding(rel, UNEXPECTED, d.identity))
    return found


def skill_folders(d: LockedDeployment) -> list[str]:
    """The skill folders *d* writes, from the lock alone: every folder whose ``SKILL.md``
    it lists, but those inside another (a skill's own files may hold one), sorted."""
    tops = sorted(f.path[: -len("/SKILL.md")] for f in d.files if f.path.endswith("/SKILL.md"))
    folders: list[str] = []
    for folder in tops:
        if not any(folder.startswith(outer + "/") for outer in folders):
            folders.append(folder)
    return folders


def _walk(base: str, folder: str) -> list[str]:
    """Every entry under *base*/*folder* but the directories walked into (junk skipped, links
    not followed, version-control metadata one entry), relative to *base* with ``/``, sorted."""
    return sorted(
        f"{folder}/{entry.rel}"
        for entry in walk(os.path.join(base, folder), follow_links=False)
        if entry.kind not in ("junk", "unreadable")
        and not (entry.kind == "directory" and entry.link is None)
    )


def config_digests(root: Path, lock: Lock) -> dict[str, str | None]:
    """The SHA-256 of the bytes of every project config file *lock* writes entries into
    (None: missing or unreadable): what a machine records after a sync it verified, so that
    the next one knows those entries unchanged without parsing the files."""
    found: dict[str, str | None] = {}
    for d in lock.deployments:
        if d.scope != "project":
            continue
        for entry in d.entries:
            if entry.file not in found:
                found[entry.file] = file_sha256(root / entry.file)
    return found


def file_sha256(path: Path) -> str | None:
    """The SHA-256 of the bytes of the file at *path* (None: missing or unreadable)."""
    try:
        return hashlib.sha256(read_bytes(path)).hexdigest()
    except OSError:
        return None
