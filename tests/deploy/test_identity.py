"""A deployment's identity is what it deployed, how and where — never where the command was
started from or how: the same redeploy from three working directories through ``python -m
agenttools``, ``python3 -m agenttools``, the console script and the Python API each exits 0
and rewrites nothing (with ``--upgrade`` too). A redeploy that does differ says what
(``DeploymentDiffers``: the version, the interpreter, the runner, which files), and a name
that is not installed is suggested only close names, naming where it was looked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.skills.hashing import hash_bytes
from tests.helpers.venvs import (
    activate,
    fake_distribution,
    fake_site,
    install_console_scripts,
    skill_files,
)
from tests.helpers.wheels import sample_wheel  # noqa: F401

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = Path(sys.executable).parent
PIP_INSTALL = [sys.executable, "-m", "pip", "--disable-pip-version-check", "install"]
PIP_INSTALL += ["--no-deps", "--no-index", "--quiet"]
DEPLOY = [sys.executable, "-m", "agenttools", "deploy", "codex", "weather-tools"]


def files(*roots: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under *roots*: its bytes and modification time, a rewrite shows in both."""
    found = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink():
                found[str(path)] = (path.read_bytes(), path.stat().st_mtime_ns)
    return found


def tracked(state: Path) -> list[Path]:
    """What a deploy writes into the state: records, the registry, the ledger (not the
    caches that any command may refresh)."""
    deployments = state / "deployments"
    return [
        p
        for p in deployments.iterdir()
        if p.is_dir() and p.name not in (".index", ".verified", ".journal", ".lock")
    ]


@pytest.mark.slow
def test_the_same_redeploy_from_anywhere_rewrites_nothing(
    tmp_path: Path,
    home: Path,
    sample_wheel,  # noqa: F811
) -> None:
    site = fake_site(tmp_path / "site")
    subprocess.run(
        [*PIP_INSTALL, "--target", str(site), str(sample_wheel("weather-tools"))],
        check=True,
        capture_output=True,
    )
    env = {**os.environ, "PYTHONPATH": str(site)}  # found through sys.path, as installed
    api = "import agenttools; agenttools.deploy('codex', 'weather-tools')"
    launchers = {
        "python -m": DEPLOY,
        "python3 -m": [str(SCRIPTS / "python3"), *DEPLOY[1:]],
        "console script": [str(SCRIPTS / "agenttools"), "deploy", "codex", "weather-tools"],
        "API": [sys.executable, "-c", api],
    }
    places = [tmp_path / name for name in ("a", "b", "c")]
    for place in places:
        place.mkdir()

    def deploy(argv: list[str], cwd: Path) -> str:
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, (argv, cwd, done.stdout + done.stderr)
        return done.stdout + done.stderr

    deploy(launchers["python -m"], places[0])
    state = Path(os.environ["AGENTTOOLS_HOME"])
    (uuid,) = [p.name for p in tracked(state) if not p.name.startswith(".")]
    before = files(home, *tracked(state))
    for place in places:
        for name, argv in launchers.items():
            if not Path(argv[0]).exists():
                continue  # (python3: not every environment has the name)
            deploy(argv, place)
            assert files(home, *tracked(state)) == before, (name, place)
            if name != "API":
                printed = deploy([*argv, "--upgrade"], place)
                assert uuid in printed, printed  # the same deployment, not a new one
                assert files(home, *tracked(state)) == before, (name, place, "--upgrade")


# -- what differs ------------------------------------------------------------------------------
def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out + err


def weather(site: Path, version: str = "1.0.0", text: str = "Weather reports.") -> Path:
    return fake_distribution(
        site,
        "weather-tools",
        version,
        servers={"weather": {"module": "weather_tools.server"}},
        skills={"weather-report": skill_files("weather-report", text)},
    )


