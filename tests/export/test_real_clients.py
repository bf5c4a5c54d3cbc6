"""The real clients decide: what ``agenttools export`` writes from the real weather-tools wheel
is validated, installed and listed by Claude Code, Gemini CLI and Codex themselves.

The exported servers run ``uvx --from weather-tools==1.2.0 weather-mcp``; weather-tools is not
on any index these tests may reach, so the clients' health checks find the server listed but
not connected. The ``uvx`` they find first on their PATH runs the real uv offline, with its
cache in the test's temporary directory: nothing is fetched from a package index.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from agenttools_runtime.export import export
from tests.clients.npm import CLIENTS, InstallOutcome, NpmClient, installed, listing, run_client
from tests.helpers.wheels import build_sample_wheel

pytestmark = [pytest.mark.slow, pytest.mark.clients]
IN_CI = os.environ.get("CI", "").lower() == "true"
SAMPLES = Path(__file__).resolve().parents[2] / "sample_packages"
WEATHER_SKILLS = ("forecast-help", "station-lookup", "weather-report")
UVX_LINE = "uvx --from weather-tools==1.2.0 weather-mcp"


@pytest.fixture(scope="session")
def npm_clients() -> dict[str, InstallOutcome]:
    return installed([CLIENTS[c] for c in ("claude-code", "gemini-cli", "codex")])


def _client(npm_clients: dict[str, InstallOutcome], client_id: str) -> NpmClient:
    outcome = npm_clients[client_id]
    if not outcome.ok:
        message = f"{outcome.client.package}@{outcome.client.version}: {outcome.detail}"
        if IN_CI:
            pytest.fail(f"could not install {message}")
        pytest.skip(f"cannot install {message}")
    return outcome.client


@pytest.fixture
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_sample_wheel("weather-tools", tmp_path_factory)


@pytest.fixture
def offline_uv(tmp_path: Path) -> list[Path]:
    """A directory for the front of the clients' PATH whose ``uvx`` is the real uv, offline,
    with its cache under *tmp_path*."""
    bin_dir = tmp_path / "offline-bin"
    bin_dir.mkdir()
    uv = shutil.which("uv")
    script = bin_dir / "uvx"
    body = (
        f'exec "{uv}" tool run --offline --no-config "$@"'
        if uv
        else 'echo "uv is not installed" >&2; exit 1'
    )
    script.write_text(
        "#!/bin/sh\n"
        f'UV_CACHE_DIR="{tmp_path / "uv-cache"}" UV_TOOL_DIR="{tmp_path / "uv-tools"}"\n'
        "export UV_CACHE_DIR UV_TOOL_DIR\n"
        f"{body}\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return [bin_dir]


def test_claude_code_validates_installs_and_lists_the_exported_server(
    npm_clients: dict[str, InstallOutcome],
    wheel: Path,
    home: Path,
    tmp_path: Path,
    offline_uv: list[Path],
) -> None:
    client = _client(npm_clients, "claude-code")
    work = tmp_path / "work"
    work.mkdir()
    plugin = tmp_path / "plugin"
    export("claude-plugin", [str(wheel)], plugin)
    done = run_client(client, home, work, "plugin", "validate", str(plugin))
    assert done.returncode == 0 and "Validation passed" in done.stdout, done.stdout + done.stderr
    market = tmp_path / "market"
    export(
        "claude-marketplace",
        [str(wheel), str(SAMPLES / "skills-only")],
        market,
        name="weather-market",
        owner="Weather Team",
    )
    done = run_client(client, home, work, "plugin", "validate", str(market))
    assert done.returncode == 0 and "Validation passed" in done.stdout, done.stdout + done.stderr
    for command in (
        ("plugin", "marketplace", "add", str(market)),
        ("plugin", "install", "weather-tools@weather-market"),
    ):
        done = run_client(client, home, work, *command)
        assert done.returncode == 0, done.stdout + done.stderr
    listed = listing(
        client,
        home,
        work,
        ("mcp", "list"),
        until=lambda out: "plugin:weather-tools:weather" in out,
        path=offline_uv,
    )
    output = listed.stdout + listed.stderr
    assert f"plugin:weather-tools:weather: {UVX_LINE}" in output, output


def test_gemini_cli_validates_links_and_lists_the_extension_with_its_server_and_skills(
    npm_clients: dict[str, InstallOutcome],
    wheel: Path,
    home: Path,
    tmp_path: Path,
    offline_uv: list[Path],
) -> None:
    client = _client(npm_clients, "gemini-cli")
    work = tmp_path / "work"
    work.mkdir()
    for rel, content in client.setup.items():
        target = home / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content.format(cwd=work))
    extension = tmp_path / "weather-tools"
    export("gemini-extension", [str(wheel)], extension)
    done = run_client(client, home, work, "extensions", "validate", str(extension))
    output = done.stdout + done.stderr
    assert done.returncode == 0 and "successfully validated" in output, output
    done = run_client(
        client, home, work, "extensions", "link", str(extension), "--consent", path=offline_uv
    )
    assert done.returncode == 0, done.stdout + done.stderr
    listed = listing(
        client, home, work, ("extensions", "list"), until=lambda o: "weather-tools" in o
    )
    output = listed.stdout + listed.stderr
    assert "weather-tools (1.2.0)" in output, output
    assert "MCP servers:\n  weather" in output, output
    for skill in WEATHER_SKILLS:
        assert f"  {skill}: " in output, output
    skills = listing(client, home, work, ("skills", "list"), until=lambda o: "weather-report" in o)
    output = skills.stdout + skills.stderr
    for skill in WEATHER_SKILLS:
        assert f"{skill} [Enabled]" in output, output
    assert str(extension / "skills" / "weather-report" / "SKILL.md") in output, output


def test_codex_adds_the_marketplace_lists_the_plugin_and_its_server(
    npm_clients: dict[str, InstallOutcome], wheel: Path, home: Path, tmp_path: Path
) -> None:
    client = _client(npm_clients, "codex")
    work = tmp_path / "work"
    work.mkdir()
    market = tmp_path / "market"
    export(
        "codex-marketplace",
        [str(wheel), str(SAMPLES / "skills-only")],
        market,
        name="weather-market",
    )
    done = run_client(client, home, work, "plugin", "marketplace", "add", str(market))
    assert done.returncode == 0, done.stdout + done.stderr
    listed = run_client(client, home, work, "plugin", "list")
    output = listed.stdout + listed.stderr
    assert listed.returncode == 0, output
    assert "weather-tools@weather-market" in output and "skills-only@weather-market" in output
    done = run_client(client, home, work, "plugin", "add", "weather-tools@weather-market")
    assert done.returncode == 0, done.stdout + done.stderr
    listed = run_client(client, home, work, "mcp", "list")
    output = listed.stdout + listed.stderr
    assert "weather" in output and "--from weather-tools==1.2.0 weather-mcp" in output, output
    listed = run_client(client, home, work, "plugin", "list")
    assert "installed, enabled  1.2.0" in listed.stdout, listed.stdout
