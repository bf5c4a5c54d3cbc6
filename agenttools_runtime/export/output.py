"""The files an export writes (:class:`Tree`) and how they reach the output directory without
losing anything of the user's.

Bytes are deterministic: JSON with sorted keys, two-space indent, UTF-8, one final newline; no
timestamps anywhere, so the same bundle exported twice gives the same bytes.

A new (or empty) directory is built beside its final place and renamed into it: it appears
whole or not at all. Into an existing directory (a repository that publishes a marketplace,
an earlier export of a plugin) only the tree's files are written, each atomically, and
``.agenttools-export.json`` records them with their hashes: the next export replaces and
removes what the last one wrote and nobody changed since. Any other file in the way — one
this export did not write, or one changed since it did, or a symbolic link on the way to one
— stops the export before anything is written (``ExportOutputConflict``), unless *force*.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from hashlib import sha256
from pathlib import Path
from typing import Any

from agenttools_runtime import errors, fs
from agenttools_runtime.project_paths import is_skill_file_path

RECORD = ".agenttools-export.json"
FILE_MODE = 0o644
EXECUTABLE_MODE = 0o755


@dataclass(frozen=True, slots=True)
class OutputFile:
    data: bytes
    executable: bool = False


@dataclass(frozen=True, slots=True)
class Tree:
    """What one export writes: ``/``-separated relative paths → files, and the documents
    that were validated (path → JSON value), which a marketplace takes from its plugins."""

    files: Mapping[str, OutputFile]
    documents: Mapping[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True, slots=True)
class WriteResult:
    """What :func:`write_tree` did: the files it wrote (new or changed), left as they were,
    and removed (written by the previous export, no longer part of this one)."""

    directory: Path
    written: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "directory": str(self.directory),
            "written": list(self.written),
            "unchanged": list(self.unchanged),
            "removed": list(self.removed),
        }


def json_bytes(value: Any) -> bytes:
    """The canonical bytes of a JSON document of an export."""
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def tree_of(documents: Mapping[str, Any], files: Mapping[str, OutputFile]) -> Tree:
    """The tree of the validated *documents* (path → JSON value, each written as
    :func:`json_bytes`) and the other *files*."""
    written = {path: OutputFile(json_bytes(value)) for path, value in documents.items()}
    return Tree({**files, **written}, dict(documents))


def write_tree(tree: Tree, directory: Path, *, force: bool = False) -> WriteResult:
    """Write *tree* into *directory* (see the module docstring). Raises
    ``ExportOutputConflict`` listing every path in the way (nothing written), and
    ``OSError`` from the file system."""
    directory = Path(os.path.abspath(directory))
    if os.path.lexists(directory) and not directory.is_dir():
        raise errors.ExportOutputConflict(directory=directory, paths=[str(directory)])
    if not directory.exists() or not any(directory.iterdir()):
        return _write_new(tree, directory)
    previous = _previous_record(directory)
    written, unchanged, conflicts = [], [], []
    for rel, file in sorted(tree.files.items()):
        state = _state(directory, rel, file, previous)
        if state == "same":
            unchanged.append(rel)
        elif state in ("new", "ours"):
            written.append(rel)
        else:
            conflicts.append(rel)
            written.append(rel)
    if conflicts and not force:
        raise errors.ExportOutputConflict(directory=directory, paths=conflicts)
    stale = [
        rel
        for rel, digest in sorted(previous.items())
        if rel not in tree.files
        and _real_parents(directory, rel)
        and _digest_of(directory.joinpath(*rel.split("/"))) == digest
    ]
    for rel in written:
        _write(directory, rel, tree.files[rel])
    for rel in stale:
        fs.unlink(directory.joinpath(*rel.split("/")))
        _remove_empty_parents(directory, rel)
    record = _record_bytes(tree)
    record_path = directory / RECORD
    if _digest_of(record_path) != sha256(record).hexdigest():
        fs.write_bytes_atomic(record_path, record, FILE_MODE)
    return WriteResult(directory, tuple(written), tuple(unchanged), tuple(stale))


# -- helpers ------------------------------------------------------------------------------------
def _write_new(tree: Tree, directory: Path) -> WriteResult:
    """Build the directory beside its final place, then rename it in."""
    fs.mkdir(directory.parent)
    staging = fs.staging_path(directory)
    fs.mkdir(staging, parents=False, exist_ok=False)
    try:
        for rel, file in sorted(tree.files.items()):
            _write(staging, rel, file, durable=False)
        fs.write_bytes_atomic(staging / RECORD, _record_bytes(tree), FILE_MODE, durable=False)
        os.chmod(staging, 0o755)
        if directory.is_dir():  # empty (checked): replaced by the staged one
            fs.rmdir(directory)
        fs.rename(staging, directory)
    except BaseException:
        if staging.exists():
            fs.rmtree(staging)
        raise
    fs.sync_directory(directory.parent)
    return WriteResult(directory, tuple(sorted(tree.files)))


def _write(root: Path, rel: str, file: OutputFile, *, durable: bool = True) -> None:
    parts = rel.split("/")
    current = root
    for index, part in enumerate(parts):  # (forced: a link, file or directory in the way)
        current = current / part
        last = index == len(parts) - 1
        if os.path.lexists(current) and (
            current.is_symlink() or (current.is_dir() if last else not current.is_dir())
        ):
            fs.remove_entry(current)
    path = root.joinpath(*parts)
    fs.mkdir(path.parent)
    mode = EXECUTABLE_MODE if file.executable else FILE_MODE
    fs.write_bytes_atomic(path, file.data, mode, durable=durable)


def _real_parents(directory: Path, rel: str) -> bool:
    """Whether every directory on the way to *rel* is a real directory (no link)."""
    current = directory
    for part in rel.split("/")[:-1]:
        current = current / part
        try:
            if not stat.S_ISDIR(os.lstat(current).st_mode):
                return False
        except OSError:
            return False
    return True


def _state(directory: Path, rel: str, file: OutputFile, previous: Mapping[str, str]) -> str:
    """``new`` (nothing there), ``same`` (these bytes and mode), ``ours`` (what the previous
    export wrote, unchanged since) or ``conflict``."""
    parts = rel.split("/")
    current = directory
    for part in parts[:-1]:  # every directory on the way: real, never a link
        current = current / part
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return "new"
        if not stat.S_ISDIR(info.st_mode):
            return "conflict"
    path = current / parts[-1]
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return "new"
    if not stat.S_ISREG(info.st_mode):
        return "conflict"
    digest = _digest_of(path)
    executable = bool(info.st_mode & stat.S_IXUSR)
    if digest == sha256(file.data).hexdigest() and executable == file.executable:
        return "same"
    return "ours" if previous.get(rel) == digest else "conflict"


def _digest_of(path: Path) -> str | None:
    """The SHA-256 of the regular file at *path* (reached without a link), else None."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None
        return sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _record_bytes(tree: Tree) -> bytes:
    files = {rel: sha256(file.data).hexdigest() for rel, file in tree.files.items()}
    return json_bytes({"written-by": "agenttools export", "files": files})


def _previous_record(directory: Path) -> dict[str, str]:
    """The files the previous export wrote, by path, checked before they are trusted: a
    record that is not what :func:`_record_bytes` writes counts as none (then nothing is
    replaced or removed without *force*)."""
    path = directory / RECORD
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode) or os.lstat(path).st_size > 10_000_000:
            return {}
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    files = value.get("files") if isinstance(value, dict) else None
    if not isinstance(files, dict):
        return {}
    return {
        rel: digest
        for rel, digest in files.items()
        if isinstance(rel, str)
        and is_skill_file_path(rel)
        and isinstance(digest, str)
        and len(digest) == 64
        and rel != RECORD
    }


def _remove_empty_parents(directory: Path, rel: str) -> None:
    parent = directory.joinpath(*rel.split("/")).parent
    while parent != directory:
        try:
            fs.rmdir(parent)
        except OSError:  # not empty: someone's files, or the export's own
            return
        parent = parent.parent
