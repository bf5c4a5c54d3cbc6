"""``verify --format github`` outside a project: the machine-wide check gives one GitHub
Actions annotation per finding too (on the file, relative to the workspace when inside it),
then its summary; ``--json`` still wins."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.envs import run
from tests.helpers.venvs import fake_distribution, skill_files


def test_machine_wide_verify_annotates_each_finding_on_its_file(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    site = tmp_path / "site-packages"
    fake_distribution(
        site, "notes", skills={"notes": skill_files("notes", "Notes.", {"a.md": "a\n"})}
    )
    deployed = run(capsys, "deploy", "claude-code", "notes", "--path", str(site))
    assert deployed.status == 0, deployed.err
    monkeypatch.chdir(home)  # (no agenttools.toml here or above: the machine-wide meaning)

    clean = run(capsys, "verify", "--format", "github")
    assert clean.status == 0, clean.out + clean.err
    assert "::error" not in clean.out and "1 deployment(s): 1 ok" in clean.out, clean.out

    edited = home / ".claude" / "skills" / "notes" / "a.md"
    edited.write_text("changed\n")
    found = run(capsys, "verify", "--format", "github")
    assert found.status == 1
    lines = found.out.splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == 1, found.out
    assert errors[0].startswith(
        "::error file=.claude/skills/notes/a.md,title=agenttools verify::"
    ), errors[0]
    assert "claude-code notes" in errors[0] and "\n" not in errors[0]
    assert lines[-1].startswith("1 deployment(s): ") and "1 drifted" in lines[-1], lines[-1]

    as_json = run(capsys, "verify", "--format", "github", "--json")
    assert as_json.status == 1 and as_json.json()["ok"] is False
