"""The rules of relative paths (agenttools_runtime/project_paths.py) that the checks, the
wrapping backend, the manifest reader and skill installation share."""

from __future__ import annotations

import sys

import pytest

from agenttools_runtime.project_paths import is_project_path, is_skill_file_path


@pytest.mark.parametrize(
    "path", ["skills", "./skills", ".", "a/b/c", "sk\\ills", "skills/name", "a..b", "..a/b.."]
)
def test_relative_paths_that_stay_inside_follow_the_rule(path: str) -> None:
    assert is_project_path(path)


@pytest.mark.parametrize(
    "path",
    ["", "/skills", "\\skills", "..", "../skills", "a/../b", "a\\..\\b", "a/..", "\\\\host\\share"],
)
def test_empty_absolute_or_leaving_paths_break_it(path: str) -> None:
    assert not is_project_path(path)


@pytest.mark.skipif(sys.platform != "win32", reason="a drive is absolute only on Windows")
def test_a_path_with_a_drive_breaks_it_on_windows() -> None:
    assert not is_project_path("C:\\skills")


@pytest.mark.parametrize("rel", ["SKILL.md", "scripts/run.sh", "a/c:b", ".hidden", "a..b"])
def test_skill_file_paths_inside_the_skill_follow_the_rule(rel: str) -> None:
    assert is_skill_file_path(rel)


@pytest.mark.parametrize(
    "rel",
    ["", "/etc/passwd", "a//b", "./a", "a/.", "../a", "a/../b", "a\\b", "c:x", "C:/x", "a\0b"],
)
def test_skill_file_paths_that_could_leave_it_break_it(rel: str) -> None:
    assert not is_skill_file_path(rel)
