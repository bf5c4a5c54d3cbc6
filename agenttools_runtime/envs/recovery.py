"""Finishing or undoing environment operations a process did not live to complete (see
:mod:`agenttools_runtime.envs.journal`). Runs with the environments lock held, after the
deployment state was recovered (the deployment lock's own recovery), since whether an install
was committed is what the deployment records say. A journal that cannot be read is left as it
is, with the environments it names (``journal.busy``): a warning says so each time
(the command line prints a warning it was given twice once)."""

from __future__ import annotations

import contextlib

from agenttools_runtime import fs
from agenttools_runtime.envs import journal, layout, receipt
from agenttools_runtime.envs.envlock import try_environments_lock
from agenttools_runtime.envs.journal import INSTALL, EnvironmentJournal
from agenttools_runtime.envs.layout import envs_dir
from agenttools_runtime.envs.refs import empty_trash, references, remove_environment
from agenttools_runtime.errors import (
    AgentToolsWarning,
    EnvironmentJournalUnreadable,
    InterruptedInstallRecovered,
)
from agenttools_runtime.paths import has_entries


def recover() -> list[AgentToolsWarning]:
    """Handle every environment journal left (call with the environments lock held and the
    deployment state consistent)."""
    said: list[AgentToolsWarning] = []
    entries = list(journal.pending())
    kept = journal.kept_by_unreadable(entries)
    for entry in entries:
        if isinstance(entry, journal.Unreadable):
            said.append(
                EnvironmentJournalUnreadable(
                    journal=entry.path,
                    reason=entry.reason,
                    kept=journal.what_it_keeps(entry.path),
                )
            )
            continue
        outcome = _install(entry, kept) if entry.kind == INSTALL else _rebuild(entry, kept)
        journal.end(entry)
        said.append(
            InterruptedInstallRecovered(
                operation=entry.kind, name=entry.environment, outcome=outcome
            )
        )
    empty_trash()
    layout.empty_staging()
    return said


# (what a journal that cannot be read names is never removed: what it was about is unknown)
_KEPT = "stopped; the environment is kept as it is: a journal that cannot be read names it"


def _install(entry: EnvironmentJournal, kept: set[str]) -> str:
    refs = references()
    new = envs_dir() / entry.environment
    if refs.used(entry.environment) and new.is_dir() and layout.load(new).receipt is not None:
        for name in entry.replaces:
            old = envs_dir() / name
            if not refs.used(name) and name not in kept and old.is_dir():
                remove_environment(old)
        return "finished"
    if entry.environment in kept:
        return _KEPT
    if new.is_dir() and not refs.used(entry.environment):
        remove_environment(new)
    return "rolled back (nothing of it is left)"


def _rebuild(entry: EnvironmentJournal, kept: set[str]) -> str:
    path = envs_dir() / entry.environment
    if path.is_dir() and layout.load(path).receipt is not None:
        return "finished"
    if entry.environment in kept:
        return _KEPT
    if path.is_dir():
        remove_environment(path)
    if entry.receipt is not None:
        with contextlib.suppress(ValueError, KeyError, TypeError):
            fs.mkdir(path)
            receipt.write(path, receipt.Receipt.from_json(entry.receipt))
    return "stopped; 'agenttools doctor --fix' rebuilds it"


def recover_if_free() -> list[AgentToolsWarning]:
    """:func:`recover` when the environments lock is free now (the deployment
    lock's own recovery calls this: it never waits for the environments lock)."""
    if (
        not has_entries(journal.journal_dir())
        and not layout.trash_entries()
        and not has_entries(layout.staging_dir())
    ):
        return []
    with try_environments_lock() as taken:
        if not taken:
            return []
        return recover()
