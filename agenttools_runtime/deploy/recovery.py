"""Finishing or rolling back operations that a process did not live to complete.

The first thing every locked operation does (:func:`agenttools_runtime.deploy.lock.deployment_lock`)
is to look for intent journals (:mod:`agenttools_runtime.deploy.journal`). Holding the lock,
it knows their writers are gone; it handles them newest first (an operation's nested
journals before its own): an uncommitted deploy is rolled back, a committed one finished, a
removal or sweep finished. Each becomes one ``InterruptedOperationRecovered`` warning, the
line a command prints before its own output. Before them, the temp files that a dead holder
of the lock listed (:func:`agenttools_runtime.fs.listing_temp_files`) and did not rename are
deleted, wherever they are. A journal that cannot be handled (a file
system refusing) stops the command with ``StateRecoveryFailed``: nothing else is done on top
of a half-finished operation; ``agenttools doctor`` shows it.
"""

from __future__ import annotations

from agenttools_runtime import errors, fs
from agenttools_runtime.deploy import apply, journal, removal
from agenttools_runtime.deploy.journal import Journal, Kind, Unreadable
from agenttools_runtime.deploy.store import Store
from agenttools_runtime.errors import AgentToolsWarning


def recover(store: Store) -> list[AgentToolsWarning]:
    """Handle every journal left in the state (call under the lock). Returns the warnings:
    one line per operation, then what handling it said; ``store.recovered`` lists the
    journals handled (what a command that was about to do the same thing has found done)."""
    found: list[AgentToolsWarning] = []
    # first the temp files the dead holders of the lock listed (beside config files too, or
    # beside what a linked one points to): nothing but copies an atomic write did not rename
    for log in journal.temp_logs(store.state):
        try:
            for path in fs.listed_temp_files(log):
                fs.unlink(path, missing_ok=True)
            fs.unlink(log, missing_ok=True)
        except OSError:
            continue  # left for the next command (and named by doctor)
    for item in journal.pending(store.state):
        if isinstance(item, Unreadable):  # never acted on: what it would undo is unknown
            reason = (
                f"it cannot be read ({item.reason}), so nothing is done from it; "
                "'agenttools doctor --fix' sets it aside"
            )
            raise errors.StateRecoveryFailed(journal=item.path, reason=reason)
        touched = apply.written_directories(store, item)
        try:
            outcome, said = _handle(store, item)
        except OSError as exc:
            raise errors.StateRecoveryFailed(
                journal=item.path, reason=exc.strerror or str(exc)
            ) from exc
        store.recovered.append(item)
        found.append(
            errors.InterruptedOperationRecovered(
                operation=item.describe(), outcome=outcome, kind=item.kind.value, uuid=item.uuid
            )
        )
        found.extend(said)
        apply.remove_temp_files(touched)
    # files no journal names (a journal whose writing died before the journal file itself:
    # its side files; the temp file of an atomic write) are nothing but copies
    for path in journal.orphan_files(store.state):
        fs.remove_entry(path)
    return found


def _handle(store: Store, item: Journal) -> tuple[str, list[AgentToolsWarning]]:
    if item.kind is Kind.DEPLOY:
        if apply.committed(store, item):
            return "finished", apply.finish(store, item)
        errors, said = apply.undo(store, item)
        if errors:
            first = errors[0]
            raise first if isinstance(first, OSError) else OSError(str(first))
        journal.delete(item)
        return "rolled back", said
    if item.kind is Kind.REMOVE:
        return "finished", removal.finish_removal(store, item)
    return "finished", removal.finish_sweep(store, item)
