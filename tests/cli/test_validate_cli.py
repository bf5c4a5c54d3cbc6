"""``agenttools validate`` (agenttools_runtime/cli/validate.py): exit status, output lines,
--json, one report per project, lone skills."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agenttools_runtime.cli import main

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "sample_packages"


def test_valid_project_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(SAMPLES / "weather-tools")]) == 0
    out = capsys.readouterr().out
    assert out.strip().endswith(
        "weather-tools: project valid "
        "(weather-tools 1.2.0: 1 MCP server, 3 skills, 1 bundle (implicit))"
    )
    assert main(["validate", str(SAMPLES / "multi-bundle"), "--json"]) == 0
    (report,) = json.loads(capsys.readouterr().out)["projects"]
    assert report["name"] == "multi-bundle" and report["bundles"] > 1
    assert not report["implicit_bundle"]


def test_invalid_project_exits_1_with_every_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(SAMPLES / "broken")
    assert main(["validate"]) == 1
    out = capsys.readouterr().out.splitlines()
    expected = (SAMPLES / "broken" / "expected.txt").read_text(encoding="utf-8").splitlines()
    assert out[: len(expected)] == expected
    errors = sum(": warning: " not in line for line in expected)
    assert out[-1] == f"{errors} error(s), {len(expected) - errors} warning(s)"


def test_missing_path_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "/no/such/dir"]) == 2
    assert "no such file or directory" in capsys.readouterr().err


def test_each_project_once_for_many_files(capsys: pytest.CaptureFixture[str]) -> None:
    broken = SAMPLES / "broken"
    paths = [
        broken / "pyproject.toml",
        broken / "skills" / "colon" / "SKILL.md",
        broken / "skills",
        SAMPLES / "weather-tools" / "skills" / "weather-report" / "scripts" / "report.py",
    ]
    assert main(["validate", "--json", *map(str, paths)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] is False
    assert [(Path(p["path"]).name, p["valid"]) for p in data["projects"]] == [
        ("broken", False),
        ("weather-tools", True),
    ]
    problem = data["projects"][0]["problems"][0]
    assert set(problem) == {"path", "line", "code", "message", "severity"}


def test_lone_skill_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    skill = tmp_path / "lone-skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: lone-skill\ndescription: Alone.\n---\nBody\n")
    assert main(["validate", str(skill / "SKILL.md")]) == 0
    assert "skill valid" in capsys.readouterr().out
    (skill / "SKILL.md").write_text("---\nname: other\ndescription: Alone.\n---\nBody\n")
    assert main(["validate", str(skill)]) == 1
    assert "Directory name 'lone-skill' must match skill name 'other'" in capsys.readouterr().out


def test_no_project_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(tmp_path)]) == 1
    assert "NoProject: no pyproject.toml found" in capsys.readouterr().out


def test_console_entry_point(tmp_path: Path) -> None:
    project = tmp_path / "p"
    shutil.copytree(SAMPLES / "broken" / "no-hook", project)
    result = subprocess.run(
        [sys.executable, "-m", "agenttools", "validate", str(project / "pyproject.toml")],
        capture_output=True,
        text=True,
        cwd=project,
    )
    assert result.returncode == 1
    assert result.stdout.splitlines()[0] == (project / "expected.txt").read_text().strip()
    assert "Traceback" not in result.stderr


def test_project_without_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "plain"\nversion = "1"\n')
    assert main(["validate", str(tmp_path)]) == 0
    assert "no [tool.agenttools], nothing to check" in capsys.readouterr().out
    assert main(["validate", "--json", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out)["projects"][0]["kind"] == "unconfigured"


def test_named_skill_md_that_the_project_does_not_bundle_is_still_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What pre-commit passes: every changed SKILL.md, bundled by the project or not."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "plain"\nversion = "1"\n')
    skill = tmp_path / ".claude" / "skills" / "helper"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: Helper\ndescription: Helps.\n---\nBody\n")
    assert main(["validate", str(tmp_path / "pyproject.toml"), str(skill / "SKILL.md")]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "no [tool.agenttools], nothing to check" in out[0]
    assert out[1].endswith("InvalidSkillName: Skill name 'Helper' must be lowercase")
    assert out[1].startswith(f"{skill / 'SKILL.md'}:2: ")
    (skill / "SKILL.md").write_text("---\nname: helper\ndescription: Helps.\n---\nBody\n")
    assert main(["validate", "--json", str(skill)]) == 0
    kinds = [(p["kind"], p["valid"]) for p in json.loads(capsys.readouterr().out)["projects"]]
    assert kinds == [("unconfigured", True), ("skill", True)]


def test_named_skill_the_project_checks_is_reported_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    colon = SAMPLES / "broken" / "skills" / "colon" / "SKILL.md"
    forgotten = SAMPLES / "broken" / "skills" / "forgotten" / "SKILL.md"  # undeclared
    assert main(["validate", "--json", str(colon), str(forgotten)]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [(Path(p["path"]).name, p["kind"]) for p in data["projects"]] == [
        ("broken", "project"),
        ("forgotten", "skill"),
    ]
    colon_problems = [p for p in data["projects"][0]["problems"] if p["path"] == str(colon)]
    assert len(colon_problems) == 1
