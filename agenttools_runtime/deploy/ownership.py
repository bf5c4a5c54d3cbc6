"""Who owns an MCP config entry, and what a deploy, a removal and ``mcp install|uninstall``
may do to it: the skill directories' rules, for config entries.

A key's entry is *the deployment's* while it holds what the deployment's record says it
wrote; one the user edited since is the user's again (kept on removal, replaced only with
``--force``); one that no deployment wrote is the user's (replaced only with ``--force``, and
then put back by the removal: :mod:`agenttools_runtime.mcp.origin`). The decisions are pure
tables over what is on disk and what the records say; :func:`release_entry` applies the
removal's decision to a file in one compare-and-swap edit. ``mcp install|uninstall`` apply
them under the lock: :mod:`agenttools_runtime.deploy.mcp_entry`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agenttools_runtime import errors, paths
from agenttools_runtime.clients import Client
from agenttools_runtime.deploy.records import DeploymentRecord, ServerEntry
from agenttools_runtime.deploy.store import Store
from agenttools_runtime.errors import AgentToolsWarning
from agenttools_runtime.mcp.entries import container_for
from agenttools_runtime.mcp.formats import edit_config_file, get_format, plain, same_data
from agenttools_runtime.mcp.install import Owned
from agenttools_runtime.mcp.origin import restore

# -- deploy: what a key holds now ------------------------------------------------------------


class EntryState(str, enum.Enum):
    """What a config key holds before a deploy (the dry run's ``existing``)."""

    NONE = "none"  # no entry
    DEPLOYED = "deployed"  # what a recorded deployment wrote there
    MODIFIED = "modified"  # a deployment wrote it, the user changed it since: --force
    IDENTICAL = "identical"  # not ours, but exactly what would be written: kept as is
    FOREIGN = "foreign"  # not ours: --force, and the removal puts it back

    @property
    def needs_force(self) -> bool:
        return self in (EntryState.MODIFIED, EntryState.FOREIGN)


def classify(
    current: Any, owner: ServerEntry | None, incoming: Any, *, present: bool
) -> EntryState:
    """The state of a key holding *current* (when *present*), recorded by *owner* (None: no
    deployment records it), about to get *incoming*."""
    if not present:
        return EntryState.NONE
    if owner is not None:
        if Owned(owner.written, owner.origin).holds(current, incoming):
            return EntryState.DEPLOYED
        return EntryState.MODIFIED
    if same_data(current, incoming):
        return EntryState.IDENTICAL
    return EntryState.FOREIGN


def owners(
    store: Store, key: str, config_file: str | Path
) -> Iterator[tuple[DeploymentRecord, ServerEntry]]:
    """The recorded deployments that wrote *key* into *config_file* (by canonical path),
    oldest first, with their entry (read through the index: only those records)."""
    wanted = (key, paths.canonical_path_key(config_file))
    for record in store.records(store.index.records_with_config_entry(wanted)):
        for entry in record.mcp_servers:
            if (entry.config_key, paths.canonical_path_key(entry.config_file)) == wanted:
                yield record, entry


# -- removal: what becomes of a recorded entry -----------------------------------------------


class Release(str, enum.Enum):
    """What a removal does to one recorded entry."""

    REMOVE = "removed"  # ours, unchanged (or --force): deleted
    RESTORE = "restored"  # ours, unchanged (or --force), over the user's: theirs put back
    KEEP = "kept"  # changed by the user since: kept (MCPServerEntryModified)
    GONE = "absent"  # no longer in the file: nothing to do (the origin, if any, is dropped)


@dataclass(frozen=True, slots=True)
class EntryOutcome:
    """What a removal did to one recorded entry (``outcome`` a :class:`Release` value, or
    ``"shared"``: another deployment records it, ``"failed"``: it could not be edited,
    ``reason`` saying why)."""

    key: str
    config_file: str
    outcome: str
    reason: str | None = None
    warning: AgentToolsWarning | None = None

    @property
    def left(self) -> bool:
        """Whether the deployment still owns it (the removal could not finish it)."""
        return self.outcome == "failed"

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "config_file": self.config_file,
            "outcome": self.outcome,
            "reason": self.reason,
            "warning": None if self.warning is None else self.warning.to_json(),
        }


def release_entry(client: Client, entry: ServerEntry, *, force: bool, hint: str) -> EntryOutcome:
    """Apply the release decision to *entry*'s file (one compare-and-swap edit, under the
    state lock the caller holds): delete it, put the origin back, or keep it (with the
    warning, whose *hint* says how to remove it anyway). Raises ``ConfigFileUnparseable``,
    ``ConfigFileInvalid``, ``ConfigFileChanged``, ``OSError``."""
    path = Path(entry.config_file)
    fmt = get_format(client.config_format)
    container = container_for(client, path)

    def edit(text: str) -> tuple[str, Release]:
        current = fmt.read_entries(text, container)
        if entry.config_key not in current:
            return text, Release.GONE
        # the deployment's only while it holds what the record says was written: a record
        # that does not say (edited by hand) proves nothing, and the entry stays
        unmodified = entry.written is not None and same_data(
            plain(current[entry.config_key]), entry.written
        )
        if not unmodified and not force:
            return text, Release.KEEP
        if entry.origin is None:
            return fmt.remove_entry(text, container, entry.config_key)[0], Release.REMOVE
        return restore(fmt, container, entry.config_key, text, entry.origin), Release.RESTORE

    action, _written = edit_config_file(path, edit)
    warning: AgentToolsWarning | None = None
    if action is Release.KEEP and entry.written is None:
        warning = errors.MCPServerEntryUnproven(key=entry.config_key, config_file=path, hint=hint)
    elif action is Release.KEEP:
        origin = " (nor was the entry it had replaced put back)" if entry.origin else ""
        warning = errors.MCPServerEntryModified(
            key=entry.config_key, config_file=path, origin=origin, hint=hint
        )
    elif action is Release.GONE and entry.origin is not None:
        warning = errors.MCPServerEntryNotRestored(key=entry.config_key, config_file=path)
    return EntryOutcome(entry.config_key, entry.config_file, action.value, warning=warning)


def without_entry(record: DeploymentRecord, entry: ServerEntry) -> DeploymentRecord:
    """*record* no longer listing *entry*."""
    kept = tuple(s for s in record.mcp_servers if s != entry)
    return replace(record, mcp_servers=kept)
