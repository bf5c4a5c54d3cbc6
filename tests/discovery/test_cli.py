"""``agenttools list`` / ``show`` on fake dist-info trees (agenttools_runtime/cli/discovery.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from tests.helpers.venvs import fake_distribution, skill_files


@pytest.fixture
def site(tmp_path: Path) -> Path:
    site = tmp_path / "site-packages"
    skill = skill_files("weather-report", "Reports the weather.", {"scripts/run.sh": "#!/bin/sh\n"})
    skill["executable"] = ["scripts/run.sh"]
    fake_distribution(
        site,
        "weather-tools",
        "1.2.0",
        servers={
            "weather": {
                "module": "weather_tools.server",
                "description": "Weather lookups",
                "env": {"WEATHER_UNITS": "metric"},
            },
            "remote": {"url": "https://example.org/mcp"},
        },
        skills={"weather-report": skill},
    )
    fake_distribution(site, "broken-tools", "0.1", raw_manifest="{")
    return site


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_list_text(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "list", "--path", str(site))
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].split() == ["BUNDLE", "VERSION", "MCP", "SERVERS", "SKILLS"]
    assert lines[1].split() == [
        "weather-tools/weather-tools",
        "1.2.0",
        "remote,",
        "weather",
        "weather-report",
    ]
    assert "agenttools (built-in)" not in out
    assert "Distributions with problems:" in out
    assert "broken-tools 0.1:" in out and "not JSON" in out


def test_list_all_includes_builtin(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "list", "--all", "--path", str(site))
    assert status == 0
    assert out.splitlines()[1].startswith("agenttools (built-in)")


def test_list_json(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "list", "--json", "--path", str(site))
    assert status == 0
    data = json.loads(out)
    (bundle,) = data["bundles"]
    assert bundle["qualified_name"] == "weather-tools/weather-tools"
    assert bundle["version"] == "1.2.0"
    assert bundle["mcp_servers"] == ["weather-tools/remote", "weather-tools/weather"]
    assert bundle["skills"] == ["weather-tools/weather-report"]
    (problem,) = data["problems"]
    assert problem["name"] == "broken-tools" and "not JSON" in problem["problem"]


def test_list_empty(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "list", "--path", str(tmp_path))
    assert status == 0
    assert "No agent tools bundles found" in out


def test_show_text(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "show", "weather-tools", "--path", str(site))
    assert status == 0, err
    assert out.startswith("weather-tools/weather-tools  (bundle of weather-tools 1.2.0)")
    python = sys.executable  # --path outside a venv: servers start with this interpreter
    assert f"command: {python} -m weather_tools.server" in out
    assert "env: WEATHER_UNITS=metric" in out
    assert "url: https://example.org/mcp (http)" in out
    assert "Reports the weather." in out
    assert "identity: weather-tools/weather-report, version 1.2.0" in out
    assert "files: SKILL.md, scripts/run.sh (executable)" in out


def test_show_json_of_a_wrapped_server(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "show", "weather-tools/weather", "--json", "--path", str(site))
    assert status == 0
    data = json.loads(out)["bundle"]
    assert data["toolset_type"] == "MCPServer"
    (server,) = data["mcp_servers"]
    assert server["command"][1:] == ["-m", "weather_tools.server"]
    assert server["config_key"] == "weather"
    assert data["skills"] == []


def test_show_reports_a_tampered_file(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skill_md = next(site.glob("weather_tools-*.dist-info")) / (
        "extra_metadata/agenttools/skills/weather-report/SKILL.md"
    )
    skill_md.write_text("---\nname: weather-report\ndescription: evil\n---\n")
    status, out, _ = run(capsys, "show", "weather-tools", "--path", str(site))
    assert status == 1
    assert "problem: The file" in out and str(skill_md) in out
    assert "command:" in out  # the servers are still shown


def test_show_errors_are_one_line(site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "show", "nothing", "--path", str(site))
    assert status == 1
    assert err.strip() == (
        f'agenttools: No agent tools bundle found for name "nothing" in the site-packages '
        f"directory {site}."
    )
    status, _, err = run(capsys, "show", "broken-tools", "--path", str(site))
    assert status == 1 and "broken-tools" in err and "Traceback" not in err
    status, out, _ = run(capsys, "show", "absent/x", "--json", "--path", str(site))
    assert status == 1
    assert json.loads(out)["error"]["tag"] == "DistributionNotInstalled"


def test_python_and_path_together_is_a_usage_error(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = run(capsys, "list", "--python", sys.executable, "--path", str(site))
    assert status == 2 and "either --python or --path" in err


def test_bad_python_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "list", "--python", str(tmp_path / "nope"))
    assert status == 1
    assert err.startswith("agenttools: Cannot discover the distributions of the Python interpreter")
