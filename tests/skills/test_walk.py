"""The one walk of a skill directory and the kinds it reports (skills/walk.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agenttools_runtime.skills.walk import Kind, walk
from tests.helpers.skills import make_skill

pytestmark = pytest.mark.skipif(os.name != "posix", reason="symlinks and named pipes")


def kinds(directory: Path, *, follow_links: bool = True) -> list[tuple[str, Kind]]:
    return [(e.rel, e.kind) for e in walk(directory, follow_links=follow_links)]


def test_every_entry_once_depth_first_by_name_with_its_kind(tmp_path: Path) -> None:
    (tmp_path / "outside.md").write_text("o")
    skill = make_skill(
        tmp_path,
        "s",
        files={
            "a/b.md": "b",
            "a-b/c.md": "c",
            ".DS_Store": "junk",
            "__pycache__/m.pyc": "junk",
            ".Git/config": "vcs",
            "sub/.svn": "vcs",
        },
    )
    os.symlink("../outside.md", skill / "out.md")
    os.symlink("missing.md", skill / "broken.md")
    os.symlink(".Git/config", skill / "notes.md")
    os.symlink("..", skill / "sub" / "up")
    os.symlink("a", skill / "alias")
    os.mkfifo(skill / "pipe")
    assert kinds(skill) == [
        (".DS_Store", "junk"),
        (".Git", "vcs"),
        ("SKILL.md", "file"),
        ("__pycache__", "junk"),
        ("a", "directory"),
        ("a/b.md", "file"),
        ("a-b", "directory"),
        ("a-b/c.md", "file"),
        ("alias", "directory"),
        ("alias/b.md", "file"),  # a link inside is followed: its files under its name
        ("broken.md", "dangling"),
        ("notes.md", "into-vcs"),
        ("out.md", "outside"),
        ("pipe", "other"),
        ("sub", "directory"),
        ("sub/.svn", "vcs"),
        ("sub/up", "loop"),
    ]
    assert ("alias/b.md", "file") not in kinds(skill, follow_links=False)


def test_a_link_says_where_it_leads_and_a_plain_entry_has_no_link(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "s", files={"real.md": "r"})
    os.symlink("real.md", skill / "alias.md")
    links = {e.rel: e.link for e in walk(skill)}
    assert links == {"SKILL.md": None, "alias.md": skill.resolve() / "real.md", "real.md": None}


def test_a_cycle_of_links_is_dangling_and_nothing_raises(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "s")
    os.symlink("two", skill / "one")
    os.symlink("one", skill / "two")
    assert kinds(skill) == [("SKILL.md", "file"), ("one", "dangling"), ("two", "dangling")]


def test_a_directory_that_cannot_be_listed_is_reported(tmp_path: Path) -> None:
    assert [(e.rel, e.kind) for e in walk(tmp_path / "missing")] == [("", "unreadable")]