def differs(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    status, printed = run(capsys, "deploy", "codex", "weather-tools", *argv)
    assert status == 1, printed
    assert "are already deployed to Codex CLI" in printed, printed
    assert "a rebuild, or files changed since" not in printed
    return printed


def test_a_new_version_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = fake_site(tmp_path / "site")
    weather(site)
    assert run(capsys, "deploy", "codex", "weather-tools", "--path", str(site))[0] == 0
    for dist_info in site.glob("*.dist-info"):
        dist_info.rename(site / "old")
    weather(site, "2.0.0")
    printed = differs(capsys, "--path", str(site))
    assert "with another version (1.0.0 deployed, 2.0.0 installed)" in printed, printed


def test_another_runner_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    site = fake_site(tmp_path / "site")
    install_console_scripts(weather(site), {"weather-mcp": "weather_tools.server:main"})
    activate(monkeypatch, site)  # (the script runner's entry runs it by name)
    assert run(capsys, "deploy", "codex", "weather-tools", "--path", str(site))[0] == 0
    printed = differs(capsys, "--path", str(site), "--runner", "script")
    assert "another --runner (python deployed, script now)" in printed, printed
    assert "other files (the MCP server entry weather)" in printed, printed


def test_another_interpreter_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sites = []
    for venv in ("one", "two"):  # two environments, each with its interpreter beside it
        sites.append(fake_site(tmp_path / venv))
        weather(sites[-1])
    assert run(capsys, "deploy", "codex", "weather-tools", "--path", str(sites[0]))[0] == 0
    printed = differs(capsys, "--path", str(sites[1]))
    one, two = (tmp_path / venv / "bin" / "python" for venv in ("one", "two"))
    assert f"another interpreter ({one} deployed, {two} now)" in printed, printed


def test_other_files_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    site = fake_site(tmp_path / "site")
    weather(site)
    assert run(capsys, "deploy", "codex", "weather-tools", "--path", str(site))[0] == 0
    for dist_info in site.glob("*.dist-info"):
        dist_info.rename(site / "old")
    weather(site, text="Weather reports, rebuilt.")  # the same version, rebuilt
    printed = differs(capsys, "--path", str(site))
    assert "other files (the skill weather-report)" in printed, printed
    assert "version" not in printed.split("(deployment", 1)[1].split(". Use", 1)[0]


def test_files_changed_since_are_named(
    tmp_path: Path, home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    site = fake_site(tmp_path / "site")
    weather(site)
    assert run(capsys, "deploy", "codex", "weather-tools", "--path", str(site))[0] == 0
    config = home / ".codex" / "config.toml"
    config.unlink()  # the entry gone: the same deployment, but the redeploy writes it again
    printed = differs(capsys, "--path", str(site))
    assert f"files changed since it was deployed (the MCP config file {config}: see" in printed


# -- names that are not installed ----------------------------------------------------------------
def test_only_close_names_are_suggested_and_the_place_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    status, printed = run(capsys, "deploy", "codex", "weather-tools", "--path", str(empty))
    assert status == 1
    assert printed.strip() == (
        f"agenttools: weather-tools is not installed in the site-packages directory {empty} "
        "nor in a managed environment. Install it into a managed environment and deploy it: "
        "agenttools deploy codex weather-tools --install"
    )  # ("agenttools", the built-in bundle, is not close: difflib's ratio is 0.61)
    status, printed = run(capsys, "show", "weather-tools/weather", "--path", str(empty))
    assert f"is not installed in the site-packages directory {empty}" in printed, printed
    assert f"pip install --target {empty} weather-tools" in printed
    assert "Did you mean" not in printed
    site = fake_site(tmp_path / "site")
    weather(site)
    status, printed = run(capsys, "deploy", "codex", "weathr-tools", "--path", str(site))
    assert 'Did you mean "weather-tools"' in printed, printed
    status, out = run(capsys, "show", "weathr-tools", "--path", str(site), "--json")
    assert json.loads(out)["error"]["environment"] == f"the site-packages directory {site}"
    assert hash_bytes(b"")  # (the helpers' hashing, as the fake distributions use it)
