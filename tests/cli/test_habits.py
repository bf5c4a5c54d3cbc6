"""The habits of the CLIs people know: "did you mean" for clients, bundles, servers,
commands and choices; the active ``VIRTUAL_ENV``; an empty ``list`` that says where it looked
and how to look elsewhere."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from agenttools_runtime.suggest import close_matches, did_you_mean
from tests.helpers.venvs import create_venv, fake_site
from tests.helpers.weather import weather


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_close_matches() -> None:
    assert close_matches("cusor", ["cursor", "codex", "cline"]) == ["cursor"]
    assert close_matches("CURSR", ["cursor"]) == ["cursor"]
    assert close_matches("weather", ["weather-tools/weather-tools", "x"]) == [
        "weather-tools/weather-tools"
    ]
    assert close_matches("zzz", ["cursor"]) == []
    assert did_you_mean("claudecode", {"claude-code": "claude-code", "ClaudeCode": "claude-code"})
    assert did_you_mean("zzz", ["cursor"]) == ""


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["deplyo"], "invalid choice: 'deplyo'. Did you mean \"deploy\""),
        (["clinets"], 'Did you mean "clients"'),
        (["mcp", "instal"], 'Did you mean "install"'),
        (["deploy", "cursor", "--runner", "scrpit"], 'Did you mean "script"'),
        (["deploy", "cusor"], 'Unknown client "cusor". Did you mean "cursor"?'),
        (["mcp", "list", "gemni"], 'Did you mean "gemini-cli"?'),
    ],
)
def test_did_you_mean_for_commands_choices_and_clients(
    capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    status, _, err = run(capsys, *argv)
    assert status in (1, 2)
    assert expected in err, err


def test_did_you_mean_for_bundles_and_servers(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    site = fake_site(tmp_path / "site")
    weather(site, "1.2.0")
    path = ["--path", str(site)]
    cases = {
        ("deploy", "cursor", "wether-tools"): '"weather-tools"',
        ("deploy", "cursor", "weather-tools/reprots"): '"weather-tools/reports"',
        ("show", "weather-tools/wether"): '"weather-tools/weather"',
        ("mcp", "install", "cursor", "weather-tools/wether"): '"weather-tools/weather"',
        ("show", "weathr-tools/reports"): '"weather-tools"',
    }
    for argv, expected in cases.items():
        status, _, err = run(capsys, *argv, *path)
        assert status == 1, err
        assert f"Did you mean {expected}" in err, (argv, err)
    status, out, _ = run(capsys, "show", "wether-tools", *path, "--json")
    assert json.loads(out)["error"]["hint"].startswith('Did you mean "weather-tools"')
    status, _, err = run(capsys, "show", "completely-unrelated", *path)
    assert status == 1 and "Did you mean" not in err


def test_empty_list_says_where_it_looked_and_hints_python(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    empty = tmp_path / "empty-site"
    empty.mkdir()
    status, out, _ = run(capsys, "list", "--path", str(empty))
    assert status == 0
    assert "No agent tools bundles found in the environment of" in out
    assert "--python PATH" in out and "VIRTUAL_ENV" in out


@pytest.mark.slow
def test_the_active_virtual_env_is_used_and_said(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """agenttools installed elsewhere (pipx, uv tool), the user's venv activated: that venv's
    distributions are listed and deployed, and the output says which environment it is."""
    venv = create_venv(tmp_path / "venv")
    weather(venv.site_packages, "1.2.0")
    monkeypatch.setenv("VIRTUAL_ENV", str(tmp_path / "venv"))
    status, out, err = run(capsys, "list")
    assert status == 0, err
    assert "weather-tools/weather-tools" in out
    assert f"using the active virtual environment {tmp_path / 'venv'} (VIRTUAL_ENV)" in err
    status, out, err = run(capsys, "list", "--json")
    assert json.loads(out)["python"] == str(venv.python)
    status, out, err = run(capsys, "deploy", "cursor", "weather-tools/weather-tools", "--dry-run")
    assert status == 0, err
    assert f'"command": "{venv.python}"' in out  # the server runs in that venv
    # --python wins, and the venv agenttools runs in is not "another" one
    status, out, err = run(capsys, "list", "--python", str(venv.python))
    assert "VIRTUAL_ENV" not in err
    # the venv agenttools itself runs in, active: the same listing as with none active (and
    # whatever that environment holds, the other venv's distribution is not in it)
    monkeypatch.delenv("VIRTUAL_ENV")
    status, plain, err = run(capsys, "list", "--json")
    monkeypatch.setenv("VIRTUAL_ENV", sys.prefix)
    status, out, err = run(capsys, "list", "--json")
    assert "VIRTUAL_ENV" not in err
    assert json.loads(out) == json.loads(plain)
    assert json.loads(out)["python"] != str(venv.python)


def test_serve_help_says_which_clients_see_skills_list(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "skills/list and skills/get answer only clients that negotiate the newest MCP" in text
    assert "today's clients see the skills as resources and prompts" in text


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        (["deploy", "claude-code", "weather-tools", "--skills-dir", ""], "--skills-dir"),
        (["deploy", "claude-code", "weather-tools", "--name", ""], "--name"),
        (["deploy", "claude-code", "weather-tools", "--python", ""], "--python"),
        (["deploy", "claude-code", "weather-tools", "--path", ""], "--path"),
        (["deploy", "claude-code", "weather-tools", "--project", ""], "--project"),
        (["deploy", "claude-code", "weather-tools", "--config", ""], "--config"),
        (["deploy", "", "weather-tools"], "TARGET"),
        (["mcp", "uninstall", "claude-code", ""], "SERVER"),
        (["mcp", "install", "claude-code", "weather", "--name", ""], "--name"),
        (["skills", "install", "claude-code", "x", "--skills-dir", ""], "--skills-dir"),
        (["remove", ""], "ID"),
        (["remove", "--client", ""], "--client"),
        (["verify", "--bundle", ""], "--bundle"),
        (["bundle", "x.whl", "--outdir", ""], "-o/--outdir"),
    ],
)
def test_an_empty_value_is_a_usage_error_naming_the_option(
    capsys: pytest.CaptureFixture[str], home: Path, argv: list[str], option: str
) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2, out + err
    assert f"argument {option}: must not be empty" in err
    assert list(home.iterdir()) == []  # nothing written


def test_every_option_naming_a_path_a_client_or_a_key_refuses_an_empty_value() -> None:
    import argparse

    from agenttools_runtime.cli import build_parser
    from agenttools_runtime.cli.common import nonempty

    named = {"project", "config", "python", "path", "skills_dir", "outdir", "name", "client",
             "bundle", "target", "server", "id"}  # fmt: skip
    seen = 0

    def walk(parser: argparse.ArgumentParser) -> None:
        nonlocal seen
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    walk(sub)
            elif action.dest in named and action.nargs != 0:
                assert action.type is nonempty, (parser.prog, action.dest)
                seen += 1

    walk(build_parser())
    assert seen > 30
