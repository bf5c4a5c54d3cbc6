"""``agenttools export`` on the command line: usage errors (exit 2), one line for a failure
(exit 1), what it says it wrote, ``--json``, and installed bundles found with ``--path``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from tests.helpers.weather import weather

REPO = Path(__file__).resolve().parents[2]
WEATHER = REPO / "sample_packages" / "weather-tools"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--format", "claude-plugin", "a", "b"], "takes one SOURCE"),
        (["--format", "claude-plugin", "a", "--spec-version", "1.1.0"], "--spec-version is for"),
        (["--format", "codex-marketplace", "a", "--owner", "me"], "--owner is for"),
        (["--format", "claude-plugn", "a"], 'Did you mean "claude-plugin"'),
    ],
)
def test_usage_errors(
    argv: list[str], says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["export", *argv, "-o", str(tmp_path / "out")]) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_source_that_is_nothing_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["export", "--format", "claude-plugin", "no-such-dist", "-o", str(tmp_path / "o")]
    assert main([*argv, "--path", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no-such-dist" in err


def test_it_says_what_it_wrote_and_what_to_run_next(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "plugin"
    assert main(["export", "--format", "claude-plugin", str(WEATHER), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"Claude Code plugin of weather-tools 1.2.0 in {out} (6 written, 0 unchanged)" in text
    assert f"next: claude plugin validate {out}" in text
    assert (
        main(["export", "--format", "claude-plugin", str(WEATHER), "-o", str(out), "--json"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is True and data["written"] == [] and len(data["unchanged"]) == 6
    assert data["plugins"] == [
        {"name": "weather-tools", "distribution": "weather-tools", "version": "1.2.0"}
    ]


def test_a_file_in_the_way_needs_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ext"
    (out / "skills" / "weather-report").mkdir(parents=True)
    (out / "skills" / "weather-report" / "SKILL.md").write_text("mine")
    argv = ["export", "--format", "gemini-extension", str(WEATHER), "-o", str(out)]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert "skills/weather-report/SKILL.md" in err and "--force" in err
    assert (out / "skills" / "weather-report" / "SKILL.md").read_text() == "mine"
    assert main([*argv, "--force"]) == 0
    assert (out / "gemini-extension.json").is_file()


def test_an_installed_bundle_of_another_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = tmp_path / "site"
    weather(site, "1.4.0")
    out = tmp_path / "market"
    argv = [
        "export",
        "--format",
        "codex-marketplace",
        "weather-tools/weather-tools",
        "weather-tools/reports",
    ]
    assert main([*argv, "-o", str(out), "--path", str(site)]) == 0
    market = json.loads((out / ".agents/plugins/marketplace.json").read_text())
    assert market["name"] == "market"
    assert [p["name"] for p in market["plugins"]] == ["weather-tools", "reports"]
    plugin = json.loads((out / "plugins/weather-tools/.codex-plugin/plugin.json").read_text())
    assert plugin["version"] == "1.4.0"
    mcp = json.loads((out / "plugins/weather-tools/.mcp.json").read_text())
    assert mcp["mcpServers"]["weather"]["args"] == [
        "--from",
        "weather-tools==1.4.0",
        "python",
        "-m",
        "weather_tools.server",
    ]
