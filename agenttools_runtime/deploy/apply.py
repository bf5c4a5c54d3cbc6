"""Applying a deploy under its intent journal, and undoing or finishing an interrupted one.

:func:`run` writes the ``deploy`` journal (:mod:`agenttools_runtime.deploy.journal`) before
anything else, then applies the changes in the journal's order, so that every state in
between is one the journal describes:

1. each config file, written once with all its entries (compare and swap: if the file changed
   since it was read under the lock, the edit is planned again on the new bytes, and the
   journal rewritten, before writing);
2. each skill directory, built complete in its staging directory and renamed into place (what
   was there moved to its backup first);
3. each registry entry;
4. the record, published by renaming its staging directory: the **commit point**.

Then (:func:`finish`) the backups of replaced skill directories are deleted and the
deployments this one replaces are removed, and the journal is deleted.

Before the commit point any failure — an exception, ``KeyboardInterrupt``, a SIGTERM —
runs :func:`undo` in this process; a process that died runs it in the next locked command
(:mod:`agenttools_runtime.deploy.recovery`). Undo checks what is on disk against the journal
before touching anything: a config file still holding our bytes gets its prior bytes back;
one changed since (by the client) only loses the entries we wrote, and only where they are
still ours; a skill directory is removed only while it holds exactly what we wrote, and its
backup moved back only where nothing else took its place; registry entries get their prior
bytes back. After the commit point everything runs to the end (SIGINT/SIGTERM are deferred
until then) and a failure leaves the journal for the next command to finish.

Every mutation goes through :mod:`agenttools_runtime.fs`.
"""

from __future__ import annotations

import contextlib
import functools
import os
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from hashlib import sha256
from pathlib import Path
from typing import NoReturn

from agenttools_runtime import errors, fs, paths, regular_files, signals
from agenttools_runtime.clients import Client
from agenttools_runtime.deploy import journal, litter, records, registry
from agenttools_runtime.deploy.journal import ConfigChange, EntryChange, Journal, Kind, SkillChange
from agenttools_runtime.deploy.records import DeploymentRecord
from agenttools_runtime.deploy.registry import RegistryEntry
from agenttools_runtime.deploy.removal import remove_recorded, warnings_of
from agenttools_runtime.deploy.store import Store
from agenttools_runtime.errors import (
    AgentToolsError,
    AgentToolsWarning,
    DeploymentRollbackIncomplete,
)
from agenttools_runtime.mcp.formats import (
    Container,
    commit_edit,
    edit_config_file,
    get_format,
    plain,
    same_data,
)
from agenttools_runtime.mcp.install import ConfigPlan, Owned, plan_server_entries
from agenttools_runtime.mcp.origin import restore
from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.skills import fsops
from agenttools_runtime.skills.hashing import DestinationState, destination_state
from agenttools_runtime.skills.hashing import installed_hashes as hash_installed
from agenttools_runtime.skills.spec import SkillSource

CONFIG_ATTEMPTS = 3


@dataclass(frozen=True, slots=True)
class ConfigWrite:
    """The entries a deploy writes into one config file (planned under the lock)."""

    config_file: Path
    client: Client
    servers: tuple[tuple[str, MCPServer], ...]
    plan: ConfigPlan
    owned: Mapping[str, Owned]  # what the replaced deployments wrote (plan_server_entries)


@dataclass(frozen=True, slots=True)
class SkillWrite:
    """A skill directory a deploy writes: *source* into *root* (the client's skills root, or
    another root it reads where the copy the deployment uses is)."""

    root: Path
    source: SkillSource


@dataclass(frozen=True, slots=True)
class DeployChanges:
    """Everything a deploy changes, decided: the config entries, the skill directories to
    write, the registry entries after the change, the record, and the deployments it
    replaces."""

    record: DeploymentRecord
    config: ConfigWrite | None
    writes: tuple[SkillWrite, ...]
    entries: tuple[RegistryEntry, ...]
    replaces: tuple[str, ...]
    links: tuple[SkillWrite, ...]  # skills that become links to their live source


