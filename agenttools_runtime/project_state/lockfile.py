"""``agenttools.lock``: what a project's ``agenttools.toml`` resolved to, and everything a sync
writes — TOML, versioned, deterministic (the same lock is the same bytes) and sorted so that
it diffs well.

- ``[[distribution]]``: each distribution's exact version, the wheel's file name and SHA-256
  (not a mirror's URL), the source it was found on (``index``, no credentials) and its kind
  (``index-kind``: a simple-API index, PEP 751's ``packages.index``, or a ``--find-links``
  location, which PEP 751 has no name for), and for managed environments the pins of every
  dependency (``[[distribution.dependency]]``, from the installer's PEP 751 lock; its own
  ``index`` and ``index-kind`` when it came from another source than its distribution);
- ``[[deployment]]``: each bundle × client: scope and runner, every config entry
  (``[[deployment.entry]]``: file, key, SHA-256 of the entry, the names of the server's
  declared settings — never their values) and every skill file (``[[deployment.file]]``)
  it writes, paths relative to the project (``~/…`` for user scope).

``input`` is the digest of what ``agenttools.toml`` means (not of its bytes: a comment does not
make the lock stale).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from agenttools_runtime import __version__, regular_files
from agenttools_runtime.envs.index import DEFAULT_INDEX
from agenttools_runtime.errors import LockFromNewerAgentTools, LockInvalid

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

LOCK_FILE = "agenttools.lock"
LOCK_VERSION = 1

# the kinds of source a distribution's ``index`` is (its ``index-kind``)
SIMPLE_API = "simple-api"  # an index of the simple repository API (PEP 503, PEP 691)
FIND_LINKS = "find-links"  # a --find-links location: a directory, or a page of links
INDEX_KINDS = (SIMPLE_API, FIND_LINKS)


@dataclass(frozen=True, slots=True)
class Pin:
    """One distribution at one version, from one wheel file with its SHA-256; for a
    dependency, also the source that file is fetched from and its kind (as a
    :class:`LockedDistribution` has them; a distribution's own pin has them there). The
    source is where the file is, not what it is: two pins of one file are equal."""

    name: str
    version: str
    wheel: str
    sha256: str
    index: str | None = field(default=None, compare=False)
    index_kind: str | None = field(default=None, compare=False)

    def to_data(self) -> dict[str, Any]:
        """The pin's file (its source is its distribution's to write)."""
        return {
            "name": self.name,
            "version": self.version,
            "wheel": self.wheel,
            "sha256": self.sha256,
        }


@dataclass(frozen=True, slots=True)
class LockedDistribution:
    """A ``[[bundle]]``'s distribution as locked: its requirement as the file asked, the pin,
    the source it was found on (None: the default index), its dependencies' pins, and the
    kind of that source (:data:`INDEX_KINDS`; None: not recorded, a lock of an earlier
    agenttools)."""

    requirement: str
    pin: Pin
    index: str | None = None
    dependencies: tuple[Pin, ...] = ()
    index_kind: str | None = None

    @property
    def name(self) -> str:
        return self.pin.name

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"requirement": self.requirement, **self.pin.to_data()}
        data.update(_source_data(self.index, self.index_kind))
        if self.dependencies:
            data["dependency"] = [self._dependency_data(d) for d in self.dependencies]
        return data

    def _dependency_data(self, pin: Pin) -> dict[str, Any]:
        """A dependency's table: its source only when it is not the distribution's."""
        data = pin.to_data()
        if (pin.index, pin.index_kind) != (self.index, self.index_kind):
            # (the default index named, since no index means the distribution's)
            index = DEFAULT_INDEX if pin.index is None else pin.index
            data.update(_source_data(index, pin.index_kind or SIMPLE_API))
        return data


@dataclass(frozen=True, slots=True)
class LockedEntry:
    """One MCP config entry a deployment writes: its file, key, the SHA-256 of the entry
    (:func:`entry_digest`), the server, and the names of its declared settings."""

    file: str
    key: str
    sha256: str
    server: str
    settings: tuple[str, ...] = ()

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "file": self.file,
            "key": self.key,
            "server": self.server,
            "sha256": self.sha256,
        }
        if self.settings:
            data["settings"] = list(self.settings)
        return data


@dataclass(frozen=True, slots=True)
class LockedFile:
    """One skill file a deployment writes, and its SHA-256 (line endings normalized as
    skills are hashed)."""

    path: str
    sha256: str

    def to_data(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class LockedDeployment:
    """One bundle deployed to one client: what ``sync`` makes and ``verify`` checks."""

    bundle: str  # "dist/bundle"
    distribution: str
    client: str
    scope: str  # "project" | "user"
    runner: str
    entries: tuple[LockedEntry, ...] = ()
    files: tuple[LockedFile, ...] = ()

    @property
    def identity(self) -> str:
        """``client scope dist/bundle``: what a deployment of this project is known by."""
        return f"{self.client} {self.scope} {self.bundle}"

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "bundle": self.bundle,
            "distribution": self.distribution,
            "client": self.client,
            "scope": self.scope,
            "runner": self.runner,
        }
        if self.entries:
            data["entry"] = [e.to_data() for e in self.entries]
        if self.files:
            data["file"] = [f.to_data() for f in self.files]
        return data


@dataclass(frozen=True, slots=True)
class Lock:
    """A whole ``agenttools.lock`` (see the module docstring)."""

    input: str
    distributions: tuple[LockedDistribution, ...] = ()
    deployments: tuple[LockedDeployment, ...] = ()

    def distribution(self, name: str) -> LockedDistribution | None:
        return next((d for d in self.distributions if d.name == name), None)


def entry_digest(entry: Any) -> str:
    """The SHA-256 of a config entry as plain data (keys sorted: the same entry in any
    file format has one digest)."""
    text = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def read(path: Path) -> Lock | None:
    """The lock at *path*, None when there is none. Raises ``LockFromNewerAgentTools`` (a
    newer lock version), ``LockInvalid`` (anything else this version cannot read)."""
    data = regular_files.read_bytes_if_present(path)
    return None if data is None else loads_bytes(data, path)


def loads_bytes(data: bytes, path: Path) -> Lock:
    """See :func:`read`."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LockInvalid(path=str(path), reason=f"not UTF-8 ({exc.reason})") from None
    return loads(text, path)


