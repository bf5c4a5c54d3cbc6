"""The skill registry: entries, keys, lookup by directory, release through links."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agenttools_runtime import paths
from agenttools_runtime.deploy import deploy, registry
from agenttools_runtime.errors import AgentSkillExists, AgentSkillInUse
from tests.helpers.state import iter_entries, save_entry

from .conftest import bundle, inline, write_skill


def sweep() -> list[object]:
    """Run the registry sweep the way a locked operation does."""
    from agenttools_runtime.deploy.lock import deployment_lock
    from agenttools_runtime.deploy.removal import sweep as run_sweep

    with deployment_lock() as store:
        return list(run_sweep(store))


def test_entry_file_and_fields(home: Path, state: Path) -> None:
    dep = deploy("cursor", bundle("b", [inline("entry-skill")]))
    root = home / ".cursor" / "skills"
    key = paths.registry_key(root, "entry-skill")
    path = state / "deployments" / ".skill-registry" / f"{key}.json"
    data = json.loads(path.read_text())
    assert data["registry_key"] == key
    assert data["directory"] == str(root / "entry-skill")
    assert data["references"] == [dep.uuid]
    assert data["external"] is False
    assert set(data["hashes"]) == {"SKILL.md"}
    data["future"] = True
    path.write_text(json.dumps(data))
    entry = registry.load_entry(key)
    assert entry is not None and entry.extra == {"future": True}
    # the stat cache: what agenttools wrote, file by file
    assert set(entry.stats) == {"SKILL.md"}
    assert entry.stats["SKILL.md"][0] == (root / "entry-skill" / "SKILL.md").stat().st_size
    save_entry(entry)
    assert json.loads(path.read_text())["future"] is True


def test_the_recorded_key_is_used_on_release_not_a_recomputed_one(
    home: Path, tmp_path: Path
) -> None:
    real = tmp_path / "real-root"
    dep = deploy("cursor", bundle("b", [inline("moved")]), skills_dir=real)
    recorded = dep.record.installed[0].registry_key
    # the skills root later goes through a symbolic link: a recomputed key would differ
    link = tmp_path / "link-root"
    link.symlink_to(real)
    assert registry.load_entry(recorded) is not None
    dep.remove()
    assert not (real / "moved").exists()
    assert registry.load_entry(recorded) is None


def test_an_entry_is_found_by_directory_when_the_root_now_goes_through_a_link(
    home: Path, tmp_path: Path
) -> None:
    real = tmp_path / "store"
    first = deploy("cursor", bundle("one", [inline("found")]), skills_dir=real)
    # ~/.cursor/skills becomes a link to the store
    (home / ".cursor").mkdir()
    (home / ".cursor" / "skills").symlink_to(real)
    second = deploy("cursor", bundle("two", [inline("found")]))
    entries = list(iter_entries())
    assert len(entries) == 1
    assert sorted(entries[0].references) == sorted([first.uuid, second.uuid])
    with pytest.warns(AgentSkillInUse):
        first.remove()
    second.remove()
    assert not (real / "found").exists()


def test_a_per_skill_link_is_a_different_directory_and_never_deletes_the_target(
    home: Path, tmp_path: Path
) -> None:
    agents = home / ".agents" / "skills"
    codex = deploy("codex", bundle("b", [inline("linked-skill")]))
    claude_root = home / ".claude" / "skills"
    claude_root.mkdir(parents=True)
    (claude_root / "linked-skill").symlink_to(agents / "linked-skill")
    # deploying to Claude Code finds a link in the way: not ours to replace without force
    with pytest.raises(AgentSkillExists):
        deploy("claude-code", bundle("b", [inline("linked-skill")]))
    codex.remove()
    assert not (agents / "linked-skill").exists()
    assert os.path.islink(claude_root / "linked-skill")  # dangling now, but left alone


def test_sweep_skips_unreadable_entries(home: Path, state: Path) -> None:
    reg = state / "deployments" / ".skill-registry"
    reg.mkdir(parents=True)
    (reg / "broken.json").write_text("{")
    assert sweep() == []
    assert (reg / "broken.json").read_text() == "{"


def test_external_entry_outlives_its_references(home: Path, sources: Path) -> None:
    src = write_skill(sources / "ext")
    root = home / ".cursor" / "skills"
    write_skill(root / "ext")
    one = deploy("cursor", bundle("one", [src]))
    two = deploy("cursor", bundle("two", [src]))
    entry = registry.load_entry(one.record.installed[0].registry_key)
    assert entry is not None and entry.external and len(entry.references) == 2
    with pytest.warns(AgentSkillInUse):
        one.remove()
    two.remove()
    assert (root / "ext" / "SKILL.md").exists()


def test_a_failed_removal_keeps_the_entry_and_the_next_sweep_retries(home: Path) -> None:
    from agenttools_runtime import fs
    from agenttools_runtime.errors import AgentSkillRemoveFailedWarning

    dep = deploy("cursor", bundle("b", [inline("stuck")]))
    skill = home / ".cursor" / "skills" / "stuck"
    key = dep.record.installed[0].registry_key

    def refuse(operation: str, path: Path) -> None:
        if operation == "rename" and path == skill:
            raise PermissionError(13, "in use", str(path))

    with fs.observe(refuse), pytest.warns(AgentSkillRemoveFailedWarning, match="left in place"):
        dep.remove()
    assert (skill / "SKILL.md").exists()
    entry = registry.load_entry(key)
    assert entry is not None and entry.references == ()
    sweep()
    assert not skill.exists()
    assert registry.load_entry(key) is None


def test_a_source_inside_its_destination_is_refused(home: Path, tmp_path: Path) -> None:
    from agenttools_runtime.errors import InvalidAgentSkill

    root = tmp_path / "root"
    nested = write_skill(root / "outer" / "inner", name="outer")
    with pytest.raises(InvalidAgentSkill, match="contain each other"):
        deploy("cursor", bundle("b", [nested]), skills_dir=root)
    assert sweep() == [] and list(iter_entries()) == []


def test_a_same_source_through_a_per_skill_link_joins_the_physical_entry(
    home: Path, sources: Path
) -> None:
    """Codex owns ~/.agents/skills/shared-dir; ~/.claude/skills/shared-dir links to it and a
    bundle names that very directory: deploying to Claude Code writes nothing and references
    the entry recorded at the physical directory, so the directory lives as long as either
    deployment and goes with the last one."""
    src = write_skill(sources / "shared-dir")
    codex = deploy("codex", bundle("b", [src]))
    physical = home / ".agents" / "skills" / "shared-dir"
    claude_root = home / ".claude" / "skills"
    claude_root.mkdir(parents=True)
    (claude_root / "shared-dir").symlink_to(physical)
    claude = deploy("claude-code", bundle("c", [physical]))
    entries = list(iter_entries())
    assert len(entries) == 1 and entries[0].directory == str(physical)
    assert sorted(entries[0].references) == sorted([codex.uuid, claude.uuid])
    assert claude.record.installed[0].registry_key == entries[0].key
    with pytest.warns(AgentSkillInUse):
        codex.remove()
    assert (physical / "SKILL.md").exists()
    claude.remove()
    assert not physical.exists()
    assert os.path.islink(claude_root / "shared-dir")  # the user's link is left alone
    assert list(iter_entries()) == []


def test_a_directory_another_entry_marks_external_outlives_its_owner_until_the_sweep(
    home: Path, sources: Path
) -> None:
    """Two entries reach one physical directory: an external one (adopted through a
    per-skill link) and an owned one. Releasing the owned one keeps the directory while the
    external entry is used, keeping the owned entry without references; the sweep at the end
    of the removal that drops the external entry releases it, and puts back the user's
    folder that the owned one replaced."""
    physical = home / ".agents" / "skills" / "both"
    write_skill(physical, body="user's\n")
    claude_root = home / ".claude" / "skills"
    claude_root.mkdir(parents=True)
    (claude_root / "both").symlink_to(physical)
    # the bundle names the directory itself, reached through the link: adopted as external
    claude = deploy("claude-code", bundle("c", [claude_root / "both"]))
    (external,) = iter_entries()
    assert external.external and external.directory == str(claude_root / "both")
    # Codex's deploy of other content replaces the directory with --force: now owned
    codex = deploy("codex", bundle("b", [write_skill(sources / "both")]), overwrite="all")
    owned = registry.load_entry(codex.record.installed[0].registry_key)
    assert owned is not None and not owned.external and owned.key != external.key
    codex.remove()
    assert (physical / "SKILL.md").exists()  # the external entry still uses it
    kept = registry.load_entry(owned.key)
    assert kept is not None and kept.references == ()
    sweep()  # nothing changes while the external entry is in use
    assert (physical / "SKILL.md").exists() and registry.load_entry(owned.key) is not None
    claude.remove()
    # released by the sweep at the end of the removal, and what Codex's --force replaced
    # (the user's folder) put back
    assert (physical / "SKILL.md").read_text().endswith("user's\n")
    assert list(iter_entries()) == []


def test_release_keeps_links_files_and_dangling_links_the_user_put_in_place(
    home: Path, tmp_path: Path
) -> None:
    """After the deploy the user replaced one skill directory with a link, one with a file,
    one with a dangling link and deleted one: removal keeps each of them as it is (never
    deleting through a link), warns for the three, forgets every entry."""
    from agenttools_runtime.errors import AgentSkillNotRemoved, AgentSkillReplacedNotRemoved

    dep = deploy(
        "cursor", bundle("b", [inline(n) for n in ("as-link", "as-file", "dangling", "gone")])
    )
    root = home / ".cursor" / "skills"
    elsewhere = write_skill(tmp_path / "elsewhere" / "as-link", body="the user's own\n")
    for name in ("as-link", "as-file", "dangling", "gone"):
        shutil.rmtree(root / name)
    (root / "as-link").symlink_to(elsewhere)
    (root / "as-file").write_text("a file now\n")
    (root / "dangling").symlink_to(tmp_path / "nowhere")
    with pytest.warns() as caught:
        dep.remove()
    by_name = {
        str(w.message).split('"')[1]: w.category
        for w in caught
        if w.category in (AgentSkillNotRemoved, AgentSkillReplacedNotRemoved)
    }
    assert by_name == {
        "as-link": AgentSkillNotRemoved,
        "as-file": AgentSkillReplacedNotRemoved,
        "dangling": AgentSkillReplacedNotRemoved,
    }
    assert os.path.islink(root / "as-link") and (elsewhere / "SKILL.md").exists()
    assert (root / "as-file").read_text() == "a file now\n"
    assert os.path.islink(root / "dangling")
    assert not os.path.lexists(root / "gone")
    assert list(iter_entries()) == []
