"""The deploy algorithm with skills: reference counting, the install decision on real
directories, conflicts, replacement, sweep. Every test asserts what is on disk."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import warnings
from dataclasses import replace
from pathlib import Path

import pytest

from agenttools_runtime import paths
from agenttools_runtime.deploy import deploy, deployed, engine, registry
from agenttools_runtime.deploy.plan import Level
from agenttools_runtime.deploy.resolved import resolve
from agenttools_runtime.deploy.targets import resolve_target
from agenttools_runtime.errors import (
    AgentSkillConflict,
    AgentSkillExists,
    AgentSkillInUse,
    AgentSkillModified,
    AgentSkillNewerVersionKept,
    AgentSkillNotRemoved,
    AgentSkillUpdate,
    AgentToolsEmpty,
    AgentToolsErrors,
    DeploymentExists,
    DuplicateAgentSkillName,
)

from .conftest import bundle, inline, snapshot, write_skill


def sweep() -> list[object]:
    """Run the registry sweep the way a locked operation does."""
    from agenttools_runtime.deploy.lock import deployment_lock
    from agenttools_runtime.deploy.removal import sweep as run_sweep

    with deployment_lock() as store:
        return list(run_sweep(store))


def entry_for(directory: Path) -> registry.RegistryEntry:
    entry = registry.load_entry(paths.registry_key(directory.parent, directory.name))
    assert entry is not None, f"no registry entry for {directory}"
    return entry


def no_entry(directory: Path) -> bool:
    return registry.load_entry(paths.registry_key(directory.parent, directory.name)) is None


def record_dirs(state: Path) -> list[str]:
    root = state / "deployments"
    return sorted(n for n in os.listdir(root) if not n.startswith(".")) if root.exists() else []


# -- basics ----------------------------------------------------------------------------------


def test_deploy_inline_skill_writes_the_skill_the_registry_and_the_record(
    home: Path, state: Path
) -> None:
    dep = deploy("claude-code", bundle("notes", [inline("note-taking", "Take notes.\n")]))
    skill = home / ".claude" / "skills" / "note-taking"
    text = (skill / "SKILL.md").read_text()
    assert "name: note-taking" in text and "Take notes." in text
    entry = entry_for(skill)
    assert entry.references == (dep.uuid,)
    assert entry.external is False
    assert entry.identifier == "AgentTools:notes/note-taking"
    record = json.loads((state / "deployments" / dep.uuid / "deployment.json").read_text())
    assert record["version"] == 1
    assert record["client"] == "claude-code"
    assert record["scope"] == "user"
    assert record["skills"]["installed"][0]["registry_key"] == entry.key
    assert record["skills"]["directory"] == str(home / ".claude" / "skills")
    assert [d.uuid for d in deployed()] == [dep.uuid]
    assert deployed("cursor") == []
    assert dep.agent_skills == ["note-taking"]


def test_empty_bundle_fails_before_anything(home: Path, state: Path) -> None:
    with pytest.raises(AgentToolsEmpty, match='"nothing"'):
        deploy("claude-code", bundle("nothing"))
    assert snapshot(home, state) == {}


def test_duplicate_skill_names_fail(home: Path, sources: Path) -> None:
    a = write_skill(sources / "a" / "same")
    with pytest.raises(DuplicateAgentSkillName):
        deploy("claude-code", bundle("dup", [a, inline("same")]))
    assert not (home / ".claude").exists()


# -- reference counting across clients that share a skills root -------------------------------


@pytest.mark.parametrize("order", list(itertools.permutations(["copilot-cli", "vscode"])))
def test_copilot_cli_and_vscode_share_one_directory(
    home: Path, sources: Path, order: tuple[str, ...]
) -> None:
    src = write_skill(sources / "shared-skill", files={"scripts/run.sh": "#!/bin/sh\necho\n"})
    deps = {c: deploy(c, bundle("b", [src])) for c in ("copilot-cli", "vscode")}
    skill = home / ".copilot" / "skills" / "shared-skill"
    assert sorted(entry_for(skill).references) == sorted(d.uuid for d in deps.values())
    assert os.access(skill / "scripts" / "run.sh", os.X_OK)
    first, last = order
    with pytest.warns(AgentSkillInUse, match="other agent tools deployments still use it"):
        deps[first].remove()
    assert (skill / "SKILL.md").read_bytes() == (src / "SKILL.md").read_bytes()
    assert entry_for(skill).references == (deps[last].uuid,)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        deps[last].remove()
    assert not skill.exists()
    assert no_entry(skill)
    assert deployed() == []


@pytest.mark.parametrize("order", list(itertools.permutations(["codex", "goose", "zed"])))
def test_codex_goose_zed_share_agents_skills_every_removal_order(
    home: Path, order: tuple[str, ...]
) -> None:
    tools = bundle("agents", [inline("agents-skill")])
    deps = {c: deploy(c, tools) for c in order}
    skill = home / ".agents" / "skills" / "agents-skill"
    assert len(entry_for(skill).references) == 3
    for index, client in enumerate(order):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            deps[client].remove()
        last = index == len(order) - 1
        assert skill.exists() is not last
        in_use = [w for w in caught if issubclass(w.category, AgentSkillInUse)]
        assert len(in_use) == (0 if last else 1)
    assert no_entry(skill)


@pytest.mark.parametrize("first_removed", ["one", "two"])
def test_two_bundles_sharing_a_skill(home: Path, sources: Path, first_removed: str) -> None:
    src = write_skill(sources / "common")
    deps = {
        "one": deploy("cursor", bundle("one", [src, inline("only-one")])),
        "two": deploy("cursor", bundle("two", [src])),
    }
    root = home / ".cursor" / "skills"
    assert sorted(entry_for(root / "common").references) == sorted(d.uuid for d in deps.values())
    with pytest.warns(AgentSkillInUse):
        deps[first_removed].remove()
    assert (root / "common").is_dir()
    assert (root / "only-one").exists() is (first_removed == "two")
    other = "two" if first_removed == "one" else "one"
    deps[other].remove()
    assert not root.exists()  # agenttools created it: it went with the last deployment


# -- modified, external, foreign ---------------------------------------------------------------


def test_modified_skill_is_kept_on_removal_with_a_warning(home: Path) -> None:
    dep = deploy("claude-code", bundle("b", [inline("edited")]))
    skill = home / ".claude" / "skills" / "edited"
    (skill / "SKILL.md").write_text((skill / "SKILL.md").read_text() + "My own notes.\n")
    with pytest.warns(AgentSkillNotRemoved, match="was modified after it was installed") as rec:
        dep.remove()
    assert "agenttools skills uninstall" in str(rec[0].message)
    assert "My own notes." in (skill / "SKILL.md").read_text()
    assert no_entry(skill)


def test_git_checkout_inside_a_skill_counts_as_modified(home: Path) -> None:
    dep = deploy("claude-code", bundle("b", [inline("versioned")]))
    skill = home / ".claude" / "skills" / "versioned"
    (skill / ".git").mkdir()
    (skill / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    with pytest.warns(AgentSkillNotRemoved):
        dep.remove()
    assert (skill / ".git" / "HEAD").exists()


def test_junk_does_not_count_and_goes_with_the_skill(home: Path) -> None:
    dep = deploy("claude-code", bundle("b", [inline("junky")]))
    skill = home / ".claude" / "skills" / "junky"
    (skill / ".DS_Store").write_bytes(b"\0junk")
    (skill / "__pycache__").mkdir()
    dep.remove()
    assert not skill.exists()


def test_identical_existing_directory_is_adopted_as_external_and_kept(
    home: Path, sources: Path
) -> None:
    src = write_skill(sources / "mine")
    root = home / ".claude" / "skills"
    root.mkdir(parents=True)
    shutil.copytree(src, root / "mine")
    before = snapshot(root)
    dep = deploy("claude-code", bundle("b", [src]))
    assert entry_for(root / "mine").external is True
    assert snapshot(root) == before
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dep.remove()
    assert snapshot(root) == before
    assert no_entry(root / "mine")


def test_different_existing_directory_needs_force(home: Path, sources: Path) -> None:
    src = write_skill(sources / "taken", body="Ours.\n")
    root = home / ".claude" / "skills"
    theirs = write_skill(root / "taken", body="Theirs.\n")
    before = snapshot(home)
    for level in ("none", "upgrade"):
        with pytest.raises(AgentSkillExists, match="--force"):
            deploy("claude-code", bundle("b", [src]), overwrite=level)  # type: ignore[arg-type]
        assert snapshot(home) == before
    dep = deploy("claude-code", bundle("b", [src]), overwrite="all")
    assert "Ours." in (theirs / "SKILL.md").read_text()
    assert entry_for(theirs).external is False
    # theirs is kept while ours is deployed, and put back by the removal
    (kept,) = [n for n in os.listdir(root.parent) if n.startswith(".agenttools-backup")]
    assert kept.startswith(".agenttools-backup-replaced-")
    dep.remove()
    assert snapshot(home) == before


def test_link_and_file_destinations_need_force_and_are_replaced_as_themselves(
    home: Path, sources: Path, tmp_path: Path
) -> None:
    src = write_skill(sources / "linked")
    elsewhere = write_skill(tmp_path / "elsewhere" / "linked", body="Elsewhere.\n")
    root = home / ".claude" / "skills"
    root.mkdir(parents=True)
    (root / "linked").symlink_to(elsewhere)
    with pytest.raises(AgentSkillExists):
        deploy("claude-code", bundle("b", [src]))
    deploy("claude-code", bundle("b", [src]), overwrite="all")
    assert not (root / "linked").is_symlink()
    assert "Elsewhere." in (elsewhere / "SKILL.md").read_text()  # the link's target untouched


# -- upgrades ----------------------------------------------------------------------------------


def test_source_update_requires_upgrade_and_then_everyone_shares_it(
    home: Path, sources: Path
) -> None:
    src = write_skill(sources / "evolving", body="v1\n")
    one = deploy("cursor", bundle("one", [src]))
    write_skill(src, body="v2\n")
    skill = home / ".cursor" / "skills" / "evolving"
    with pytest.raises(AgentSkillUpdate, match="--upgrade"):
        deploy("cursor", bundle("two", [src]))
    assert "v1" in (skill / "SKILL.md").read_text()
    two = deploy("cursor", bundle("two", [src]), overwrite="upgrade")
    assert "v2" in (skill / "SKILL.md").read_text()
    assert sorted(entry_for(skill).references) == sorted([one.uuid, two.uuid])
    assert entry_for(skill).hashes["SKILL.md"]
    with pytest.warns(AgentSkillInUse):
        one.remove()
    two.remove()
    assert not skill.exists()


def test_upgrade_never_clobbers_a_modified_directory(home: Path, sources: Path) -> None:
    src = write_skill(sources / "precious", body="v1\n")
    deploy("cursor", bundle("one", [src]))
    skill = home / ".cursor" / "skills" / "precious"
    (skill / "notes.md").write_text("mine\n")
    write_skill(src, body="v2\n")
    before = snapshot(skill)
    for tools in (bundle("one", [src]), bundle("two", [src])):
        with pytest.raises(AgentSkillModified, match="--force"):
            deploy("cursor", tools, overwrite="upgrade")
        assert snapshot(skill) == before


def test_modified_directory_equal_to_the_incoming_source_is_adopted(
    home: Path, sources: Path
) -> None:
    src = write_skill(sources / "converge", body="v1\n")
    one = deploy("cursor", bundle("one", [src]))
    skill = home / ".cursor" / "skills" / "converge"
    write_skill(src, body="v2\n")
    write_skill(skill, body="v2\n")  # the user made the same edit
    two = deploy("cursor", bundle("two", [src]))
    assert entry_for(skill).hashes == dict(resolve(bundle("x", [src])).skills[0].manifest)
    with pytest.warns(AgentSkillInUse):
        one.remove()
    two.remove()
    assert not skill.exists()  # the adopted baseline counts as ours


def test_different_source_conflict_requires_force(home: Path, sources: Path) -> None:
    a = write_skill(sources / "a" / "clash", body="A\n")
    b = write_skill(sources / "b" / "clash", body="B\n")
    first = deploy("cursor", bundle("one", [a]))
    skill = home / ".cursor" / "skills" / "clash"
    for level in ("none", "upgrade"):
        with pytest.raises(AgentSkillConflict, match="--force"):
            deploy("cursor", bundle("two", [b]), overwrite=level)  # type: ignore[arg-type]
        assert "A" in (skill / "SKILL.md").read_text()
    second = deploy("cursor", bundle("two", [b]), overwrite="all")
    assert (skill / "SKILL.md").read_text().endswith("B\n")
    entry = entry_for(skill)
    assert entry.identifier == "File:" + paths.canonical_path_key(b)
    assert sorted(entry.references) == sorted([first.uuid, second.uuid])


def test_all_conflicts_are_reported_together_and_nothing_is_written(
    home: Path, sources: Path
) -> None:
    root = home / ".cursor" / "skills"
    write_skill(root / "x-one", body="theirs\n")
    write_skill(root / "x-two", body="theirs\n")
    before = snapshot(home)
    tools = bundle("b", [inline("x-one"), inline("x-two"), inline("x-three")])
    with pytest.raises(AgentToolsErrors) as info:
        deploy("cursor", tools)
    assert [e.tag for e in info.value.errors] == ["AgentSkillExists", "AgentSkillExists"]
    assert snapshot(home) == before


def test_an_older_version_keeps_the_newer_copy(home: Path, sources: Path) -> None:
    src = write_skill(sources / "versioned-skill", body="new\n")
    target = resolve_target("cursor")
    newer = resolve(bundle("new", [src]))
    newer = replace(newer, skills=(replace(newer.skills[0], version="2.0"),))
    record_new = engine.execute_outcome(newer, target, Level.NONE).record
    write_skill(src, body="old\n")
    older = resolve(bundle("old", [src]))
    older = replace(older, skills=(replace(older.skills[0], version="1.5"),))
    outcome = engine.execute_outcome(older, target, Level.ALL)
    record_old, found = outcome.record, outcome.warnings
    skill = home / ".cursor" / "skills" / "versioned-skill"
    assert "new" in (skill / "SKILL.md").read_text()
    assert [type(w) for w in found] == [AgentSkillNewerVersionKept]
    assert "(2.0) is newer than 1.5" in str(found[0])
    assert record_old.installed[0].version == "2.0"
    assert sorted(entry_for(skill).references) == sorted([record_new.uuid, record_old.uuid])


def test_redeploying_an_edited_inline_skill_with_upgrade(home: Path) -> None:
    first = deploy("claude-code", bundle("b", [inline("inline-one", "first\n")]))
    skill = home / ".claude" / "skills" / "inline-one"
    with pytest.raises(DeploymentExists, match="--upgrade"):
        deploy("claude-code", bundle("b", [inline("inline-one", "second\n")]))
    second = deploy(
        "claude-code", bundle("b", [inline("inline-one", "second\n")]), overwrite="upgrade"
    )
    assert "second" in (skill / "SKILL.md").read_text()
    assert [d.uuid for d in deployed()] == [second.uuid]
    assert entry_for(skill).references == (second.uuid,)
    assert not (Path(os.environ["AGENTTOOLS_HOME"]) / "deployments" / first.uuid).exists()


# -- conflicts between deployments ---------------------------------------------------------------


def test_two_bundles_side_by_side_and_the_same_bundle_twice(home: Path, state: Path) -> None:
    one = deploy("claude-code", bundle("one", [inline("skill-one")]))
    two = deploy("claude-code", bundle("two", [inline("skill-two")]))
    assert {d.uuid for d in deployed()} == {one.uuid, two.uuid}
    before = snapshot(home, state)
    again = deploy("claude-code", bundle("one", [inline("skill-one")]))  # identical
    assert again.unchanged and again.uuid == one.uuid
    assert snapshot(home, state) == before
    with pytest.raises(DeploymentExists) as info:  # the same bundle with other content
        deploy("claude-code", bundle("one", [inline("skill-one", body="other\n")]))
    assert one.uuid in str(info.value)
    assert snapshot(home, state) == before


def test_replacement_keeps_shared_skills_without_recopying(home: Path, sources: Path) -> None:
    src = write_skill(sources / "kept")
    first = deploy("cursor", bundle("b", [src, inline("dropped")]))
    root = home / ".cursor" / "skills"
    inode = os.stat(root / "kept" / "SKILL.md").st_ino
    second = deploy("cursor", bundle("b", [src]), overwrite="upgrade")
    assert os.stat(root / "kept" / "SKILL.md").st_ino == inode  # not deleted and re-copied
    assert entry_for(root / "kept").references == (second.uuid,)
    assert not (root / "dropped").exists()  # what the replacement no longer has is released
    assert [d.uuid for d in deployed()] == [second.uuid]
    assert first.uuid not in registry.load_entry(entry_for(root / "kept").key).references  # type: ignore[union-attr]


def test_same_bundle_to_project_and_user_scope_coexist(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    tools = bundle("b", [inline("scoped")])
    user = deploy("claude-code", tools)
    proj = deploy(("claude-code", project), tools)
    assert (home / ".claude" / "skills" / "scoped" / "SKILL.md").exists()
    assert (project / ".claude" / "skills" / "scoped" / "SKILL.md").exists()
    assert proj.scope == str(project)
    assert proj.location_key == paths.canonical_path_key(project)
    user.remove()
    proj.remove()
    assert not (project / ".claude" / "skills" / "scoped").exists()


def test_project_skill_checked_out_from_git_is_external(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "repo"
    skill = write_skill(project / ".claude" / "skills" / "committed")
    dep = deploy("claude-code", bundle("b", [skill]), project=project)
    assert entry_for(skill).external is True
    dep.remove()
    assert (skill / "SKILL.md").exists()


# -- sweep ---------------------------------------------------------------------------------------


def test_sweep_releases_entries_whose_deployments_vanished(home: Path, state: Path) -> None:
    gone = deploy("cursor", bundle("gone", [inline("orphan"), inline("orphan-edited")]))
    root = home / ".cursor" / "skills"
    (root / "orphan-edited" / "extra.md").write_text("edit\n")
    shutil.rmtree(state / "deployments" / gone.uuid)  # e.g. removed by an older version
    assert (root / "orphan").exists()
    with pytest.warns(AgentSkillNotRemoved):
        deploy("claude-code", bundle("other", [inline("unrelated")]))
    assert not (root / "orphan").exists()
    assert (root / "orphan-edited" / "extra.md").exists()
    assert no_entry(root / "orphan") and no_entry(root / "orphan-edited")


def test_a_crashed_record_write_is_a_stale_reference(home: Path, state: Path) -> None:
    dep = deploy("cursor", bundle("gone", [inline("half")]))
    (state / "deployments" / dep.uuid / "deployment.json").unlink()
    sweep()
    assert not (home / ".cursor" / "skills" / "half").exists()


def test_a_publish_that_died_before_the_rename_is_cleaned_up(home: Path, state: Path) -> None:
    """The process died between writing the staging record and renaming it: the record was
    never published (its references are stale), and the next locked operation drops the
    staging directory too."""
    dep = deploy("cursor", bundle("died", [inline("unpublished")]))
    deployments = state / "deployments"
    (deployments / dep.uuid).rename(deployments / f".staging-{dep.uuid}")
    assert deployed() == []
    deploy("cursor", bundle("next", [inline("other-skill")]))
    assert not (deployments / f".staging-{dep.uuid}").exists()
    assert not (home / ".cursor" / "skills" / "unpublished").exists()
    assert sorted(p.name for p in deployments.iterdir() if p.name.startswith(".")) == [
        ".created",
        ".index",
        ".journal",
        ".lock",
        ".skill-registry",
    ]


def test_an_unreadable_record_is_not_stale(home: Path, state: Path) -> None:
    dep = deploy("cursor", bundle("kept", [inline("still-here")]))
    (state / "deployments" / dep.uuid / "deployment.json").write_text("{not json")
    sweep()
    assert (home / ".cursor" / "skills" / "still-here").exists()
    assert deployed() == []
