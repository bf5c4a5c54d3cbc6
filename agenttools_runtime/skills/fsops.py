"""Creating, replacing and removing skill directories inside a skills root.

Every mutation goes through :mod:`agenttools_runtime.fs`. The operations return *pending*
results, so a caller that changes several skills (``install_skills``, the deploy engine) can
keep every backup until its whole step has succeeded and undo everything otherwise:

``write_skill(root, source) -> WriteOutcome``
    Put *source* at ``root/<source.name>``. The new directory is built complete in a staging
    directory ``.agenttools-staging-<uuid>`` beside the skills root (same volume, outside the
    root so no client sees it as a skill; inside the root when the root is a mount point of
    its own or its parent is not writable), then renamed into place, so ``root/<name>`` is
    always either absent, the old entry, or the whole new directory — never half written.
    Whatever was there (directory, file, link, dangling link) is first moved, as itself, to a
    backup ``.agenttools-backup-<uuid>`` in the same place. On failure the staging directory
    is deleted, the backup moved back, and ``AgentSkillWriteFailed`` raised. On success the
    backup is kept until the outcome is settled: ``outcome.commit()`` deletes it,
    ``outcome.rollback()`` deletes the new directory and moves the backup back.
    The staging and backup names may be chosen by the caller beforehand (an intent journal
    records them before anything is written; :func:`temp_locations` says where such a name
    can be).
    A file that is executable in the source or starts with ``#!`` is made executable.
    If the source directory *is* the destination (same canonical path) nothing is written
    (``action == "unchanged"``); a source inside the destination or the destination inside
    the source raises ``InvalidAgentSkill``.

``stage_removal(root, name) -> Removal``
    Move ``root/name`` (as itself: a link is moved as a link, its target untouched) to a
    backup. ``removal.commit()`` deletes the backup (warning ``AgentSkillBackupNotRemoved`` if
    it cannot be deleted completely); ``removal.rollback()`` moves it back. When the move
    fails nothing is deleted and ``AgentSkillRemoveFailed`` is raised.

``same_as_source(path, source)`` and ``check_file_paths(source)`` are the checks a write
makes first; callers run them in a preflight before writing anything.

Nothing here decides *whether* to write or remove (states, overwrite rules, registries): that
is the caller's job. Names must already be validated (``names.check_skill_name``).
"""

from __future__ import annotations

import errno
import os
import stat
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agenttools_runtime import fs, paths, regular_files
from agenttools_runtime.errors import (
    AgentSkillBackupNotRemoved,
    AgentSkillRemoveFailed,
    AgentSkillWriteFailed,
    InvalidAgentSkill,
)
from agenttools_runtime.paths import canonical_path, canonical_path_key, case_insensitive_fs
from agenttools_runtime.project_paths import is_skill_file_path
from agenttools_runtime.skills.spec import SkillSource

WriteAction = Literal["created", "replaced", "unchanged"]

BACKUP_PREFIX = f"{fs.TEMP_MARK}backup-"
# a backup kept on purpose: what a forced deploy replaced that was the user's, which the
# registry entry of the skill written there names and its last release puts back
KEPT_BACKUP_PREFIX = f"{BACKUP_PREFIX}replaced-"
STAGING_PREFIX = f"{fs.TEMP_MARK}staging-"


class AlreadySettled(RuntimeError):
    """``commit()`` or ``rollback()`` called on an outcome that was already settled."""


@dataclass(slots=True)
class WriteOutcome:
    """The result of writing one skill directory: pending until ``commit()``/``rollback()``.

    ``backup`` is the path what was at ``path`` before was moved to (``None`` unless replaced).
    """

    name: str
    path: Path
    action: WriteAction
    backup: Path | None = None
    settled: bool = field(default=False, compare=False)

    def commit(self) -> None:
        """Keep the new directory; delete the backup (a warning if that fails)."""
        self._settle()
        if self.backup is not None:
            _delete_backup(self.name, self.backup)

    def rollback(self) -> None:
        """Undo: delete what was written and move the previous entry back.

        ``OSError`` propagates if the filesystem refuses; the backup is then left in place.
        """
        self._settle()
        if self.action == "unchanged":
            return
        _remove_if_present(self.path)
        if self.backup is not None:
            fs.rename(self.backup, self.path)

    def _settle(self) -> None:
        if self.settled:
            raise AlreadySettled(f"the write of {self.path} was already committed or rolled back")
        self.settled = True


