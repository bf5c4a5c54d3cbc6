"""The skills of an installed distribution as its wheel put them into the ``.dist-info``:
each file checked against the manifest's hash before it is used, reached without a symbolic
link. ``agenttools show`` lists them from here; a deploy gets them through
:mod:`agenttools_runtime.skill_sources` (which also reads the live sources of editable
installs).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path

from agenttools_runtime import regular_files
from agenttools_runtime.discovery import InstalledDistribution
from agenttools_runtime.errors import (
    BundledFileMismatch,
    BundledFileMissing,
    BundledFileNotRegular,
    InvalidManifest,
)
from agenttools_runtime.names import SKILL_FILE
from agenttools_runtime.skills.hashing import hash_bytes
from agenttools_runtime.skills.spec import SkillSource
from agenttools_runtime.verified import VerifiedFiles
from agenttools_runtime.wheel import layout
from agenttools_runtime.wheel.manifest import SkillEntry


def is_wheel_copy(dist: InstalledDistribution, name: str) -> bool:
    """Whether skill *name* of *dist* is used from the wheel's copy (every skill but the
    directory skills of an editable install, which are used from the live source tree).
    Raises the distribution's problem or ``DistributionSkillNotFound``."""
    return dist.skill_directory(name) == dist.skills_dir / name


def wheel_skill_source(dist: InstalledDistribution, name: str) -> SkillSource:
    """The source of skill *name* from the wheel's copy, verified against the manifest's
    hashes (``BundledFileMissing`` / ``BundledFileMismatch`` naming the file): identifier
    ``"<dist>/<name>"``, version = the distribution's, the bytes read kept for the deploy.
    Raises ``DistributionSkillNotFound``."""
    entry = dist.skill_entry(name)
    directory = dist.skills_dir / name
    contents: dict[str, bytes] = {}
    files = verify_skill(dist, name, contents)
    return SkillSource(
        name=name,
        description=entry.description,
        identifier=f"{dist.name}/{name}",
        version=dist.version,
        files=_WheelFiles(directory, files),
        manifest=dict(files),
        directory=directory,
        executable=frozenset(entry.executable),
        contents=contents,
    )


def verify_skill(
    dist: InstalledDistribution, name: str, contents: dict[str, bytes] | None = None
) -> dict[str, str]:
    """Check the wheel's copy of skill *name* against the manifest; return its sorted
    manifest (relative path → hash). Only the listed files are read, and only as regular
    files reached without a symbolic link (``BundledFileNotRegular``): a link planted in
    the ``.dist-info`` is never followed. Files not in the manifest are never used.

    *contents* keeps the bytes of the files it had to read (those the cache of verified
    files does not hold): a deploy writes them as read, the one read of a file never
    verified before (not one to hash, one to copy)."""
    entry = dist.skill_entry(name)
    if SKILL_FILE not in entry.files:
        raise InvalidManifest(
            distribution=dist.display_name, reason=f'skill "{name}" lists no SKILL.md'
        )
    # a file verified before and unchanged since (by its stat) is not read again: see
    # agenttools_runtime/verified.py for the trade-off
    known = VerifiedFiles(dist.dist_info, name)
    real_directories: set[str] = set()
    try:
        for rel, expected in entry.files.items():
            path, info = _regular_file(dist, entry, rel, real_directories)
            if not known.holds(rel, info, expected):
                # the file just looked at
                data = _checked_bytes(dist, entry, rel, path, info.st_size)
                known.add(rel, info, expected)
                if contents is not None:
                    contents[rel] = data
    finally:
        known.save()
    return dict(sorted(entry.files.items()))


def read_skill_file(dist: InstalledDistribution, name: str, rel: str) -> bytes:
    """One listed file (*rel*, ``/``-separated) of the wheel's copy of skill *name*,
    verified as :meth:`verify_skill` does."""
    entry = dist.skill_entry(name)
    path, info = _regular_file(dist, entry, rel, set())
    return _checked_bytes(dist, entry, rel, path, info.st_size)


