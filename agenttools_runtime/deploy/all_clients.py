"""``deploy_all()``: one bundle into every supported client (or those named), the tools
resolved once, each client's outcome a :class:`Deployment`, a plan or a :class:`Skipped`, and
the per-client warnings summarized once."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttools_runtime import errors, signals
from agenttools_runtime.clients import Client, all_clients
from agenttools_runtime.deploy.deploy_plan import DeployPlan
from agenttools_runtime.deploy.deployment import Deployment
from agenttools_runtime.deploy.one_client import Overwrite, deploy_resolved
from agenttools_runtime.deploy.plan import Level
from agenttools_runtime.deploy.resolved import resolve
from agenttools_runtime.deploy.targets import DEFAULT, SkillsDirOption, resolve_target
from agenttools_runtime.discovery import SearchPath
from agenttools_runtime.errors import AgentToolsError, AgentToolsWarning
from agenttools_runtime.signals import Interrupted

if TYPE_CHECKING:
    from agenttools_runtime.bundles import ToolsSpec
    from agenttools_runtime.deploy.server_checks import Check
    from agenttools_runtime.mcp.settings import Ask


@dataclass(frozen=True, slots=True)
class Skipped:
    """A client ``deploy_all`` did not deploy to: ``reason`` is ``"DeploymentExists"``,
    ``"Unsupported"``, ``"AgentSkillConflict"`` or (with ``keep_going``) ``"Failed"``;
    ``error`` the failure."""

    client: str
    reason: str
    error: AgentToolsError

    def to_json(self) -> dict[str, Any]:
        return {"client": self.client, "skipped": self.reason, "error": self.error.to_json()}


@dataclass(frozen=True, slots=True)
class AllClientsResult:
    """Per-client results of :func:`deploy_all` (a :class:`Deployment`, with ``dry_run`` a
    :class:`DeployPlan`, or :class:`Skipped`) and the summarized warnings. ``named``: the
    clients were named one by one, so a client that cannot take the tools is a failure
    rather than a skip."""

    results: dict[str, Deployment | DeployPlan | Skipped]
    warnings: list[AgentToolsWarning] = field(default_factory=list)
    named: bool = False

    @property
    def deployments(self) -> list[Deployment]:
        return [r for r in self.results.values() if isinstance(r, Deployment)]

    def succeeded(self, client: str) -> bool:
        """Whether *client* got what was asked: deployed, a plan that would succeed, or —
        unless the clients were named — skipped because it does not support the tools."""
        result = self.results[client]
        if isinstance(result, Skipped):
            return result.reason == "Unsupported" and not self.named
        if isinstance(result, Deployment):
            return True
        return result.ok

    @property
    def failed(self) -> list[str]:
        return [c for c in self.results if not self.succeeded(c)]

    @property
    def ok(self) -> bool:
        return not self.failed

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "results": {c: r.to_json() for c, r in self.results.items()},
            "failed": self.failed,
            "warnings": [w.to_json() for w in self.warnings],
        }


_UNSUPPORTED = (
    "UnknownInstallLocation",
    "UnsupportedMCPClient",
    "UnsupportedMCPClientProject",
    "UnsupportedSkillsClient",
    "UnsupportedSkillsClientProject",
    "UnknownSkillsLocation",
    "NoSkillsLocation",
    "UnsupportedTransport",
    "AgentToolsNothingToDeploy",
    "AgentSkillLinksUnsupported",
)

_SKILL_CONFLICTS = (
    "AgentSkillConflict",
    "AgentSkillModified",
    "AgentSkillExists",
    "AgentSkillUpdate",
)

# per-client warnings that are quieted and summarized once
_SUMMARIZED = ("AgentSkillsNotDeployed", "MCPServersNotDeployed", "AgentSkillNotInstalled")


def deploy_all(
    tools: ToolsSpec = None,
    *,
    overwrite: Overwrite = "none",
    skills_dir: SkillsDirOption = DEFAULT,
    mcp_server_name: str | None = None,
    search: SearchPath | None = None,
    clients: Mapping[str, Client] | None = None,
    project: Path | str | None = None,
    runner: str | None = None,
    dry_run: bool = False,
    keep_going: bool = False,
    named: bool = False,
    link: bool = False,
    settings: Mapping[str, Mapping[str, str]] | None = None,
    ask: Ask | None = None,
    check: Check = "start",
) -> AllClientsResult:
    """The spec's ``DeployAgentTools[All, tools]``: deploy to every supported client (or
    *clients*, in *project* when given), taking the lock once per client. Tools are resolved
    once. A client that already has the deployment, does not support it, or has conflicting
    skills is skipped (a :class:`Skipped` result); the per-client warnings are summarized
    once (``DeploymentsExistWarning``, ``AgentSkillsNotDeployedWarning``,
    ``AgentSkillConflictWarning``, ``AgentSkillsNotInstalledWarning``). Other failures
    propagate — or, with *keep_going*, are a ``"Failed"`` skip and the next client goes on.
    With *dry_run* each client's result is its :class:`DeployPlan` (nothing is changed or
    warned). *named*: see :class:`AllClientsResult`. *settings*, *ask*, *check*: as for
    :func:`~agenttools_runtime.deploy.one_client.deploy`."""
    level = Level.parse(overwrite)
    resolved = resolve(
        tools, search=search, mcp_server_name=mcp_server_name, skills_disabled=skills_dir is None
    )
    table = clients if clients is not None else all_clients()
    results: dict[str, Deployment | DeployPlan | Skipped] = {}
    exists: list[str] = []
    skills_skipped: list[str] = []
    not_installed: list[str] = []
    conflict = False
    summary: list[AgentToolsWarning] = []  # the warnings not summarized, then the summaries
    client_id = ""
    try:
        for client_id, client in table.items():
            try:
                where = resolve_target(client, project=project, skills_dir=skills_dir)
                outcome = deploy_resolved(
                    resolved,
                    where,
                    level,
                    runner=runner,
                    dry_run=dry_run,
                    link=link,
                    settings=settings,
                    ask=ask,
                    check=check,
                )
            except AgentToolsError as exc:
                tags = {e.tag for e in getattr(exc, "errors", [exc])}
                if isinstance(exc, errors.DeploymentExists):
                    results[client_id] = Skipped(client_id, "DeploymentExists", exc)
                    exists.append(client.display_name)
                elif exc.tag in _UNSUPPORTED:
                    results[client_id] = Skipped(client_id, "Unsupported", exc)
                elif tags <= set(_SKILL_CONFLICTS):
                    results[client_id] = Skipped(client_id, "AgentSkillConflict", exc)
                    conflict = True
                elif keep_going:
                    results[client_id] = Skipped(client_id, "Failed", exc)
                else:
                    raise
                continue
            results[client_id] = outcome
            if not isinstance(outcome, Deployment):
                continue  # a plan: its warnings are part of it
            for warning in outcome.warnings:
                if warning.tag == "AgentSkillsNotDeployed":
                    skills_skipped.append(client.display_name)
                elif warning.tag == "AgentSkillNotInstalled":
                    if client.display_name not in not_installed:
                        not_installed.append(client.display_name)
                elif warning.tag not in _SUMMARIZED:
                    summary.append(warning)
    except KeyboardInterrupt as exc:  # SIGINT/SIGTERM: say what every client got
        raise _interrupted(exc, client_id, AllClientsResult(results, [], named), table) from None
    if exists:
        summary.append(errors.DeploymentsExistWarning(clients=exists))
    if skills_skipped:
        summary.append(errors.AgentSkillsNotDeployedWarning(clients=skills_skipped))
    if conflict:
        summary.append(errors.AgentSkillConflictWarning())
    if not_installed:
        summary.append(errors.AgentSkillsNotInstalledWarning(clients=not_installed))
    for warning in summary:
        warnings.warn(warning, stacklevel=2)
    return AllClientsResult(results, summary, named)


def _interrupted(
    exc: KeyboardInterrupt,
    current: str,
    partial: AllClientsResult,
    table: Mapping[str, Client],
) -> Interrupted:
    """The interruption of :func:`deploy_all` while at client *current*: its outcome names
    every client already done, what became of *current*, the clients not reached and the
    command that undoes what was committed; ``partial`` holds the results so far."""
    committed = getattr(exc, "committed", ())
    deployed = [
        f"{c} ({d.uuid})"
        for c, d in partial.results.items()
        if isinstance(d, Deployment) and not d.unchanged
    ]
    deployed.extend(f"{current} ({uid})" for uid in committed)
    parts = [f"deployed to {', '.join(deployed)}"] if deployed else []
    same = [c for c, d in partial.results.items() if isinstance(d, Deployment) and d.unchanged]
    if same:
        parts.append(f"already up to date: {', '.join(same)}")
    skipped = [c for c, d in partial.results.items() if isinstance(d, Skipped)]
    if skipped:
        parts.append(f"not deployed: {', '.join(skipped)}")
    if current and not committed and current not in partial.results:  # (else: just after it)
        parts.append(f"{current}: {getattr(exc, 'outcome', '') or 'nothing was deployed'}")
    names = list(table)
    rest = names[names.index(current) + 1 :] if current in names else names
    if rest:
        parts.append(f"not reached: {', '.join(rest)}")
    undo = [d.uuid for d in partial.deployments if not d.unchanged] + list(committed)
    if undo:
        them = "them" if len(undo) > 1 else "it"
        parts.append(f"'agenttools remove {' '.join(undo)}' undoes {them}")
    interrupted = signals.Interrupted.from_interrupt(exc, "; ".join(parts), tuple(undo))
    interrupted.partial = partial
    return interrupted
