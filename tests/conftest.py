"""Test isolation: every test gets its own HOME, USERPROFILE and AGENTTOOLS_HOME under tmp_path,
so no test can touch the real home directory or the real deployment state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SAMPLES = REPO / "sample_packages"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.setenv("AGENTTOOLS_HOME", str(tmp_path / "agenttools-state"))
    for var in (
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "APPDATA",
        "LOCALAPPDATA",
        "CODEX_HOME",
        "CLAUDE_CONFIG_DIR",
        "VIRTUAL_ENV",  # discovery would look in the developer's active venv
    ):
        monkeypatch.delenv(var, raising=False)
    yield home


@pytest.fixture
def home(isolated_home: Path) -> Path:
    return isolated_home
