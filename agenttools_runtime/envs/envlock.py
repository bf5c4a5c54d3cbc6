"""The lock over managed environments, ``<state>/envs/.lock``: held by whatever creates,
upgrades, rebuilds or deletes one, for the whole operation (an install holds it from the first
step to the deployment that references the new environment), so that under it every journal
in ``<state>/envs/.journal`` is of a process that is gone. Taken before the deployment lock,
never after it: code holding the deployment lock only *tries* it (:func:`try_environments_lock`)
and leaves the environments to the next command when it is busy.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from pathlib import Path

from agenttools_runtime.envs.layout import envs_dir
from agenttools_runtime.errors import EnvironmentsLockTimeout
from agenttools_runtime.lock import file_lock

LOCK_TIMEOUT = 600.0  # an install may take minutes; another waits for it

_held: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "agenttools_environments_lock_held", default=False
)


def lock_file() -> Path:
    return envs_dir() / ".lock"


def environments_lock_held() -> bool:
    """True inside an :func:`environments_lock` block of this context."""
    return _held.get()


@contextlib.contextmanager
def environments_lock() -> Iterator[None]:
    """Hold the environments lock for the block (re-entrant in one context). Raises
    ``EnvironmentsLockTimeout``."""
    if _held.get():
        yield
        return
    with file_lock(lock_file(), LOCK_TIMEOUT, _held) as taken:
        if not taken:
            raise EnvironmentsLockTimeout(lock_file=str(lock_file()), timeout=LOCK_TIMEOUT)
        yield


@contextlib.contextmanager
def try_environments_lock() -> Iterator[bool]:
    """Hold the lock for the block if it is free now; yields whether it is held (by this
    block or an enclosing one of this context: then this one does nothing)."""
    if _held.get():
        yield False  # the enclosing block's operation is not ours to recover or collect
        return
    with file_lock(lock_file(), 0.0, _held) as taken:
        yield taken
