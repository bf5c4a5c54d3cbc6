"""Skill folders shared by several clients: a deployment uses the copy agenttools already put
where the client reads it instead of writing a second one (a registry reference, so removal
stays right in every order), and reports every other copy the client would see too: a
different skill of the same name is a conflict below --force, an identical one a warning.
Every test asserts the files on disk and the registry."""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path

import pytest

from agenttools_runtime.clients import get_client
from agenttools_runtime.deploy import deploy, deployed, registry, remove_deployment
from agenttools_runtime.deploy.plan import (
    OTHER_COPY_ROLES,
    SHADOW_RULE,
    USE_OTHER_COPY,
    Action,
    CopyKind,
    CopyRole,
    Decision,
    Level,
    OtherCopy,
    choose_copy,
    copy_roles,
    decide_shadows,
)
from agenttools_runtime.deploy.targets import resolve_target
from agenttools_runtime.errors import (
    AgentSkillDuplicate,
    AgentSkillInUse,
    AgentSkillOtherVersion,
    AgentSkillSeenTwice,
    AgentSkillShadowed,
    AgentSkillShadowedWarning,
)
from agenttools_runtime.skills.install import install_skills
from tests.helpers.state import iter_entries

from .conftest import bundle, inline, snapshot

SKILLS = ("weather-report", "forecast-help")


def tools(version: int = 1) -> object:
    return bundle("weather", [inline(n, body=f"{n} v{version}.\n") for n in SKILLS])


def quietly(fn: object, *args: object, **kwargs: object) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)  # type: ignore[operator]


def skill_dirs(root: Path) -> list[str]:
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if not p.name.startswith("."))


def seen_by(client: str, *, project: Path | None = None) -> dict[str, list[Path]]:
    """Every skill directory of our names in the roots *client* reads (the client table)."""
    target = resolve_target(client, project=project)
    found: dict[str, list[Path]] = {}
    for root in target.skill_reads:
        for name in SKILLS:
            if (root / name / "SKILL.md").is_file():
                found.setdefault(name, []).append(root / name)
    return found


def entries() -> list[registry.RegistryEntry]:
    return list(iter_entries())


# -- the pure tables ---------------------------------------------------------------------------


def test_the_own_root_wins_whenever_it_has_the_name() -> None:
    ours = OtherCopy(CopyKind.OURS, identical=True)
    assert choose_copy(True, [ours]) is None
    assert choose_copy(False, [ours]) == 0


def test_another_deployments_copy_comes_before_identical_foreign_ones() -> None:
    foreign = OtherCopy(CopyKind.FOREIGN, identical=True)
    external = OtherCopy(CopyKind.EXTERNAL, identical=True)
    ours_different = OtherCopy(CopyKind.OURS, identical=False)
    assert choose_copy(False, [foreign, external, ours_different]) == 2
    assert choose_copy(False, [foreign, external]) == 1
    assert choose_copy(False, [foreign]) == 0


@pytest.mark.parametrize(
    "copy",
    [
        OtherCopy(CopyKind.FOREIGN, identical=False),  # the user's own different skill
        OtherCopy(CopyKind.EXTERNAL, identical=False),
        OtherCopy(CopyKind.OURS, identical=True, leaving=True),  # goes with the replaced one
        OtherCopy(CopyKind.OURS, identical=True, directory=False),  # a link: never written through
        OtherCopy(CopyKind.FOREIGN, identical=True, directory=False),
    ],
)
def test_copies_never_used(copy: OtherCopy) -> None:
    assert choose_copy(False, [copy]) is None


def test_a_redeploy_keeps_the_copy_it_uses_whatever_copies_appeared_since() -> None:
    first = OtherCopy(CopyKind.OURS, identical=True)
    held = OtherCopy(CopyKind.OURS, identical=True, held=True)
    assert choose_copy(False, [first, held]) == 1
    assert choose_copy(False, [first, OtherCopy(CopyKind.OURS, identical=True)]) == 0
    # held, but of a later row: the rows still come first
    assert choose_copy(False, [first, OtherCopy(CopyKind.FOREIGN, True, held=True)]) == 0


