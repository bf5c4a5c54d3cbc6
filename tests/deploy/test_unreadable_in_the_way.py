"""A deployment record that cannot be read may be the deployment a new deploy would make
again: the index still names it for the same bundle and client, or its JSON says them. The
deploy is refused, naming the file and what to do, and nothing is written; ``--force``
deploys beside it; another bundle is deployed as ever."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from agenttools_runtime.deploy import deployed
from tests.helpers.envs import run, snapshot
from tests.helpers.venvs import fake_site
from tests.helpers.weather import weather

TOOLS = "weather-tools/weather-tools"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = fake_site(tmp_path / "site")
    weather(path, "1.2.0")
    return path


def deployments() -> Path:
    return Path(os.environ["AGENTTOOLS_HOME"]) / "deployments"


def first_deploy(capsys: pytest.CaptureFixture[str], site: Path) -> Path:
    ran = run(capsys, "deploy", "claude-code", TOOLS, "--path", str(site), "--json")
    assert ran.status == 0, ran.err
    return deployments() / ran.json()["deployment"]["uuid"] / "deployment.json"


def records() -> list[str]:
    return sorted(n for n in os.listdir(deployments()) if not n.startswith("."))


def refused(capsys: pytest.CaptureFixture[str], home: Path, site: Path, record: Path) -> None:
    before = snapshot(home)
    names = records()
    for extra in ((), ("--upgrade",)):
        ran = run(capsys, "deploy", "claude-code", TOOLS, "--path", str(site), *extra)
        assert ran.status == 1, ran.out
        (line,) = ran.err.strip().splitlines()
        assert line.startswith(f"agenttools: The deployment record {record} cannot be read (")
        assert f'may be the deployment of "{TOOLS}" to Claude Code, so nothing was deployed' in line
        assert f"delete the directory {record.parent}" in line and "--force" in line
        assert snapshot(home) == before
        assert records() == names


def test_a_record_broken_in_place_that_the_index_names(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    record = first_deploy(capsys, site)
    record.write_text("{not json")

    refused(capsys, home, site, record)

    other = run(capsys, "deploy", "claude-code", "weather-tools/reports", "--path", str(site))
    assert other.status == 0, other.err  # (it shares a skill: refcounting as ever)
    forced = run(capsys, "deploy", "claude-code", TOOLS, "--path", str(site), "--force")
    assert forced.status == 0, forced.err
    assert sorted(d.toolset for d in deployed()) == sorted([TOOLS, "weather-tools/reports"])


def test_a_record_the_index_does_not_know_whose_json_names_the_bundle(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    record = first_deploy(capsys, site)
    data = json.loads(record.read_text())
    data["skills"] = None  # (agenttools always writes an object)
    record.write_text(json.dumps(data))
    shutil.rmtree(deployments() / ".index")  # rebuilt from what can be read

    refused(capsys, home, site, record)


def test_a_repaired_record_is_the_deployment_again(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    record = first_deploy(capsys, site)
    good = record.read_bytes()
    record.write_text("{not json")
    assert run(capsys, "deploy", "claude-code", TOOLS, "--path", str(site)).status == 1
    record.write_bytes(good)
    again = run(capsys, "deploy", "claude-code", TOOLS, "--path", str(site))
    assert again.status == 0, again.err
    assert "already deployed" in again.out and len(deployed()) == 1
