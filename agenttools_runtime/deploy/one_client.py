"""``deploy()``: one bundle into one client, as one tracked, reversible deployment — the
tools resolved before the lock, then :func:`deploy_resolved` (what ``deploy_all`` and ``sync``
call per client)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload

from agenttools_runtime import signals
from agenttools_runtime.clients import Client
from agenttools_runtime.deploy import engine
from agenttools_runtime.deploy.deploy_plan import DeployPlan
from agenttools_runtime.deploy.deployment import Deployment
from agenttools_runtime.deploy.plan import Level
from agenttools_runtime.deploy.resolved import ResolvedTools, resolve
from agenttools_runtime.deploy.server_checks import Check, missing_sdk, server_problems
from agenttools_runtime.deploy.target_tools import with_links, with_runner
from agenttools_runtime.deploy.targets import (
    DEFAULT,
    DeployTarget,
    SkillsDirOption,
    resolve_target,
)
from agenttools_runtime.discovery import SearchPath
from agenttools_runtime.errors import AgentToolsErrors
from agenttools_runtime.settings.configure import with_settings

if TYPE_CHECKING:
    from agenttools_runtime.bundles import ToolsSpec
    from agenttools_runtime.mcp.settings import Ask

Overwrite = Literal["none", "upgrade", "all"]


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
    settings: Mapping[str, Mapping[str, str]] | None = None,
    ask: Ask | None = None,
    check: Check = "start",
) -> Deployment: ...


@overload
def deploy(
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
    settings: Mapping[str, Mapping[str, str]] | None = None,
    ask: Ask | None = None,
    check: Check = "start",
) -> DeployPlan: ...


def deploy(
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
    settings: Mapping[str, Mapping[str, str]] | None = None,
    ask: Ask | None = None,
    check: Check = "start",
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
    known not to follow links); other skills are copied. *settings*: values of the servers'
    declared settings, by server name then setting name; *ask*: how to ask for a required
    one not given (None: not asked; see :mod:`agenttools_runtime.settings.configure`).
    *check*: ``"start"`` (the default) refuses, before anything is written, every server
    whose entry would not start — its interpreter or module, its script, its command not
    there (``MCPServerCannotStart``; one per server, several as ``AgentToolsErrors``: the
    whole deployment is refused, the bundle's other servers too); ``"connect"`` also starts
    each and waits for its answer to ``initialize``; ``"none"`` checks nothing (an ad hoc
    ``MCPServer`` whose command exists only on another machine). A URL server is never
    checked. See :mod:`agenttools_runtime.deploy.server_checks`.

    Returns the :class:`Deployment`; warnings (``MCPServersNotDeployed``,
    ``AgentSkillsNotDeployed``, ``AgentSkillNotInstalled``, ``AgentSkillNewerVersionKept`` …)
    are issued with ``warnings.warn`` and kept in ``Deployment.warnings``. Raises
    ``AgentToolsEmpty``, ``AgentSkillsDisabled`` (before the target is looked at), the
    resolution and target errors, ``DeploymentExists``, skill conflicts
    (``AgentSkillExists``/``Modified``/``Conflict``/``Update``, several as
    ``AgentToolsErrors``), ``DeploymentLockTimeout``, and whatever a writer raises — after
    rolling back every change.
    """
    level = Level.parse(overwrite)
    client, project = target if isinstance(target, tuple) else (target, project)

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
    settings: Mapping[str, Mapping[str, str]] | None = None,
    ask: Ask | None = None,
    check: Check = "start",
) -> Deployment | DeployPlan:
    """One client's deploy of resolved tools (the lock is taken inside): the runner applied
    to its servers, the built-in server's MCP SDK checked, then the plan (*dry_run*) or the
    deployment, with its warnings (not issued). The same tools deployed there already with
    the same content are no conflict: the deployment that stands is returned
    (``Deployment.unchanged``; a plan with ``unchanged``). *keep_modified*: see
    :func:`agenttools_runtime.deploy.engine.execute_outcome`."""
    tools, launches, notes = with_runner(resolved, where, runner)
    tools, dropped = with_settings(tools, where, settings or {}, ask)
    notes = [*notes, *dropped]
    cannot_start = server_problems(tools, where, check)
    if link:
        tools = with_links(tools, where)
    missing = missing_sdk(launches)
    if dry_run:
        the_plan = engine.dry_plan(tools, where, level, keep_modified=keep_modified)
        the_plan.warnings.extend(notes)
        the_plan.launches = launches
        if missing is not None:
            the_plan.errors.append(missing)
        the_plan.errors.extend(cannot_start)
        return the_plan
    if missing is not None:
        raise missing
    if cannot_start:
        raise AgentToolsErrors.of(cannot_start)
    done = engine.execute_outcome(tools, where, level, keep_modified=keep_modified)
    return replace(done, warnings=[*notes, *done.warnings], launches=launches)
