"""The deploy engine: ``deploy()``, ``Deployment``, ``deployed()``, ``remove_deployment()``.

A deployment puts a bundle's MCP servers into a client's config file and its skills into the
client's skills directory, as one tracked, reversible unit (see docs/deploy.md). Modules:

- ``targets``  where a deployment goes (client, project, config file, skills root);
- ``plan``     the install/release decision tables and conflict rules (pure);
- ``apply``    the undo log;
- ``registry`` the reference-counted skill registry, its sweep and release;
- ``records``  deployment records;
- ``lock``     the cross-process deployment lock;
- ``resolved`` the tools of a deploy, resolved and hashed before the lock;
- ``skill_decision`` one skill's install decision and its registry entry after it;
- ``deploy_plan`` ``DeployPlan``, everything a deploy would do (and its ``--dry-run`` text);
- ``engine``   the algorithm that combines them;
- ``deployment`` ``Deployment`` objects, listing and removal.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from agenttools_runtime import errors
from agenttools_runtime.clients import all_clients
from agenttools_runtime.deploy.targets import DEFAULT, USER_SCOPE, SkillsDirOption, resolve_target

# `agenttools deployed` imports this package for its index (``deploy.index``): ``deployment``
# (records, the lock, the journal) are imported where a deploy or a removal
# runs, so that listing costs no more than reading the index (benchmarks/startup.py).
TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any, Literal, overload

    from agenttools_runtime.bundles import ToolsSpec
    from agenttools_runtime.clients import Client
    from agenttools_runtime.deploy.deploy_plan import DeployPlan
    from agenttools_runtime.deploy.deployment import (
        Deployment,
        RemovalResult,
        deployed,
        find_deployment,
        remove_deployment,
    )
    from agenttools_runtime.deploy.plan import Level
    from agenttools_runtime.deploy.resolved import ResolvedTools
    from agenttools_runtime.deploy.targets import DeployTarget
    from agenttools_runtime.discovery import SearchPath
    from agenttools_runtime.errors import AgentToolsError, AgentToolsWarning
    from agenttools_runtime.mcp.runners import RunnerChoice
    from agenttools_runtime.signals import Interrupted

    Overwrite = Literal["none", "upgrade", "all"]
else:

    def overload(function: object) -> object:
        return function  # at run time an overloaded function is its last definition


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

# name -> module of this package that defines it, imported on first use (see above)
_DEPLOYMENT = ("Deployment", "RemovalResult", "deployed", "find_deployment", "remove_deployment")


def __getattr__(name: str) -> Any:
    if name not in _DEPLOYMENT:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from agenttools_runtime.deploy import deployment

    return getattr(deployment, name)


@overload
def deploy(
    target: str | Client | tuple[str | Client, Path | str],
    tools: ToolsSpec = None,
    *,
    overwrite: Overwrite = "none",
    skills_dir: SkillsDirOption = DEFAULT,
    mcp_server_name: str | None = None,
    dry_run: Literal[False] = False,
    project: Path | str | None = None,
    config: Path | str | None = None,
    search: SearchPath | None = None,
    runner: str | None = None,
    link: bool = False,
) -> Deployment: ...


@overload
def deploy(  # noqa: F811 (ruff does not take the run-time `overload` above for typing's)
    target: str | Client | tuple[str | Client, Path | str],
    tools: ToolsSpec = None,
    *,
    overwrite: Overwrite = "none",
    skills_dir: SkillsDirOption = DEFAULT,
    mcp_server_name: str | None = None,
    dry_run: Literal[True],
    project: Path | str | None = None,
    config: Path | str | None = None,
    search: SearchPath | None = None,
    runner: str | None = None,
    link: bool = False,
) -> DeployPlan: ...


def deploy(  # noqa: F811 (ruff does not take the run-time `overload` above for typing's)
    target: str | Client | tuple[str | Client, Path | str],
    tools: ToolsSpec = None,
    *,
    overwrite: Overwrite = "none",
    skills_dir: SkillsDirOption = DEFAULT,
    mcp_server_name: str | None = None,
    dry_run: bool = False,
    project: Path | str | None = None,
    config: Path | str | None = None,
    search: SearchPath | None = None,
    runner: str | None = None,
    link: bool = False,
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
    written, replaced, kept; what would fail) and change nothing. *runner*: how
    ``module``/``script`` servers are written (``"python"``, ``"script"``, ``"uvx"``; None:
    the scope's default, see :mod:`agenttools_runtime.mcp.runners`); recorded per entry.
    *link*: the skills of an editable install become links to their live source
    (``AgentSkillLinkNotEditable`` when none is; ``AgentSkillLinksUnsupported`` for a client
    known not to follow links); other skills are copied.

    Returns the :class:`Deployment`; warnings (``MCPServersNotDeployed``,
    ``AgentSkillsNotDeployed``, ``AgentSkillNotInstalled``, ``AgentSkillNewerVersionKept`` …)
    are issued with ``warnings.warn`` and kept in ``Deployment.warnings``. Raises
    ``AgentToolsEmpty``, ``AgentSkillsDisabled`` (before the target is looked at), the
    resolution and target errors, ``DeploymentExists``, skill conflicts
    (``AgentSkillExists``/``Modified``/``Conflict``/``Update``, several as
    ``AgentToolsErrors``), ``DeploymentLockTimeout``, and whatever a writer raises — after
    rolling back every change.
    """
    # bundles, discovery, skills: not on `deployed`'s start-up
    from agenttools_runtime.deploy.deployment import Deployment
    from agenttools_runtime.deploy.plan import Level
    from agenttools_runtime.deploy.resolved import resolve

    level = Level.parse(overwrite)
    client, project = _split_target(target, project)
    from agenttools_runtime import signals

    # reading and verifying the bundle changes nothing but a cache of verified files: SIGINT
    # or SIGTERM there leave nothing to undo, and say so
    try:
        with signals.interruptible():
            resolved = resolve(
                tools,
                search=search,
                mcp_server_name=mcp_server_name,
                skills_disabled=skills_dir is None,
            )
            where = resolve_target(client, project=project, config=config, skills_dir=skills_dir)
    except KeyboardInterrupt as exc:
        raise signals.Interrupted.from_interrupt(exc, "nothing was deployed") from None
    outcome = deploy_resolved(resolved, where, level, runner=runner, dry_run=dry_run, link=link)
    if isinstance(outcome, Deployment):
        for warning in outcome.warnings:
            warnings.warn(warning, stacklevel=2)
    return outcome


