"""Hostile client config files (``tests/hostile/config/<format>/``): JSON/JSONC, TOML and YAML
files nested beyond the limit, aliases that expand without end, text that is not UTF-8, a
container of the wrong type, a directory where the file should be. ``mcp install``,
``mcp uninstall``, ``mcp list`` and ``deploy`` each say what is wrong with which file (and
where), exit 1, and leave the file, the home directory and the state directory as they were
(a deploy writes its skills first: they are rolled back). The runner and the format of the
``.expected`` files: ``tests/helpers/hostile.py``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.helpers.hostile import Case, cases, check_case, make_site

CASES = [case for fmt in ("json", "toml", "yaml") for case in cases(f"config/{fmt}")]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_site(tmp_path_factory.mktemp("hostile-config"))


@pytest.mark.parametrize("case", CASES, ids=[f"{c.path.parent.name}/{c.id}" for c in CASES])
def test_config_file_refused_and_unchanged(
    case: Case, site: Path, tmp_path: Path, home: Path
) -> None:
    config = tmp_path / case.name
    if case.path.is_dir():
        shutil.copytree(case.path, config)
    else:
        shutil.copy2(case.path, config)
    state = tmp_path / "agenttools-state"
    (state / "deployments").mkdir(parents=True)  # as any earlier command leaves it (the lock's)
    places = {"home": home, "state": state, "site": site, "config": config, "case": config}
    check_case(case, places, tmp_path, config, home, state)
