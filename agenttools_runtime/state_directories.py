"""The directories of agenttools' state, and what is wrong when one of them is something else
than a directory (a file, a named pipe, a link to nothing: not agenttools', so never removed).

Every command reads or locks in the state directory and the deployments directory; every
command that changes the deployment state writes in the others, and stops before it does when
one is something else (``StateDirectoryUnusable``: :func:`check`). ``agenttools doctor``
reports what is at one of them, and ``--fix`` sets it aside (``<name>-set-aside/<name>``
beside it; reported for the user to move away when something is there already, or
something else than a directory is at ``<name>-set-aside``).
The journal directories are checked where journals are written (``deploy/journal.py``).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from agenttools_runtime import errors, regular_files
from agenttools_runtime.paths import StatePaths

# how many of :func:`directories` (the first) every command reads, or takes the lock in
OUTER = 2


@dataclass(frozen=True, slots=True)
class StateDirectory:
    """One directory of the state: its path and what agenttools keeps there (for messages:
    ``the directory of agenttools' <holding>``)."""

    path: Path
    holding: str


def directories(state: StatePaths) -> list[StateDirectory]:
    """The directories of the deployment state, outermost first: the :data:`OUTER` ones that
    every command reads or locks in, then those the commands that change the state write in
    (the journals' excepted)."""
    return [
        StateDirectory(state.deployments.parent, "state"),
        StateDirectory(state.deployments, "deployment records"),
        StateDirectory(state.registry, "skill registry"),
        StateDirectory(state.index.parent, "state index"),
        StateDirectory(state.verified, "verified-files cache"),
        StateDirectory(state.created.parent, "ledger of the paths it created"),
    ]


@dataclass(frozen=True, slots=True)
class Unusable:
    """Something else than a directory (*what*, as :func:`directory_problem` names it) where
    the state directory *directory* goes."""

    directory: StateDirectory
    what: str

    @property
    def path(self) -> Path:
        return self.directory.path


def unusable(state: StatePaths, *, outer: bool = False) -> list[Unusable]:
    """The state directories (with *outer*, only the :data:`OUTER` ones) that are something
    else than a directory (one inside another such is not: nothing can be there)."""
    found = []
    for directory in directories(state)[:OUTER] if outer else directories(state):
        what = directory_problem(directory.path)
        if what is not None:
            found.append(Unusable(directory, what))
    return found


def check(state: StatePaths, *, outer: bool = False) -> None:
    """Raise ``StateDirectoryUnusable`` for the first (outermost) of the state directories
    (with *outer*, of the :data:`OUTER` ones) that is something else than a directory."""
    for found in unusable(state, outer=outer):
        path = found.path
        raise errors.StateDirectoryUnusable(
            path=path,
            what=found.what,
            holding=found.directory.holding,
            set_aside=directory_set_aside(path),
        )


def directory_problem(directory: Path) -> str | None:
    """What is at *directory* (one of the state, of the journals, or of the managed
    environments) when it is not a directory (nor a link to one), for messages: ``a named
    pipe``, ``a regular file``, ``a symbolic link to nothing``; None when it is one, or
    nothing is there (nor can be: something else than a directory is above it)."""
    try:
        mode = os.stat(directory).st_mode
    except FileNotFoundError:
        return "a symbolic link to nothing" if os.path.islink(directory) else None
    except OSError:
        return None  # (then creating it says why it cannot be)
    if stat.S_ISDIR(mode):
        return None
    what = "a regular file" if stat.S_ISREG(mode) else regular_files.kind(mode)
    return f"a symbolic link to {what}" if os.path.islink(directory) else what


def directory_set_aside(directory: Path) -> Path:
    """Where ``doctor --fix`` moves what is at *directory* (one of the state, a journal
    directory of deployments or of managed environments, or the managed environments' own)
    when it is not a directory: ``<name>-set-aside/<name>`` beside it, so that of a journal
    directory goes beside the journals it sets aside (``.journal-set-aside/.journal``)."""
    return directory.with_name(f"{directory.name}-set-aside") / directory.name


def set_aside_problem(place: Path) -> str | None:
    """Why nothing can be moved into *place*, a directory where ``doctor --fix`` sets things
    aside (the ``<name>-set-aside`` of :func:`directory_set_aside`, a ``.journal-set-aside``),
    when something else than a directory is there (not agenttools': left as it is), for
    messages: ``<place> is a regular file, not a directory``; None when it is one, or nothing
    is there."""
    what = directory_problem(place)
    return None if what is None else f"{place} is {what}, not a directory"
