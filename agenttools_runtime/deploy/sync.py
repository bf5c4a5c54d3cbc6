"""Bringing deployments back in line with their distributions: ``agenttools sync``.

Each ``outdated`` deployment is deployed again from the distribution installed now, in the
environment its record names, to the same target, with the same options (skills directory,
config key, runner) — the engine's upgrade path (``--upgrade``), so a skill the user
modified is kept as it is and reported (``AgentSkillModifiedKept``) unless ``force`` (then
``--force``: replaced). With ``prune``, each ``orphaned`` deployment (its distribution or its
environment is gone) is removed. Everything runs under one hold of the state lock.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from agenttools_runtime.deploy import content, drift, status
from agenttools_runtime.deploy.deploy_plan import DeployPlan
from agenttools_runtime.deploy.deployment import Deployment, remove_deployment
from agenttools_runtime.deploy.lock import deployment_lock
from agenttools_runtime.deploy.one_client import deploy_resolved
from agenttools_runtime.deploy.plan import Level
from agenttools_runtime.deploy.records import DeploymentRecord
from agenttools_runtime.deploy.resolved import ResolvedTools, resolve
from agenttools_runtime.deploy.server_checks import Check
from agenttools_runtime.deploy.targets import DEFAULT, SkillsDirOption, resolve_target
from agenttools_runtime.errors import AgentToolsError, AgentToolsWarning, DeploymentNotFound

if TYPE_CHECKING:
    from agenttools_runtime.deploy.status import DeploymentStatus
    from agenttools_runtime.discovery import SearchPath

UPGRADE, PRUNE, SKIP = "upgrade", "prune", "skip"


@dataclass(slots=True)
class SyncItem:
    """One deployment of a sync: what it is (``status``), what sync does with it
    (``action``: ``upgrade``, ``prune`` or ``skip``), and how that went: ``result`` (one of
    ``upgraded``, ``up to date``, ``removed``, ``would upgrade``, ``would remove``,
    ``would fail``, ``failed``, ``not removed``, ``skipped``), a ``detail`` sentence, the new
    deployment or the plan, and the warnings."""

    record: DeploymentRecord
    status: DeploymentStatus
    action: str
    result: str = ""
    detail: str = ""
    deployment: Deployment | None = None
    plan: DeployPlan | None = None
    warnings: list[AgentToolsWarning] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.result not in ("failed", "would fail", "not removed")

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "uuid": self.record.uuid,
            "client": self.record.client,
            "bundle": self.record.toolset_name,
            "status": self.status.status,
            "action": self.action,
            "result": self.result,
            "ok": self.ok,
            "detail": self.detail,
            "warnings": [w.to_json() for w in self.warnings],
        }
        if self.deployment is not None:
            data["deployment"] = self.deployment.uuid
        return data


def plan_sync(pool: Sequence[DeploymentRecord], *, prune: bool = False) -> list[SyncItem]:
    """What a sync of *pool* does: each outdated deployment is upgraded; with *prune* each
    orphaned one removed; the rest are left (``skip``: ok, drifted only, or ad hoc)."""
    found = []
    for record, state in zip(pool, status.statuses(pool), strict=True):
        states = state.states
        if drift.ORPHANED in states:
            action = PRUNE if prune else SKIP
        elif drift.OUTDATED in states and record.agent_tools.get("location") is not None:
            action = UPGRADE
        else:
            action = SKIP
        found.append(SyncItem(record, state, action))
    return found


def run_sync(
    items: Sequence[SyncItem],
    *,
    dry_run: bool = False,
    force: bool = False,
    remove_orphans: bool = True,
    check: Check = "start",
) -> None:
    """Carry out *items* (see :func:`plan_sync`) under one hold of the lock, filling in each
    one's result; a failure of one does not stop the others (a new version whose server
    cannot start — *check*, see :func:`redeploy` — fails its item, the deployment as it
    was). *remove_orphans* False: the orphaned ones are reported as not removed (no
    confirmation was given)."""
    if dry_run or all(i.action == SKIP for i in items):
        for item in items:
            _dry(item, force, check)  # (each a skip, when not a dry run)
        return
    with deployment_lock():
        for item in items:
            if item.action == UPGRADE:
                _upgrade(item, force, check)
            elif item.action == PRUNE and remove_orphans:
                _prune(item)
            elif item.action == PRUNE:
                item.result, item.detail = "not removed", _reason(item)
            else:
                _skipped(item)


def redeploy(
    record: DeploymentRecord,
    *,
    force: bool = False,
    dry_run: bool = False,
    search: SearchPath | None = None,
    settings: Mapping[str, Mapping[str, str]] | None = None,
    check: Check = "start",
    resolved: ResolvedTools | None = None,
) -> Deployment | DeployPlan:
    """Deploy *record*'s tools again from what is installed now, to the same target with
    the same options (see the module docstring); *search*: from that environment instead of
    the record's (an upgraded managed environment); *settings*: new values of declared
    settings (``configure``; the others keep theirs); *check*: as for
    :func:`~agenttools_runtime.deploy.one_client.deploy` (by default a server whose new
    entry would not start is refused, the deployment left as it was); *resolved*: what
    :func:`resolved_again` gave for *record* (``configure`` reads it first, to check the
    names of the values given), else it is read here. Raises what resolving and deploying
    raise, and ``DeploymentNotFound`` for an ad hoc bundle (nothing installed to deploy it
    from)."""
    target = record.target
    skills_dir: SkillsDirOption = target.get("skills_dir") or DEFAULT
    if target.get("no_skills"):
        skills_dir = None  # deployed with --no-skills
    if resolved is None:
        resolved = resolved_again(record, search)
    where = resolve_target(
        record.client,
        project=target.get("project"),
        config=target.get("config"),
        skills_dir=skills_dir,
    )
    runners = {s.runner for s in record.mcp_servers}
    runner = runners.pop() if len(runners) == 1 else None
    level = Level.ALL if force else Level.UPGRADE
    return deploy_resolved(
        resolved,
        where,
        level,
        runner=runner,
        dry_run=dry_run,
        keep_modified=not force,
        link=bool(target.get("link")),
        settings=settings,
        check=check,
    )


def resolved_again(record: DeploymentRecord, search: SearchPath | None = None) -> ResolvedTools:
    """*record*'s tools as :func:`redeploy` deploys them again: resolved from what is
    installed now (*search*: as for :func:`redeploy`), under the config key it was written
    with. Raises what resolving raises, and ``DeploymentNotFound`` for an ad hoc bundle."""
    at = record.agent_tools
    location = at.get("location")
    if location is None:
        raise DeploymentNotFound(id=f"{record.toolset_name} (an ad hoc bundle)")
    environment = at.get(content.ENVIRONMENT) or {}
    if search is None and location == "distribution":
        search = status.environment_search(environment)
    name = None if location == "builtin" else record.toolset_name
    skills_disabled = bool(record.target.get("no_skills"))
    resolved = resolve(name, search=search, skills_disabled=skills_disabled)
    key = _config_key(record, resolved)
    if key is not None:  # (what resolve(mcp_server_name=key) gives, without reading it again)
        resolved = replace(resolved, servers=(replace(resolved.servers[0], key=key),))
    return resolved


def _config_key(record: DeploymentRecord, resolved: ResolvedTools) -> str | None:
    """The key a one-server deployment was written under when it is not the server's own
    (deployed with ``--name``)."""
    if len(record.mcp_servers) != 1 or len(resolved.servers) != 1:
        return None
    recorded = record.mcp_servers[0].config_key
    return None if recorded == resolved.servers[0].key else recorded


# -- carrying out one item -------------------------------------------------------------------


def _upgrade(item: SyncItem, force: bool, check: Check) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (reported once, below)
            outcome = redeploy(item.record, force=force, check=check)
    except AgentToolsError as exc:
        item.result, item.detail = "failed", str(exc)
        return
    assert isinstance(outcome, Deployment)
    item.deployment = outcome
    item.warnings = list(outcome.warnings)
    for warning in item.warnings:
        warnings.warn(warning, stacklevel=3)
    kept = [str(w.data.get("name")) for w in item.warnings if w.tag == "AgentSkillModifiedKept"]
    if outcome.unchanged:
        item.result, item.detail = "up to date", f"deployment {outcome.uuid}"
    else:
        item.result = "upgraded"
        item.detail = f"{_versions(item)}: deployment {outcome.uuid}"
    if kept:
        item.detail += f"; kept the modified skill(s) {', '.join(kept)} (--force replaces them)"


def _prune(item: SyncItem) -> None:
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", AgentToolsWarning)
            remove_deployment(item.record.uuid)
    except AgentToolsError as exc:
        item.result, item.detail = "failed", str(exc)
        return
    item.warnings = [w.message for w in caught if isinstance(w.message, AgentToolsWarning)]
    for warning in item.warnings:
        warnings.warn(warning, stacklevel=3)
    item.result, item.detail = "removed", _reason(item)


def _dry(item: SyncItem, force: bool, check: Check) -> None:
    if item.action == PRUNE:
        item.result, item.detail = "would remove", _reason(item)
        return
    if item.action != UPGRADE:
        _skipped(item)
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            the_plan = redeploy(item.record, force=force, dry_run=True, check=check)
    except AgentToolsError as exc:
        item.result, item.detail = "would fail", str(exc)
        return
    assert isinstance(the_plan, DeployPlan)
    item.plan = the_plan
    if not the_plan.ok:
        item.result, item.detail = "would fail", str(the_plan.errors[0]).splitlines()[0]
    elif the_plan.unchanged:
        item.result, item.detail = "up to date", "nothing would change"
    else:
        item.result, item.detail = "would upgrade", _versions(item)
        if the_plan.kept_modified:
            item.detail += f"; would keep the modified skill(s) {', '.join(the_plan.kept_modified)}"


def _skipped(item: SyncItem) -> None:
    word = item.status.status
    item.result = "skipped"
    if word == drift.OK:
        item.detail = "ok"
    elif word == drift.ORPHANED:
        item.detail = f"orphaned ({_reason(item)}); --prune removes it"
    elif word == drift.DRIFTED and drift.OUTDATED not in item.status.states:
        item.detail = "drifted (see 'agenttools verify'); sync upgrades outdated deployments"
    elif item.record.agent_tools.get("location") is None:
        item.detail = "an ad hoc bundle: deploy it again with --upgrade"
    else:
        item.detail = word


def _versions(item: SyncItem) -> str:
    deployed = item.record.agent_tools.get("distribution_version")
    installed = item.status.installed_version
    if deployed and installed and deployed != installed:
        return f"{deployed} -> {installed}"
    reason = next((f.message for f in item.status.findings if f.state == drift.OUTDATED), "")
    return reason or "new content"


def _reason(item: SyncItem) -> str:
    return next((f.message for f in item.status.findings if f.state == drift.ORPHANED), "orphaned")
