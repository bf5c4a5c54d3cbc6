"""Intent journals of environment operations, ``<state>/envs/.journal/<sequence>-<kind>-<name>
.json``: written (atomically, fsynced) before the operation changes anything, deleted when it
is done, files of the form and with the rules of the deployment journals
(:mod:`agenttools_runtime.deploy.journal`, which names, writes and lists them): under the
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

A journal that cannot be read (not JSON, not of this shape, a name that is a path) is never
acted on: nothing says what its operation was. Recovery warns about it and leaves it, and it
keeps every environment whose name its file name or its bytes hold from being used or removed
(the rule of a deployment record that cannot be read, ``refs.py``); ``doctor --fix`` moves it
to ``.journal-set-aside/``, where it keeps them until the user deletes it.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttools_runtime import fs, jsonform, paths, regular_files
from agenttools_runtime.deploy import records
from agenttools_runtime.deploy.journal import SUFFIX, move_aside, names, new_path, pending_in, write
from agenttools_runtime.deploy.journal import Unreadable as Unreadable  # (this module's too)
from agenttools_runtime.envs.layout import envs_dir

SCHEMA = 1
INSTALL, REBUILD = "install", "rebuild"


def journal_dir() -> Path:
    return paths.state_paths().environment_journals


def set_aside_dir() -> Path:
    """Where ``doctor --fix`` moves the journals that cannot be read."""
    return envs_dir() / ".journal-set-aside"


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
        data = json.loads(regular_files.read_bytes(path))
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
    entry = EnvironmentJournal(
        path=new_path(journal_dir(), kind, environment),
        kind=kind,
        environment=environment,
        replaces=replaces,
        pid=os.getpid(),
        created=records.now_timestamp(),
        receipt=receipt,
    )
    write(entry)
    return entry


def end(entry: EnvironmentJournal) -> None:
    """The operation is done: delete its journal."""
    fs.unlink(entry.path, missing_ok=True)


def pending() -> Iterator[EnvironmentJournal | Unreadable]:
    """Every journal left, newest first (one that cannot be read as :class:`Unreadable`: see
    the module docstring)."""
    return pending_in(journal_dir(), EnvironmentJournal.read)


def set_aside(path: Path) -> Path:
    """Move the journal *path* that cannot be read to :func:`set_aside_dir` (environments
    lock held), never over one set aside before (then as ``<stem>.<n>.json``); where it
    went."""
    stem = path.name[: -len(SUFFIX)] if path.name.endswith(SUFFIX) else path.name
    return move_aside(path.parent, [path.name], stem, set_aside_dir())[path.name]


def set_aside_journals() -> list[Path]:
    directory = set_aside_dir()
    return [directory / n for n in names(directory) if not n.startswith(".")]


def named_by(path: Path) -> list[str]:
    """The environments there are whose names the file name or the bytes of the journal
    *path* hold: what a journal that cannot be read may be about."""
    text = path.name
    with contextlib.suppress(OSError):
        text += "\n" + regular_files.read_bytes(path).decode("utf-8", "replace")
    return [n for n in names(envs_dir()) if not n.startswith(".") and n in text]


def what_it_keeps(path: Path) -> str:
    """For messages: the environments the journal *path* that cannot be read keeps."""
    names = named_by(path)
    if not names:
        return "it names no managed environment there is"
    return f"the managed environments it names are kept while it is there: {', '.join(names)}"


def kept_by_unreadable(entries: Iterable[EnvironmentJournal | Unreadable]) -> set[str]:
    """The environments named by the journals of *entries* (what :func:`pending` gave) that
    cannot be read, and by those set aside."""
    found = [i.path for i in entries if isinstance(i, Unreadable)] + set_aside_journals()
    return {name for path in found for name in named_by(path)}


def busy() -> set[str]:
    """The environments of the operations left unfinished, and those a journal that cannot
    be read names: neither used nor removed until recovery finishes them (or the user deletes
    that journal)."""
    entries = list(pending())
    unfinished = {j.environment for j in entries if isinstance(j, EnvironmentJournal)}
    return unfinished | kept_by_unreadable(entries)
