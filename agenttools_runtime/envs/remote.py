"""Metadata without installing (the spec's ``PacletFindRemote``): the newest wheel of a
distribution that a requirement allows on the configured indexes, and its agenttools manifest,
read from the wheel — a local file directly; a remote one through HTTP ranges (the end of the
archive, where the ``.dist-info`` is, often one request), or downloaded whole into the cache
when the server does not serve ranges. Nothing is installed and no environment is created.

The manifests read are kept in the cache keyed by the wheel's published SHA-256 (a fact of
that file: ``<cache>/manifests/<sha256>.json``); a wheel downloaded whole is kept under
``<cache>/wheels/<sha256>/``, checked against its hash.
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from agenttools_runtime import fs, regular_files
from agenttools_runtime.envs import http, simple
from agenttools_runtime.envs.index import DEFAULT_INDEX, IndexOptions, redact
from agenttools_runtime.envs.pylock import most_specific
from agenttools_runtime.envs.simple import IndexFile
from agenttools_runtime.errors import (
    AgentToolsError,
    IndexNotListable,
    RemoteDistributionNotFound,
    RemoteHashMismatch,
    RemoteVersionNotFound,
    RemoteWheelNotFound,
    RemoteWheelUnreadable,
)
from agenttools_runtime.wheel import layout
from agenttools_runtime.wheel.manifest import WheelManifest, parse

CACHE_ENV = "AGENTTOOLS_CACHE_DIR"
TAIL_BYTES = 64 * 1024  # the first range read: the end of the archive


@dataclass(frozen=True, slots=True)
class RemoteWheel:
    """The wheel chosen for a requirement: distribution name (normalized), version, file."""

    name: str
    version: Version
    file: IndexFile


@dataclass(frozen=True, slots=True)
class WheelFile:
    """A wheel's file on this machine and its SHA-256 (checked against the one its index
    publishes, when it publishes one)."""

    path: Path
    sha256: str


@dataclass(frozen=True, slots=True)
class RemoteDistribution:
    """A wheel and its agenttools manifest (None: it ships no agent tools)."""

    wheel: RemoteWheel
    manifest: WheelManifest | None


def cache_dir() -> Path:
    """``$AGENTTOOLS_CACHE_DIR``, else the platform's per-user cache directory."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("agenttools", appauthor=False))


def find_wheel(requirement: Requirement, options: IndexOptions, *, timeout: float) -> RemoteWheel:
    """The newest version *requirement* allows on *options*' indexes and find-links locations
    (not yanked unless pinned with ``==``; pre-releases as PEP 440 says), and its wheel — one
    for this interpreter when there are several. Raises ``RemoteDistributionNotFound``,
    ``RemoteVersionNotFound``, ``RemoteWheelNotFound`` and what :func:`http.get` raises."""
    files = simple.project_files(requirement.name, options, timeout=timeout)
    where = options.describe()
    if not files:
        raise RemoteDistributionNotFound(distribution=requirement.name, index=where)
    by_version: dict[Version, list[IndexFile]] = {}
    for item in files:
        pv = item.project_version
        if pv is not None:
            by_version.setdefault(pv[1], []).append(item)
    pinned = any(s.operator in ("==", "===") for s in requirement.specifier)
    allowed = [
        v
        for v in requirement.specifier.filter(by_version)
        if pinned or not all(f.yanked for f in by_version[v])
    ]
    if not allowed:
        shown = ", ".join(str(v) for v in sorted(by_version)) or "none"
        raise RemoteVersionNotFound(
            distribution=requirement.name, index=where, requirement=str(requirement), versions=shown
        )
    version = max(allowed)
    wheels = [f for f in by_version[version] if f.is_wheel]
    if not wheels:
        raise RemoteWheelNotFound(
            distribution=requirement.name,
            version=str(version),
            index=where,
            files=", ".join(f.filename for f in by_version[version]),
        )
    return RemoteWheel(
        str(canonicalize_name(requirement.name)),
        version,
        most_specific(wheels, lambda item: item.filename),
    )


def read_distribution(wheel: RemoteWheel, *, timeout: float) -> RemoteDistribution:
    """*wheel* with its manifest (see the module docstring). Raises ``RemoteWheelUnreadable``,
    ``RemoteHashMismatch``, a ``ManifestError`` for a manifest that cannot be used."""
    data = _manifest_bytes(wheel, timeout=timeout)
    manifest = None if data is None else parse(data, wheel.name)
    return RemoteDistribution(wheel, manifest)


