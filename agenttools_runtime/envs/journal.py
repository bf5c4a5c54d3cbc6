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
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttools_runtime import fs, jsonform, paths, regular_files
from agenttools_runtime.envs.layout import envs_dir

SCHEMA = 1
INSTALL, REBUILD = "install", "rebuild"
SUFFIX = ".json"


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


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A journal file that cannot be read, and why (see the module docstring)."""

    path: Path
    reason: str


def pending() -> Iterator[EnvironmentJournal | Unreadable]:
    """Every journal left, newest first."""
    directory = journal_dir()
    for name in reversed(_names(directory)):
        if not name.endswith(SUFFIX) or name.startswith("."):
            continue
        path = directory / name
        try:
            yield EnvironmentJournal.read(path)
        except FileNotFoundError:
            continue
        except (OSError, ValueError, RecursionError) as exc:
            yield Unreadable(path, str(exc) or type(exc).__name__)


def set_aside(path: Path) -> Path:
    """Move the journal *path* that cannot be read to :func:`set_aside_dir` (environments
    lock held); where it went."""
    target = set_aside_dir() / path.name
    fs.mkdir(target.parent)
    fs.rename(path, target)
    return target


def set_aside_journals() -> list[Path]:
    directory = set_aside_dir()
    return [directory / n for n in _names(directory) if not n.startswith(".")]


def named_by(path: Path) -> list[str]:
    """The environments there are whose names the file name or the bytes of the journal
    *path* hold: what a journal that cannot be read may be about."""
    text = path.name
    with contextlib.suppress(OSError):
        text += "\n" + regular_files.read_bytes(path).decode("utf-8", "replace")
    return [n for n in _names(envs_dir()) if not n.startswith(".") and n in text]


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


def _names(directory: Path) -> list[str]:
    """The names in *directory*, sorted (none when it is not there)."""
    try:
        return sorted(os.listdir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return []
