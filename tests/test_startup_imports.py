"""What the CLI imports at start-up (issue 4: ``list`` start-up is measured against
``python -c pass``; ``benchmarks/startup.py`` prints the times — no test asserts on time).

Each command runs as ``python -m agenttools …`` in a fresh interpreter, which then reports the
modules it imported. Also: the lazily registered parser behaves like the full one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agenttools_runtime import __version__
from agenttools_runtime.cli import (
    COMMAND_HELP,
    COMMAND_MODULES,
    Quick,
    build_parser,
    main,
    quick_arguments,
)
from agenttools_runtime.cli._parser import Parser
from agenttools_runtime.cli.top_help import NARROWEST, help_width, top_help
from tests.helpers.venvs import fake_distribution

# Third-party packages: each one is needed by some command, never by these.
THIRD_PARTY = (
    "yaml",
    "tomlkit",
    "ruamel",
    "mcp",
    "fastmcp",
    "packaging",
    "filelock",
    "platformdirs",
    "hatchling",
)
# stdlib modules that cost a large share of the start-up time and these commands do without
HEAVY_STDLIB = (
    "typing",
    "importlib.metadata",
    "importlib.resources",
    "pkgutil",
    "tempfile",
    "shutil",  # argparse's help formatter imports it for the terminal width: cli/_parser.py
)
# imported where a rarely taken branch needs it: a SKILL.md's name (names.py)
RARELY_NEEDED = ("unicodedata",)
# what class definitions can cost at import: dataclasses (with inspect, ast, dis, tokenize)
CLASS_MACHINERY = ("dataclasses", "inspect")
SKILL_MD = "---\nname: shown-skill\ndescription: A skill.\n---\n\nBody.\n"
COMMAND_MODULE_NAMES = tuple(
    f"agenttools_runtime.cli.{module}" for module in dict.fromkeys(COMMAND_MODULES.values())
)

# Run the CLI as `python -m agenttools` does, then print the modules the command imported.
# Each new import is charged to the innermost frame on the stack that is not the standard
# library's: our code (or this script) — or a third-party package, whose own imports vary
# with its version and are its business (packaging.markers imports typing in some versions);
# modules the interpreter loaded before the command ran (site, .pth files) are nobody's.
# So the sets below are what our code and the standard library modules it uses import,
# whatever else the environment holds.
REPORTER = """
import runpy, sys

STDLIB = sys.stdlib_module_names
charged = {}


def responsible():
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__") or ""
        if name == "__main__":
            return "ours"
        if name.partition(".")[0] not in STDLIB:
            return "ours" if name.startswith(("agenttools", "agenttools_")) else name
        frame = frame.f_back
    return "stdlib"


class Witness:
    @staticmethod
    def find_spec(name, path=None, target=None):
        charged.setdefault(name, responsible())
        return None


sys.meta_path.insert(0, Witness)
sys.argv = ["agenttools", *sys.argv[1:]]
try:
    runpy.run_module("agenttools", run_name="__main__", alter_sys=True)
except SystemExit as exc:
    status = exc.code
