"""Hashing, manifests, directory states and destination classification (skills/hashing.py)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from agenttools_runtime.errors import AgentSkillUnreadable, AgentSkillUnsafeLink, InvalidAgentSkill
from agenttools_runtime.skills.hashing import (
    DestinationState,
    DirectoryState,
    destination_state,
    directory_state,
    hash_bytes,
    hash_file,
    hash_text,
    installed_hashes,
    iter_source_files,
)
from tests.helpers.skills import make_skill


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_crlf_is_normalized_for_text_files() -> None:
    assert hash_bytes(b"a\r\nb\r\n") == hash_bytes(b"a\nb\n") == sha(b"a\nb\n")


def test_files_with_nul_are_hashed_verbatim() -> None:
    data = b"\0\r\n"
    assert hash_bytes(data) == sha(data) != hash_bytes(b"\0\n")


def test_lone_cr_is_kept() -> None:
    assert hash_bytes(b"a\rb") == sha(b"a\rb")


def test_string_hash_is_the_utf8_bytes_hash() -> None:
    assert hash_text("é\r\n") == sha("é\n".encode())


def test_crlf_checkout_is_unmodified(tmp_path: Path) -> None:
    source = make_skill(tmp_path / "src", files={"a.md": "one\ntwo\n"})
    manifest = {rel: hash_file(path) for rel, path in iter_source_files(source)}
    installed = tmp_path / "installed"
    installed.mkdir()
    for rel, path in iter_source_files(source):
        target = installed / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    assert directory_state(installed, manifest) is DirectoryState.UNMODIFIED


def test_iter_source_files_skips_junk_and_vcs(tmp_path: Path) -> None:
    directory = make_skill(
        tmp_path,
        files={
            "a/.DS_Store": "j",
            "a/b.md": "b",
            "Thumbs.db": "j",
            "desktop.ini": "j",
            "__pycache__/m.pyc": "j",
            "a/__pycache__/m.pyc": "j",
            ".git/config": "v",
            ".hg/x": "v",
            ".svn": "v",
            "sub/.git": "gitdir: elsewhere",
        },
    )
    assert [rel for rel, _ in iter_source_files(directory)] == ["SKILL.md", "a/b.md"]


def test_iter_source_files_refuses_escaping_links(tmp_path: Path) -> None:
    directory = make_skill(tmp_path / "s")
    (tmp_path / "outside").mkdir()
    os.symlink(tmp_path / "outside", directory / "dir-link")
    with pytest.raises(AgentSkillUnsafeLink):
        list(iter_source_files(directory))


def test_iter_source_files_follows_inner_links_and_refuses_loops(tmp_path: Path) -> None:
    directory = make_skill(tmp_path / "s", files={"docs/a.md": "a"})
    os.symlink("docs", directory / "docs-alias")
    assert [r for r, _ in iter_source_files(directory)] == [
        "SKILL.md",
        "docs-alias/a.md",
        "docs/a.md",
    ]
    os.symlink("..", directory / "docs" / "up")
    with pytest.raises(InvalidAgentSkill):
        list(iter_source_files(directory))


def test_iter_source_files_dangling_inner_link(tmp_path: Path) -> None:
    directory = make_skill(tmp_path / "s")
    os.symlink("missing.md", directory / "broken.md")
    with pytest.raises(AgentSkillUnreadable):
        list(iter_source_files(directory))


@pytest.fixture
def installed(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    directory = make_skill(tmp_path / "root", files={"r/a.md": "a\n"})
    return directory, {rel: hash_file(path) for rel, path in iter_source_files(directory)}


def test_states_missing_unmodified(tmp_path: Path, installed: tuple[Path, dict[str, str]]) -> None:
    directory, manifest = installed
    assert directory_state(tmp_path / "nothing", manifest) is DirectoryState.MISSING
    assert directory_state(directory, manifest) is DirectoryState.UNMODIFIED


def test_junk_is_not_a_modification(installed: tuple[Path, dict[str, str]]) -> None:
    directory, manifest = installed
    (directory / ".DS_Store").write_bytes(b"\0")
    (directory / "r" / "__pycache__").mkdir()
    (directory / "r" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    assert directory_state(directory, manifest) is DirectoryState.UNMODIFIED


@pytest.mark.parametrize(
    "change",
    ["edit", "extra", "delete", "vcs-dir", "vcs-file", "outside-link", "junk-link", "loop", "file"],
)
def test_modifications(tmp_path: Path, installed: tuple[Path, dict[str, str]], change: str) -> None:
    directory, manifest = installed
    if change == "edit":
        (directory / "r" / "a.md").write_text("changed\n")
    elif change == "extra":
        (directory / "notes.txt").write_text("mine")
    elif change == "delete":
        (directory / "r" / "a.md").unlink()
    elif change == "vcs-dir":
        (directory / ".git").mkdir()
    elif change == "vcs-file":
        (directory / "r" / ".svn").write_text("x")
    elif change == "outside-link":
        (tmp_path / "o.md").write_text("a\n")
        os.symlink(tmp_path / "o.md", directory / "o.md")
    elif change == "junk-link":  # named as junk, but a link that leads outside all the same
        (tmp_path / "o.md").write_text("a\n")
        os.symlink(tmp_path / "o.md", directory / ".DS_Store")
    elif change == "loop":
        os.symlink("..", directory / "r" / "up")
    elif change == "file":
        file = tmp_path / "as-file"
        file.write_text("x")
        directory = file
    assert directory_state(directory, manifest) is DirectoryState.MODIFIED


def test_installed_hashes_reports_clean(installed: tuple[Path, dict[str, str]]) -> None:
    directory, manifest = installed
    assert installed_hashes(directory) == (manifest, True)
    (directory / ".hg").mkdir()
    assert installed_hashes(directory) == (manifest, False)


def test_destination_states(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    make_skill(root, name="dir")
    (root / "file").write_text("x")
    os.symlink(tmp_path / "nowhere", root / "dangling")
    target = make_skill(tmp_path / "t", name="target")
    os.symlink(target, root / "link")
    assert destination_state(root, "missing") is DestinationState.MISSING
    assert destination_state(root, "dir") is DestinationState.DIRECTORY
    assert destination_state(root, "file") is DestinationState.FILE
    assert destination_state(root, "dangling") is DestinationState.DANGLING
    assert destination_state(root, "link") is DestinationState.LINK


def test_directory_inside_linked_root_is_a_directory(tmp_path: Path) -> None:
    real = tmp_path / "real-root"
    make_skill(real, name="s")
    os.symlink(real, tmp_path / "root-link")
    assert destination_state(tmp_path / "root-link", "s") is DestinationState.DIRECTORY


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_links_into_vcs_metadata_are_never_copied_and_make_installed_modified(
    tmp_path: Path,
) -> None:
    directory = make_skill(tmp_path, files={".git/config": "[credential]\n", "a.md": "a"})
    os.symlink(directory / ".git", directory / "docs")
    os.symlink(directory / ".git" / "config", directory / "notes.md")
    assert [rel for rel, _ in iter_source_files(directory)] == ["SKILL.md", "a.md"]

    installed = make_skill(tmp_path / "installed", files={"a.md": "a"})
    baseline, clean = installed_hashes(installed)
    assert clean
    (installed / ".GIT").mkdir()  # VCS metadata whatever its case (empty: no file differs)
    assert directory_state(installed, baseline) is DirectoryState.MODIFIED


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_named_pipes_are_skipped_in_sources_and_never_opened_when_installed(
    tmp_path: Path,
) -> None:
    source = make_skill(tmp_path / "src")
    os.mkfifo(source / "pipe")
    assert [rel for rel, _ in iter_source_files(source)] == ["SKILL.md"]  # returns: not read

    installed = make_skill(tmp_path / "installed")
    baseline, _ = installed_hashes(installed)
    os.mkfifo(installed / "pipe")
    manifest, clean = installed_hashes(installed)  # returns: the pipe is not opened
    assert not clean and manifest == baseline
    assert directory_state(installed, baseline) is DirectoryState.MODIFIED