@dataclass(slots=True)
class Removal:
    """A skill entry moved to ``backup``: pending until ``commit()``/``rollback()``."""

    name: str
    path: Path
    backup: Path
    settled: bool = field(default=False, compare=False)

    def commit(self) -> None:
        """Delete the backup (warning ``AgentSkillBackupNotRemoved`` if that fails)."""
        self._settle()
        _delete_backup(self.name, self.backup)

    def rollback(self) -> None:
        """Move the entry back to where it was."""
        self._settle()
        fs.rename(self.backup, self.path)

    def _settle(self) -> None:
        if self.settled:
            raise AlreadySettled(f"the removal of {self.path} was already committed or rolled back")
        self.settled = True


# -- writing ---------------------------------------------------------------------------------


def write_skill(
    root: Path,
    source: SkillSource,
    *,
    staging_name: str | None = None,
    backup_name: str | None = None,
    real_root: Path | None = None,
) -> WriteOutcome:
    """Create or replace ``root/<source.name>`` with *source* (see the module docstring).

    Raises ``InvalidAgentSkill`` (source and destination nest, unsafe file paths) or
    ``AgentSkillWriteFailed`` (after restoring what was there).
    """
    path = root / source.name
    if same_as_source(path, source, real_root):
        return WriteOutcome(source.name, path, "unchanged")
    check_file_paths(source)
    replacing = os.path.lexists(path)
    real_root = canonical_path(root) if real_root is None else real_root
    try:
        fs.mkdir(root, parents=True, exist_ok=True)
        staging = _make_staging_dir(root, staging_name or new_staging_name(), real_root)
    except OSError as exc:
        raise AgentSkillWriteFailed(name=source.name, path=path, reason=_reason(exc)) from exc
    backup: Path | None = None
    try:
        _build_into(staging, source)
        if replacing:
            backup = move_to_backup(root, path, backup_name or new_backup_name(), real_root)
        fs.rename(staging, path)
    except BaseException as exc:
        _remove_if_present(staging)
        if backup is not None:
            fs.rename(backup, path)
        if isinstance(exc, OSError):
            raise AgentSkillWriteFailed(name=source.name, path=path, reason=_reason(exc)) from exc
        raise
    action: WriteAction = "created" if backup is None else "replaced"
    return WriteOutcome(source.name, path, action, backup)


def new_staging_name() -> str:
    return f"{STAGING_PREFIX}{os.urandom(16).hex()}"  # not uuid: its import costs a deploy ~2 ms


def new_backup_name() -> str:
    return f"{BACKUP_PREFIX}{os.urandom(16).hex()}"


def temp_locations(root: Path, name: str, real_root: Path | None = None) -> tuple[Path, Path]:
    """The two places a staging or backup entry *name* of skills root *root* can be: beside
    the real root, or inside it (when the root is a mount point or its parent not ours).
    *real_root* is ``canonical_path(root)``, when the caller has it already."""
    real = canonical_path(root) if real_root is None else real_root
    return real.parent / name, real / name


def find_temp(root: Path, name: str) -> Path | None:
    """Where the staging or backup entry *name* of *root* is (:func:`temp_locations`), if
    anywhere."""
    return next((p for p in temp_locations(root, name) if os.path.lexists(p)), None)


def _make_staging_dir(root: Path, name: str, real_root: Path) -> Path:
    outside, inside = temp_locations(root, name, real_root)
    if _same_device(outside.parent, inside.parent):
        try:
            fs.mkdir(outside, parents=False, exist_ok=False)
            return outside
        except OSError as exc:
            if exc.errno not in _BACKUP_FALLBACK_ERRNOS:
                raise
    fs.mkdir(inside, parents=False, exist_ok=False)
    return inside


