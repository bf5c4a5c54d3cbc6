"""The README's first command — set-up plus the main job — works on a clean copy of the repo."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.cache import cache_path

REPO = Path(__file__).resolve().parent.parent


def _first_command() -> str:
    text = (REPO / "README.md").read_text("utf-8")
    blocks = re.findall(r"```sh\n(.*?)\n```", text, flags=re.S)
    return blocks[0].strip()


def test_readme_starts_with_the_two_commands() -> None:
    text = (REPO / "README.md").read_text("utf-8")
    blocks = re.findall(r"```sh\n(.*?)\n```", text, flags=re.S)
    assert "agenttools deploy" in blocks[0]
    assert "pip install -e '.[test]'" in blocks[1] and "pytest" in blocks[1]
    ci = (REPO / ".ci" / "run").read_text("utf-8")
    assert blocks[1].strip() in ci  # CI runs exactly the README's test command


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="the README command is POSIX sh")
def test_readme_main_job_deploys_the_sample(tmp_path: Path, home: Path) -> None:
    tracked = (
        subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
        .stdout.decode()
        .split("\0")
    )
    checkout = tmp_path / "checkout"
    for rel in filter(None, tracked):
        source = REPO / rel
        if source.is_file():
            (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, checkout / rel)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH"))}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p
    )
    # HOME is a temp dir: keep pip's downloads cached across runs in the test cache
    env.setdefault("PIP_CACHE_DIR", str(cache_path("pip")))
    result = subprocess.run(
        ["sh", "-c", _first_command()], cwd=checkout, env=env, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Deployed" in result.stdout
    skills = home / ".claude" / "skills"
    assert (skills / "weather-report" / "SKILL.md").is_file()
    assert '"weather"' in (home / ".claude.json").read_text("utf-8")

    # the same command again succeeds too: the deployment is already what it asks for
    again = subprocess.run(
        ["sh", "-c", _first_command()], cwd=checkout, env=env, capture_output=True, text=True
    )
    assert again.returncode == 0, again.stderr[-3000:]
    assert "already deployed to Claude Code, up to date" in again.stdout
