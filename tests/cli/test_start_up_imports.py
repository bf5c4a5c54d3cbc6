"""What a command imports, checked in a fresh interpreter through ``sys.modules``: listing
and showing installed bundles read manifests and the wheel's skill copies only, so they load
neither the ``SKILL.md`` reader (PyYAML), nor subprocess (another interpreter is asked only for
``--python``), nor zipfile (only zipped entries of the path are looked into), nor the deploy
engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.venvs import fake_distribution, skill_files

NEVER = ("yaml", "ruamel", "subprocess", "zipfile", "agenttools_runtime.deploy.engine")
CODE = (
    "import json, sys; from agenttools_runtime.cli import main; status = main(sys.argv[1:]); "
    "sys.stdout.flush(); print(json.dumps(sorted(sys.modules)), file=sys.stderr); "
    "sys.exit(status)"
)


@pytest.mark.parametrize(
    ("argv", "also_never"),
    [
        (["list"], ("platformdirs", "agenttools_runtime.skills.source")),
        (["show", "weather-tools/weather"], ("agenttools_runtime.skills.source",)),
        (["list", "--all", "--json"], ()),
    ],
)
def test_listing_commands_import_no_reader_or_engine(
    tmp_path: Path, argv: list[str], also_never: tuple[str, ...]
) -> None:
    site = tmp_path / "site"
    fake_distribution(
        site,
        "weather-tools",
        servers={"weather": {"module": "weather_tools.server"}},
        skills={"weather-report": skill_files("weather-report")},
        bundles=[{"name": "weather", "mcp-servers": ["weather"], "skills": ["weather-report"]}],
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}
    env.pop("VIRTUAL_ENV", None)
    done = subprocess.run(
        [sys.executable, "-c", CODE, *argv], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "weather" in done.stdout
    modules = json.loads(done.stderr.splitlines()[-1])
    loaded = [m for m in modules if m.startswith(tuple(NEVER + also_never))]
    assert loaded == []