def deploy_resolved(
    resolved: ResolvedTools,
    where: DeployTarget,
    level: Level,
    *,
    runner: str | None = None,
    dry_run: bool = False,
    keep_modified: bool = False,
    link: bool = False,
) -> Deployment | DeployPlan:
    """One client's deploy of resolved tools (the lock is taken inside): the runner applied
    to its servers, the built-in server's MCP SDK checked, then the plan (*dry_run*) or the
    deployment, with its warnings (not issued). The same tools deployed there already with
    the same content are no conflict: the deployment that stands is returned
    (``Deployment.unchanged``; a plan with ``unchanged``). *keep_modified*: see
    :func:`agenttools_runtime.deploy.engine.execute_outcome`."""
    # the engine (bundles, discovery, skills, config formats): not on `deployed`'s start-up
    from agenttools_runtime.deploy import engine
    from agenttools_runtime.deploy.deployment import Deployment

    tools, launches, notes = _with_runner(resolved, where, runner)
    if link:
        tools = with_links(tools, where)
    missing = _missing_sdk(tools, launches)
    if dry_run:
        the_plan = engine.make_plan(tools, where, level, dry_run=True, keep_modified=keep_modified)
        the_plan = engine.identical_dry_plan(the_plan) or the_plan
        the_plan.warnings.extend(notes)
        the_plan.launches = launches
        if missing is not None:
            the_plan.errors.append(missing)
        return the_plan
    if missing is not None:
        raise missing
    outcome = engine.execute_outcome(tools, where, level, keep_modified=keep_modified)
    return Deployment(
        outcome.record, [*notes, *outcome.warnings], launches, unchanged=outcome.unchanged
    )


