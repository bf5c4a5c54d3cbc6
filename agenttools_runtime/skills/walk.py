"""The one walk of a skill directory: every entry once, with its :data:`Kind`; each caller
decides. The walk never raises for what it finds: building a skill refuses what cannot be
copied, hashing an installed copy counts it as a modification, the stat cache gives up, the
project check reports it — each in a few lines where it is decided.

Kinds come from the directory listing: a regular file or a directory costs no system call
beyond its directory's ``scandir``; only a symbolic link is resolved and looked at.
Version-control metadata (``.git``, ``.hg``, ``.svn`` in any case: ``.GIT`` is the same folder
on a case-insensitive file system) and junk directories are never walked into.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator
from operator import attrgetter
from pathlib import Path
from typing import Literal, NamedTuple

JUNK_FILES = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})
JUNK_DIRS = frozenset({"__pycache__"})
VCS_NAMES = frozenset({".git", ".hg", ".svn"})

Parts = tuple[str, ...]


# What an entry of a skill directory is (through its symbolic link, if it has one):
Kind = Literal[
    "file",  # a regular file
    "directory",  # walked into (through a link: only when links are followed)
    "other",  # a named pipe, socket or device: reading it blocks or never ends
    "vcs",  # version-control metadata, a file or a directory: never walked into
    "junk",  # .DS_Store, Thumbs.db, desktop.ini, __pycache__/: never walked into
    "outside",  # a link that leads outside the walked directory
    "dangling",  # a link that leads nowhere
    "into-vcs",  # a link that leads into version-control metadata (docs -> .git)
    "loop",  # a link to a directory that contains it: walking it would never end
    "unreadable",  # a directory that cannot be listed
]


class Entry(NamedTuple):
    """One entry of a walk: ``/``-separated *rel* from the walked directory, *path* as
    reached (through any links, unresolved), its *kind*, *link*: where a symbolic link of its
    own leads (resolved; None when it is no link), and its listing entry (None for a
    directory found unreadable)."""

    rel: str
    path: str
    kind: Kind
    link: Path | None
    dir_entry: os.DirEntry[str] | None

    def lstat(self) -> os.stat_result:
        """Its own ``stat`` (a link's, not its target's), from the listing where it has it."""
        if self.dir_entry is None:
            return os.lstat(self.path)
        return self.dir_entry.stat(follow_symlinks=False)


def walk(directory: Path | str, *, follow_links: bool = True) -> Iterator[Entry]:
    """Every entry under *directory*, depth first: each directory's entries by name, a
    subdirectory's right after it. A link to a directory inside it is walked into with
    *follow_links* (its entries under the link's name), else yielded as a ``"directory"``
    with its *link* and left."""
    top = os.fspath(directory)

    @functools.cache
    def real_top() -> Path:  # resolved at the first link: a tree without links needs none
        return Path(os.path.realpath(top))

    def inside(link: Path) -> Parts:
        return link.parts[len(real_top().parts) :]

    def classify(item: os.DirEntry[str], ancestors: tuple[Parts, ...]) -> tuple[Kind, Path | None]:
        name = item.name
        if name.casefold() in VCS_NAMES:
            return "vcs", None
        link = None
        if item.is_symlink():
            link = Path(os.path.realpath(item.path))
            if not (link == real_top() or real_top() in link.parents):
                return "outside", link
            try:
                item.stat()  # the target's, kept by the entry for is_dir and is_file below
            except OSError:
                return "dangling", link
            if any(part.casefold() in VCS_NAMES for part in inside(link)):
                return "into-vcs", link
        try:
            is_dir = item.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            if name in JUNK_DIRS:
                return "junk", link
            if link is not None and inside(link) in ancestors:
                return "loop", link
            return "directory", link
        if name in JUNK_FILES:
            return "junk", link
        return ("file" if item.is_file() else "other"), link

    def entries(current: str, prefix: str, ancestors: tuple[Parts, ...]) -> Iterator[Entry]:
        """*ancestors*: where *current* and the directories that contain it really are, as
        parts of a path from the real top (a link back to one of them is a loop)."""
        try:
            with os.scandir(current) as listing:
                items = sorted(listing, key=attrgetter("name"))
        except OSError:
            yield Entry(prefix[:-1], current, "unreadable", None, None)
            return
        for item in items:
            kind, link = classify(item, ancestors)
            rel = prefix + item.name
            yield Entry(rel, item.path, kind, link, item)
            if kind == "directory" and (link is None or follow_links):
                # below a real directory, an entry that is no link is itself real (no lookups)
                real = inside(link) if link else (*ancestors[-1], item.name)
                yield from entries(item.path, rel + "/", (*ancestors, real))

    yield from entries(top, "", ((),))
