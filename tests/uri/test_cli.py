"""``agenttools skill`` and ``agenttools serve`` on the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from agenttools_runtime.cli import main
from tests.helpers.venvs import fake_distribution, skill_files, write_tree

GREETING = "---\nname: greeting\ndescription: Greet.\n---\nHello $1 from $2! ($ARGUMENTS) $0\n"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    path = tmp_path / "site-packages"
    fake_distribution(
        path,
        "weather-tools",
        skills={"weather-report": skill_files("weather-report", "Report.", {"a.bin": b"\x00\xff"})},
    )
    return path


@pytest.fixture
def greeting(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_tree(home / ".claude" / "skills" / "greeting", {"SKILL.md": GREETING})
    return home / ".claude" / "skills" / "greeting"


def test_skill_prints_with_arguments(
    greeting: Path, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["skill", "greeting", "Ann", "Bob", "--path", str(site)]) == 0
    assert capsys.readouterr().out.endswith("Hello Ann from Bob! (Ann Bob) $0\n")
    # one ARG is the argument string as typed
    assert main(["skill", "greeting", "Ann Bob", "--path", str(site)]) == 0
    assert capsys.readouterr().out.endswith("Hello Ann from Bob! (Ann Bob) $0\n")
    assert (
        main(["skill", "greeting", '"Ann Lee" Bob', "--convention", "claude", "--path", str(site)])
        == 0
    )
    assert capsys.readouterr().out.endswith('Hello Bob from $2! ("Ann Lee" Bob) Ann Lee\n')


def test_skill_json(greeting: Path, site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["skill", "skill://weather-tools/weather-report/a.bin", "--json", "--path", str(site)])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["ok"] and data["kind"] == "reference" and data["content_base64"] == "AP8="
    assert data["uri"] == "skill://weather-tools/weather-report/a.bin"


def test_skill_binary_to_stdout(
    greeting: Path, site: Path, capfdbinary: pytest.CaptureFixture[bytes]
) -> None:
    assert main(["skill", "weather-report/a.bin", "--path", str(site)]) == 0
    assert capfdbinary.readouterr().out == b"\x00\xff"


def test_errors_are_one_line(
    greeting: Path, site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["skill", "nope", "--path", str(site)]) == 1
    err = capsys.readouterr().err
    assert (
        err
        == "agenttools: Skill not found: 'nope'. Available: agenttools, greeting, weather-report\n"
    )
    assert main(["skill", "skill://local/greeting/%2e%2e/x", "--path", str(site)]) == 1
    assert capsys.readouterr().err == "agenttools: Security error: Path traversal detected in URI\n"
    assert main(["skill", "--path", str(site)]) == 2
    assert main(["skill", "x", "--mcp", "nocommand", "--path", str(site)]) == 2
    assert main(["skill", "x", "--mcp", "bad.name=cmd", "--path", str(site)]) == 1
    assert "Invalid provider name 'bad.name'" in capsys.readouterr().err


def test_list(greeting: Path, site: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["skill", "--list", "--path", str(site)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "Available skills:\n\n## local (1 skill)\n- **greeting**: Greet.\n"
        "  URI: `skill://local/greeting`\n\n## weather-tools (1 skill)\n"
        "- **weather-report**: Report.\n  URI: `skill://weather-tools/weather-report`\n\n"
        "## agenttools (1 skill)\n- **agenttools**: Find, deploy and remove"
    )
    assert out.endswith("  URI: `skill://agenttools/agenttools`\n")
    assert main(["skill", "--list", "--json", "--path", str(site)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in data["providers"]] == ["local", "weather-tools", "agenttools"]


def test_cli_start_up_does_not_import_mcp() -> None:
    code = (
        "import sys; from agenttools_runtime.cli import build_parser; build_parser(); "
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'yaml', "
        "'agenttools_runtime.skilluri', 'agenttools_runtime.serve'))))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_serve_without_the_mcp_sdk_is_one_clear_error(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['mcp'] = None; sys.modules['mcp_types'] = None; "
        "from agenttools_runtime.cli import main; "
        f"sys.exit(main(['serve', '--path', {str(tmp_path)!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert done.stderr.endswith(
        "agenttools: agenttools serve needs the MCP Python SDK (mcp>=2.3), which is not "
        "installed. Install it with: pip install 'agenttools[serve]'\n"
    )
    assert done.stdout == ""


def test_project_scope(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "proj"
    write_tree(project / ".cursor" / "skills" / "proj-skill", {"SKILL.md": GREETING})
    assert (
        main(["skill", "proj-skill", "A", "B", "--project", str(project), "--path", str(tmp_path)])
        == 0
    )
    assert "Hello A from B!" in capsys.readouterr().out
    assert main(["skill", "--list", "--project", str(tmp_path / "missing")]) == 1
    assert "Invalid project directory" in capsys.readouterr().err


def test_a_broken_mcp_server_is_one_warning_line(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("mcp")
    script = tmp_path / "not_mcp.py"
    script.write_text("print('hello, I am not an MCP server')\n")
    command = f"{sys.executable} {script}"
    status = main(
        ["skill", "--list", "--no-local", "--path", str(tmp_path), "--mcp", f"bad={command}"]
    )
    captured = capsys.readouterr()
    assert status == 0
    assert "Traceback" not in captured.err
    assert "Warning: MCP: Failed to parse JSONRPC message from server\n" in captured.err
    assert "Warning: The skill provider 'bad' was skipped: Connection closed\n" in captured.err
    assert "## agenttools (1 skill)" in captured.out
