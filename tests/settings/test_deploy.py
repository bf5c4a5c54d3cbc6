"""Settings given at deploy time, kept by agenttools, and secrets kept out of everything that is
recorded, committed or printed — with the real keyed-forecast wheels in real venvs, real
config files under a temporary HOME."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from agenttools_runtime.clients import all_clients
from tests.helpers.envs import Ran, run
from tests.settings.sample import SECRET, TOKEN, venv_with, wheel_v1, wheel_v2


def _user_file(client: str) -> bool:
    from agenttools_runtime.clients import mcp_config_location
    from agenttools_runtime.errors import AgentToolsError

    try:
        mcp_config_location(client)
    except AgentToolsError:  # none on this OS (Claude Desktop on Linux)
        return False
    return True


MCP_CLIENTS = sorted(
    c.id for c in all_clients().values() if c.mcp_config is not None and _user_file(c.id)
)
PROJECT_CLIENTS = sorted(c.id for c in all_clients().values() if c.project_mcp_config)
REFERENCING = sorted(c.id for c in all_clients().values() if c.secret_reference)


@pytest.fixture
def venv(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    return venv_with(tmp_path / "venv", wheel_v1(tmp_path_factory))


class Outputs:
    """Every output of the commands a test runs, for the final check that no secret is in
    any of them."""

    def __init__(self, capsys: pytest.CaptureFixture[str], python: Path) -> None:
        self.capsys, self.python, self.seen = capsys, python, []

    def __call__(self, *argv: str) -> Ran:
        where = ("--python", str(self.python)) if argv[0] in ("deploy", "show") else ()
        ran = run(self.capsys, *argv, *where)
        self.seen.append(ran.out + ran.err)
        return ran

    def assert_no_secret(self) -> None:
        for text in self.seen:
            assert SECRET not in text and TOKEN not in text, text


def files_with(root: Path, value: str) -> list[Path]:
    found = []
    for directory, _dirs, names in os.walk(root):
        for name in names:
            path = Path(directory) / name
            if not path.is_symlink() and value.encode() in path.read_bytes():
                found.append(path)
    return found


def user_config(client: str) -> Path:
    from agenttools_runtime.clients import mcp_config_location

    return mcp_config_location(client)


def test_user_scope_every_client_gets_the_secret_in_its_own_file_only(
    venv, tmp_path: Path, capsys
) -> None:
    out = Outputs(capsys, venv.python)
    state = Path(os.environ["AGENTTOOLS_HOME"])
    written = set()
    for client in MCP_CLIENTS:
        for flag in ((), ("--json",), ("--dry-run",), ("--dry-run", "--json")):
            ran = out("deploy", client, "keyed-forecast/forecast", *flag,
                      "--env", f"FORECAST_API_KEY={SECRET}", "--env", "FORECAST_UNITS=imperial")  # fmt: skip
            assert ran.status == 0, ran.err
        written.add(user_config(client).resolve())
    ran = out("deploy", "claude-code", "keyed-forecast/alerts", "--env",
              f"alerts.Authorization={TOKEN}", "--json")  # fmt: skip
    assert ran.status == 0, ran.err
    for client in MCP_CLIENTS:
        text = user_config(client).read_text("utf-8")
        assert SECRET in text and "imperial" in text, client
    assert TOKEN in user_config("claude-code").read_text("utf-8")
    # nowhere else: not in a record, the registry, the index, any other file under HOME
    assert files_with(state, SECRET) == [] and files_with(state, TOKEN) == []
    home = Path.home()
    assert {p.resolve() for p in files_with(home, SECRET)} <= written
    assert [p.resolve() for p in files_with(home, TOKEN)] == [user_config("claude-code").resolve()]
    assert out("verify").status == 0
    listed = out("deployed", "--json")
    assert {d["status"] for d in listed.json()["deployments"]} == {"ok"}
    out.assert_no_secret()


def test_project_scope_gets_references_or_a_refusal(venv, tmp_path: Path, capsys) -> None:
    out = Outputs(capsys, venv.python)
    project = tmp_path / "project"
    project.mkdir()
    for client in PROJECT_CLIENTS:
        ran = out("deploy", client, "keyed-forecast/forecast", "--project", str(project),
                  "--env", f"FORECAST_API_KEY={SECRET}", "--runner", "python")  # fmt: skip
        if client in REFERENCING:
            assert ran.status == 0, ran.err
            assert "refers to the environment variable(s) FORECAST_API_KEY" in ran.err
        else:
            assert ran.status == 1
            assert "has no way for its project file" in ran.err
            assert "claude-code, codex, cursor, vscode" in ran.err
    claude = json.loads((project / ".mcp.json").read_text("utf-8"))["mcpServers"]["forecast"]
    assert claude["env"]["FORECAST_API_KEY"] == "${FORECAST_API_KEY}"
    vscode = json.loads((project / ".vscode" / "mcp.json").read_text("utf-8"))
    assert vscode["servers"]["forecast"]["env"]["FORECAST_API_KEY"] == "${env:FORECAST_API_KEY}"
    codex = (project / ".codex" / "config.toml").read_text("utf-8")
    assert 'env_vars = ["FORECAST_API_KEY"]' in codex
    ran = out("deploy", "codex", "keyed-forecast/alerts", "--project", str(project))
    assert ran.status == 0, ran.err  # a secret header: by reference, nothing to give
    assert 'env_http_headers = {Authorization = "ALERTS_AUTHORIZATION"}' in (
        project / ".codex" / "config.toml"
    ).read_text("utf-8")
    assert files_with(project, SECRET) == []
    assert files_with(Path(os.environ["AGENTTOOLS_HOME"]), SECRET) == []
    assert out("verify").status == 0
    out.assert_no_secret()


def test_missing_required_values_are_one_error_and_choices_are_checked(venv, capsys) -> None:
    out = Outputs(capsys, venv.python)
    ran = out("deploy", "claude-code", "keyed-forecast/forecast")
    assert ran.status == 1
    assert ran.err.strip().splitlines() == [
        'agenttools: The MCP server "forecast" needs values for FORECAST_API_KEY. Give them '
        "with --env NAME=VALUE (or run on a terminal to be asked)."
    ]
    ran = out("deploy", "claude-code", "keyed-forecast/forecast", "--env",
              f"FORECAST_API_KEY={SECRET}", "--env", "FORECAST_UNITS=kelvin")  # fmt: skip
    assert ran.status == 1
    assert "FORECAST_UNITS" in ran.err and "must be one of metric, imperial" in ran.err
    ran = out(
        "deploy", "claude-code", "keyed-forecast/forecast", "--env", f"FORECAST_APIKEY={SECRET}"
    )
    assert ran.status == 1 and '--env #1 names no setting of the MCP server "forecast"' in ran.err
    ran = out("deploy", "claude-code", "keyed-forecast", "--env", f"FORECAST_API_KEY={SECRET}")
    assert ran.status == 2 and "--env #1 names no server of the bundle" in ran.err
    assert "SERVER.VAR=VALUE" in ran.err
    assert not user_config("claude-code").exists()  # nothing was written
    out.assert_no_secret()


def test_a_value_given_without_its_name_is_never_shown(venv, capsys) -> None:
    # the secret typed where NAME=VALUE belongs, or after a bare "=": refused by position
    out = Outputs(capsys, venv.python)
    for given in (SECRET, f"={SECRET}"):
        ran = out(
            "deploy", "claude-code", "keyed-forecast/forecast", "--env", "A=b", "--env", given
        )
        assert ran.status in (1, 2) and "--env #2 is not NAME=VALUE" in ran.err, ran.err
    assert not user_config("claude-code").exists()
    deployed = out(
        "deploy", "claude-code", "keyed-forecast/forecast", "--env", f"FORECAST_API_KEY={SECRET}"
    )
    assert deployed.status == 0, deployed.err
    (uid,) = [d["uuid"] for d in out("deployed", "--json").json()["deployments"]]
    ran = out("configure", uid, SECRET)
    assert ran.status in (1, 2) and "value #1 is not NAME=VALUE" in ran.err, ran.err
    out.assert_no_secret()


def test_env_file_and_asked_on_a_terminal(venv, tmp_path: Path, capsys) -> None:
    env_file = tmp_path / ".env"
    env_file.write_text(
        f"# keys\nexport forecast.FORECAST_API_KEY='{SECRET}'\nalerts.Authorization=\"{TOKEN}\"\n"
    )
    out = Outputs(capsys, venv.python)
    ran = out("deploy", "claude-code", "keyed-forecast", "--env-file", str(env_file))
    assert ran.status == 0, ran.err
    entries = json.loads(user_config("claude-code").read_text("utf-8"))["mcpServers"]
    assert entries["forecast"]["env"]["FORECAST_API_KEY"] == SECRET
    assert entries["alerts"]["headers"]["Authorization"] == TOKEN
    out.assert_no_secret()


def test_asked_without_echo_on_a_terminal(venv, tmp_path: Path) -> None:
    """On a terminal the secret is asked for with getpass (no echo), the rest on stdin."""
    import pty

    env = {**os.environ, "HOME": str(Path.home())}
    pid, fd = pty.fork()
    if pid == 0:  # the child: agenttools on the terminal
        os.execve(sys.executable, [sys.executable, "-m", "agenttools", "deploy", "claude-code",
                  "keyed-forecast/forecast", "--python", str(venv.python)], env)  # fmt: skip
    seen = b""
    import select
    import time

    deadline, sent = time.monotonic() + 60, False
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
        if not sent and b"FORECAST_API_KEY" in seen:
            os.write(fd, SECRET.encode() + b"\n")
            sent = True
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, seen
    assert SECRET.encode() not in seen  # not echoed
    env_table = json.loads(user_config("claude-code").read_text("utf-8"))["mcpServers"]
    assert env_table["forecast"]["env"]["FORECAST_API_KEY"] == SECRET


def test_values_are_kept_by_redeploy_upgrade_and_configure(
    venv, tmp_path: Path, tmp_path_factory, capsys
) -> None:
    out = Outputs(capsys, venv.python)
    state = Path(os.environ["AGENTTOOLS_HOME"])
    config = user_config("claude-code")
    assert out("deploy", "claude-code", "keyed-forecast/forecast", "--env",
               f"FORECAST_API_KEY={SECRET}", "--env", "FORECAST_UNITS=imperial").status == 0  # fmt: skip
    # the same deploy again, without values: they are agenttools', nothing changes
    again = out("deploy", "claude-code", "keyed-forecast/forecast")
    assert again.status == 0 and "nothing to do" in again.out, again.err
    (uid,) = [d["uuid"] for d in out("deployed", "--json").json()["deployments"]]
    listed = out("configure", uid)
    assert listed.out.splitlines() == [
        "forecast.FORECAST_API_KEY = *****",
        "forecast.FORECAST_UNITS = imperial",
    ]
    done = out("configure", uid, "FORECAST_UNITS=metric")
    assert done.status == 0, done.err
    env = json.loads(config.read_text("utf-8"))["mcpServers"]["forecast"]["env"]
    assert env == {"FORECAST_REGION": "eu", "FORECAST_API_KEY": SECRET, "FORECAST_UNITS": "metric"}
    assert out("verify").status == 0  # values agenttools set are no drift
    # 2.0.0 drops FORECAST_UNITS and adds FORECAST_STATION
    venv.install(wheel_v2(tmp_path_factory))
    synced = out("sync")
    assert synced.status == 0, synced.err
    assert "no longer declares FORECAST_UNITS in 2.0.0" in synced.err
    env = json.loads(config.read_text("utf-8"))["mcpServers"]["forecast"]["env"]
    assert env == {"FORECAST_REGION": "eu", "FORECAST_API_KEY": SECRET}  # the secret carried over
    (uid,) = [d["uuid"] for d in out("deployed", "--json").json()["deployments"]]
    assert out("configure", uid, "FORECAST_STATION=EGLL").status == 0
    env = json.loads(config.read_text("utf-8"))["mcpServers"]["forecast"]["env"]
    assert env["FORECAST_STATION"] == "EGLL" and env["FORECAST_API_KEY"] == SECRET
    assert out("verify").status == 0
    # the user changes the key by hand: drift, seen from the digest, the value not printed
    data = json.loads(config.read_text("utf-8"))
    data["mcpServers"]["forecast"]["env"]["FORECAST_API_KEY"] = "sk-other-77"
    config.write_text(json.dumps(data))
    verify = out("verify")
    assert verify.status == 1 and "FORECAST_API_KEY" in verify.out + verify.err
    assert "sk-other-77" not in verify.out + verify.err
    assert files_with(state, SECRET) == []
    out.assert_no_secret()


def test_remove_takes_the_entry_and_its_secret(venv, capsys) -> None:
    out = Outputs(capsys, venv.python)
    assert out("deploy", "codex", "keyed-forecast/forecast", "--env",
               f"FORECAST_API_KEY={SECRET}").status == 0  # fmt: skip
    (uid,) = [d["uuid"] for d in out("deployed", "--json").json()["deployments"]]
    assert out("remove", uid).status == 0
    assert (
        SECRET not in user_config("codex").read_text("utf-8")
        if user_config("codex").exists()
        else True
    )


def test_a_dry_run_of_a_new_secret_masks_the_old_one_too(venv, capsys) -> None:
    out = Outputs(capsys, venv.python)
    assert out("deploy", "claude-code", "keyed-forecast/forecast", "--env",
               f"FORECAST_API_KEY={SECRET}").status == 0  # fmt: skip
    for flag in ((), ("--json",)):
        ran = out("deploy", "claude-code", "keyed-forecast/forecast", "--upgrade", "--dry-run",
                  "--env", "FORECAST_API_KEY=sk-new-value-93", *flag)  # fmt: skip
        assert ran.status == 0, ran.err
        assert "sk-new-value-93" not in ran.out + ran.err and "*****" in ran.out
    out.assert_no_secret()


def test_mcp_install_takes_the_values_too(venv, tmp_path: Path, capsys) -> None:
    out = Outputs(capsys, venv.python)
    python = ("--python", str(venv.python))
    missing = out("mcp", "install", "codex", "keyed-forecast/forecast", *python)
    assert missing.status == 1 and "needs values for FORECAST_API_KEY" in missing.err
    done = out("mcp", "install", "codex", "keyed-forecast/forecast", *python, "--env",
               f"FORECAST_API_KEY={SECRET}")  # fmt: skip
    assert done.status == 0, done.err
    assert SECRET in user_config("codex").read_text("utf-8")
    project = tmp_path / "p"
    project.mkdir()
    refused = out("mcp", "install", "codex", "keyed-forecast/forecast", *python, "--project",
                  str(project), "--env", f"FORECAST_API_KEY={SECRET}")  # fmt: skip
    assert refused.status == 1 and "a project file that is committed" in refused.err
    assert not (project / ".codex").exists()
    out.assert_no_secret()


def test_argument_placeholders_are_filled_and_kept(
    tmp_path: Path, tmp_path_factory, capsys
) -> None:
    from tests.settings.sample import wheel_with_placeholders

    venv = venv_with(tmp_path / "venv", wheel_with_placeholders(tmp_path_factory))
    out = Outputs(capsys, venv.python)
    config = user_config("codex")
    assert out("deploy", "codex", "keyed-forecast/forecast", "--env",
               f"FORECAST_API_KEY={SECRET}").status == 0  # fmt: skip
    assert 'args = ["-m", "keyed_forecast.server", "--region", "eu"]' in config.read_text()
    ran = out("deploy", "codex", "keyed-forecast/forecast", "--upgrade", "--env", "days=3")
    assert ran.status == 0, ran.err
    assert '"--region", "eu", "--days=3"]' in config.read_text()
    assert out("deploy", "codex", "keyed-forecast/forecast", "--env", "days=7").status == 1
    (uid,) = [d["uuid"] for d in out("deployed", "--json").json()["deployments"]]
    assert out("configure", uid, "region=us").status == 0
    assert '"--region", "us", "--days=3"]' in config.read_text()
    assert out("verify").status == 0
    out.assert_no_secret()


def test_a_closed_stdin_is_no_terminal_the_missing_values_are_one_error(venv) -> None:
    """Started with its stdin closed (``<&-``: ``sys.stdin`` is None), nothing is asked.
    (``closerange``: where the parent's own stdin is closed, a pipe may take descriptor 0,
    which the child has closed already.)"""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "agenttools", "deploy", "claude-code", "keyed-forecast/forecast",
         "--python", str(venv.python)],
        capture_output=True, text=True, timeout=300, preexec_fn=lambda: os.closerange(0, 1),
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and "FORECAST_API_KEY" in done.stderr
    assert not user_config("claude-code").exists()
