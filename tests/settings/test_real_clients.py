"""The real Claude Code and Codex CLI read what a deploy with settings wrote: Claude Code
connects to the keyed-forecast server (which refuses to start without its key) with the key in
its user-scope entry, and in project scope with the key from the environment through the
``${VAR}`` reference (and warns when the variable is missing); Codex reads ``env_vars`` and
``env_http_headers`` from its project file. Run: ``pytest -m clients tests/settings``."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.clients.npm import CLIENTS, InstallOutcome, NpmClient, client_env, installed
from tests.helpers.envs import run
from tests.settings.sample import SECRET, venv_with, wheel_v1

pytestmark = [pytest.mark.slow, pytest.mark.clients]
IN_CI = os.environ.get("CI", "").lower() == "true"
DEADLINE = 300  # seconds: a loaded machine may miss a client's own health-check time-out


@pytest.fixture(scope="module")
def npm_clients() -> dict[str, InstallOutcome]:
    return installed([CLIENTS["claude-code"], CLIENTS["codex"]])


def _client(npm_clients: dict[str, InstallOutcome], client_id: str) -> NpmClient:
    outcome = npm_clients[client_id]
    if not outcome.ok:
        message = f"{outcome.client.package}@{outcome.client.version}: {outcome.detail}"
        if IN_CI:
            pytest.fail(f"could not install {message}")
        pytest.skip(f"cannot install {message}")
    return outcome.client


def _run(client: NpmClient, cwd: Path, *args: str, **env: str) -> str:
    done = subprocess.run(
        [os.fspath(client.binary), *args],
        cwd=cwd,
        env={**client_env(Path.home()), **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", done.stdout + done.stderr)


def _json(text: str) -> dict[str, object]:
    """The JSON object in a client's output (its warnings about /tmp come around it)."""
    value, _end = json.JSONDecoder().raw_decode(text[text.index("{") :])
    assert isinstance(value, dict)
    return value


def _until(client: NpmClient, cwd: Path, pattern: str, **env: str) -> str:
    """``mcp list`` until *pattern* shows (the client's health check has a time-out)."""
    import time

    start = time.monotonic()
    while True:
        out = _run(client, cwd, "mcp", "list", **env)
        if re.search(pattern, out) or time.monotonic() - start > DEADLINE:
            return out


def test_claude_code_connects_with_the_secret_given(
    npm_clients, tmp_path: Path, tmp_path_factory, capsys
) -> None:
    claude = _client(npm_clients, "claude-code")
    venv = venv_with(tmp_path / "venv", wheel_v1(tmp_path_factory))
    project = tmp_path / "project"
    project.mkdir()
    python = ("--python", str(venv.python))
    user = run(capsys, "deploy", "claude-code", "keyed-forecast/forecast", *python,
               "--env", f"FORECAST_API_KEY={SECRET}")  # fmt: skip
    assert user.status == 0, user.err
    shared = run(capsys, "deploy", "claude-code", "keyed-forecast/forecast", *python,
                 "--project", str(project), "--runner", "python", "--name", "forecast-p")  # fmt: skip
    assert shared.status == 0, shared.err
    assert SECRET not in (project / ".mcp.json").read_text("utf-8")
    # the user approves the project's servers (what answering claude's prompt records)
    config = Path.home() / ".claude.json"
    data = json.loads(config.read_text("utf-8"))
    data["projects"] = {
        str(project): {"enabledMcpjsonServers": ["forecast-p"], "hasTrustDialogAccepted": True}
    }
    config.write_text(json.dumps(data))
    out = _until(claude, project, r"forecast-p: .* - ✔ Connected", FORECAST_API_KEY="sk-env-5")
    assert re.search(r"^forecast: .* - ✔ Connected", out, re.M), out  # the key in the entry
    assert re.search(r"^forecast-p: .* - ✔ Connected", out, re.M), out  # from the environment
    missing = _run(claude, project, "mcp", "list")  # without the variable: said by claude
    assert "Missing environment variables: FORECAST_API_KEY" in missing, missing
    assert run(capsys, "verify").status == 0  # what claude added to ~/.claude.json is no drift


def test_codex_reads_the_references_of_its_project_file(
    npm_clients, tmp_path: Path, tmp_path_factory, capsys
) -> None:
    codex = _client(npm_clients, "codex")
    venv = venv_with(tmp_path / "venv", wheel_v1(tmp_path_factory))
    project = tmp_path / "project"
    project.mkdir()
    done = run(capsys, "deploy", "codex", "keyed-forecast", "--python", str(venv.python),
               "--project", str(project), "--runner", "python")  # fmt: skip
    assert done.status == 0, done.err
    config = Path.home() / ".codex" / "config.toml"  # the user trusts the project
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[projects."{project}"]\ntrust_level = "trusted"\n')
    text = _run(codex, project, "mcp", "get", "forecast", "--json")
    forecast = _json(text)
    transport = forecast["transport"]
    assert isinstance(transport, dict)
    assert transport["env_vars"] == ["FORECAST_API_KEY"]
    assert transport["env"]["FORECAST_UNITS"] == "metric"
    alerts_text = _run(codex, project, "mcp", "get", "alerts", "--json")
    alerts = _json(alerts_text)
    remote = alerts["transport"]
    assert isinstance(remote, dict)
    assert remote["env_http_headers"] == {"Authorization": "ALERTS_AUTHORIZATION"}
