"""Applying a deployment's changes with an undo log.

Every change the apply step makes is recorded as an undo action *before* the change, so a
failure at any point — an exception from a writer, an injected ``OSError``, a
``KeyboardInterrupt`` — is undone in reverse order:

- config files are restored from their raw-byte snapshot only if their current hash still
  equals the hash after our last write (someone else's later change is left alone, with an
  ``MCPServerNotRemoved`` warning naming the key that remains);
- skill directories are restored from their backups (replacements move the old entry to
  ``<root's parent>/.agenttools-backup-<uuid>`` and keep it until :meth:`UndoLog.commit`);
- registry entries and other small files are restored from their byte snapshots;
- directories the step created are removed again when they are empty.

Every mutation goes through :mod:`agenttools_runtime.fs`.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agenttools_runtime import fs
from agenttools_runtime.errors import AgentToolsWarning, MCPServerNotRemoved
from agenttools_runtime.skills import fsops
from agenttools_runtime.skills.fsops import WriteOutcome
from agenttools_runtime.skills.source import SkillSource

UndoAction = Callable[[], None]


def file_digest(path: Path) -> str | None:
    """SHA-256 of a file's raw bytes, None when it does not exist."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


def read_snapshot(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


@dataclass
class UndoLog:
    """Undo actions in the order the changes were made; :meth:`rollback` runs them in
    reverse, :meth:`commit` drops them and deletes the backups kept for them."""

    actions: list[tuple[str, UndoAction]] = field(default_factory=list)
    pending: list[WriteOutcome] = field(default_factory=list)
    warnings: list[AgentToolsWarning] = field(default_factory=list)

    def push(self, description: str, action: UndoAction) -> None:
        self.actions.append((description, action))

    # -- recorded changes --------------------------------------------------------------

    def make_dirs(self, directory: Path) -> None:
        """``mkdir -p`` that removes, on rollback, each directory it created (if empty)."""
        missing: list[Path] = []
        current = directory
        while not os.path.lexists(current):
            missing.append(current)
            if current.parent == current:
                break
            current = current.parent
        for path in reversed(missing):
            self.push(f"remove directory {path}", _rmdir_if_empty(path))
            fs.mkdir(path, parents=False)

    def write_file(self, path: Path, data: bytes) -> None:
        """Write a small file atomically; rollback restores the previous bytes (or removes
        it)."""
        before = read_snapshot(path)
        self.make_dirs(path.parent)
        self.push(f"restore {path}", _restore_bytes(path, before))
        fs.write_bytes_atomic(path, data)

    def edit_config(self, config_file: Path, key: str, edit: Callable[[], object]) -> None:
        """Run *edit* (a config writer call) with a snapshot of *config_file*; rollback
        restores the snapshot only while the file still has the bytes we left."""
        before = read_snapshot(config_file)
        state: dict[str, str | None] = {"after": None}

        before_digest = None if before is None else hashlib.sha256(before).hexdigest()

        def undo() -> None:
            current = file_digest(config_file)
            if current == before_digest:
                return  # the writer changed nothing
            if current == state["after"]:
                _restore_bytes(config_file, before)()
            else:  # changed by someone else since our write: leave it, say what remains
                self.warnings.append(MCPServerNotRemoved(key=key, config_file=config_file))

        self.make_dirs(config_file.parent)
        self.push(f"restore {config_file}", undo)
        try:
            edit()
        finally:
            state["after"] = file_digest(config_file)

    def write_skill(self, root: Path, source: SkillSource) -> WriteOutcome:
        """Create or replace ``root/<name>`` (:func:`fsops.write_skill`); a replaced entry
        stays in its backup until :meth:`commit`, rollback puts it back."""
        self.make_dirs(root)
        outcome = fsops.write_skill(root, source)
        self.push(f"undo write of {outcome.path}", outcome.rollback)
        self.pending.append(outcome)
        return outcome

    # -- outcome ---------------------------------------------------------------------------

    def rollback(self) -> list[BaseException]:
        """Undo every change, newest first. Undo failures are collected, not raised, so one
        failure never stops the rest of the rollback."""
        errors: list[BaseException] = []
        while self.actions:
            _description, action = self.actions.pop()
            try:
                action()
            except Exception as exc:  # keep undoing the rest
                errors.append(exc)
        self.pending.clear()
        for warning in self.warnings:
            warnings.warn(warning, stacklevel=3)
        return errors

    def commit(self) -> list[AgentToolsWarning]:
        """Forget the undo actions and delete the backups of replaced skill directories; a
        backup that cannot be deleted is reported (``AgentSkillBackupNotRemoved``), never
        fatal. Returns the warnings (for the caller to issue)."""
        self.actions.clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", AgentToolsWarning)
            for outcome in self.pending:
                try:
                    outcome.commit()
                except OSError:
                    pass  # reported by fsops as AgentSkillBackupNotRemoved
        self.pending.clear()
        return [w.message for w in caught if isinstance(w.message, AgentToolsWarning)]


def _restore_bytes(path: Path, data: bytes | None) -> UndoAction:
    def undo() -> None:
        if data is None:
            if os.path.lexists(path):
                fs.unlink(path)
        else:
            fs.write_bytes_atomic(path, data)

    return undo


def _rmdir_if_empty(path: Path) -> UndoAction:
    def undo() -> None:
        if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
            fs.rmtree(path)

    return undo
