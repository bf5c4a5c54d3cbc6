"""Sixteen real ``agenttools`` processes at once on the same client files: ``mcp install``
with distinct names, ``deploy``, ``remove`` and ``skills install``, two rounds. Every
writer holds the one state lock, so none loses another's change: afterwards every record
matches the skill directories and the config file, every ``mcp install`` entry is there,
the user's own entry too, and nothing is left lying around."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agenttools_runtime.clients import get_client
from agenttools_runtime.deploy import deployed
from agenttools_runtime.mcp.install import read_server_entries
from tests.helpers.state import iter_entries
from tests.helpers.venvs import activate, fake_distribution, fake_site, skill_files

from .invariants import inconsistencies, orphans, untracked_skills
from .reliability import child_environment

BUNDLES = 10


def make_site(site: Path) -> None:
    fake_distribution(site, "tools", "1.0", servers={"srv": {"command": "tools-mcp"}})
    for i in range(BUNDLES):
        fake_distribution(
            site,
            f"bundle-{i}",
            "1.0",
            servers={f"srv-{i}": {"command": "bundle-mcp", "args": [str(i)]}},
            skills={
                f"own-{i}": skill_files(f"own-{i}", f"Own skill {i}."),
                "shared": skill_files("shared", "Shared by every bundle."),
            },
        )


def user_skill(root: Path, name: str) -> Path:
    directory = root / name
    directory.mkdir(parents=True)
    (directory / "SKILL.md").write_text(f"---\nname: {name}\ndescription: Mine.\n---\n\nMine.\n")
    return directory


def start(argv: list[str], pycache: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "agenttools", *argv],
        env=child_environment(pycache),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow
def test_sixteen_writers_at_once_lose_nothing(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = fake_site(tmp_path / "site")
    make_site(site)
    activate(monkeypatch, site)  # (the servers' commands: console scripts there)
    pycache = tmp_path / "pycache"
    config = home / ".claude.json"
    config.write_text('{\n  "mcpServers": {\n    "theirs": {"command": "their-server"}\n  }\n}\n')
    sources = tmp_path / "user-skills"
    where = ["--path", str(site)]
    installed_keys: list[str] = []
    installed_skills: list[str] = []
    deployed_bundles: set[str] = set()
    removed: set[str] = set()

    for round_number in range(2):
        # the deployments this round's removers take away: made beforehand, one at a time
        victims = [f"bundle-{i}" for i in range(6 + 2 * round_number, 8 + 2 * round_number)]
        for name in victims:
            if name not in deployed_bundles:
                proc = start(["deploy", "claude-code", name, *where], pycache)
                assert proc.wait(timeout=120) == 0, proc.communicate()[1]
                deployed_bundles.add(name)
        victim_ids = [d.uuid for d in deployed() if d.distribution in victims]
        commands: list[list[str]] = []
        for i in range(5):
            key = f"key-{round_number}-{i}"
            installed_keys.append(key)
            commands.append(["mcp", "install", "claude-code", "tools/srv", "--name", key, *where])
        for i in range(3 * round_number, 3 * round_number + 3):
            name = f"bundle-{i}"
            deployed_bundles.add(name)
            commands.append(["deploy", "claude-code", name, *where])
        commands += [["remove", uid] for uid in victim_ids]
        removed |= set(victims)
        deployed_bundles -= set(victims)
        for i in range(16 - len(commands)):
            name = f"user-{round_number}-{i}"
            installed_skills.append(name)
            commands.append(["skills", "install", "claude-code", str(user_skill(sources, name))])
        assert len(commands) == 16
        procs = [start(argv, pycache) for argv in commands]
        for argv, proc in zip(commands, procs, strict=True):
            _out, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, (argv, err)

    state = Path(os.environ["AGENTTOOLS_HOME"])
    root = home / ".claude" / "skills"
    entries = read_server_entries(config, get_client("claude-code"))
    problems = inconsistencies(state) + untracked_skills([root], state, installed_skills)
    lost = [k for k in installed_keys if k not in entries]
    print(
        f"2 rounds x 16 writers: inconsistencies {len(problems)}, orphans "
        f"{len(orphans(home, state))}, lost mcp install entries {len(lost)}/{len(installed_keys)}"
    )
    assert problems == []
    assert orphans(home, state) == []
    assert "theirs" in entries
    assert lost == []  # no lost mcp install
    listed = {d.distribution for d in deployed()}
    assert listed == deployed_bundles
    for name in deployed_bundles:
        i = name.split("-")[1]
        assert f"srv-{i}" in entries and (root / f"own-{i}" / "SKILL.md").exists()
    for name in removed:
        i = name.split("-")[1]
        assert f"srv-{i}" not in entries and not (root / f"own-{i}").exists()
    for name in installed_skills:
        assert (root / name / "SKILL.md").read_text().endswith("Mine.\n")
    (shared,) = [e for e in iter_entries() if e.name == "shared"]
    assert sorted(shared.references) == sorted(d.uuid for d in deployed())
    json.dumps(entries)  # the config file parses as the client reads it
