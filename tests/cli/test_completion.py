"""``agenttools completion bash|zsh|fish``: the scripts load in the real shells and complete
commands, options, option values, client ids (also after a comma) and the installed bundles'
names. zsh and fish are checked where they are installed."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from agenttools_runtime.cli import build_parser, main
from agenttools_runtime.cli.completion import commands
from tests.helpers.venvs import create_venv
from tests.helpers.weather import weather

BIN = Path(sys.executable).parent  # where the agenttools console script of this venv is

# command line -> what TAB offers for its last word
CASES = {
    "agenttools dep": ["deploy", "deployed"],
    "agenttools deploy cl": ["claude-code", "claude-desktop", "cline"],
    "agenttools deploy claude-code,cu": ["claude-code,cursor"],
    "agenttools deploy --runner s": ["script"],
    "agenttools deploy --pro": ["--project"],
    "agenttools mcp in": ["install"],
    "agenttools mcp install gem": ["gemini-cli"],
    "agenttools completion ": ["bash", "zsh", "fish"],
    "agenttools clients --os w": ["windows", "win32"],
    "agenttools sync --client cu": ["cursor"],
    "agenttools add --client gem": ["gemini-cli"],
    "agenttools deploy cursor weather-tools/": [
        "weather-tools/reports",
        "weather-tools/weather-tools",
        "weather-tools/weather",
    ],
    "agenttools deploy --detected weather-tools/r": ["weather-tools/reports"],
    "agenttools mcp install cursor weath": ["weather-tools/weather", "weather"],
    "agenttools show weather-tools/w": ["weather-tools/weather", "weather-tools/weather-tools"],
    "agenttools export --format claude-marketplace weather-tools/r weather-tools/w": [
        "weather-tools/weather",
        "weather-tools/weather-tools",
    ],
}


def script(shell: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "agenttools", "completion", shell],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment whose active venv (VIRTUAL_ENV) holds weather-tools, and whose PATH
    finds this agenttools (the scripts run it for bundle names)."""
    root = tmp_path_factory.mktemp("completion")
    venv = create_venv(root / "venv")
    weather(venv.site_packages, "1.2.0")
    home = root / "home"
    home.mkdir()
    return {
        "PATH": os.pathsep.join([os.fspath(BIN), os.environ.get("PATH", "/usr/bin:/bin")]),
        "HOME": os.fspath(home),
        "VIRTUAL_ENV": os.fspath(root / "venv"),
        "LANG": "C.UTF-8",
    }


def test_bash_loads_the_script() -> None:
    done = subprocess.run(
        [
            "bash",
            "-c",
            f"source <({sys.executable} -m agenttools completion bash); complete -p agenttools",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "complete -F _agenttools agenttools"


def test_the_table_is_the_parser() -> None:
    parser = build_parser()
    table = {c.path: c for c in commands(parser)}
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert table[""].subcommands == list(action.choices)
    deploy = table["deploy"]
    assert {"--detected", "--all-clients", "--runner", "--dry-run", "--json"} <= set(deploy.options)
    assert deploy.positionals == ["clients", "tools"]
    assert deploy.values["--runner"] == "choice:python,script,uvx"
    assert deploy.values["--project"] == "dir" and deploy.values["--python"] == "file"
    assert table["mcp install"].positionals == ["client", "servers"]
    assert table["validate"].repeats
    assert table["bundle"].positionals == ["file"]
    assert table["bundle"].values["-o"] == table["bundle"].values["--outdir"] == "dir"
    for path in ("remove", "verify", "sync", "add"):  # (add's --client has no metavar)
        assert table[path].values["--client"] == "client", path
    assert table["server-json"].positionals == ["dir"]
    assert table["export"].positionals == ["tools"] and table["export"].repeats
    text = script("bash")
    for command in table.values():
        assert f'    "{command.path}") subs=' in text


def test_names_for_the_scripts(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VIRTUAL_ENV", raising=False)
    assert main(["completion", "--names", "tools"]) == 0
    assert "agenttools" in capsys.readouterr().out.split()  # (the built-in bundle)
    assert main(["completion"]) == 2


@pytest.mark.slow
def test_bash_completes(env: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "complete.bash"
    path.write_text(script("bash"))
    lines = [f"source {path}"]
    for line in CASES:
        words = line.split(" ")
        quoted = " ".join(f"'{w}'" for w in words)
        lines.append(
            f"COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}; COMPREPLY=(); _agenttools; "
            'printf "%s\\n" "${COMPREPLY[*]}"'
        )
    done = subprocess.run(
        ["bash", "-c", "\n".join(lines)], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    for (line, expected), got in zip(CASES.items(), done.stdout.splitlines(), strict=True):
        assert sorted(got.split()) == sorted(expected), line


def test_bash_completes_the_wheel_of_bundle(tmp_path: Path) -> None:
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "weather_tools-1.2.0-py3-none-any.whl").write_bytes(b"")
    path = tmp_path / "complete.bash"
    path.write_text(script("bash"))
    line = (
        f"source {path}; COMP_WORDS=(agenttools bundle dist/w); COMP_CWORD=2; COMPREPLY=(); "
        '_agenttools; printf "%s\\n" "${COMPREPLY[@]}"'
    )
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.fspath(tmp_path)}
    done = subprocess.run(
        ["bash", "-c", line], capture_output=True, text=True, env=env, cwd=tmp_path, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["dist/weather_tools-1.2.0-py3-none-any.whl"]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_completes(env: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "complete.zsh"
    path.write_text(script("zsh"))
    lines = [
        "autoload -U compinit && compinit -u",
        f"source {path}",
        'print -r -- "${_comps[agenttools]}"',
        # what _bash_complete sets before it calls the function, as zsh's bashcompinit does
        't() { words=("$@"); CURRENT=$#; local -a COMP_WORDS; COMP_WORDS=("${words[@]}");'
        " local COMP_CWORD=$((CURRENT - 1));"
        " print -r -- \"$(compgen -F _agenttools -- ${words[CURRENT]} | tr '\\n' ' ')\"; }",
    ]
    for line in CASES:
        lines.append("t " + " ".join(f"'{w}'" for w in line.split(" ")))
    done = subprocess.run(
        ["zsh", "-f", "-c", "\n".join(lines)], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0] == "_bash_complete -F _agenttools"
    for (line, expected), got in zip(CASES.items(), out[1:], strict=True):
        # zsh filters by the word itself: the function offers every candidate of the kind
        offered = got.split()
        assert set(expected) <= set(offered), (line, got)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_completes(env: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "agenttools.fish"
    path.write_text(script("fish"))
    lines = [f"source {path}"]
    for line in CASES:
        lines.append(f"complete -C '{line}' | string join ' '")
    done = subprocess.run(
        ["fish", "--no-config", "-c", "\n".join(lines)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for (line, expected), got in zip(CASES.items(), done.stdout.splitlines(), strict=True):
        assert sorted(got.split()) == sorted(expected), line
