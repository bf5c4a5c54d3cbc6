"""The low-level install_skills / uninstall_skills (skills/install.py), on real files under a
temporary HOME. Each test asserts what is on disk afterwards."""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agenttools_runtime import fs
from agenttools_runtime.clients import get_client
from agenttools_runtime.errors import (
    AgentSkillBackupNotRemoved,
    AgentSkillBackupsLeft,
    AgentSkillExists,
    AgentSkillNotFound,
    AgentSkillRemoveFailed,
    AgentSkillUnsafeLink,
    AgentSkillWriteFailed,
    AgentToolsErrors,
    DistributionNotInstalled,
    DuplicateAgentSkillName,
    InvalidAgentSkill,
    InvalidAgentSkillDescription,
    InvalidAgentSkillName,
    InvalidOverwriteOption,
    InvalidProjectDirectory,
    InvalidSkillsDirectory,
    UnknownClient,
    UnsupportedSkillsClient,
)
from agenttools_runtime.skills.install import (
    SkillInstallResult,
    SkillUninstallResult,
    install_skills,
    resolve_skills_root,
    uninstall_skills,
)
from agenttools_runtime.skills.source import skill_from_directory, to_source
from agenttools_runtime.skills.spec import Skill, SkillSource
from tests.helpers.faults import inject
from tests.helpers.skills import backups, make_skill, tree

INLINE = {"name": "inline-skill", "description": "An inline skill.", "body": "Use it.\n"}


@pytest.fixture
def src(tmp_path: Path) -> Path:
    """A directory of skill sources: demo-skill (with scripts/ and references/), other-skill."""
    parent = tmp_path / "src"
    make_skill(
        parent,
        files={"scripts/run.sh": "#!/bin/sh\necho run\n", "references/ref.md": "Ref\n"},
    )
    make_skill(parent, name="other-skill", description="Other.")
    return parent


def claude_root(home: Path) -> Path:
    return home / ".claude" / "skills"


# -- targets ---------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["claude-code", "ClaudeCode", "claudecode", "CLAUDE-CODE"])
def test_client_target_is_user_scope(home: Path, src: Path, target: str) -> None:
    result = install_skills(target, src / "demo-skill")
    assert isinstance(result, SkillInstallResult)
    assert result.location == claude_root(home) / "demo-skill"
    assert (result.client, result.client_display_name, result.action) == (
        "claude-code",
        "Claude Code",
        "created",
    )
    assert result.message == 'Successfully installed agent skill "demo-skill" for Claude Code.'
    assert tree(result.location) == tree(src / "demo-skill")


def test_client_object_and_alias_targets(home: Path, src: Path) -> None:
    install_skills(get_client("vscode"), src / "demo-skill")
    install_skills("Copilot", src / "other-skill")  # Copilot CLI shares ~/.copilot/skills
    assert sorted(p.name for p in (home / ".copilot" / "skills").iterdir()) == [
        "demo-skill",
        "other-skill",
    ]


