"""Every bad input of a project is one clear error that changes nothing: a file that is not
TOML or has an unknown key (file:line, "did you mean"), a lock from a newer agenttools, a lock
whose hashes the index does not serve, a requirement the index cannot satisfy, two bundles
claiming one config key, a client without project scope, a stale lock under --locked, no lock
under --frozen; and --dry-run changes nothing either."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers.envs import Ran, run, snapshot
from tests.helpers.index_fixtures import Publishing
from tests.project_state.conftest import fork_wheel, write_project

pytestmark = pytest.mark.slow


def unchanged(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> Ran:
    """Run *argv*, which must fail (exit 1, one message on stderr) and change nothing."""
    roots = [tmp_path / "repo", tmp_path / "agenttools-state"]
    for root in roots:
        root.mkdir(exist_ok=True)
    before = snapshot(*roots)
    done = run(capsys, *argv)
    assert done.status == 1, (done.out, done.err)
    assert done.err.startswith("agenttools: "), done.err
    assert "Traceback" not in done.err
    assert snapshot(*roots) == before
    return done


def test_a_file_that_is_not_toml_names_its_line(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path
) -> None:
    (repo / "agenttools.toml").write_text('[agenttools]\nclients = ["claude-code"]\n[bundle\n')
    for argv in (("add", "weather-tools"), ("lock",), ("sync",), ("verify",), ("drop", "x")):
        done = unchanged(capsys, tmp_path, *argv)
        assert f"{repo / 'agenttools.toml'}:3: not valid TOML" in done.err, done.err


def test_unknown_keys_get_did_you_mean_with_their_lines(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path
) -> None:
    (repo / "agenttools.toml").write_text(
        '[agenttools]\nclients = ["claude-code"]\nindex_url = "x"\n\n[[bundle]]\n'
        'requirment = "weather-tools"\n\n[[bundle]]\nrequirement = "b"\nclients = ["cursr"]\n'
        'scope = "global"\n\n[agentools]\n'
    )
    done = unchanged(capsys, tmp_path, "lock")
    path = repo / "agenttools.toml"
    lines = done.err.removeprefix("agenttools: ").splitlines()
    assert lines == [
        f"{path}:3: agenttools.index_url: unknown key (known: clients, index-url, "
        f'extra-index-urls, runner). Did you mean "index-url"?',
        f'{path}:5: bundle[0]: "requirement" is required',
        f"{path}:6: bundle[0].requirment: unknown key (known: requirement, bundles, clients, "
        f'runner, scope). Did you mean "requirement"?',
        f'{path}:10: bundle[1].clients: unknown client "cursr". Did you mean "cursor"?',
        f'{path}:11: bundle[1].scope: "global" is not one of project, user',
        f'{path}:13: agentools: unknown key (known: agenttools, bundle). Did you mean "agenttools"?',
    ]


def test_clients_without_project_scope_and_machine_paths_at_project_scope(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path
) -> None:
    (repo / "agenttools.toml").write_text(
        '[agenttools]\nclients = ["claude-desktop"]\n\n[[bundle]]\nrequirement = "weather-tools"\n'
        '\n[[bundle]]\nrequirement = "other"\nclients = ["claude-code"]\nrunner = "python"\n'
    )
    done = unchanged(capsys, tmp_path, "sync")
    path = repo / "agenttools.toml"
    assert (
        f'{path}:2: agenttools.clients: the client "claude-desktop" has no project scope'
        in done.err
    )
    assert f'{path}:10: bundle[1].runner: "python" writes a path of this machine' in done.err


def test_a_requirement_the_index_cannot_satisfy_changes_nothing(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path, publishing: Publishing
) -> None:
    write_project(repo, publishing.server.url(), "claude-code")
    done = unchanged(capsys, tmp_path, "add", "weather-tools>=9")
    assert "weather-tools>=9" in done.err and "1.2.0" in done.err
    assert "[[bundle]]" not in (repo / "agenttools.toml").read_text()
    assert not (repo / "agenttools.lock").exists()
    missing = unchanged(capsys, tmp_path, "add", "no-such-dist")
    assert "no-such-dist" in missing.err


def test_lock_refusals_newer_version_changed_hash_stale_missing(
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    tmp_path: Path,
    publishing: Publishing,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = write_project(repo, publishing.server.url(), "claude-code")
    frozen = unchanged(capsys, tmp_path, "sync", "--frozen")
    assert "has no lock file" in frozen.err
    assert run(capsys, "add", "weather-tools").status == 0
    lock = repo / "agenttools.lock"
    good = lock.read_text()

    lock.write_text(good.replace("version = 1\n", "version = 2\n", 1))
    newer = unchanged(capsys, tmp_path, "sync")
    assert "is lock version 2, written by a newer agenttools" in newer.err
    assert "upgrade agenttools" in newer.err

    sha = next(line.split('"')[1] for line in good.splitlines() if line.startswith("sha256 = "))
    lock.write_text(good.replace(sha, "0" * 64, 1))
    for argv in (("sync", "--frozen"), ("lock",), ("sync",)):
        refused = unchanged(capsys, tmp_path, *argv)
        assert refused.err.startswith("agenttools: Refused: the index ")
        assert f"serves weather_tools-1.2.0-py3-none-any.whl with SHA-256 {sha}" in refused.err
        assert f"records {'0' * 64}" in refused.err and "supply-chain" in refused.err

    lock.write_text(good)
    path.write_text(path.read_text().replace('"weather-tools"', '"weather-tools>=1.1"'))
    stale = unchanged(capsys, tmp_path, "sync", "--locked")
    assert (
        "is out of date with" in stale.err
        and "the requirement of weather-tools changed" in stale.err
    )
    assert run(capsys, "sync", "--frozen").status == 0  # (the lock as it is, unchecked)

    lock.write_text("not = [toml\n")
    assert "is not an agenttools lock" in unchanged(capsys, tmp_path, "verify").err

    monkeypatch.chdir(tmp_path)
    outside = run(capsys, "sync", "--locked")
    assert outside.status == 2 and "act on a project" in outside.err
    assert "No agenttools.toml in" in run(capsys, "lock").err


def test_two_bundles_claiming_one_config_key(
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    tmp_path: Path,
    publishing: Publishing,
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    publishing.publish(fork_wheel(tmp_path_factory))
    write_project(repo, publishing.server.url(), "claude-code",
                  extra='\n[[bundle]]\nrequirement = "weather-tools"\n\n[[bundle]]\nrequirement = "weather-fork"\n')  # fmt: skip
    done = unchanged(capsys, tmp_path, "lock")
    assert (
        "The bundles weather-tools/weather-tools and weather-fork/weather-fork both write the MCP "
        'entry "weather" into .mcp.json (claude-code)'
    ) in done.err


def test_dry_run_and_unknown_drop_change_nothing(
    capsys: pytest.CaptureFixture[str], repo: Path, tmp_path: Path, publishing: Publishing
) -> None:
    write_project(repo, publishing.server.url(), "claude-code",
                  extra='\n[[bundle]]\nrequirement = "weather-tools"\n')  # fmt: skip
    before = snapshot(repo)
    dry = run(capsys, "sync", "--dry-run")
    assert dry.status == 0, dry.err
    assert "dry run" in dry.out.splitlines()[0]
    assert "agenttools.lock would write" in dry.out
    assert "claude-code project weather-tools/weather-tools: would deploy" in dry.out
    assert snapshot(repo) == before
    assert run(capsys, "sync").status == 0
    gone = unchanged(capsys, tmp_path, "drop", "weather-toolz")
    assert 'lists no bundle of "weather-toolz" (it lists: weather-tools)' in gone.err
    twice = unchanged(capsys, tmp_path, "add", "weather-tools")
    assert 'lists "weather-tools" already' in twice.err
