"""``agenttools deployed`` (fake dist-info trees, in-process CLI, real files): every status
is computed when the command runs, so every kind of change shows at once, in the table and
in ``--json``."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.deploy import deployed
from tests.helpers.venvs import fake_site
from tests.helpers.weather import table, upgrade, weather

TOOLS = "weather-tools/weather-tools"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def shown(capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """client -> status, as the table shows it."""
    return {client: row[4] for client, row in table(run(capsys, "deployed")[1]).items()}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = fake_site(tmp_path / "site")
    weather(path, "1.2.0")
    return path


def test_every_kind_of_change_shows_at_once(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    site: Path,
    state: Path,
    tmp_path: Path,
) -> None:
    for client in ("claude-code", "cursor", "codex"):
        assert run(capsys, "deploy", client, TOOLS, "--path", str(site))[0] == 0
    assert shown(capsys) == dict.fromkeys(["claude-code", "cursor", "codex"], "ok")

    # a file added to a skill directory
    extra = home / ".claude" / "skills" / "weather-report" / "notes.txt"
    extra.write_text("mine\n")
    assert shown(capsys)["claude-code"] == "drifted"
    extra.unlink()
    assert shown(capsys)["claude-code"] == "ok"

    # a config entry edited by the user
    config = home / ".cursor" / "mcp.json"
    data = json.loads(config.read_text())
    data["mcpServers"]["weather"]["env"]["UNITS"] = "imperial"
    config.write_text(json.dumps(data))
    assert shown(capsys)["cursor"] == "drifted"
    data["mcpServers"]["weather"]["env"]["UNITS"] = "metric"
    config.write_text(json.dumps(data, indent=2))
    assert shown(capsys)["cursor"] == "ok"

    # pip install -U, then pip uninstall
    upgrade(site, "1.3.0", body="Do more things.")
    assert set(shown(capsys).values()) == {"outdated"}
    assert run(capsys, "sync")[0] == 0
    assert set(shown(capsys).values()) == {"ok"}
    shutil.rmtree(next(site.glob("weather_tools-*.dist-info")))
    assert set(shown(capsys).values()) == {"orphaned"}
    weather(site, "1.3.0", body="Do more things.")
    assert set(shown(capsys).values()) == {"ok"}

    # a record removed, one added, one that no longer parses
    (codex,) = [d for d in deployed() if d.client == "codex"]
    assert run(capsys, "remove", codex.uuid)[0] == 0
    assert set(shown(capsys)) == {"claude-code", "cursor"}
    assert run(capsys, "deploy", "gemini-cli", TOOLS, "--path", str(site))[0] == 0
    assert shown(capsys)["gemini-cli"] == "ok"
    (cursor,) = [d for d in deployed() if d.client == "cursor"]
    (state / "deployments" / cursor.uuid / "deployment.json").write_text("{not json")
    out = run(capsys, "deployed")[1]
    assert f"{cursor.uuid[:8]}  ?" in out and "broken" in out


def test_the_interpreter_gone_shows_at_once(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    venv = tmp_path / "venv"
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    weather(site, "1.2.0")
    (venv / "pyvenv.cfg").write_text("home = /usr\n")
    (venv / "bin").mkdir()
    os.symlink(sys.executable, venv / "bin" / "python")
    assert run(capsys, "deploy", "cursor", TOOLS, "--path", str(site))[0] == 0
    assert shown(capsys) == {"cursor": "ok"}
    shutil.rmtree(venv)
    assert shown(capsys) == {"cursor": "orphaned"}


def test_an_editable_install_is_read_live(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    from tests.helpers.venvs import fake_distribution, skill_files

    source = tmp_path / "project"
    skill = skill_files("live-skill", "A live skill.")
    for rel, text in skill["files"].items():
        (source / "skills" / "live-skill").mkdir(parents=True, exist_ok=True)
        (source / "skills" / "live-skill" / rel).write_text(text)
    site = fake_site(tmp_path / "site")
    fake_distribution(site, "live", "0.1.0", skills={"live-skill": skill}, source_root=source)
    assert run(capsys, "deploy", "cursor", "live", "--path", str(site))[0] == 0
    assert shown(capsys) == {"cursor": "ok"}
    live = source / "skills" / "live-skill" / "SKILL.md"
    live.write_text(live.read_text() + "\nEdited by the author.\n")
    assert shown(capsys) == {"cursor": "outdated"}


def test_json_shows_each_record_and_status_in_full(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, state: Path
) -> None:
    from agenttools_runtime.deploy import Deployment, status

    # cursor first: its own copy (Cursor also reads ~/.agents/skills, which codex's deployment
    # writes and gemini-cli's shares)
    for client in ("cursor", "codex", "gemini-cli"):
        assert run(capsys, "deploy", client, TOOLS, "--path", str(site))[0] == 0
    skill_md = home / ".cursor" / "skills" / "weather-report" / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\nMine.\n")  # drifted, with its findings
    (gemini,) = [d for d in deployed() if d.client == "gemini-cli"]
    (state / "deployments" / gemini.uuid / "deployment.json").write_text("{not json")

    def computed() -> list[dict[str, object]]:
        # every record in full with its status, computed through the library
        found = []
        for item in status.statuses(status.load_all()):
            data = Deployment(item.record).to_json() if item.record else {"uuid": item.uuid}
            found.append({**data, **item.to_json()})
        return json.loads(json.dumps(found, default=str))

    def as_json() -> dict[str, object]:
        code, out, _ = run(capsys, "deployed", "--json")
        assert code == 0
        return json.loads(out)  # type: ignore[no-any-return]

    expected = computed()
    # cursor and codex, deployed within one timestamp tick, are ordered by uuid: either way
    assert sorted(d["status"] for d in expected[:2]) == ["drifted", "ok"]
    assert expected[2]["status"] == "broken"
    shown_json = as_json()
    assert shown_json["deployments"] == expected
    assert shown_json["summary"] == {
        "ok": 1, "outdated": 0, "drifted": 1, "orphaned": 0, "broken": 1
    }  # fmt: skip
    statuses = {d["uuid"][:8]: d["status"] for d in shown_json["deployments"]}  # type: ignore[index]
    rows = table(run(capsys, "deployed")[1])
    assert {row[0]: row[4] for row in rows.values()} == statuses
    skill_md.write_text(skill_md.read_text().replace("\nMine.\n", ""))
    cursor = next(d for d in as_json()["deployments"] if d["client"] == "cursor")  # type: ignore[index]
    assert cursor["status"] == "ok" and cursor["findings"] == []