def test_every_kind_of_copy_gets_one_role() -> None:
    combos = [
        OtherCopy(kind, identical, directory, leaving, same_source=same)
        for kind, identical, directory, leaving, same in itertools.product(
            CopyKind, (False, True), (False, True), (False, True), (False, True)
        )
    ]
    for copy in combos:
        (role,) = copy_roles(None, [copy])
        expected = (
            CopyRole.LEAVING
            if copy.leaving
            else CopyRole.DUPLICATE
            if copy.identical
            else CopyRole.OTHER_VERSION
            if copy.kind is CopyKind.OURS and copy.same_source
            else CopyRole.SHADOW
        )
        assert role is expected, copy
    assert copy_roles(0, combos[:1]) == (CopyRole.USED,)
    assert len(USE_OTHER_COPY) == 3 and len(OTHER_COPY_ROLES) == 4


@pytest.mark.parametrize("level", list(Level))
def test_a_shadow_blocks_below_force_and_a_conflict_stays_first(level: Level) -> None:
    create = Decision(Action.CREATE, None)
    shadowed = decide_shadows(create, [CopyRole.SHADOW], level)
    if level >= SHADOW_RULE.level:
        assert shadowed == create
    else:
        assert (shadowed.action, shadowed.conflict) == (None, "AgentSkillShadowed")
    assert decide_shadows(create, [CopyRole.DUPLICATE, CopyRole.LEAVING], level) == create
    refused = Decision(None, "AgentSkillModified")
    assert decide_shadows(refused, [CopyRole.SHADOW], level) == refused


# -- codex and gemini-cli share one copy, in either order --------------------------------------


@pytest.mark.parametrize("order", [("codex", "gemini-cli"), ("gemini-cli", "codex")])
def test_codex_and_gemini_share_one_copy_in_either_order(
    home: Path, order: tuple[str, str]
) -> None:
    first = deploy(order[0], tools())
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing seen twice, nothing shadowed
        second = deploy(order[1], tools())
    agents = home / ".agents" / "skills"
    assert skill_dirs(agents) == sorted(SKILLS)
    assert not (home / ".gemini" / "skills").exists()
    for client in order:
        assert {k: len(v) for k, v in seen_by(client).items()} == dict.fromkeys(SKILLS, 1)
    for entry in entries():
        assert sorted(entry.references) == sorted([first.uuid, second.uuid])


CLIENTS = ("codex", "gemini-cli", "copilot-cli", "opencode")
# deploy orders that start with a client writing ~/.agents/skills (the others then use that
# copy), each with a different removal order
ORDERS = [
    (deploying, removing)
    for deploying, removing in zip(
        [p for p in itertools.permutations(CLIENTS) if p[0] in ("codex", "gemini-cli")][::2],
        itertools.permutations(CLIENTS),
        strict=False,
    )
]


@pytest.mark.parametrize(("order", "removal"), ORDERS)
def test_removal_in_any_order_leaves_each_survivor_one_copy(
    home: Path, order: tuple[str, ...], removal: tuple[str, ...]
) -> None:
    made = {client: quietly(deploy, client, tools()) for client in order}
    assert skill_dirs(home / ".agents" / "skills") == sorted(SKILLS)
    for client in order:
        assert {k: len(v) for k, v in seen_by(client).items()} == dict.fromkeys(SKILLS, 1)
    for removing in removal:
        quietly(remove_deployment, made.pop(removing).uuid)
        for survivor in made:
            assert {k: len(v) for k, v in seen_by(survivor).items()} == dict.fromkeys(SKILLS, 1)
    assert entries() == []
    for root in (".agents", ".copilot", ".config/opencode", ".gemini", ".claude"):
        assert skill_dirs(home / root / "skills") == []


@pytest.mark.parametrize("remove_first", ["codex", "opencode"])
def test_a_reference_to_a_copy_in_another_root(home: Path, remove_first: str) -> None:
    codex = deploy("codex", tools())
    opencode = deploy("opencode", tools())
    # OpenCode reads ~/.agents/skills: nothing written to its own folder
    assert skill_dirs(home / ".config" / "opencode" / "skills") == []
    installed = {s.name: Path(s.directory) for s in opencode.record.installed}
    assert installed == {n: home / ".agents" / "skills" / n for n in SKILLS}
    assert opencode.record.skills_directory == str(home / ".config" / "opencode" / "skills")
    made = {"codex": codex, "opencode": opencode}
    with pytest.warns(AgentSkillInUse):
        made.pop(remove_first).remove()
    (survivor,) = made
    assert {k: len(v) for k, v in seen_by(survivor).items()} == dict.fromkeys(SKILLS, 1)
    made[survivor].remove()
    assert skill_dirs(home / ".agents" / "skills") == [] and entries() == []


