"""The scan of a search path for installed distributions' metadata directories, on strings.

Every ``*.dist-info`` (and ``*.egg-info``) directory of every path entry, in path order, the
first occurrence of a (PEP 503-normalized) name winning, as ``importlib.metadata`` sees them;
zip files on the path are looked into. ``discovery.py`` builds its distributions from it.
"""

from __future__ import annotations

import os
import zipfile
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
            project, _, version = name[: name.rindex(".")].partition("-")
            key = canonical_dist_name(project)
            if key in seen or (only is not None and key != only):
                continue
            seen.add(key)
            # an egg-info shadows like any other but never carries a manifest
            yield Entry(key, version.partition("-")[0], prefix + name, None, is_egg)


def iter_zip(archive: str, seen: set[str], only: str | None) -> Iterator[Entry]:

    try:
        with zipfile.ZipFile(archive) as zf:
            names = zf.namelist()
    except (OSError, zipfile.BadZipFile):
        return
    tops = sorted({n.split("/", 1)[0] for n in names if "/" in n})
    for top in tops:
        if not top.endswith(".dist-info"):
            continue
        project, _, version = top[: -len(".dist-info")].partition("-")
        key = canonical_dist_name(project)
        if key in seen or (only is not None and key != only):
            continue
        seen.add(key)
        yield Entry(key, version, top, zip_file=archive)
