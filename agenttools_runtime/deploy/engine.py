"""The deploy algorithm (the spec's "DeployAgentTools" → "Algorithm").

Before the lock: resolve the tools to a bundle, resolve and hash every server and skill,
compute config keys (:mod:`~agenttools_runtime.deploy.resolved`), resolve the target. Under
the lock (which first finishes or rolls back whatever an interrupted process left): sweep the
registry when the state changed behind our back, find conflicting deployments through the
state index, decide every skill's install (:mod:`~agenttools_runtime.deploy.skill_decision`;
preflight: nothing is written if any unforced conflict remains), then hand the decided
changes to :mod:`agenttools_runtime.deploy.apply`, which journals, applies, commits (publishes
the record) and removes the deployments this one replaces without deleting what it now owns.
The plan itself is :class:`~agenttools_runtime.deploy.deploy_plan.DeployPlan`. A redeploy that
would change nothing but the record's timestamp changes nothing (``--upgrade`` over an
identical deployment keeps its id and writes no file).

Named points (:func:`agenttools_runtime.fs.checkpoint`) where tests may pause or fail:
``deploy:locked``, ``deploy:swept``, ``deploy:planned``, ``deploy:journal-written``,
``deploy:mcp-written``, ``deploy:skills-written``, ``deploy:entry-written`` (after each
registry entry), ``deploy:registry-written``, ``deploy:record-written``,
``remove:journal-written`` (each replaced deployment), ``deploy:replaced-removed``.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from agenttools_runtime import __version__, errors, fs, paths, signals
from agenttools_runtime.deploy import apply, content, litter, plan, plan_review, records
from agenttools_runtime.deploy.deploy_plan import DeployPlan
from agenttools_runtime.deploy.deployment import Deployment
from agenttools_runtime.deploy.lock import deployment_lock
from agenttools_runtime.deploy.plan import Action, Level
from agenttools_runtime.deploy.records import DeploymentRecord, InstalledSkill, ServerEntry
from agenttools_runtime.deploy.removal import sweep_if_needed
from agenttools_runtime.deploy.resolved import ResolvedTools, record_verified
from agenttools_runtime.deploy.skill_decision import new_entry, skill_plan
from agenttools_runtime.deploy.store import Store
from agenttools_runtime.deploy.targets import DeployTarget
from agenttools_runtime.errors import AgentToolsError, AgentToolsErrors, AgentToolsWarning
from agenttools_runtime.mcp.entries import build_entry
from agenttools_runtime.mcp.install import Owned, plan_server_entries
from agenttools_runtime.settings.secrets import redact
from agenttools_runtime.skills.fsops import stale_backups


def check_target(
    tools: ResolvedTools, target: DeployTarget
) -> tuple[bool, bool, list[AgentToolsWarning]]:
    """Which components can be deployed: ``(mcp, skills, warnings)``. Raises the target's
    failure when nothing can (the MCP failure when the bundle has servers, else the skills
    failure, else ``AgentToolsNothingToDeploy``), and ``UnsupportedTransport`` when a server
    cannot be written for this client."""
    deploy_mcp = tools.has_servers and target.config_file is not None
    deploy_skills = tools.has_skills and target.skills_root is not None
    name, client = tools.name, target.client
    if not deploy_mcp and not deploy_skills:
        if tools.has_servers:
            raise target.mcp_problem or errors.UnsupportedMCPClient(
                client_name=client.display_name, client=client.id
            )
        if tools.has_skills and not target.skills_disabled:
            raise target.skills_problem or errors.NoSkillsLocation(target=target.describe())
        raise errors.AgentToolsNothingToDeploy(
            name=name, target=target.describe(), client=client.id
        )
    if deploy_mcp:
        # the MCP preflight: every entry can be built for this client (e.g. its transport)
        for sp in tools.servers:
            build_entry(client, sp.server, sp.key)
    about = {"name": name, "client_name": client.display_name, "client": client.id}
    found: list[AgentToolsWarning] = []
    if tools.has_servers and not deploy_mcp:
        found.append(errors.MCPServersNotDeployed(**about))
    if tools.has_skills and not deploy_skills and not tools.builtin and not target.skills_disabled:
        found.append(errors.AgentSkillsNotDeployed(**about))
    return deploy_mcp, deploy_skills, found


def make_plan(
    tools: ResolvedTools,
    target: DeployTarget,
    level: Level,
    store: Store,
    *,
    dry_run: bool = False,
    keep_modified: bool = False,
) -> DeployPlan:
    """Compute the plan (read-only). Outside a dry run, blocking errors raise: conflicting
    deployments (``DeploymentExists``) and unforced skill conflicts (one error, or
    ``AgentToolsErrors`` for several); in a dry run they are collected in ``errors``.
    *store* is the locked operation's (a dry run reads the state unlocked). *keep_modified*:
    a skill of a replaced deployment that the user modified is kept (see
    :func:`execute_outcome`)."""
    deploy_mcp, deploy_skills, found = check_target(tools, target)
    servers = tools.servers if deploy_mcp else ()
    skipped = () if deploy_skills else tools.skill_names
    result = DeployPlan(str(uuid.uuid4()), tools, target, level, servers, skipped, warnings=found)
    probe = new_probe(tools, target)
    result.replaced = conflicting_records(store, probe)
    if result.replaced and level is Level.NONE:
        result.errors.append(_conflict_error(probe, result.replaced[0], tools, target))
        if not dry_run:
            raise result.errors[0]
    if servers:
        plan_review.inspect_config(result, store)
        unusable = [
            e
            for e in result.errors
            if not isinstance(e, (errors.MCPServerEntryExists, errors.MCPServerEntryEdited))
        ]
        if unusable and not dry_run:
            raise unusable[-1]
    if deploy_skills:
        assert target.skills_root is not None
        replaced_ids = tuple(r.uuid for r in result.replaced)
        result.skills = [
            skill_plan(
                source,
                target.skills_root,
                replaced_ids,
                level,
                store,
                # (a link goes into the client's own folder: the live source, not a copy)
                reads=() if source.name in tools.links else target.skill_reads,
                client_name=target.client.display_name,
                link=source.name in tools.links,
            )
            for source in tools.skills
        ]
    if keep_modified:
        plan_review.keep_modified(result)
    if not result.replaced:  # (a replaced deployment's record was read)
        same = store.index.records_for_probe(probe.place, ())
        unread = [u for u in same if store.record(u) is None]
        result.errors.extend(plan_review.unreadable_in_the_way(result, store, unread))
    conflicts = [sp for sp in result.skills if sp.decision.action is None]
    if conflicts and tools.builtin:
        remaining = [sp for sp in result.skills if sp.decision.action is not None]
        if servers or remaining:
            result.not_installed = conflicts
            result.skills = remaining
            conflicts = []
    for sp in conflicts:
        conflict = sp.conflict
        assert conflict is not None
        result.errors.append(conflict)
    if result.errors and not dry_run:  # every conflict at once: config entries, skills
        raise AgentToolsErrors.of(result.errors)
    for sp in result.not_installed:
        if sp.decision.conflict == plan.SHADOW_RULE.conflict:
            left_out: AgentToolsWarning = errors.AgentSkillNotInstalledShadowed(
                name=sp.source.name, path=sp.conflict_path, client_name=sp.client_name
            )
        else:
            left_out = errors.AgentSkillNotInstalled(name=sp.source.name, path=sp.directory)
        result.warnings.append(left_out)
    result.warnings.extend(plan_review.other_copy_warnings(result, store))
    return result


def _conflict_error(
    probe: plan.ConflictProbe, first: DeploymentRecord, tools: ResolvedTools, target: DeployTarget
) -> errors.DeploymentExists:
    """What the conflict with the recorded deployment *first* is: the same bundle deployed to
    the same place, else a config key both write (named, with the file and the bundle of
    that deployment)."""
    # (the same place: the same bundle there, whatever keys both write)
    taken = frozenset() if conflict_probe(first).place == probe.place else probe.config_entries
    for entry in first.mcp_servers:
        if (entry.config_key, paths.canonical_path_key(entry.config_file)) in taken:
            rename = (
                ", or --name KEY to write it under another key" if len(tools.servers) == 1 else ""
            )
            return errors.DeploymentConfigKeyTaken(
                key=entry.config_key,
                config_file=entry.config_file,
                uuid=first.uuid,
                bundle=first.toolset_name,
                rename=rename,
                client=target.client.id,
            )
    return errors.DeploymentExists(
        name=first.toolset_name, target=target.describe(), uuid=first.uuid, client=target.client.id
    )


def new_probe(tools: ResolvedTools, target: DeployTarget) -> plan.ConflictProbe:
    """What a deployment of *tools* to *target* would occupy."""
    config_file = target.config_file
    return plan.ConflictProbe(
        tools.toolset_type,
        tools.name,
        target.client.id,
        target.location_key,
        frozenset(
            (s.key, paths.canonical_path_key(config_file))
            for s in tools.servers
            if config_file is not None
        ),
    )


def conflicting_records(store: Store, probe: plan.ConflictProbe) -> list[DeploymentRecord]:
    """The recorded deployments that conflict with *probe* (found through the state
    index), oldest first."""
    candidates = store.records(store.index.records_for_probe(probe.place, probe.config_entries))
    return [r for r in candidates if plan.conflicts_with(probe, conflict_probe(r))]


def conflict_probe(record: DeploymentRecord) -> plan.ConflictProbe:
    """A recorded deployment's occupancy, from recorded data only."""
    return plan.ConflictProbe(
        record.toolset_type,
        record.toolset_name,
        record.client,
        record.location_key,
        frozenset(
            (s.config_key, paths.canonical_path_key(s.config_file)) for s in record.mcp_servers
        ),
    )


