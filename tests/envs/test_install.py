"""``deploy … DIST --install`` end to end, with real indexes on loopback, real installers (uv
and pip) and real environments: from an empty HOME to a server that answers MCP
``initialize`` from its managed environment; reruns that need no index; reference counting
over deployments; upgrades; local wheels and project directories; ``--runner uvx``;
credentials that never reach a file or the output; the user's variables honoured."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.envs import claude_entry, environments, initialize, leftovers, run
from tests.helpers.index import IndexServer
from tests.helpers.index_fixtures import PASSWORD, USER, Publishing, Releases
from tests.helpers.venvs import fake_distribution, fake_site, skill_files
from tests.helpers.wheels import SAMPLES

pytestmark = pytest.mark.slow


def state_of(tmp_path: Path) -> Path:
    return tmp_path / "agenttools-state"


def receipt_of(tmp_path: Path, name: str) -> dict[str, object]:
    path = state_of(tmp_path) / "envs" / name / "agenttools-receipt.json"
    data: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_install_deploy_serve_rerun_offline_share_and_remove(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, publishing: Publishing
) -> None:
    url = publishing.server.url()
    done = run(capsys, "deploy", "claude-code", "weather-tools", "--index-url", url, "--install")
    assert done.status == 0, done.err
    (name,) = environments(state_of(tmp_path))
    assert name.startswith("weather-tools-1.2.0-")
    env = state_of(tmp_path) / "envs" / name
    entry = claude_entry(home)
    assert entry["command"] == str(env / "bin" / "python")
    assert (
        initialize([entry["command"], *entry["args"]], entry.get("env"))["serverInfo"]["name"]
        == "weather"
    )
    assert (home / ".claude" / "skills" / "weather-report" / "SKILL.md").is_file()

    receipt = receipt_of(tmp_path, name)
    assert receipt["requirement"] == "weather-tools" and receipt["version"] == "1.2.0"
    assert receipt["index"]["index_url"] == url  # type: ignore[index]
    assert receipt["installer"]["name"] == "uv"  # type: ignore[index]
    assert receipt["interpreter"]["version"] == ".".join(map(str, sys.version_info[:3]))  # type: ignore[index]
    resolved = {d["name"]: d for d in receipt["resolved"]}  # type: ignore[attr-defined]
    assert resolved["weather-tools"]["file"] == "weather_tools-1.2.0-py3-none-any.whl"
    assert len(resolved["weather-tools"]["sha256"]) == 64 and "mcp" in resolved
    assert (env / "pylock.toml").read_text().startswith("lock-version")

    listed = run(capsys, "envs", "--json").json()["environments"]
    assert [(r["name"], len(r["deployments"])) for r in listed] == [(name, 1)]

    publishing.server.stop()  # the index is down: a rerun needs nothing of it
    again = run(capsys, "deploy", "claude-code", "weather-tools", "--index-url", url, "--install")
    assert again.status == 0, again.err
    assert "up to date" in again.out
    # discovery looks in managed environments too: another client, no --install, no index
    cursor = run(capsys, "deploy", "cursor", "weather-tools")
    assert cursor.status == 0, cursor.err
    assert environments(state_of(tmp_path)) == [name]
    users = run(capsys, "envs", "--json").json()["environments"][0]["deployments"]
    assert len(users) == 2

    first = run(capsys, "remove", "--client", "claude-code")
    assert first.status == 0 and environments(state_of(tmp_path)) == [name]
    last = run(capsys, "remove", "--client", "cursor")
    assert last.status == 0, last.err
    assert environments(state_of(tmp_path)) == []
    assert f"Removed the managed environment {name}" in last.err
    assert leftovers(state_of(tmp_path)) == []


def test_a_deployments_directory_that_is_no_directory_stops_an_install_before_it_begins(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, publishing: Publishing
) -> None:
    """Bug: the environment was installed, then the deploy stopped with 'Cannot access
    <state>/deployments: Not a directory (ENOTDIR)' (and the environment was taken away)."""
    deployments = state_of(tmp_path) / "deployments"
    deployments.parent.mkdir(parents=True)
    os.mkfifo(deployments)
    url = publishing.server.url()
    done = run(capsys, "deploy", "claude-code", "weather-tools", "-i", url, "--install")
    assert done.status == 1
    assert done.err.startswith(
        f"agenttools: {deployments} is a named pipe, not the directory of agenttools' "
        "deployment records: nothing is changed while it is there. Run 'agenttools doctor "
        "--fix' to set it aside"
    ), done.err
    assert environments(state_of(tmp_path)) == [] and not (home / ".claude.json").exists()
    assert deployments.is_fifo()


