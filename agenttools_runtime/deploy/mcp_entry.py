"""``agenttools mcp install|uninstall`` of one entry, under the deployment lock, by the
ownership rules of :mod:`agenttools_runtime.deploy.ownership`."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenttools_runtime import fs, paths, signals
from agenttools_runtime.clients import Client
from agenttools_runtime.deploy import litter
from agenttools_runtime.deploy.lock import deployment_lock
from agenttools_runtime.deploy.ownership import Release, owners, release_entry, without_entry
from agenttools_runtime.deploy.store import Store
from agenttools_runtime.errors import AgentToolsWarning
from agenttools_runtime.mcp.install import (
    MCPInstallResult,
    MCPTarget,
    install_mcp_server,
    uninstall_mcp_server,
)
from agenttools_runtime.mcp.server import MCPServer


def install_entry(
    target: MCPTarget, server: MCPServer, key: str, *, force: bool = False
) -> MCPInstallResult:
    """``agenttools mcp install``: write the entry, under the deployment lock; an entry of
    the key that no deployment wrote and that holds something else is replaced only with
    *force* (``MCPServerEntryExists``). One a deployment wrote is replaced: it is then the
    user's, which removing the deployment keeps (``MCPServerEntryModified``)."""
    said = Said(f'the entry "{key}" was written into {target.config_file}')
    with _said_when_interrupted(said) as store:
        owned = any(True for _ in owners(store, key, target.config_file))
        new_dirs = paths.missing_dirs(Path(os.path.realpath(target.config_file)).parent)
        result = install_mcp_server(target, server, key=key, force=force or owned)
        if not result.changed:
            said.outcome = (
                f'the entry "{key}" was already in {target.config_file}: nothing was changed'
            )
        if result.edit is not None:  # what it created, for the uninstall to take away
            new_key = None if result.replaced_entry else key
            claims = litter.edit_claims(result.edit, target.client, new_dirs, new_key)
            litter.remember_claims(store.state, claims)
        return result


@dataclass(slots=True)
class Said:
    """What an interruption of the edit says was done: set by the edit once it knows."""

    outcome: str


@contextlib.contextmanager
def _said_when_interrupted(done: Said) -> Iterator[Store]:
    """The deployment lock, with SIGINT and SIGTERM held back until the edit under it is
    whole; an interruption then says what was *done* (or, before the lock was held, that
    nothing was changed)."""
    with (
        _interrupted_says(Said("nothing was changed")),
        deployment_lock() as store,
        _interrupted_says(done),
        signals.deferred(),
    ):
        fs.checkpoint("mcp:locked")
        yield store


@contextlib.contextmanager
def _interrupted_says(said: Said) -> Iterator[None]:
    try:
        yield
    except KeyboardInterrupt as exc:
        raise signals.with_outcome(exc, said.outcome) from None


@dataclass(frozen=True, slots=True)
class Uninstalled:
    """What ``mcp uninstall`` did: ``outcome`` ``"removed"``, ``"restored"`` (the user's
    entry a deployment had replaced is back), ``"kept"`` (a deployment's entry the user
    changed: not removed without force), or ``"absent"``; ``deployments`` the records that
    owned the entry (they no longer list it unless it was kept)."""

    client: Client
    config_file: Path
    key: str
    outcome: str
    deployments: tuple[str, ...] = ()
    warning: AgentToolsWarning | None = None

    @property
    def done(self) -> bool:
        return self.outcome != Release.KEEP.value

    def to_json(self) -> dict[str, Any]:
        return {
            "client": self.client.id,
            "config_file": str(self.config_file),
            "key": self.key,
            "removed": self.outcome in (Release.REMOVE.value, Release.RESTORE.value),
            "outcome": self.outcome,
            "deployments": list(self.deployments),
            "warning": None if self.warning is None else self.warning.to_json(),
        }


def uninstall_entry(target: MCPTarget, key: str, *, force: bool = False) -> Uninstalled:
    """``agenttools mcp uninstall``: remove the entry, under the deployment lock. An entry
    a deployment owns goes by the removal's rule — the user's entry it replaced is put back
    instead of deleting the key, and one the user changed since the deployment wrote it is
    kept (``MCPServerEntryModified``) unless *force* — and the deployment's record no longer
    lists it (a record left with nothing is deleted)."""
    said = Said(f'the uninstall of the entry "{key}" from {target.config_file} was finished')
    with _said_when_interrupted(said) as store:
        found = list(owners(store, key, target.config_file))
        if not found:
            result = uninstall_mcp_server(target, key)
            outcome = Release.REMOVE if result.removed else Release.GONE
            if result.removed:  # the file as it was before agenttools wrote it, or none
                litter.clean_config_file(store.state, target.config_file)
            else:
                said.outcome = (
                    f'the entry "{key}" was not in {target.config_file}: nothing was changed'
                )
            return Uninstalled(target.client, target.config_file, key, outcome.value)
        _record, newest = found[-1]
        done = release_entry(target.client, newest, force=force, hint="Use --force to remove it.")
        uids = tuple(r.uuid for r, _entry in found)
        if done.outcome == Release.KEEP.value:
            said.outcome = (
                f'the entry "{key}" was kept in {target.config_file}: nothing was changed'
            )
        else:
            # the config first, the records after (never the other way round: a crash in
            # between then leaves an entry untracked)
            for record, entry in found:
                rest = without_entry(record, entry)
                if rest.mcp_servers or rest.installed:
                    store.rewrite_record(rest)
                else:
                    store.delete_record(record.uuid)
        return Uninstalled(target.client, target.config_file, key, done.outcome, uids, done.warning)
