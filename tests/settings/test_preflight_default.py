"""The start check is what every command that writes MCP server entries does by default: a
server whose entry would not start (its module not found by its interpreter, its script
missing or not executable, its command not on the PATH) refuses the deployment with one line
naming it, exit 1, nothing written; ``--no-check`` writes it; ``--check`` also starts it and
waits for ``initialize``. A portable ``uvx`` entry needs ``uvx`` on the PATH and nothing else;
a URL server has nothing to start."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agenttools_runtime.deploy import deployed
from tests.helpers.envs import run, snapshot
from tests.helpers.venvs import activate, fake_distribution, fake_site, skill_files

END = "Nothing was written (--no-check writes it unchecked)."

# a stdio MCP server that answers initialize, and one that reads and never answers (it ends
# when its stdin is closed: no sleep on either side)
ANSWERING = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        result = {"protocolVersion": "2025-06-18", "capabilities": {},
                  "serverInfo": {"name": "answering", "version": "1"}}
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""
SILENT = "import sys\nsys.stdin.buffer.read()  # until stdin is closed; never answers\n"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return fake_site(tmp_path / "venv")


def scripts_of(site: Path) -> Path:
    return site.parents[2] / ("Scripts" if sys.platform == "win32" else "bin")


def nothing_written(home: Path, before: dict[str, Any]) -> None:
    assert snapshot(home) == before
    assert deployed() == []


CASES = {
    "a missing module": ({"module": "nowhere_at_all.server"}, "the module nowhere_at_all.server"),
    "a missing script": ({"script": "no-such-script"}, "no-such-script does not exist"),
    "a script not executable": ({"script": "plain-file"}, "plain-file is not executable"),
    "a command not on the PATH": ({"command": "no-such-command-4c1d"}, "is not on the PATH"),
    "a package without __main__": ({"module": "mainless"}, "the package mainless has no __main__"),
}


def broken(site: Path, server: dict[str, object]) -> None:
    """``odd-server`` 1.0.0 with the server ``odd`` and a skill, its module or script missing
    (``stubs=False``); ``plain-file`` is there but not executable, the package ``mainless``
    has no ``__main__``."""
    fake_distribution(site, "odd-server", "1.0.0", servers={"odd": server},
                      skills={"odd-notes": skill_files("odd-notes")}, stubs=False)  # fmt: skip
    (site / "mainless").mkdir()
    (site / "mainless" / "__init__.py").write_text("")  # a package python -m cannot run
    plain = scripts_of(site) / "plain-file"
    plain.write_text("#!/bin/sh\n")
    plain.chmod(0o644)


@pytest.mark.parametrize("case", list(CASES))
def test_by_default_a_server_that_cannot_start_is_refused(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, case: str
) -> None:
    server, reason = CASES[case]
    broken(site, server)
    before = snapshot(home)
    ran = run(capsys, "deploy", "claude-code", "odd-server", "--path", str(site))
    assert ran.status == 1, ran.out
    (line,) = ran.err.strip().splitlines()
    assert line.startswith('agenttools: The MCP server "odd" would not start from its entry for ')
    assert reason in line and line.endswith(END)
    nothing_written(home, before)  # neither the entry nor the skill, nor a record


@pytest.mark.parametrize("case", list(CASES))
def test_no_check_writes_it_anyway(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path, case: str
) -> None:
    broken(site, CASES[case][0])
    ran = run(capsys, "deploy", "claude-code", "odd-server", "--path", str(site), "--no-check")
    assert ran.status == 0, ran.err
    assert "odd" in json.loads((home / ".claude.json").read_text())["mcpServers"]
    assert [d.toolset for d in deployed()] == ["odd-server/odd-server"]


def test_the_api_checks_by_default(home: Path, site: Path) -> None:
    from agenttools import deploy
    from agenttools_runtime.errors import MCPServerCannotStart
    from agenttools_runtime.search_path import SearchPath

    broken(site, CASES["a missing module"][0])
    search = SearchPath.for_paths([site])
    with pytest.raises(MCPServerCannotStart, match='"odd" would not start'):
        deploy("claude-code", "odd-server", search=search)
    assert deployed() == []
    assert (
        deploy("claude-code", "odd-server", search=search, check="none").toolset
        == "odd-server/odd-server"
    )


def test_one_server_of_two_that_cannot_start_refuses_the_whole_deployment(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    """Nothing half-written: the server that would start is not written either, nor the
    bundle's skill."""
    fake_distribution(
        site, "pair", "1.0.0",
        servers={"good": {"module": "pair_good.server"}, "bad": {"module": "pair_gone.server"}},
        skills={"pair-notes": skill_files("pair-notes")},
    )  # fmt: skip
    (site / "pair_gone" / "server.py").unlink()  # (the stub of the one that is gone)
    before = snapshot(home)
    ran = run(capsys, "deploy", "cursor", "pair", "--path", str(site))
    assert ran.status == 1
    (line,) = ran.err.strip().splitlines()
    assert '"bad" would not start' in line and "pair_gone.server" in line
    nothing_written(home, before)
    ran = run(capsys, "deploy", "cursor", "pair", "--path", str(site), "--no-check")
    assert ran.status == 0, ran.err
    assert set(json.loads((home / ".cursor" / "mcp.json").read_text())["mcpServers"]) == {
        "good",
        "bad",
    }


