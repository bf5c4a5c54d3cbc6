"""Deployments after their distributions moved (fake dist-info trees, in-process CLI): the
status of each (ok, outdated, drifted, orphaned, broken), ``verify`` file by file and entry
by entry, ``sync`` with its dry run, kept edits and ``--prune``, removal by selection, and the
identical redeploy that is no conflict."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.deploy import deployed, status
from tests.helpers.venvs import fake_distribution, fake_site, skill_files
from tests.helpers.weather import table, upgrade, weather

TOOLS = "weather-tools/weather-tools"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def results(out: str) -> dict[str, list[str]]:
    """``sync``'s summary table: client -> [result, detail]."""
    lines = out[out.index("ID        CLIENT") :].splitlines()[1:]
    rows = [re.split(r"\s{2,}", line, maxsplit=4) for line in lines if "  " in line]
    return {row[1]: row[3:] for row in rows}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = fake_site(tmp_path / "site")
    weather(path, "1.2.0")
    return path


def test_status_follows_the_distribution(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    for client in ("claude-code", "cursor", "codex"):
        assert run(capsys, "deploy", client, TOOLS, "--path", str(site))[0] == 0
    code, out, _ = run(capsys, "deployed")
    assert code == 0
    rows = table(out)
    assert {c: r[4] for c, r in rows.items()} == dict.fromkeys(
        ["claude-code", "cursor", "codex"], "ok"
    )
    assert rows["cursor"][1:4] == ["user", TOOLS, "1.2.0"]
    assert "3 deployment(s): 3 ok." in out

    upgrade(site, "1.3.0", body="Do more things.")
    code, out, _ = run(capsys, "deployed")
    rows = table(out)
    assert [r[4] for r in rows.values()] == ["outdated"] * 3
    assert "weather-tools 1.3.0 is installed, 1.2.0 is deployed" in out
    assert "'agenttools sync' upgrades the outdated" in out
    data = json.loads(run(capsys, "deployed", "--json")[1])
    assert {d["status"] for d in data["deployments"]} == {"outdated"}
    assert data["deployments"][0]["installed_version"] == "1.3.0"
    assert data["summary"]["outdated"] == 3
    code, out, _ = run(capsys, "deployed", "--long", "cursor")
    assert "version 1.2.0 (1.3.0 installed)" in out and "status: outdated" in out

    # verify: outdated is not ok (exit 1)
    code, out, _ = run(capsys, "verify", "--client", "codex")
    assert code == 1 and out.count(": outdated") == 1


def test_sync_plans_upgrades_keeps_edits_and_says_so(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    # cursor before codex: it shares claude-code's copy (it reads ~/.claude/skills), not the
    # one codex writes into ~/.agents/skills (which it reads too)
    for client in ("claude-code", "cursor", "codex"):
        run(capsys, "deploy", client, TOOLS, "--path", str(site))
    upgrade(site, "1.3.0", body="Do more things.")
    edited = home / ".agents" / "skills" / "weather-report" / "SKILL.md"
    edited.write_text(edited.read_text() + "\nMy own note.\n")

    code, out, _ = run(capsys, "verify")
    assert code == 1
    assert f"{edited}: modified since agenttools wrote it" in out
    data = json.loads(run(capsys, "verify", "--json", "--client", "codex")[1])
    (item,) = data["deployments"]
    assert item["states"] == ["drifted", "outdated"]
    files = [f for f in item["findings"] if f["kind"] == "skill-file"]
    assert files == [
        {
            "state": "drifted",
            "kind": "skill-file",
            "message": f"{edited}: modified since agenttools wrote it",
            "path": str(edited),
            "detail": {"skill": "weather-report", "file": "SKILL.md", "change": "modified"},
        }
    ]

    before = {p: p.read_bytes() for p in (home / ".claude.json", edited)}
    code, out, _ = run(capsys, "sync", "--dry-run")
    assert code == 0
    rows = results(out)
    assert {c: r[0] for c, r in rows.items()} == dict.fromkeys(
        ["claude-code", "codex", "cursor"], "would upgrade"
    )
    assert rows["cursor"][1] == "1.2.0 -> 1.3.0"
    assert rows["codex"][1] == "1.2.0 -> 1.3.0; would keep the modified skill(s) weather-report"
    assert out.count("Dry run: deploy") == 3
    assert {p: p.read_bytes() for p in before} == before  # nothing changed

    code, out, err = run(capsys, "sync")
    assert code == 0, err
    rows = results(out)
    assert [r[0] for r in rows.values()] == ["upgraded"] * 3
    assert rows["codex"][1].endswith(
        "kept the modified skill(s) weather-report (--force replaces them)"
    )
    assert 'The skill "weather-report"' in err and "--force" in err
    assert "My own note." in edited.read_text()  # kept
    assert (
        "Do more things."
        in (home / ".claude" / "skills" / "weather-report" / "SKILL.md").read_text()
    )
    rows = table(run(capsys, "deployed")[1])
    assert rows["claude-code"][3:5] == ["1.3.0", "ok"] and rows["cursor"][4] == "ok"
    assert rows["codex"][4] == "drifted"  # the edit is still theirs
    # a second sync has nothing to do but to say the edit is kept; --force replaces it
    code, out, _ = run(capsys, "sync")
    rows = results(out)
    assert code == 0 and rows["cursor"] == ["skipped", "ok"]
    assert rows["codex"][0] == "up to date" and "kept the modified skill(s)" in rows["codex"][1]
    code, out, err = run(capsys, "sync", "--force")
    assert code == 0, err
    assert "My own note." not in edited.read_text()
    assert {r[4] for r in table(run(capsys, "deployed")[1]).values()} == {"ok"}
    assert run(capsys, "verify")[0] == 0


def test_sync_keeps_the_config_key_given_with_name(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    code, _, err = run(capsys, "deploy", "claude-code", TOOLS, "--path", str(site), "--name", "wx")
    assert code == 0, err
    upgrade(site, "1.3.0")
    code, out, err = run(capsys, "sync")
    assert code == 0, err
    assert results(out)["claude-code"][0] == "upgraded"
    servers = json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert set(servers) == {"wx"}
    [deployment] = deployed()
    assert deployment.config_keys == ["wx"]


def test_entry_drift_and_the_exit_status_of_verify(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    run(capsys, "deploy", "claude-code", TOOLS, "--path", str(site))
    assert run(capsys, "verify")[0] == 0
    config = home / ".claude.json"
    data = json.loads(config.read_text())
    data["mcpServers"]["weather"]["env"]["UNITS"] = "imperial"
    config.write_text(json.dumps(data))
    code, out, _ = run(capsys, "verify")
    assert code == 1
    assert (
        'the MCP server entry "weather"' in out and 'env.UNITS is "imperial", was "metric"' in out
    )
    del data["mcpServers"]["weather"]
    config.write_text(json.dumps(data))
    code, out, _ = run(capsys, "deployed")
    assert table(out)["claude-code"][4] == "drifted"
    assert 'the MCP server entry "weather" is missing' in out


def test_orphaned_when_the_distribution_or_the_environment_is_gone(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    # a venv-shaped environment: its interpreter is a link to this one
    venv = tmp_path / "venv"
    site = venv / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    weather(site, "1.2.0")
    (venv / "pyvenv.cfg").write_text("home = /usr\n")
    (venv / "bin").mkdir()
    os.symlink(sys.executable, venv / "bin" / "python")
    other = fake_site(tmp_path / "other")
    weather(other, "1.2.0")
    run(capsys, "deploy", "cursor", TOOLS, "--path", str(site))
    run(capsys, "deploy", "codex", TOOLS, "--path", str(other))
    (record,) = [d.record for d in deployed("cursor")]
    assert record.agent_tools["environment"]["python"] == str(venv / "bin" / "python")

    shutil.rmtree(next(other.glob("weather_tools-*.dist-info")))  # pip uninstall
    shutil.rmtree(venv)  # the venv deleted
    code, out, _ = run(capsys, "deployed")
    rows = table(out)
    assert rows["codex"][4] == rows["cursor"][4] == "orphaned"
    assert 'the distribution "weather-tools" is no longer installed' in out
    assert f"the interpreter {venv / 'bin' / 'python'} it was deployed from is gone" in out

    # sync without --prune leaves them; --prune without a terminal and without --yes refuses
    code, out, _ = run(capsys, "sync")
    assert code == 0 and [r[0] for r in results(out).values()] == ["skipped"] * 2
    assert "--prune removes it" in out
    code, out, _ = run(capsys, "sync", "--prune")
    assert code == 1 and "stdin or stderr is not a terminal" in out
    assert [r[0] for r in results(out).values()] == ["not removed"] * 2
    assert len(deployed()) == 2
    assert run(capsys, "sync", "--yes")[0] == 2  # --yes confirms --prune only
    code, out, _ = run(capsys, "sync", "--prune", "--yes", "--dry-run")
    assert code == 0 and [r[0] for r in results(out).values()] == ["would remove"] * 2
    assert len(deployed()) == 2
    code, out, err = run(capsys, "sync", "--prune", "--yes")
    assert code == 0, err
    assert [r[0] for r in results(out).values()] == ["removed"] * 2 and deployed() == []
    assert not (home / ".cursor").exists() and not (home / ".codex").exists()


def test_broken_record(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, state: Path
) -> None:
    run(capsys, "deploy", "cursor", TOOLS, "--path", str(site))
    (dep,) = deployed()
    path = state / "deployments" / dep.uuid / "deployment.json"
    path.write_text("{not json")
    code, out, _ = run(capsys, "deployed")
    assert code == 0
    assert dep.uuid[:8] in out and "broken" in out
    # the path, the reason and what can be done
    assert f"{path} cannot be read: " in out and "Repair the file, or delete the directory" in out
    data = json.loads(run(capsys, "deployed", "--json")[1])
    assert data["deployments"][0]["status"] == "broken"
    code, out, _ = run(capsys, "verify")
    assert code == 1 and "broken" in out


def test_editable_copy_is_outdated_when_the_source_changes(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    source = tmp_path / "project"
    skill = skill_files("live-skill", "A live skill.")
    for rel, text in skill["files"].items():
        (source / "skills" / "live-skill").mkdir(parents=True, exist_ok=True)
        (source / "skills" / "live-skill" / rel).write_text(text)
    site = fake_site(tmp_path / "site")
    fake_distribution(site, "live", "0.1.0", skills={"live-skill": skill}, source_root=source)
    assert run(capsys, "deploy", "cursor", "live", "--path", str(site))[0] == 0
    assert table(run(capsys, "deployed")[1])["cursor"][4] == "ok"
    (source / "skills" / "live-skill" / "SKILL.md").write_text(
        skill["files"]["SKILL.md"] + "\nEdited by the author.\n"
    )
    out = run(capsys, "deployed")[1]
    assert table(out)["cursor"][4] == "outdated"
    assert 'the skill "live-skill" of live 0.1.0 has other files than were deployed' in out
    record = deployed()[0].record
    assert status.statuses([record])[0].status == "outdated"


def test_identical_redeploy_is_no_conflict(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, state: Path
) -> None:
    code, out, _ = run(capsys, "deploy", "claude-code", TOOLS, "--path", str(site))
    assert code == 0
    (dep,) = deployed()
    before = (state / "deployments" / dep.uuid / "deployment.json").read_bytes()
    code, out, _ = run(capsys, "deploy", "claude-code", TOOLS, "--path", str(site))
    assert code == 0
    assert out.strip() == (
        f'"{TOOLS}" 1.2.0 is already deployed to Claude Code, up to date '
        f"(deployment {dep.uuid}): nothing to do."
    )
    data = json.loads(run(capsys, "deploy", "claude-code", TOOLS, "--path", str(site), "--json")[1])
    assert data["result"] == "unchanged" and data["deployment"]["uuid"] == dep.uuid
    assert [d.uuid for d in deployed()] == [dep.uuid]
    assert (state / "deployments" / dep.uuid / "deployment.json").read_bytes() == before
    code, out, _ = run(capsys, "deploy", "claude-code", TOOLS, "--path", str(site), "--dry-run")
    assert code == 0 and "already deployed, up to date" in out
    # other content at the same version: a conflict that says so
    upgrade(site, "1.2.0", body="Rebuilt.")
    code, _, err = run(capsys, "deploy", "claude-code", TOOLS, "--path", str(site))
    assert code == 1 and "with other files (the skill " in err
    code, out, _ = run(capsys, "deploy", "claude-code", TOOLS, "--path", str(site), "--json")
    assert json.loads(out)["error"]["tag"] == "DeploymentDiffers"


def test_remove_by_selection(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, tmp_path: Path
) -> None:
    other = fake_site(tmp_path / "other")
    fake_distribution(other, "notes", "2.0", skills={"note-taking": skill_files("note-taking")})
    for client in ("claude-code", "cursor", "codex"):
        run(capsys, "deploy", client, TOOLS, "--path", str(site))
        run(capsys, "deploy", client, "notes", "--path", str(other))
    assert len(deployed()) == 6

    code, out, _ = run(capsys, "remove", "--client", "cursor", "--dry-run")
    assert code == 0 and out.count("Would remove deployment") == 2 and len(deployed()) == 6
    code, out, _ = run(capsys, "remove", "--client", "cursor")
    assert code == 0 and out.count("Removed deployment") == 2
    assert {d.client for d in deployed()} == {"claude-code", "codex"}
    assert not (home / ".cursor").exists()

    data = json.loads(run(capsys, "remove", "--bundle", "notes", "--dry-run", "--json")[1])
    assert [d["bundle"] for d in data["deployments"]] == ["notes/notes", "notes/notes"]
    code, out, _ = run(capsys, "remove", "--bundle", "notes")
    assert code == 0 and {d.toolset for d in deployed()} == {TOOLS}
    code, out, _ = run(capsys, "remove", "--bundle", "weather-tools", "--client", "codex")
    assert code == 0 and [d.client for d in deployed()] == ["claude-code"]

    assert run(capsys, "remove")[0] == 2
    assert run(capsys, "remove", "--all", "--client", "cursor")[0] == 2
    code, out, _ = run(capsys, "remove", "--all")
    assert code == 0 and deployed() == []
    assert sorted(p.name for p in home.iterdir() if p.name != ".rustup") == []
    code, out, _ = run(capsys, "remove", "--all")
    assert code == 0 and "No deployment matches." in out


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX")
@pytest.mark.parametrize(("answer", "removed"), [(b"y\n", True), (b"\n", False)])
def test_prune_asks_on_a_terminal(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, answer: bytes, removed: bool
) -> None:
    from tests.helpers.terminal import run_on_terminal

    run(capsys, "deploy", "cursor", TOOLS, "--path", str(site))
    shutil.rmtree(next(site.glob("weather_tools-*.dist-info")))  # pip uninstall
    (dep,) = deployed()
    # stdin and stderr are a terminal: sync asks on stderr and reads the answer
    done = run_on_terminal(["sync", "--prune"], terminal=("stdin", "stderr"), answer=answer)
    assert done.asked_on == "terminal"
    assert f"1 orphaned deployment(s) would be removed:\r\n  {dep.uuid}  cursor {TOOLS}" in (
        done.terminal
    )
    assert "Remove them? [y/N] " in done.terminal
    if removed:
        assert done.status == 0 and deployed() == [] and "removed" in done.stdout
        assert not (home / ".cursor").exists()
    else:
        assert done.status == 1 and len(deployed()) == 1
        assert "Orphaned deployments were not removed: not confirmed." in done.stdout


def test_yes_without_prune_is_refused_inside_a_project_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A project sync asks nothing, so ``--yes`` confirms nothing there either: refused as
    outside one, not taken silently."""
    (tmp_path / "agenttools.toml").write_text('[agenttools]\nclients = ["cursor"]\n')
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "sync", "--yes")
    assert code == 2 and "--yes confirms --prune; give --prune too" in err
    assert run(capsys, "sync")[0] == 0  # (the same project, without --yes)
