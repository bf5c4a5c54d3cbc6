"""``agenttools verify`` inside a project: every config entry and skill file the lock lists is
what it records. A teammate's own entries in the same shared file are theirs and not checked;
a file in a deployed skill folder that the lock does not list is a finding (the folder is
the deployment's).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenttools_runtime import clients
from agenttools_runtime.errors import ConfigFileError
from agenttools_runtime.mcp.entries import container_for
from agenttools_runtime.mcp.formats import read_entries
from agenttools_runtime.project_state.lockfile import Lock, LockedDeployment, entry_digest
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
    findings: tuple[Finding, ...]
    deployments: int
    files: int
    entries: int

    @property
    def ok(self) -> bool:
        return not self.findings


def verify_project(root: Path, lock: Lock) -> Checked:
    """Check every project-scope file and entry *lock* lists under *root* (one read each)."""
    findings: list[Finding] = []
    files = entries = 0
    hashes: dict[str, str | None] = {}  # (a file two deployments list is read once)
    for d in lock.deployments:
        if d.scope != "project":
            continue
        files += len(d.files)
        entries += len(d.entries)
        findings += _files(root, d, hashes)
        findings += _entries(root, d)
    return Checked(tuple(findings), len(lock.deployments), files, entries)


def github_annotations(findings: tuple[Finding, ...]) -> str:
    """GitHub Actions workflow commands: one ``::error`` per finding, on its file and line."""
    return "\n".join(
        f"::error file={f.path},line={f.line},title=agenttools verify::{_escape(f.message)}"
        for f in findings
    )


def _files(root: Path, d: LockedDeployment, hashes: dict[str, str | None]) -> list[Finding]:
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


def _entries(root: Path, d: LockedDeployment) -> list[Finding]:
    if not d.entries:
        return []
    client = clients.get_client(d.client)
    found: list[Finding] = []
    by_file: dict[str, dict[str, Any] | None] = {}
    for item in d.entries:
        if item.file not in by_file:
            try:
                config = root / item.file
                by_file[item.file] = read_entries(
                    config, client.config_format, container_for(client, config)
                )
            except (ConfigFileError, OSError):
                by_file[item.file] = None
        present = by_file[item.file]
        line = _line_of(root / item.file, item.key)
        if present is None:
            found.append(Finding(item.file, UNREADABLE, d.identity, item.key))
        elif item.key not in present:
            found.append(Finding(item.file, MISSING, d.identity, item.key))
        elif entry_digest(present[item.key]) != item.sha256:
            found.append(Finding(item.file, MODIFIED, d.identity, item.key, line))
    return found


def _line_of(path: Path, key: str) -> int:
    """The first line that names *key* (for an annotation), else 1."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 1
    for number, line in enumerate(text.splitlines(), 1):
        if f'"{key}"' in line or f".{key}]" in line or line.strip().startswith(f"{key}:"):
            return number
    return 1


def _escape(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