def test_a_package_with_its_main_passes(capsys: pytest.CaptureFixture[str], site: Path) -> None:
    fake_distribution(
        site, "runnable", "1.0.0", servers={"runnable": {"module": "runnable"}}, stubs=False
    )
    (site / "runnable").mkdir()
    (site / "runnable" / "__init__.py").write_text("")
    (site / "runnable" / "__main__.py").write_text("")
    assert run(capsys, "deploy", "claude-code", "runnable", "--path", str(site)).status == 0


def test_check_fails_a_server_that_never_answers_within_the_timeout(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    site: Path,
    tmp_path: Path,
) -> None:
    silent, answering = tmp_path / "silent.py", tmp_path / "answering.py"
    silent.write_text(SILENT)
    answering.write_text(ANSWERING)
    fake_distribution(site, "quiet", "1.0.0",
                      servers={"quiet": {"command": sys.executable, "args": [str(silent)]}})  # fmt: skip
    fake_distribution(site, "chatty", "1.0.0",
                      servers={"chatty": {"command": sys.executable, "args": [str(answering)]}})  # fmt: skip
    monkeypatch.setenv("AGENTTOOLS_CHECK_TIMEOUT", "1")
    before = snapshot(home)
    started = time.monotonic()
    ran = run(capsys, "deploy", "claude-code", "quiet", "--path", str(site), "--check")
    took = time.monotonic() - started
    assert ran.status == 1
    (line,) = ran.err.strip().splitlines()
    assert '"quiet" would not start' in line and "no answer to initialize within 1 s" in line
    assert took < 25  # the timeout and stopping the server, even loaded: not the default 30 s
    nothing_written(home, before)
    # the default check only looks: the silent server's command is there, so it is written
    assert run(capsys, "deploy", "claude-code", "quiet", "--path", str(site)).status == 0
    ran = run(capsys, "deploy", "claude-code", "chatty", "--path", str(site), "--check")
    assert ran.status == 0, ran.err


def test_a_portable_uvx_entry_needs_uvx_on_the_path(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    site: Path,
    tmp_path: Path,
) -> None:
    """``--runner uvx`` writes ``uvx --from 'odd-server==1.0.0' odd-mcp``: the console
    script need not be here (uvx installs it where the entry runs); uvx must be on the PATH."""
    broken(site, {"script": "odd-mcp"})
    project = tmp_path / "project"
    project.mkdir()
    argv = ["deploy", "claude-code", "odd-server", "--path", str(site), "--project", str(project),
            "--runner", "uvx"]  # fmt: skip
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    ran = run(capsys, *argv)
    assert ran.status == 1
    assert "uvx is not on the PATH" in ran.err and END in ran.err
    assert not (project / ".mcp.json").exists()
    uvx = empty / "uvx"
    uvx.write_text("#!/bin/sh\n")
    uvx.chmod(0o755)
    ran = run(capsys, *argv)
    assert ran.status == 0, ran.err
    assert json.loads((project / ".mcp.json").read_text())["mcpServers"]["odd"]["command"] == "uvx"


