"""Completing an sdist: the project files a wheel build from it needs (``pyproject.toml``,
skill files, ``body-file``s, an in-tree backend) that the build backend left out are added,
so a wheel built from the sdist carries the same agenttools files as one built from the tree.

An sdist that lacks nothing is left as it is. Otherwise the ``.tar.gz`` is written anew,
reproducibly: every member in its order with its content and attributes, then the added
files sorted by path, with the timestamp and owner of the sdist's own ``PKG-INFO`` and the
gzip header's original timestamp.
"""

from __future__ import annotations

import gzip
import io
import os
import tarfile
from collections.abc import Mapping
from pathlib import Path
from typing import BinaryIO

from agenttools_runtime import regular_files
from agenttools_runtime.errors import InvalidSdist
from agenttools_runtime.wheel.archive import copy_file, publish
from agenttools_runtime.wheel.contents import EXECUTABLE_MODE, FILE_MODE

PKG_INFO = "PKG-INFO"


def add_files(sdist: Path, output: Path, files: Mapping[str, Path]) -> list[str]:
    """Write *sdist* to *output* with every file of *files* (``/``-separated project-relative
    path -> the file) that it lacks; return the paths added, sorted."""
    try:
        with tarfile.open(sdist, "r:gz") as archive:
            entries = archive.getmembers()
            top = _top_directory(entries, sdist)
            present = {e.name[len(top) + 1 :] for e in entries}
            missing = sorted(p for p in files if p not in present)
            if missing:
                template = next((e for e in entries if e.name == f"{top}/{PKG_INFO}"), entries[0])
                added = {f"{top}/{p}": files[p] for p in missing}
                header = _gzip_header(sdist)
                publish(
                    output,
                    sdist,
                    lambda fp: _rewrite(archive, entries, added, template, header, fp),
                )
            elif os.path.abspath(output) != os.path.abspath(sdist):
                publish(output, sdist, lambda fp: copy_file(sdist, fp))
    except (OSError, tarfile.TarError, EOFError) as exc:
        raise InvalidSdist(sdist=str(sdist), reason=str(exc)) from None
    return missing


def _top_directory(entries: list[tarfile.TarInfo], sdist: Path) -> str:
    tops = {e.name.split("/")[0] for e in entries}
    if len(tops) != 1:  # (none, for an empty archive)
        reason = "its files are not all in one top-level directory"
        raise InvalidSdist(sdist=str(sdist), reason=reason)
    return tops.pop()


def _rewrite(
    archive: tarfile.TarFile,
    entries: list[tarfile.TarInfo],
    added: Mapping[str, Path],
    template: tarfile.TarInfo,
    header: tuple[str, int],
    fp: BinaryIO,
) -> None:
    name, mtime = header
    gz = gzip.GzipFile(filename=name, mode="wb", fileobj=fp, mtime=mtime)
    with gz, tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as out:
        for entry in entries:
            out.addfile(entry, archive.extractfile(entry) if entry.isfile() else None)
        for path, source in added.items():
            data = regular_files.read_bytes(source)
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = EXECUTABLE_MODE if os.stat(source).st_mode & 0o111 else FILE_MODE
            info.mtime = template.mtime
            info.uid, info.gid = template.uid, template.gid
            info.uname, info.gname = template.uname, template.gname
            out.addfile(info, io.BytesIO(data))


def _gzip_header(sdist: Path) -> tuple[str, int]:
    """The file name and timestamp the original gzip header carries (what we write again)."""
    with open(sdist, "rb") as source:
        header = source.read(10)
        name = b""
        if len(header) == 10 and header[3] & 0x08:  # FNAME; FEXTRA is not written by builders
            while (byte := source.read(1)) not in (b"", b"\0"):
                name += byte
    mtime = int.from_bytes(header[4:8], "little") if len(header) == 10 else 0
    return name.decode("latin-1") or sdist.name.removesuffix(".gz"), mtime
