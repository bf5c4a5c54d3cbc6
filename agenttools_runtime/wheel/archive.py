"""Adding agenttools' files to a finished wheel: new members under
``.dist-info/extra_metadata/agenttools/`` and their ``RECORD`` lines.

Every other member keeps its name, content, timestamp, permissions, compression method and
place; the added members take their timestamp and zip attributes from the wheel's own
``METADATA`` member, so a reproducible wheel stays reproducible (whatever its backend did with
``SOURCE_DATE_EPOCH``, the result follows it). They sit, in :func:`~.contents.members` order,
right before ``RECORD``, whose existing lines are kept as written. The archive is written to a
temporary file next to the output and moved into place, so a failure leaves no half wheel.
"""

from __future__ import annotations

import base64
import csv
import email.parser
import io
import os
import shutil
import stat
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from hashlib import sha256
from pathlib import Path
from typing import BinaryIO, Literal

from agenttools_runtime import errors, fs
from agenttools_runtime.wheel import layout
from agenttools_runtime.wheel.contents import Member

Outcome = Literal["added", "replaced", "unchanged"]
METADATA = "METADATA"
RECORD = "RECORD"
_ZIP64_EXTRA = 0x0001  # rewritten by zipfile when needed; copying it would duplicate it


@dataclass(frozen=True, slots=True)
class WheelInfo:
    """A wheel's ``.dist-info`` directory and the name and version its ``METADATA`` gives."""

    dist_info: str  # "<name>-<version>.dist-info"
    name: str
    version: str


def read_info(wheel: Path) -> WheelInfo:
    """The :class:`WheelInfo` of *wheel*; :class:`~agenttools_runtime.errors.InvalidWheel`
    when it is no zip file or has no single ``.dist-info`` with a ``METADATA``."""
    with _open(wheel) as archive:
        return _info(archive, wheel)


@dataclass(frozen=True, slots=True)
class WheelContents:
    """What ``agenttools export`` reads of a wheel: its :class:`WheelInfo`, the agenttools
    files it carries (``.dist-info``-relative path -> bytes), its ``METADATA`` and its
    ``entry_points.txt`` (empty when it has none)."""

    info: WheelInfo
    bundled: dict[str, bytes]
    metadata: bytes
    entry_points: str


def read_contents(wheel: Path) -> WheelContents:
    """The :class:`WheelContents` of *wheel*, in one opening of the archive;
    :class:`~agenttools_runtime.errors.InvalidWheel` as for :func:`read_info`."""
    with _open(wheel) as archive:
        info = _info(archive, wheel)
        try:
            entry_points = archive.read(f"{info.dist_info}/entry_points.txt")
        except KeyError:
            entry_points = b""
        return WheelContents(
            info,
            _bundled(archive, info),
            archive.read(f"{info.dist_info}/{METADATA}"),
            entry_points.decode("utf-8", "replace"),
        )


def add_members(
    wheel: Path,
    output: Path,
    members: Sequence[Member],
    *,
    replace: bool = False,
    atomic: bool = True,
) -> Outcome:
    """Write *wheel* with *members* added to its ``.dist-info`` to *output* (which may be
    *wheel* itself), atomically (:func:`publish`); unless not *atomic*: then *output* is
    created and written in place (a build stages it in a directory of its own and moves it).

    A wheel that already carries exactly these files is ``"unchanged"`` (copied to *output*
    as it is). One that carries other agenttools files raises
    :class:`~agenttools_runtime.errors.WheelAlreadyBundled`, unless *replace*: then they are
    removed with their ``RECORD`` lines and the outcome is ``"replaced"``.
    """
    with _open(wheel) as archive:
        info = _info(archive, wheel)
        existing = _bundled(archive, info)
        difference = _difference(existing, members)
        if existing and difference is None:
            if os.path.abspath(output) != os.path.abspath(wheel):
                _write(output, wheel, lambda fp: copy_file(wheel, fp), atomic=atomic)
            return "unchanged"
        if existing and not replace:
            raise errors.WheelAlreadyBundled(wheel=str(wheel), difference=difference)
        dropped = {f"{info.dist_info}/{path}" for path in existing}

        def rewrite(fp: BinaryIO) -> None:
            _rewrite(archive, info, members, dropped, fp, wheel)

        _write(output, wheel, rewrite, atomic=atomic)
    return "replaced" if existing else "added"


