"""Resolved tools as one target gets them: each server as it is written there (its runner,
:mod:`agenttools_runtime.mcp.runners`), and the skills of an editable install as links
(``--link``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from agenttools_runtime.bundles import BUILTIN_SKILLS_DIR
from agenttools_runtime.deploy.resolved import ResolvedTools
from agenttools_runtime.deploy.targets import USER_SCOPE, DeployTarget
from agenttools_runtime.errors import (
    AgentSkillLinkNotEditable,
    AgentSkillLinksUnsupported,
    AgentToolsWarning,
)
from agenttools_runtime.mcp.runners import RunnerChoice, choose_runner, machine_specific_warning
from agenttools_runtime.skills.spec import SkillSource


def with_runner(
    resolved: ResolvedTools, where: DeployTarget, runner: str | None
) -> tuple[ResolvedTools, dict[str, RunnerChoice], list[AgentToolsWarning]]:
    """*resolved* with each server as it is written for this target (see
    :mod:`agenttools_runtime.mcp.runners`), what was chosen per config key, and the
    warnings for project files that hold a path of this machine."""
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


def _live_source(source: SkillSource) -> bool:
    """Whether a skill source is a live directory (an editable install's source tree, or a
    skill directory given as a path), not a wheel's copy inside a ``.dist-info``."""
    if source.directory is None or not source.directory.is_dir():
        return False
    directory = source.directory.resolve()
    if any(p.endswith(".dist-info") for p in directory.parts):
        return False
    return not directory.is_relative_to(Path(BUILTIN_SKILLS_DIR))
