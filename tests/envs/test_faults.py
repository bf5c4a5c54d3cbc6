"""Every fault of ``deploy --install`` and ``show --index`` is one clear line, and nothing is
changed: the index refusing connections or never answering, no such distribution, no such
version, a distribution without agent tools, a resolution conflict, a hash mismatch, a full
disk, not asked to install; and a process killed (SIGKILL) at the named points of creating or
upgrading an environment, followed by the next command."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.envs import claude_entry, environments, initialize, leftovers, run, snapshot
from tests.helpers.faults import inject
from tests.helpers.index import IndexServer, SilentServer, plain_wheel
from tests.helpers.index_fixtures import Publishing, Releases
from tests.helpers.wheels import REPO, build_wheel

pytestmark = pytest.mark.slow
CHILD = REPO / "tests" / "deploy" / "crashing_child.py"


def state_of(tmp_path: Path) -> Path:
    return tmp_path / "agenttools-state"


def unchanged_by(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> str:
    """Run *argv*, which must fail with one line on stderr and change nothing; that line."""
    roots = (tmp_path / "home", state_of(tmp_path))
    for root in roots:
        root.mkdir(parents=True, exist_ok=True)
    before = snapshot(*roots)
    done = run(capsys, *argv)
    assert done.status == 1, (argv, done.out, done.err)
    lines = [line for line in done.err.splitlines() if line.strip()]
    assert len(lines) == 1, done.err
    assert "Traceback" not in done.err
    assert snapshot(*roots) == before
    assert environments(state_of(tmp_path)) == [] and leftovers(state_of(tmp_path)) == []
    return lines[0]


def test_an_index_that_refuses_or_never_answers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused = "http://user:hunter2@127.0.0.1:9/simple/"
    line = unchanged_by(
        capsys, tmp_path, "deploy", "claude-code", "weather-tools", "-i", refused, "--install"
    )
    assert "http://127.0.0.1:9/simple/" in line and "hunter2" not in line
    assert "Cannot reach the package index" in line
    line = unchanged_by(capsys, tmp_path, "show", "weather-tools", "--index", "-i", refused)
    assert "Cannot reach the package index http://127.0.0.1:9/simple/" in line
    silent = SilentServer()
    monkeypatch.setenv("UV_HTTP_TIMEOUT", "2")
    monkeypatch.setenv("UV_HTTP_RETRIES", "0")
    monkeypatch.setenv("PIP_DEFAULT_TIMEOUT", "2")
    try:
        line = unchanged_by(
            capsys,
            tmp_path,
            "deploy",
            "claude-code",
            "weather-tools",
            "-i",
            silent.url,
            "--install",
        )
        assert silent.url in line and "no answer within 2 seconds" in line
        line = unchanged_by(capsys, tmp_path, "show", "weather-tools", "--index", "-i", silent.url)
        assert "no answer within 2 seconds" in line
    finally:
        silent.close()


def test_what_the_index_does_not_have(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, old_index: IndexServer
) -> None:
    url = old_index.url()
    line = unchanged_by(
        capsys, tmp_path, "deploy", "claude-code", "no-such-dist", "-i", url, "--install"
    )
    assert "no-such-dist" in line and "not found" in line
    line = unchanged_by(
        capsys, tmp_path, "deploy", "claude-code", "weather-tools==9.9", "-i", url, "--install"
    )
    assert "weather-tools==9.9" in line
    line = unchanged_by(capsys, tmp_path, "show", "no-such-dist", "--index", "-i", url)
    assert line == f"agenttools: No distribution named no-such-dist on {url}"
    line = unchanged_by(capsys, tmp_path, "show", "weather-tools>=2", "--index", "-i", url)
    assert "satisfies weather-tools>=2 (it has: 1.2.0)" in line


def test_a_distribution_without_agent_tools_keeps_no_environment(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, old_index: IndexServer
) -> None:
    line = unchanged_by(
        capsys, tmp_path, "deploy", "claude-code", "plain-dist", "-i", old_index.url(), "--install"
    )
    assert (
        line
        == "agenttools: plain-dist 1.0 ships no agent tools: nothing to deploy (no environment was kept)"
    )


def test_a_resolution_conflict_and_a_hash_mismatch(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    wheelhouse: Path,
    releases: Releases,
) -> None:
    project = tmp_path / "conflicted"
    (project / "conflicted").mkdir(parents=True)
    (project / "conflicted" / "__init__.py").write_text("")
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
        '[project]\nname = "conflicted"\nversion = "1.0"\n'
        'dependencies = ["weather-tools==1.2.0", "weather-tools>=1.3"]\n'
    )
    links = tmp_path / "links"
    links.mkdir()
    wheel = build_wheel(project, links)
    for found in wheelhouse.iterdir():
        (links / found.name).symlink_to(found.resolve())
    line = unchanged_by(capsys, tmp_path, "deploy", "claude-code", "conflicted", "--no-index",
                        "--find-links", str(links), "--install")  # fmt: skip
    assert "weather-tools" in line and "conflicted" in line
    assert wheel.exists()
    # a page of links whose published hash is not the file's (the rest from a directory)
    page = tmp_path / "bad-links.html"
    target = releases.old.resolve()
    page.write_text(f'<a href="{target.as_uri()}#sha256={"0" * 64}">{target.name}</a>\n')
    rest = tmp_path / "rest"
    rest.mkdir()
    for found in wheelhouse.iterdir():
        if not found.name.startswith("weather_tools"):
            (rest / found.name).symlink_to(found.resolve())
    line = unchanged_by(capsys, tmp_path, "deploy", "claude-code", "weather-tools", "--no-index",
                        "--find-links", str(page), "--find-links", str(rest), "--install")  # fmt: skip
    assert "hash" in line.lower()


def test_a_full_disk(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, old_index: IndexServer
) -> None:
    def full(operation: str, path: Path) -> BaseException:
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    with inject(fail_at_checkpoint="envs.installed", exception=full):
        line = unchanged_by(
            capsys,
            tmp_path,
            "deploy",
            "claude-code",
            "weather-tools",
            "-i",
            old_index.url(),
            "--install",
        )
    assert "No space left on device" in line


def test_not_installed_and_not_asked_names_the_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    line = unchanged_by(
        capsys,
        tmp_path,
        "deploy",
        "claude-code,cursor",
        "weather-tools==1.2.0",
        "--index-url",
        "https://idx.example/simple",
    )
    assert line.endswith(
        "agenttools deploy claude-code,cursor weather-tools==1.2.0 --index-url https://idx.example/simple --install"
    )


def test_the_command_named_is_the_users_with_install(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The options that change what the deploy does stay in the command named (the start
    check, the settings' values and files, --json); an --env is masked whole, since only the
    bundle, not installed, says whether it is a secret, and a secret typed without its name
    (base64 padding: '=' in it) reads as a name."""
    env_file = tmp_path / "weather.env"
    env_file.write_text("FORECAST_UNITS=metric\n", encoding="utf-8")
    argv = ("deploy", "claude-code", "weather-tools", "--env", "FORECAST_API_KEY=s3cret")
    typed_alone = "c2VjcmV0LXRva2VuLTEyMzQ1Njc4OQ=="
    more = ("--env", typed_alone, "--env-file", str(env_file), "--no-check")
    line = unchanged_by(capsys, tmp_path, *argv, *more)
    assert "s3cret" not in line and "c2VjcmV0" not in line and "FORECAST_API_KEY" not in line
    assert line.endswith(
        f"agenttools deploy claude-code weather-tools --env-file {env_file} "
        "--env '*****' --env '*****' --no-check --install"
    )
    done = run(capsys, *argv, "--check", "--json")
    assert done.status == 1 and "s3cret" not in done.out
    assert json.loads(done.out)["error"]["command"] == (
        "agenttools deploy claude-code weather-tools --env '*****' --json --check --install"
    )