def execute_outcome(
    tools: ResolvedTools, target: DeployTarget, level: Level, *, keep_modified: bool = False
) -> Deployment:
    """Steps 4–8 under the lock: the new deployment (or the one that stands), with the
    warnings to issue (not yet issued) and whether anything changed; any failure before
    the record is published rolls everything back. Without an overwrite level, the same
    tools already deployed there with identical content are no conflict: nothing is
    written (``unchanged``); with other content it is ``DeploymentDiffers`` naming the
    deployed and the installed version. *keep_modified*: a skill the user modified since
    agenttools wrote it is kept as it is (a reference to it, ``AgentSkillModifiedKept``)
    instead of failing the deploy (what ``sync`` does without ``--force``)."""
    check_target(tools, target)  # a target that can take nothing fails before the lock
    done: list[DeploymentRecord] = []
    try:
        with deployment_lock() as store:
            deployment = _execute_locked(store, tools, target, level, done, keep_modified)
        # (a new machine's first deploy: its state is there now; a SIGTERM while the cache
        # of verified files is written says the deployment was committed, as SIGINT does)
        with signals.interruptible():
            record_verified(tools)
        return deployment
    except KeyboardInterrupt as exc:
        if not done:
            raise
        # the signal waited for the end of the lock: all was done
        raise apply.interrupted_after_commit(exc, done[0].uuid) from None


