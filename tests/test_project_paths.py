"""The rule of a project's relative paths (agenttools_runtime/project_paths.py), which the
checks, the wrapping backend and the manifest reader share."""

from __future__ import annotations

import sys

import pytest

from agenttools_runtime.project_paths import is_project_path


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
