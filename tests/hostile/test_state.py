"""Hostile state directories (``tests/hostile/state/<case>/state``, copied to
``AGENTTOOLS_HOME``): the state directory or its ``deployments`` a file, the lock a directory,
the skill registry a file, records nested 5,000 deep, not UTF-8, not JSON, of the wrong types or
without their uuid. ``deployed``, ``deploy`` and ``remove`` name the path and what is wrong
with it, exit 1, and change nothing. The runner: ``tests/helpers/hostile.py``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers.hostile import Case, cases, check_case, make_site

CASES = cases("state")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_site(tmp_path_factory.mktemp("hostile-state"))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_state_refused_and_unchanged(case: Case, site: Path, tmp_path: Path, home: Path) -> None:
    state = tmp_path / "agenttools-state"
    source = case.path / "state"
    if source.is_dir():
        shutil.copytree(source, state, symlinks=True)
    else:
        shutil.copy2(source, state)
    places = {"home": home, "state": state, "site": site}
    check_case(case, places, tmp_path, home, state)
