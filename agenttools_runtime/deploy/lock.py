"""The cross-process deployment lock: ``<state>/deployments/.lock``.

Deploys and removals change records, the skill registry, client config files and skill
directories only while holding it. It is a :class:`filelock.FileLock` (``flock`` on Unix,
``LockFileEx`` on Windows) acquired with a 60-second timeout; a timeout raises
``DeploymentLockTimeout``. Nested use in one process (one context — thread or task) does not
deadlock: a :class:`contextvars.ContextVar` says the lock is already held, and the inner
block just runs.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from agenttools_runtime import fs, paths
from agenttools_runtime.errors import DeploymentLockTimeout

LOCK_TIMEOUT = 60.0

_held: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "agenttools_deployment_lock_held", default=False
)


def lock_held() -> bool:
    """True inside a :func:`deployment_lock` block of this context."""
    return _held.get()


@contextlib.contextmanager
def deployment_lock(timeout: float | None = None) -> Iterator[None]:
    """Hold the deployment lock for the block. Raises ``DeploymentLockTimeout`` when another
    process holds it for longer than *timeout* seconds (default :data:`LOCK_TIMEOUT`)."""
    if _held.get():
        yield
        return
    from filelock import FileLock, Timeout  # lazy: only locked operations need it

    lock_file = paths.deployment_lock_file()
    fs.mkdir(lock_file.parent)
    seconds = LOCK_TIMEOUT if timeout is None else timeout
    lock = FileLock(str(lock_file), timeout=seconds)
    try:
        lock.acquire()
    except Timeout as exc:
        raise DeploymentLockTimeout(lock_file=str(lock_file), timeout=seconds) from exc
    token = _held.set(True)
    try:
        yield
    finally:
        _held.reset(token)
        lock.release()
