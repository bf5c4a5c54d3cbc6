"""``agenttools sync`` inside a project: make this machine match the lock.

The lock first: written when missing or stale (``--locked`` refuses instead; ``--frozen``
takes it as it is, unchecked). Then every locked distribution is fetched at its version, its
wheel checked against the locked SHA-256 (a managed environment is made of exactly the wheels
the lock pins for it, each checked: nothing is resolved), and every deployment made from it — project scope
into the project's files (from the lock's wheels alone: the same bytes on every machine), user
scope into the user's. Deployments this project's earlier syncs made that the lock no longer
lists are removed (never another deployment). A skill the user modified is kept (``force``
replaces it). Each deployment is journaled by the deploy engine, and the project's machine
record is written after each one, so a killed sync is finished by the next command.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from pathlib import Path

from agenttools_runtime import clients, fs
from agenttools_runtime.deploy.deploy_plan import DeployPlan
from agenttools_runtime.deploy.deployment import Deployment, remove_deployment
from agenttools_runtime.deploy.litter import skeleton
from agenttools_runtime.deploy.one_client import deploy_resolved
from agenttools_runtime.deploy.plan import Level
from agenttools_runtime.deploy.server_checks import Check
from agenttools_runtime.envs.index import IndexOptions
from agenttools_runtime.errors import (
    ConfigFileError,
    DeploymentNotFound,
    LockedDependenciesDiffer,
    LockMissing,
    LockStale,
)
from agenttools_runtime.mcp.install import read_server_entries, remove_server_entry
from agenttools_runtime.project_state import lockfile, lockwrite, machine
from agenttools_runtime.project_state.filecheck import config_digests, file_sha256
from agenttools_runtime.project_state.freshness import Action, SyncReport
from agenttools_runtime.project_state.lockfile import (
    LOCK_FILE,
    Lock,
    LockedDeployment,
    Pin,
    entry_digest,
)
from agenttools_runtime.project_state.locking import (
    Upgrade,
    lock_project,
    project_target,
    resolved_tools,
    stale_reason,
)
from agenttools_runtime.project_state.schema import ProjectFile
from agenttools_runtime.project_state.sources import Fetched, Sources, entries_from
from agenttools_runtime.project_state.verifying import verify_project
from agenttools_runtime.skills.hashing import hash_file

NORMAL, LOCKED, FROZEN = "normal", "locked", "frozen"


def index_options(project: ProjectFile) -> IndexOptions:
    """The project's index options (variables fill what the file does not say)."""
    return IndexOptions.from_sources(
        index_url=project.index_url, extra_index_urls=project.extra_index_urls
    )


def lock_only(
    project: ProjectFile, *, upgrade: Upgrade = False, dry_run: bool = False
) -> tuple[Lock, bool]:
    """``agenttools lock``: the lock of *project* now, written unless *dry_run*; whether the
    file changed (or would)."""
    path = project.root / LOCK_FILE
    previous = lockfile.read(path)
    with Sources(index_options(project)) as sources:
        lock = lock_project(project, previous, sources, upgrade=upgrade)
    changed = _changed(previous, lock)
    if not dry_run and changed:
        lockwrite.write(path, lock)
    return lock, changed


def sync_project(
    project: ProjectFile,
    *,
    mode: str = NORMAL,
    dry_run: bool = False,
    force: bool = False,
    upgrade: Upgrade = False,
    write_project: bool = False,
    check: Check = "start",
) -> SyncReport:
    """See the module docstring. *write_project*: *project*'s text goes to its file once
    its lock is made (``add``/``drop``: the file is changed only when it can be locked).
    *check*: whether each deployment's servers must start (see
    :func:`~agenttools_runtime.deploy.one_client.deploy`; a portable ``uvx`` entry needs
    ``uvx`` on the PATH).
    Raises ``LockMissing``/``LockStale`` (``--locked``, ``--frozen``), ``LockInvalid``,
    ``LockFromNewerAgentTools``, ``LockedHashMismatch``, what locking and deploying raise."""
    root = project.root
    path = root / LOCK_FILE
    lock = lockfile.read(path)
    reason = None
    if mode != FROZEN:
        reason = "there is none" if lock is None else stale_reason(project, lock)
    if lock is None and mode != NORMAL:
        raise LockMissing(project=str(project.path), lock=str(path))
    if reason is not None and mode == LOCKED:
        raise LockStale(lock=str(path), project=str(project.path), reason=reason)
    relock = mode == NORMAL and (reason is not None or bool(upgrade))
    record = machine.read(root)
    with Sources(index_options(project)) as sources:
        lock_action = "up to date"
        before = lock
        if relock or lock is None:
            lock = lock_project(project, lock, sources, upgrade=upgrade)
            changed = _changed(before, lock)
            lock_action = ("would write" if dry_run else "written") if changed else "up to date"
        report = SyncReport(lock, lock_action)
        deployments = dict(record.deployments)
        # first what the lock no longer lists (the lock as it was says what it wrote)
        _remove_unlisted(report, root, before, deployments, dry_run=dry_run, force=force)
        if not dry_run:
            if write_project:
                fs.write_bytes_atomic(project.path, project.text.encode("utf-8"))
            if lock is not before:
                lockwrite.write(path, lock)
        fetched = _fetch_all(lock, sources, frozen=mode == FROZEN)
        _deploy_listed(
            report, project, fetched, deployments, dry_run=dry_run, force=force, check=check
        )
        if not dry_run:
            sources.commit()
    report.warnings.extend(sources.said)
    if not dry_run:
        report.checked = verify_project(root, lock)
        ok = report.checked.ok
        applied = machine.ProjectRecord(
            str(root),
            file_sha256(path) if ok else None,
            deployments,
            config_digests(root, lock) if ok else {},
        )
        machine.write(applied, root)
    return report