def run(store: Store, changes: DeployChanges) -> list[AgentToolsWarning]:
    """Journal, apply, commit and finish a deploy (see the module docstring). Returns the
    warnings (not issued). Raises what failed before the commit point, after undoing
    everything; an interruption (SIGINT, SIGTERM) as :class:`signals.Interrupted` saying
    whether the deployment was committed or rolled back."""
    uid = changes.record.uuid
    record = changes.record
    entry, prior = _journal(store, changes)
    try:
        with signals.deferred():  # a journal is written whole, or not at all
            journal.write(entry, prior)
        fs.checkpoint("deploy:journal-written", entry.path)
        entry, record = _apply_config(entry, changes)
        _apply_skills(store, entry, changes)
        fs.checkpoint("deploy:skills-written")
        written = {str(c.directory) for c in entry.skills if c.link is None}
        for change, after in zip(entry.entries, changes.entries, strict=True):
            if after.directory in written:  # what is there now is what we wrote
                after = registry.with_stats(after, registry.file_stats(Path(after.directory)))
            # a new entry is created in place (one directory operation, not a temp file and a
            # rename): killed half-way, the journal's undo deletes it, torn or whole
            store.put_entry(after, new=change.before is None)
            fs.checkpoint("deploy:entry-written", registry.entry_path(change.key, store.state))
        fs.checkpoint("deploy:registry-written")
    except BaseException as exc:
        _fail(store, entry, exc)
    # from the commit point to the end, SIGINT/SIGTERM wait: the deployment is made whole
    found: list[AgentToolsWarning] = []
    try:
        with signals.deferred():
            try:
                store.publish_record(record)
            except BaseException as exc:  # the rename did not happen: nothing is committed
                _fail(store, entry, exc)
            try:
                fs.checkpoint(
                    "deploy:record-written", records.record_dir(uid, store.state.deployments)
                )
                found = finish(store, entry)
                fs.checkpoint("deploy:replaced-removed")
            except Exception as exc:  # the deployment stands; the journal stays to finish it
                found.append(errors.DeploymentNotFinished(uuid=uid, reason=str(exc)))
    except KeyboardInterrupt as exc:  # a signal deferred until the deployment was whole
        raise interrupted_after_commit(exc, uid) from None
    return found


def interrupted_after_commit(exc: KeyboardInterrupt, uid: str) -> signals.Interrupted:
    """What an interruption that waited until deployment *uid* was committed says (unless
    it says already that it was rolled back: ``_fail``)."""
    said = f"the deployment {uid} was committed ('agenttools remove {uid}' undoes it)"
    return signals.with_outcome(exc, said, (uid,))


def _fail(store: Store, entry: Journal, exc: BaseException) -> NoReturn:
    """Roll back an uncommitted deploy after *exc*, and raise it (an interruption as
    :class:`signals.Interrupted` saying so)."""
    with signals.deferred():
        failed, found = undo(store, entry)
        # (an interruption inside an atomic write may have left its temp file)
        remove_temp_files(written_directories(store, entry))
        store.reload()
        if not failed:
            journal.delete(entry)
    for warning in found:
        warnings.warn(warning, stacklevel=2)
    if failed:
        warnings.warn(
            DeploymentRollbackIncomplete(name=entry.name, reason="; ".join(str(e) for e in failed)),
            stacklevel=2,
        )
    if isinstance(exc, KeyboardInterrupt):
        raise signals.Interrupted.from_interrupt(exc, "every change was rolled back") from None
    raise exc


def committed(store: Store, entry: Journal) -> bool:
    """A deploy is committed once its record is published (whatever is at the record's path
    then, even a record that cannot be read: only a crashed write leaves nothing there)."""
    return not records.is_stale(entry.uuid, store.state.deployments)


def finish(store: Store, entry: Journal) -> list[AgentToolsWarning]:
    """After the commit point: delete the backups of replaced skill directories, remove the
    deployments this one replaces (each under a removal journal of its own), then delete the
    journal. Failures become warnings; the journal then stays for the next command."""
    found: list[AgentToolsWarning] = []
    complete = True
    new = store.record(entry.uuid)
    if new is not None:
        litter.remember(store.state, new)  # what it created, for the last removal to take
    for change in entry.skills:
        if change.backup is None or change.backup.startswith(fsops.KEPT_BACKUP_PREFIX):
            continue  # (kept: what --force replaced that was the user's, see registry)
        for backup in fsops.temp_locations(Path(change.root), change.backup):
            if not os.path.lexists(backup):
                continue
            try:
                fs.remove_entry(backup)
            except OSError:
                complete = False
                found.append(errors.AgentSkillBackupNotRemoved(name=change.name, backup=backup))
    for uid in entry.replaces:
        old = store.record(uid)
        if old is None:
            continue  # already removed (a finish that ran before)
        if new is None:
            # its record cannot be read: what it took over from the old one is unknown
            complete = False
            reason = f"the record of the deployment {entry.uuid} cannot be read"
            found.append(errors.DeploymentNotRemoved(uuid=uid, reason=reason))
            continue
        try:
            found.extend(warnings_of(remove_recorded(store, old, owned_by=new)))
        except (AgentToolsError, OSError) as exc:
            # the new deployment stands; the next command finishes the removal
            complete = False
            found.append(errors.DeploymentNotRemoved(uuid=uid, reason=str(exc)))
    if complete:
        journal.delete(entry)
    return found


