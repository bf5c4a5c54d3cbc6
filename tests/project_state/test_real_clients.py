"""The real clients read a synced project: inside it (after their own trust gates), Claude
Code, Gemini CLI and OpenCode list the project's server from the committed, portable entry
(a pinned ``uvx --from`` line, run from the project's index) and connect to it; Gemini CLI and
OpenCode list its skills.

Run locally: ``pytest -m clients tests/project_state`` (the npm clients are cached)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.clients.npm import (
    CLIENTS,
    InstallOutcome,
    client_env,
    installed,
    list_servers,
    listing,
)
from tests.helpers.envs import run
from tests.helpers.index_fixtures import Publishing
from tests.project_state.conftest import write_project

pytestmark = [pytest.mark.slow, pytest.mark.clients]
IN_CI = os.environ.get("CI", "").lower() == "true"
PROJECT_CLIENTS = ("claude-code", "gemini-cli", "opencode")
SKILLS = {  # how a client lists its skills, and the line it prints once it has
    "gemini-cli": ("skills", "list"),
    "opencode": ("debug", "skill"),
}


@pytest.fixture(scope="session")
def npm_clients() -> dict[str, InstallOutcome]:
    return installed([CLIENTS[c] for c in PROJECT_CLIENTS])


@pytest.mark.parametrize("client_id", PROJECT_CLIENTS)
def test_the_client_lists_and_connects_to_the_projects_server(
    client_id: str,
    npm_clients: dict[str, InstallOutcome],
    capsys: pytest.CaptureFixture[str],
    repo: Path,
    home: Path,
    publishing: Publishing,
) -> None:
    outcome = npm_clients[client_id]
    if not outcome.ok:
        message = f"{outcome.client.package}@{outcome.client.version}: {outcome.detail}"
        if IN_CI:
            pytest.fail(f"could not install {message}")
        pytest.skip(f"cannot install {message}")
    client = outcome.client
    write_project(repo, publishing.server.url(), client_id)
    done = run(capsys, "add", "weather-tools")
    assert done.status == 0, done.err
    # each client's own trust gate for a project's servers
    for rel, text in client.setup.items():
        target = home / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text.format(cwd=os.fspath(repo)))
    if client_id == "claude-code":
        (repo / ".claude" / "settings.local.json").write_text(
            '{"enableAllProjectMcpServers": true}'
        )

    uvx_dir = Path(sys.executable).parent  # (uvx on the client's PATH, as on a teammate's)
    # the entry's command run once as the client runs it (its HOME, its PATH), stdin closed:
    # uvx's cache is warm then, so that the client's connection does not wait on installs
    command = ["uvx", "--default-index", publishing.server.url(), "--from", "weather-tools==1.2.0",
               "weather-mcp"]  # fmt: skip
    warm_env = {**client_env(home), "PATH": f"{uvx_dir}{os.pathsep}{os.environ['PATH']}"}
    warmed = subprocess.run(command, env=warm_env, cwd=repo,
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)  # fmt: skip
    assert warmed.returncode == 0, warmed.stderr
    pattern = client.connected_pattern("weather")
    assert pattern is not None
    listed = list_servers(client, home, repo, until=pattern.search, path=[uvx_dir])
    output = listed.stdout + listed.stderr
    assert listed.returncode == 0 and pattern.search(output), output
    assert "weather-tools==1.2.0" in output or client_id == "opencode", output

    if client_id in SKILLS:
        skills = listing(
            client, home, repo, SKILLS[client_id], until=lambda o: "weather-report" in o
        )
        text = skills.stdout + skills.stderr
        assert "weather-report" in text and "forecast-help" in text, text
    if client_id == "opencode":
        data = json.loads((repo / "opencode.json").read_text())
        assert data["mcp"]["weather"]["command"][0] == "uvx"