def _execute_locked(
    store: Store,
    tools: ResolvedTools,
    target: DeployTarget,
    level: Level,
    done: list[DeploymentRecord],
    keep_modified: bool,
) -> Deployment:
    try:
        fs.checkpoint("deploy:locked")
        swept = sweep_if_needed(store)
        fs.checkpoint("deploy:swept")
        try:
            the_plan = make_plan(tools, target, level, store, keep_modified=keep_modified)
        except errors.DeploymentExists as exc:
            redeploy = _redeploy_plan(exc, tools, target, level, store)
            if redeploy is None:
                raise
            the_plan = redeploy
        fs.checkpoint("deploy:planned")
        changes = decide(the_plan)
    except KeyboardInterrupt as exc:
        raise signals.Interrupted.from_interrupt(exc, "nothing was deployed") from None
    found = swept + list(the_plan.warnings)
    unchanged = _unchanged(the_plan, changes)
    if unchanged is not None:
        record = unchanged  # (nothing is written: not even the record)
    elif the_plan.level is not level:  # the redeploy without --upgrade was not identical
        raise _differs(the_plan, tools, target, changes)
    else:
        record = changes.record
        found.extend(apply.run(store, changes))
    done.append(record)
    found.extend(_stale_backup_warnings(the_plan))
    found.extend(_newer_kept_warnings(the_plan))
    return Deployment(record, found, unchanged=unchanged is not None)