def _same_device(a: Path, b: Path) -> bool:
    try:
        return os.stat(a).st_dev == os.stat(b).st_dev
    except OSError:
        return False


def _build_into(path: Path, source: SkillSource) -> None:
    # strings, not a Path per file: path objects were a tenth of a fresh deploy's own work
    base = os.fspath(path)
    made: set[str] = set()
    posix = os.name == "posix"
    for rel in sorted(source.files):
        destination = os.path.join(base, *rel.split("/"))
        parent_rel = rel.rpartition("/")[0]
        if parent_rel and parent_rel not in made:
            fs.mkdir(Path(os.path.dirname(destination)), parents=True, exist_ok=True)
            made.add(parent_rel)
        # the source is read once: its bytes are written and say whether it starts with #!
        # (a wheel's file hashed when the source was resolved: those bytes, not a second read)
        data = source.contents.get(rel)
        if data is None:
            content = source.files[rel]
            data = (
                content.encode("utf-8")
                if isinstance(content, str)
                else regular_files.read_bytes(content)
            )
        fs.write_bytes(destination, data)
        if posix and (rel in source.executable or data.startswith(b"#!")):
            mode = stat.S_IMODE(os.stat(destination).st_mode)
            # x wherever r is set, like chmod +x under a usual umask
            fs.chmod(destination, mode | ((mode & 0o444) >> 2))


# -- removing --------------------------------------------------------------------------------


def stage_removal(root: Path, name: str, *, backup_name: str | None = None) -> Removal:
    """Move ``root/name`` (as itself) to a backup; settle with ``commit``/``rollback``.

    Raises ``FileNotFoundError`` when nothing is there and ``AgentSkillRemoveFailed`` when
    the move fails (then nothing was changed).
    """
    path = root / name
    if not os.path.lexists(path):
        raise FileNotFoundError(str(path))
    try:
        backup = move_to_backup(root, path, backup_name or new_backup_name())
    except OSError as exc:
        raise AgentSkillRemoveFailed(name=name, path=path, reason=_reason(exc)) from exc
    return Removal(name, path, backup)


def remove_skill(root: Path, name: str, *, backup_name: str | None = None) -> Removal:
    """Remove ``root/name`` as itself: move it to a backup, then delete the backup."""
    removal = stage_removal(root, name, backup_name=backup_name)
    removal.commit()
    return removal


# -- skills roots ----------------------------------------------------------------------------


def ensure_root(root: Path) -> list[Path]:
    """Create *root* (and missing parents); return the directories created, outermost first."""
    created = paths.missing_dirs(root)
    fs.mkdir(root, parents=True, exist_ok=True)
    return created


def remove_created_dirs(created: Sequence[Path]) -> None:
    """Remove directories that :func:`ensure_root` created, innermost first, while empty."""
    for directory in reversed(created):
        try:
            if directory.is_symlink() or any(directory.iterdir()):
                return
        except OSError:
            return
        fs.rmtree(directory)


# -- helpers ---------------------------------------------------------------------------------


def _child_key(path: Path, real_parent: Path | None) -> str:
    """``canonical_path_key(path)``, from *real_parent* (its parent's canonical path) unless
    *path* is a link: one ``realpath`` walk less per skill written."""
    try:
        is_link = stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        is_link = False  # missing: canonical as its parent is, joined with its name
    if real_parent is None or is_link or path.name in ("", ".."):
        return canonical_path_key(path)
    text = (real_parent / path.name).as_posix()
    return text.casefold() if case_insensitive_fs() else text


def same_as_source(path: Path, source: SkillSource, real_root: Path | None = None) -> bool:
    """True when *source* is the directory at *path* (same canonical path): nothing to write.
    *real_root*: ``canonical_path(path.parent)``, when the caller has it.

    Raises ``InvalidAgentSkill`` when one contains the other.
    """
    if source.directory is None:
        return False
    source_key = canonical_path_key(source.directory)
    destination_key = _child_key(path, real_root)
    if source_key == destination_key:
        return True
    if _is_under(source_key, destination_key) or _is_under(destination_key, source_key):
        raise InvalidAgentSkill(
            reason=f"the source {source.directory} and the destination {path} contain each other",
            source=source.directory,
            destination=path,
        )
    return False