def test_project_targets(home: Path, src: Path, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    first = install_skills(("cursor", project), src / "demo-skill")
    second = install_skills("cursor", src / "other-skill", project=project)
    assert first.location == project / ".cursor" / "skills" / "demo-skill"
    assert second.location == project / ".cursor" / "skills" / "other-skill"
    assert first.location.is_dir() and second.location.is_dir()
    assert not (home / ".cursor").exists()


def test_path_target_has_no_client(src: Path, tmp_path: Path) -> None:
    root = tmp_path / "custom" / "skills"
    result = install_skills(root, src / "demo-skill")
    assert (result.client, result.location) == (None, root / "demo-skill")
    assert result.message == 'Successfully installed agent skill "demo-skill".'
    assert (root / "demo-skill" / "SKILL.md").is_file()


def test_skills_dir_overrides_root_keeps_client(home: Path, src: Path, tmp_path: Path) -> None:
    result = install_skills("codex", src / "demo-skill", skills_dir=tmp_path / "mine")
    assert result.location == tmp_path / "mine" / "demo-skill"
    assert result.client == "codex"
    assert result.location.is_dir()
    assert not (home / ".agents").exists()


def test_skill_directory_as_root_is_refused(src: Path) -> None:
    with pytest.raises(InvalidSkillsDirectory) as info:
        install_skills(src / "demo-skill", src / "other-skill")
    assert "Expected a directory that contains skill folders" in str(info.value)
    assert not (src / "demo-skill" / "other-skill").exists()


def test_file_as_root_is_refused(src: Path, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidSkillsDirectory):
        install_skills(tmp_path / "file", src / "demo-skill")


@pytest.mark.parametrize(
    ("target", "error"),
    [
        ("no-such-client", UnknownClient),
        ("lm-studio", UnsupportedSkillsClient),
        ("claude-desktop", UnsupportedSkillsClient),
        (("cursor", "/definitely/not/here"), InvalidProjectDirectory),
    ],
)
def test_target_errors(src: Path, home: Path, target: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        install_skills(target, src / "demo-skill")
    with pytest.raises(error):
        uninstall_skills(target, "demo-skill")
    assert list(home.iterdir()) == []


def test_resolve_skills_root_forms(home: Path, tmp_path: Path) -> None:
    assert resolve_skills_root("zed").path == home / ".agents" / "skills"
    root = resolve_skills_root(("vscode", tmp_path))
    assert (root.path, root.client and root.client.id) == (
        tmp_path / ".github" / "skills",
        "vscode",
    )
    with pytest.raises(InvalidSkillsDirectory):
        resolve_skills_root(("vscode", tmp_path), project=tmp_path)


# -- skill forms -----------------------------------------------------------------------------


def test_every_skill_form(home: Path, src: Path, tmp_path: Path) -> None:
    generated = Skill("generated-skill", "Generated.", body="Body.")
    source = to_source({"name": "prebuilt", "description": "Prebuilt.", "body": "P"})
    results = install_skills(
        "claude-code",
        [
            src / "demo-skill",  # Path
            str(src / "other-skill"),  # str path
            skill_from_directory(make_skill(tmp_path / "more", name="from-dir")),  # Skill (dir)
            generated,  # Skill (inline)
            INLINE,  # mapping
            source,  # SkillSource
        ],
    )
    assert isinstance(results, list)
    root = claude_root(home)
    assert [r.name for r in results] == [
        "demo-skill",
        "other-skill",
        "from-dir",
        "generated-skill",
        "inline-skill",
        "prebuilt",
    ]
    assert sorted(p.name for p in root.iterdir()) == sorted(r.name for r in results)
    assert (root / "inline-skill" / "SKILL.md").read_text() == (
        "---\nname: inline-skill\ndescription: An inline skill.\n---\n\nUse it.\n"
    )
    assert os.listdir(root / "generated-skill") == ["SKILL.md"]


def test_single_spec_in_a_list_gives_a_list(home: Path, src: Path) -> None:
    results = install_skills("claude-code", [src / "demo-skill"])
    assert isinstance(results, list) and len(results) == 1


@dataclass
class FakeBundle:
    """Anything with skill_sources() / skill_names is treated as a bundle."""

    sources: list[SkillSource]

    def skill_sources(self) -> list[SkillSource]:
        return self.sources

    @property
    def skill_names(self) -> list[str]:
        return ["some-dist/" + s.name for s in self.sources]


def test_bundle_like_objects(home: Path, src: Path) -> None:
    bundle = FakeBundle([to_source(src / "demo-skill"), to_source(INLINE)])
    results = install_skills("claude-code", bundle)
    assert [r.name for r in results] == ["demo-skill", "inline-skill"]
    removed = uninstall_skills("claude-code", bundle)
    assert [r.removed for r in removed] == [True, True]
    assert list(claude_root(home).iterdir()) == []


def test_real_adhoc_bundle(home: Path, src: Path) -> None:
    from agenttools_runtime.bundles import AgentTools

    bundle = AgentTools(name="my-tools", skills=[src / "demo-skill", INLINE])
    results = install_skills("gemini-cli", bundle)
    root = home / ".agents" / "skills"  # the folder Gemini CLI prefers (docs/clients.md)
    assert [r.location for r in results] == [root / "demo-skill", root / "inline-skill"]
    assert tree(root / "demo-skill") == tree(src / "demo-skill")
    removed = uninstall_skills("gemini-cli", bundle)
    assert [(r.name, r.removed) for r in removed] == [("demo-skill", True), ("inline-skill", True)]
    assert list(root.iterdir()) == []


def test_named_skills_resolve_through_bundles(home: Path) -> None:
    with pytest.raises(AgentSkillNotFound):
        install_skills("claude-code", "no-such-skill")
    with pytest.raises(DistributionNotInstalled):
        install_skills("claude-code", "some-dist-that-is-not-installed/some-skill")
    assert not (home / ".claude").exists()


def test_builtin_skill_by_name(home: Path) -> None:
    from agenttools_runtime.bundles import BUILTIN_SKILLS_DIR

    if not (BUILTIN_SKILLS_DIR / "agenttools" / "SKILL.md").is_file():
        pytest.skip("the built-in skill is not in the tree yet")
    result = install_skills("claude-code", "agenttools")
    assert tree(result.location) == tree(BUILTIN_SKILLS_DIR / "agenttools")


# -- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "error"),
    [
        ({"name": "Bad Name", "description": "d"}, InvalidAgentSkillName),
        ({"name": "..", "description": "d"}, InvalidAgentSkillName),
        ({"name": "ok-name", "description": "  "}, InvalidAgentSkillDescription),
        ({"name": "ok-name", "description": "x" * 1025}, InvalidAgentSkillDescription),
    ],
)
def test_invalid_skill_writes_nothing(
    home: Path, src: Path, spec: dict[str, Any], error: type[Exception]
) -> None:
    with pytest.raises(error):
        install_skills("claude-code", [src / "demo-skill", spec])
    assert not (home / ".claude").exists()


def test_duplicate_names_write_nothing(home: Path, src: Path, tmp_path: Path) -> None:
    twin = make_skill(tmp_path / "twin", name="demo-skill", description="Twin.")
    with pytest.raises(DuplicateAgentSkillName) as info:
        install_skills("claude-code", [src / "demo-skill", twin])
    assert str(info.value) == 'Several skills named "demo-skill" were given.'
    assert not (home / ".claude").exists()


def test_invalid_overwrite(home: Path, src: Path) -> None:
    with pytest.raises(InvalidOverwriteOption):
        install_skills("claude-code", src / "demo-skill", "yes")  # type: ignore[call-overload]


def test_symlink_leaving_the_skill_is_refused(home: Path, src: Path, tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("secret")
    os.symlink(tmp_path / "secret", src / "demo-skill" / "secret")
    with pytest.raises(AgentSkillUnsafeLink):
        install_skills("claude-code", [src / "other-skill", src / "demo-skill"])
    assert not (home / ".claude").exists()


# -- existing entries and overwrite ----------------------------------------------------------


def test_existing_different_skill_fails_whole_call(home: Path, src: Path) -> None:
    root = claude_root(home)
    make_skill(root, name="other-skill", description="Someone else's.")
    before = tree(root / "other-skill")
    with pytest.raises(AgentSkillExists) as info:
        install_skills("claude-code", [src / "demo-skill", src / "other-skill"])
    assert str(info.value) == (
        f'A different skill named "other-skill" already exists at {root / "other-skill"}. '
        'Use --force (overwrite="all") to replace it.'
    )
    assert sorted(p.name for p in root.iterdir()) == ["other-skill"]  # demo-skill not written
    assert tree(root / "other-skill") == before


def test_several_conflicts_are_reported_together(home: Path, src: Path) -> None:
    root = claude_root(home)
    make_skill(root, description="Mine.")
    make_skill(root, name="other-skill", description="Mine too.")
    with pytest.raises(AgentToolsErrors) as info:
        install_skills("claude-code", [src / "demo-skill", src / "other-skill"])
    assert [type(e) for e in info.value.errors] == [AgentSkillExists, AgentSkillExists]
    assert "demo-skill" in str(info.value) and "other-skill" in str(info.value)


@pytest.mark.parametrize("overwrite", ["none", "upgrade", "all"])
def test_identical_content_is_a_no_op(home: Path, src: Path, overwrite: Any) -> None:
    first = install_skills("claude-code", [src / "demo-skill", INLINE])
    installed = first[0].location
    marker_time = os.stat(installed / "SKILL.md").st_mtime_ns
    with inject() as log:
        again = install_skills("claude-code", [src / "demo-skill", INLINE], overwrite)
    assert [r.action for r in again] == ["unchanged", "unchanged"]
    assert log.count == 0
    assert os.stat(installed / "SKILL.md").st_mtime_ns == marker_time


def test_crlf_copy_counts_as_identical(home: Path, src: Path) -> None:
    root = claude_root(home)
    root.mkdir(parents=True)
    installed = root / "demo-skill"
    for rel, content in tree(src / "demo-skill").items():
        (installed / rel).parent.mkdir(parents=True, exist_ok=True)
        (installed / rel).write_bytes(content.replace(b"\n", b"\r\n"))
    result = install_skills("claude-code", src / "demo-skill")
    assert result.action == "unchanged"
    assert (installed / "SKILL.md").read_bytes().count(b"\r\n") > 0


def test_junk_in_installed_dir_still_identical_but_vcs_is_not(home: Path, src: Path) -> None:
    result = install_skills("claude-code", src / "demo-skill")
    (result.location / ".DS_Store").write_bytes(b"\0\1")
    (result.location / "__pycache__").mkdir()
    assert install_skills("claude-code", src / "demo-skill").action == "unchanged"
    (result.location / ".git").mkdir()
    (result.location / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    with pytest.raises(AgentSkillExists):
        install_skills("claude-code", src / "demo-skill")
    assert (result.location / ".git" / "HEAD").exists()


@pytest.mark.parametrize("overwrite", ["upgrade", "all"])
def test_overwrite_replaces_different_skill(home: Path, src: Path, overwrite: Any) -> None:
    root = claude_root(home)
    make_skill(root, description="Old.", files={"old.txt": "old"})
    result = install_skills("claude-code", src / "demo-skill", overwrite)
    assert result.action == "replaced"
    assert tree(root / "demo-skill") == tree(src / "demo-skill")
    assert backups(root) == []


@pytest.mark.parametrize("kind", ["link", "dangling", "file"])
def test_link_dangling_and_file_entries(home: Path, src: Path, tmp_path: Path, kind: str) -> None:
    root = claude_root(home)
    root.mkdir(parents=True)
    target = make_skill(tmp_path / "linked", files={"keep.txt": "keep\n"})
    entry = root / "demo-skill"
    if kind == "link":
        entry.symlink_to(target)
    elif kind == "dangling":
        entry.symlink_to(tmp_path / "gone")
    else:
        entry.write_text("plain file\n")
    with pytest.raises(AgentSkillExists):
        install_skills("claude-code", src / "demo-skill")
    assert os.path.lexists(entry) and (kind == "file") != entry.is_symlink()
    install_skills("claude-code", src / "demo-skill", "all")
    assert entry.is_dir() and not entry.is_symlink()
    assert tree(entry) == tree(src / "demo-skill")
    assert (target / "keep.txt").read_text() == "keep\n"  # never written through
    assert sorted(tree(target)) == ["SKILL.md", "keep.txt"]


def test_link_to_identical_skill_is_kept(home: Path, src: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    install_skills(copy, src / "demo-skill")
    root = claude_root(home)
    root.mkdir(parents=True)
    (root / "demo-skill").symlink_to(copy / "demo-skill")
    assert install_skills("claude-code", src / "demo-skill").action == "unchanged"
    assert (root / "demo-skill").is_symlink()


def test_executable_bits(home: Path, src: Path) -> None:
    plain = src / "other-skill" / "tool"
    plain.write_text("no shebang\n")
    plain.chmod(0o755)
    results = install_skills("claude-code", [src / "demo-skill", src / "other-skill"])
    assert os.access(results[0].location / "scripts" / "run.sh", os.X_OK)
    assert not os.access(results[0].location / "references" / "ref.md", os.X_OK)
    assert os.access(results[1].location / "tool", os.X_OK)


def test_generated_skill_md_is_byte_identical(tmp_path: Path) -> None:
    spec = {
        "name": "gen",
        "description": "Déterministic.",
        "body": "Line\r\n",
        "metadata": {"b": 2, "a": 1},
        "allowed-tools": "Read",
        "custom": {"x": [1, 2]},
    }
    a = install_skills(tmp_path / "a", spec).location / "SKILL.md"
    b = install_skills(tmp_path / "b", dict(spec)).location / "SKILL.md"
    assert a.read_bytes() == b.read_bytes()
    data = a.read_bytes()
    assert b"\r" not in data and data.endswith(b"Line\n") and not data.endswith(b"\n\n")
    assert install_skills(tmp_path / "a", spec).action == "unchanged"


def test_source_equal_to_destination(home: Path, src: Path) -> None:
    before = tree(src / "demo-skill")
    with inject() as log:
        result = install_skills(src, src / "demo-skill", "all")
    assert result.action == "unchanged"
    assert log.count == 0
    assert tree(src / "demo-skill") == before
    assert backups(src) == []


def test_source_inside_destination_fails(src: Path) -> None:
    nested = make_skill(src / "demo-skill" / "nested", name="demo-skill", description="Nested.")
    before = tree(src / "demo-skill")
    with pytest.raises(InvalidAgentSkill):
        install_skills(src, nested, "all")
    assert tree(src / "demo-skill") == before


def test_destination_inside_source_fails(src: Path) -> None:
    with pytest.raises(InvalidAgentSkill):
        install_skills(src / "demo-skill" / "inner", src / "demo-skill", "all")
    assert not (src / "demo-skill" / "inner").exists()


# -- rollback --------------------------------------------------------------------------------


def broken_source(name: str, missing: Path) -> SkillSource:
    """A source whose second file does not exist: the copy fails for real."""
    return SkillSource(
        name=name,
        description="Broken.",
        identifier=None,
        version=None,
        files={"SKILL.md": f"---\nname: {name}\ndescription: Broken.\n---\n", "z.md": missing},
        manifest={"SKILL.md": "0", "z.md": "0"},
    )


def test_partial_failure_rolls_back_earlier_skills(home: Path, src: Path, tmp_path: Path) -> None:
    root = claude_root(home)
    make_skill(root, name="other-skill", description="Old version.", files={"old.md": "old\n"})
    before = tree(root / "other-skill")
    with pytest.raises(AgentSkillWriteFailed) as info:
        install_skills(
            "claude-code",
            [src / "demo-skill", src / "other-skill", broken_source("broken", tmp_path / "nope")],
            "all",
        )
    assert "broken" in str(info.value)
    assert sorted(p.name for p in root.iterdir()) == ["other-skill"]
    assert tree(root / "other-skill") == before  # the replaced skill is restored
    assert backups(root) == []


def test_partial_failure_removes_root_it_created(home: Path, src: Path, tmp_path: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text("{}")
    with pytest.raises(AgentSkillWriteFailed):
        install_skills(
            "claude-code",
            [src / "demo-skill", broken_source("broken", tmp_path / "nope")],
        )
    assert sorted(p.name for p in (home / ".claude").iterdir()) == ["settings.json"]


def test_conflicting_file_layout_fails_for_real(home: Path, src: Path) -> None:
    # "a" is a file, so the directory "a" for "a/b" cannot be made: a real OS failure
    layout = SkillSource(
        name="layout",
        description="d",
        identifier=None,
        version=None,
        files={"SKILL.md": "x", "a": "file", "a/b": "child"},
        manifest={},
    )
    with pytest.raises(AgentSkillWriteFailed):
        install_skills("claude-code", [src / "demo-skill", layout])
    assert not (home / ".claude").exists()


def test_injected_failure_at_every_mutation_restores_everything(home: Path, src: Path) -> None:
    root = claude_root(home)
    make_skill(root, name="other-skill", description="Old.", files={"old.md": "old\n"})
    make_skill(root, name="untouched", description="Not mine.")
    before = {p.name: tree(p) for p in root.iterdir()}
    specs = [src / "demo-skill", src / "other-skill"]
    fail_at = 1
    while True:  # fail the 1st, 2nd, ... mutation until the writes get through
        with inject(fail_at=fail_at), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                install_skills("claude-code", specs, "upgrade")
            except AgentSkillWriteFailed:
                assert {p.name: tree(p) for p in root.iterdir()} == before, fail_at
                assert backups(root) == []
                fail_at += 1
                continue
        break
    assert fail_at > 10  # 3 + 4 files, 2 directories, 1 move out of the way, at least
    # the failing mutation was the deletion of the replaced skill's backup: only a warning
    assert [type(w.message) for w in caught] == [AgentSkillBackupNotRemoved]
    assert tree(root / "demo-skill") == tree(src / "demo-skill")
    assert tree(root / "other-skill") == tree(src / "other-skill")


def test_backup_not_deleted_is_a_warning(home: Path, src: Path) -> None:
    root = claude_root(home)
    make_skill(root, description="Old.")

    def fail_backup_deletion(operation: str, path: Path) -> None:
        if operation == "rmtree" and path.name.startswith(".agenttools-backup-"):
            raise PermissionError(13, "in use", str(path))

    with fs.observe(fail_backup_deletion), pytest.warns(AgentSkillBackupNotRemoved) as caught:
        result = install_skills("claude-code", src / "demo-skill", "all")
    assert result.action == "replaced"
    assert tree(root / "demo-skill") == tree(src / "demo-skill")
    [backup] = backups(root)
    assert str(backup) in str(caught[0].message)
    assert "Old." in (backup / "SKILL.md").read_text()


def test_root_that_cannot_be_created_is_a_clean_error(home: Path, src: Path) -> None:
    with inject(fail_at=1), pytest.raises(AgentSkillWriteFailed) as info:
        install_skills("claude-code", src / "demo-skill")
    assert "demo-skill" in str(info.value)
    assert not (home / ".claude").exists()


def test_linked_root_keeps_backups_next_to_the_real_root(
    home: Path, src: Path, tmp_path: Path
) -> None:
    real = tmp_path / "dotfiles" / "skills"
    make_skill(real, description="Old.")
    (home / ".claude").mkdir()
    (home / ".claude" / "skills").symlink_to(real, target_is_directory=True)
    seen: list[tuple[str, Path]] = []

    def watch(operation: str, path: Path) -> None:
        if operation in ("rename", "rmtree"):
            seen.append((operation, path))

    with fs.observe(watch):
        result = install_skills("claude-code", src / "demo-skill", "upgrade")
    assert result.action == "replaced"
    assert tree(real / "demo-skill") == tree(src / "demo-skill")
    assert (home / ".claude" / "skills").is_symlink()
    assert backups(real) == [] and backups(home / ".claude" / "skills") == []
    [(_, moved), (_, staged), (_, deleted)] = seen
    assert moved == home / ".claude" / "skills" / "demo-skill"
    # the new copy was built beside the real root (same volume), then renamed into place
    assert staged.parent == real.parent and staged.name.startswith(".agenttools-staging-")
    # the backup was made beside the real root too, then deleted
    assert deleted.parent == real.parent and deleted.name.startswith(".agenttools-backup-")


def test_unwritable_root_parent_keeps_the_backup_inside_the_root(home: Path, src: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root ignores permissions")
    root = claude_root(home)
    make_skill(root, name="other-skill", description="Old.")
    # other-skill cannot be moved to a backup in the root's parent: it goes into the root
    root.parent.chmod(0o555)
    try:
        results = install_skills("claude-code", [src / "demo-skill", src / "other-skill"], "all")
    finally:
        root.parent.chmod(0o755)
    assert [r.action for r in results] == ["created", "replaced"]
    assert sorted(p.name for p in root.iterdir()) == ["demo-skill", "other-skill"]
    assert tree(root / "other-skill") == tree(src / "other-skill")
    assert backups(root) == []


_KILLED_DURING_REPLACE = """
import os, sys
from pathlib import Path
from agenttools_runtime import fs
from agenttools_runtime.skills.install import install_skills

def die_after_the_move(operation, path):
    # moved away, the new copy (built in a staging directory) not yet renamed into place
    if operation == "rename" and path.name.startswith(".agenttools-staging-"):
        os._exit(9)

with fs.observe(die_after_the_move):
    install_skills(Path(sys.argv[1]), Path(sys.argv[2]), "all")
"""


def test_backups_left_by_a_killed_process_are_reported(home: Path, src: Path) -> None:
    import subprocess
    import sys

    root = claude_root(home)
    make_skill(root, description="The user's own version.")
    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_DURING_REPLACE, str(root), str(src / "demo-skill")],
        check=False,
    )
    assert killed.returncode == 9
    assert not (root / "demo-skill").exists()
    [backup] = backups(root)
    assert "The user's own version." in (backup / "SKILL.md").read_text()
    for operation in (
        lambda: install_skills(root, src / "other-skill"),
        lambda: uninstall_skills(root, "other-skill"),
    ):
        with pytest.warns(AgentSkillBackupsLeft) as caught:
            operation()
        message = str(caught[0].message)
        assert str(backup) in message and str(root) in message
    assert backups(root) == [backup]  # reported, never deleted


# -- uninstall -------------------------------------------------------------------------------


def test_uninstall_removes_skill(home: Path, src: Path) -> None:
    install_skills("claude-code", [src / "demo-skill", src / "other-skill"])
    result = uninstall_skills("claude-code", "demo-skill")
    assert isinstance(result, SkillUninstallResult)
    assert result.removed
    assert result.message == 'Successfully uninstalled agent skill "demo-skill" for Claude Code.'
    root = claude_root(home)
    assert [p.name for p in root.iterdir()] == ["other-skill"]
    assert backups(root) == []


def test_uninstall_absent_reports_not_installed(home: Path, tmp_path: Path) -> None:
    result = uninstall_skills("claude-code", "demo-skill")
    assert not result.removed
    assert result.message == (
        f'The agent skill "demo-skill" is not installed at {claude_root(home) / "demo-skill"}.'
    )
    assert not (home / ".claude").exists()
    assert not uninstall_skills(tmp_path, "x").removed


def test_uninstall_modified_skill_is_removed(home: Path, src: Path) -> None:
    result = install_skills("claude-code", src / "demo-skill")
    (result.location / "notes.md").write_text("user notes")
    assert uninstall_skills("claude-code", "demo-skill").removed
    assert not result.location.exists()


@pytest.mark.parametrize("name", ["", ".", "..", "../x", "a/../..", "/etc", "A", "a--b", "-a"])
def test_uninstall_validates_names_first(home: Path, src: Path, tmp_path: Path, name: str) -> None:
    root = claude_root(home)
    install_skills("claude-code", src / "demo-skill")
    outside = home / ".claude" / "keep.txt"
    outside.write_text("keep")
    with pytest.raises(InvalidAgentSkillName):
        uninstall_skills("claude-code", ["demo-skill", name])
    assert (root / "demo-skill" / "SKILL.md").exists()  # nothing removed, not even valid names
    assert outside.read_text() == "keep"


def test_uninstall_never_removes_root(home: Path, src: Path) -> None:
    install_skills("claude-code", src / "demo-skill")
    uninstall_skills("claude-code", ["demo-skill"])
    assert claude_root(home).is_dir()
    assert list(claude_root(home).iterdir()) == []


def test_uninstall_link_removes_only_the_link(home: Path, src: Path, tmp_path: Path) -> None:
    root = claude_root(home)
    root.mkdir(parents=True)
    (root / "demo-skill").symlink_to(src / "demo-skill")
    before = tree(src / "demo-skill")
    assert uninstall_skills("claude-code", "demo-skill").removed
    assert not os.path.lexists(root / "demo-skill")
    assert tree(src / "demo-skill") == before


@pytest.mark.parametrize("kind", ["dangling", "file", "plain-dir", "link-to-plain-dir"])
def test_uninstall_leaves_non_skills_alone(home: Path, tmp_path: Path, kind: str) -> None:
    root = claude_root(home)
    root.mkdir(parents=True)
    entry = root / "demo-skill"
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "data.txt").write_text("data")
    if kind == "dangling":
        entry.symlink_to(tmp_path / "gone")
    elif kind == "file":
        entry.write_text("file")
    elif kind == "plain-dir":
        entry.mkdir()
        (entry / "data.txt").write_text("data")
    else:
        entry.symlink_to(plain)
    result = uninstall_skills("claude-code", "demo-skill")
    assert not result.removed
    assert os.path.lexists(entry)


def test_uninstall_name_forms(home: Path, src: Path) -> None:
    install_skills("claude-code", [src / "demo-skill", src / "other-skill", INLINE])
    results = uninstall_skills(
        "claude-code",
        [skill_from_directory(src / "demo-skill"), src / "other-skill", "some-dist/inline-skill"],
    )
    assert [(r.name, r.removed) for r in results] == [
        ("demo-skill", True),
        ("other-skill", True),
        ("inline-skill", True),
    ]
    assert list(claude_root(home).iterdir()) == []
    assert uninstall_skills("claude-code", INLINE).name == "inline-skill"
    assert uninstall_skills("claude-code", str(src / "demo-skill")).name == "demo-skill"


def test_uninstall_path_target_and_project(src: Path, tmp_path: Path) -> None:
    install_skills(tmp_path / "root", src / "demo-skill")
    assert uninstall_skills(tmp_path / "root", "demo-skill").message == (
        'Successfully uninstalled agent skill "demo-skill".'
    )
    project = tmp_path / "p"
    project.mkdir()
    install_skills(("gemini-cli", project), src / "demo-skill")
    assert uninstall_skills("gemini-cli", "demo-skill", project=project).removed
    assert list((project / ".agents" / "skills").iterdir()) == []


def test_uninstall_failure_puts_earlier_removals_back(home: Path, src: Path) -> None:
    install_skills("claude-code", [src / "demo-skill", src / "other-skill"])
    root = claude_root(home)
    before = {p.name: tree(p) for p in root.iterdir()}
    with inject(fail_at=2), pytest.raises(AgentSkillRemoveFailed):
        uninstall_skills("claude-code", ["demo-skill", "other-skill"])
    assert {p.name: tree(p) for p in root.iterdir()} == before
    assert backups(root) == []


def test_uninstall_invalid_item_type(home: Path) -> None:
    with pytest.raises(InvalidAgentSkill):
        uninstall_skills("claude-code", [3])