def test_a_url_server_has_nothing_to_start(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    fake_distribution(site, "remote", "1.0.0", servers={"remote": {"url": "https://mcp.invalid/"}})
    ran = run(capsys, "deploy", "cursor", "remote", "--path", str(site))
    assert ran.status == 0, ran.err


def test_sync_leaves_a_deployment_whose_new_version_cannot_start(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    fake_distribution(site, "moving", "1.0.0", servers={"moving": {"module": "moving_v1.server"}})
    assert run(capsys, "deploy", "claude-code", "moving", "--path", str(site)).status == 0
    entry = json.loads((home / ".claude.json").read_text())["mcpServers"]["moving"]
    (dist_info,) = site.glob("moving-1.0.0.dist-info")
    for path in sorted(dist_info.rglob("*"), reverse=True):  # pip install -U: 1.0.0 goes
        path.rmdir() if path.is_dir() else path.unlink()
    dist_info.rmdir()
    fake_distribution(site, "moving", "2.0.0", servers={"moving": {"module": "moving_v2.server"}},
                      stubs=False)  # fmt: skip
    ran = run(capsys, "sync", "--json")
    assert ran.status == 1
    (result,) = ran.json()["results"]
    assert result["result"] == "failed" and "moving_v2.server" in result["detail"]
    assert json.loads((home / ".claude.json").read_text())["mcpServers"]["moving"] == entry
    ran = run(capsys, "sync", "--no-check")
    assert ran.status == 0, ran.err
    assert "moving_v2.server" in json.dumps(json.loads((home / ".claude.json").read_text()))


def test_mcp_install_checks_a_declared_server_too(
    capsys: pytest.CaptureFixture[str], home: Path, site: Path
) -> None:
    broken(site, CASES["a missing module"][0])
    ran = run(capsys, "mcp", "install", "cursor", "odd-server/odd", "--path", str(site))
    assert ran.status == 1
    assert '"odd" would not start' in ran.err and not (home / ".cursor").exists()
    ran = run(capsys, "mcp", "install", "cursor", "odd-server/odd", "--path", str(site),
              "--no-check")  # fmt: skip
    assert ran.status == 0, ran.err


def test_a_command_on_the_path_passes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, home: Path, site: Path
) -> None:
    """The stub console script of a declared command, once its environment is on the PATH
    (as an activated venv is)."""
    fake_distribution(site, "named", "1.0.0", servers={"named": {"command": "named-mcp-9f2e"}})
    assert os.access(scripts_of(site) / "named-mcp-9f2e", os.X_OK)
    argv = ("deploy", "claude-code", "named", "--path", str(site))
    assert run(capsys, *argv).status == 1
    activate(monkeypatch, site)
    assert run(capsys, *argv).status == 0


def test_the_three_modes_are_one_choice(capsys: pytest.CaptureFixture[str]) -> None:
    for command in (["deploy"], ["sync"], ["configure"], ["mcp", "install"], ["add"], ["drop"]):
        both = run(capsys, *command, "--check", "--no-check")
        assert both.status == 2, command
        assert "argument --no-check: not allowed with argument --check" in both.err
        text = run(capsys, *command, "--help").out
        assert "--check" in text and "--no-check" in text, command


# a server that fails at start-up saying its key (as a real one might: "bad key: …")
LEAKING = "import os, sys\nsys.exit('bad key: ' + os.environ.get('LEAKY_API_KEY', ''))\n"


def test_what_a_failed_check_says_never_holds_a_secret(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    site: Path,
    tmp_path: Path,
) -> None:
    leaking = tmp_path / "leaking.py"
    leaking.write_text(LEAKING)
    key = {"description": "The key", "required": True, "secret": True}
    server = {"command": sys.executable, "args": [str(leaking)], "env": {"LEAKY_API_KEY": key}}
    fake_distribution(site, "leaky", "1.0.0", servers={"leaky": server}, schema=2)
    secret = "sekrit-5b1e9f"
    before = snapshot(home)
    given = ("--env", f"LEAKY_API_KEY={secret}", "--path", str(site), "--check")

    said = run(capsys, "deploy", "claude-code", "leaky", *given)
    as_json = run(capsys, "deploy", "claude-code", "leaky", *given, "--json")
    # at project scope the secret is a reference: the value comes from the environment
    monkeypatch.setenv("LEAKY_API_KEY", secret)
    project = tmp_path / "project"
    project.mkdir()
    referenced = run(capsys, "deploy", "claude-code", "leaky", "--path", str(site), "--check",
                     "--project", str(project))  # fmt: skip

    for ran in (said, as_json, referenced):
        assert ran.status == 1, ran.err
        assert secret not in ran.out + ran.err
    assert "bad key: *****" in said.err
    nothing_written(home, before)
    assert list(project.iterdir()) == []


def test_ctrl_c_while_mcp_install_check_waits_says_nothing_was_changed(
    home: Path, site: Path, tmp_path: Path
) -> None:
    """SIGINT while ``--check`` waits for the server's answer: exit 130, "nothing was
    changed", and nothing was."""
    started = tmp_path / "started"
    silent = tmp_path / "silent.py"
    silent.write_text(f"from pathlib import Path\nPath({str(started)!r}).touch()\n{SILENT}")
    fake_distribution(site, "quiet", "1.0.0",
                      servers={"quiet": {"command": sys.executable, "args": [str(silent)]}})  # fmt: skip
    before = snapshot(home)
    argv = ["mcp", "install", "cursor", "quiet/quiet", "--path", str(site), "--check"]
    process = subprocess.Popen(
        [sys.executable, "-m", "agenttools", *argv],
        env={**os.environ, "AGENTTOOLS_CHECK_TIMEOUT": "120"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not started.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # polling a condition, with a deadline
    assert started.exists(), process.communicate(timeout=60)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert out == ""
    assert err.strip() == "agenttools: interrupted; nothing was changed"
    nothing_written(home, before)


def test_a_command_found_only_by_a_relative_path_entry_is_refused(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    site: Path,
    tmp_path: Path,
) -> None:
    """A relative PATH entry is relative to the client's working directory, not this one."""
    tools = tmp_path / "here" / "tools"
    tools.mkdir(parents=True)
    script = tools / "here-only-4c1d"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    fake_distribution(site, "here", "1.0.0", servers={"here": {"command": "here-only-4c1d"}})
    monkeypatch.chdir(tmp_path / "here")
    monkeypatch.setenv("PATH", os.pathsep.join(["tools", "", os.environ["PATH"]]))
    ran = run(capsys, "deploy", "claude-code", "here", "--path", str(site))
    assert ran.status == 1
    assert "here-only-4c1d is not on the PATH" in ran.err
    monkeypatch.setenv("PATH", os.pathsep.join([str(tools), os.environ["PATH"]]))
    assert run(capsys, "deploy", "claude-code", "here", "--path", str(site)).status == 0


def test_a_relative_command_with_a_folder_is_refused(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    home: Path,
    site: Path,
    tmp_path: Path,
) -> None:
    """``tools/x`` is found from the client's working directory, not this one: it is no
    more found here than a command on a relative PATH entry."""
    tools = tmp_path / "here" / "tools"
    tools.mkdir(parents=True)
    script = tools / "here-only-7e2a"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    command = os.path.join("tools", "here-only-7e2a")
    fake_distribution(site, "here", "1.0.0", servers={"here": {"command": command}})
    monkeypatch.chdir(tmp_path / "here")
    ran = run(capsys, "deploy", "claude-code", "here", "--path", str(site))
    assert ran.status == 1, ran.out
    assert f"{command} is a path relative to the client's working directory" in ran.err
    assert not (home / ".claude.json").exists()
