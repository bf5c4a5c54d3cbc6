"""Canonical paths and registry keys."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest

from agenttools_runtime import paths


def test_state_dir_honours_agenttools_home(tmp_path: Path) -> None:
    assert paths.state_dir() == tmp_path / "agenttools-state"
    assert paths.deployments_dir() == tmp_path / "agenttools-state" / "deployments"
    assert paths.state_paths().registry.name == ".skill-registry"
    assert paths.state_paths().lock == paths.deployments_dir() / ".lock"


def test_state_dir_defaults_to_platform_dir(monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    monkeypatch.delenv("AGENTTOOLS_HOME")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    assert "agenttools" in paths.state_dir().parts


def test_canonical_path_of_missing_path_keeps_the_tail(tmp_path: Path) -> None:
    missing = tmp_path / "a" / "b" / "c"
    assert paths.canonical_path(missing) == Path(os.path.realpath(tmp_path)) / "a" / "b" / "c"


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_canonical_path_resolves_links_of_existing_ancestors(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "alias").symlink_to(real, target_is_directory=True)
    via_link = tmp_path / "alias" / "skills" / "x"
    assert paths.canonical_path(via_link) == Path(os.path.realpath(real)) / "skills" / "x"
    assert paths.registry_key(tmp_path / "alias" / "skills", "x") == paths.registry_key(
        real / "skills", "x"
    )


def test_canonical_path_key_case_folds_on_case_insensitive_platforms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = tmp_path / "Skills" / "MyDir"
    monkeypatch.setattr(sys, "platform", "darwin")
    assert paths.canonical_path_key(p) == paths.canonical_path_key(p).casefold()
    monkeypatch.setattr(sys, "platform", "win32")
    assert paths.registry_key(p, "x") == paths.registry_key(tmp_path / "skills" / "mydir", "x")
    monkeypatch.setattr(sys, "platform", "linux")
    assert "MyDir" in paths.canonical_path_key(p)


def test_registry_key_is_sha256_of_root_and_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    root = tmp_path / "skills"
    expected = hashlib.sha256((paths.canonical_path_key(root) + "/weather").encode()).hexdigest()
    assert paths.registry_key(root, "weather") == expected
    assert paths.registry_key(root, "weather") != paths.registry_key(root, "other")
