"""Hostile state directories (``tests/hostile/state/<case>.state``, a file or a folder used as
``AGENTTOOLS_HOME``): the state directory or its ``deployments`` a file, the lock a directory,
the skill registry a file, records nested 5,000 deep, not UTF-8, not JSON, of the wrong types
or without their uuid. ``deployed``, ``deploy``, ``remove`` and ``doctor`` name the path and what is wrong
with it, exit 1, and change nothing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.hostile.corpus import Case, cases, run, weather_site

CASES = cases("state", ".state")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return weather_site(tmp_path_factory.mktemp("hostile-state"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_state_refused_and_unchanged(case: Case, site: Path, tmp_path: Path, home: Path) -> None:
    state = tmp_path / "agenttools-state"
    if case.path.is_dir():
        shutil.copytree(case.path, state, symlinks=True)
    else:
        shutil.copy2(case.path, state)
    env = {"HOME": str(home), "USERPROFILE": str(home), "AGENTTOOLS_HOME": str(state)}
    run(case, {"state": state, "site": site, "home": home}, env, home, state)