@pytest.mark.parametrize("given", ["s3cret", "=s3cret", " =s3cret"])
def test_a_malformed_env_is_refused_before_a_command_is_named(
    capsys: pytest.CaptureFixture[str], given: str
) -> None:
    """A value typed without its name is never shown, not even in the command named."""
    done = run(capsys, "deploy", "claude-code", "weather-tools", "--env", "A=1", "--env", given)
    assert done.status == 2
    assert "s3cret" not in done.out + done.err
    assert "--env #2 is not NAME=VALUE" in done.err


def test_a_wheel_without_agent_tools_shown(
    capsys: pytest.CaptureFixture[str], tmp_path_factory: pytest.TempPathFactory, tmp_path: Path
) -> None:
    done = run(capsys, "show", str(plain_wheel(tmp_path_factory)), "--index")
    assert done.status == 1 and "plain-dist 1.0 ships no agent tools" in done.out


# -- kills -----------------------------------------------------------------------------------


def kill_at(point: str, *argv: str, signal: str = "KILL") -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, str(CHILD), signal, f"point:{point}", *argv],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ),
    )
    if signal == "KILL":
        assert done.returncode == -9, (point, done.returncode, done.stderr)
    return done


def test_ctrl_c_during_creation_leaves_nothing(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, old_index: IndexServer
) -> None:
    done = kill_at("envs.created", "deploy", "claude-code", "weather-tools", "-i",
                   old_index.url(), "--install", signal="INT")  # fmt: skip
    assert done.returncode == 130, done.stderr
    assert "interrupted" in done.stderr and "Traceback" not in done.stderr
    assert environments(state_of(tmp_path)) == [] and leftovers(state_of(tmp_path)) == []