def _is_under(key: str, parent_key: str) -> bool:
    return key.startswith(parent_key.rstrip("/") + "/")


def check_file_paths(source: SkillSource) -> None:
    """Raise ``InvalidAgentSkill`` for a file path that could leave the skill directory."""
    # Sources built from wheel manifests are data from elsewhere: no path may leave the skill.
    for rel in source.files:
        if not is_skill_file_path(rel):  # the rule of the manifest reader and the checks
            raise InvalidAgentSkill(
                reason=f'the file path "{rel}" of skill "{source.name}" is unsafe'
            )


# A rename into the root's parent fails with these when the root is a mount point of its
# own (EXDEV: a container volume, a bind mount) or its parent is not ours to write.
_BACKUP_FALLBACK_ERRNOS = frozenset({errno.EXDEV, errno.EACCES, errno.EPERM, errno.EROFS})


def move_to_backup(root: Path, path: Path, backup_name: str, real_root: Path | None = None) -> Path:
    """Move ``root/<name>`` (as itself) to the backup *backup_name* and return its path.

    The backup goes next to the *real* root (so the rename stays on one volume even when the
    root is reached through a link, and no client lists it as a skill). When that rename is
    refused because the parent is another volume or not writable, it goes into the root
    itself as a dot-entry, which is always on the same volume; if that fails too, the first
    error is raised (nothing moved).
    """
    outside, inside = temp_locations(root, backup_name, real_root)
    try:
        fs.rename(path, outside)
        return outside
    except OSError as exc:
        if exc.errno not in _BACKUP_FALLBACK_ERRNOS:
            raise
        try:
            fs.rename(path, inside)
        except OSError:
            raise exc from None
        return inside


def stale_backups(root: Path) -> list[Path]:
    """The ``.agenttools-backup-*`` entries next to *root* (its real location) and inside it.

    A backup exists only while a write or removal is in progress; one found otherwise is
    what an interrupted operation (a killed process, a power cut) left behind: the skill
    directory it was replacing or removing. Callers report them; they cannot tell which
    skill each was, or whether the interrupted operation was meant to remove it. Kept
    backups (:data:`KEPT_BACKUP_PREFIX`, see :func:`kept_backups`) are not among them.
    """
    return [p for p in _temp_entries(root, BACKUP_PREFIX) if not _is_kept(p)]


def kept_backups(root: Path) -> list[Path]:
    """The backups kept beside *root* of what forced deploys replaced (the user's)."""
    return [p for p in _temp_entries(root, BACKUP_PREFIX) if _is_kept(p)]


def _is_kept(path: Path) -> bool:
    return path.name.startswith(KEPT_BACKUP_PREFIX)


def stale_staging(root: Path) -> list[Path]:
    """The ``.agenttools-staging-*`` directories next to *root* and inside it: copies an
    interrupted write was building (never anyone's only copy of anything)."""
    return _temp_entries(root, STAGING_PREFIX)


def remove_stale_staging(root: Path) -> None:
    """Delete what :func:`stale_staging` finds (call under the state lock, where no write is
    in progress). Failures are left for next time."""
    for path in stale_staging(root):
        try:
            fs.remove_entry(path)
        except OSError:
            continue


def _temp_entries(root: Path, prefix: str) -> list[Path]:
    real_root = canonical_path(root)
    found: list[Path] = []
    for directory in (real_root.parent, real_root):
        try:
            found += [
                directory / entry for entry in os.listdir(directory) if entry.startswith(prefix)
            ]
        except OSError:
            continue
    return sorted(found)


def _remove_if_present(path: Path) -> None:
    if os.path.lexists(path):
        fs.remove_entry(path)


def _delete_backup(name: str, backup: Path) -> None:
    try:
        fs.remove_entry(backup)
    except OSError:
        warnings.warn(
            AgentSkillBackupNotRemoved(name=name, backup=backup),
            stacklevel=3,
        )


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)
