"""Removing deployments and releasing the skill directories they referenced (the spec's
``DeleteObject``, "Release decision" and sweep), under the lock, through a :class:`Store`.

Removal works from the record alone. It is journaled (a ``remove`` journal holding the
record) and every step of it can be repeated, so an interrupted removal is *finished* by the
next locked command: config keys already removed are absent, released references already
dropped, and a skill directory being deleted is moved first to a backup whose name derives
from its registry key (``.agenttools-backup-release-<key>``), which the next release of that
key deletes before deciding anything. The registry entry goes only after its directory.

The sweep prunes references to deployments whose records are gone (deleted by hand, by an
older agenttools) and releases entries left without any. It runs when the state index had to
be rebuilt (the state changed behind agenttools' back) or an earlier release left an entry
for it, and always in ``doctor``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from agenttools_runtime import errors, fs, paths, signals
from agenttools_runtime.clients import Client, get_client
from agenttools_runtime.deploy import journal, litter, plan, records, registry
from agenttools_runtime.deploy.content import LINK
from agenttools_runtime.deploy.journal import Journal, Kind
from agenttools_runtime.deploy.ownership import EntryOutcome, owners, release_entry
from agenttools_runtime.deploy.records import DeploymentRecord, InstalledSkill, ServerEntry
from agenttools_runtime.deploy.registry import RegistryEntry
from agenttools_runtime.deploy.store import Store
from agenttools_runtime.errors import AgentToolsError, AgentToolsWarning
from agenttools_runtime.skills import fsops
from agenttools_runtime.skills.hashing import (
    DestinationState,
    DirectoryState,
    destination_state,
    directory_state,
)


@dataclass(frozen=True, slots=True)
class ReleaseOutcome:
    """What happened to one skill directory on release."""

    name: str
    directory: str
    state: plan.ReleaseState
    removed: bool
    warning: AgentToolsWarning | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "directory": self.directory,
            "state": self.state.value,
            "removed": self.removed,
            "warning": None if self.warning is None else self.warning.to_json(),
        }


# -- removal ---------------------------------------------------------------------------------


def remove_recorded(
    store: Store,
    record: DeploymentRecord,
    *,
    owned_by: DeploymentRecord | None = None,
    force: bool = False,
) -> list[Removed]:
    """Remove a deployment from recorded data only (call under the lock). With *owned_by*
    (the deployment replacing it) the config keys and skill directories that one now owns
    are left in place. Returns what became of each config entry and skill, the warnings
    (not issued) in them (:func:`warnings_of`).

    Each config entry goes by the ownership rules (:mod:`.ownership`): deleted when it still
    holds what the deployment wrote, the user's entry it replaced put back instead where
    there was one, kept (``MCPServerEntryModified``) when the user changed it since — unless
    *force*. An entry that cannot be edited (the file no longer parses, a write fails) is
    reported with ``MCPServerNotRemoved``; the record is then kept, holding only those
    entries, so that running the removal again finishes the job instead of leaving an
    entry nobody tracks."""
    entry = replace(
        journal.begin(store.state, Kind.REMOVE, record),
        owned_by=None if owned_by is None else owned_by.uuid,
        force=force,
    )
    # a removal only goes forward: SIGINT/SIGTERM wait until it is done
    try:
        with signals.deferred():
            journal.write(entry)
            fs.checkpoint("remove:journal-written", entry.path)
            found = _remove(store, record, owned_by, force)
            journal.delete(entry)
    except KeyboardInterrupt as exc:  # (acted on once the removal was done)
        raise signals.Interrupted.from_interrupt(
            exc, f"the deployment {record.uuid} was removed", (record.uuid,)
        ) from None
    return found


def finish_removal(store: Store, entry: Journal) -> list[AgentToolsWarning]:
    """Finish the removal an interrupted process journaled (idempotent)."""
    record = store.record(entry.uuid)
    found: list[Removed] = []
    if record is not None:
        owner = store.record(entry.owned_by) if entry.owned_by else None
        found = _remove(store, record, owner, entry.force)
    elif os.path.lexists(records.record_dir(entry.uuid, store.state.deployments)):
        store.delete_record(entry.uuid)  # the record file went; its directory is left
    journal.delete(entry)
    return warnings_of(found)


Removed = EntryOutcome | ReleaseOutcome
"""What a removal did to one config entry or one skill."""


def warnings_of(outcomes: Iterable[Removed]) -> list[AgentToolsWarning]:
    """The warnings of what a removal, a release or a sweep did (not issued)."""
    return [o.warning for o in outcomes if o.warning is not None]


def _remove(
    store: Store, record: DeploymentRecord, owned_by: DeploymentRecord | None, force: bool
) -> list[Removed]:
    found: list[Removed] = []
    try:
        client: Client | None = get_client(record.client)
    except AgentToolsError:
        client = None
    not_removed: list[ServerEntry] = []
    for server in record.mcp_servers:
        if any(
            r.uuid != record.uuid for r, _ in owners(store, server.config_key, server.config_file)
        ):
            # another deployment (e.g. the replacement) records this key here
            found.append(EntryOutcome(server.config_key, server.config_file, "shared"))
            continue
        hint = _keep_hint(record, server)
        try:
            if client is None:
                raise OSError(f"unknown client {record.client}")
            found.append(release_entry(client, server, force=force, hint=hint))
        except (AgentToolsError, OSError) as exc:
            not_removed.append(server)
            warning = errors.MCPServerNotRemoved(
                key=server.config_key, config_file=server.config_file
            )
            reason = str(exc) if isinstance(exc, AgentToolsError) else (exc.strerror or str(exc))
            found.append(
                EntryOutcome(server.config_key, server.config_file, "failed", reason, warning)
            )
    owned_keys = {s.registry_key for s in owned_by.installed} if owned_by else set()
    for skill in record.installed:
        if skill.registry_key in owned_keys:
            drop_reference(store, skill.registry_key, record.uuid)
            continue
        # (once per skill: the release drops the reference, so a second listing finds none)
        outcome = release(store, skill.registry_key, record.uuid, listed=skill)
        if outcome is None:
            continue
        if owned_by is not None and outcome.state is plan.ReleaseState.IN_USE:
            outcome = replace(outcome, warning=None)  # informational: not for a replacement
        found.append(outcome)
    litter.clean(store.state, record)  # what agenttools created that nothing uses now
    if not_removed:
        store.rewrite_record(replace(record, mcp_servers=tuple(not_removed), installed=()))
    else:
        store.delete_record(record.uuid)
    return found


def _keep_hint(record: DeploymentRecord, server: ServerEntry) -> str:
    """How to remove an entry the user changed, once this removal has kept it."""
    return (
        f"Run 'agenttools mcp uninstall {record.client} {server.config_key} --config "
        f"{server.config_file}' to remove it."
    )


# -- release ---------------------------------------------------------------------------------


def release_backup_name(key: str) -> str:
    """The backup a release moves registry entry *key*'s directory to before deleting it."""
    return f"{fsops.BACKUP_PREFIX}release-{key[:32]}"