def _redeploy_plan(
    conflict: AgentToolsError,
    tools: ResolvedTools,
    target: DeployTarget,
    level: Level,
    store: Store,
) -> DeployPlan | None:
    """When *conflict*, what stops a deploy without an overwrite level, is the deployment of
    the same tools standing there (``DeploymentExists``; not another bundle's config key):
    the plan of replacing it, to see whether it would change anything. None for any other
    conflict, and when that plan would be blocked or replace more than that deployment."""
    # (exactly DeploymentExists: its subclass DeploymentConfigKeyTaken is another bundle's)
    if level is not Level.NONE or type(conflict) is not errors.DeploymentExists:
        return None
    try:
        upgrade = make_plan(tools, target, Level.UPGRADE, store)
    except AgentToolsError:
        return None
    if upgrade.errors or len(upgrade.replaced) != 1:
        return None
    return upgrade


def dry_plan(
    tools: ResolvedTools, target: DeployTarget, level: Level, *, keep_modified: bool = False
) -> DeployPlan:
    """The plan of a dry run (the state read unlocked), or, when it would fail only with
    ``DeploymentExists`` and the identical redeploy would change nothing, the plan of that
    redeploy (``unchanged``)."""
    store = Store.open()
    the_plan = make_plan(tools, target, level, store, dry_run=True, keep_modified=keep_modified)
    if len(the_plan.errors) != 1:
        return the_plan
    upgrade = _redeploy_plan(the_plan.errors[0], tools, target, level, store)
    if upgrade is None or _unchanged(upgrade, decide(upgrade)) is None:
        return the_plan
    upgrade.unchanged = True
    return upgrade


def _differs(
    the_plan: DeployPlan, tools: ResolvedTools, target: DeployTarget, changes: apply.DeployChanges
) -> errors.DeploymentDiffers:
    """``DeploymentDiffers`` for the deployment *the_plan* would replace: what differs between
    it and what *changes* would deploy (version, interpreter, runner, files), or which of its
    files changed on disk since it was deployed."""
    old = the_plan.replaced[0]
    deployed = old.agent_tools.get("distribution_version")
    installed = tools.agent_tools.get("distribution_version")
    found = content.differences(old.to_json(), changes.record.to_json())
    if not found:  # the same deployment, but what it wrote is no longer there as written
        changed = [f"the skill {w.source.name}" for w in changes.writes]
        if changes.config is not None and changes.config.plan.edit.changes:
            changed.append(f"the MCP config file {changes.config.config_file}")
        where = f"{', '.join(changed)}: " if changed else ""
        found = [f"files changed since it was deployed ({where}see 'agenttools verify')"]
    difference = "with " + (
        found[0] if len(found) == 1 else ", ".join(found[:-1]) + " and " + found[-1]
    )
    return errors.DeploymentDiffers(
        name=old.toolset_name,
        target=target.describe(),
        uuid=old.uuid,
        difference=difference,
        deployed=deployed,
        installed=installed,
        client=target.client.id,
    )


