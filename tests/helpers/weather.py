"""The fake ``weather-tools`` distribution most CLI tests deploy (one server ``weather``, one
skill ``weather-report`` with an executable script, bundles ``weather-tools`` and
``reports``), how ``pip install -U`` replaces it, and how to read ``deployed``'s table."""

from __future__ import annotations

import shutil
from pathlib import Path

from agenttools_runtime.cli import main
from agenttools_runtime.deploy import deployed
from tests.helpers.venvs import fake_distribution, fake_site, skill_files


def weather(site: Path, version: str, body: str = "Do things.") -> Path:
    skill = skill_files("weather-report", "Reports the weather.", {"scripts/run.sh": "#!/bin/sh\n"})
    skill["files"]["SKILL.md"] = skill["files"]["SKILL.md"].replace("Do things.", body)
    skill["executable"] = ["scripts/run.sh"]
    return fake_distribution(
        site,
        "weather-tools",
        version,
        servers={"weather": {"module": "weather_tools.server", "env": {"UNITS": "metric"}}},
        skills={"weather-report": skill},
        bundles=[
            {
                "name": "weather-tools",
                "implicit": True,
                "mcp-servers": ["weather"],
                "skills": ["weather-report"],
            },
            {"name": "reports", "mcp-servers": [], "skills": ["weather-report"]},
        ],
    )


def upgrade(site: Path, version: str, body: str = "Do things.") -> None:
    """``pip install -U``: the old dist-info goes, the new one comes."""
    for old in site.glob("weather_tools-*.dist-info"):
        shutil.rmtree(old)
    weather(site, version, body=body)


def table(out: str) -> dict[str, list[str]]:
    """``deployed``'s table: client -> [id, scope, bundle, version, status, detail…]."""
    rows = {}
    for line in out.splitlines()[1:]:
        if not line.strip() or (line[0].isdigit() and " deployment(s)" in line):
            continue
        cells = line.split()
        if len(cells) >= 6:
            rows[cells[1]] = [cells[0], *cells[2:]]
    return rows


def orphaned_deployment(root: Path) -> str:
    """A deployment of weather-tools 1.2.0 from a fake venv at *root* whose distribution was
    then uninstalled: its id (in the state of this test's ``AGENTTOOLS_HOME``)."""
    site = fake_site(root)
    weather(site, "1.2.0")
    assert main(["deploy", "cursor", "weather-tools/weather-tools", "--path", str(site)]) == 0
    shutil.rmtree(next(site.glob("weather_tools-*.dist-info")))  # pip uninstall
    (found,) = deployed()
    return found.uuid