def release(
    store: Store, key: str, uid: str | None, *, listed: InstalledSkill | None = None
) -> ReleaseOutcome | None:
    """The release decision for deployment *uid*'s reference to entry *key* (None: only
    prune stale references, as the sweep does; *listed*: the skill as *uid*'s record lists
    it). Returns None when there is no entry (the directory is left alone); the warning (not
    issued) is in the outcome.

    An unmodified directory is deleted only where more than its bytes say agenttools wrote
    it: the record that releases it lists that very directory under that key, or — released
    by no record (the sweep, a deferred release) — its files are still the ones agenttools
    wrote (the entry's stat cache: the same inodes, sizes and times). Otherwise it is kept
    (``AgentSkillUnproven``) and its entry forgotten: a record or an entry edited by hand
    never gets a folder deleted that agenttools did not write."""
    entry = store.entry(key)
    if entry is None or (uid is not None and uid not in entry.references):
        return None  # no entry: leave the directory alone; already released: nothing to do
    _finish_interrupted_release(entry)
    remaining = store.live_references(entry, exclude=() if uid is None else (uid,))
    path = entry.path
    if not remaining and entry.extra.get(LINK) is not None:
        return _release_link(store, entry)
    destination = destination_state(entry.root, entry.name)
    unmodified = (
        destination is DestinationState.DIRECTORY
        and directory_state(path, entry.hashes) is DirectoryState.UNMODIFIED
    )
    state = plan.release_state(bool(remaining), entry.external, destination, unmodified)
    unproven = _unproven(entry, listed) if state is plan.ReleaseState.UNMODIFIED else None
    if unproven is not None:
        state = plan.ReleaseState.UNPROVEN
    action = plan.RELEASE_RULES[state]
    removed = False
    warning: AgentToolsWarning | None = None
    if state is plan.ReleaseState.IN_USE:
        if remaining != entry.references:
            store.put_entry(entry.with_references(remaining))
        warning = errors.AgentSkillInUse(name=entry.name, path=path)
    elif action.remove_directory:
        if _physical_directory_in_use(store, entry):
            # another entry reaches the same physical directory and still needs it: keep
            # ours without references; a later sweep releases it once the others are gone
            _keep_for_sweep(store, entry)
        else:
            try:
                fsops.remove_skill(entry.root, entry.name, backup_name=release_backup_name(key))
            except (errors.AgentSkillRemoveFailed, OSError) as exc:
                _keep_for_sweep(store, entry)
                warning = errors.AgentSkillRemoveFailedWarning(
                    name=entry.name, path=path, reason=exc
                )
            else:
                removed = True
                store.delete_entry(entry.key)
                warning = _put_back_replaced(entry)
    else:
        store.delete_entry(entry.key)
        warning = _release_warning(action.warning, entry, unproven)
        if state is plan.ReleaseState.MISSING:
            warning = _put_back_replaced(entry)
        elif warning is not None:
            kept = "the skill deployed there stays (it was changed since, or is not a skill)"
            warning = _put_back_replaced(entry, kept) or warning
    return ReleaseOutcome(entry.name, entry.directory, state, removed, warning)