# -- helpers ---------------------------------------------------------------------------------


def _changed(before: Lock | None, lock: Lock) -> bool:
    """Whether *lock* is other bytes than the lock *before* (None: there was none)."""
    return before is None or lockwrite.dumps(before) != lockwrite.dumps(lock)


def _remove_unlisted(
    report: SyncReport,
    root: Path,
    before: Lock | None,
    deployments: dict[str, str],
    *,
    dry_run: bool,
    force: bool,
) -> None:
    """Remove the deployments of this project's earlier syncs (*deployments*, updated) and
    of the lock as it was (*before*) that the report's lock no longer lists."""
    lock = report.lock
    wanted = {d.identity for d in lock.deployments}
    was = {d.identity: d for d in before.deployments} if before is not None else {}
    kept = {f.path for d in lock.deployments for f in d.files}
    kept |= {f"{e.file}#{e.key}" for d in lock.deployments for e in d.entries}
    for identity in sorted({*deployments, *was}):
        if identity in wanted:
            continue
        uid = deployments.get(identity)
        report.actions.append(Action(identity, "would remove" if dry_run else "removed", uid))
        if dry_run:
            continue
        if uid is not None:
            try:
                remove_deployment(uid, force=force)  # (its warnings are issued)
            except DeploymentNotFound:
                pass
        if identity in was:
            clear_locked(root, was[identity], keep=kept)
        deployments.pop(identity, None)
        machine.write(machine.ProjectRecord(str(root), None, deployments), root)


def _deploy_listed(
    report: SyncReport,
    project: ProjectFile,
    fetched: dict[str, Fetched],
    deployments: dict[str, str],
    *,
    dry_run: bool,
    force: bool,
    check: Check,
) -> None:
    """Deploy every deployment of the report's lock, in the lock's order (*deployments*
    updated, and this machine's record after each)."""
    root = project.root
    for d in sorted(report.lock.deployments, key=lambda d: (d.bundle, d.client, d.scope)):
        outcome = _deploy(
            project, d, fetched[d.distribution], dry_run=dry_run, force=force, check=check
        )
        report.warnings.extend(outcome.warnings)
        if isinstance(outcome, DeployPlan):
            action = "up to date" if outcome.unchanged else "would deploy"
            report.actions.append(Action(d.identity, action))
            continue
        action = "up to date" if outcome.unchanged else "deployed"
        report.actions.append(Action(d.identity, action, outcome.record.uuid))
        deployments[d.identity] = outcome.record.uuid
        machine.write(machine.ProjectRecord(str(root), None, deployments), root)
        fs.checkpoint("project:deployed", root)


def clear_locked(
    root: Path, locked: LockedDeployment, *, keep: AbstractSet[str] = frozenset()
) -> None:
    """Take out of the project what *locked* (a deployment of the lock as it was) wrote and
    is still as it wrote it — its skill files, its entries — whichever machine wrote them
    (a teammate's sync, committed): the lock proves they are agenttools' output. What was
    changed since is kept, and so is what *keep* names (paths, ``file#key`` entries: the lock
    of now lists them for another deployment). Empty folders left go (git keeps none)."""
    if locked.scope != "project":
        return
    client = clients.get_client(locked.client)
    folders: set[Path] = set()
    for item in locked.files:
        if item.path in keep:
            continue
        path = root / item.path
        try:
            if hash_file(path) == item.sha256:
                fs.unlink(path)
                folders.add(path.parent)
        except OSError:
            continue  # (gone already, or not a file: not ours to touch)
    for entry in locked.entries:
        if f"{entry.file}#{entry.key}" in keep:
            continue
        config = root / entry.file
        try:
            present = read_server_entries(config, client).get(entry.key)
            if present is None or entry_digest(present) != entry.sha256:
                continue
            remove_server_entry(config, client, entry.key)
            # a file left as agenttools makes one, holding nothing, was made for the entry
            if config.read_text(encoding="utf-8") == skeleton("", client, config):
                fs.unlink(config)
                folders.add(config.parent)
        except (ConfigFileError, OSError, UnicodeDecodeError):
            continue  # (the file cannot be read: never rewritten)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        while folder != root and root in folder.parents:
            try:
                fs.rmdir(folder)
            except OSError:
                break  # (not empty)
            folder = folder.parent


def _fetch_all(lock: Lock, sources: Sources, *, frozen: bool) -> dict[str, Fetched]:
    runners = {d.distribution: d.runner for d in lock.deployments}
    fetched: dict[str, Fetched] = {}
    for dist in lock.distributions:
        if dist.name not in runners:
            continue
        got = sources.locked(dist, runners[dist.name], frozen=frozen)
        if dist.dependencies and got.dependencies != dist.dependencies:
            raise LockedDependenciesDiffer(
                distribution=dist.name,
                version=dist.pin.version,
                resolved=_pins(got.dependencies),
                lock=LOCK_FILE,
                locked=_pins(dist.dependencies),
            )
        fetched[dist.name] = got
    return fetched


def _deploy(
    project: ProjectFile,
    d: LockedDeployment,
    fetched: Fetched,
    *,
    dry_run: bool,
    force: bool,
    check: Check,
) -> Deployment | DeployPlan:
    target = project_target(project.root, d.client, d.scope)
    bundle = d.bundle.split("/", 1)[1]
    level = Level.parse("all" if force else "upgrade")
    with entries_from(fetched):
        tools = resolved_tools(fetched, bundle)
        return deploy_resolved(
            tools,
            target,
            level,
            runner=d.runner,
            dry_run=dry_run,
            keep_modified=not force,
            check=check,
        )


def _pins(pins: tuple[Pin, ...]) -> str:
    return ", ".join(f"{p.name} {p.version}" for p in pins)