def undo(store: Store, entry: Journal) -> tuple[list[BaseException], list[AgentToolsWarning]]:
    """Undo an uncommitted deploy (see the module docstring), newest change first. Undo
    failures are collected, not raised, so one never stops the rest; returns
    ``(errors, warnings)``."""
    failed: list[BaseException] = []
    found: list[AgentToolsWarning] = []
    steps: list[Callable[[], object]] = []
    steps += [functools.partial(_undo_entry, store, c) for c in reversed(entry.entries)]
    steps += [functools.partial(_undo_skill, c, found) for c in reversed(entry.skills)]
    steps += [functools.partial(_undo_config, entry, c, found) for c in reversed(entry.config)]
    steps.append(functools.partial(_remove_staged_record, store, entry.uuid))
    created = {d for c in entry.skills for d in c.created_dirs}
    created |= {d for c in entry.config for d in c.created_dirs}
    for directory in sorted(created, key=len, reverse=True):  # innermost first
        steps.append(functools.partial(_remove_if_empty, Path(directory)))
    steps.append(functools.partial(_remove_if_empty, store.state.registry))
    for step in steps:
        try:
            step()
        except Exception as exc:  # keep undoing the rest
            failed.append(exc)
    return failed, found


# -- the journal -----------------------------------------------------------------------------


def _journal(store: Store, changes: DeployChanges) -> tuple[Journal, list[journal.PriorBytes]]:
    started = journal.begin(store.state, Kind.DEPLOY, changes.record)
    config: tuple[ConfigChange, ...] = ()
    prior: list[journal.PriorBytes] = []
    if changes.config is not None and changes.config.plan.edit.changes:
        change, prior = _config_change(started.path, changes.config.plan, 0)
        config = (change,)
    skills: list[SkillChange] = []
    created_roots: set[str] = set()
    # what a write replaces that is the user's is kept, under the name its entry says
    kept = {e.directory: registry.replaced_backup(e) for e in changes.entries}
    for write in (*changes.writes, *changes.links):
        root, source = write.root, write.source
        created: tuple[str, ...] = ()
        if str(root) not in created_roots:
            created_roots.add(str(root))
            created = tuple(str(d) for d in paths.missing_dirs(root))
        backup = None
        if destination_state(root, source.name) is not DestinationState.MISSING:
            backup = kept.get(str(root / source.name)) or fsops.new_backup_name()
            if fsops.find_temp(root, backup) is not None:
                # one kept already (the user's first folder, to put back): this one is kept
                # too, under a name of its own that doctor names until the user moves it back
                backup = f"{backup}-{os.urandom(6).hex()}"
        linked = write in changes.links
        skills.append(
            SkillChange(
                source.name,
                str(root),
                {} if linked else dict(source.manifest),
                fsops.new_staging_name(),
                backup,
                created,
                link=str(source.directory) if linked else None,
            )
        )
    entries = tuple(
        EntryChange(e.key, _read_text(registry.entry_path(e.key, store.state)))
        for e in changes.entries
    )
    entry = replace(
        started,
        replaces=changes.replaces,
        config=config,
        skills=tuple(skills),
        entries=entries,
    )
    return entry, prior


