"""``agenttools skills install|uninstall`` (cli/skills.py), through main(argv) and a real
subprocess; files asserted on disk under the temporary HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from tests.helpers.skills import make_skill, tree

SAMPLE_SKILL = (
    Path(__file__).resolve().parents[2]
    / "sample_packages"
    / "skills-only"
    / "skills"
    / "commit-message"
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_install_sample_skill_into_claude_code(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "skills", "install", "claude-code", str(SAMPLE_SKILL))
    installed = home / ".claude" / "skills" / "commit-message"
    assert (status, err) == (0, "")
    assert (
        out == f'Successfully installed agent skill "commit-message" for Claude Code: {installed}\n'
    )
    assert tree(installed) == tree(SAMPLE_SKILL)
    assert os.access(installed / "scripts" / "check_commit_message.py", os.X_OK)
    status, out, _ = run(capsys, "skills", "install", "claude-code", str(SAMPLE_SKILL))
    assert status == 0 and "(already installed)" in out


def test_install_json_and_uninstall_json(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "skills", "install", "cursor", str(SAMPLE_SKILL), "--json")
    assert status == 0
    data = json.loads(out)
    location = str(home / ".cursor" / "skills" / "commit-message")
    assert data["ok"] is True
    assert data["results"] == [
        {
            "name": "commit-message",
            "location": location,
            "client": "cursor",
            "action": "created",
            "message": 'Successfully installed agent skill "commit-message" for Cursor.',
        }
    ]
    status, out, _ = run(
        capsys, "skills", "uninstall", "cursor", "commit-message", "absent", "--json"
    )
    assert status == 0
    results = json.loads(out)["results"]
    assert [(r["name"], r["removed"]) for r in results] == [
        ("commit-message", True),
        ("absent", False),
    ]
    assert not Path(location).exists()
    assert (home / ".cursor" / "skills").is_dir()


def test_project_and_skills_dir(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    assert (
        run(capsys, "skills", "install", "codex", str(SAMPLE_SKILL), "--project", str(project))[0]
        == 0
    )
    assert (project / ".agents" / "skills" / "commit-message" / "SKILL.md").is_file()
    custom = tmp_path / "custom"
    assert (
        run(capsys, "skills", "install", "codex", str(SAMPLE_SKILL), "--skills-dir", str(custom))[0]
        == 0
    )
    assert (custom / "commit-message" / "SKILL.md").is_file()
    status, out, _ = run(
        capsys, "skills", "uninstall", "codex", "commit-message", "--skills-dir", str(custom)
    )
    assert status == 0 and out.startswith("Successfully uninstalled")
    assert not (custom / "commit-message").exists()
    assert not (home / ".agents").exists()


def test_uninstall_of_a_skill_folder_undoes_its_install(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # src/x holds the skill "y"; an installed skill "x" of another origin must stay
    root = home / ".claude" / "skills"
    other = make_skill(root, name="x", description="Someone else's.")
    before = tree(other)
    folder = make_skill(tmp_path / "src", name="y")
    folder.rename(tmp_path / "src" / "x")
    monkeypatch.chdir(tmp_path)
    for argument in ("src/x", "src/x/SKILL.md"):
        status, out, _ = run(capsys, "skills", "install", "claude-code", argument)
        assert status == 0 and out.endswith(f"{root / 'y'}\n")
        status, out, _ = run(capsys, "skills", "uninstall", "claude-code", argument)
        assert (status, out) == (0, 'Successfully uninstalled agent skill "y" for Claude Code.\n')
        assert sorted(p.name for p in root.iterdir()) == ["x"]
        assert tree(other) == before


def test_path_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "root"
    status, out, _ = run(capsys, "skills", "install", str(root), str(SAMPLE_SKILL))
    assert status == 0
    assert out.startswith('Successfully installed agent skill "commit-message": ')
    assert (root / "commit-message" / "SKILL.md").is_file()


def test_conflict_then_force_and_upgrade(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = home / ".claude" / "skills"
    make_skill(root, name="commit-message", description="Someone else's.")
    status, out, err = run(capsys, "skills", "install", "claude-code", str(SAMPLE_SKILL))
    assert (status, out) == (1, "")
    assert err == (
        f'agenttools: A different skill named "commit-message" already exists at '
        f'{root / "commit-message"}. Use --force (overwrite="all") to replace it.\n'
    )
    assert "Someone else's." in (root / "commit-message" / "SKILL.md").read_text()
    status, out, _ = run(capsys, "skills", "install", "claude-code", str(SAMPLE_SKILL), "--force")
    assert status == 0 and "(replaced)" in out
    assert tree(root / "commit-message") == tree(SAMPLE_SKILL)
    make_skill(tmp_path / "v2", name="commit-message", description="Version 2.")
    status, _, _ = run(
        capsys,
        "skills",
        "install",
        "claude-code",
        str(tmp_path / "v2" / "commit-message"),
        "--upgrade",
    )
    assert status == 0
    assert "Version 2." in (root / "commit-message" / "SKILL.md").read_text()


def test_force_and_upgrade_are_exclusive(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "skills", "install", "claude-code", "x", "--force", "--upgrade")
    assert status == 2 and "not allowed with" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["install", "nope", str(SAMPLE_SKILL)], 'Unknown client "nope".'),
        (
            ["install", "lm-studio", str(SAMPLE_SKILL)],
            "No automatic agent skill installation support for client LM Studio.",
        ),
        (
            ["install", "claude-code", "./does-not-exist"],
            'No agent skill found for "./does-not-exist".',
        ),
        (
            ["install", "claude-code", str(SAMPLE_SKILL), "--project", "/no/such/dir"],
            "Invalid project directory: /no/such/dir.",
        ),
        (["install", str(SAMPLE_SKILL), str(SAMPLE_SKILL)], "Invalid skills directory:"),
        (["uninstall", "claude-code", ".."], 'Invalid agent skill name "..".'),
        (
            ["install", "claude-code", str(SAMPLE_SKILL), str(SAMPLE_SKILL)],
            'Several skills named "commit-message" were given.',
        ),
    ],
)
def test_user_errors_are_one_line(
    home: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = run(capsys, "skills", *argv)
    assert (status, out) == (1, "")
    assert err.startswith("agenttools: " + message)
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert not (home / ".claude" / "skills").exists()


def test_error_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "skills", "uninstall", "claude-code", "a/../b", "--json")
    assert status == 1
    error = json.loads(out)["error"]
    assert error["tag"] == "InvalidAgentSkillName"


def test_skills_without_subcommand_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "skills")
    assert status == 2 and "install" in out and "uninstall" in out


def test_real_process_no_traceback_and_light_imports(home: Path, tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(home)}
    proc = subprocess.run(
        [sys.executable, "-m", "agenttools", "skills", "install", "windsurf", str(SAMPLE_SKILL)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert (home / ".codeium" / "windsurf" / "skills" / "commit-message" / "SKILL.md").is_file()
    code = (
        "import sys; from agenttools_runtime.cli import build_parser; build_parser(); "
        "print(sorted(m for m in ('yaml', 'agenttools_runtime.skills.install') if m in sys.modules))"
    )
    imported = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert imported.stdout.strip() == "[]"


def test_leftover_backups_are_reported_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "skills"
    leftover = make_skill(tmp_path, name=".agenttools-backup-0f0f", description="Mine.")
    status, _out, err = run(capsys, "skills", "install", str(root), str(SAMPLE_SKILL))
    assert status == 0 and (root / "commit-message" / "SKILL.md").is_file()
    assert "Backups left by an interrupted agenttools operation" in err
    assert str(leftover) in err
    assert leftover.is_dir()  # reported, never deleted