def _put_back_replaced(entry: RegistryEntry, kept: str | None = None) -> AgentToolsWarning | None:
    """Put back what a forced deploy replaced at *entry*'s directory (the user's folder,
    file or link), now that the last deployment using it released it: the backup goes back
    where it was while nothing else is there (*kept*: why the directory stays, so the
    backup stays too). Returns the warning when it stays."""
    name = registry.replaced_backup(entry)
    backup = None if name is None else fsops.find_temp(entry.root, name)
    if backup is None:
        return None
    reason = kept or "something else is there now"
    if kept is None and not os.path.lexists(entry.path):
        try:
            fs.rename(backup, entry.path)
            return None
        except OSError as exc:
            reason = exc.strerror or str(exc)
    return errors.AgentSkillReplacedKept(
        name=entry.name, path=entry.path, backup=backup, reason=reason
    )


def _unproven(entry: RegistryEntry, listed: InstalledSkill | None) -> str | None:
    """Why nothing but its bytes says *entry*'s directory is agenttools' (None: it is)."""
    if listed is not None:
        # (the same directory, however reached: a root that now goes through a link)
        same = paths.canonical_path_key(listed.directory) == paths.canonical_path_key(
            entry.directory
        )
        if listed.name == entry.name and same:
            return None
        return f"the deployment's record lists {listed.directory} under its registry entry"
    if registry.unmodified_by_stats(entry, entry.path):
        return None
    return (
        "no deployment lists it any more, and its files (the same bytes) are not the files "
        "agenttools wrote"
    )


def _release_link(store: Store, entry: RegistryEntry) -> ReleaseOutcome:
    """The last reference to a skill deployed as a link (``--link``) went: the link is
    removed as a link — never followed — while it still leads where agenttools pointed it;
    anything else there now is left alone."""
    path, target = entry.path, str(entry.extra[LINK])
    removed = False
    warning: AgentToolsWarning | None = None
    state = plan.ReleaseState.MISSING
    if path.is_symlink():
        state = plan.ReleaseState.LINK
        if os.readlink(path) == target:
            fs.unlink(path)
            removed = True
        else:
            warning = errors.AgentSkillReplacedNotRemoved(name=entry.name, path=path)
    elif os.path.lexists(path):
        state = plan.ReleaseState.FILE
        warning = errors.AgentSkillReplacedNotRemoved(name=entry.name, path=path)
    store.delete_entry(entry.key)
    kept = None if warning is None else "something else is there now"
    warning = _put_back_replaced(entry, kept) or warning
    return ReleaseOutcome(entry.name, entry.directory, state, removed, warning)


