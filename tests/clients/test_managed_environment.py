"""A real client runs the server of a managed environment: ``agenttools deploy claude-code
weather-tools --install`` from a real index on loopback, into an empty HOME, and Claude Code's
own ``claude mcp list`` starts the server from that environment and shows it connected."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.clients.npm import InstallOutcome, installed, list_servers
from tests.helpers.envs import claude_entry, run
from tests.helpers.index_fixtures import (  # noqa: F401 (fixtures)
    IndexServer,
    isolated_installers,
    old_index,
    old_only,
    releases,
)

pytestmark = [pytest.mark.slow, pytest.mark.clients]
IN_CI = os.environ.get("CI", "").lower() == "true"


def test_claude_code_connects_to_the_server_of_a_managed_environment(
    home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    old_index: IndexServer,  # noqa: F811
    isolated_installers: None,  # noqa: F811
) -> None:
    outcome: InstallOutcome = installed()["claude-code"]
    if not outcome.ok:
        message = f"{outcome.client.package}@{outcome.client.version}: {outcome.detail}"
        if IN_CI:
            pytest.fail(f"could not install {message}")
        pytest.skip(f"cannot install {message}")
    client = outcome.client
    done = run(
        capsys,
        "deploy",
        "claude-code",
        "weather-tools",
        "--index-url",
        old_index.url(),
        "--install",
    )
    assert done.status == 0, done.err
    command = claude_entry(home)["command"]
    assert command.startswith(str(tmp_path / "agenttools-state" / "envs" / "weather-tools-1.2.0-"))
    work = tmp_path / "work"
    work.mkdir()
    pattern = client.connected_pattern("weather")
    assert pattern is not None
    listed = list_servers(client, home, work, until=pattern.search)
    output = listed.stdout + listed.stderr
    assert listed.returncode == 0, output
    assert pattern.search(output), output
    assert command in output, output
