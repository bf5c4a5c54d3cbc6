"""The command line as argparse reads it: the top-level help and version, unknown commands,
a command line without a command, and read-only commands that leave a new machine as it was."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from agenttools_runtime import __version__
from agenttools_runtime.cli import build_parser, main
from tests.helpers.weather import weather


def commands() -> dict[str, str]:
    """Each command of the parser with its line in ``--help``."""
    (action,) = (a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: choice.help or "" for choice in action._choices_actions}


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"agenttools {__version__}\n"


@pytest.mark.parametrize("option", ["--help", "-h"])
def test_help_lists_every_command_with_its_line(
    option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([option]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: agenttools [-h] [--version] COMMAND ...")
    assert re.findall(r"^    (\S+)", out, re.MULTILINE) == list(commands())
    flat = " ".join(out.split())
    for name, line in commands().items():
        assert f"{name} {' '.join(line.split())}" in flat
    assert "Exit status: 0 ok, 1 failure, 2 usage." in flat


def test_every_command_explains_itself() -> None:
    def walk(parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    assert choice.help, choice.dest
                for sub in action.choices.values():
                    assert sub.description, sub.prog
                    walk(sub)
            elif action.help != argparse.SUPPRESS:
                assert action.help, (parser.prog, action.dest)

    walk(build_parser())


def test_help_before_the_command_is_the_top_level_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["-h", "list"]) == 0
    assert capsys.readouterr().out == build_parser().format_help()


def test_no_command_prints_the_help_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == build_parser().format_help()


def test_unknown_command_lists_every_choice(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-command"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'no-such-command'" in err
    assert all(repr(name) in err for name in commands())


def test_a_group_without_its_subcommand_prints_its_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["mcp"]) == 2
    out = capsys.readouterr().out
    assert out.startswith("usage: agenttools mcp [-h] COMMAND ...")


def test_a_command_word_in_an_options_value_is_that_value(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "show").mkdir()
    assert main(["list", "--json", "--path", str(tmp_path / "show")]) == 0
    assert json.loads(capsys.readouterr().out)["bundles"] == []


def test_read_only_commands_leave_a_new_machine_as_it_was(
    capsys: pytest.CaptureFixture[str], home: Path, tmp_path: Path
) -> None:
    site = tmp_path / "site"
    weather(site, "1.2.0")
    before = sorted(tmp_path.rglob("*"))
    for argv in (
        ["--help"],
        ["list", "--path", str(site)],
        ["show", "weather-tools/weather-tools", "--path", str(site)],
        ["clients"],
        ["deployed"],
        ["skill", "--list", "--path", str(site)],
    ):
        assert main(argv) == 0, argv
        capsys.readouterr()
    assert sorted(tmp_path.rglob("*")) == before  # (the state directory among them)
    assert not (tmp_path / "agenttools-state").exists()


def test_the_table_lists_the_commands_each_module_registers() -> None:
    import importlib

    from agenttools_runtime.cli import COMMAND_MODULES
    from agenttools_runtime.cli.common import Parser

    for name, commands in COMMAND_MODULES.items():
        parser = Parser(prog="agenttools")
        subparsers = parser.add_subparsers(dest="command")
        importlib.import_module(f"agenttools_runtime.cli.{name}").register(subparsers)
        assert tuple(subparsers.choices) == commands, name


def test_a_command_line_builds_only_its_module_with_the_same_parsers() -> None:
    def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return dict(action.choices)

    def helps(parser: argparse.ArgumentParser) -> list[str]:
        found = [parser.format_help()]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    found.extend(helps(sub))
        return found

    every = subcommands(build_parser())
    for name, whole in every.items():
        alone = subcommands(build_parser(name))
        assert (name in alone and len(alone) < len(every)) or name == "completion"
        assert helps(alone[name]) == helps(whole), name