@pytest.mark.parametrize("point", ["envs.create", "envs.created", "envs.installed", "envs.receipt"])
def test_killed_during_creation_the_next_command_removes_it(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    old_index: IndexServer,
    point: str,
) -> None:
    kill_at(point, "deploy", "claude-code", "weather-tools", "-i", old_index.url(), "--install")
    done = run(capsys, "envs", "--json")
    assert done.status == 0
    assert done.json()["environments"] == []
    assert environments(state_of(tmp_path)) == [] and leftovers(state_of(tmp_path)) == []
    assert "An interrupted install of weather-tools-1.2.0-" in done.err
    assert (
        not (home / ".claude.json").exists() or "weather" not in (home / ".claude.json").read_text()
    )
    # and the install works afterwards
    assert (
        run(
            capsys, "deploy", "claude-code", "weather-tools", "-i", old_index.url(), "--install"
        ).status
        == 0
    )


@pytest.mark.parametrize(
    "command", [["deployed"], ["remove", "--all", "--dry-run"], ["verify"]], ids=" ".join
)
def test_killed_during_creation_a_command_that_reads_deployments_removes_it_first(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    old_index: IndexServer,
    command: list[str],
) -> None:
    install = ("deploy", "claude-code", "weather-tools", "-i", old_index.url(), "--install")
    kill_at("envs.installed", *install)
    assert environments(state_of(tmp_path)) != []
    project = tmp_path / "project"  # (verify inside a project: the project's verify)
    project.mkdir()
    (project / "agenttools.toml").write_text('[agenttools]\nclients = ["claude-code"]\n')
    monkeypatch.chdir(project)
    done = run(capsys, *command)
    assert "An interrupted install of weather-tools-1.2.0-" in done.err
    assert environments(state_of(tmp_path)) == [] and leftovers(state_of(tmp_path)) == []


@pytest.mark.parametrize("point", ["envs.receipt", "envs.remove"])
def test_killed_during_an_upgrade_the_deployment_keeps_working(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    publishing: Publishing,
    releases: Releases,
    point: str,
) -> None:
    assert (
        run(
            capsys,
            "deploy",
            "claude-code",
            "weather-tools",
            "-i",
            publishing.server.url(),
            "--install",
        ).status
        == 0
    )
    (old,) = environments(state_of(tmp_path))
    publishing.publish(releases.new)
    kill_at(point, "sync", "--upgrade")
    assert run(capsys, "deployed", "--json").status == 0
    after = run(capsys, "envs", "--json")
    names = [e["name"] for e in after.json()["environments"]]
    assert leftovers(state_of(tmp_path)) == []
    entry = claude_entry(home)
    if point == "envs.receipt":  # before the switch: the old environment, as it was
        assert names == [old]
    else:  # killed removing the old one: switched, the old one's remains deleted
        assert len(names) == 1 and names[0].startswith("weather-tools-1.3.0-")
    assert entry["command"].startswith(str(state_of(tmp_path) / "envs" / names[0]))
    assert (
        initialize([entry["command"], *entry["args"]], entry.get("env"))["serverInfo"]["name"]
        == "weather"
    )


@pytest.mark.parametrize("first", ["envs", "deployed"])
def test_killed_once_an_upgrade_is_committed_whichever_command_comes_next_removes_the_old_one(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    publishing: Publishing,
    releases: Releases,
    first: str,
) -> None:
    install = ("deploy", "claude-code", "weather-tools", "-i", publishing.server.url(), "--install")
    assert run(capsys, *install).status == 0
    publishing.publish(releases.new)
    # the new deployment's record is in place; the one it replaces is not removed yet
    kill_at("deploy:record-written", "sync", "--upgrade")
    assert run(capsys, first, "--json").status == 0
    after = run(capsys, "envs", "--json")
    names = [e["name"] for e in after.json()["environments"]]
    assert len(names) == 1 and names[0].startswith("weather-tools-1.3.0-"), names
    assert leftovers(state_of(tmp_path)) == []
    assert claude_entry(home)["command"].startswith(str(state_of(tmp_path) / "envs" / names[0]))


# -- a journal that cannot be read -------------------------------------------------------------


def _damaged(field: str, value: object) -> Callable[[bytes], bytes]:
    def damage(data: bytes) -> bytes:
        return json.dumps({**json.loads(data), field: value}).encode()

    return damage