def test_sync_upgrade_moves_skills_and_environment_and_keeps_modified_skills(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    publishing: Publishing,
    releases: Releases,
) -> None:
    url = publishing.server.url()
    assert run(capsys, "deploy", "claude-code", "weather-tools", "-i", url, "--install").status == 0
    (old,) = environments(state_of(tmp_path))
    kept = home / ".claude" / "skills" / "station-lookup" / "SKILL.md"
    report = home / ".claude" / "skills" / "weather-report" / "SKILL.md"
    assert "Changed in 1.3.0" not in report.read_text()
    publishing.publish(releases.new)

    before = report.read_text()
    dry = run(capsys, "sync", "--upgrade", "--dry-run")
    assert dry.status == 0, dry.err
    assert "weather-tools 1.2.0 → 1.3.0" in dry.out
    assert environments(state_of(tmp_path)) == [old] and report.read_text() == before

    kept.write_text(kept.read_text() + "\nmy own note\n")
    done = run(capsys, "sync", "--upgrade")
    assert done.status == 0, done.err
    assert "weather-tools 1.2.0 → 1.3.0" in done.out
    (new,) = environments(state_of(tmp_path))
    assert new.startswith("weather-tools-1.3.0-") and new.split("-")[-1] == old.split("-")[-1]
    assert "Changed in 1.3.0" in report.read_text()
    assert "my own note" in kept.read_text()  # a skill the user modified is kept
    assert claude_entry(home)["command"].startswith(str(state_of(tmp_path) / "envs" / new))
    assert f"Removed the managed environment {old}" in done.err
    again = run(capsys, "sync", "--upgrade", "--json")
    assert again.json()["upgrades"][0]["result"] == "up to date"


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal is POSIX")
@pytest.mark.parametrize("answer", [None, b"n\n"], ids=["ctrl-c", "no"])
def test_sync_upgrade_prune_asks_before_it_upgrades(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    publishing: Publishing,
    releases: Releases,
    answer: bytes | None,
) -> None:
    """Bug: ``sync --upgrade --prune`` upgraded the managed environments before it asked
    whether to remove the orphaned deployments, so Ctrl-C at the question (or no) came
    after the upgrades were made."""
    from tests.helpers.terminal import run_on_terminal

    url = publishing.server.url()
    assert run(capsys, "deploy", "claude-code", "weather-tools", "-i", url, "--install").status == 0
    (old,) = environments(state_of(tmp_path))
    site = fake_site(tmp_path / "venv")
    skill = {"gone-skill": skill_files("gone-skill")}
    dist_info = fake_distribution(site, "gone-tools", skills=skill)
    assert run(capsys, "deploy", "cursor", "gone-tools", "--path", str(site)).status == 0
    shutil.rmtree(dist_info)  # pip uninstall: the cursor deployment is orphaned
    publishing.publish(releases.new)
    report = home / ".claude" / "skills" / "weather-report" / "SKILL.md"
    before = report.read_text()

    done = run_on_terminal(
        ["sync", "--upgrade", "--prune"], terminal=("stdin", "stderr"), answer=answer
    )
    assert done.asked_on == "terminal", done
    assert "Remove them? [y/N] " in done.terminal
    if answer is None:  # interrupted at the question: nothing was changed
        assert done.status != 0
        assert environments(state_of(tmp_path)) == [old] and report.read_text() == before
    else:  # upgraded after the answer; the orphan kept
        assert done.status == 1, done
        (new,) = environments(state_of(tmp_path))
        assert new.startswith("weather-tools-1.3.0-") and "Changed in 1.3.0" in report.read_text()
        assert "Orphaned deployments were not removed: not confirmed." in done.stdout
    assert (home / ".cursor" / "skills" / "gone-skill" / "SKILL.md").is_file()


