"""What agenttools knows of an installed wheel's skill files: a stat cache that spares reading
them again to check them against their distribution's manifest.

:meth:`~agenttools_runtime.discovery.InstalledDistribution.verify_skill` hashes every file of
a skill and compares it with the manifest (16 MB for a bundle of 50 skills of 20 files: most of
what an identical redeploy costs). A file that matched is recorded here with its size, its
modification and change times and its inode; while all four are the same and the manifest
still gives the hash it matched, the file is the one verified, and is not read again. This is
the bet git's index makes (and the skill registry, for deployed copies), made stronger by the
change time, which no program sets back: every write to a file, and every ``utime`` that hides
one, changes it. What it cannot see is a change below the file system (a raw write to the
device, bit rot); such a file is caught the next time the cache does not hold it (a new
inode, a new install).

A file is recorded only once it has settled: when it last changed more than ``RACY_NS`` before
it was read (git's "racily clean" entries). A write in the same clock tick as the change
before it leaves the times as they were, so a stat taken right after a change cannot tell
that file from the next one; a settled file's next change gives it a later change time.

One JSON file per skill of a distribution under ``<state>/deployments/.verified/``, written
only where agenttools keeps state already (a ``list`` or ``show`` on a new machine creates no
state directory), in place and unsynced: it is a cache, and a torn or unreadable one is empty.
The first deploy on a machine, whose bundle was verified before there was a state directory,
records what it verified once it has made one (:func:`remember`).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from collections.abc import Mapping
from pathlib import Path

from agenttools_runtime import fs, paths

DIRECTORY = ".verified"  # in the deployments directory (paths.StatePaths.verified)
# a file that changed this close before it was read is not recorded: 2 s, the coarsest
# timestamps a file system keeps (FAT's)
RACY_NS = 2_000_000_000


class VerifiedFiles:
    """The verified files of skill *skill* of the distribution installed at *dist_info*:
    relative path -> ``[size, mtime_ns, ctime_ns, inode, sha256]``. *read_since_ns*: when the
    files :meth:`add` records were first looked at (default: now)."""

    def __init__(self, dist_info: Path, skill: str, read_since_ns: int | None = None) -> None:
        state = paths.state_paths()
        key = hashlib.sha256(f"{os.fspath(dist_info)}\0{skill}".encode()).hexdigest()[:32]
        self.path = os.path.join(state.verified, f"{key}.json")
        self.dist_info = os.fspath(dist_info)
        self.files: dict[str, list[object]] = {}
        self.changed = False
        since = time.time_ns() if read_since_ns is None else read_since_ns
        self.settled_before = since - RACY_NS
        try:
            with open(self.path, "rb") as f:
                data = json.loads(f.read())
            if isinstance(data, dict) and isinstance(data.get("files"), dict):
                self.files = data["files"]
        except (OSError, ValueError):
            pass  # none yet, or torn: nothing is known

    def holds(self, rel: str, info: os.stat_result, sha256: str) -> bool:
        """Whether *rel* was verified as having *sha256* and is, by its stat, that file."""
        return self.files.get(rel) == [*_stat_key(info), sha256]

    def add(self, rel: str, info: os.stat_result, sha256: str) -> None:
        """Record that *rel*, with this stat, was read and hashed to *sha256* — unless it
        changed too shortly before it was read to be told from its next change."""
        if max(info.st_mtime_ns, info.st_ctime_ns) >= self.settled_before:
            return
        if self.files.get(rel) != (held := [*_stat_key(info), sha256]):
            self.files[rel] = held
            self.changed = True

    def save(self) -> None:
        """Write what was added, where agenttools keeps state already; never fails (a cache
        that cannot be written is a cache that misses)."""
        path = Path(self.path)
        if not self.changed or not path.parent.parent.is_dir():
            return
        held = {"dist_info": self.dist_info, "files": self.files}
        data = json.dumps(held, separators=(",", ":")).encode("utf-8")
        try:
            fs.mkdir(path.parent, parents=False)
            fs.write_bytes(path, data)  # in place: no temp file a kill could leave behind
        except OSError:
            return
        self.changed = False


def remember(
    dist_info: Path, skill: str, directory: Path, files: Mapping[str, str], read_since_ns: int
) -> None:
    """Record *files* (relative path -> the hash they were verified to have) of *skill* in
    *directory*, verified by reads that started at *read_since_ns* when there was no state
    directory to record them in. A file is recorded only when it is a regular file that has
    not changed since before then: the file that was read."""
    known = VerifiedFiles(dist_info, skill, read_since_ns)
    base = os.fspath(directory) + os.sep
    for rel, sha256 in files.items():
        try:
            info = os.lstat(base + rel.replace("/", os.sep))  # (strings: a Path per file costs)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode):
            known.add(rel, info, sha256)
    known.save()


def _stat_key(info: os.stat_result) -> list[int]:
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


def stale_files(deployments: Path) -> list[Path]:
    """The cache files under *deployments* of distributions no longer installed where they
    were (or that do not say where: written before they did), for ``doctor --fix`` to delete:
    uninstalling a distribution does not ask agenttools, so nothing else forgets them. Deleting
    one costs at most one more read of the files it held."""
    directory = paths.state_paths(deployments).verified
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".json"))
    except OSError:
        return []
    stale = []
    for name in names:
        try:
            with open(directory / name, "rb") as f:
                data = json.loads(f.read())
            dist_info = data.get("dist_info") if isinstance(data, dict) else None
        except (OSError, ValueError):
            dist_info = None  # torn or unreadable: holds nothing a read would not redo
        if not isinstance(dist_info, str) or not os.path.isdir(dist_info):
            stale.append(directory / name)
    return stale
