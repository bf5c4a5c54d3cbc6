"""The deploy engine: ``deploy()``, ``Deployment``, ``deployed()``, ``remove_deployment()``.

A deployment puts a bundle's MCP servers into a client's config file and its skills into the
client's skills directory, as one tracked, reversible unit (see docs/deploy.md). Modules:

- ``targets``  where a deployment goes (client, project, config file, skills root);
- ``plan``     the install/release decision tables and conflict rules (pure);
- ``apply``    the undo log;
- ``registry`` the reference-counted skill registry, its sweep and release;
- ``records``  deployment records;
- ``lock``     the cross-process deployment lock;
- ``engine``   the algorithm that combines them;
- ``deployment`` ``Deployment`` objects, listing and removal.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from agenttools_runtime.deploy.deployment import (
    Deployment,
    RemovalResult,
    deployed,
    find_deployment,
    remove_deployment,
)
from agenttools_runtime.deploy.targets import DEFAULT, SkillsDirOption

if TYPE_CHECKING:
    from agenttools_runtime.clients import Client
    from agenttools_runtime.deploy.engine import DeployPlan
    from agenttools_runtime.discovery import SearchPath
    from agenttools_runtime.errors import AgentToolsError, AgentToolsWarning

__all__ = [
    "DEFAULT",
    "AllClientsResult",
    "Deployment",
    "RemovalResult",
    "Skipped",
    "deploy",
    "deploy_all",
    "deployed",
    "find_deployment",
    "remove_deployment",
]

Overwrite = Literal["none", "upgrade", "all"]


@overload
def deploy(
    target: str | Client | tuple[str | Client, Path | str],
    tools: Any = None,
    *,
    overwrite: Overwrite = "none",
    skills_dir: SkillsDirOption = DEFAULT,
    mcp_server_name: str | None = None,
    dry_run: Literal[False] = False,
    project: Path | str | None = None,
    config: Path | str | None = None,
    search: SearchPath | None = None,
) -> Deployment: ...


@overload
def deploy(
    target: str | Client | tuple[str | Client, Path | str],
    tools: Any = None,
    *,
    overwrite: Overwrite = "none",
    skills_dir: SkillsDirOption = DEFAULT,
    mcp_server_name: str | None = None,
    dry_run: Literal[True],
    project: Path | str | None = None,
    config: Path | str | None = None,
    search: SearchPath | None = None,
) -> DeployPlan: ...


def deploy(
    target: str | Client | tuple[str | Client, Path | str],
    tools: Any = None,
    *,
    overwrite: Overwrite = "none",
    skills_dir: SkillsDirOption = DEFAULT,
    mcp_server_name: str | None = None,
    dry_run: bool = False,
    project: Path | str | None = None,
    config: Path | str | None = None,
    search: SearchPath | None = None,
) -> Deployment | DeployPlan:
    """Deploy *tools* to *target* as one tracked, reversible deployment.

    *target* is a client (id, CamelCase name or alias: user scope), or ``(client, dir)`` /
    ``project=dir`` (project scope), or a client with ``config=FILE`` (that MCP config file;
    a skills root only when the file is exactly the client's own user or project file).
    *tools* is a bundle name (``"dist"``, ``"dist/bundle"``, ``"dist/server"``, a server
    name), an ``AgentTools``, an ``MCPServer``, a mapping (ad hoc bundle), or None for the
    built-in ``agenttools`` bundle.

    *overwrite*: ``"none"`` fails with ``DeploymentExists`` when the deployment conflicts
    with an existing one; ``"upgrade"`` replaces conflicting deployments and upgrades
    unmodified skills from the same source; ``"all"`` also replaces skill directories that
    were modified or belong to another source. *skills_dir*: a skills root to use instead of
    the client's, or None to deploy no skills. *mcp_server_name*: the config key, for a
    bundle of exactly one server. *dry_run*: return the :class:`DeployPlan` (what would be
    written, replaced, kept; what would fail) and change nothing.

    Returns the :class:`Deployment`; warnings (``MCPServersNotDeployed``,
    ``AgentSkillsNotDeployed``, ``AgentSkillNotInstalled``, ``AgentSkillNewerVersionKept`` …)
    are issued with ``warnings.warn`` and kept in ``Deployment.warnings``. Raises
    ``AgentToolsEmpty``, ``AgentSkillsDisabled`` (before the target is looked at), the
    resolution and target errors, ``DeploymentExists``, skill conflicts
    (``AgentSkillExists``/``Modified``/``Conflict``/``Update``, several as
    ``AgentToolsErrors``), ``DeploymentLockTimeout``, and whatever a writer raises — after
    rolling back every change.
    """
    from agenttools_runtime.deploy import engine
    from agenttools_runtime.deploy.plan import Level
    from agenttools_runtime.deploy.targets import resolve_target

    level = Level.parse(overwrite)
    client, project = _split_target(target, project)
    resolved = engine.resolve(
        tools, search=search, mcp_server_name=mcp_server_name, skills_disabled=skills_dir is None
    )
    where = resolve_target(client, project=project, config=config, skills_dir=skills_dir)
    if dry_run:
        return engine.make_plan(resolved, where, level, dry_run=True)
    record, found = engine.execute(resolved, where, level)
    for warning in found:
        warnings.warn(warning, stacklevel=2)
    return Deployment(record, found)


@dataclass
class Skipped:
    """A client ``deploy_all`` skipped: ``reason`` is ``"DeploymentExists"``,
    ``"Unsupported"`` or ``"AgentSkillConflict"``; ``error`` the failure."""

    client: str
    reason: str
    error: AgentToolsError

    def to_json(self) -> dict[str, Any]:
        return {"client": self.client, "skipped": self.reason, "error": self.error.to_json()}


@dataclass
class AllClientsResult:
    """Per-client results of :func:`deploy_all` and the summarized warnings."""

    results: dict[str, Deployment | Skipped]
    warnings: list[AgentToolsWarning] = field(default_factory=list)

    @property
    def deployments(self) -> list[Deployment]:
        return [r for r in self.results.values() if isinstance(r, Deployment)]

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": True,
            "results": {c: r.to_json() for c, r in self.results.items()},
            "warnings": [w.to_json() for w in self.warnings],
        }


_UNSUPPORTED = (
    "UnknownInstallLocation", "UnsupportedMCPClient", "UnsupportedMCPClientProject",
    "UnsupportedSkillsClient", "UnsupportedSkillsClientProject", "UnknownSkillsLocation",
    "NoSkillsLocation", "UnsupportedTransport",
)  # fmt: skip
_SKILL_CONFLICTS = ("AgentSkillConflict", "AgentSkillModified", "AgentSkillExists",
                    "AgentSkillUpdate")  # fmt: skip
# per-client warnings that are quieted and summarized once
_SUMMARIZED = ("AgentSkillsNotDeployed", "MCPServersNotDeployed", "AgentSkillNotInstalled")


def deploy_all(
    tools: Any = None,
    *,
    overwrite: Overwrite = "none",
    skills_dir: SkillsDirOption = DEFAULT,
    mcp_server_name: str | None = None,
    search: SearchPath | None = None,
    clients: Mapping[str, Client] | None = None,
) -> AllClientsResult:
    """The spec's ``DeployAgentTools[All, tools]``: deploy to every supported client (or
    *clients*), taking the lock once per client. Tools are resolved once. A client that
    already has the deployment, does not support it, or has conflicting skills is skipped
    (a :class:`Skipped` result); the per-client warnings are summarized once
    (``DeploymentsExistWarning``, ``AgentSkillsNotDeployedWarning``,
    ``AgentSkillConflictWarning``, ``AgentSkillsNotInstalledWarning``). Other failures
    propagate."""
    from agenttools_runtime import errors
    from agenttools_runtime.clients import all_clients
    from agenttools_runtime.deploy import engine
    from agenttools_runtime.deploy.plan import Level
    from agenttools_runtime.deploy.targets import resolve_target

    level = Level.parse(overwrite)
    resolved = engine.resolve(
        tools, search=search, mcp_server_name=mcp_server_name, skills_disabled=skills_dir is None
    )
    table = clients if clients is not None else all_clients()
    results: dict[str, Deployment | Skipped] = {}
    exists: list[str] = []
    skills_skipped: list[str] = []
    not_installed: list[str] = []
    conflict = False
    passthrough: list[AgentToolsWarning] = []
    for client_id, client in table.items():
        try:
            where = resolve_target(client, skills_dir=skills_dir)
            record, found = engine.execute(resolved, where, level)
        except errors.AgentToolsError as exc:
            tags = {e.tag for e in getattr(exc, "errors", [exc])}
            if exc.tag == "DeploymentExists":
                results[client_id] = Skipped(client_id, "DeploymentExists", exc)
                exists.append(client.display_name)
            elif exc.tag in _UNSUPPORTED:
                results[client_id] = Skipped(client_id, "Unsupported", exc)
            elif tags <= set(_SKILL_CONFLICTS):
                results[client_id] = Skipped(client_id, "AgentSkillConflict", exc)
                conflict = True
            else:
                raise
            continue
        for warning in found:
            if warning.tag == "AgentSkillsNotDeployed":
                skills_skipped.append(client.display_name)
            elif warning.tag == "AgentSkillNotInstalled":
                if client.display_name not in not_installed:
                    not_installed.append(client.display_name)
            elif warning.tag not in _SUMMARIZED:
                passthrough.append(warning)
        results[client_id] = Deployment(record, found)
    summary: list[AgentToolsWarning] = list(passthrough)
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
    return AllClientsResult(results, summary)


def _split_target(
    target: str | Client | tuple[str | Client, Path | str], project: Path | str | None
) -> tuple[str | Client, Path | str | None]:
    if isinstance(target, tuple):
        client, directory = target
        return client, directory
    return target, project