def _manifest_bytes(wheel: RemoteWheel, *, timeout: float) -> bytes | None:
    """The bytes of *wheel*'s ``manifest.json`` (None: it has none)."""
    cache = cache_dir()
    item = wheel.file
    local = item.local_path
    if local is not None:
        return _member(_open_zip(local.read_bytes(), item), item)
    cached = None if item.sha256 is None else cache / "manifests" / f"{item.sha256}.json"
    if cached is not None:
        try:
            data = regular_files.read_bytes(cached)
        except OSError:
            pass
        else:
            return None if data == b"" else data  # (empty: known to have no manifest)
    archive = _RangeFile(item, timeout)
    found = _member(_open_zip(archive, item), item)
    if archive.whole is not None:  # the server sent it all: keep the wheel
        try:
            _keep_wheel(cache, item, archive.whole)
        except OSError:
            pass  # (the manifest is read already: an unwritable cache costs a later download)
    if cached is not None:
        _write_if_possible(cached, found or b"")
    return found


UNLISTABLE_HOSTS = frozenset({"pypi.org", "test.pypi.org", "pypi.python.org"})


def list_index(
    options: IndexOptions, *, timeout: float
) -> tuple[list[RemoteDistribution], list[tuple[str, Exception]]]:
    """Every distribution on the indexes *options* names explicitly and on its find-links
    locations whose newest wheel ships agent tools (read concurrently, eight at a
    time), by name; and the names that could not be read, with why. Raises
    ``IndexNotListable`` for the public index (it holds too many projects to list), and
    for options that name no index and no location (which would mean that one)."""
    from concurrent.futures import ThreadPoolExecutor

    urls = (
        [] if options.no_index else [u for u in (options.index_url, *options.extra_index_urls) if u]
    )
    if not urls and not options.find_links:
        raise IndexNotListable(index=DEFAULT_INDEX)
    names: set[str] = set()
    for url in urls:
        if (urlsplit(url).hostname or "") in UNLISTABLE_HOSTS:
            raise IndexNotListable(index=redact(url))
        names.update(simple.project_names(url, index=True, timeout=timeout))
    for location in options.find_links:
        names.update(simple.project_names(location, index=False, timeout=timeout))

    def one(name: str) -> RemoteDistribution | tuple[str, Exception]:
        try:
            return read_distribution(
                find_wheel(Requirement(name), options, timeout=timeout), timeout=timeout
            )
        except AgentToolsError as exc:
            return (name, exc)

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(one, sorted(names)))
    found = [r for r in results if isinstance(r, RemoteDistribution) and r.manifest is not None]
    failed = [r for r in results if isinstance(r, tuple)]
    return found, failed


def download_wheel(wheel: RemoteWheel, *, timeout: float) -> WheelFile:
    """*wheel*'s file on this machine and its SHA-256: itself when local, else the one kept
    in the cache, else downloaded whole into the cache (kept for the next time). The file's
    hash is checked here, once, whichever way it came: a local file or a download that does
    not match the published hash raises ``RemoteHashMismatch``; a kept one that does not is
    downloaded again. Raises also ``RemoteWheelUnreadable``, what :func:`http.get` raises,
    and the ``OSError`` of a local file that cannot be read or of a cache the download cannot
    be written into (the file is used from there)."""
    item = wheel.file
    local = item.local_path
    if local is not None:
        return WheelFile(local, _checked(item, regular_files.read_bytes(local)))
    cache = cache_dir()
    if item.sha256 is not None:
        published = item.sha256.lower()
        kept = cache / "wheels" / published / item.filename
        try:
            data = regular_files.read_bytes(kept)
        except OSError:
            pass  # (not kept, or not readable: downloaded)
        else:
            if hashlib.sha256(data).hexdigest() == published:
                return WheelFile(kept, published)
    response = http.get(item.url, index=item.source, timeout=timeout)
    if response.status != 200:
        raise _unreadable(item, f"HTTP {response.status}")
    return _keep_wheel(cache, item, response.body)


def dist_info_members(wheel_file: Path) -> dict[str, bytes]:
    """Every member of the wheel's ``.dist-info`` directory: ``{archive name: bytes}``."""
    with zipfile.ZipFile(wheel_file) as archive:
        prefix = _dist_info_prefix(archive.namelist())
        if prefix is None:
            raise RemoteWheelUnreadable(
                file=wheel_file.name, index=str(wheel_file.parent), reason="no .dist-info directory"
            )
        return {
            n: archive.read(n)
            for n in archive.namelist()
            if n.startswith(prefix) and not n.endswith("/")
        }


