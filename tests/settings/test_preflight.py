"""A server whose entry would not start is refused before anything is written (a missing
module, a missing script, a command not on the PATH, a copy the entry's interpreter does not
import: the default check, in a real venv; a server that exits: ``--check``); ``show --tools``
lists what each server offers. (The default in every command, ``--no-check`` and a server
that never answers ``initialize``: ``test_preflight_default``.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers.envs import run
from tests.helpers.venvs import fake_distribution
from tests.settings.sample import SECRET, venv_with, wheel_v1


@pytest.fixture
def venv(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return venv_with(tmp_path / "venv", wheel_v1(tmp_path_factory))


def refused(capsys, python: Path, server: dict[str, object], *extra: str) -> str:
    site = next(python.parents[1].glob("lib/python*/site-packages"))
    fake_distribution(site, "odd-server", "1.0.0", servers={"odd": server}, stubs=False)
    ran = run(capsys, "deploy", "claude-code", "odd-server", "--python", str(python), *extra)
    assert ran.status == 1, ran.out
    assert not (Path.home() / ".claude.json").exists()  # nothing written
    (line,) = ran.err.strip().splitlines()
    assert line.startswith('agenttools: The MCP server "odd" would not start from its entry')
    assert line.endswith("Nothing was written (--no-check writes it unchecked).")
    return line


def test_a_module_the_interpreter_does_not_find(venv, capsys) -> None:
    line = refused(capsys, venv.python, {"module": "nowhere_at_all.server"})
    assert f"the module nowhere_at_all.server is not found by {venv.python}" in line


def test_a_script_that_is_not_there(venv, capsys) -> None:
    line = refused(capsys, venv.python, {"script": "no-such-script"})
    assert f"{venv.scripts}/no-such-script does not exist" in line


def test_a_command_not_on_the_path(venv, capsys) -> None:
    line = refused(capsys, venv.python, {"command": "no-such-command-4c1d"})
    assert "no-such-command-4c1d is not on the PATH" in line


def test_a_server_that_exits_says_why(venv, capsys) -> None:
    """The sample refuses to start without its key: --check shows its last line of stderr."""
    ran = run(capsys, "deploy", "claude-code", "keyed-forecast/forecast", "--check",
              "--python", str(venv.python), "--env", "FORECAST_API_KEY=")  # fmt: skip
    assert ran.status == 1
    assert "it exited with status 1: keyed-forecast: FORECAST_API_KEY is not set" in ran.err


def test_check_passes_a_server_that_answers(venv, capsys) -> None:
    ran = run(capsys, "deploy", "claude-code", "keyed-forecast/forecast", "--check",
              "--python", str(venv.python), "--env", f"FORECAST_API_KEY={SECRET}")  # fmt: skip
    assert ran.status == 0, ran.err
    assert SECRET not in ran.out + ran.err


def test_path_with_another_copy_than_the_interpreter_runs(
    tmp_path: Path, tmp_path_factory, capsys
) -> None:
    """``--path DIR`` (pip install --target) with an interpreter that does not import DIR:
    the entry would run another copy than the skills deployed, or none — refused."""
    target = tmp_path / "target"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
         "--target", str(target), str(wheel_v1(tmp_path_factory))],
        check=True,
    )  # fmt: skip
    ran = run(capsys, "deploy", "codex", "keyed-forecast/forecast", "--path",
              str(target), "--env", f"FORECAST_API_KEY={SECRET}")  # fmt: skip
    assert ran.status == 1
    assert f"it is installed in {target}, which {sys.executable}" in ran.err or (
        f"it is installed in {target}, which" in ran.err and "does not import from" in ran.err
    )
    assert not (Path.home() / ".codex" / "config.toml").exists()


def test_path_with_another_copy_started_by_its_console_script(
    tmp_path: Path, tmp_path_factory, capsys
) -> None:
    """``--path DIR --runner script``: the entry starts the console script by name, which
    runs the copy its environment imports, not DIR's — refused as the python runner is."""
    target = tmp_path / "target"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
         "--target", str(target), str(wheel_v1(tmp_path_factory))],
        check=True,
    )  # fmt: skip
    ran = run(capsys, "deploy", "codex", "keyed-forecast/forecast", "--path", str(target),
              "--runner", "script", "--env", f"FORECAST_API_KEY={SECRET}")  # fmt: skip
    assert ran.status == 1
    assert f"it is installed in {target}, which" in ran.err and "does not import from" in ran.err
    assert not (Path.home() / ".codex" / "config.toml").exists()


def test_show_tools_lists_what_each_server_offers(venv, capsys) -> None:
    ran = run(capsys, "show", "keyed-forecast", "--tools", "--python", str(venv.python),
              "--env", f"forecast.FORECAST_API_KEY={SECRET}", "--json")  # fmt: skip
    assert ran.status == 0, ran.err
    forecast, alerts = ran.json()["bundle"]["offered"]
    assert [t["name"] for t in forecast["tools"]] == ["forecast"]
    assert [p["name"] for p in forecast["prompts"]] == ["plan-the-day"]
    assert [r["uri"] for r in forecast["resources"]] == ["forecast://regions"]
    assert "not contacted" in alerts["note"]
    text = run(capsys, "show", "keyed-forecast/forecast", "--tools", "--python",
               str(venv.python))  # fmt: skip
    assert text.status == 1
    assert "problem: it did not start: it exited with status 1" in text.out


def test_mcp_install_with_another_copy_than_the_interpreter_runs(
    tmp_path: Path, tmp_path_factory, capsys
) -> None:
    """``mcp install … --path DIR`` checks which copy the entry runs, as ``deploy`` does."""
    target = tmp_path / "target"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
         "--target", str(target), str(wheel_v1(tmp_path_factory))],
        check=True,
    )  # fmt: skip
    ran = run(capsys, "mcp", "install", "codex", "keyed-forecast/forecast", "--path",
              str(target), "--env", f"FORECAST_API_KEY={SECRET}")  # fmt: skip
    assert ran.status == 1
    assert f"it is installed in {target}, which" in ran.err and "does not import from" in ran.err
    assert "give --python of an environment" in ran.err  # (this command's options, not deploy's)
    assert not (Path.home() / ".codex" / "config.toml").exists()