def _checked_bytes(
    dist: InstalledDistribution, entry: SkillEntry, rel: str, path: str, size: int
) -> bytes:
    """The bytes of *rel* at *path* (found a regular file reached without a link, of
    *size* bytes by its ``lstat``), checked against the manifest's hash;
    ``BundledFileMissing`` if it is gone or unreadable since."""
    try:
        # O_NOFOLLOW: a link swapped in since the lstat is refused, not followed;
        # O_NONBLOCK: a pipe swapped in does not hang the open (it reads as no bytes)
        fd = os.open(path, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK | _O_BINARY)
        try:
            data = regular_files.read_all(fd, size)
        finally:
            os.close(fd)
    except OSError as exc:  # gone, or unreadable: either way not what was installed
        raise BundledFileMissing(path=Path(path), distribution=dist.display_name) from exc
    if rel not in entry.files or hash_bytes(data) != entry.files[rel]:
        raise BundledFileMismatch(path=Path(path), distribution=dist.display_name)
    return data


def _regular_file(
    dist: InstalledDistribution, entry: SkillEntry, rel: str, real_directories: set[str]
) -> tuple[str, os.stat_result]:
    """The path and stat of *rel* of skill *entry*, a regular file reached without a
    symbolic link; ``BundledFileMissing`` / ``BundledFileNotRegular`` otherwise."""
    rel_path = f"{layout.SKILLS_DIR}/{entry.name}/{rel}"
    path, info = _without_links(dist.dist_info, rel_path, real_directories)
    if info is None:
        raise BundledFileMissing(path=Path(path), distribution=dist.display_name)
    if not stat.S_ISREG(info.st_mode):
        raise BundledFileNotRegular(path=Path(path), distribution=dist.display_name)
    return path, info


# -- files of the wheel's copy -----------------------------------------------------------------


class _WheelFiles(Mapping[str, Path]):
    """The files of a wheel's skill: ``/``-separated relative path → its path under
    *directory*, each made when it is looked up (a deploy looks up none: it writes the bytes
    it verified; a ``Path`` for each of a thousand files was a twentieth of its own work)."""

    __slots__ = ("_directory", "_rels")

    def __init__(self, directory: Path, rels: Mapping[str, str]) -> None:
        self._directory = directory
        self._rels = rels

    def __getitem__(self, rel: str) -> Path:
        if rel not in self._rels:
            raise KeyError(rel)
        return self._directory.joinpath(*rel.split("/"))

    def __iter__(self) -> Iterator[str]:
        return iter(self._rels)

    def __len__(self) -> int:
        return len(self._rels)

    def __repr__(self) -> str:
        return repr(dict(self))


_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_BINARY = getattr(os, "O_BINARY", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def _without_links(
    base: Path, rel: str, real_directories: set[str]
) -> tuple[str, os.stat_result | None]:
    """``base/rel`` and its ``lstat`` when every component of *rel* is reached from *base*
    without a symbolic link; else the first link and its ``lstat`` (not a regular file); a
    missing component: the whole path and None. Directories found real are added to
    *real_directories*, and those already in it are not looked at again (the files of one
    skill share their directories: a strings walk, a fifth of the ``lstat`` calls)."""
    parts = rel.split("/")
    path = os.fspath(base)
    info = None
    for index, part in enumerate(parts):
        path = f"{path}{os.sep}{part}"
        last = index == len(parts) - 1
        if not last and path in real_directories:
            continue
        try:
            info = os.lstat(path)
        except OSError:
            return os.path.join(base, *parts), None
        if stat.S_ISLNK(info.st_mode):
            return path, info
        if not last and stat.S_ISDIR(info.st_mode):
            real_directories.add(path)
    return path, info  # a string: a Path per file is a tenth of a fresh deploy's own work
