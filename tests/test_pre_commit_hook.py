"""The pre-commit hook (.pre-commit-hooks.yaml) run through ``pre-commit try-repo`` against
sample packages in a scratch git repository: the valid sample passes, the broken one fails
with its messages. pre-commit installs this repository into its own venv (PyPI for the
dependencies), once for both runs: they share PRE_COMMIT_HOME and pin the same commit."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_packages"

pytestmark = pytest.mark.slow


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture(scope="module")
def scratch_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs git and a git checkout of agenttools")
    repo = tmp_path_factory.mktemp("pre-commit-scratch")
    shutil.copytree(SAMPLES / "weather-tools", repo / "weather-tools", symlinks=True)
    shutil.copytree(SAMPLES / "broken", repo / "broken", symlinks=True)
    git(repo, "init", "-q")
    git(repo, "add", "-A", "-f")
    git(repo, "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-q", "-m", "x")
    return repo


def try_repo(repo: Path, home: Path, *files: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home)}
    env.pop("PRE_COMMIT", None)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pre_commit",
            "try-repo",
            str(REPO),
            "agenttools-validate",
            "--ref",
            git(REPO, "rev-parse", "HEAD"),
            "--files",
            *files,
        ],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_pre_commit_try_repo(scratch_repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "pre-commit-home"
    valid = try_repo(
        scratch_repo,
        home,
        "weather-tools/pyproject.toml",
        "weather-tools/skills/weather-report/SKILL.md",
    )
    assert valid.returncode == 0, valid.stdout + valid.stderr
    assert "agenttools validate" in valid.stdout and "Passed" in valid.stdout

    broken = try_repo(
        scratch_repo,
        home,
        "broken/pyproject.toml",
        "broken/skills/colon/SKILL.md",
        "weather-tools/pyproject.toml",
    )
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "Failed" in broken.stdout
    expected = (SAMPLES / "broken" / "expected.txt").read_text(encoding="utf-8").splitlines()
    for line in expected:
        assert f"broken/{line}" in broken.stdout, line
    assert "weather-tools: project valid" in broken.stdout
    # require_serial + one report per project: the broken project is reported once
    assert broken.stdout.count("broken: project invalid") == 1