def write_members(dist_info: Path, members: Sequence[Member]) -> None:
    """Write *members* into an unpacked ``.dist-info`` directory (what
    ``prepare_metadata_for_build_wheel`` hands the frontend)."""
    for member in members:
        path = dist_info.joinpath(*member.path.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(member.data)
        os.chmod(path, member.mode)


def record_row(path: str, data: bytes) -> tuple[str, str, str]:
    """The ``RECORD`` row of one file: path, ``sha256=<urlsafe base64, no padding>``, size."""
    digest = base64.urlsafe_b64encode(sha256(data).digest()).rstrip(b"=")
    return path, f"sha256={digest.decode('ascii')}", str(len(data))


# -- helpers ------------------------------------------------------------------------------------
def _open(wheel: Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(wheel)
    except (OSError, zipfile.BadZipFile) as exc:
        reason = f"it cannot be read as a zip file ({exc})"
        raise errors.InvalidWheel(wheel=str(wheel), reason=reason) from None


def _info(archive: zipfile.ZipFile, wheel: Path) -> WheelInfo:
    candidates = sorted(
        name.split("/")[0]
        for name in archive.namelist()
        if name.count("/") == 1 and name.endswith(f".dist-info/{METADATA}")
    )
    if len(candidates) != 1:
        found = ", ".join(candidates) or "none"
        reason = f"it needs exactly one .dist-info directory with a {METADATA} (found: {found})"
        raise errors.InvalidWheel(wheel=str(wheel), reason=reason)
    dist_info = candidates[0]
    if f"{dist_info}/{RECORD}" not in archive.namelist():
        raise errors.InvalidWheel(wheel=str(wheel), reason=f"{dist_info}/{RECORD} is missing")
    headers = metadata_headers(archive.read(f"{dist_info}/{METADATA}"))
    name, version = headers.get("name"), headers.get("version")
    if not name or not version:
        reason = f"{dist_info}/{METADATA} lacks Name or Version"
        raise errors.InvalidWheel(wheel=str(wheel), reason=reason)
    return WheelInfo(dist_info, name, version)


def metadata_headers(data: bytes) -> dict[str, str]:
    """The headers of a core metadata file (``METADATA``, ``PKG-INFO``), keys lowercased,
    first occurrence kept."""
    message = email.parser.BytesHeaderParser().parsebytes(data)
    headers: dict[str, str] = {}
    for key, value in message.items():
        headers.setdefault(key.lower(), str(value).strip())
    return headers


def _bundled(archive: zipfile.ZipFile, info: WheelInfo) -> dict[str, bytes]:
    prefix = f"{info.dist_info}/{layout.AGENTTOOLS_DIR}/"
    return {
        name[len(info.dist_info) + 1 :]: archive.read(name)
        for name in archive.namelist()
        if name.startswith(prefix) and not name.endswith("/")
    }


def _difference(existing: Mapping[str, bytes], members: Sequence[Member]) -> str | None:
    """None when *existing* holds exactly *members*' files and bytes, else what differs."""
    wanted = {m.path: m.data for m in members}
    extra = sorted(set(existing) - set(wanted))
    missing = sorted(set(wanted) - set(existing))
    changed = sorted(p for p in set(existing) & set(wanted) if existing[p] != wanted[p])
    parts = [
        f"{label}: {', '.join(paths[:3])}{' …' if len(paths) > 3 else ''}"
        for label, paths in (("differs", changed), ("not declared", extra), ("missing", missing))
        if paths
    ]
    return "; ".join(parts) or None


def _rewrite(
    archive: zipfile.ZipFile,
    info: WheelInfo,
    members: Sequence[Member],
    dropped: set[str],
    fp: BinaryIO,
    wheel: Path,
) -> None:
    record_name = f"{info.dist_info}/{RECORD}"
    template = archive.getinfo(f"{info.dist_info}/{METADATA}")
    paths = [f"{info.dist_info}/{m.path}" for m in members]
    rows = [record_row(path, m.data) for path, m in zip(paths, members, strict=True)]
    try:
        with zipfile.ZipFile(fp, "w") as out:
            for entry in archive.infolist():
                if entry.filename in dropped:
                    continue
                if entry.filename == record_name:
                    for path, member in zip(paths, members, strict=True):
                        out.writestr(_new_entry(path, member.mode, template), member.data)
                    record = _record(archive.read(entry), record_name, dropped, rows)
                    out.writestr(_copy_entry(entry), record)
                else:
                    out.writestr(_copy_entry(entry), archive.read(entry))
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise errors.InvalidWheel(
            wheel=str(wheel), reason=f"a member cannot be read ({exc})"
        ) from exc


def _record(
    data: bytes, record_name: str, dropped: set[str], rows: Sequence[tuple[str, str, str]]
) -> bytes:
    """RECORD with the lines of *dropped* removed and *rows* inserted before RECORD's own
    line; every other line is kept byte for byte (line endings included)."""
    text = data.decode("utf-8")
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += newline
    added = [_csv_line(row, newline) for row in rows]
    kept: list[str] = []
    inserted = False
    for line in lines:
        path = _first_field(line.rstrip("\r\n")) if line.strip() else ""
        if path in dropped:
            continue
        if path == record_name and not inserted:
            kept += added
            inserted = True
        kept.append(line)
    if not inserted:
        kept += added
    return "".join(kept).encode("utf-8")


def _csv_line(row: Sequence[str], newline: str) -> str:
    """*row* as one line of ``RECORD`` (CSV), ended by *newline*."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator=newline).writerow(row)
    return buffer.getvalue()


def _first_field(line: str) -> str:
    """The first field of one CSV line."""
    return next(csv.reader([line]), [""])[0]


def _copy_entry(entry: zipfile.ZipInfo) -> zipfile.ZipInfo:
    """A fresh ZipInfo with *entry*'s name and attributes (sizes and CRC are recomputed)."""
    copy = zipfile.ZipInfo(entry.filename, entry.date_time)
    copy.compress_type = entry.compress_type
    copy.comment = entry.comment
    copy.extra = _strip_zip64(entry.extra)
    copy.create_system = entry.create_system
    copy.create_version = entry.create_version
    copy.extract_version = entry.extract_version
    copy.internal_attr = entry.internal_attr
    copy.external_attr = entry.external_attr
    return copy


def _new_entry(path: str, mode: int, template: zipfile.ZipInfo) -> zipfile.ZipInfo:
    entry = zipfile.ZipInfo(path, template.date_time)
    entry.compress_type = template.compress_type
    entry.create_system = template.create_system
    entry.create_version = template.create_version
    entry.extract_version = template.extract_version
    entry.external_attr = (stat.S_IFREG | mode) << 16
    return entry


def _strip_zip64(extra: bytes) -> bytes:
    out, index = b"", 0
    while index + 4 <= len(extra):
        kind = int.from_bytes(extra[index : index + 2], "little")
        size = int.from_bytes(extra[index + 2 : index + 4], "little")
        if kind != _ZIP64_EXTRA:
            out += extra[index : index + 4 + size]
        index += 4 + size
    return out


def copy_file(source: Path, fp: BinaryIO) -> None:
    """Write *source*'s bytes to *fp* (an archive that needs no change, published as it is)."""
    with open(source, "rb") as src:
        shutil.copyfileobj(src, fp)


def publish(output: Path, like: Path, write: Callable[[BinaryIO], None]) -> None:
    """Write *output* atomically with the permissions of *like* (the input archive), and
    fsynced: a wheel or sdist rewritten in place must survive a power cut."""
    fs.mkdir(output.parent)
    fs.write_stream_atomic(output, write, stat.S_IMODE(os.stat(like).st_mode))


def _write(output: Path, like: Path, write: Callable[[BinaryIO], None], *, atomic: bool) -> None:
    if atomic:
        publish(output, like, write)
        return
    with open(output, "xb") as fp:
        write(fp)
    os.chmod(output, stat.S_IMODE(os.stat(like).st_mode))
