"""A project end to end, with a real index on loopback (pypiserver), real weather-tools wheels
in 1.2.0 and 1.3.0 and a temporary git repository: ``add`` → ``verify`` → a second clone under
another HOME gets byte-identical files from the lock alone; a new release changes nothing
until ``lock --upgrade``, which moves both clones; a teammate's edit is found by ``verify``
and kept by ``sync``; ``drop`` leaves the tree clean; a sync killed (SIGKILL) at a named
point is finished by the next command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.envs import environments, run, snapshot, use_home
from tests.helpers.index_fixtures import Publishing, Releases
from tests.project_state.conftest import git, notes_plus_wheel, plain_release, write_project

pytestmark = pytest.mark.slow

CLIENTS = ("claude-code", "cursor", "gemini-cli")
COMMITTED = (
    ".mcp.json",
    ".gemini/settings.json",
    ".claude/skills",
    ".cursor/skills",
    ".agents/skills",
)
CHILD = Path(__file__).resolve().parents[1] / "deploy" / "crashing_child.py"


def generated(root: Path) -> list[str]:
    """The files agenttools writes into the project (relative, sorted)."""
    found = []
    for name in COMMITTED:
        path = root / name
        if path.is_file():
            found.append(name)
        elif path.is_dir():
            found += sorted(p.relative_to(root).as_posix() for p in path.rglob("*") if p.is_file())
    return sorted(found)


def remove_generated(root: Path) -> None:
    """What git would give a clone that has none of the generated files."""
    for name in COMMITTED:
        path = root / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    for name in (".claude", ".cursor", ".gemini", ".agents"):
        if (root / name).is_dir() and not os.listdir(root / name):
            (root / name).rmdir()


def diff(a: Path, b: Path) -> str:
    done = subprocess.run(["diff", "-r", "--exclude=.git", str(a), str(b)],
                          capture_output=True, text=True, check=False)  # fmt: skip
    return done.stdout + done.stderr


def status(root: Path) -> str:
    return git(root, "status", "--porcelain", "--untracked-files=all")


def test_add_clone_upgrade_both_and_drop(
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    publishing: Publishing,
    releases: Releases,
) -> None:
    write_project(repo, publishing.server.url(), *CLIENTS)
    added = run(capsys, "add", "weather-tools>=1.2")
    assert added.status == 0, added.err
    assert (
        added.out.splitlines()[0]
        == f"Adding weather-tools>=1.2 to project {repo} (agenttools.toml)"
    )
    text = (repo / "agenttools.toml").read_text()
    assert text.startswith("# the agent tools this project uses\n") and "# ours" in text  # lossless
    assert '[[bundle]]\nrequirement = "weather-tools>=1.2"' in text
    lock_text = (repo / "agenttools.lock").read_text()
    assert 'version = "1.2.0"' in lock_text and "weather_tools-1.2.0-py3-none-any.whl" in lock_text
    assert "metric" not in lock_text  # an entry by its digest: never a value (its settings by name)
    entry = json.loads((repo / ".mcp.json").read_text())["mcpServers"]["weather"]
    assert entry["command"] == "uvx" and "weather-tools==1.2.0" in entry["args"]
    for name in generated(repo):
        content = (repo / name).read_text(encoding="utf-8", errors="replace")
        assert str(tmp_path) not in content, name  # no path of this machine
    verified = run(capsys, "verify")
    assert verified.status == 0, verified.out + verified.err
    assert verified.out.splitlines()[0].startswith(f"Verifying project {repo}")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "agent tools")

    # a teammate: another HOME and state, the generated files not there (written from the lock)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    remove_generated(clone)
    use_home(monkeypatch, tmp_path / "teammate")
    monkeypatch.chdir(clone)
    frozen = run(capsys, "sync", "--frozen")
    assert frozen.status == 0, frozen.err
    assert diff(repo, clone) == "" and status(clone) == ""
    assert run(capsys, "verify").status == 0
    again = run(capsys, "sync", "--locked", "--json")
    assert again.status == 0 and {a["action"] for a in again.json()["actions"]} == {"up to date"}
    (clone / "agenttools.lock").unlink()  # locked again on this machine: the same bytes
    assert run(capsys, "lock").status == 0 and status(clone) == ""

    # a new release: nothing moves until the lock does
    publishing.publish(releases.new)
    monkeypatch.chdir(repo)
    use_home(monkeypatch, tmp_path)
    before = snapshot(repo, tmp_path / "agenttools-state")
    assert run(capsys, "sync", "--frozen").status == 0
    assert snapshot(repo, tmp_path / "agenttools-state") == before  # (this machine's state too)
    upgraded = run(capsys, "lock", "--upgrade")
    assert upgraded.status == 0, upgraded.err
    assert 'version = "1.3.0"' in (repo / "agenttools.lock").read_text()
    synced = run(capsys, "sync")
    assert synced.status == 0, synced.err
    report = repo / ".claude" / "skills" / "weather-report" / "SKILL.md"
    assert "Changed in 1.3.0" in report.read_text()
    assert "weather-tools==1.3.0" in (repo / ".mcp.json").read_text()
    git(repo, "commit", "-q", "-am", "upgrade")

    monkeypatch.chdir(clone)
    use_home(monkeypatch, tmp_path / "teammate")
    git(clone, "pull", "-q", "--ff-only")
    moved = run(capsys, "sync", "--frozen")
    assert moved.status == 0, moved.err
    assert diff(repo, clone) == "" and status(clone) == ""
    assert run(capsys, "verify").status == 0

    # drop: the project is as it started, but for agenttools.toml and agenttools.lock
    monkeypatch.chdir(repo)
    use_home(monkeypatch, tmp_path)
    dropped = run(capsys, "drop", "weather-tools")
    assert dropped.status == 0, dropped.err
    assert generated(repo) == []
    changed = {line[3:] for line in status(repo).splitlines()}
    assert {c for c in changed if not c.startswith(COMMITTED)} == {
        "agenttools.toml",
        "agenttools.lock",
    }


def test_drop_of_the_last_bundle_leaves_a_clean_tree(
    capsys: pytest.CaptureFixture[str], repo: Path, publishing: Publishing
) -> None:
    write_project(repo, publishing.server.url(), "claude-code", "gemini-cli")
    git(repo, "add", "agenttools.toml")
    git(repo, "commit", "-q", "-m", "tools file")
    assert run(capsys, "add", "weather-tools").status == 0
    assert generated(repo)
    done = run(capsys, "drop", "weather-tools")
    assert done.status == 0, done.err
    assert status(repo).split() == ["M", "agenttools.toml", "??", "agenttools.lock"]
    assert (
        generated(repo) == []
        and not (repo / ".claude").exists()
        and not (repo / ".gemini").exists()
    )


def test_a_teammates_edit_is_found_kept_and_their_own_entries_are_theirs(
    capsys: pytest.CaptureFixture[str], repo: Path, publishing: Publishing
) -> None:
    write_project(repo, publishing.server.url(), "claude-code")
    assert run(capsys, "add", "weather-tools").status == 0
    config = repo / ".mcp.json"
    data = json.loads(config.read_text())
    data["mcpServers"]["mine"] = {"command": "my-server"}  # a teammate's own entry: theirs
    config.write_text(json.dumps(data, indent=2))
    assert run(capsys, "verify").status == 0

    skill = repo / ".claude" / "skills" / "weather-report" / "SKILL.md"
    skill.write_text(skill.read_text() + "\nmy own note\n")
    (skill.parent / "notes.txt").write_text("extra\n")
    found = run(capsys, "verify")
    assert found.status == 1
    assert "modified: .claude/skills/weather-report/SKILL.md differs from" in found.out
    assert ".claude/skills/weather-report/notes.txt is in a deployed skill folder" in found.out
    as_json = run(capsys, "verify", "--json").json()
    assert not as_json["ok"]
    assert {(f["path"], f["problem"]) for f in as_json["findings"]} == {
        (".claude/skills/weather-report/SKILL.md", "modified"),
        (".claude/skills/weather-report/notes.txt", "not in the lock"),
    }
    github = run(capsys, "verify", "--format", "github")
    assert github.status == 1
    assert (
        "::error file=.claude/skills/weather-report/SKILL.md,line=1,title=agenttools verify::"
        in github.out
    )

    kept = run(capsys, "sync")
    assert "my own note" in skill.read_text()  # kept by sync ...
    assert kept.status == 1 and "differs from" in kept.out
    forced = run(capsys, "sync", "--force")
    assert forced.status == 0, forced.out + forced.err  # ... unless --force
    assert "my own note" not in skill.read_text()
    assert run(capsys, "verify").status == 0
    assert json.loads(config.read_text())["mcpServers"]["mine"] == {"command": "my-server"}

    data = json.loads(config.read_text())
    data["mcpServers"]["weather"]["env"]["WEATHER_UNITS"] = "imperial"  # a teammate's edit
    config.write_text(json.dumps(data, indent=2))
    edited = run(capsys, "verify", "--format", "github")
    assert edited.status == 1
    assert (
        '::error file=.mcp.json,line=3,title=agenttools verify::the MCP entry "weather"'
        in edited.out
    )
    assert run(capsys, "sync", "--force").status == 0
    assert run(capsys, "verify").status == 0

    global_ = run(capsys, "verify", "--global", "--json")
    assert global_.status == 0 and len(global_.json()["deployments"]) == 1


@pytest.mark.parametrize(
    "point",
    ["envs.receipt@1", "deploy:skills-written@2", "deploy:mcp-written@1", "project:deployed@1"],
)
def test_a_sync_killed_at_a_named_point_is_finished_by_the_next(
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    tmp_path: Path,
    publishing: Publishing,
    point: str,
) -> None:
    write_project(repo, publishing.server.url(), "claude-code", "gemini-cli")
    assert run(capsys, "add", "weather-tools").status == 0
    assert run(capsys, "lock").status == 0
    remove_generated(repo)
    shutil.rmtree(tmp_path / "agenttools-state")
    env = dict(os.environ)
    killed = subprocess.run(
        [sys.executable, str(CHILD), "KILL", f"point:{point}", "sync"],
        cwd=repo, env=env, capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert killed.returncode == -9, killed.stderr
    checked = run(capsys, "verify")  # the next command: what was left is finished or undone
    assert checked.status in (0, 1) and "Traceback" not in checked.err, checked.err
    journal = tmp_path / "agenttools-state" / "deployments" / ".journal"
    assert not journal.is_dir() or os.listdir(journal) == []
    after = run(capsys, "sync")
    assert after.status == 0, after.err
    assert run(capsys, "verify").status == 0
    assert not journal.is_dir() or os.listdir(journal) == []
    records = tmp_path / "agenttools-state" / "deployments"
    assert len([n for n in os.listdir(records) if not n.startswith(".")]) == 2


def test_a_clone_with_the_committed_files_adopts_them_and_its_drop_takes_them_out(
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    publishing: Publishing,
) -> None:
    write_project(repo, publishing.server.url(), "claude-code", "gemini-cli")
    assert run(capsys, "add", "weather-tools").status == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "agent tools")
    written = generated(repo)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    use_home(monkeypatch, tmp_path / "teammate")
    monkeypatch.chdir(clone)
    assert run(capsys, "sync", "--frozen").status == 0
    assert status(clone) == "" and run(capsys, "verify").status == 0

    mine = clone / ".agents" / "skills" / "station-lookup" / "SKILL.md"
    mine.write_text(mine.read_text() + "\nmy note\n")
    done = run(capsys, "drop", "weather-tools")
    assert done.status == 0, done.err
    # what the lock proves agenttools wrote (a teammate's sync) goes; the file changed stays
    assert generated(clone) == [".agents/skills/station-lookup/SKILL.md"]
    lines = sorted(status(clone).splitlines())
    assert lines == sorted(
        [" M agenttools.lock", " M agenttools.toml", " M .agents/skills/station-lookup/SKILL.md"]
        + [f" D {name}" for name in written if name != ".agents/skills/station-lookup/SKILL.md"]
    )


def test_user_scope_bundles_and_an_entry_of_the_users_own(
    capsys: pytest.CaptureFixture[str], repo: Path, home: Path, publishing: Publishing
) -> None:
    write_project(repo, publishing.server.url(), "claude-code",
                  extra='\n[[bundle]]\nrequirement = "weather-tools"\nscope = "user"\n')  # fmt: skip
    done = run(capsys, "sync")
    assert done.status == 0, done.err
    assert "claude-code user weather-tools/weather-tools: deployed" in done.out, done.out + done.err
    entry = json.loads((home / ".claude.json").read_text())["mcpServers"]["weather"]
    assert entry["command"] == "uvx"
    assert (home / ".claude" / "skills" / "weather-report" / "SKILL.md").is_file()
    assert generated(repo) == []  # (nothing in the project: user scope is machine-local)
    lock = (repo / "agenttools.lock").read_text()
    assert 'scope = "user"' in lock and "[[deployment.file]]" not in lock
    assert run(capsys, "verify").status == 0
    assert run(capsys, "drop", "weather-tools").status == 0
    assert not (home / ".claude.json").exists()  # (agenttools made it: it goes with the entry)
    assert not (home / ".claude" / "skills" / "weather-report").exists()

    # the user's own entry under the key a bundle writes: a conflict, theirs kept
    (repo / ".mcp.json").write_text('{"mcpServers": {"weather": {"command": "mine"}}}\n')
    refused = run(capsys, "add", "weather-tools")
    assert refused.status == 1 and "--force" in refused.err
    assert json.loads((repo / ".mcp.json").read_text())["mcpServers"]["weather"] == {
        "command": "mine"
    }


def test_a_managed_environment_pins_its_dependencies_in_the_lock(
    capsys: pytest.CaptureFixture[str], repo: Path, home: Path, publishing: Publishing
) -> None:
    write_project(repo, publishing.server.url(), "claude-code",
                  extra='\n[[bundle]]\nrequirement = "weather-tools"\nscope = "user"\nrunner = "python"\n')  # fmt: skip
    done = run(capsys, "sync")
    assert done.status == 0, done.err
    lock = (repo / "agenttools.lock").read_text()
    assert "[[distribution.dependency]]" in lock and 'name = "mcp"' in lock
    entry = json.loads((home / ".claude.json").read_text())["mcpServers"]["weather"]
    assert entry["command"].endswith("/bin/python") and "envs" in entry["command"]
    assert run(capsys, "sync", "--locked").status == 0
    # a dependency pin the index no longer resolves to: refused, as a changed hash is
    pin = next(
        line for line in lock.splitlines() if line.startswith('version = "') and "1.2.0" not in line
    )
    (repo / "agenttools.lock").write_text(lock.replace(pin, 'version = "0.0.1"', 1))
    refused = run(capsys, "sync", "--frozen", "--force")
    assert refused.status == 1, refused.err
    assert "pins the file" in refused.err and "does not serve it" in refused.err, refused.err


def test_a_frozen_sync_installs_exactly_the_locked_dependencies(
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    publishing: Publishing,
) -> None:
    publishing.publish(notes_plus_wheel(tmp_path_factory))
    write_project(repo, publishing.server.url(), "claude-code",
                  extra='\n[[bundle]]\nrequirement = "notes-plus"\nscope = "user"\nrunner = "python"\n')  # fmt: skip
    assert run(capsys, "sync").status == 0
    lock = (repo / "agenttools.lock").read_text()
    assert 'name = "plain-dist"\nversion = "1.0"' in lock, lock
    newer = plain_release(tmp_path_factory, "1.1")
    publishing.publish(newer)  # what a resolution would pick now

    # a teammate, nothing installed yet: the locked set, not what resolves today
    teammate = tmp_path / "teammate"
    use_home(monkeypatch, teammate)
    frozen = run(capsys, "sync", "--frozen")
    assert frozen.status == 0, frozen.err
    (name,) = environments(teammate / "agenttools-state")
    site = next((teammate / "agenttools-state" / "envs" / name).glob("lib/python*/site-packages"))
    installed = sorted(p.name for p in site.glob("*.dist-info"))
    assert installed == ["notes_plus-1.0.dist-info", "plain_dist-1.0.dist-info"], installed
    assert (repo / "agenttools.lock").read_text() == lock
    assert run(capsys, "sync", "--locked").status == 0  # (as locked: nothing to do)
    assert environments(teammate / "agenttools-state") == [name]

    # the index serves another file under the locked name: refused, nothing installed
    tampered = plain_release(tmp_path_factory, "1.0", marker="tampered")
    served = publishing.directory / tampered.name
    served.unlink()
    served.symlink_to(tampered.resolve())
    third = tmp_path / "third"
    use_home(monkeypatch, third)
    refused = run(capsys, "sync", "--frozen")
    assert refused.status == 1
    assert "Refused: the index" in refused.err and tampered.name in refused.err
    assert "supply-chain change" in refused.err, refused.err
    assert environments(third / "agenttools-state") == []


def test_a_sync_with_nothing_to_do_needs_no_index_and_writes_nothing(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path, publishing: Publishing
) -> None:
    write_project(repo, publishing.server.url(), "claude-code", "gemini-cli")
    assert run(capsys, "add", "weather-tools").status == 0
    publishing.server.stop()
    before = snapshot(repo, tmp_path / "agenttools-state")
    done = run(capsys, "sync", "--locked")
    assert done.status == 0, done.err
    assert done.out.splitlines()[1:3] == [
        "agenttools.lock up to date: weather-tools 1.2.0",
        "claude-code project weather-tools/weather-tools: up to date",
    ]
    assert snapshot(repo, tmp_path / "agenttools-state") == before