def loads(text: str, path: Path) -> Lock:
    """See :func:`read`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LockInvalid(path=str(path), reason=f"not valid TOML ({exc})") from None
    version = data.get("version")
    if isinstance(version, int) and not isinstance(version, bool) and version > LOCK_VERSION:
        raise LockFromNewerAgentTools(
            path=str(path), version=version, agenttools=__version__, supported=LOCK_VERSION
        )
    if version != LOCK_VERSION:
        raise LockInvalid(
            path=str(path), reason=f"version {version!r} (this agenttools reads {LOCK_VERSION})"
        )
    try:
        return Lock(
            input=_text(data, "input"),
            distributions=tuple(_distribution(d) for d in _tables(data, "distribution")),
            deployments=tuple(_deployment(d) for d in _tables(data, "deployment")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise LockInvalid(path=str(path), reason=str(exc)) from None


def _source_data(index: str | None, kind: str | None) -> dict[str, str]:
    """A source's keys: ``index``, ``index-kind``, each when there is one."""
    data = {} if index is None else {"index": index}
    if kind is not None:
        data["index-kind"] = kind
    return data


# -- reading ---------------------------------------------------------------------------------


def _tables(data: Mapping[str, Any], name: str) -> list[Mapping[str, Any]]:
    found = data.get(name, [])
    if not isinstance(found, list) or not all(isinstance(t, dict) for t in found):
        raise ValueError(f'"{name}" is not an array of tables')
    return found


def _text(data: Mapping[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str):
        raise ValueError(f'"{name}" is missing or not a string')
    return value


def _pin(data: Mapping[str, Any]) -> Pin:
    digest = _text(data, "sha256")
    if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
        raise ValueError(f'"{digest}" is not a SHA-256')
    return Pin(_text(data, "name"), _text(data, "version"), _text(data, "wheel"), digest)


def _dependency(data: Mapping[str, Any], source: tuple[str | None, str | None]) -> Pin:
    """A dependency's pin: from its own source when it names one, else from *source*."""
    index, kind = _source(data) if "index" in data else source
    return replace(_pin(data), index=index, index_kind=kind)


def _distribution(data: Mapping[str, Any]) -> LockedDistribution:
    index, kind = _source(data)
    return LockedDistribution(
        requirement=_text(data, "requirement"),
        pin=_pin(data),
        index=index,
        dependencies=tuple(_dependency(d, (index, kind)) for d in _tables(data, "dependency")),
        index_kind=kind,
    )


def _source(data: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """A table's ``index`` and ``index-kind``."""
    index = data.get("index")
    kind = data.get("index-kind")
    if kind is not None and kind not in INDEX_KINDS:
        raise ValueError(f'index-kind "{kind}" is neither {" nor ".join(INDEX_KINDS)}')
    return None if index is None else str(index), kind


def _deployment(data: Mapping[str, Any]) -> LockedDeployment:
    scope = _text(data, "scope")
    if scope not in ("project", "user"):
        raise ValueError(f'scope "{scope}" is neither project nor user')
    entries = tuple(
        LockedEntry(
            _text(e, "file"),
            _text(e, "key"),
            _text(e, "sha256"),
            _text(e, "server"),
            tuple(str(s) for s in e.get("settings", ())),
        )
        for e in _tables(data, "entry")
    )
    files = tuple(LockedFile(_text(f, "path"), _text(f, "sha256")) for f in _tables(data, "file"))
    for item in (*(e.file for e in entries), *(f.path for f in files)):
        _check_relative(item)
    return LockedDeployment(
        bundle=_text(data, "bundle"),
        distribution=_text(data, "distribution"),
        client=_text(data, "client"),
        scope=scope,
        runner=_text(data, "runner"),
        entries=entries,
        files=files,
    )


def _check_relative(path: str) -> None:
    """A lock names files inside the project (or ``~/``): never absolute, never ``..``."""
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or ".." in parts or (":" in parts[0]):
        raise ValueError(f'"{path}" is not a path inside the project')
