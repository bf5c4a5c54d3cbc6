"""A project's skill files against its lock: each file the lock lists hashed once and
compared with the digest it records, and the files in a deployed skill folder that it does not
list — and the :class:`Finding` and :class:`Checked` every check of a project reports. (Config entries are
:mod:`agenttools_runtime.project_state.verifying`'s: they need the config formats.)"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenttools_runtime import clients
from agenttools_runtime.project_state.lockfile import Lock, LockedDeployment
from agenttools_runtime.skills.hashing import hash_file, is_junk

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
        return {"path": self.path, "key": self.key, "problem": self.problem, "line": self.line,
                "deployment": self.deployment, "message": self.message}  # fmt: skip


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
    listed = {f.path for f in d.files}
    for item in d.files:
        if item.path not in hashes:
            try:
                hashes[item.path] = hash_file(root / item.path)
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
    for folder in sorted(_skill_folders(root, d)):
        for path in sorted(_walk(root / folder)):
            rel = path.relative_to(root).as_posix()
            if rel not in listed:
                found.append(Finding(rel, UNEXPECTED, d.identity))
    return found


def _skill_folders(root: Path, d: LockedDeployment) -> set[str]:
    """The skill folders of *d*: under the client's project skills root, each file's first
    directory."""
    c = clients.get_client(d.client)
    if c.project_skills is None:
        return set()
    base = clients.project_skills_location(c, root).relative_to(root).as_posix() + "/"
    return {base + f.path[len(base) :].split("/", 1)[0] for f in d.files if f.path.startswith(base)}


def _walk(folder: Path) -> list[Path]:
    found: list[Path] = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return found
    for entry in entries:
        if is_junk(entry.name, entry.is_dir()):
            continue
        if entry.is_dir() and not entry.is_symlink():
            found += _walk(entry)
        else:
            found.append(entry)
    return found


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
                try:
                    found[entry.file] = hashlib.sha256((root / entry.file).read_bytes()).hexdigest()
                except OSError:
                    found[entry.file] = None
    return found