DAMAGES: dict[str, Callable[[bytes], bytes]] = {
    "not JSON": lambda data: b"\xff" + data[:40],
    "a wrong type": _damaged("pid", "1234"),
    "an unknown kind": _damaged("kind", "transmogrify"),
    "a path in replaces": _damaged("replaces", ["../../home"]),
}


def agenttools(*argv: str) -> subprocess.CompletedProcess[str]:
    """``agenttools ARGV`` in a process of its own (what warns once per process is seen)."""
    return subprocess.run([sys.executable, "-m", "agenttools", *argv], capture_output=True,
                          text=True, timeout=600, env=dict(os.environ))  # fmt: skip


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_an_unreadable_journal_is_reported_and_keeps_its_environment(
    home: Path, tmp_path: Path, old_index: IndexServer, damage: str
) -> None:
    kill_at("envs.receipt", "deploy", "claude-code", "weather-tools", "-i", old_index.url(),
            "--install")  # fmt: skip
    state = state_of(tmp_path)
    (name,) = environments(state)
    (journal,) = (state / "envs" / ".journal").iterdir()
    journal.write_bytes(DAMAGES[damage](journal.read_bytes()))
    damaged = journal.read_bytes()

    # every command says so, once, and leaves the journal and its environment alone
    for argv in (["envs", "--json"], ["deployed"], ["remove", "--all"]):
        done = agenttools(*argv)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.count(str(journal)) == 1, done.stderr
        assert "cannot be read" in done.stderr and name in done.stderr
        assert "'agenttools doctor --fix' sets it aside" in done.stderr
        assert environments(state) == [name] and journal.read_bytes() == damaged

    # doctor names it; --fix sets it aside (never deletes it, nor the environment it names)
    found = agenttools("doctor", "--json")
    assert found.returncode == 1
    (finding,) = json.loads(found.stdout)["environments"]["findings"]
    assert finding["kind"] == "unreadable journal" and finding["path"] == str(journal)
    assert finding["fixable"] and name in finding["message"]
    fixed = agenttools("doctor", "--fix", "--json")
    assert fixed.returncode == 1 and fixed.stderr.count(str(journal)) == 1, fixed.stderr
    aside = state / "envs" / ".journal-set-aside" / journal.name
    assert aside.read_bytes() == damaged and not journal.exists()
    environments_report = json.loads(fixed.stdout)["environments"]
    assert [f["kind"] for f in environments_report["fixed"]] == ["unreadable journal"]
    (left,) = environments_report["remaining"]
    assert left["kind"] == "set-aside journal" and not left["fixable"]
    assert environments(state) == [name] and leftovers(state) == []

    # set aside, it is reported by doctor only, and still keeps the environment
    done = agenttools("envs")
    assert done.returncode == 0 and "cannot be read" not in done.stderr
    assert agenttools("doctor", "--fix").returncode == 1
    assert environments(state) == [name]
    # once the user has deleted it, the environment no deployment uses goes
    aside.unlink()
    assert agenttools("doctor", "--fix").returncode == 0
    assert environments(state) == []


def test_an_unreadable_journal_that_names_no_environment(tmp_path: Path) -> None:
    journal = state_of(tmp_path) / "envs" / ".journal" / "00000000000000000001-x.json"
    journal.parent.mkdir(parents=True)
    journal.write_bytes(b"[")
    done = agenttools("envs")
    assert done.returncode == 0
    assert done.stderr.count(str(journal)) == 1, done.stderr
    assert "it names no managed environment there is" in done.stderr
    found = agenttools("doctor", "--json")
    assert found.returncode == 1
    kinds = [f["kind"] for f in json.loads(found.stdout)["environments"]["findings"]]
    assert kinds == ["unreadable journal"]
    assert journal.read_bytes() == b"["


def test_recovery_removes_no_environment_an_unreadable_journal_names(
    home: Path, tmp_path: Path, old_index: IndexServer
) -> None:
    kill_at("envs.installed", "deploy", "claude-code", "weather-tools", "-i", old_index.url(),
            "--install")  # fmt: skip
    state = state_of(tmp_path)
    (name,) = environments(state)
    (readable,) = (state / "envs" / ".journal").iterdir()
    unreadable = readable.with_name(f"{'9' * 20}-install-{name}.json")
    unreadable.write_bytes(b"\xff")

    done = agenttools("envs")
    assert done.returncode == 0, done.stderr
    # the journal that can be read is handled; what the other names stays as it is
    assert f"An interrupted install of {name} was stopped; the environment is kept" in done.stderr
    assert not readable.exists() and unreadable.read_bytes() == b"\xff"
    assert environments(state) == [name]
    assert agenttools("doctor", "--fix").returncode == 1
    assert environments(state) == [name]
