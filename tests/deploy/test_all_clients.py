"""deploy_all (the spec's DeployAgentTools[All, ...]): per-client results, summarized warnings."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from agenttools_runtime.clients import all_clients
from agenttools_runtime.deploy import Deployment, Skipped, deploy_all, deployed
from agenttools_runtime.errors import (
    AgentSkillConflictWarning,
    AgentSkillsDisabled,
    AgentSkillsNotDeployedWarning,
    AgentSkillsNotInstalledWarning,
    DeploymentsExistWarning,
)

from .conftest import bundle, inline, server, write_skill


def run_all(*args: object, **kwargs: object) -> tuple[object, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = deploy_all(*args, **kwargs)  # type: ignore[arg-type]
    return result, caught


def test_every_client_gets_a_result_and_warnings_are_summarized(home: Path) -> None:
    tools = bundle("everywhere", [inline("everywhere-skill")], [server("everywhere")])
    result, caught = run_all(tools)
    assert set(result.results) == set(all_clients())  # type: ignore[attr-defined]
    kinds = {c: type(r).__name__ for c, r in result.results.items()}  # type: ignore[attr-defined]
    assert kinds["claude-code"] == "Deployment"
    assert kinds["lm-studio"] == "Deployment"  # MCP only
    lm = result.results["lm-studio"]  # type: ignore[attr-defined]
    assert isinstance(lm, Deployment) and lm.skipped == ["everywhere-skill"]
    categories = [w.category for w in caught]
    assert categories.count(AgentSkillsNotDeployedWarning) == 1
    summary = next(w for w in caught if w.category is AgentSkillsNotDeployedWarning)
    assert "LM Studio" in str(summary.message)
    assert all(not c.__name__.endswith("NotDeployed") for c in categories)  # quieted per client
    assert (home / ".claude" / "skills" / "everywhere-skill" / "SKILL.md").exists()
    assert (home / ".agents" / "skills" / "everywhere-skill" / "SKILL.md").exists()
    deployments = deployed()
    assert len(deployments) == len(result.deployments)  # type: ignore[attr-defined]

    # the same bundle again: every deployment is already there, up to date (no conflict)
    again, caught = run_all(tools)
    assert all(
        (isinstance(r, Deployment) and r.unchanged)
        or (isinstance(r, Skipped) and r.reason == "Unsupported")
        for r in again.results.values()  # type: ignore[attr-defined]
    )
    assert DeploymentsExistWarning not in [w.category for w in caught]
    assert sorted(d.uuid for d in deployed()) == sorted(d.uuid for d in deployments)
    for dep in deployments:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dep.remove()
    assert not (home / ".agents" / "skills" / "everywhere-skill").exists()


def test_a_client_with_a_conflicting_skill_is_skipped(home: Path) -> None:
    write_skill(home / ".cursor" / "skills" / "clash", body="theirs\n")
    sub = {c: all_clients()[c] for c in ("cursor", "claude-code")}
    result, caught = run_all(bundle("b", [inline("clash")]), clients=sub)
    assert isinstance(result.results["cursor"], Skipped)  # type: ignore[attr-defined]
    assert result.results["cursor"].reason == "AgentSkillConflict"  # type: ignore[attr-defined]
    assert isinstance(result.results["claude-code"], Deployment)  # type: ignore[attr-defined]
    assert [w.category for w in caught] == [AgentSkillConflictWarning]
    assert "theirs" in (home / ".cursor" / "skills" / "clash" / "SKILL.md").read_text()


def test_builtin_bundle_conflicts_are_summarized(home: Path) -> None:
    write_skill(home / ".cursor" / "skills" / "agenttools", body="theirs\n")
    sub = {c: all_clients()[c] for c in ("cursor", "lm-studio")}
    result, caught = run_all(None, clients=sub)
    assert [w.category for w in caught] == [AgentSkillsNotInstalledWarning]
    assert "Cursor" in str(caught[0].message)
    assert result.results["cursor"].not_installed == ["agenttools"]  # type: ignore[attr-defined]


def test_skills_only_with_skills_disabled_fails_once() -> None:
    with pytest.raises(AgentSkillsDisabled):
        deploy_all(bundle("b", [inline("x")]), skills_dir=None)