def decide(the_plan: DeployPlan) -> apply.DeployChanges:
    """Everything the plan changes: the config edit (read now, under the lock), the skill
    directories to write, the registry entries after the change, and the record."""
    target, uid = the_plan.target, the_plan.uuid
    config: apply.ConfigWrite | None = None
    server_entries: list[ServerEntry] = []
    if the_plan.servers:
        config_file = target.config_file
        assert config_file is not None
        servers = tuple((sp.key, sp.server) for sp in the_plan.servers)
        owned = _owned_entries(the_plan.replaced, config_file)
        planned = plan_server_entries(config_file, target.client, servers, owned=owned)
        config = apply.ConfigWrite(config_file, target.client, servers, planned, owned)
        server_entries = [
            ServerEntry(
                sp.server.qualified_name,
                sp.key,
                str(config_file),
                extra={
                    **({} if sp.digest is None else {content.DECLARATION: sp.digest}),
                    **({} if sp.settings is None else {"settings": dict(sp.settings)}),
                },
                runner=sp.runner,
                # the entry as written (plain data, a secret as its digest): what tells an
                # entry changed since
                written=redact(
                    planned.entries[sp.key][1], {k: v for k, v in sp.secrets.items() if v}
                ),
                origin=planned.origins.get(sp.key),
            )
            for sp in the_plan.servers
        ]
    root = target.skills_root
    writes = tuple(
        apply.SkillWrite(sp.directory.parent, sp.source)
        for sp in the_plan.skills
        if sp.decision.writes
    )
    # (a link goes into the client's own skills root)
    links = tuple(
        apply.SkillWrite(sp.directory.parent, sp.source)
        for sp in the_plan.skills
        if sp.decision.action is Action.LINK
    )
    entries = tuple(new_entry(sp, uid) for sp in the_plan.skills)
    installed = tuple(
        InstalledSkill(
            sp.source.name,
            str(sp.directory),
            e.key,
            e.identifier,
            e.version,
            extra={
                content.CONTENT: content.files_digest(e.hashes),
                **({content.LINK: e.extra[content.LINK]} if content.LINK in e.extra else {}),
            },
        )
        for sp, e in zip(the_plan.skills, entries, strict=True)
    )
    # (a write into another root the client reads replaces a copy there: that root exists)
    into_own = links or any(w.root == root for w in writes)
    created = litter.planned_claims(
        None if config is None else config.plan, target.client, root if into_own else None
    )
    target_data = target.to_json()
    if the_plan.tools.links:
        target_data["link"] = True  # (sync deploys it again the same way)
    record = DeploymentRecord(
        uuid=uid,
        client=target.client.id,
        agent_tools=dict(the_plan.tools.agent_tools),
        target=target_data,
        scope=target.scope,
        location_key=target.location_key,
        mcp_servers=tuple(server_entries),
        skills_directory=str(root) if root is not None and the_plan.tools.has_skills else None,
        installed=installed,
        skipped=tuple(the_plan.skipped),
        not_installed=tuple(sp.source.name for sp in the_plan.not_installed),
        timestamp=records.now_timestamp(),
        agenttools_version=__version__,
        extra={litter.CREATED: [c.to_json() for c in created]} if created else {},
    )
    return apply.DeployChanges(
        record=record,
        config=config,
        writes=writes,
        entries=entries,
        links=links,
        replaces=tuple(r.uuid for r in the_plan.replaced),
    )


def _owned_entries(replaced: list[DeploymentRecord], config_file: Path) -> dict[str, Owned]:
    """The keys of *config_file* the replaced deployments wrote (the newest one's, when
    several did): what they wrote and the origin they keep."""
    file_key = paths.canonical_path_key(config_file)
    owned: dict[str, Owned] = {}
    for record in replaced:  # oldest first: the newest wins
        for entry in record.mcp_servers:
            if paths.canonical_path_key(entry.config_file) == file_key:
                owned[entry.config_key] = Owned(entry.written, entry.origin)
    return owned


def _unchanged(the_plan: DeployPlan, changes: apply.DeployChanges) -> DeploymentRecord | None:
    """The deployment this one would replace without changing anything, if that is so: one
    replaced deployment of the same tools and target, no config entry to write, no skill
    directory to write, every registry entry already referencing it as it would, and the
    same record but for its id, time and agenttools version."""
    if len(the_plan.replaced) != 1 or changes.writes or changes.links:
        return None
    old = the_plan.replaced[0]
    if changes.config is not None and changes.config.plan.edit.changes:
        return None
    for sp in the_plan.skills:
        if sp.entry is None or sp.decision.action not in (Action.ADD_REFERENCE, Action.KEEP_NEWER):
            return None
        if old.uuid not in sp.kept or sp.entry.key != sp.key:
            return None
    same = content.identity(changes.record.to_json()) == content.identity(old.to_json())
    return old if same else None


def _stale_backup_warnings(the_plan: DeployPlan) -> list[AgentToolsWarning]:
    """Backups an interrupted operation left beside the skills root that no journal accounts
    for (an older agenttools, a killed low-level ``skills install``): possibly the only copy
    of a user's skill, so they are reported (never restored or deleted automatically)."""
    root = the_plan.target.skills_root
    if root is None or not the_plan.skills:
        return []
    left = [str(p) for p in stale_backups(root)]
    return [errors.AgentSkillBackupsLeft(backups=left, root=root)] if left else []


def _newer_kept_warnings(the_plan: DeployPlan) -> list[AgentToolsWarning]:
    return [
        errors.AgentSkillNewerVersionKept(
            name=sp.source.name,
            path=sp.directory,
            installed_version=sp.entry.version,
            version=sp.source.version,
        )
        for sp in the_plan.skills
        if sp.decision.action is Action.KEEP_NEWER and sp.entry is not None
    ]
