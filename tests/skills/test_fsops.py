"""Creating, replacing and removing skill directories (skills/fsops.py), on real files."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from agenttools_runtime import fs
from agenttools_runtime.errors import (
    AgentSkillBackupNotRemoved,
    AgentSkillRemoveFailed,
    AgentSkillWriteFailed,
    InvalidAgentSkill,
)
from agenttools_runtime.skills import fsops
from agenttools_runtime.skills.hashing import DirectoryState, directory_state
from agenttools_runtime.skills.source import to_source
from agenttools_runtime.skills.spec import SkillSource
from tests.helpers.faults import inject
from tests.helpers.skills import backups, make_skill, tree


@pytest.fixture
def source_dir(tmp_path: Path) -> Path:
    return make_skill(
        tmp_path / "src",
        files={
            "scripts/run.sh": "#!/bin/sh\necho hi\n",
            "scripts/tool": "binary-ish\n",
            "references/guide.md": "Guide\n",
        },
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "home" / ".claude" / "skills"


def test_create_writes_every_file_and_exec_bits(source_dir: Path, root: Path) -> None:
    tool = source_dir / "scripts" / "tool"
    tool.chmod(0o755)
    source = to_source(source_dir)
    outcome = fsops.write_skill(root, source)
    assert (outcome.action, outcome.backup) == ("created", None)
    installed = root / "demo-skill"
    assert tree(installed) == tree(source_dir)
    assert os.access(installed / "scripts" / "run.sh", os.X_OK)
    assert os.access(installed / "scripts" / "tool", os.X_OK)
    assert not os.access(installed / "references" / "guide.md", os.X_OK)
    assert directory_state(installed, source.manifest) is DirectoryState.UNMODIFIED
    outcome.commit()
    assert backups(root) == []


def test_generated_skill_is_written_as_utf8_and_shebang_string_is_executable(root: Path) -> None:
    source = SkillSource(
        name="gen",
        description="d",
        identifier=None,
        version=None,
        files={"SKILL.md": "---\nname: gen\ndescription: dé\n---\n", "run": "#!/bin/sh\n"},
        manifest={},
    )
    fsops.write_skill(root, source).commit()
    assert (
        root / "gen" / "SKILL.md"
    ).read_bytes() == "---\nname: gen\ndescription: dé\n---\n".encode()
    assert os.access(root / "gen" / "run", os.X_OK)


def test_replace_directory_keeps_backup_until_commit(source_dir: Path, root: Path) -> None:
    old = make_skill(root, files={"old.txt": "old\n"})
    outcome = fsops.write_skill(root, to_source(source_dir))
    assert outcome.action == "replaced"
    assert outcome.backup is not None and outcome.backup.parent == root.parent
    assert outcome.backup.name.startswith(".agenttools-backup-")
    assert (outcome.backup / "old.txt").read_text() == "old\n"
    assert tree(old) == tree(source_dir)
    outcome.commit()
    assert backups(root) == []
    with pytest.raises(fsops.AlreadySettled):
        outcome.rollback()


def test_replace_rollback_restores_previous(source_dir: Path, root: Path) -> None:
    make_skill(root, files={"old.txt": "old\n"})
    before = tree(root / "demo-skill")
    outcome = fsops.write_skill(root, to_source(source_dir))
    outcome.rollback()
    assert tree(root / "demo-skill") == before
    assert backups(root) == []


def test_create_rollback_removes_directory(source_dir: Path, root: Path) -> None:
    outcome = fsops.write_skill(root, to_source(source_dir))
    outcome.rollback()
    assert not os.path.lexists(root / "demo-skill")


@pytest.mark.parametrize("kind", ["link", "dangling", "file"])
def test_link_dangling_and_file_entries_are_replaced_as_themselves(
    source_dir: Path, root: Path, tmp_path: Path, kind: str
) -> None:
    root.mkdir(parents=True)
    elsewhere = make_skill(tmp_path / "elsewhere", files={"mine.txt": "precious\n"})
    entry = root / "demo-skill"
    if kind == "link":
        entry.symlink_to(elsewhere, target_is_directory=True)
    elif kind == "dangling":
        entry.symlink_to(tmp_path / "gone")
    else:
        entry.write_text("a file\n")
    outcome = fsops.write_skill(root, to_source(source_dir))
    assert outcome.action == "replaced"
    assert not entry.is_symlink() and entry.is_dir()
    assert tree(entry) == tree(source_dir)
    # never written through: the link's target is untouched
    assert tree(elsewhere) == {
        "SKILL.md": (elsewhere / "SKILL.md").read_bytes(),
        "mine.txt": b"precious\n",
    }
    outcome.rollback()
    if kind == "file":
        assert entry.read_text() == "a file\n"
    else:
        assert entry.is_symlink()


def test_failed_replace_restores_previous_entry(source_dir: Path, root: Path) -> None:
    make_skill(root, files={"old.txt": "old\n"})
    before = tree(root / "demo-skill")
    with inject(fail_at=4), pytest.raises(AgentSkillWriteFailed) as info:
        fsops.write_skill(root, to_source(source_dir))
    assert "rolled back" in str(info.value)
    assert tree(root / "demo-skill") == before
    assert backups(root) == []


def test_failed_create_leaves_nothing(source_dir: Path, root: Path) -> None:
    root.mkdir(parents=True)
    with inject(fail_at=3), pytest.raises(AgentSkillWriteFailed):
        fsops.write_skill(root, to_source(source_dir))
    assert list(root.iterdir()) == []


def test_unwritable_root_fails_cleanly(source_dir: Path, root: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root ignores permissions")
    root.mkdir(parents=True)
    root.chmod(0o555)
    try:
        with pytest.raises(AgentSkillWriteFailed):
            fsops.write_skill(root, to_source(source_dir))
    finally:
        root.chmod(0o755)
    assert list(root.iterdir()) == []


def test_source_equal_to_destination_is_a_no_op(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    directory = make_skill(root)
    before = tree(directory)
    with inject() as log:
        outcome = fsops.write_skill(root, to_source(directory))
    assert outcome.action == "unchanged"
    assert log.count == 0
    assert tree(directory) == before
    outcome.rollback()
    assert tree(directory) == before


def test_link_to_source_counts_as_equal(tmp_path: Path) -> None:
    directory = make_skill(tmp_path / "src")
    root = tmp_path / "skills"
    root.mkdir()
    (root / "demo-skill").symlink_to(directory)
    assert fsops.write_skill(root, to_source(directory)).action == "unchanged"
    assert (root / "demo-skill").is_symlink()


def test_source_inside_destination_and_vice_versa_fail(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    outer = make_skill(root, name="demo-skill")
    inner = make_skill(outer / "nested", name="demo-skill")
    with pytest.raises(InvalidAgentSkill):
        fsops.write_skill(root, to_source(inner))
    # destination inside the source: root lies within the source directory
    with pytest.raises(InvalidAgentSkill):
        fsops.write_skill(outer / "inner-root", to_source(outer))
    assert not (outer / "inner-root").exists()


@pytest.mark.parametrize(
    "rel", ["../evil", "/abs", "a/../../b", "a\\b", "C:/x", "c:x", "a//b", "./a", "a\0b", ""]
)
def test_unsafe_file_paths_are_refused(root: Path, rel: str) -> None:
    source = SkillSource("x", "d", None, None, {"SKILL.md": "s", rel: "evil"}, {})
    with pytest.raises(InvalidAgentSkill):
        fsops.write_skill(root, source)
    assert not root.exists()


@pytest.mark.parametrize("kind", ["directory", "link", "dangling", "file"])
def test_remove_entries_as_themselves(root: Path, tmp_path: Path, kind: str) -> None:
    root.mkdir(parents=True)
    target = make_skill(tmp_path / "target", files={"keep.txt": "keep\n"})
    entry = root / "demo-skill"
    if kind == "directory":
        make_skill(root)
    elif kind == "link":
        entry.symlink_to(target)
    elif kind == "dangling":
        entry.symlink_to(tmp_path / "gone")
    else:
        entry.write_text("x")
    fsops.remove_skill(root, "demo-skill")
    assert not os.path.lexists(entry)
    assert (target / "keep.txt").read_text() == "keep\n"
    assert backups(root) == []
    assert root.is_dir()


def test_staged_removal_rollback(root: Path) -> None:
    make_skill(root, files={"a.txt": "a\n"})
    before = tree(root / "demo-skill")
    removal = fsops.stage_removal(root, "demo-skill")
    assert not os.path.lexists(root / "demo-skill")
    assert tree(removal.backup) == before
    removal.rollback()
    assert tree(root / "demo-skill") == before


def test_remove_missing_raises(root: Path) -> None:
    root.mkdir(parents=True)
    with pytest.raises(FileNotFoundError):
        fsops.remove_skill(root, "absent")


def test_failed_move_deletes_nothing(root: Path) -> None:
    make_skill(root)
    before = tree(root / "demo-skill")
    with inject(fail_at=1), pytest.raises(AgentSkillRemoveFailed):
        fsops.remove_skill(root, "demo-skill")
    assert tree(root / "demo-skill") == before


def test_backup_that_cannot_be_deleted_warns(root: Path) -> None:
    make_skill(root)
    removal = fsops.stage_removal(root, "demo-skill")
    with inject(fail_at=1), pytest.warns(AgentSkillBackupNotRemoved):
        removal.commit()
    assert removal.backup.exists()


def test_ensure_root_and_remove_created_dirs(tmp_path: Path) -> None:
    root = tmp_path / "a" / "b" / "skills"
    created = fsops.ensure_root(root)
    assert created == [tmp_path / "a", tmp_path / "a" / "b", root]
    assert root.is_dir()
    fsops.remove_created_dirs(created)
    assert not (tmp_path / "a").exists()


def test_remove_created_dirs_keeps_non_empty(tmp_path: Path) -> None:
    root = tmp_path / "a" / "skills"
    created = fsops.ensure_root(root)
    (tmp_path / "a" / "other.txt").write_text("user file")
    fsops.remove_created_dirs(created)
    assert not root.exists()
    assert (tmp_path / "a" / "other.txt").exists()


def test_modes_are_not_in_hashes(source_dir: Path, root: Path) -> None:
    source = to_source(source_dir)
    fsops.write_skill(root, source).commit()
    guide = root / "demo-skill" / "references" / "guide.md"
    guide.chmod(guide.stat().st_mode | stat.S_IXUSR)
    assert directory_state(root / "demo-skill", source.manifest) is DirectoryState.UNMODIFIED


# -- backups on another volume, leftovers -----------------------------------------------------


@pytest.mark.parametrize("error", [errno.EXDEV, errno.EACCES])
def test_replace_backs_up_inside_the_root_when_its_parent_refuses(
    source_dir: Path, root: Path, error: int
) -> None:
    make_skill(root, files={"old.txt": "old\n"})
    before = tree(root / "demo-skill")
    calls: list[Path] = []

    def observer(operation: str, path: Path) -> None:
        if operation == "rename":
            calls.append(path)
            if len(calls) == 1:  # the move into the root's parent
                raise OSError(error, os.strerror(error), str(path))

    with fs.observe(observer):
        outcome = fsops.write_skill(root, to_source(source_dir))
    assert outcome.backup is not None and outcome.backup.parent == root
    assert outcome.backup.name.startswith(".agenttools-backup-")
    assert tree(outcome.backup) == before
    assert tree(root / "demo-skill") == tree(source_dir)
    outcome.rollback()
    assert tree(root / "demo-skill") == before
    assert sorted(p.name for p in root.iterdir()) == ["demo-skill"]
    assert backups(root) == []


def test_removal_backs_up_inside_the_root_when_its_parent_is_another_volume(root: Path) -> None:
    make_skill(root)
    first = True

    def observer(operation: str, path: Path) -> None:
        nonlocal first
        if operation == "rename" and first:
            first = False
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), str(path))

    with fs.observe(observer):
        removal = fsops.remove_skill(root, "demo-skill")
    assert removal.backup.parent == root
    assert list(root.iterdir()) == []


def test_when_both_backup_places_refuse_nothing_moves_and_the_first_error_is_told(
    root: Path,
) -> None:
    make_skill(root)
    before = tree(root / "demo-skill")
    errors = iter([errno.EXDEV, errno.EACCES])

    def observer(operation: str, path: Path) -> None:
        if operation == "rename":
            error = next(errors)
            raise OSError(error, os.strerror(error), str(path))

    with fs.observe(observer), pytest.raises(AgentSkillRemoveFailed) as caught:
        fsops.remove_skill(root, "demo-skill")
    assert os.strerror(errno.EXDEV) in str(caught.value)
    assert tree(root / "demo-skill") == before


SHM = Path("/dev/shm")


def own_writable_volume(path: Path) -> bool:
    return (
        os.path.ismount(path)
        and os.access(path, os.W_OK)
        and os.stat(path).st_dev != os.stat(path.parent).st_dev
    )


@pytest.mark.skipif(
    not own_writable_volume(SHM), reason="needs /dev/shm: a writable mount point of its own"
)
def test_replace_and_remove_in_a_root_that_is_a_mount_point(source_dir: Path) -> None:
    """For real: /dev/shm is its own volume, so a rename into /dev fails (EXDEV or EACCES)."""
    import uuid
    from dataclasses import replace

    name = f"agenttools-test-{uuid.uuid4().hex}"
    source = replace(to_source(source_dir), name=name)
    try:
        fsops.write_skill(SHM, source).commit()
        outcome = fsops.write_skill(SHM, source)  # a replace: needs a backup
        assert outcome.action == "replaced" and outcome.backup is not None
        assert outcome.backup.parent == SHM
        outcome.commit()
        assert tree(SHM / name) == tree(source_dir)
        fsops.remove_skill(SHM, name)
        assert not os.path.lexists(SHM / name)
    finally:
        if os.path.lexists(SHM / name):
            fs.remove_entry(SHM / name)
    assert not [p for p in fsops.stale_backups(SHM) if p.parent == SHM]


def test_stale_backups_are_found_next_to_and_inside_the_real_root(tmp_path: Path) -> None:
    real = tmp_path / "real" / "skills"
    make_skill(real)
    link = tmp_path / "user" / "skills"
    link.parent.mkdir()
    link.symlink_to(real, target_is_directory=True)
    assert fsops.stale_backups(link) == []
    removal = fsops.stage_removal(link, "demo-skill")  # interrupted before commit
    inside = real / ".agenttools-backup-0123"
    inside.mkdir()
    assert fsops.stale_backups(link) == sorted([removal.backup, inside])
    assert removal.backup.parent == real.parent
