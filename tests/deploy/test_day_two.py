"""Day two with real wheels built by hatchling and installed with pip into a real venv: a
bundle deployed to three clients follows its distribution through ``pip install -U``
(``deployed`` says outdated, ``sync`` upgrades), a user's edit (``verify`` names the file,
``sync`` keeps it), ``pip uninstall`` and a deleted venv (orphaned; ``sync --prune`` removes
them and every config file is byte for byte what it was before the first deploy)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from tests.helpers.venvs import create_venv
from tests.helpers.wheels import SAMPLES, build_sample_wheel, build_wheel, tree, wheel_skill_files

pytestmark = pytest.mark.slow

CLIENTS = ("claude-code", "cursor", "codex")


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def files(root: Path) -> dict[str, bytes | None]:
    """Every path under *root*: a file's bytes, None for a directory (but ``.rustup``, which
    this machine's pip writes into whatever HOME it runs with: not agenttools')."""
    return {
        rel: None if p.is_dir() else p.read_bytes()
        for p in sorted(root.rglob("*"))
        if not (rel := p.relative_to(root).as_posix()).startswith(".rustup")
    }


def statuses(capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    data = json.loads(cli(capsys, "deployed", "--json")[1])
    return {d["client"]: d["status"] for d in data["deployments"]}


def results(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, dict[str, str]]:
    code, out, err = cli(capsys, "sync", *argv, "--json")
    assert code == 0, out + err
    return {r["client"]: r for r in json.loads(out)["results"]}


def newer_wheel(tmp_path: Path) -> Path:
    """weather-tools 1.3.0: the sample with one skill changed."""
    project = tmp_path / "weather-tools"
    shutil.copytree(SAMPLES / "weather-tools", project)
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('version = "1.2.0"', 'version = "1.3.0"'))
    report = project / "skills" / "weather-report" / "SKILL.md"
    report.write_text(report.read_text() + "\nNew in 1.3.0.\n")
    return build_wheel(project, tmp_path / "dist")


def test_deployments_follow_their_distribution(
    capsys: pytest.CaptureFixture[str],
    tmp_path_factory: pytest.TempPathFactory,
    tmp_path: Path,
    home: Path,
) -> None:
    old, new = build_sample_wheel("weather-tools", tmp_path_factory), newer_wheel(tmp_path)
    # config files the user already has, and what the home holds before the first deploy
    (home / ".claude.json").write_text('{"numStartups": 3}\n')
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text('# mine\nmodel = "o3"\n\n[profiles.fast]\nx = 1\n')
    before = files(home)
    venv = create_venv(tmp_path / "venv", [old])
    python = str(venv.python)
    target = ",".join(CLIENTS)

    code, out, err = cli(capsys, "deploy", target, "weather-tools", "--python", python)
    assert code == 0, out + err
    code, out, err = cli(capsys, "deploy", target, "weather-tools", "--python", python)
    assert code == 0, err  # the same again: up to date, like pip's "already satisfied"
    assert out.count("up to date") >= 3
    assert statuses(capsys) == dict.fromkeys(CLIENTS, "ok")

    # pip install -U: outdated everywhere; the dry run plans three upgrades and changes nothing
    venv.install(new)
    assert statuses(capsys) == dict.fromkeys(CLIENTS, "outdated")
    out = cli(capsys, "deployed")[1]
    assert out.count("weather-tools 1.3.0 is installed, 1.2.0 is deployed") == 3
    snapshot = files(home)
    planned = results(capsys, "--dry-run")
    assert {c: (r["result"], r["detail"]) for c, r in planned.items()} == dict.fromkeys(
        CLIENTS, ("would upgrade", "1.2.0 -> 1.3.0")
    )
    assert files(home) == snapshot
    done = results(capsys)
    assert {c: r["result"] for c, r in done.items()} == dict.fromkeys(CLIENTS, "upgraded")
    assert statuses(capsys) == dict.fromkeys(CLIENTS, "ok")
    assert cli(capsys, "verify")[0] == 0
    # (Cursor also reads ~/.claude/skills: its deployment uses Claude Code's copy)
    report = home / ".claude" / "skills" / "weather-report"
    assert not (home / ".cursor" / "skills").exists()
    assert tree(report) == wheel_skill_files(new, "weather-report")

    # a user's edit: verify names the file (exit 1); sync leaves it and says why
    skill_md = report / "SKILL.md"
    original = skill_md.read_bytes()
    skill_md.write_bytes(original + b"\nMy note.\n")
    code, out, _ = cli(capsys, "verify")
    assert code == 1 and f"{skill_md}: modified since agenttools wrote it" in out
    assert statuses(capsys) == {"claude-code": "drifted", "cursor": "drifted", "codex": "ok"}
    done = results(capsys)
    for client in ("claude-code", "cursor"):
        assert done[client]["result"] == "skipped" and "drifted" in done[client]["detail"]
    assert skill_md.read_bytes() == original + b"\nMy note.\n"
    skill_md.write_bytes(original)
    assert cli(capsys, "verify")[0] == 0

    # pip uninstall: orphaned; sync --prune --yes removes them, and the home is as it was
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "uninstall", "-y", "weather-tools"],
        check=True,
        capture_output=True,
    )
    assert statuses(capsys) == dict.fromkeys(CLIENTS, "orphaned")
    done = results(capsys, "--prune", "--yes")
    assert {c: r["result"] for c, r in done.items()} == dict.fromkeys(CLIENTS, "removed")
    assert statuses(capsys) == {}
    assert files(home) == before

    # a venv deleted: orphaned, pruned, nothing left
    other = create_venv(tmp_path / "other", [old])
    code, _, err = cli(
        capsys, "deploy", "claude-code", "weather-tools", "--python", str(other.python)
    )
    assert code == 0, err
    shutil.rmtree(other.root)
    assert statuses(capsys) == {"claude-code": "orphaned"}
    out = cli(capsys, "deployed")[1]
    assert f"the interpreter {other.python} it was deployed from is gone" in out
    assert results(capsys, "--prune", "--yes")["claude-code"]["result"] == "removed"
    assert files(home) == before
