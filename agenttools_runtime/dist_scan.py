"""The scan of a search path for installed distributions' metadata directories, on strings.

Every ``*.dist-info`` (and ``*.egg-info``) directory of every path entry, in path order, the
first occurrence of a (PEP 503-normalized) name winning, as ``importlib.metadata`` sees them;
zip files on the path are looked into. ``discovery.py`` builds its distributions from it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass


def canonical_dist_name(name: str) -> str:
    """PEP 503 normalization, ``My_Pkg`` → ``my-pkg``: exactly what
    ``packaging.utils.canonicalize_name`` returns (a test holds them equal), without importing
    packaging, which would cost ``list`` a quarter of its start-up time."""
    value = name.lower().replace("_", "-").replace(".", "-")
    while "--" in value:
        value = value.replace("--", "-")
    return value


@dataclass(frozen=True, slots=True)
class Entry:
    """One first-occurring ``*.dist-info`` (or ``*.egg-info``) of the scan."""

    key: str
    version: str
    dist_info: str
    zip_file: str | None = None
    is_egg: bool = False


def iter_dist_infos(paths: Iterable[str | os.PathLike[str]], only: str | None) -> Iterator[Entry]:
    seen: set[str] = set()
    visited: set[str] = set()
    for path in paths:
        directory = os.fspath(path)
        if directory in visited:
            continue
        visited.add(directory)
        try:
            listing = os.scandir(directory)
        except NotADirectoryError:
            yield from iter_zip(directory, seen, only)
            continue
        except OSError:
            continue
        with listing:
            names = [e.name for e in listing]
        prefix = directory if directory.endswith(("/", os.sep)) else directory + os.sep
        # one directory holding two versions of a name (an interrupted upgrade) is ambiguous
        # for importlib too; sorting at least makes the answer stable
        names.sort()
        for name in names:
            if name.endswith(".dist-info"):
                is_egg = False
            elif name.endswith(".egg-info"):
                is_egg = True
            else:
                continue
            found = _first_of_name(name[: name.rindex(".")], seen, only)
            if found is not None:
                # an egg-info shadows like any other but never carries a manifest
                key, version = found
                yield Entry(key, version.partition("-")[0], prefix + name, None, is_egg)


def iter_zip(archive: str, seen: set[str], only: str | None) -> Iterator[Entry]:
    import zipfile  # (rare: only zipped entries of sys.path)

    try:
        with zipfile.ZipFile(archive) as zf:
            names = zf.namelist()
    except (OSError, zipfile.BadZipFile):
        return
    tops = sorted({n.split("/", 1)[0] for n in names if "/" in n})
    for top in tops:
        if not top.endswith(".dist-info"):
            continue
        found = _first_of_name(top[: -len(".dist-info")], seen, only)
        if found is not None:
            yield Entry(*found, top, zip_file=archive)


def _first_of_name(stem: str, seen: set[str], only: str | None) -> tuple[str, str] | None:
    """The normalized name and the version of a metadata directory's *stem*
    (``name-version``) when it is the first of that name (and the one asked for, if any)."""
    project, _, version = stem.partition("-")
    key = canonical_dist_name(project)
    if key in seen or (only is not None and key != only):
        return None
    seen.add(key)
    return key, version