# -- helpers -----------------------------------------------------------------------------------


def _open_zip(source: bytes | _RangeFile, item: IndexFile) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise _unreadable(item, str(exc)) from None


def _member(archive: zipfile.ZipFile, item: IndexFile) -> bytes | None:
    with archive:
        prefix = _dist_info_prefix(archive.namelist())
        if prefix is None:
            raise _unreadable(item, "no .dist-info directory")
        try:
            return archive.read(prefix + layout.MANIFEST_FILE)
        except KeyError:
            return None
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise _unreadable(item, str(exc)) from None


def _unreadable(item: IndexFile, reason: str) -> RemoteWheelUnreadable:
    return RemoteWheelUnreadable(file=item.filename, index=redact(item.source), reason=reason)


def _dist_info_prefix(names: Iterable[str]) -> str | None:
    for name in names:
        top = name.split("/", 1)[0]
        if top.endswith(".dist-info") and "/" in name:
            return top + "/"
    return None


def _keep_wheel(cache: Path, item: IndexFile, data: bytes) -> WheelFile:
    """*data*, the whole file of *item*, checked against its published hash and kept in the
    cache, keyed by its hash. Raises ``RemoteHashMismatch``, and ``OSError`` when it cannot be
    written."""
    actual = _checked(item, data)
    path = cache / "wheels" / actual / item.filename
    fs.mkdir(path.parent)
    fs.write_bytes_atomic(path, data)  # (also over a kept file that no longer has its hash)
    return WheelFile(path, actual)


def _checked(item: IndexFile, data: bytes) -> str:
    """The SHA-256 of *data*, the file of *item*: ``RemoteHashMismatch`` when its index
    publishes another."""
    actual = hashlib.sha256(data).hexdigest()
    if item.sha256 is not None and actual != item.sha256.lower():
        raise RemoteHashMismatch(
            file=item.filename, index=redact(item.source), expected=item.sha256, actual=actual
        )
    return actual


def _write_if_possible(path: Path, data: bytes) -> None:
    try:
        fs.mkdir(path.parent)
        fs.write_bytes_atomic(path, data)
    except OSError:
        pass  # a cache that cannot be written only costs the next command a download


class _RangeFile(io.RawIOBase):
    """A remote file read through HTTP range requests, for :class:`zipfile.ZipFile`: the last
    :data:`TAIL_BYTES` first, then each read not covered (with read-ahead). A server that
    answers the first request with the whole file (200) leaves it in :attr:`whole`."""

    def __init__(self, item: IndexFile, timeout: float) -> None:
        super().__init__()
        self._item, self._timeout = item, timeout
        self.whole: bytes | None = None
        first = self._get(f"bytes=-{TAIL_BYTES}")
        if first.status == 206:
            total = first.headers.get("content-range", "").rpartition("/")[2]
            if not total.isdigit():
                raise _unreadable(item, "the server's range answer has no length")
            self._size = int(total)
            self._chunks = [(self._size - len(first.body), first.body)]
        elif first.status == 200:
            self.whole = first.body
            self._size = len(first.body)
            self._chunks = [(0, first.body)]
        else:
            raise _unreadable(item, f"HTTP {first.status}")
        self._position = 0

    def _get(self, byte_range: str) -> http.Response:
        return http.get(
            self._item.url,
            index=self._item.source,
            timeout=self._timeout,
            headers={"Range": byte_range, "Accept-Encoding": "identity"},
        )

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._position, io.SEEK_END: self._size}[whence]
        self._position = max(0, base + offset)
        return self._position

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        size = min(len(buffer), self._size - self._position)
        if size <= 0:
            return 0
        data = self._read(self._position, size)
        buffer[: len(data)] = data
        self._position += len(data)
        return len(data)

    def _read(self, start: int, size: int) -> bytes:
        for offset, chunk in self._chunks:
            if offset <= start and start + size <= offset + len(chunk):
                return chunk[start - offset : start - offset + size]
        end = min(self._size, start + max(size, TAIL_BYTES)) - 1
        answer = self._get(f"bytes={start}-{end}")
        if answer.status != 206 or len(answer.body) < size:
            raise _unreadable(self._item, f"a range request answered HTTP {answer.status}")
        self._chunks.append((start, answer.body))
        return answer.body[:size]
