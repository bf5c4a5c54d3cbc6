"""Deployment records: ``<state>/deployments/<uuid>/deployment.json``.

A record is a snapshot of what a deployment wrote (config keys and files, skill registry
keys), so that removal and conflict checks never resolve a bundle by name. Records are JSON
with a ``"version"`` (schema) field; fields this version does not know are kept when a record
is read and written back. A record is published by writing it into a staging directory and
renaming that to the UUID directory, so a deployment directory without ``deployment.json``
only exists after a crash (its references are stale).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttools_runtime import errors, fs, jsonform, paths, regular_files, state_directories
from agenttools_runtime.deploy import shapes
from agenttools_runtime.mcp.origin import Origin

RECORD_FILE = "deployment.json"
SCHEMA_VERSION = 1
STAGING_PREFIX = ".staging-"


@dataclass(frozen=True, slots=True)
class InstalledSkill(jsonform.Form):
    """One skill directory a deployment references (``registry_key`` is recorded once and
    used for release, never recomputed)."""

    WHAT = "a record's skill"
    name: str
    directory: str
    registry_key: str = field(metadata=jsonform.key(check=shapes.is_name, means="a registry key"))
    identifier: str | None = None
    version: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, metadata=jsonform.EXTRA)


@dataclass(frozen=True, slots=True)
class ServerEntry(jsonform.Form):
    """One MCP config entry a deployment wrote; ``runner`` is how a module/script server's
    command was written (``python``, ``script``, ``uvx``; None for command/url servers and
    records written before runners). ``written`` is the entry as written (plain data; None
    in records written before it was kept: such an entry counts as unmodified), what tells
    an entry the user edited since; ``origin`` the entry the key held before any deployment
    wrote it (the user's, replaced with ``--force``, or an identical one found there), which
    removing the deployment puts back (JSON: ``replaced``)."""

    WHAT = "a record's MCP server"
    name: str
    config_key: str
    config_file: str
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False, metadata=jsonform.EXTRA)
    runner: str | None = field(default=None, metadata=jsonform.OMIT_NONE)
    written: Any = field(default=None, metadata=jsonform.OMIT_NONE)
    origin: Origin | None = field(default=None, metadata=jsonform.key("replaced", omit=None))


_SKILLS = "skills."  # (the record's "skills" object, kept flat here)


@dataclass(frozen=True, slots=True, kw_only=True)
class DeploymentRecord(jsonform.Form):
    """The spec's deployment record (schema v2 there, schema 1 here), field by field in the
    order of its JSON:

    ``toolset`` the primary (first) server's name (absent without servers);
    ``agent_tools`` ``{"type": "AgentTools"|"MCPServer", "name", "location":
    "builtin"|"distribution"|None, "distribution", "distribution_version"}``;
    ``client`` the client id; ``target`` ``{"client", "project", "config", "skills_dir"}``;
    ``scope`` ``"user"``, a project directory, or None (unknown); ``location_key``
    ``"user"`` or a canonical path key; ``mcp_servers`` the config entries written;
    ``skills`` ``{"directory", "installed", "skipped", "not_installed"}``; ``hooks`` and
    ``meta`` are kept for compatibility; ``extra`` (and ``skills_extra``, and each entry's
    ``extra``) hold unknown fields verbatim.
    """

    WHAT = "the record"
    version: int = SCHEMA_VERSION
    uuid: str = field(metadata=jsonform.key(check=shapes.is_name, means="a UUID"))
    timestamp: str = ""
    agenttools_version: str = ""
    created_by: str = "deploy"
    agent_tools: Mapping[str, Any]
    client: str
    target: Mapping[str, Any]
    scope: str | None
    location_key: str
    mcp_servers: tuple[ServerEntry, ...] = ()
    skills_directory: str | None = field(default=None, metadata=jsonform.key(_SKILLS + "directory"))
    installed: tuple[InstalledSkill, ...] = field(
        default=(), metadata=jsonform.key(_SKILLS + "installed")
    )
    skipped: tuple[str, ...] = field(default=(), metadata=jsonform.key(_SKILLS + "skipped"))
    not_installed: tuple[str, ...] = field(
        default=(), metadata=jsonform.key(_SKILLS + "not_installed")
    )
    hooks: Mapping[str, Any] = field(default_factory=dict)
    meta: Mapping[str, Any] = field(default_factory=dict)
    extra: Mapping[str, Any] = field(default_factory=dict, metadata=jsonform.EXTRA)
    skills_extra: Mapping[str, Any] = field(default_factory=dict, metadata=jsonform.extra("skills"))

    @property
    def toolset(self) -> str | None:
        """The primary server's name (the spec's top-level ``"Toolset"``)."""
        return self.mcp_servers[0].name if self.mcp_servers else None

    @property
    def toolset_type(self) -> str:
        return str(self.agent_tools.get("type", "AgentTools"))

    @property
    def toolset_name(self) -> str:
        return str(self.agent_tools.get("name", self.toolset or ""))

    def to_json(self) -> dict[str, Any]:
        data = jsonform.Form.to_json(self)
        if self.toolset is not None:
            data["toolset"] = self.toolset
        return data

    @classmethod
    def from_json(cls, data: object, what: str | None = None) -> DeploymentRecord:
        """Parse a record; ``ValueError`` (:class:`~.shapes.Malformed`) on one that is not
        of the shape its schema says (every field of its type)."""
        what = what or cls.WHAT
        version = shapes.obj(data, what).get("version")
        if type(version) is not int or version < 1:
            raise shapes.Malformed(f"unsupported record version {version!r}")
        # (the toolset is the first server's: read from there)
        return jsonform.load(cls, data, what, frozenset({"toolset"}))


def now_timestamp() -> str:
    # as datetime.now(timezone.utc).isoformat(timespec="seconds") with Z, without datetime
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def record_dir(uid: str, deployments: Path) -> Path:
    return deployments / uid


def record_path(uid: str, deployments: Path) -> Path:
    return record_dir(uid, deployments) / RECORD_FILE


def is_stale(uid: str, deployments: Path) -> bool:
    """A reference is stale when its deployment directory or its ``deployment.json`` is
    missing. A record that exists but does not parse, or is no regular file (a named pipe, a
    directory), is *not* stale."""
    # (only a crashed write leaves nothing: whatever is there is a record, readable or not)
    return not os.path.lexists(record_path(uid, deployments))


def has_deployments(deployments: Path | None = None) -> bool:
    """Whether the deployments directory exists (reading only; nothing is created). Raises
    ``StateDirectoryUnusable`` when something else than a directory is there (or where the
    state goes)."""
    directory = deployments or paths.deployments_dir()
    if directory.is_dir():
        return True
    state_directories.check(paths.state_paths(directory), outer=True)
    return False


def read_record(path: Path) -> DeploymentRecord:
    """Read one record. Raises ``InvalidDeploymentRecord`` naming the file: also when its
    ``uuid`` is not the name of its directory (a record moved or edited by hand: which of
    the two is the deployment's cannot be told)."""
    try:
        record = DeploymentRecord.from_json(
            json.loads(regular_files.read_bytes(path).decode("utf-8"))
        )
    except RecursionError as exc:
        reason = "it is nested too deeply to read"
        raise errors.InvalidDeploymentRecord(path=path, reason=reason) from exc
    except OSError as exc:  # (its strerror: the message names the file already)
        reason = exc.strerror or str(exc)
        raise errors.InvalidDeploymentRecord(path=path, reason=reason) from exc
    except ValueError as exc:
        raise errors.InvalidDeploymentRecord(path=path, reason=str(exc)) from exc
    if record.uuid != path.parent.name:
        reason = f"its uuid {record.uuid} is not the name of its directory"
        raise errors.InvalidDeploymentRecord(path=path, reason=reason)
    return record


def iter_records(
    deployments: Path | None = None,
) -> Iterator[DeploymentRecord | errors.InvalidDeploymentRecord]:
    """Every record under the deployments directory (dot-directories — the registry, the
    lock, staging — skipped), sorted by UUID; unreadable ones as the error. Raises
    ``StateDirectoryUnusable`` when something else than a directory is there (or where the
    state goes)."""
    root = deployments or paths.deployments_dir()
    try:
        names = sorted(os.listdir(root))
    except OSError as exc:
        state_directories.check(paths.state_paths(root), outer=True)
        if isinstance(exc, FileNotFoundError):
            return  # (nothing deployed yet)
        raise
    for name in names:
        if name.startswith("."):
            continue
        path = root / name / RECORD_FILE
        if not os.path.lexists(path):
            continue  # a crashed write; its references are stale
        try:
            yield read_record(path)
        except errors.InvalidDeploymentRecord as exc:
            yield exc


def claimed_by_unreadable(names: Iterable[str], deployments: Path) -> frozenset[str]:
    """The uuids that the records named *names* (directory names) may be, when they cannot be
    read: their directory's name and the ``uuid`` their JSON says, if it says one. A skill
    referenced by one of them is never released under it (it may still be using it)."""
    found: set[str] = set()
    for name in names:
        path = deployments / name / RECORD_FILE
        if name.startswith(".") or not os.path.lexists(path):
            continue  # (nothing there: a crashed write, its references stale)
        try:
            read_record(path)
            continue
        except errors.InvalidDeploymentRecord:
            found.add(name)
        try:
            said = json.loads(regular_files.read_bytes(path))
        except (OSError, ValueError, RecursionError):
            continue
        if type(said) is dict and shapes.is_name(said.get("uuid")):
            found.add(said["uuid"])
    return frozenset(found)


def load_records(deployments: Path | None = None) -> list[DeploymentRecord]:
    """Every readable record, oldest first."""
    return oldest_first(iter_records(deployments))


def oldest_first(found: Iterable[object]) -> list[DeploymentRecord]:
    """The records among *found* (errors and None left out), oldest first."""
    readable = (r for r in found if isinstance(r, DeploymentRecord))
    return sorted(readable, key=lambda r: (r.timestamp, r.uuid))


def encode(record: DeploymentRecord) -> bytes:
    return (json.dumps(record.to_json(), indent=2, sort_keys=True) + "\n").encode("utf-8")


def write_record(record: DeploymentRecord, deployments: Path) -> Path:
    """Publish *record*: write it into a staging directory, then rename that to the UUID
    directory. Returns the UUID directory. A leftover staging directory is removed on
    failure where possible."""
    fs.mkdir(deployments)
    staging = deployments / f"{STAGING_PREFIX}{record.uuid}"
    final = deployments / record.uuid
    try:
        fs.mkdir(staging)
        fs.write_bytes_atomic(staging / RECORD_FILE, encode(record))
        fs.rename(staging, final)
        fs.sync_directory(deployments)  # the rename is the commit point: make it durable
    except BaseException:
        if os.path.lexists(staging):
            with contextlib.suppress(OSError):
                fs.rmtree(staging)
        raise
    return final


def staging_leftovers(deployments: Path) -> list[Path]:
    """The staging directories of processes that died while publishing a record (under the
    lock, where no publish is in progress)."""
    try:
        names = sorted(os.listdir(deployments))
    except FileNotFoundError:
        return []
    return [deployments / n for n in names if n.startswith(STAGING_PREFIX)]


def remove_staging_leftovers(deployments: Path) -> None:
    """Delete the :func:`staging_leftovers`. They hold nothing but an unpublished record,
    whose references are stale anyway. Failures are left for next time."""
    for path in staging_leftovers(deployments):
        with contextlib.suppress(OSError):
            fs.rmtree(path)


def write_record_file(record: DeploymentRecord, deployments: Path) -> None:
    """Replace an existing record's file atomically and durably (unknown fields kept)."""
    fs.write_bytes_atomic(record_path(record.uuid, deployments), encode(record))


def delete_record(uid: str, deployments: Path) -> None:
    """Delete the record directory of *uid*, a plain name (``ValueError`` for anything else:
    an empty id would name the whole deployments folder)."""
    if not shapes.is_name(uid):
        raise ValueError(f"{uid!r} is not a deployment id")
    directory = record_dir(uid, deployments)
    if os.path.lexists(directory):
        fs.rmtree(directory)