def _config_change(
    path: Path, planned: ConfigPlan, number: int
) -> tuple[ConfigChange, list[journal.PriorBytes]]:
    edit = planned.edit
    copy_name = None
    prior: list[journal.PriorBytes] = []
    if edit.before is not None:
        copy_name = f"{path.stem}.config-{number}"
        prior.append(journal.PriorBytes(copy_name, edit.before))
    change = ConfigChange(
        file=str(edit.path),
        format=planned.format,
        container=planned.container.path,
        list_key=planned.container.list_key,
        before=_digest(edit.before),
        after=_digest(edit.after) or "",
        entries=dict(planned.entries),
        restore={k: v for k, v in planned.undo.items() if v is not None},
        prior_copy=copy_name,
        created_dirs=tuple(str(d) for d in paths.missing_dirs(edit.path.parent))
        if edit.before is None
        else (),
    )
    return change, prior


# -- applying --------------------------------------------------------------------------------


def _apply_config(entry: Journal, changes: DeployChanges) -> tuple[Journal, DeploymentRecord]:
    """Write the config file (compare and swap). Returns the journal as it stands (rewritten
    when the edit had to be planned again) and the record, with the origins of the edit
    that was written."""
    write = changes.config
    if write is None or not entry.config:
        return entry, changes.record
    planned = write.plan
    for attempt in range(1, CONFIG_ATTEMPTS + 1):
        if commit_edit(planned.edit):
            fs.checkpoint("deploy:mcp-written", planned.edit.path)
            return entry, _with_origins(changes.record, planned)
        # the client rewrote the file since it was read: plan again on its new bytes
        planned = plan_server_entries(
            write.config_file, write.client, write.servers, owned=write.owned
        )
        if not planned.edit.changes:
            entry = replace(entry, config=())
            journal.write(entry)
            return entry, _with_origins(changes.record, planned)
        change, prior = _config_change(entry.path, planned, attempt)
        old = entry
        entry = replace(entry, config=(change,))
        journal.write(entry, prior)
        for stale in old.side_files:
            fs.unlink(stale, missing_ok=True)
    raise errors.ConfigFileChanged(file=write.config_file)


def _with_origins(record: DeploymentRecord, planned: ConfigPlan) -> DeploymentRecord:
    """*record* with each entry's origin as the written edit found it (a plan made again on
    the client's new bytes may have found another)."""
    servers = tuple(
        replace(s, origin=planned.origins.get(s.config_key, s.origin)) for s in record.mcp_servers
    )
    return record if servers == record.mcp_servers else replace(record, mcp_servers=servers)


def _apply_skills(store: Store, entry: Journal, changes: DeployChanges) -> None:
    writes = iter(changes.writes)  # (the journal lists the writes, then the links)
    for change in entry.skills:
        root = Path(change.root)
        if change.link is not None:
            _apply_link(store, change)
            continue
        fsops.write_skill(
            root,
            next(writes).source,
            staging_name=change.staging,
            backup_name=change.backup,
            real_root=store.root(root).real,
        )


def _apply_link(store: Store, change: SkillChange) -> None:
    """``root/name`` becomes a link to the live source (what was there moved to the
    journaled backup first, as itself)."""
    assert change.link is not None
    root, path = Path(change.root), change.directory
    fs.mkdir(root)
    if change.backup is not None and os.path.lexists(path):
        fsops.move_to_backup(root, path, change.backup, store.root(root).real)
    fs.symlink(Path(change.link), path)


def written_directories(store: Store, item: Journal) -> set[Path]:
    """Where the dead process may have been writing: the state directories, its records'
    directories, and the directories of its config files and of its records' config files."""
    state = store.state
    directories = {state.deployments, state.registry, state.index.parent}
    directories |= {Path(change.file).parent for change in item.config}
    for uid in (item.uuid, *item.replaces):
        if not uid:
            continue
        directories.add(records.record_dir(uid, state.deployments))
        record = store.record(uid)
        if record is not None:
            directories |= {Path(s.config_file).parent for s in record.mcp_servers}
            directories |= {config_directory(s.config_file) for s in record.mcp_servers}
    return directories


def config_directory(config_file: str | Path) -> Path:
    """The directory where a config file's edits write their temp files: that of the file a
    link points to (the edit goes there, the link stays)."""
    return Path(os.path.realpath(config_file)).parent


def remove_temp_files(directories: set[Path]) -> None:
    """The temp files of atomic writes the dead process did not finish (only the names
    agenttools gives its temp files; under the lock nobody else is writing them)."""
    for directory in directories:
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        for name in names:
            if fs.is_temp_name(name):
                fs.unlink(directory / name, missing_ok=True)


# -- undoing ---------------------------------------------------------------------------------


