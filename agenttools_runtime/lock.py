"""The one cross-process lock over agenttools' shared state: ``<state>/deployments/.lock``.

Everything that edits a client config file, a skills root, the skill registry or the
deployment records holds it: ``deploy``, ``remove``, ``doctor --fix``, and the low-level
``install_mcp_server``/``uninstall_mcp_server``/``install_skills``/``uninstall_skills``. It is
an exclusive ``flock`` of that file on Unix (taken here: importing ``filelock`` cost a deploy
20 ms of CPU, a tenth of a fresh one's; the same lock as ``filelock``'s, so the two exclude
each other) and a :class:`filelock.FileLock` (``LockFileEx``) on Windows, acquired with a
60-second timeout; a timeout raises ``DeploymentLockTimeout``. Nested use in one process (one
context: thread or task) does not deadlock: a :class:`contextvars.ContextVar` says the lock is
already held, and the inner block just runs. While it is held, SIGTERM unwinds the operation
like Ctrl-C does (:func:`agenttools_runtime.signals.interruptible`), so it is rolled back
instead of cut short. The lock over managed environments (:mod:`agenttools_runtime.envs.envlock`)
is a lock of the same kind (:func:`file_lock`) on a file of its own.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from agenttools_runtime import errors, fs, paths, signals, state_directories

LOCK_TIMEOUT = 60.0

_held: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "agenttools_state_lock_held", default=False
)


def lock_held() -> bool:
    """True inside a :func:`state_lock` block of this context."""
    return _held.get()


@contextlib.contextmanager
def state_lock(
    timeout: float | None = None, state: paths.StatePaths | None = None
) -> Iterator[bool]:
    """Hold the state lock for the block; yields True when this block took it (False when an
    enclosing block of this context already holds it). Raises ``DeploymentLockTimeout`` when
    another process holds it for longer than *timeout* seconds (default :data:`LOCK_TIMEOUT`),
    ``StateDirectoryUnusable`` when something else than a directory is where it goes."""
    if _held.get():
        yield False
        return
    state = state or paths.state_paths()
    seconds = LOCK_TIMEOUT if timeout is None else timeout
    state_directories.check(state, outer=True)  # (the lock's: said as what is there instead)
    with file_lock(state.lock, seconds, _held) as taken:
        if not taken:
            raise errors.DeploymentLockTimeout(lock_file=str(state.lock), timeout=seconds)
        try:
            # (the temp files of its atomic writes are listed: killed, the next holder
            # deletes them)
            with signals.interruptible(), fs.listing_temp_files(fs.new_temp_log(state.journals)):
                yield True
        finally:
            with contextlib.suppress(OSError):
                _remove_emptied_state(state)


@contextlib.contextmanager
def file_lock(path: Path, timeout: float, held: contextvars.ContextVar[bool]) -> Iterator[bool]:
    """Hold the exclusive lock of the file *path* for the block, *held* set in this context
    meanwhile; yields False (and holds nothing) when another process held it for longer
    than *timeout* seconds."""
    # the lock's own directory is not a change to undo or to fail on purpose: not through fs
    os.makedirs(path.parent, exist_ok=True)
    release = _acquire(str(path), timeout)
    if release is None:
        yield False
        return
    token = held.set(True)
    try:
        yield True
    finally:
        held.reset(token)
        release()


# What the deployments directory holds that agenttools makes again when it needs it, when
# empty or not: the lock, the index, the verified-files cache; and, only when empty, the
# journal and registry directories and the ledger's (a record is a directory without a dot).
_RECREATED = frozenset({".lock", ".index", ".verified"})
_RECREATED_EMPTY = frozenset({".journal", ".skill-registry", ".created"})


def _remove_emptied_state(state: paths.StatePaths) -> None:
    """Remove the state folder when it holds nothing but what agenttools makes again (no
    record, no registry entry, no journal, nothing set aside, nothing it does not know):
    the last removal, or a command that only looked, leaves no folder behind. Called by the
    holder of the lock as it lets go (the lock file goes too: a process waiting for it opens
    it anew)."""
    deployments = state.deployments
    try:
        with os.scandir(deployments) as found:
            names = []
            for item in found:
                # (each what agenttools makes there: the lock a file, the rest directories)
                is_file = item.name == ".lock"
                if item.name not in _RECREATED | _RECREATED_EMPTY or item.is_symlink():
                    return
                if (item.is_file() if is_file else item.is_dir()) is False:
                    return
                names.append(item.name)
        for name in _RECREATED_EMPTY.intersection(names):
            with os.scandir(deployments / name) as inside:
                if any(True for _ in inside):
                    return
    except OSError:
        return
    # (the state's own bookkeeping, as the lock's directory is: not through fs, whose
    # observers count and fail the changes of an operation)
    for name in sorted(set(names) - {".lock"}):
        shutil.rmtree(deployments / name)
    os.unlink(state.lock)
    os.rmdir(deployments)
    with contextlib.suppress(OSError):  # (the state's home: only when nothing else is there)
        os.rmdir(deployments.parent)


POLL_SECONDS = 0.05  # (filelock's interval)


def _acquire(path: str, timeout: float) -> Callable[[], None] | None:
    """Take the lock on *path* within *timeout* seconds; the function that releases it, or
    None on a timeout."""
    if os.name == "nt":
        from filelock import FileLock, Timeout

        lock = FileLock(path, timeout=timeout)
        try:
            lock.acquire()
        except Timeout:
            return None
        return lock.release

    import fcntl

    deadline = time.monotonic() + timeout
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except FileNotFoundError:  # the last holder removed the emptied state: make it again
            os.makedirs(os.path.dirname(path), exist_ok=True)
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:  # held by another process (or another open of this one's)
            os.close(fd)
        except BaseException:
            os.close(fd)
            raise
        else:
            if os.fstat(fd).st_nlink:
                return lambda: os.close(fd)  # (closing the file releases its lock)
            os.close(fd)  # deleted between the open and the lock: the name is another file
            continue
        if time.monotonic() >= deadline:
            return None
        time.sleep(POLL_SECONDS)