def _with_runner(
    resolved: ResolvedTools, where: DeployTarget, runner: str | None
) -> tuple[ResolvedTools, dict[str, RunnerChoice], list[AgentToolsWarning]]:
    """*resolved* with each server as it is written for this target (see
    :mod:`agenttools_runtime.mcp.runners`), what was chosen per config key, and the
    warnings for project files that hold a path of this machine."""
    # runners and bundles: deploying needs them, `deployed` does not

    from agenttools_runtime.mcp.runners import choose_runner, machine_specific_warning

    if where.config_file is None or not resolved.servers:
        return resolved, {}, []  # no MCP config here: nothing is written
    project = where.scope not in (USER_SCOPE, None)
    plans = []
    launches: dict[str, RunnerChoice] = {}
    notes: list[AgentToolsWarning] = []
    for sp in resolved.servers:
        choice = choose_runner(sp.server, runner, project=project)
        launches[sp.key] = choice
        plans.append(replace(sp, server=choice.server, runner=choice.runner))
        warning = machine_specific_warning(choice, sp.key, where.config_file) if project else None
        if warning is not None:
            notes.append(warning)
    return replace(resolved, servers=tuple(plans)), launches, notes


def with_links(resolved: ResolvedTools, where: DeployTarget) -> ResolvedTools:
    """*resolved* with its skills from an editable install's source tree marked to be
    deployed as links (``--link``). Raises ``AgentSkillLinksUnsupported`` for a client
    known not to load linked skill folders, ``AgentSkillLinkNotEditable`` when no skill
    has a live source to link to."""

    from agenttools_runtime.errors import AgentSkillLinkNotEditable, AgentSkillLinksUnsupported

    if not resolved.skills or where.skills_root is None:
        return resolved
    client = where.client
    if client.follows_skill_links is False:
        links = client.skill_links or {}
        source = f"reported for {links.get('verified', 'it')}: {links.get('source', '')}"
        if links.get("fixed"):
            source += f"; fixed {links['fixed']}"
        raise AgentSkillLinksUnsupported(
            client_name=client.display_name, source=source.rstrip(": "), client=client.id
        )
    live = frozenset(s.name for s in resolved.skills if _live_source(s))
    if not live:
        raise AgentSkillLinkNotEditable(
            name=resolved.name,
            reason="none of its skills is a directory in an editable install's source tree "
            "(installed copies and generated skills change only with a reinstall)",
        )
    return replace(resolved, links=live)


def _live_source(source: Any) -> bool:
    """Whether a skill source is a live directory (an editable install's source tree, or a
    skill directory given as a path), not a wheel's copy inside a ``.dist-info``."""
    from agenttools_runtime.bundles import BUILTIN_SKILLS_DIR

    directory = source.directory
    if directory is None or not directory.is_dir():
        return False
    parts = Path(directory).resolve().parts
    if any(p.endswith(".dist-info") for p in parts):
        return False
    return not Path(directory).resolve().is_relative_to(Path(BUILTIN_SKILLS_DIR))


def _missing_sdk(
    tools: ResolvedTools, launches: Mapping[str, RunnerChoice]
) -> AgentToolsError | None:
    """``MCPSDKMissing`` when the built-in ``agenttools`` server would be written to run in
    an interpreter without the MCP SDK (the ``[serve]`` extra): it could never start."""
    # bundles and discovery: deploying needs them, `deployed` does not
    from agenttools_runtime.bundles import BUILTIN_SERVERS
    from agenttools_runtime.mcp.server import Environment

    builtin = BUILTIN_SERVERS["agenttools"]
    for key, choice in launches.items():
        if choice.runner == "uvx" or choice.server.name != builtin.name:
            continue  # uvx installs agenttools[serve] itself
        if choice.server.origin != builtin.origin:
            continue
        python = (choice.server.environment or Environment.current()).python
        if not has_mcp_sdk(python):
            return errors.MCPSDKMissing(
                feature=f'The built-in "agenttools" MCP server (config key "{key}", run by '
                f"{python})"
            )
    return None


