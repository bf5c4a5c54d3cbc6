"""End to end with real wheels built by hatchling and installed into real venvs: deploy a
distribution's bundle, upgrade it from a newer wheel, remove it after the distribution was
uninstalled. Files on disk are compared with the wheel's own files."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.clients import get_client
from agenttools_runtime.mcp.install import read_server_entries
from tests.helpers.venvs import create_venv
from tests.helpers.wheels import SAMPLES, build_sample_wheel, build_wheel, tree, wheel_skill_files

pytestmark = pytest.mark.slow


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_deploy_upgrade_and_remove_after_uninstall(
    capsys: pytest.CaptureFixture[str],
    tmp_path_factory: pytest.TempPathFactory,
    tmp_path: Path,
    home: Path,
) -> None:
    wheel = build_sample_wheel("weather-tools", tmp_path_factory)
    venv = create_venv(tmp_path / "venv", [wheel])
    status, out, err = cli(
        capsys, "deploy", "claude-code", "weather-tools", "--python", str(venv.python), "--json"
    )
    assert status == 0, err
    dep = json.loads(out)["deployment"]
    assert dep["agent_tools"]["distribution_version"] == "1.2.0"
    entry = read_server_entries(home / ".claude.json", get_client("claude-code"))["weather"]
    assert Path(str(entry["command"])).parent == venv.python.parent
    assert entry["args"] == ["-m", "weather_tools.server"]
    root = home / ".claude" / "skills"
    names = sorted(os.listdir(root))
    assert "weather-report" in names and "forecast-help" in names
    for name in names:
        assert tree(root / name) == wheel_skill_files(wheel, name), name

    # a newer release with a changed skill, installed into another environment
    project = tmp_path / "weather-tools"
    shutil.copytree(SAMPLES / "weather-tools", project)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('version = "1.2.0"', 'version = "1.3.0"'))
    report = project / "skills" / "weather-report" / "SKILL.md"
    report.write_text(report.read_text() + "\nNew in 1.3.0.\n")
    newer = build_wheel(project, tmp_path / "dist")
    venv2 = create_venv(tmp_path / "venv2", [newer])
    status, _, err = cli(
        capsys, "deploy", "claude-code", "weather-tools", "--python", str(venv2.python)
    )
    assert status == 1 and "already deployed" in err
    assert "New in 1.3.0." not in (root / "weather-report" / "SKILL.md").read_text()
    status, out, err = cli(
        capsys, "deploy", "claude-code", "weather-tools", "--python", str(venv2.python),
        "--upgrade", "--json",
    )  # fmt: skip
    assert status == 0, err
    upgraded = json.loads(out)["deployment"]
    assert "New in 1.3.0." in (root / "weather-report" / "SKILL.md").read_text()
    assert tree(root / "weather-report") == wheel_skill_files(newer, "weather-report")
    entry = read_server_entries(home / ".claude.json", get_client("claude-code"))["weather"]
    assert Path(str(entry["command"])).parent == venv2.python.parent
    status, out, _ = cli(capsys, "deployed", "--json")
    assert [d["uuid"] for d in json.loads(out)["deployments"]] == [upgraded["uuid"]]

    # uninstall the distribution; the deployment is still removable from its record
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv2.python), "uninstall", "-y",
         "weather-tools"],
        check=True, capture_output=True,
    )  # fmt: skip
    status, out, err = cli(capsys, "remove", upgraded["uuid"])
    assert status == 0, err
    assert not root.exists()  # created for the deployment: removed with it
    assert "weather" not in read_server_entries(home / ".claude.json", get_client("claude-code"))
