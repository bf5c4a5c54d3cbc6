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

from agenttools_runtime import fs, jsonform
from agenttools_runtime.envs.layout import envs_dir

SCHEMA = 1
INSTALL, REBUILD = "install", "rebuild"
SUFFIX = ".json"


def journal_dir() -> Path:
    return envs_dir() / ".journal"


def _is_name(name: str) -> bool:
    """Whether *name* can be an environment's directory name (no path, no dot-entry)."""
    return bool(name) and "/" not in name and os.sep not in name and not name.startswith(".")


@dataclass(frozen=True, slots=True)
class EnvironmentJournal(jsonform.Form):
    """One operation's intent (see the module docstring); ``path`` is its file."""

    WHAT = "the journal"
    path: Path = field(metadata=jsonform.NOT_JSON)
    kind: str = field(metadata=jsonform.key(check=(INSTALL, REBUILD).__contains__, means="a kind"))
    environment: str = field(metadata=jsonform.key(check=_is_name, means="an environment name"))
    replaces: tuple[str, ...] = field(
        default=(),
        metadata=jsonform.key(check=lambda names: all(map(_is_name, names)), means="names"),
    )
    pid: int = 0
    created: str = ""
    receipt: Mapping[str, Any] | None = field(default=None, metadata=jsonform.key(omit=None))
    extra: Mapping[str, Any] = field(default_factory=dict, metadata=jsonform.EXTRA)

    def to_json(self) -> dict[str, Any]:
        return {**jsonform.Form.to_json(self), "schema": SCHEMA}

    @classmethod
    def read(cls, path: Path) -> EnvironmentJournal:
        """The journal in the file *path*. Raises ``OSError`` and ``ValueError``."""
        data = json.loads(path.read_bytes())
        entry = jsonform.load(cls, data, cls.WHAT, frozenset({"schema"}), path=path)
        if data.get("schema") != SCHEMA:
            raise ValueError(f"unknown journal schema {data.get('schema')!r}")
        return entry


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
            entry = EnvironmentJournal.read(path)
        except (OSError, ValueError):
            continue
        yield entry


def busy() -> set[str]:
    """The environments of the operations left unfinished: neither used nor removed until
    recovery finishes them."""
    return {j.environment for j in pending()}