def has_mcp_sdk(python: Path) -> bool:
    """Whether the interpreter *python* can import the MCP SDK (``mcp``), without importing
    it here (a subprocess for another interpreter)."""
    import subprocess  # only another interpreter is asked

    if os.path.abspath(python) == os.path.abspath(sys.executable):
        return importlib.util.find_spec("mcp") is not None
    probe = "import importlib.util, sys; sys.exit(importlib.util.find_spec('mcp') is None)"
    try:
        done = subprocess.run([os.fspath(python), "-c", probe], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode == 0


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
        from agenttools_runtime.deploy.deployment import Deployment

        return [r for r in self.results.values() if isinstance(r, Deployment)]

    def succeeded(self, client: str) -> bool:
        """Whether *client* got what was asked: deployed, a plan that would succeed, or —
        unless the clients were named — skipped because it does not support the tools."""
        from agenttools_runtime.deploy.deployment import Deployment

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
    "UnknownInstallLocation", "UnsupportedMCPClient", "UnsupportedMCPClientProject",
    "UnsupportedSkillsClient", "UnsupportedSkillsClientProject", "UnknownSkillsLocation",
    "NoSkillsLocation", "UnsupportedTransport", "AgentToolsNothingToDeploy",
    "AgentSkillLinksUnsupported",
)  # fmt: skip
_SKILL_CONFLICTS = ("AgentSkillConflict", "AgentSkillModified", "AgentSkillExists",
                    "AgentSkillUpdate")  # fmt: skip
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
) -> AllClientsResult:
    """The spec's ``DeployAgentTools[All, tools]``: deploy to every supported client (or
    *clients*, in *project* when given), taking the lock once per client. Tools are resolved
    once. A client that already has the deployment, does not support it, or has conflicting
    skills is skipped (a :class:`Skipped` result); the per-client warnings are summarized
    once (``DeploymentsExistWarning``, ``AgentSkillsNotDeployedWarning``,
    ``AgentSkillConflictWarning``, ``AgentSkillsNotInstalledWarning``). Other failures
    propagate — or, with *keep_going*, are a ``"Failed"`` skip and the next client goes on.
    With *dry_run* each client's result is its :class:`DeployPlan` (nothing is changed or
    warned). *named*: see :class:`AllClientsResult`."""
    # bundles, discovery, skills: not on `deployed`'s start-up
    from agenttools_runtime.deploy.deployment import Deployment
    from agenttools_runtime.deploy.plan import Level
    from agenttools_runtime.deploy.resolved import resolve

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
    passthrough: list[AgentToolsWarning] = []
    client_id = ""
    try:
        for client_id, client in table.items():
            try:
                where = resolve_target(client, project=project, skills_dir=skills_dir)
                outcome = deploy_resolved(
                    resolved, where, level, runner=runner, dry_run=dry_run, link=link
                )
            except errors.AgentToolsError as exc:
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
                    passthrough.append(warning)
    except KeyboardInterrupt as exc:  # SIGINT/SIGTERM: say what every client got
        raise _interrupted(exc, client_id, AllClientsResult(results, [], named), table) from None
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
    from agenttools_runtime import signals
    from agenttools_runtime.deploy.deployment import Deployment

    committed = getattr(exc, "committed", ())
    deployed = [f"{c} ({d.uuid})" for c, d in partial.results.items()
                if isinstance(d, Deployment) and not d.unchanged]  # fmt: skip
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


def _split_target(
    target: str | Client | tuple[str | Client, Path | str], project: Path | str | None
) -> tuple[str | Client, Path | str | None]:
    if isinstance(target, tuple):
        client, directory = target
        return client, directory
    return target, project
