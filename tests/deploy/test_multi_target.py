"""``deploy`` to several clients at once: ``TARGET`` as a comma-separated list, ``--detected``
and ``--all-clients``; a dry run with one plan per client; the summary table; exit status 0
only when every client got what was asked; the undo command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.clients import get_client
from agenttools_runtime.deploy import deployed
from agenttools_runtime.mcp.install import read_server_entries
from tests.helpers.venvs import fake_site
from tests.helpers.weather import weather

from .conftest import snapshot

TOOLS = "weather-tools/weather-tools"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def summary(out: str) -> dict[str, list[str]]:
    """The summary table: client -> [result, detail]."""
    lines = out[out.index("CLIENT  ") :].splitlines()[1:]
    rows = [re.split(r"\s{2,}", line, maxsplit=2) for line in lines if "  " in line]
    return {row[0]: row[1:] for row in rows}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = fake_site(tmp_path / "site")
    weather(path, "1.2.0")
    return path


def test_comma_separated_targets_each_get_a_deployment(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    status, out, err = run(
        capsys, "deploy", "claude-code,Cursor,codex,claude-code", TOOLS, "--path", str(site)
    )
    assert status == 0, err
    assert read_server_entries(home / ".claude.json", get_client("claude-code"))["weather"]
    assert read_server_entries(home / ".cursor" / "mcp.json", get_client("cursor"))["weather"]
    assert "[mcp_servers.weather]" in (home / ".codex" / "config.toml").read_text()
    for root in (".claude/skills", ".agents/skills"):
        assert (home / root / "weather-report" / "SKILL.md").is_file()
    # Cursor also reads ~/.claude/skills: it uses Claude Code's copy instead of a second one
    assert not (home / ".cursor" / "skills" / "weather-report").exists()
    # one section per client (a name given twice is deployed once), then the summary
    assert out.count("Deployed ") == 3
    table = out[out.index("CLIENT  ") :].splitlines()
    assert [line.split()[:2] for line in table[1:4]] == [
        ["claude-code", "deployed"],
        ["cursor", "deployed"],
        ["codex", "deployed"],
    ]
    assert table[4] == "3 of 3 client(s) ok."
    undo = table[5]
    assert undo.startswith("Undo: agenttools remove ")
    # the undo line undoes it
    ids = undo.split()[3:]
    assert len(ids) == 3
    status, out, err = run(capsys, "remove", *ids)
    assert status == 0, err
    assert out.count("Removed deployment") == 3
    assert not (home / ".claude" / "skills" / "weather-report").exists()
    assert not (home / ".codex").exists()  # created for it: removed with it


def test_dry_run_is_one_plan_per_client_and_changes_nothing(
    capsys: pytest.CaptureFixture[str], home: Path, state: Path, site: Path
) -> None:
    status, out, err = run(
        capsys, "deploy", "claude-code,codex", TOOLS, "--path", str(site), "--dry-run"
    )
    assert status == 0, err
    assert snapshot(home, state) == {}
    assert out.count("Dry run: deploy") == 2
    # the exact entry each file would get, in its format
    assert '"mcpServers": {' in out and '"weather": {' in out
    assert "[mcp_servers.weather]" in out and 'env = {UNITS = "metric"}' in out
    assert "claude-code  would deploy  1 MCP server(s), 1 skill(s)" in out
    assert "Undo:" not in out
    status, out, _ = run(
        capsys, "deploy", "claude-code,codex", TOOLS, "--path", str(site), "--dry-run", "--json"
    )
    data = json.loads(out)
    assert data["ok"] and data["failed"] == []
    plan = data["results"]["codex"]
    assert plan["dry_run"] and plan["mcp_servers"][0]["entry"]["args"] == [
        "-m",
        "weather_tools.server",
    ]
    assert [row["result"] for row in data["summary"]] == ["would deploy", "would deploy"]


def test_one_failing_client_fails_the_command_and_the_summary_says_which(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, tmp_path: Path
) -> None:
    older = fake_site(tmp_path / "older")
    weather(older, "1.1.0")
    assert run(capsys, "deploy", "codex", TOOLS, "--path", str(older))[0] == 0
    status, out, _ = run(
        capsys, "deploy", "cursor,codex,claude-desktop", TOOLS, "--path", str(site)
    )
    assert status == 1
    rows = {line.split()[0]: line for line in out[out.index("CLIENT  ") :].splitlines()[1:4]}
    assert "deployed" in rows["cursor"]
    assert "already deployed" in rows["codex"] and "--upgrade" in rows["codex"]
    # named explicitly, a client that cannot take the tools is a failure, not a skip
    assert "failed: not supported" in rows["claude-desktop"]
    assert "1 of 3 client(s) ok; not done: codex, claude-desktop." in out
    # the others went on: cursor shares codex's identical copy in ~/.agents/skills, which
    # Cursor reads
    (cursor,) = [d for d in deployed() if d.client == "cursor"]
    assert (home / ".agents" / "skills" / "weather-report").is_dir()
    assert not (home / ".cursor" / "skills").exists() and cursor.agent_skills
    # the dry run says the same before anything is written
    status, out, _ = run(
        capsys, "deploy", "cursor,codex", TOOLS, "--path", str(site), "--dry-run", "--json"
    )
    data = json.loads(out)
    assert status == 1 and not data["ok"] and data["failed"] == ["codex"]
    assert [row["result"] for row in data["summary"]] == ["up to date", "would fail"]


def test_unknown_client_in_the_list_fails_before_anything_is_written(
    capsys: pytest.CaptureFixture[str], home: Path, state: Path, site: Path
) -> None:
    status, _, err = run(capsys, "deploy", "claude-code,cusor", TOOLS, "--path", str(site))
    assert status == 1
    assert 'Unknown client "cusor". Did you mean "cursor"?' in err
    assert snapshot(home, state) == {}
    assert run(capsys, "deploy", "claude-code,,cursor", TOOLS)[0] == 2
    status, _, err = run(capsys, "deploy", "claude-code", "cursor", "codex", TOOLS)
    assert status == 2 and "one TARGET separated by commas: claude-code,cursor,codex" in err
    assert run(capsys, "deploy", "claude-code,cursor", TOOLS, "--config", "x.json")[0] == 2


def test_detected_clients_only(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    state: Path,
    site: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # (no client's executable)
    status, _, err = run(capsys, "deploy", "--detected", TOOLS, "--path", str(site))
    assert status == 1 and "No AI client was detected" in err
    (home / ".gemini").mkdir()
    (home / ".gemini" / "settings.json").write_text("{}\n")
    (home / ".cursor").mkdir()
    (home / ".cursor" / "mcp.json").write_text("{}\n")
    status, out, err = run(capsys, "deploy", "--detected", TOOLS, "--path", str(site), "--json")
    assert status == 0, err
    data = json.loads(out)
    assert set(data["results"]) == {"cursor", "gemini-cli"}
    assert not (home / ".claude").exists() and not (home / ".codex").exists()
    assert run(capsys, "deploy", "--detected", "--all-clients")[0] == 2


def test_all_clients_dry_run_and_summary(
    capsys: pytest.CaptureFixture[str], home: Path, state: Path, site: Path
) -> None:
    status, out, err = run(
        capsys, "deploy", "--all-clients", TOOLS, "--path", str(site), "--dry-run"
    )
    assert status == 0, err  # clients without support are skipped, not failed
    assert snapshot(home, state) == {}
    rows = summary(out)
    assert rows["claude-desktop"][0] == "not supported"
    assert rows["claude-code"] == ["would deploy", "1 MCP server(s), 1 skill(s)"]
    assert out.count("Dry run: deploy") == 21
    status, out, err = run(capsys, "deploy", "--all-clients", TOOLS, "--path", str(site))
    assert status == 0, err
    assert "21 deployments" not in out and out.count("Deployed ") == 21
    status, out, _ = run(capsys, "deploy", "--all-clients", TOOLS, "--path", str(site))
    assert status == 0  # every client already has it, identical: nothing to do
    assert out.count("up to date") == 2 * 21 and "22 of 22 client(s) ok" in out


def test_remove_several_ids_goes_on_after_a_failure(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    run(capsys, "deploy", "cursor", TOOLS, "--path", str(site), "--json")
    uid = json.loads(run(capsys, "deployed", "--json")[1])["deployments"][0]["uuid"]
    status, out, _ = run(capsys, "remove", "ffffffff", uid)
    assert status == 1
    assert "Not removed ffffffff" in out and f"Removed deployment {uid}" in out
    assert not (home / ".cursor" / "skills" / "weather-report").exists()


def test_removing_several_ids_warns_only_about_what_remains(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    status, _, err = run(capsys, "deploy", "claude-code,cursor,codex", TOOLS, "--path", str(site))
    assert status == 0, err
    ids = {d.client: d.uuid for d in deployed()}
    # claude-code's removal keeps ~/.claude/skills' copies for cursor; cursor's takes them
    status, _, err = run(capsys, "remove", ids["claude-code"], ids["cursor"], "--json")
    assert status == 0, err
    assert "still use" not in err
    assert not (home / ".claude" / "skills").exists()
    # with cursor left, the warning holds at the end and is given: cursor now shares codex's
    # copy in ~/.agents/skills (the first folder it reads that has one)
    status, _, err = run(capsys, "deploy", "claude-code,cursor", TOOLS, "--path", str(site))
    assert status == 0, err
    ids = {d.client: d.uuid for d in deployed()}
    status, _, err = run(capsys, "remove", ids["claude-code"], ids["codex"])
    assert status == 0, err
    assert err.count("still use it") == 1
    assert (home / ".agents" / "skills" / "weather-report").is_dir()
    assert not (home / ".claude" / "skills").exists()