def drop_reference(store: Store, key: str, uid: str) -> None:
    """Remove *uid* from entry *key* without any release decision (the directory is
    referenced by the deployment that replaces *uid*)."""
    entry = store.entry(key)
    if entry is None or uid not in entry.references:
        return
    store.put_entry(entry.with_references(tuple(r for r in entry.references if r != uid)))


def _finish_interrupted_release(entry: RegistryEntry) -> None:
    """A backup under this entry's release name is its directory, moved aside by a release
    that was interrupted before deleting it (the entry goes only after): delete it now."""
    for backup in fsops.temp_locations(entry.root, release_backup_name(entry.key)):
        fs.remove_entry(backup)


def _keep_for_sweep(store: Store, entry: RegistryEntry) -> None:
    if entry.references:
        store.put_entry(entry.with_references(()))
    store.index.pending.add(entry.key)
    store.index.dirty = True


def _physical_directory_in_use(store: Store, entry: RegistryEntry) -> bool:
    return any(
        other.key != entry.key and (other.external or bool(store.live_references(other)))
        for other in store.physical_entries(entry.directory)
    )


def _release_warning(
    tag: str | None, entry: RegistryEntry, reason: str | None = None
) -> AgentToolsWarning | None:
    # the low-level uninstall removes a kept directory whether or not it was modified
    hint = f'agenttools skills uninstall "{entry.root}" {entry.name}'
    if tag == "AgentSkillUnproven":
        return errors.AgentSkillUnproven(
            name=entry.name, path=entry.path, reason=reason, command=hint
        )
    if tag == "AgentSkillNotRemoved":
        return errors.AgentSkillNotRemoved(name=entry.name, path=entry.path, command=hint)
    if tag == "AgentSkillReplacedNotRemoved":
        return errors.AgentSkillReplacedNotRemoved(name=entry.name, path=entry.path)
    return None


# -- sweep -----------------------------------------------------------------------------------


def sweep_if_needed(store: Store) -> list[AgentToolsWarning]:
    """Run the sweep when the index says it is needed, and drop the staging directories of
    records whose publishing died. Returns the sweep's warnings (not issued)."""
    if store.index.needs_sweep:
        # (a staging record left by a crash is undone by its journal; one left by an older
        # agenttools, or by hand, comes with a state the index did not expect)
        records.remove_staging_leftovers(store.state.deployments)
        outcomes = sweep(store)
    else:
        outcomes = _release_pending(store)
    return warnings_of(outcomes)


def _release_pending(store: Store) -> list[ReleaseOutcome]:
    """Release again the entries an earlier release kept without references."""
    outcomes: list[ReleaseOutcome] = []
    for key in sorted(store.index.pending):
        store.index.pending.discard(key)
        store.index.dirty = True
        try:
            outcome = release(store, key, None)
        except OSError:
            store.index.pending.add(key)
            continue
        if outcome is not None:
            outcomes.append(outcome)
    return outcomes


def sweep(store: Store) -> list[ReleaseOutcome]:
    """Prune stale references from every entry; an entry left without references goes
    through the release decision. Entries that cannot be read or processed are skipped (and
    the next operation sweeps again)."""
    entry = journal.begin(store.state, Kind.SWEEP)
    with signals.deferred():  # (a sweep only goes forward too)
        journal.write(entry)
        return _sweep(store, entry)


def finish_sweep(store: Store, entry: Journal) -> list[AgentToolsWarning]:
    return warnings_of(_sweep(store, entry))


def _sweep(store: Store, entry: Journal) -> list[ReleaseOutcome]:
    """The sweep journaled as *entry*, which is deleted once it is done."""
    outcomes: list[ReleaseOutcome] = []
    complete = True
    store.index.pending.clear()  # every entry is looked at; releases add back what is kept
    for found in list(store.entries()):
        remaining = store.live_references(found)
        if remaining and remaining == found.references:
            continue
        try:
            if remaining:
                store.put_entry(replace(found, references=remaining))
                continue
            outcome = release(store, found.key, None)
        except OSError:
            complete = False
            continue  # the sweep skips what it cannot process; the next one retries
        if outcome is not None:
            outcomes.append(outcome)
    store.index.needs_sweep = not complete
    store.index.dirty = True
    journal.delete(entry)
    return outcomes
