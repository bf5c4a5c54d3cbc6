"""Intent journals of environment operations, ``<state>/envs/.journal/<sequence>-<kind>-<name>
.json``: written (atomically, fsynced) before the operation changes anything, deleted when it
is done, with the rules of the deployment journals (``deploy/journal.py``): under the
environments lock every journal is of a process that is gone, and the next command finishes or
undoes it (:mod:`agenttools_runtime.envs.recovery`). Two kinds:

``install``
    A new environment (``environment``) is being built and deployed from, and the
    environments it takes over from (``replaces``: an upgrade's old one) are to go. Whether
    it was committed is what the deployment records say: the new environment is kept when a
    deployment references it, and then the replaced ones go that no deployment references;
    otherwise the new one goes (the old ones were never touched).
``rebuild``
    An environment is being made again at its own path from its receipt (``receipt``, kept
    here): one left without a receipt gets it back, so that ``doctor`` finds it again.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttools_runtime import fs
from agenttools_runtime.envs.layout import envs_dir

SCHEMA = 1
INSTALL, REBUILD = "install", "rebuild"
SUFFIX = ".json"


def journal_dir() -> Path:
    return envs_dir() / ".journal"


@dataclass(frozen=True, slots=True)
class EnvironmentJournal:
    """One operation's intent (see the module docstring); ``path`` is its file."""

    path: Path
    kind: str
    environment: str
    replaces: tuple[str, ...] = ()
    pid: int = 0
    created: str = ""
    receipt: Mapping[str, Any] | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            **self.extra,
            "schema": SCHEMA,
            "kind": self.kind,
            "environment": self.environment,
            "replaces": list(self.replaces),
            "pid": self.pid,
            "created": self.created,
            "receipt": None if self.receipt is None else dict(self.receipt),
        }

    @classmethod
    def from_json(cls, path: Path, data: Mapping[str, Any]) -> EnvironmentJournal:
        if data.get("schema") != SCHEMA:
            raise ValueError(f"unknown journal schema {data.get('schema')!r}")
        kind = data.get("kind")
        if kind not in (INSTALL, REBUILD):
            raise ValueError(f"unknown journal kind {kind!r}")
        environment = str(data["environment"])
        if (
            not environment
            or "/" in environment
            or os.sep in environment
            or environment.startswith(".")
        ):
            raise ValueError(f"not an environment name: {environment!r}")
        replaces = tuple(str(n) for n in data.get("replaces", ()))
        known = {"schema", "kind", "environment", "replaces", "pid", "created", "receipt"}
        return cls(
            path=path,
            kind=str(kind),
            environment=environment,
            replaces=tuple(n for n in replaces if n and "/" not in n and not n.startswith(".")),
            pid=int(data.get("pid") or 0),
            created=str(data.get("created") or ""),
            receipt=data.get("receipt"),
            extra={k: v for k, v in data.items() if k not in known},
        )


def begin(
    kind: str,
    environment: str,
    *,
    replaces: tuple[str, ...] = (),
    receipt: Mapping[str, Any] | None = None,
) -> EnvironmentJournal:
    """Write a new journal durably and return it."""
    directory = journal_dir()
    entry = EnvironmentJournal(
        path=directory / f"{time.time_ns():020d}-{kind}-{environment}{SUFFIX}",
        kind=kind,
        environment=environment,
        replaces=replaces,
        pid=os.getpid(),
        created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        receipt=receipt,
    )
    fs.mkdir(directory)
    data = json.dumps(entry.to_json(), sort_keys=True, separators=(",", ":"))
    fs.write_bytes_atomic(entry.path, data.encode("utf-8"))
    return entry


def end(entry: EnvironmentJournal) -> None:
    """The operation is done: delete its journal."""
    fs.unlink(entry.path, missing_ok=True)


def pending() -> Iterator[EnvironmentJournal]:
    """Every journal left that can be read, newest first (one that cannot is left as it is:
    nothing says what its operation was)."""
    directory = journal_dir()
    try:
        names = os.listdir(directory)
    except (FileNotFoundError, NotADirectoryError):
        return
    for name in sorted(
        (n for n in names if n.endswith(SUFFIX) and not n.startswith(".")), reverse=True
    ):
        path = directory / name
        try:
            yield EnvironmentJournal.from_json(path, json.loads(path.read_bytes()))
        except (OSError, ValueError, KeyError, TypeError):
            continue


def busy() -> set[str]:
    """The environments of the operations left unfinished: neither used nor removed until
    recovery finishes them."""
    return {j.environment for j in pending()}