def test_the_other_order_warns_that_the_first_client_sees_the_skill_twice(home: Path) -> None:
    deploy("opencode", tools())  # its own folder: nothing else was there
    with pytest.warns(AgentSkillSeenTwice) as caught:
        deploy("codex", tools())
    texts = [str(w.message) for w in caught if isinstance(w.message, AgentSkillSeenTwice)]
    assert len(texts) == len(SKILLS)
    assert "OpenCode" in texts[0] and str(home / ".config" / "opencode" / "skills") in texts[0]


def test_an_upgrade_through_a_shared_reference_upgrades_the_shared_copy(home: Path) -> None:
    deploy("codex", tools(1))
    copilot = deploy("copilot-cli", tools(1))
    assert skill_dirs(home / ".copilot" / "skills") == []
    quietly(deploy, "copilot-cli", tools(2), overwrite="upgrade")
    shared = home / ".agents" / "skills" / "weather-report" / "SKILL.md"
    assert "weather-report v2." in shared.read_text()  # the copy codex uses too
    assert skill_dirs(home / ".copilot" / "skills") == []
    assert copilot.uuid not in {d.uuid for d in deployed()}  # replaced
    assert len(entries()) == len(SKILLS)


def test_another_version_of_the_same_skill_in_another_root_is_a_warning(home: Path) -> None:
    # Cursor reads ~/.claude/skills and ~/.agents/skills: claude-code's copy, then codex's
    deploy("claude-code", tools(1))
    cursor = quietly(deploy, "cursor", tools(1))
    quietly(deploy, "codex", tools(1))
    again = quietly(deploy, "cursor", tools(1))  # still the copy it used: nothing to do
    assert again.unchanged and again.uuid == cursor.uuid  # type: ignore[attr-defined]
    quietly(deploy, "claude-code", tools(2), overwrite="upgrade")
    # codex's copy is still v1, cursor's (claude-code's) v2: the same skill, another version
    with pytest.warns(AgentSkillOtherVersion) as caught:
        deploy("cursor", tools(2), overwrite="upgrade")
    texts = [str(w.message) for w in caught if isinstance(w.message, AgentSkillOtherVersion)]
    assert len(texts) == len(SKILLS) and "agenttools sync" in texts[0]
    assert "v1" in (home / ".agents" / "skills" / "weather-report" / "SKILL.md").read_text()
    assert skill_dirs(home / ".cursor" / "skills") == []


# -- copies agenttools did not write -----------------------------------------------------------


def user_skill(root: Path, name: str, body: str) -> Path:
    directory = root / name
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Mine.\n---\n\n{body}")
    return directory


def test_a_different_user_copy_in_another_root_is_a_conflict_the_plan_shows(home: Path) -> None:
    mine = user_skill(home / ".agents" / "skills", "weather-report", "My own.\n")
    before = snapshot(home)
    the_plan = deploy("opencode", tools(), dry_run=True)
    assert not the_plan.ok
    (error,) = the_plan.errors
    assert isinstance(error, AgentSkillShadowed)
    assert str(mine) in str(error) and "OpenCode" in str(error) and "--force" in str(error)
    data = the_plan.to_json()
    report = next(s for s in data["skills"] if s["name"] == "weather-report")
    assert report["conflict"]["tag"] == "AgentSkillShadowed"
    assert report["other_copies"] == [
        {"directory": str(mine), "kind": "foreign", "identical": False, "role": "shadow"}
    ]
    assert "also read: " + str(mine) in the_plan.render()
    with pytest.raises(AgentSkillShadowed):
        deploy("opencode", tools())
    assert snapshot(home) == before  # nothing written


