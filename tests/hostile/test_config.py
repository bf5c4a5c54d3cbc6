"""Hostile client config files (``tests/hostile/config/<format>/``): JSON/JSONC, TOML and YAML
files nested beyond the limit, aliases that expand without end, a mapping key that is a
sequence, text that is not UTF-8 or not the format, a container of the wrong type, a directory
where the file belongs; the user's own entry under the key a deploy writes (JSON, JSONC, TOML,
YAML: a conflict without ``--force``, labelled by the dry run). ``mcp install``, ``mcp
uninstall``, ``mcp list`` and ``deploy`` each say what is wrong with which file (and where),
exit 1, and leave the file, the home directory and the state directory as they were (a
deploy's skills are rolled back)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.hostile.corpus import Case, cases, run, weather_site

FORMATS = {"json": ".json", "toml": ".toml", "yaml": ".yaml"}
CASES = [(fmt, case) for fmt, suffix in FORMATS.items() for case in cases(f"config/{fmt}", suffix)]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return weather_site(tmp_path_factory.mktemp("hostile-config"))


@pytest.mark.parametrize(("fmt", "case"), CASES, ids=[f"{f}/{c.name}" for f, c in CASES])
def test_config_file_refused_and_unchanged(
    fmt: str, case: Case, site: Path, tmp_path: Path, home: Path
) -> None:
    config = tmp_path / case.path.name
    if case.path.is_dir():
        shutil.copytree(case.path, config)
    else:
        shutil.copy2(case.path, config)
    state = tmp_path / "agenttools-state"  # (none: a command that leaves nothing leaves none)
    env = {"HOME": str(home), "USERPROFILE": str(home), "AGENTTOOLS_HOME": str(state)}
    run(case, {"config": config, "site": site, "home": home}, env, config, home, state)
