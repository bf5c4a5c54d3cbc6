"""The files a package index offers: its simple API (PEP 691 JSON, else PEP 503 HTML) for one
project or for the list of projects, at an ``http(s)`` URL or in a local tree (a ``file:``
URL or a path; its pages ``index.html`` files, :func:`http.get`), and ``--find-links`` locations (a
directory of files, or an HTML page of links). Only reading: nothing is downloaded here but
the pages.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit, urlunsplit
from urllib.request import url2pathname

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import Version

from agenttools_runtime import regular_files
from agenttools_runtime.envs import http
from agenttools_runtime.envs.index import DEFAULT_INDEX, IndexOptions, is_url, redact
from agenttools_runtime.envs.pylock import ResolvedDistribution
from agenttools_runtime.errors import IndexFileInvalid, IndexUnreachable

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
_SHA256 = re.compile("[0-9a-fA-F]{64}")
ACCEPT = f"{JSON_TYPE}, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01"


@dataclass(frozen=True, slots=True)
class IndexFile:
    """One file of a project: ``filename``, where to get it (``url``: ``http(s)://`` or
    ``file://``), its SHA-256 when the index publishes one, whether it is yanked, and the
    index or location it was found on (``source``, credentials included: not for output)."""

    filename: str
    url: str
    sha256: str | None
    yanked: bool
    source: str

    @property
    def is_wheel(self) -> bool:
        return self.filename.endswith(".whl")

    @property
    def project_version(self) -> tuple[str, Version] | None:
        """``(normalized name, version)`` from the file name; None for a name that is not a
        wheel's or an sdist's."""
        try:
            if self.is_wheel:
                name, version, _, _ = parse_wheel_filename(self.filename)
            else:
                name, version = parse_sdist_filename(self.filename)
        except (InvalidWheelFilename, InvalidSdistFilename):
            return None
        return str(name), version

    @property
    def local_path(self) -> Path | None:
        """The file on this machine, for a ``file://`` URL."""
        return _file_path(self.url)


def project_files(project: str, options: IndexOptions, *, timeout: float) -> list[IndexFile]:
    """Every file of *project* on every index of *options* (its ``/<project>/`` page; an
    index without the project has none) and find-links location, in that order."""
    name = canonicalize_name(project)
    files: list[IndexFile] = []
    for url in options.indexes:
        response = _page(url.rstrip("/") + f"/{name}/", url, timeout)
        files += [] if response is None else _files_of_page(response, url)
    for location in options.find_links:
        files += find_links_files(location, timeout=timeout)
    return [f for f in files if (pv := f.project_version) is not None and pv[0] == name]


def project_names(source: str, *, index: bool, timeout: float) -> set[str]:
    """Every project at *source* (an index's root page; a find-links location's files). A
    local simple-API tree (a ``file:`` URL or a path) without a root ``index.html`` has the
    projects of its directories with one, the pages pip and uv read."""
    if not index:
        return {
            pv[0] for f in find_links_files(source, timeout=timeout) if (pv := f.project_version)
        }
    response = _page(source.rstrip("/") + "/", source, timeout)
    if response is None:
        tree = _file_path(source) or (None if is_url(source) else Path(source))
        if tree is None or not tree.is_dir():
            return set()
        return {
            str(canonicalize_name(d.name)) for d in tree.iterdir() if (d / "index.html").is_file()
        }
    if response.content_type == JSON_TYPE:
        data = _json(response, source)
        return {str(canonicalize_name(p["name"])) for p in data.get("projects", ())}
    return {str(canonicalize_name(text.strip())) for _, text, _ in _links(response) if text.strip()}


def find_links_files(location: str, *, timeout: float) -> list[IndexFile]:
    """The files of a ``--find-links`` location, the kinds pip and uv both read: a local
    directory (its files) or a local HTML file (its links, relative ones to the file), each
    given as a path or a ``file:`` URL, or an HTML page at an ``http(s)`` URL (its links).
    A local location that is not there, or a page the server does not have, has none.
    Raises ``IndexUnreachable`` for a local file that cannot be read, and what
    :func:`http.get` raises."""
    if is_url(location) and not location.startswith("file:"):
        response = http.get(location, index=location, timeout=timeout)
        return _files_of_page(response, location) if response.status == 200 else []
    path = _file_path(location) or Path(location)
    if path.is_dir():
        return [
            IndexFile(entry.name, entry.resolve().as_uri(), None, False, location)
            for entry in sorted(path.iterdir())
            if entry.is_file()
        ]
    if not path.is_file():
        return []
    return _files_of_page(_local_page(path, location), location)


def with_sources(
    resolved: Sequence[ResolvedDistribution], options: IndexOptions, *, timeout: float
) -> tuple[ResolvedDistribution, ...]:
    """*resolved*, an installer's resolution from *options*, with the source of each file
    that came from one as its ``index`` (no credentials): the first find-links location
    that lists that very file (its URL, its local path, or its name with the hash published
    there), else, for a file at a URL, the index: ``options.index_url`` when it is the only
    one, else the first of the indexes whose page of the project lists the file. (The PEP
    751 lock pip and uv write names no ``packages.index``, and a wheel from find-links looks
    like any other.) A file no source lists, or whose ``index`` is known, is as it was."""
    listed = [(where, find_links_files(where, timeout=timeout)) for where in options.find_links]
    found = []
    for item in resolved:
        source = None
        if item.index is None and item.file is not None:
            source = next((w for w, files in listed if _lists(files, item)), None)
            if source is None and item.url is not None:
                source = _index_of(item, options, timeout)
        found.append(item if source is None else replace(item, index=redact(source)))
    return tuple(found)


def _index_of(item: ResolvedDistribution, options: IndexOptions, timeout: float) -> str | None:
    """The index of *options* that *item*, a file at a URL, came from (None: not known)."""
    if not options.extra_index_urls or options.no_index:
        return None if options.no_index else options.index_url
    for url in options.indexes:
        response = _page(url.rstrip("/") + f"/{item.name}/", url, timeout)
        if response is not None and _lists(_files_of_page(response, url), item):
            return None if url == DEFAULT_INDEX and options.index_url is None else url
    return None


def _lists(files: Sequence[IndexFile], item: ResolvedDistribution) -> bool:
    """Whether *files* holds *item*'s file: its name with the hash published for it, or,
    none published, at the same local path or URL."""
    for f in files:
        if f.filename != item.file:
            continue
        if f.sha256 is not None and item.sha256 is not None:
            same = f.sha256.lower() == item.sha256.lower()
        elif f.local_path is not None:
            same = item.path is not None and _same_path(f.local_path, Path(item.path))
        else:
            same = item.url is not None and redact(f.url) == item.url
        if same:
            return True
    return False


def _same_path(one: Path, other: Path) -> bool:
    return os.path.realpath(one) == os.path.realpath(other)


def _page(url: str, source: str, timeout: float) -> http.Response | None:
    """The simple API page at *url* of the index *source* (None: not there)."""
    response = http.get(url, index=source, timeout=timeout, headers={"Accept": ACCEPT})
    return response if response.status == 200 else None


def _local_page(path: Path, location: str) -> http.Response:
    """The local HTML file *path* (the find-links *location*) as the page it is: its links are
    relative to its own ``file:`` URL. (Not read through :func:`http.get`: a plain path is no
    URL.)"""
    try:
        body = regular_files.read_bytes(path)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise IndexUnreachable(index=redact(location), reason=reason) from None
    return http.Response(path.absolute().as_uri(), 200, {"content-type": "text/html"}, body)


def _with_userinfo(url: str, source: str) -> str:
    """*url* with the credentials of *source* when it is on the same host (a page fetched
    with credentials links its files without them)."""
    given, target = urlsplit(source), urlsplit(url)
    if "@" not in given.netloc or "@" in target.netloc:
        return url
    if given.netloc.rpartition("@")[2] != target.netloc:
        return url
    return urlunsplit(target._replace(netloc=given.netloc))


def _files_of_page(response: http.Response, source: str) -> list[IndexFile]:
    """The files a page links to: a project page of the simple API (PEP 691 JSON, else PEP 503
    HTML) or a find-links page."""
    if response.content_type == JSON_TYPE:
        return [
            _listed(
                str(item["filename"]),
                _with_userinfo(urljoin(response.url, str(item["url"])), source),
                (item.get("hashes") or {}).get("sha256"),
                bool(item.get("yanked", False)),
                source,
            )
            for item in _json(response, source).get("files", ())
            if _is_file_name(str(item["filename"]))
        ]
    files = []
    for href, _, attributes in _links(response):
        absolute = urljoin(response.url, href)
        parts = urlsplit(absolute)
        filename = unquote(os.path.basename(parts.path))
        if not _is_file_name(filename):  # (a link to a directory, or no file's name)
            continue
        fragment = dict(p.partition("=")[::2] for p in parts.fragment.split("&") if p)
        url = _with_userinfo(absolute.split("#", 1)[0], source)
        yanked = "data-yanked" in attributes
        files.append(_listed(filename, url, fragment.get("sha256"), yanked, source))
    return files


def _listed(filename: str, url: str, sha256: object, yanked: bool, source: str) -> IndexFile:
    """A file a page lists, its hash in lower case. The hash becomes a path in the cache
    (``wheels/<sha256>/``, ``manifests/<sha256>.json``): one that is not 64 hexadecimal
    digits is ``IndexFileInvalid``."""
    if sha256 is not None and not (isinstance(sha256, str) and _SHA256.fullmatch(sha256)):
        raise IndexFileInvalid(
            index=redact(source),
            file=filename,
            problem=f"a sha256 that is not a SHA-256 digest (64 hexadecimal digits): {sha256!r}",
        )
    return IndexFile(filename, url, None if sha256 is None else sha256.lower(), yanked, source)


def _is_file_name(name: str) -> bool:
    """Whether *name* (as a page gives it, unquoted) names one file: it is joined to the
    cache's paths (``wheels/<sha256>/<name>``)."""
    return name not in ("", ".", "..") and not any(c in name for c in "/\\\0")


def _json(response: http.Response, source: str) -> dict[str, Any]:
    try:
        data = json.loads(response.body)
    except ValueError as exc:
        raise IndexUnreachable(
            index=redact(source), reason=f"not a simple API answer ({exc})"
        ) from None
    if not isinstance(data, dict):
        raise IndexUnreachable(index=redact(source), reason="not a simple API answer")
    return data


def _links(response: http.Response) -> list[tuple[str, str, dict[str, str | None]]]:
    """The links of an HTML page: ``(href, text, attributes)``."""
    links = _Links()
    links.feed(response.body.decode("utf-8", "replace"))
    return links.found


def _file_path(url: str) -> Path | None:
    parts = urlsplit(url)
    return Path(url2pathname(parts.path)) if parts.scheme == "file" else None


class _Links(HTMLParser):
    """Every ``<a href>``: ``(href, text, attributes)``."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str, dict[str, str | None]]] = []
        self._open: tuple[str, dict[str, str | None]] | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            attributes = dict(attrs)
            href = attributes.get("href")
            if href:
                self._open, self._text = (href, attributes), []

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._open is not None:
            href, attributes = self._open
            self.found.append((href, "".join(self._text), attributes))
            self._open = None
