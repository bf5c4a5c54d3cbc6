"""``agenttools doctor``: what interrupted or foreign changes left in the deployment state,
and the repairs that the journal, the registry and the records prove safe.

It looks (holding the lock, so no operation is half-way while it looks) for:

=====================  ===============================================  =====================
finding                what it is                                       ``--fix``
=====================  ===============================================  =====================
``journal``            an operation a process did not finish            finish / roll back
                       (one whose saved copy of a config file does not  (reported: never
                       match the SHA-256 it recorded)                   restored)
``unreadable``         a journal that does not parse, or is not of its  set it aside, never
                       schema's shape; something else than a directory  acted on
                       where deployment journals go, or a directory of
                       the state (a file, a named pipe, a link to
                       nothing: then nothing else is looked at)
``set-aside``          a journal ``--fix`` set aside                    (reported)
``index``              the state index is missing, stale or corrupt     rebuild it
``record-reference``   a record lists a skill whose entry does not      add the reference
                       reference it
``entry-reference``    an entry references a record that does not list  drop the reference
                       it
``record-mismatch``    a record and the entry of one of its skills      (reported)
                       name different directories
``record-entry``       a recorded config entry without what was         (reported: removal
                       written (nothing proves it is agenttools')       keeps it)
``stale-reference``    registry references to records that are gone     sweep
``missing-directory``  a registry entry whose directory is gone         forget the entry and
                                                                        the records' mention
``untracked-directory`` a directory a record lists with no registry      a new entry marking
                       entry                                            it external (kept)
``record-skill``       a record lists a skill with neither entry nor    drop it from the
                       directory                                        record
``staging``            a half-built copy (``.agenttools-staging-*``,    delete it
                       ``.staging-<uuid>``)
``temp-file``          an atomic write's temp file (``.*.agenttools-*   delete it
                       .tmp``)
``backup``             ``.agenttools-backup-*`` beside a skills root    delete it only when
                                                                        provably redundant
``missing-entry``      a recorded config entry absent from its file     (reported)
``unreadable``         a record or entry that does not parse, is not of  (reported)
                       its schema's shape, or names another uuid or
                       key than its file's
``stale-cache``        the verified-files cache (``.verified/``) of a   delete it (only
                       distribution no longer installed                 shown by ``--fix``)
=====================  ===============================================  =====================

A backup is deleted only when the registry proves it is ours and nothing is lost: the
leftover of an interrupted release of an entry that still exists, or a copy of exactly what
an owned entry's (existing, unmodified) directory holds. Any other backup may be the only
copy of someone's skill: it is reported with where it is, never touched. Nothing is deleted
that only agenttools' naming, not its records, says is agenttools'; but staging directories
and temp files carry a name only agenttools gives and hold nothing but copies.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agenttools_runtime import fs, jsonform, lock, paths, state_directories, verified
from agenttools_runtime.clients import all_clients, get_client, mcp_config_location, skills_location
from agenttools_runtime.deploy import index, journal, litter, records, registry
from agenttools_runtime.deploy.apply import committed, config_directory
from agenttools_runtime.deploy.journal import Journal, Unreadable
from agenttools_runtime.deploy.lock import deployment_lock
from agenttools_runtime.deploy.records import DeploymentRecord
from agenttools_runtime.deploy.registry import RegistryEntry
from agenttools_runtime.deploy.removal import release, release_backup_name, sweep
from agenttools_runtime.deploy.store import Store
from agenttools_runtime.errors import (
    AgentToolsError,
    InterruptedOperationRecovered,
    InvalidDeploymentRecord,
    StateRecoveryFailed,
    broken_record_hint,
)
from agenttools_runtime.mcp.install import read_server_entries
from agenttools_runtime.skills import fsops
from agenttools_runtime.skills.hashing import (
    DestinationState,
    DirectoryState,
    destination_state,
    directory_state,
    installed_hashes,
)


@dataclass(slots=True)
class Finding(jsonform.Form):
    """One thing doctor found; ``fixable`` says whether ``--fix`` repairs it, ``fixed``
    whether it did."""

    kind: str
    path: str
    detail: str
    fixable: bool
    fixed: bool = False

    def render(self) -> str:
        mark = "fixed: " if self.fixed else ""
        return f"  {self.kind:<20} {self.path}\n  {'':<20} {mark}{self.detail}"


Add = Callable[[Finding], None]


@dataclass(slots=True)
class DoctorReport:
    """Every finding; ``ok`` when nothing is left to repair; with ``fix``, ``recovered``
    false when an operation that interrupted processes left could not be finished or undone
    (then nothing was repaired on top of it: named in a finding)."""

    state: Path
    findings: list[Finding] = field(default_factory=list)
    fix: bool = False
    recovered: bool = True

    @property
    def problems(self) -> list[Finding]:
        return [f for f in self.findings if not f.fixed]

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "state": str(self.state),
            "fix": self.fix,
            "findings": [f.to_json() for f in self.findings],
        }

    def render(self, *, more: bool = False) -> str:
        """The text report; with *more* (findings of the managed environments follow), an
        empty one does not say that no problems were found."""
        lines = [f"agenttools doctor: {self.state}"]
        if not self.findings:
            if not more:
                lines.append("  No problems found.")
            return "\n".join(lines)
        lines += [f.render() for f in self.findings]
        fixable = [f for f in self.problems if f.fixable]
        left = len(self.problems)
        if self.fix:
            lines.append(f"{len(self.findings) - left} fixed, {left} left (see above).")
        else:
            lines.append(
                f"{left} problem(s); {len(fixable)} can be repaired with 'agenttools doctor --fix'."
            )
        return "\n".join(lines)


def diagnose(*, fix: bool = False, state: paths.StatePaths | None = None) -> DoctorReport:
    """Look at the state (under the lock) and, with *fix*, repair what can be proven safe."""
    state = state or paths.state_paths()
    report = DoctorReport(state.deployments.parent, fix=fix)
    # (the lock is in them: while one is something else, nothing else can be looked at)
    if not _check_state_directories(state, report.findings.append, fix, outer=True):
        return report
    if not state.deployments.exists():
        # no state (nothing deployed): only what may be left beside the clients' skills roots
        look = _Look(Store.open(state), report.findings.append, fix=False)
        _check_backups(look, _skills_roots(look))
        return report
    if fix:
        if not _set_aside_unreadable(report, state):
            return report
        listed = _listed_temp_files(state)  # (deleted by the recovery the lock runs)
        try:
            with _recovered_journals(report, state), deployment_lock(state=state) as store:
                for path in listed:
                    gone = not os.path.lexists(path)
                    report.findings.append(Finding("temp-file", str(path), _TEMP_FILE, True, gone))
                _examine(store, report, fix=True)
            return report
        except StateRecoveryFailed:
            # a journal that cannot be handled: named below, nothing repaired on top of it
            report.recovered = False
    with lock.state_lock(state=state):
        if not _check_state_directories(state, report.findings.append, False):
            return report
        store = Store.open(state)
        # (with --fix, _set_aside_unreadable said what it did, or could not do, about these)
        if not fix:
            _check_journal_directory(state, report.findings.append, False)
        for item in journal.pending(state):
            if not (fix and isinstance(item, Unreadable)):
                report.findings.append(_journal_finding(store, item))
        _examine(store, report, fix=False)
    return report


def _set_aside_unreadable(report: DoctorReport, state: paths.StatePaths) -> bool:
    """Move what is in the way out of it: the state directories that are something else
    than a directory, and the journals that cannot be read: what they would have undone is
    unknown, so nothing is done from them (and every command stops on them until then).
    Whether every state directory can be used now."""
    with lock.state_lock(state=state):
        if not _check_state_directories(state, report.findings.append, True):
            return False
        _check_journal_directory(state, report.findings.append, True)
        for item in journal.pending(state):
            if isinstance(item, Unreadable):
                report.findings.append(_set_aside_journal(state, item))
    return True


def _set_aside_journal(state: paths.StatePaths, item: Unreadable) -> Finding:
    """Set aside the journal *item* that cannot be read; the finding of what was done, or of
    why it could not be (then it stays, and the report goes on: nothing is done from it)."""
    reason = _set_aside_problem(state)
    if reason is None:
        try:
            moved = journal.set_aside(state, item.path)
        except OSError as exc:
            reason = exc.strerror or str(exc)
        else:
            detail = (
                f"a journal that cannot be read ({item.reason}): set aside as {moved}; "
                "nothing was done from it"
            )
            return Finding("journal", str(item.path), detail, True, True)
    detail = _UNREADABLE_JOURNAL.format(reason=item.reason)
    detail += f"; {journal.not_set_aside_detail(reason, item.path.name)}"
    return Finding("unreadable", str(item.path), detail, False)


_UNREADABLE_JOURNAL = (
    "a journal that cannot be read: {reason}; nothing is done from it (every command stops on it)"
)


def _set_aside_problem(state: paths.StatePaths) -> str | None:
    """Why no journal can be set aside (something else than a directory where they go)."""
    return state_directories.set_aside_problem(journal.set_aside_directory(state))


def _check_state_directories(
    state: paths.StatePaths, add: Add, fix: bool, *, outer: bool = False
) -> bool:
    """Something else than a directory where a directory of the state goes (with *outer*,
    the state's own or the deployments directory, where the lock is): every command that
    changes the state stops on it (see :mod:`agenttools_runtime.state_directories`).
    Whether every one of them can be used now (none was found, or --fix set each aside)."""
    usable = True
    for found in state_directories.unusable(state, outer=outer):
        holding = f"agenttools' {found.directory.holding}"
        usable &= _check_unusable_directory(found.path, found.what, holding, add, fix)
    return usable


def _check_journal_directory(state: paths.StatePaths, add: Add, fix: bool) -> None:
    """Something else than a directory where the journals of deployments go: nothing can be
    journaled, so every command that changes the state stops on it. (That of the managed
    environments is theirs: ``envs/health.py``.)"""
    directory = state.journals
    what = state_directories.directory_problem(directory)
    if what is not None:
        _check_unusable_directory(directory, what, "agenttools' journals", add, fix)


def _check_unusable_directory(
    directory: Path, what: str, holding: str, add: Add, fix: bool
) -> bool:
    """The finding of something else (*what*) than a directory at *directory*, which holds
    *holding*. It is not agenttools': --fix moves it to ``<name>-set-aside/<name>`` beside
    it, never over anything there (nor into something else than a directory at
    ``<name>-set-aside``: the finding says so). Whether it is gone (set aside)."""
    detail = journal.directory_problem_detail(what, holding, "the state")
    target = state_directories.directory_set_aside(directory)
    reason = state_directories.set_aside_problem(target.parent)
    if reason is None and os.path.lexists(target):
        add(Finding("unreadable", str(directory), f"{detail}; move it away", False))
        return False
    if reason is None and not fix:
        add(Finding("unreadable", str(directory), f"{detail}: --fix sets it aside", True))
        return False
    if reason is None:
        try:
            journal.set_aside_unusable_directory(directory)
        except OSError as exc:
            reason = exc.strerror or str(exc)
        else:
            moved = f"{detail}: set aside as {target}"
            add(Finding("unreadable", str(directory), moved, True, True))
            return True
    detail += f"; {journal.not_set_aside_detail(reason)}"
    add(Finding("unreadable", str(directory), detail, False))
    return False


@contextlib.contextmanager
def _recovered_journals(report: DoctorReport, state: paths.StatePaths) -> Iterator[None]:
    """Turn the recovery warnings of the lock into findings (fixed)."""
    pending = list(journal.pending(state))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    recovered = [w for w in caught if issubclass(w.category, InterruptedOperationRecovered)]
    for item, warning in zip(pending, recovered, strict=False):
        report.findings.insert(
            0, Finding("journal", str(item.path), str(warning.message), True, True)
        )
    for other in caught:
        if other not in recovered:
            warnings.warn_explicit(other.message, other.category, other.filename, other.lineno)


def _journal_finding(store: Store, item: Journal | Unreadable) -> Finding:
    if isinstance(item, Unreadable):
        detail = _UNREADABLE_JOURNAL.format(reason=item.reason)
        reason = _set_aside_problem(store.state)
        if reason is not None:
            detail += f"; {journal.not_set_aside_detail(reason, item.path.name)}"
            return Finding("unreadable", str(item.path), detail, False)
        return Finding("unreadable", str(item.path), f"{detail}: --fix sets it aside", True)
    if item.kind is journal.Kind.DEPLOY and not committed(store, item):
        for change in item.config:
            problem = journal.copy_problem(item, change)
            if problem is not None:
                detail = (
                    f"an interrupted {item.describe()}: {problem}, so it is never restored "
                    f"and {change.file} is left as it is (the rest is rolled back); check "
                    "that file, then move the journal and its side files away"
                )
                return Finding("journal", str(item.path), detail, False)
        what = "would be rolled back"
    else:
        what = "would be finished"
    return Finding("journal", str(item.path), f"an interrupted {item.describe()}: {what}", True)


@dataclass(slots=True)
class _Look:
    """What the checks of one look at the state share: the store, where their findings go
    (``add``), whether they repair (``fix``), and the records and registry entries read
    (read again by a check that changes the entries)."""

    store: Store
    add: Add
    fix: bool
    records: list[DeploymentRecord] = field(default_factory=list)
    entries: list[RegistryEntry] = field(default_factory=list)


def _examine(store: Store, report: DoctorReport, *, fix: bool) -> None:
    look = _Look(store, report.findings.append, fix)
    for path in journal.set_aside_journals(store.state):
        detail = (
            "a journal that could not be read, set aside by 'agenttools doctor --fix'; nothing "
            "was done from it: look at it, then delete it"
        )
        look.add(Finding("set-aside", str(path), detail, False))
    _check_index(look)
    look.records = _records(look)
    look.entries = _entries(look)
    _check_listings(look)
    _check_references(look)
    _check_directories(look)
    roots = _skills_roots(look)
    _check_backups(look, roots)
    _check_staging(look, roots)
    _check_temp_files(look)
    _check_config_entries(look)
    _check_ledger(look)
    if fix:
        _prune_verified_cache(look)
        store.index = index.rebuild(store.state)
        store.index.pending = set()
        store.save()


# -- the checks ------------------------------------------------------------------------------


def _check_index(look: _Look) -> None:
    store, add = look.store, look.add
    for path in (store.state.index, store.state.index_log):
        if os.path.lexists(path) and not (path.is_file() and not path.is_symlink()):
            # not what agenttools writes there: never removed; while it is there the index
            # cannot be stored, and every operation rebuilds it
            detail = (
                "is not a file agenttools wrote: the state index cannot be stored while it is "
                "there (every operation rebuilds it); move it away"
            )
            add(Finding("index", str(path), detail, False))
            return
    stored = index.read_stored(store.state)
    fresh = index.rebuild(store.state)
    if stored is None:
        if not fresh.skills and not fresh.records:
            return
        detail = (
            "the state index is missing or unreadable: it is rebuilt from the entries and records"
        )
    elif stored.skills != fresh.skills or stored.records != fresh.records:
        detail = "the state index does not match the entries and records: it is rebuilt"
    else:
        return
    add(Finding("index", str(store.state.index), detail, True, look.fix))


def _records(look: _Look) -> list[DeploymentRecord]:
    found: list[DeploymentRecord] = []
    for item in records.iter_records(look.store.state.deployments):
        if isinstance(item, InvalidDeploymentRecord):
            hint = broken_record_hint(item.path)
            # (its skills stay referenced: never deleted while it may be using them)
            look.add(Finding("unreadable", str(item.path), f"{item}. {hint}", False))
        else:
            found.append(item)
    return found


def _entries(look: _Look) -> list[RegistryEntry]:
    store, add = look.store, look.add
    found: list[RegistryEntry] = []
    # entries an interrupted deploy created (in place: torn when it was killed while writing
    # one) are its journal's to delete, reported with it
    creating = {
        change.key
        for item in journal.pending(store.state)
        if isinstance(item, Journal)
        for change in item.entries
        if change.before is None
    }
    for key in registry.entry_keys(store.state):
        entry = registry.load_entry(key, store.state)
        if entry is not None:
            found.append(entry)
        elif key not in creating:
            path = registry.entry_path(key, store.state)
            add(Finding("unreadable", str(path), "a registry entry that cannot be read", False))
    return found


def _check_listings(look: _Look) -> None:
    """Each record against the registry, both ways: a skill it lists whose entry does not
    reference it (or names another directory), an entry that references a record which
    does not list it, a config entry the record does not say what it wrote of."""
    store, add, fix = look.store, look.add, look.fix
    by_key = {e.key: e for e in look.entries}
    listed: set[tuple[str, str]] = set()
    for record in look.records:
        for skill in record.installed:
            listed.add((skill.registry_key, record.uuid))
            entry = by_key.get(skill.registry_key)
            if entry is None:
                continue  # (missing entries: _check_directories)
            where = str(registry.entry_path(entry.key, store.state))
            if paths.canonical_path_key(entry.directory) != paths.canonical_path_key(
                skill.directory
            ):
                detail = (
                    f"deployment {record.uuid} lists skill {skill.name} at {skill.directory}, "
                    f"its registry entry says {entry.directory}: neither is deleted by a "
                    "removal; repair the record or the entry"
                )
                add(Finding("record-mismatch", where, detail, False))
            elif record.uuid not in entry.references:
                detail = (
                    f"deployment {record.uuid} lists skill {skill.name}, whose registry entry "
                    "does not reference it (a sweep could release it under the deployment): "
                    "the reference is added"
                )
                add(Finding("record-reference", where, detail, True, fix))
                if fix:
                    store.put_entry(entry.with_reference(record.uuid))
        for server in record.mcp_servers:
            if server.written is None:
                detail = (
                    f'deployment {record.uuid} records the MCP entry "{server.config_key}" '
                    "without what it wrote there: nothing proves the entry is agenttools', so "
                    "removing the deployment keeps it"
                )
                add(Finding("record-entry", server.config_file, detail, False))
    live = {r.uuid for r in look.records}
    for entry in look.entries:
        extra = [r for r in entry.references if r in live and (entry.key, r) not in listed]
        if not extra:
            continue
        detail = (
            f"skill {entry.name} ({entry.directory}) is referenced by deployments whose records "
            f"do not list it: {', '.join(extra)}; the references are dropped"
        )
        where = str(registry.entry_path(entry.key, store.state))
        add(Finding("entry-reference", where, detail, True, fix))
        if fix:
            current = store.entry(entry.key) or entry
            kept = tuple(r for r in current.references if r not in extra)
            store.put_entry(current.with_references(kept))
            if not kept:  # referenced by nobody now: the release decision (which keeps a
                release(store, entry.key, None)  # folder nothing proves ours)
    if fix:
        look.entries = list(store.entries())


def _check_references(look: _Look) -> None:
    store = look.store
    stale = [e for e in look.entries if store.live_references(e) != e.references]
    for entry in stale:
        gone = [r for r in entry.references if records.is_stale(r, store.state.deployments)]
        detail = (
            f"skill {entry.name} ({entry.directory}) is referenced by deployments whose "
            f"records are gone: {', '.join(gone)}; a sweep drops them and releases it"
        )
        where = str(registry.entry_path(entry.key, store.state))
        look.add(Finding("stale-reference", where, detail, True, look.fix))
    if look.fix and stale:
        sweep(store)
        look.entries = list(store.entries())


def _check_directories(look: _Look) -> None:
    store, add, fix = look.store, look.add, look.fix
    by_key = {e.key: e for e in look.entries}
    listing: dict[str, list[DeploymentRecord]] = {}
    for record in look.records:
        for skill in record.installed:
            listing.setdefault(skill.registry_key, []).append(record)
    for entry in look.entries:
        if destination_state(entry.root, entry.name) is not DestinationState.MISSING:
            continue
        user_ids = ", ".join(r.uuid for r in listing.get(entry.key, [])) or "none"
        detail = (
            f"registry entry {entry.key[:12]}… of skill {entry.name} has no directory "
            f"(deleted by hand?); deployments: {user_ids}; the entry is forgotten"
        )
        add(Finding("missing-directory", entry.directory, detail, True, fix))
        if fix:
            store.delete_entry(entry.key)
            _drop_from_records(store, entry.key, listing.get(entry.key, []))
    for key, users in sorted(listing.items()):
        if key in by_key:
            continue
        skill = next(s for s in users[0].installed if s.registry_key == key)
        directory = Path(skill.directory)
        if destination_state(directory.parent, directory.name) is DestinationState.DIRECTORY:
            detail = (
                f"deployment {users[0].uuid} lists it, the registry has no entry: it gets "
                "one marking it external (kept, never deleted by agenttools)"
            )
            add(Finding("untracked-directory", str(directory), detail, True, fix))
            if fix:
                hashes, _clean = installed_hashes(directory)
                store.put_entry(
                    RegistryEntry(
                        key=key,
                        directory=str(directory),
                        name=skill.name,
                        identifier=skill.identifier,
                        version=skill.version,
                        hashes=hashes,
                        external=True,
                        references=tuple(r.uuid for r in users),
                        timestamp=records.now_timestamp(),
                    )
                )
        else:
            detail = (
                f"deployment {users[0].uuid} lists skill {skill.name}, which has neither "
                "a registry entry nor a directory: it is dropped from the record"
            )
            add(Finding("record-skill", str(directory), detail, True, fix))
            if fix:
                _drop_from_records(store, key, users)


def _drop_from_records(store: Store, key: str, users: list[DeploymentRecord]) -> None:
    for record in users:
        current = store.record(record.uuid) or record
        kept = tuple(s for s in current.installed if s.registry_key != key)
        if kept != current.installed:
            store.rewrite_record(replace(current, installed=kept))


def _skills_roots(look: _Look) -> set[Path]:
    roots = {e.root for e in look.entries}
    roots |= {Path(r.skills_directory) for r in look.records if r.skills_directory}
    for client in all_clients().values():
        with contextlib.suppress(AgentToolsError, OSError):
            roots.add(skills_location(client))
    return {r for r in roots if os.path.isdir(r) or os.path.isdir(paths.canonical_path(r).parent)}


def _check_backups(look: _Look, roots: set[Path]) -> None:
    store, add, fix = look.store, look.add, look.fix
    release_names = {release_backup_name(k): k for k in store.index.skills}
    # what a forced deploy replaced that was the user's: kept for its removal to put back
    kept = {registry.replaced_backup(e) for e in store.entries()}
    seen: set[Path] = set()
    for root in sorted(roots):
        for backup in fsops.kept_backups(root):
            if backup.name in kept or backup in seen:
                continue
            seen.add(backup)
            detail = (
                "holds what a forced deploy replaced (the user's skill folder, file or link), "
                "and no registry entry is left to put it back: move it back where you want it"
            )
            add(Finding("backup", str(backup), detail, False))
    for root in sorted(roots):
        for backup in fsops.stale_backups(root):
            if backup in seen:
                continue
            seen.add(backup)
            reason = None
            if backup.name in release_names:
                reason = "left by an interrupted release of a skill the registry still has"
            elif (redundant := _redundant_copy(store, backup)) is not None:
                reason = f"an exact copy of {redundant}, which agenttools wrote and still holds it"
            if reason is None:
                detail = (
                    "holds a skill directory an interrupted operation (or an older "
                    "agenttools) moved aside; nothing proves agenttools may delete it: move "
                    "back what you want to keep, then delete it"
                )
                add(Finding("backup", str(backup), detail, False))
                continue
            add(Finding("backup", str(backup), f"{reason}: deleted", True, fix))
            if fix:
                fs.remove_entry(backup)


def _redundant_copy(store: Store, backup: Path) -> str | None:
    if not backup.is_dir() or backup.is_symlink():
        return None
    manifest, clean = installed_hashes(backup)
    if not clean:
        return None
    for entry in store.entries():
        if entry.external or dict(entry.hashes) != manifest:
            continue
        if directory_state(entry.path, entry.hashes) is DirectoryState.UNMODIFIED:
            return entry.directory
    return None


def _check_staging(look: _Look, roots: set[Path]) -> None:
    found = [p for root in sorted(roots) for p in fsops.stale_staging(root)]
    found += records.staging_leftovers(look.store.state.deployments)
    for path in sorted(set(found)):
        look.add(Finding("staging", str(path), _STAGING, True, look.fix))
        if look.fix:
            fs.remove_entry(path)


_STAGING = "a half-built copy an interrupted write left: deleted"


def _check_temp_files(look: _Look) -> None:
    state = look.store.state
    directories = {state.deployments, state.registry, state.journals, state.index.parent}
    directories.add(state.deployments.parent / "cache")  # the CLI's caches (lean_cache)
    directories |= {records.record_dir(r.uuid, state.deployments) for r in look.records}
    configs = {Path(s.config_file) for r in look.records for s in r.mcp_servers}
    for client in all_clients().values():
        with contextlib.suppress(AgentToolsError, OSError):
            configs.add(mcp_config_location(client))
    # (a linked config file is written where it points: its temp files are there)
    directories |= {c.parent for c in configs} | {config_directory(c) for c in configs}
    found: list[Path] = []
    for directory in sorted(directories):
        with contextlib.suppress(OSError):
            found += [directory / n for n in sorted(os.listdir(directory)) if fs.is_temp_name(n)]
    found += [p for p in journal.orphan_files(state) if p not in found]
    found += [p for p in _listed_temp_files(state) if p not in found]
    for path in found:
        look.add(Finding("temp-file", str(path), _TEMP_FILE, True, look.fix))
        if look.fix:
            fs.unlink(path, missing_ok=True)


def _check_ledger(look: _Look) -> None:
    state = look.store.state
    try:
        litter.read(state)
    except (OSError, ValueError, RecursionError) as exc:
        # (an OSError's strerror: the finding names the file already)
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        detail = (
            f"the ledger of what agenttools created cannot be read ({reason}): nothing it lists "
            "is taken away again (config files, directories agenttools created stay); it is "
            "deleted"
        )
        look.add(Finding("unreadable", str(state.created), detail, True, look.fix))
        if look.fix:
            fs.unlink(state.created, missing_ok=True)


_TEMP_FILE = "left by an interrupted write: deleted"


def _listed_temp_files(state: paths.StatePaths) -> list[Path]:
    """The temp files that lock holders which died listed (wherever they are), still there."""
    return [p for log in journal.temp_logs(state) for p in fs.listed_temp_files(log)]


def _prune_verified_cache(look: _Look) -> None:
    # a cache, not a problem: tidied by --fix, never reported without it
    for path in verified.stale_files(look.store.state.deployments):
        fs.unlink(path, missing_ok=True)
        look.add(Finding("stale-cache", str(path), _STALE_CACHE, True, True))


_STALE_CACHE = "verified-files cache of a distribution no longer installed there: deleted"


def _check_config_entries(look: _Look) -> None:
    for record in look.records:
        for server in record.mcp_servers:
            try:
                present = read_server_entries(Path(server.config_file), get_client(record.client))
            except (AgentToolsError, OSError):
                continue
            if server.config_key not in present:
                detail = (
                    f'deployment {record.uuid} recorded the MCP entry "{server.config_key}", '
                    "which is not in the file (removed by hand?); redeploy with --upgrade "
                    "or remove the deployment"
                )
                look.add(Finding("missing-entry", server.config_file, detail, False))
