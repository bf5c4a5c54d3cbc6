"""Canonical paths, comparison keys and the state directory.

Every location is computed at call time from the environment (``AGENTTOOLS_HOME``,
``Path.home()``), never cached, so tests isolate everything by setting ``HOME`` and
``AGENTTOOLS_HOME``. An operation computes its :class:`StatePaths` once and passes them on.
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import platformdirs

STATE_ENV = "AGENTTOOLS_HOME"


def state_dir() -> Path:
    """``$AGENTTOOLS_HOME`` if set, else the platform's per-user data directory."""
    override = os.environ.get(STATE_ENV)
    if override:
        return Path(override).expanduser()

    return Path(platformdirs.user_data_dir("agenttools", appauthor=False))


def deployments_dir() -> Path:
    return state_dir() / "deployments"


@dataclass(frozen=True, slots=True)
class StatePaths:
    """Every location of the deployment state, computed once for one operation.

    ``deployments`` holds one directory per record; the dot-entries beside them are skipped
    by record scans (older versions included): ``.skill-registry/`` (one file per skill
    directory), ``.index/index.json`` (the lookup index), ``.verified/`` (a cache),
    ``.journal/`` (intent journals of operations in progress), ``.created/`` and ``.lock``.
    """

    deployments: Path

    @property
    def registry(self) -> Path:
        return self.deployments / ".skill-registry"

    @property
    def index(self) -> Path:
        return self.deployments / ".index" / "index.json"

    @property
    def index_log(self) -> Path:
        """The changes made since ``index`` was written (agenttools_runtime/deploy/index.py)."""
        return self.deployments / ".index" / "index.log"

    @property
    def verified(self) -> Path:
        """The cache of verified wheel files (``verified.py``)."""
        return self.deployments / ".verified"

    @property
    def journals(self) -> Path:
        return self.deployments / ".journal"

    @property
    def lock(self) -> Path:
        return self.deployments / ".lock"

    def journals_left(self) -> bool:
        """Whether anything is in the journal directory: what an interrupted operation left
        (cheap: nothing is read; ``deploy/journal.py`` reads them)."""
        return has_entries(self.journals)

    @property
    def environments(self) -> Path:
        """``<state>/envs``: the managed environments (``envs/layout.py``)."""
        return self.deployments.parent / "envs"

    @property
    def environment_journals(self) -> Path:
        """The intent journals of operations on managed environments (``envs/journal.py``)."""
        return self.environments / ".journal"

    def environment_journals_left(self) -> bool:
        """Whether the environment journal directory holds anything: what an interrupted
        operation on a managed environment left (``envs/journal.py`` reads them)."""
        return has_entries(self.environment_journals)

    def interrupted_left(self) -> bool:
        """Whether an interrupted operation left a journal, of a deployment or of a managed
        environment: what ``deploy.lock.finish_interrupted`` finishes or undoes."""
        return self.journals_left() or self.environment_journals_left()

    @property
    def created(self) -> Path:
        """The ledger of paths agenttools created (``deploy/litter.py``); a directory of its
        own, so writing it does not change the deployments directory (the index's stamp)."""
        return self.deployments / ".created" / "paths.json"


def has_entries(directory: Path) -> bool:
    """Whether *directory* exists and holds anything (nothing is read)."""
    try:
        with os.scandir(directory) as found:
            return any(True for _ in found)
    except (FileNotFoundError, NotADirectoryError):
        return False


def state_paths(deployments: Path | None = None) -> StatePaths:
    """The state locations now (from ``AGENTTOOLS_HOME``), or those under *deployments*."""
    return StatePaths(deployments_dir() if deployments is None else deployments)


def missing_dirs(directory: Path) -> list[Path]:
    """The directories ``mkdir -p directory`` would create, outermost first, by their real
    paths (what the ledger keeps, and what a rollback removes again)."""
    missing: list[Path] = []
    current = Path(os.path.abspath(directory))
    while not os.path.lexists(current) and current.parent != current:
        missing.append(current)
        current = current.parent
    return [Path(os.path.realpath(d)) for d in reversed(missing)]


def absolute_path(path: Path | str | os.PathLike[str]) -> Path:
    """*path* with ``~`` expanded, made absolute (no link resolved, nothing read)."""
    return Path(os.path.abspath(os.path.expanduser(os.fspath(path))))


def canonical_path(path: Path | str) -> Path:
    """The real path of the deepest existing ancestor of *path*, joined with the rest.

    Symbolic links are resolved only where something exists, so the result is stable before
    and after the path itself is created.
    """
    missing: list[str] = []
    current = absolute_path(path)
    while not os.path.lexists(current):
        parent = current.parent
        if parent == current:
            break
        missing.append(current.name)
        current = parent
    return Path(os.path.realpath(current)).joinpath(*reversed(missing))


def case_insensitive_fs() -> bool:
    """Windows and macOS file systems are case-insensitive by default."""
    return sys.platform == "win32" or sys.platform == "darwin"


def canonical_path_key(path: Path | str) -> str:
    """Comparison form of :func:`canonical_path`: ``/``-separated, case-folded where the
    platform's file systems are case-insensitive."""
    text = canonical_path(path).as_posix()
    if case_insensitive_fs():
        text = text.casefold()
    return text


def registry_key(skills_root: Path | str, name: str) -> str:
    """SHA-256 of ``canonical_path_key(root) + "/" + name``: one skill directory's key.

    Computed once before anything is created and then recorded; release uses the recorded
    key, never a recomputed one.
    """
    return registry_key_for(canonical_path_key(skills_root), name)


def registry_key_for(root_key: str, name: str) -> str:
    """:func:`registry_key` from the root's :func:`canonical_path_key`, computed already."""
    return hashlib.sha256(f"{root_key}/{name}".encode()).hexdigest()
