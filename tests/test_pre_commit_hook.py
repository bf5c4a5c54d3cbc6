"""The pre-commit hook (.pre-commit-hooks.yaml) as a user runs it: a scratch git repository
with sample packages and a ``.pre-commit-config.yaml`` naming this repository at its HEAD
commit, then ``pre-commit run --files``: the valid sample passes, the broken one fails with its
messages. pre-commit installs this repository into its own venv (the package index for the
dependencies) once per commit: its store is kept in the test cache (tests/helpers/cache.py),
so both runs here, and later test runs at the same commit, reuse it; ``pre-commit gc`` then
drops the environments no live scratch repository uses."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cache import cache_path

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
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {REPO}\n  rev: {git(REPO, 'rev-parse', 'HEAD')}\n"
        "  hooks:\n  - id: agenttools-validate\n"
    )
    git(repo, "init", "-q")
    git(repo, "add", "-A", "-f")
    git(repo, "-c", "user.email=t@example.org", "-c", "user.name=t", "commit", "-q", "-m", "x")
    return repo


def pre_commit(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(cache_path("pre-commit"))}
    env.pop("PRE_COMMIT", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def run_hook(repo: Path, *files: str) -> subprocess.CompletedProcess[str]:
    return pre_commit(repo, "run", "--files", *files)


def test_pre_commit_runs_the_hook(scratch_repo: Path) -> None:
    valid = run_hook(
        scratch_repo,
        "weather-tools/pyproject.toml",
        "weather-tools/skills/weather-report/SKILL.md",
    )
    assert valid.returncode == 0, valid.stdout + valid.stderr
    assert "agenttools validate" in valid.stdout and "Passed" in valid.stdout

    broken = run_hook(
        scratch_repo,
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
    collected = pre_commit(scratch_repo, "gc")  # the store keeps what live configs use
    assert collected.returncode == 0, collected.stdout + collected.stderr