sys.meta_path.remove(Witness)
modules = sorted(n for n, who in charged.items() if who == "ours" and n in sys.modules)
import json
print(json.dumps({"status": status, "modules": modules}), file=sys.stderr)
"""


def imported(*argv: str, prelude: str = "") -> tuple[int, set[str]]:
    """The exit status of ``python -m agenttools ARGV`` and the modules it imported (see
    REPORTER: charged to our code, not to the environment or third-party packages). *prelude*
    runs first, as a ``.pth`` file of the environment would."""
    done = subprocess.run(
        [sys.executable, "-c", prelude + "\n" + REPORTER, *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["status"], set(report["modules"])


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    """The modules of *names* (packages with their submodules) that are in *modules*."""
    return sorted(m for m in modules if m in names or m.startswith(tuple(n + "." for n in names)))


def test_version_imports_no_parser() -> None:
    status, modules = imported("--version")
    assert status == 0
    assert loaded(modules, THIRD_PARTY + HEAVY_STDLIB) == []
    assert loaded(modules, ("argparse", "json", "pathlib", "dataclasses")) == []
    assert loaded(modules, ("agenttools_runtime.errors", *COMMAND_MODULE_NAMES)) == []


@pytest.mark.parametrize("argv", [["--help"], [], ["no-such-command"]])
def test_help_imports_no_command_module(argv: list[str]) -> None:
    status, modules = imported(*argv)
    assert status == (0 if argv == ["--help"] else 2)
    if argv == ["--help"]:  # cli/top_help.py (on a terminal that is not too narrow)
        assert loaded(modules, LEAN_PATH_SPARES) == []
    assert loaded(modules, THIRD_PARTY + HEAVY_STDLIB) == []
    assert loaded(modules, ("json", "pathlib", "dataclasses", "inspect")) == []
    assert loaded(modules, ("agenttools_runtime.errors", *COMMAND_MODULE_NAMES)) == []


def test_list_imports_only_discovery(tmp_path: Path) -> None:
    # an empty site directory: the test environment's own distributions could carry markers
    # (which rightly need packaging), and this is about what list needs to start
    status, modules = imported("list", "--path", str(tmp_path))
    assert status == 0
    assert loaded(modules, THIRD_PARTY + HEAVY_STDLIB + CLASS_MACHINERY + RARELY_NEEDED) == []
    assert loaded(modules, COMMAND_MODULE_NAMES) == ["agenttools_runtime.cli.discovery"]
    assert loaded(modules, ("agenttools_runtime.skills", "agenttools_runtime.deploy")) == []


def test_show_reads_the_manifest_not_the_skill_files_frontmatter(tmp_path: Path) -> None:
    # a wheel's skill: verified against its hashes, described by the manifest
    fake_distribution(
        tmp_path,
        "shown",
        servers={"s": {"module": "shown.server"}},
        skills={"shown-skill": {"description": "A skill.", "files": {"SKILL.md": SKILL_MD}}},
    )
    status, modules = imported("show", "shown", "--path", str(tmp_path))
    assert status == 0
    assert loaded(modules, (*THIRD_PARTY, *CLASS_MACHINERY, *RARELY_NEEDED, "typing")) == []
    assert "agenttools_runtime.skills.skill_md" not in modules


def test_list_of_a_known_environment_imports_no_paths_json_or_errors(tmp_path: Path) -> None:
    # this interpreter without its site-packages (-S: the test environment's own
    # distributions are not this test's business) plus one site directory, twice: the first
    # reads the manifest (json, its checks), the second takes its rows from the cache
    site = tmp_path / "site"
    fake_distribution(site, "listed", servers={"s": {"command": "s"}})
    # a manifest written just now is read again next time (a change in the same clock tick
    # could leave its signature the same): here, as if two seconds had passed
    racy = "import agenttools_runtime.cli.lean_cache as c; c.RACY_NS = 0"
    Path(os.environ["AGENTTOOLS_HOME"]).mkdir(parents=True, exist_ok=True)  # (used before)
    repo = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(repo)])}
    env.pop("VIRTUAL_ENV", None)
    for warm in (False, True):
        done = subprocess.run(
            [sys.executable, "-S", "-c", racy + "\n" + REPORTER, "list"],
            capture_output=True,
            text=True,
            check=False,
            env=env,
        )
        report = json.loads(done.stderr.strip().splitlines()[-1])
        assert report["status"] == 0
        modules = set(report["modules"])
        assert "listed/listed" in done.stdout
        assert ("json" in modules) != warm
        if warm:
            assert loaded(modules, LEAN_PATH_SPARES) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["show", "shown/shown"],
        ["skill", "--list", "--no-local"],
        ["skill", "agenttools", "--no-local"],
        ["skill", "--list"],
        ["clients"],
    ],
    ids=" ".join,
)
def test_commands_served_from_their_caches_import_none_of_their_machinery(
    argv: list[str], tmp_path: Path
) -> None:
    # show, skill and clients as last printed (cli/quick_show.py, cli/recorded.py):
    # computed once, then neither the library's objects nor yaml, hashlib,
    # pathlib or json; -S and a site directory as in the test above, with the libraries of
    # this environment after it (yaml, for the first run)
    import sysconfig

    site = tmp_path / "site"
    fake_distribution(
        site,
        "shown",
        servers={"s": {"module": "shown.server"}},
        skills={"shown-skill": {"description": "A skill.", "files": {"SKILL.md": SKILL_MD}}},
    )
    racy = "import agenttools_runtime.cli.lean_cache as c; c.RACY_NS = 0"
    Path(os.environ["AGENTTOOLS_HOME"]).mkdir(parents=True, exist_ok=True)  # (used before)
    repo = Path(__file__).resolve().parents[1]
    front = [str(site), str(repo), sysconfig.get_path("purelib")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(front)}
    env.pop("VIRTUAL_ENV", None)
    outputs = []
    for warm in (False, True):
        done = subprocess.run(
            [sys.executable, "-S", "-c", racy + "\n" + REPORTER, *argv],
            capture_output=True,
            text=True,
            check=False,
            env=env,
            cwd=tmp_path,
        )
        report = json.loads(done.stderr.strip().splitlines()[-1])
        assert report["status"] == 0, done.stderr
        outputs.append(done.stdout)
        if warm:
            spared = (*LEAN_PATH_SPARES, "yaml", "hashlib", "shlex", "agenttools_runtime.skilluri")
            assert loaded(set(report["modules"]), spared) == []
    assert outputs[0] == outputs[1]


def test_list_of_this_environment_imports_no_typing() -> None:
    status, modules = imported("list")
    assert status == 0
    assert loaded(modules, ("typing", "importlib.metadata", "yaml", "tomlkit", "mcp")) == []


def test_what_the_environment_imports_is_not_charged_to_the_command(tmp_path: Path) -> None:
    # modules loaded before the command runs (site, .pth files) are the environment's
    status, modules = imported("--version", prelude="import typing, dataclasses, json")
    assert status == 0
    assert loaded(modules, ("typing", "dataclasses", "json", "argparse")) == []
    # a bundle marker needs packaging, whose markers module imports typing (packaging 26):
    # packaging's import, not ours
    fake_distribution(
        tmp_path,
        "marked",
        servers={"s": {"module": "m"}},
        bundles=[{"name": "b", "mcp-servers": ["s"], "skills": [], "marker": "python_version>'3'"}],
    )
    status, modules = imported("list", "--path", str(tmp_path))
    assert status == 0
    assert loaded(modules, ("typing", "importlib.metadata", "yaml", "tomlkit", "mcp")) == []


# what the deployed listing does without: the records, the registry, the journal, the lock
# (they come with the deploy engine), and the standard library modules they import
DEPLOY_WRITERS = (
    "agenttools_runtime.deploy.deployment",
    "agenttools_runtime.deploy.records",
    "agenttools_runtime.deploy.registry",
    "agenttools_runtime.deploy.journal",
    "agenttools_runtime.deploy.lock",
    "agenttools_runtime.deploy.store",
    "agenttools_runtime.deploy.engine",
    "agenttools_runtime.fs",
    "agenttools_runtime.lock",
    "agenttools_runtime.signals",
)
WRITERS_STDLIB = ("dataclasses", "hashlib", "uuid", "datetime", "threading", "signal")
# what the lean paths of `list`, `deployed` and `--help` do without (cli/quick_list.py,
# cli/quick_deployed.py, cli/top_help.py): each is a tenth of a second's start-up or more
LEAN_PATH_SPARES = (
    "pathlib",
    "json",
    "re",
    "argparse",
    "typing",
    "platformdirs",
    "agenttools_runtime.errors",
    "agenttools_runtime.paths",
    "agenttools_runtime.clients",
    "agenttools_runtime.deploy",
    "agenttools_runtime.discovery",
    "agenttools_runtime.bundles",
    "agenttools_runtime.wheel.manifest",
)


def test_deployed_shows_cached_rows_without_the_deploy_engine(home: Path) -> None:
    from agenttools_runtime.bundles import AgentTools
    from agenttools_runtime.deploy import deploy
    from agenttools_runtime.mcp.server import MCPServer

    skill = {"name": "listed", "description": "A skill.", "body": "Body.\n"}
    server = MCPServer(name="listed-server", command="uvx", args=("listed",))
    deploy("cursor", AgentTools(name="listed", skills=(skill,), mcp_servers=(server,)))
    # the first computes the row and keeps it in the status cache (as it would 2 s after the
    # deploy: a row computed right after a change is not kept); the next shows it
    racy = "import agenttools_runtime.status_cache as c; c.RACY_NS = 0"
    assert imported("deployed", prelude=racy)[0] == 0
    status, modules = imported("deployed", prelude=racy)
    assert status == 0
    assert loaded(modules, THIRD_PARTY + HEAVY_STDLIB + WRITERS_STDLIB + CLASS_MACHINERY) == []
    assert loaded(modules, (*DEPLOY_WRITERS, "argparse", "agenttools_runtime.deploy.status")) == []
    # the table from the cache on strings (cli/quick_deployed.py): not even the deploy
    # package, paths, the client table, json or the error classes
    assert loaded(modules, LEAN_PATH_SPARES) == []
    # every field of every record: read whole
    status, modules = imported("deployed", "--json")
    assert status == 0 and "agenttools_runtime.deploy.records" in modules


# what a fresh deploy does without (benchmarks/state_store.py, the fresh figure: the
# interpreter and these imports are most of what a deploy costs beyond its copying)
DEPLOY_DOES_WITHOUT = (
    *CLASS_MACHINERY,
    "typing",
    "uuid",
    "datetime",
    "threading",
    "tempfile",
    "random",
    "platform",
    # the command line read without argparse (cli/deploy.py's QUICK table), and what
    # argparse brings: gettext and locale (its messages), shutil (its help's width)
    "argparse",
    "gettext",
    "locale",
    "textwrap",
    "shutil",
    # the hundred error and warning classes of errors/leaves.py: created when one is raised
    # or warned (a deploy that succeeds refers to them as errors.X, where it raises them)
    "agenttools_runtime.errors.leaves",
    # what handles an interrupted operation, and what removes (a clean state: nothing to)
    "agenttools_runtime.deploy.recovery",
    "agenttools_runtime.deploy.removal",
)


def test_a_fresh_deploy_imports_no_class_machinery(home: Path, tmp_path: Path) -> None:
    fake_distribution(
        tmp_path,
        "deployed-here",
        servers={"s": {"command": "deployed-here"}},
        skills={"shown-skill": {"description": "A skill.", "files": {"SKILL.md": SKILL_MD}}},
    )
    status, modules = imported("deploy", "claude-code", "deployed-here", "--path", str(tmp_path))
    assert status == 0
    assert (home / ".claude" / "skills" / "shown-skill" / "SKILL.md").is_file()
    assert loaded(modules, THIRD_PARTY + DEPLOY_DOES_WITHOUT) == []


def test_clients_imports_no_config_file_libraries() -> None:
    status, modules = imported("clients")
    assert status == 0
    assert loaded(modules, THIRD_PARTY + HEAVY_STDLIB + CLASS_MACHINERY) == []
    assert loaded(modules, COMMAND_MODULE_NAMES) == ["agenttools_runtime.cli.clients"]


# -- command lines read without argparse --------------------------------------------------------
def quick_tables() -> dict[str, Quick]:
    import importlib

    tables: dict[str, Quick] = {}
    for module in dict.fromkeys(COMMAND_MODULES.values()):
        tables.update(
            getattr(importlib.import_module(f"agenttools_runtime.cli.{module}"), "QUICK", {})
        )
    return tables


def quick_lines() -> list[list[str]]:
    """For every QUICK command: each subset of its flags (of a command with many options:
    each option alone, and all of them but one of each exclusive group), positionals given
    or (when optional) left out, in two orders."""
    import itertools

    lines = []
    for command, quick in quick_tables().items():
        required = [f"value-of-{dest}" for dest, needed in quick.positionals if needed]
        every = [f"value-of-{dest}" for dest, _ in quick.positionals]
        options = [[flag] for flag in (*quick.flags, *quick.consts)]
        for option in (*quick.values, *quick.appending):
            value = quick.choices.get(option, (f"{option[2:]}-value",))[-1]
            options += [[option, value], [f"{option}={value}"]]
        options += [[option, "one", option, "two"] for option in quick.appending]
        if len(options) <= 4:
            subsets = [
                list(subset) for size in range(len(options) + 1)
                for subset in itertools.combinations(options, size)
            ]  # fmt: skip
        else:
            left_out = {option for group in quick.exclusive for option in group[1:]}
            subsets = [[], *([option] for option in options)]
            subsets.append([option for option in options if option[0] not in left_out])
        for subset in subsets:
            words = [word for option in subset for word in option]
            backwards = [word for option in reversed(subset) for word in option]
            for positionals in dict.fromkeys([tuple(required), tuple(every)]):
                lines.append([command, *words, *positionals])
                lines.append([command, *positionals, *backwards])
    return lines


def test_the_often_typed_commands_have_quick_tables() -> None:
    assert set(quick_tables()) == {"list", "show", "clients", "deployed", "skill", "deploy"}
    assert all(COMMAND_MODULES[name] for name in quick_tables())


@pytest.mark.parametrize("line", quick_lines(), ids=" ".join)
def test_quick_arguments_are_what_argparse_gives(line: list[str]) -> None:
    quick = quick_arguments(line)
    assert quick is not None
    assert vars(quick) == vars(build_parser().parse_args(line))


@pytest.mark.parametrize(
    "line",
    [
        ["list", "--python", "/usr/bin/python3"],  # an option with a value
        ["list", "--path=/site"],
        ["list", "-h"],
        ["list", "--al"],  # an abbreviation argparse accepts
        ["list", "--"],
        ["list", "extra"],  # a positional list does not take
        ["show"],  # a missing positional: argparse says so
        ["show", "a", "b"],
        ["show", "-"],
        ["show", ""],  # an empty NAME or CLIENT: argparse's usage error (exit 2)
        ["deployed", ""],
        ["deployed", "cursor", "codex"],
        ["skill", "name", "an-argument"],  # ARGS: argparse's nargs="*"
        ["skill", "--mcp", "docs=uvx docs-mcp", "--list"],
        ["deploy", "cursor", "--json", "tools"],  # positionals apart: argparse's error
        ["deploy", "cursor", "--upgrade", "--force"],  # an exclusive group's error
        ["deploy", "--detected", "--all-clients"],
        ["deploy", "cursor", "--runner", "pip"],  # not one of its choices
        ["deploy", "cursor", "--path", ""],  # an empty value
        ["deploy", "cursor", "--path="],
        ["deploy", "", "tools"],  # an empty TARGET
        ["deploy", "cursor", "--path"],  # no value
        ["deploy", "cursor", "--path", "--json"],
        ["deploy", "cursor", "--pat", "/site"],  # an abbreviation
        ["deploy", "cursor", "--json=yes"],
        ["deploy", "cursor", "-h"],
        ["deploy", "a", "b", "c"],
    ],
    ids=" ".join,
)
def test_other_command_lines_go_to_argparse(line: list[str]) -> None:
    assert quick_arguments(line) is None


def test_quick_defaults_are_new_each_time() -> None:
    first = quick_arguments(["skill", "--list"])
    assert first is not None
    first.mcp.append("docs=uvx docs-mcp")
    assert quick_arguments(["skill", "--list"]).mcp == []  # type: ignore[union-attr]


def test_a_quick_line_imports_no_parser(tmp_path: Path) -> None:
    for line in (["list", "--json", "--path", str(tmp_path)], ["clients", "--json"]):
        status, modules = imported(*line)
        assert status == 0
        uses_parser = line[2:] != []  # --path takes a value: argparse reads it
        assert bool(loaded(modules, ("argparse", "gettext"))) == uses_parser, line
    for line in (["clients"], ["deployed", "--json"], ["list", "--all"]):
        status, modules = imported(*line)
        assert status == 0
        assert loaded(modules, ("argparse", "gettext", "locale")) == [], line


# -- the lazily registered parser ------------------------------------------------------------
def subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def help_lines(parser: argparse.ArgumentParser) -> dict[str, str | None]:
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: choice.help for choice in action._choices_actions}


def test_full_parser_lists_every_command_in_table_order() -> None:
    parser = build_parser()
    assert list(subcommands(parser)) == list(COMMAND_HELP) == list(COMMAND_MODULES)
    assert help_lines(parser) == COMMAND_HELP


@pytest.mark.parametrize("command", list(COMMAND_MODULES))
def test_one_command_parser_is_the_full_one_for_that_command(command: str) -> None:
    lazy, full = build_parser([command]), build_parser()
    # same commands, order and help lines; the command's own parser is the real one
    assert help_lines(lazy) == help_lines(full)
    own = subcommands(lazy)[command]
    assert own.format_help() == subcommands(full)[command].format_help()
    # every command of the same module is real too; the others are placeholders
    for name, parser in subcommands(lazy).items():
        real = COMMAND_MODULES[name] == COMMAND_MODULES[command]
        assert (parser.format_help() == subcommands(full)[name].format_help()) == real, name


def test_each_module_registers_exactly_its_commands() -> None:
    import importlib

    for module in dict.fromkeys(COMMAND_MODULES.values()):
        parser = argparse.ArgumentParser()
        subparsers = parser.add_subparsers()
        importlib.import_module(f"agenttools_runtime.cli.{module}").register(
            subparsers, argparse.ArgumentParser(add_help=False)
        )
        assert list(subparsers.choices) == [n for n, m in COMMAND_MODULES.items() if m == module]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"agenttools {__version__}\n"
    # with anything else on the line argparse answers it, the same way
    with pytest.raises(SystemExit):
        build_parser([]).parse_args(["--version"])
    assert capsys.readouterr().out == f"agenttools {__version__}\n"


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    for name, line in COMMAND_HELP.items():
        assert f"{name} {' '.join(line.split())}" in out


def test_help_before_the_command_is_the_top_level_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["-h", "list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: agenttools [-h] [--version] COMMAND ...")
    assert re.findall(r"^    (\S+)", out, re.MULTILINE) == list(COMMAND_HELP)


def test_unknown_command_lists_every_choice(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["no-such-command"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'no-such-command'" in err
    assert all(repr(name) in err for name in COMMAND_HELP)


def test_command_after_options_of_another_command_still_runs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # the first word that is not an option is the command, whatever follows it
    assert main(["clients", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    assert main(["list", "--json", "--path", "show"]) == 0
    assert json.loads(capsys.readouterr().out)["bundles"] == []


@pytest.mark.parametrize("columns", ["60", "123", "0", "-5", "wide", None])
def test_help_width_is_the_one_argparse_computes(
    columns: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert help_width() == shutil.get_terminal_size().columns - 2


def test_top_help_is_what_argparse_prints_at_every_width(monkeypatch: pytest.MonkeyPatch) -> None:
    # cli/top_help.py prints the top-level help without argparse: the same text at each
    # width it serves; narrower, argparse prints it
    served = 0
    for columns in range(20, 301):
        monkeypatch.setenv("COLUMNS", str(columns))
        text = top_help(help_width())
        if text is not None:
            served += 1
            assert text == build_parser().format_help(), columns
    assert served == 301 - NARROWEST - 2
    monkeypatch.setenv("COLUMNS", str(NARROWEST))
    assert top_help(help_width()) is None


@pytest.mark.parametrize("option", ["--help", "-h"])
def test_help_prints_the_top_help(
    option: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for columns in ("100", "30"):  # served by top_help, then by argparse
        monkeypatch.setenv("COLUMNS", columns)
        assert main([option]) == 0
        assert capsys.readouterr().out == build_parser().format_help()


def test_parser_formats_help_as_argparse_does(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "50")

    def fill(parser: argparse.ArgumentParser) -> str:
        parser.add_argument("--long-option", metavar="VALUE", help="words " * 20)
        parser.add_subparsers(dest="sub").add_parser("sub", help="a subcommand " * 5)
        return parser.format_help()

    ours = fill(Parser(prog="p", description="a description " * 10))
    assert ours == fill(argparse.ArgumentParser(prog="p", description="a description " * 10))
    assert max(len(line) for line in ours.splitlines()) <= 48
    # subparsers are of the same class; an explicit formatter_class is kept
    sub = Parser(prog="p").add_subparsers().add_parser("x")
    assert isinstance(sub, Parser)
    raw = Parser(prog="p", formatter_class=argparse.RawDescriptionHelpFormatter)
    assert raw.formatter_class is argparse.RawDescriptionHelpFormatter


def test_skill_without_mcp_servers_imports_no_mcp_machinery() -> None:
    # the built-in skill: found whatever is installed; no MCP server runs, so neither the
    # MCP SDK, nor asyncio, nor logging (which only routes MCP log records) is needed
    status, modules = imported("skill", "agenttools", "--no-local")
    assert status == 0
    assert loaded(modules, ("mcp", "fastmcp", "asyncio", "logging", "packaging")) == []
    assert loaded(modules, ("argparse",)) == []
    # cli.discovery: the --python/--path parsing the two share
    assert set(loaded(modules, COMMAND_MODULE_NAMES)) <= {
        "agenttools_runtime.cli.uri",
        "agenttools_runtime.cli.discovery",
    }


def test_the_process_command_collects_garbage_less_often(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # main() as the process's command (no argv): fewer collections, none of what is left
    # at exit; main(argv) (a library caller, a test) leaves the collector as it was
    import gc

    before = gc.get_threshold()
    try:
        assert main(["--version"]) == 0
        assert gc.get_threshold() == before and gc.get_freeze_count() == 0
        monkeypatch.setattr(sys, "argv", ["agenttools", "--version"])
        assert main() == 0
        assert gc.get_threshold() == (100_000, 50, 50) and gc.get_freeze_count() > 0
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
    assert capsys.readouterr().out == f"agenttools {__version__}\n" * 2


def test_the_process_command_runs_where_the_collector_has_no_thresholds(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # PyPy's gc module has neither set_threshold nor freeze (CPython's collector only): the
    # process's command runs there as it did before it tuned the collector
    import gc

    monkeypatch.delattr(gc, "set_threshold")
    monkeypatch.delattr(gc, "freeze")
    monkeypatch.setattr(sys, "argv", ["agenttools", "--version"])
    assert main() == 0
    assert capsys.readouterr().out == f"agenttools {__version__}\n"