def _undo_entry(store: Store, change: EntryChange) -> None:
    path = registry.entry_path(change.key, store.state)
    if change.before is None:
        if os.path.lexists(path):
            store.delete_entry(change.key)
        return
    fs.mkdir(path.parent)
    before = change.before.encode("utf-8", "surrogateescape")
    fs.write_bytes_atomic(path, before, durable=False)
    try:
        directory = registry.decode(before).directory
    except (ValueError, KeyError, TypeError, RecursionError):
        store.index.drop_skill(change.key)
    else:
        store.index.put_skill(change.key, store.skill_keys(directory))


def _undo_skill(change: SkillChange, found: list[AgentToolsWarning]) -> None:
    root, directory = Path(change.root), change.directory
    for staging in fsops.temp_locations(root, change.staging):
        if os.path.lexists(staging):
            fs.remove_entry(staging)  # a copy being built: ours by its name in the journal
    backup = fsops.find_temp(root, change.backup) if change.backup else None
    if change.link is not None:
        if directory.is_symlink() and os.readlink(directory) == change.link:
            fs.unlink(directory)  # exactly the link we made (never what it leads to)
    elif destination_state(root, change.name) is DestinationState.DIRECTORY:
        disk, clean = hash_installed(directory)
        if clean and disk == dict(change.manifest):
            fs.remove_entry(directory)  # exactly what we wrote
    if backup is None:
        return
    if os.path.lexists(directory):  # something else took its place since: keep both
        found.append(errors.AgentSkillBackupsLeft(backups=[str(backup)], root=root))
        return
    fs.rename(backup, directory)


def _undo_config(entry: Journal, change: ConfigChange, found: list[AgentToolsWarning]) -> None:
    # the journal names the file a link points to (dotfiles in a repository); a journal of
    # an older agenttools may name the link: its target is what is restored, the link stays
    path = Path(os.path.realpath(change.file))
    current = _digest(regular_files.read_bytes_if_present(path))
    if current == change.before:
        return  # our write never happened
    if current == change.after:  # nobody changed it since our write: the exact prior bytes
        problem = journal.copy_problem(entry, change)
        if problem is not None:  # never written over the user's file: the journal stays
            raise ValueError(f"{problem}: it is not restored, and {path} is left as it is")
        prior = journal.prior_bytes(entry, change)
        if prior is None:
            fs.unlink(path, missing_ok=True)
        else:
            fs.write_bytes_atomic(path, prior)
        return
    # changed since our write (the client rewrote it): take out only what is still ours
    fmt = get_format(change.format)
    container = Container(change.container, change.list_key)
    left: list[str] = []

    def edit(text: str) -> tuple[str, None]:
        left.clear()
        current_entries = fmt.read_entries(text, container)
        for key, (prior, new) in change.entries.items():
            if key not in current_entries:
                continue  # already gone
            if not same_data(plain(current_entries[key]), new):
                left.append(key)  # edited since: no longer only ours
                continue
            origin = change.restore.get(key)
            if origin is not None:  # its bytes, where they still fit
                text = restore(fmt, container, key, text, origin)
            elif prior is None:
                text, _ = fmt.remove_entry(text, container, key)
            else:
                text, _ = fmt.set_entry(text, container, key, prior, {})
        return text, None

    try:
        edit_config_file(path, edit)
    except AgentToolsError:
        left = list(change.entries)
    for key in left:
        found.append(errors.MCPServerNotRemoved(key=key, config_file=path))


def _remove_staged_record(store: Store, uid: str) -> None:
    staging = store.state.deployments / f"{records.STAGING_PREFIX}{uid}"
    if os.path.lexists(staging):
        fs.rmtree(staging)


# -- helpers ---------------------------------------------------------------------------------


def _remove_if_empty(directory: Path) -> None:
    if directory.is_dir() and not directory.is_symlink():
        with contextlib.suppress(OSError):
            if not any(directory.iterdir()):
                fs.rmdir(directory)


def _digest(data: bytes | None) -> str | None:
    return None if data is None else sha256(data).hexdigest()


def _read_text(path: Path) -> str | None:
    # surrogateescape: an entry that is not UTF-8 (unreadable, so replaced) is journaled
    # as it is, and its undo writes back the very bytes
    data = regular_files.read_bytes_if_present(path)
    return None if data is None else data.decode("utf-8", "surrogateescape")
