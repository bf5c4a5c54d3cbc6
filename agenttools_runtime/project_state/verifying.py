"""``agenttools verify`` inside a project: every config entry and skill file the lock lists is
what it records. A teammate's own entries in the same shared file are theirs and not checked;
a file in a deployed skill folder that the lock does not list is a finding (the folder is
the deployment's).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agenttools_runtime import clients
from agenttools_runtime.errors import ConfigFileError
from agenttools_runtime.mcp.entries import container_for
from agenttools_runtime.mcp.formats import read_entries
from agenttools_runtime.project_state.filecheck import (
    MISSING,
    MODIFIED,
    UNREADABLE,
    Checked,
    Finding,
    check_files,
)
from agenttools_runtime.project_state.lockfile import Lock, LockedDeployment, entry_digest


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
        findings += check_files(root, d, hashes)
        findings += _entries(root, d)
    return Checked(tuple(findings), len(lock.deployments), files, entries)


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
        if present is None:
            found.append(Finding(item.file, UNREADABLE, d.identity, item.key))
        elif item.key not in present:
            found.append(Finding(item.file, MISSING, d.identity, item.key))
        elif entry_digest(present[item.key]) != item.sha256:
            line = _line_of(root / item.file, item.key)  # (read again only for a finding)
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