def test_force_deploys_beside_a_different_copy_and_never_touches_it(home: Path) -> None:
    mine = user_skill(home / ".agents" / "skills", "weather-report", "My own.\n")
    before = (mine / "SKILL.md").read_bytes()
    with pytest.warns(AgentSkillShadowedWarning):
        dep = deploy("opencode", tools(), overwrite="all")
    own = home / ".config" / "opencode" / "skills"
    assert skill_dirs(own) == sorted(SKILLS)
    dep.remove()
    assert (mine / "SKILL.md").read_bytes() == before and skill_dirs(own) == []


def test_an_identical_user_copy_is_used_and_kept(home: Path) -> None:
    claude = home / ".claude" / "skills"
    install_skills(claude, tools())  # the low-level install: untracked, as if made by hand
    dep = deploy("opencode", tools())
    assert skill_dirs(home / ".config" / "opencode" / "skills") == []
    assert {Path(s.directory).parent for s in dep.record.installed} == {claude}
    assert all(e.external for e in entries())
    dep.remove()
    assert skill_dirs(claude) == sorted(SKILLS)  # external: never deleted
    assert entries() == []


def test_an_identical_copy_the_client_sees_twice_is_a_warning(home: Path) -> None:
    deploy("vscode", tools())  # ~/.copilot/skills
    with pytest.warns(AgentSkillSeenTwice):  # VS Code reads ~/.claude/skills too
        deploy("claude-code", tools())
    with pytest.warns(AgentSkillDuplicate) as caught:  # and a redeploy says so again
        deploy("vscode", tools(), overwrite="upgrade")
    assert any(str(home / ".claude" / "skills") in str(w.message) for w in caught)


# -- project scope -----------------------------------------------------------------------------


@pytest.mark.parametrize("order", [("codex", "gemini-cli"), ("gemini-cli", "codex")])
def test_project_scope_shares_one_copy(home: Path, tmp_path: Path, order: tuple[str, str]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    made = [deploy(client, tools(), project=project) for client in order]
    assert skill_dirs(project / ".agents" / "skills") == sorted(SKILLS)
    assert not (project / ".gemini" / "skills").exists()
    copilot = deploy("copilot-cli", tools(), project=project)
    assert not (project / ".github" / "skills").exists()  # it reads .agents/skills too
    for client in (*order, "copilot-cli"):
        seen = seen_by(client, project=project)
        assert {k: len(v) for k, v in seen.items()} == dict.fromkeys(SKILLS, 1)
    for dep in (made[0], copilot, made[1]):
        quietly(dep.remove)
    assert skill_dirs(project / ".agents" / "skills") == [] and entries() == []


def test_project_user_copy_in_claude_folder_blocks_copilot(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    user_skill(project / ".claude" / "skills", "forecast-help", "Team's own.\n")
    the_plan = deploy("copilot-cli", tools(), project=project, dry_run=True)
    assert [type(e) for e in the_plan.errors] == [AgentSkillShadowed]
    assert str(project / ".claude" / "skills" / "forecast-help") in str(the_plan.errors[0])


# -- a target whose skills folder is named ------------------------------------------------------


def test_skills_dir_looks_at_that_folder_only(home: Path, tmp_path: Path) -> None:
    user_skill(home / ".agents" / "skills", "weather-report", "My own.\n")
    chosen = tmp_path / "chosen"
    target = resolve_target("opencode", skills_dir=chosen)
    assert target.skill_reads == (chosen,)
    deploy("opencode", tools(), skills_dir=chosen)  # no conflict: the user chose the folder
    assert skill_dirs(chosen) == sorted(SKILLS)


def test_the_read_roots_of_a_target(home: Path, tmp_path: Path) -> None:
    assert resolve_target("gemini-cli").skill_reads == (
        home / ".agents" / "skills",
        home / ".gemini" / "skills",
    )
    assert resolve_target("claude-code").skill_reads == (home / ".claude" / "skills",)
    project = tmp_path / "p"
    project.mkdir()
    assert resolve_target("opencode", project=project).skill_reads == (
        project / ".opencode" / "skills",
        project / ".claude" / "skills",
        project / ".agents" / "skills",
    )
    assert resolve_target("opencode", skills_dir=None).skill_reads == ()
    assert get_client("gemini-cli").skill_reads is not None