def test_credentials_never_reach_a_file_or_the_output(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    auth_index: IndexServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = auth_index.url()
    assert PASSWORD in url
    outputs = []
    for argv in (
        ("deploy", "claude-code", "weather-tools", "--index-url", url, "--install"),
        ("envs", "--json"),
        ("show", "weather-tools", "--index", "--index-url", url, "--json"),
        ("list", "--index", "--index-url", url),
        ("sync", "--upgrade", "--dry-run", "--index-url", url),
    ):
        done = run(capsys, *argv)
        assert done.status == 0, (argv, done.err)
        outputs += [done.out, done.err]
    # without credentials the recorded index refuses: the error names it, without any
    refused = run(capsys, "sync", "--upgrade", "--dry-run")
    assert refused.status == 1 and auth_index.url(credentials=False) in refused.out + refused.err
    outputs += [refused.out, refused.err]
    # the index given by variable with credentials: matched to the recorded URL
    monkeypatch.setenv("PIP_INDEX_URL", url)
    assert run(capsys, "sync", "--upgrade", "--dry-run").status == 0
    for text in outputs:
        assert PASSWORD not in text and f"{USER}:" not in text
    for directory, _, files in os.walk(tmp_path):
        for file in files:
            path = Path(directory) / file
            if (
                path.is_file()
                and not path.is_symlink()
                and "htpasswd" not in file
                and "pypiserver" not in file
            ):
                assert PASSWORD.encode() not in path.read_bytes(), path


@pytest.mark.parametrize("scope", ["user", "project"])
def test_a_uvx_entry_names_a_credentialed_index_without_its_credentials(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    auth_index: IndexServer,
    scope: str,
) -> None:
    # a client's config file (a project's .mcp.json is committed) is no place for a token:
    # the entry names the index, and uvx gets the credentials the user's way (netrc, its
    # keyring provider)
    repo = tmp_path / "repo"
    repo.mkdir()
    where = ("--project", str(repo)) if scope == "project" else ()
    argv = ("deploy", "claude-code", "weather-tools", *where, "--runner", "uvx")
    done = run(capsys, *argv, "-i", auth_index.url(), "--install")
    assert done.status == 0, done.err
    config = repo / ".mcp.json" if scope == "project" else home / ".claude.json"
    entry = json.loads(config.read_text(encoding="utf-8"))["mcpServers"]["weather"]
    assert entry["command"] == "uvx"
    assert entry["args"][:2] == ["--default-index", auth_index.url(credentials=False)]
    assert files_holding(tmp_path, PASSWORD) == []
    for text in (done.out, done.err):
        assert PASSWORD not in text


def files_holding(root: Path, secret: str) -> list[Path]:
    """Every regular file under *root* holding *secret*, but the index server's own."""
    found = []
    for directory, _, files in os.walk(root):
        for file in files:
            path = Path(directory) / file
            if "htpasswd" in file or "pypiserver" in file or path.is_symlink():
                continue
            if path.is_file() and secret.encode() in path.read_bytes():
                found.append(path)
    return found


def test_a_named_uv_index_with_credentials_is_read_and_recorded_without_them(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    auth_index: IndexServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # uv's form NAME=URL: agenttools reads the URL, and pip gets it without the name
    monkeypatch.setenv("UV_DEFAULT_INDEX", f"corp={auth_index.url()}")
    shown = run(capsys, "show", "weather-tools", "--index", "--json")
    done = run(capsys, "deploy", "claude-code", "weather-tools", "--installer", "pip", "--install")
    assert shown.status == 0, shown.err
    assert shown.json()["index"] == auth_index.url(credentials=False)
    assert done.status == 0, done.err
    (name,) = environments(state_of(tmp_path))
    assert receipt_of(tmp_path, name)["index"]["index_url"] == auth_index.url(credentials=False)  # type: ignore[index]
    for text in (shown.out, shown.err, done.out, done.err):
        assert PASSWORD not in text
    assert files_holding(tmp_path, PASSWORD) == []


def test_credentials_from_netrc_serve_the_metadata_read_and_the_install(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    auth_index: IndexServer,
) -> None:
    url = auth_index.url(credentials=False)
    refused = run(capsys, "show", "weather-tools", "--index", "--index-url", url)
    assert refused.status == 1 and url in refused.err  # no credentials anywhere yet
    netrc = home / ".netrc"
    netrc.write_text(f"machine 127.0.0.1\nlogin {USER}\npassword {PASSWORD}\n")
    netrc.chmod(0o600)  # pip, uv and agenttools read it from HOME

    shown = run(capsys, "show", "weather-tools", "--index", "--index-url", url, "--json")
    done = run(capsys, "deploy", "claude-code", "weather-tools", "--index-url", url, "--install")

    assert shown.status == 0, shown.err
    assert shown.json()["version"] == "1.2.0"
    assert done.status == 0, done.err
    (name,) = environments(state_of(tmp_path))
    assert name.startswith("weather-tools-1.2.0-")
    entry = claude_entry(home)
    assert initialize([entry["command"], *entry["args"]], entry.get("env"))["serverInfo"]
    for text in (shown.out, shown.err, done.out, done.err):
        assert PASSWORD not in text


def traced_execs(log: Path) -> list[str]:
    """The argument vectors of every program *log* (``strace -e trace=execve``) saw started."""
    return [line for line in log.read_text().splitlines() if "execve(" in line]


# (the variable agenttools reads an index from, and one the installer does not read, so that
# the install working shows agenttools passed the index on)
CREDENTIALED = {
    ("uv", "index"): "PIP_INDEX_URL",
    ("uv", "extra"): "PIP_EXTRA_INDEX_URL",
    ("pip", "index"): "UV_DEFAULT_INDEX",
    ("pip", "extra"): "UV_INDEX",
}


@pytest.mark.parametrize(("installer", "given"), list(CREDENTIALED))
def test_no_installer_command_line_holds_a_credential(
    home: Path,
    tmp_path: Path,
    auth_index: IndexServer,
    index: IndexServer,
    monkeypatch: pytest.MonkeyPatch,
    installer: str,
    given: str,
) -> None:
    # any local user reads a process's command line (ps, /proc/PID/cmdline), so an installer
    # agenttools runs gets the credentials of its index in its environment only: every
    # program the real deploy started is recorded by strace, and the install worked
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace records the programs started")
    log = tmp_path / "execve.log"
    monkeypatch.setenv(CREDENTIALED[installer, given], auth_index.url())
    if given == "extra":  # (an open index is the default one, the credentialed one an extra)
        monkeypatch.setenv(
            "PIP_INDEX_URL" if installer == "uv" else "UV_DEFAULT_INDEX", index.url()
        )
    traced = [strace, "-f", "-qq", "-e", "trace=execve", "-s", "100000", "-o", str(log)]
    done = subprocess.run(
        [
            *traced,
            sys.executable,
            "-m",
            "agenttools",
            "deploy",
            "claude-code",
            "weather-tools",
            "--installer",
            installer,
            "--install",
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env=dict(os.environ),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    execs = traced_execs(log)
    started = [line for line in execs if '"lock"' in line or '"compile"' in line]
    assert started, execs  # (the installer resolved, and was seen doing it)
    assert [line for line in execs if PASSWORD in line or f"{USER}:" in line] == []
    (name,) = environments(state_of(tmp_path))
    entry = claude_entry(home)
    assert initialize([entry["command"], *entry["args"]], entry.get("env"))["serverInfo"]
    assert receipt_of(tmp_path, name)["installer"]["name"] == installer  # type: ignore[index]


def test_the_users_variables_are_honoured(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    old_index: IndexServer,
    wheelhouse: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PIP_INDEX_URL", old_index.url())
    done = run(capsys, "deploy", "claude-code", "weather-tools", "--install")
    assert done.status == 0, done.err
    (name,) = environments(state_of(tmp_path))
    assert receipt_of(tmp_path, name)["index"]["index_url"] == old_index.url()  # type: ignore[index]
    monkeypatch.delenv("PIP_INDEX_URL")
    monkeypatch.setenv("UV_FIND_LINKS", str(wheelhouse))
    monkeypatch.setenv("UV_NO_INDEX", "1")
    done = run(capsys, "deploy", "cursor", "weather-tools==1.3.0", "--no-skills", "--install")
    assert done.status == 0, done.err
    assert len(environments(state_of(tmp_path))) == 2
    index = receipt_of(tmp_path, next(n for n in environments(state_of(tmp_path)) if "1.3.0" in n))[
        "index"
    ]
    assert index == {
        "index_url": None,
        "extra_index_urls": [],
        "find_links": [str(wheelhouse)],
        "no_index": True,
    }


def test_pip_installer_from_a_wheelhouse(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, wheelhouse: Path
) -> None:
    done = run(capsys, "deploy", "claude-code", "skills-only", "--installer", "pip",
               "--no-index", "--find-links", str(wheelhouse), "--install")  # fmt: skip
    assert done.status == 0, done.err
    (name,) = environments(state_of(tmp_path))
    receipt = receipt_of(tmp_path, name)
    assert receipt["installer"]["name"] == "pip"  # type: ignore[index]
    assert 'created-by = "pip"' in (state_of(tmp_path) / "envs" / name / "pylock.toml").read_text()
    assert (home / ".claude" / "skills" / "commit-message" / "SKILL.md").is_file()
    assert run(capsys, "remove", "--all").status == 0
    assert environments(state_of(tmp_path)) == []


def test_local_wheel_and_project_directory(
    capsys: pytest.CaptureFixture[str],
    home: Path,
    tmp_path: Path,
    publishing: Publishing,
    releases: Releases,
) -> None:
    url = publishing.server.url()
    done = run(capsys, "deploy", "claude-code", str(releases.new), "-i", url, "--install")
    assert done.status == 0, done.err
    (name,) = environments(state_of(tmp_path))
    assert name.startswith("weather-tools-1.3.0-")
    assert receipt_of(tmp_path, name)["kind"] == "wheel"
    project = run(
        capsys, "deploy", "cursor", str(SAMPLES / "weather-tools"), "-i", url, "--install"
    )
    assert project.status == 0, project.err
    names = environments(state_of(tmp_path))
    built = next(n for n in names if n.startswith("weather-tools-1.2.0-"))
    receipt = receipt_of(tmp_path, built)
    assert receipt["kind"] == "directory" and receipt["source_sha256"]
    # the same commands again, the index down: their environments, nothing built or asked
    publishing.server.stop()
    again = run(capsys, "deploy", "claude-code", str(releases.new), "-i", url, "--install")
    assert again.status == 0 and "up to date" in again.out, again.err
    again = run(capsys, "deploy", "cursor", str(SAMPLES / "weather-tools"), "-i", url, "--install")
    assert again.status == 0 and "up to date" in again.out, again.err
    assert environments(state_of(tmp_path)) == names


def test_runner_uvx_keeps_no_environment_and_its_entry_runs(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, old_index: IndexServer
) -> None:
    url = old_index.url()
    done = run(
        capsys, "deploy", "claude-code", "weather-tools", "-i", url, "--runner", "uvx", "--install"
    )
    assert done.status == 0, done.err
    entry = claude_entry(home)
    assert entry["command"] == "uvx"
    assert entry["args"] == [
        "--default-index",
        url,
        "--from",
        "weather-tools==1.2.0",
        "weather-mcp",
    ]
    (name,) = environments(state_of(tmp_path))
    env = state_of(tmp_path) / "envs" / name
    assert not (env / "bin").exists() and (env / "site-packages").is_dir()
    assert receipt_of(tmp_path, name)["layout"] == "metadata"
    uvx = Path(sys.executable).parent / "uvx"
    assert (
        initialize([str(uvx), *entry["args"]], entry.get("env"))["serverInfo"]["name"] == "weather"
    )
    assert run(capsys, "remove", "--all").status == 0
    assert environments(state_of(tmp_path)) == []


def test_on_a_terminal_it_asks(home: Path, tmp_path: Path, old_index: IndexServer) -> None:
    from tests.helpers.terminal import STREAMS, run_on_terminal

    argv = ["deploy", "claude-code", "weather-tools", "-i", old_index.url()]
    done = run_on_terminal(argv, terminal=STREAMS, answer=b"n\n", deadline=300)
    assert done.status == 1 and "Install it into a managed environment" in done.terminal
    assert "--install" in done.terminal and environments(state_of(tmp_path)) == []
    done = run_on_terminal(argv, terminal=STREAMS, answer=b"y\n", deadline=300)
    assert done.status == 0, done.terminal
    assert len(environments(state_of(tmp_path))) == 1


def test_dry_run_and_prune(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path, old_index: IndexServer
) -> None:
    url = old_index.url()
    dry = run(
        capsys,
        "deploy",
        "claude-code,cursor",
        "weather-tools==1.2.0",
        "-i",
        url,
        "--install",
        "--dry-run",
    )
    assert dry.status == 0, dry.err
    assert "Would install weather-tools 1.2.0" in dry.out and environments(state_of(tmp_path)) == []
    done = run(
        capsys, "deploy", "claude-code,cursor", "weather-tools==1.2.0", "-i", url, "--install"
    )
    assert done.status == 0, done.err
    (name,) = environments(state_of(tmp_path))  # one environment for both clients
    assert len(run(capsys, "envs", "--json").json()["environments"][0]["deployments"]) == 2
    # its interpreter removed: both deployments are orphaned; pruning them takes it away
    for link in (state_of(tmp_path) / "envs" / name / "bin").glob("python*"):
        link.unlink()
    pruned = run(capsys, "sync", "--prune", "--yes")
    assert pruned.status == 0, pruned.out + pruned.err
    assert environments(state_of(tmp_path)) == []
    assert f"Removed the managed environment {name}" in pruned.err
