"""The deployment lock: the state lock, plus the state it guards, made consistent first.

``deployment_lock()`` takes the one cross-process lock (:mod:`agenttools_runtime.lock`),
opens the operation's :class:`~agenttools_runtime.deploy.store.Store` (state paths and index,
once), and before anything else finishes or rolls back whatever an interrupted process left
(:mod:`agenttools_runtime.deploy.recovery`), issuing one warning per operation it handled. It
yields the store; nested use in one context yields the same store. The index is written back
when the outermost block ends. The lock itself knows nothing of recovery; this module, above
both, is what every operation takes.
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings
from collections.abc import Iterator

from agenttools_runtime import lock, paths, signals, state_directories
from agenttools_runtime.deploy import journal
from agenttools_runtime.deploy.recovery import recover
from agenttools_runtime.deploy.store import Store

_store: contextvars.ContextVar[Store | None] = contextvars.ContextVar(
    "agenttools_deployment_store", default=None
)


@contextlib.contextmanager
def deployment_lock(
    timeout: float | None = None, state: paths.StatePaths | None = None
) -> Iterator[Store]:
    """Hold the state lock for the block, with interrupted operations handled first.
    Raises ``DeploymentLockTimeout`` and ``StateRecoveryFailed`` (``JournalDirectoryUnusable``
    before anything is done, when the journal directory is not a directory), and
    ``StateDirectoryUnusable`` when another directory of the state is not one."""
    current = _store.get()
    if current is not None:
        yield current
        return
    state = state or paths.state_paths()
    with lock.state_lock(timeout, state):
        state_directories.check(state)
        store = Store.open(state)
        token = _store.set(store)
        try:
            journal.check_directory(state.journals)
            if state.journals_left():  # what recovery handles is there
                for warning in recover(store):
                    warnings.warn(warning, stacklevel=3)
            if state.environment_journals_left():  # an interrupted managed-environment install
                from agenttools_runtime.envs.recovery import recover_if_free

                for warning in recover_if_free():
                    warnings.warn(warning, stacklevel=3)
            yield store
        finally:
            _store.reset(token)
            # the index is the operation's last write: a signal waits for it
            with signals.deferred(), contextlib.suppress(OSError):
                store.save()


def finish_interrupted(state: paths.StatePaths | None = None) -> None:
    """Finish or roll back what interrupted processes left, if anything (taking the lock
    only then): what the low-level commands do before their own work."""
    state = state or paths.state_paths()
    if state.interrupted_left():
        with deployment_lock(state=state):
            pass
