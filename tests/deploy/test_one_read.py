"""A wheel's skill file never verified before is read once: the bytes hashed against the
manifest when the bundle is resolved are the bytes the deploy writes (not a second read,
which could also see a file changed in between)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from agenttools_runtime import verified
from agenttools_runtime.deploy import deploy, engine
from agenttools_runtime.deploy.plan import Level
from agenttools_runtime.deploy.resolved import resolve
from agenttools_runtime.deploy.targets import resolve_target
from agenttools_runtime.discovery import SearchPath
from agenttools_runtime.mcp.formats import json_format
from agenttools_runtime.verified import DIRECTORY
from tests.helpers.weather import weather


def test_the_bytes_verified_are_the_bytes_written(home: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    weather(site, "1.2.0")
    source = next(site.rglob("weather-report/SKILL.md"))
    verified = source.read_bytes()
    resolved = resolve("weather-tools/weather-tools", search=SearchPath.for_paths([site]))
    (skill,) = resolved.skills
    assert skill.contents["SKILL.md"] == verified  # (cold: read and hashed)
    source.write_bytes(verified.replace(b"Do things.", b"Tampered."))  # after the check
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        engine.execute_outcome(resolved, resolve_target("claude-code"), Level.NONE)
    deployed = home / ".claude" / "skills" / "weather-report" / "SKILL.md"
    assert deployed.read_bytes() == verified
    assert (deployed.parent / "scripts" / "run.sh").read_bytes() == b"#!/bin/sh\n"


def test_files_verified_before_are_read_when_written(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Warm: the stat of a file verified before stands for its hash; nothing is kept."""
    monkeypatch.setattr(verified, "RACY_NS", 0)  # (the wheel is written just before)
    site = tmp_path / "site"
    weather(site, "1.2.0")
    search = SearchPath.for_paths([site])
    (tmp_path / "agenttools-state" / "deployments").mkdir(parents=True)
    resolve("weather-tools/weather-tools", search=search)  # verifies, and records what it verified
    assert any((tmp_path / "agenttools-state" / "deployments" / DIRECTORY).iterdir())
    (skill,) = resolve("weather-tools/weather-tools", search=search).skills
    assert skill.contents == {}
    assert skill == resolve("weather-tools/weather-tools", search=search).skills[0]


def test_an_identical_redeploy_parses_the_config_file_once(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checking the entries, planning each entry's edit and its origin: one parse of
    ``~/.claude.json`` (often megabytes), not one per step."""
    site = tmp_path / "site"
    weather(site, "1.2.0")
    search = SearchPath.for_paths([site])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        deploy("claude-code", "weather-tools/weather-tools", search=search)
        parsed: list[int] = []

        class Counting(json_format._Document):
            def __init__(self, text: str, nesting_checked: bool = False) -> None:
                parsed.append(len(text))
                super().__init__(text, nesting_checked)

        monkeypatch.setattr(json_format, "_Document", Counting)
        json_format._parsed.cache_clear()  # (as in a new process)
        deploy("claude-code", "weather-tools/weather-tools", search=search, overwrite="upgrade")
    assert parsed == [len((home / ".claude.json").read_text())]
