"""What must hold of agenttools' state after any command, crashed or not: records, registry,
index, skill directories and config entries agree, and nothing of an interrupted operation
is left lying around. Used by the crash, signal, concurrency and stateful tests and by
``benchmarks/reliability.py``; each function returns the problems it found (empty: fine)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from agenttools_runtime import paths
from agenttools_runtime.clients import get_client
from agenttools_runtime.deploy import index, records
from agenttools_runtime.mcp.install import read_server_entries
from agenttools_runtime.skills import fsops
from tests.helpers.state import iter_entries


def inconsistencies(state_dir: Path) -> list[str]:
    """Records ⇔ registry ⇔ index ⇔ skill directories ⇔ config entries."""
    state = paths.state_paths(state_dir / "deployments")
    found: list[str] = []
    if state.journals.exists() and any(state.journals.iterdir()):
        found.append(f"unfinished journals: {sorted(p.name for p in state.journals.iterdir())}")
    all_records = records.load_records(state.deployments)
    uuids = {r.uuid for r in all_records}
    entries = {e.key: e for e in iter_entries(state)}
    for record in all_records:
        for skill in record.installed:
            entry = entries.get(skill.registry_key)
            if entry is None:
                found.append(f"{record.uuid}: skill {skill.name} has no registry entry")
            elif record.uuid not in entry.references:
                found.append(f"{record.uuid}: entry of {skill.name} does not reference it")
        for server in record.mcp_servers:
            try:
                present = read_server_entries(Path(server.config_file), get_client(record.client))
            except Exception as exc:
                found.append(f"{record.uuid}: cannot read {server.config_file}: {exc}")
                continue
            if server.config_key not in present:
                found.append(f"{record.uuid}: config entry {server.config_key} is missing")
    for entry in entries.values():
        stale = [r for r in entry.references if r not in uuids]
        if stale:
            found.append(f"entry {entry.name}: references without a record {stale}")
        if not entry.references and not entry.external:
            found.append(f"entry {entry.name}: no references")
        if not os.path.lexists(entry.directory):
            found.append(f"entry {entry.name}: directory {entry.directory} is missing")
    # the index as the next operation sees it (a stored one whose stamp says it is stale is
    # validated or rebuilt first) must say what the files say
    loaded, fresh = index.load(state), index.rebuild(state)
    if (loaded.skills, loaded.records) != (fresh.skills, fresh.records):
        found.append("the state index does not match the entries and records")
    return found


def orphans(*roots: Path) -> list[str]:
    """Anything an interrupted operation may leave: backups, staging directories, temp files
    of atomic writes, unpublished records. (Not the backups kept on purpose of what a forced
    deploy replaced that was the user's: they are the user's.)"""
    found: list[str] = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                if name.startswith(fsops.KEPT_BACKUP_PREFIX):
                    dirnames[:] = [d for d in dirnames if d != name]
                    continue
                if ".agenttools-" in name or name.startswith(records.STAGING_PREFIX):
                    found.append(os.path.join(dirpath, name))
    return sorted(found)


def untracked_skills(
    roots: Iterable[Path], state_dir: Path, users: Iterable[str] = ()
) -> list[str]:
    """Skill directories in *roots* that no registry entry holds and no user put there."""
    state = paths.state_paths(state_dir / "deployments")
    tracked = {os.path.realpath(e.directory) for e in iter_entries(state)}
    mine = set(users)
    found: list[str] = []
    for root in roots:
        if not root.is_dir():
            continue
        for child in sorted(root.iterdir()):
            if child.name.startswith(".") or child.name in mine:
                continue
            if os.path.realpath(child) not in tracked:
                found.append(str(child))
    return found


def snapshot(*roots: Path) -> dict[str, object]:
    """Every entry under *roots*: files as bytes and mode, links as their target, dirs."""
    out: dict[str, object] = {}
    for root in roots:
        if not os.path.lexists(root):
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            for name in dirnames + filenames:
                path = Path(dirpath) / name
                if path.is_symlink():
                    out[str(path)] = ("link", os.readlink(path))
                elif path.is_dir():
                    out[str(path)] = "dir"
                else:
                    out[str(path)] = (path.read_bytes(), os.stat(path).st_mode & 0o777)
    return out
