"""Hostile installed manifests (tests/hostile/manifest/): each case is the ``manifest.json`` of
an installed distribution ``hostile`` beside a good one (``weather-tools``). It is listed with
a problem, never used, never a traceback, and it never hides the other distribution."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.venvs import fake_distribution, skill_files
from tests.hostile.corpus import Case, cases, run

CASES = cases("manifest", ".json")


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_hostile_manifest(case: Case, tmp_path: Path) -> None:
    home, state, site = tmp_path / "home", tmp_path / "state", tmp_path / "site"
    home.mkdir(exist_ok=True)
    fake_distribution(
        site,
        "weather-tools",
        servers={"weather": {"command": "weather-mcp"}},
        skills={"weather-report": skill_files("weather-report")},
    )
    fake_distribution(site, "hostile", raw_manifest=case.path.read_bytes())
    env = {"HOME": str(home), "USERPROFILE": str(home), "AGENTTOOLS_HOME": str(state)}
    run(case, {"site": site, "home": home}, env, home, state, site)


def test_every_case_has_commands() -> None:
    assert CASES and all(c.commands for c in CASES)
