"""A named pipe, and a link to ``/dev/zero``, as every kind of file agenttools reads: the
project's (``pyproject.toml``, a ``body-file``, a ``SKILL.md``, a skill file) under ``validate``
and the build hook, an installed wheel's (the manifest, a skill file) under ``list``, ``show``,
``deploy`` and ``mcp install``, a skill folder's under ``skills install``, and a client's
config file (JSON, TOML, YAML) under ``mcp install|uninstall|list`` and ``deploy``, and the
state's own files (journals of deployments and of managed environments, the records, the
registry, the index and its log, the ledger, receipts) under any command. Reading a
pipe waits forever and ``/dev/zero`` never ends: every command here is a real process that must
end within the deadline, with one clear error naming the file (or, for a file agenttools does
not read, as if it were not special)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.helpers.venvs import activate, fake_distribution, fake_site, skill_files

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX"),
]

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "sample_packages" / "weather-tools"
DEADLINE = 60  # seconds: a command that reads a pipe or /dev/zero never ends by itself
SPECIALS = ("named-pipe", "dev-zero")
SAYS = {"named-pipe": "a named pipe, not a regular file", "dev-zero": "/dev/zero"}


def make_special(path: Path, special: str) -> None:
    if path.exists() or path.is_symlink():
        path.unlink()
    path.parent.mkdir(parents=True, exist_ok=True)
    if special == "named-pipe":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


def run(
    argv: list[str], cwd: Path | None = None, expect: int = 1, *, build: bool = False
) -> subprocess.CompletedProcess[str]:
    """*argv* as a real process that must end within the deadline with status *expect* (an
    agenttools command without a traceback; a failed *build* is hatchling's exception)."""
    done = subprocess.run(
        argv,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    printed = done.stdout + done.stderr
    assert build or "Traceback" not in printed, printed
    assert done.returncode == expect, (argv, done.returncode, printed)
    return done


def agenttools(*argv: str, cwd: Path | None = None, expect: int = 1) -> str:
    done = run([sys.executable, "-m", "agenttools", *argv], cwd=cwd, expect=expect)
    return done.stdout + done.stderr


BUILD = """
import sys
from pathlib import Path
from tests.helpers.wheels import build_wheel
build_wheel(Path(sys.argv[1]), Path(sys.argv[2]))
"""


# -- a project: validate and the build hook ----------------------------------------------------
PROJECT_FILES = {
    # relative path -> what validate says (a line holding all of these), the build hook too
    "pyproject.toml": ("pyproject.toml",),
    "docs/forecast.md": ("body-file", '"docs/forecast.md"'),
    "skills/station-lookup/SKILL.md": ("skills/station-lookup/SKILL.md",),
    "skills/weather-report/references/units.md": ("skills/weather-report/references/units.md",),
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "weather-tools"
    shutil.copytree(SAMPLE, root)
    return root


@pytest.mark.parametrize("special", SPECIALS)
@pytest.mark.parametrize("rel", PROJECT_FILES)
def test_validate_and_build_refuse_a_special_project_file(
    project: Path, tmp_path: Path, rel: str, special: str
) -> None:
    make_special(project / rel, special)
    printed = agenttools("validate", str(project))
    lines = [line for line in printed.splitlines() if all(p in line for p in PROJECT_FILES[rel])]
    assert lines, printed
    if special == "named-pipe" and rel != "skills/weather-report/references/units.md":
        assert any(SAYS[special] in line for line in lines), printed
    if rel == "pyproject.toml":
        return  # hatchling reads it itself before any hook runs: not agenttools' read
    built = run([sys.executable, "-c", BUILD, str(project), str(tmp_path / "dist")], build=True)
    assert "AgentToolsBuildError" in built.stderr, built.stderr
    built_lines = built.stderr.splitlines()
    assert any(all(p in line for p in PROJECT_FILES[rel]) for line in built_lines), built.stderr
    assert not (tmp_path / "dist").exists() or not list((tmp_path / "dist").iterdir())


@pytest.mark.parametrize("special", SPECIALS)
def test_files_validate_does_not_read_stay_unread(project: Path, special: str) -> None:
    """The README is hatchling's to read; a ``.gitignore`` that is no file ignores nothing."""
    make_special(project / "README.md", special)
    make_special(project / ".gitignore", special)
    assert "project valid" in agenttools("validate", str(project), expect=0)


# -- an installed wheel ------------------------------------------------------------------------
@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = fake_site(tmp_path / "venv")
    fake_distribution(
        site,
        "weather-tools",
        servers={"weather": {"command": "weather-mcp"}},
        skills={"weather-report": skill_files("weather-report", extra={"references/a.md": "a"})},
    )
    activate(monkeypatch, site)  # (its servers' commands: console scripts there)
    return site


AGENTTOOLS_DIR = "weather_tools-1.0.0.dist-info/extra_metadata/agenttools"


@pytest.mark.parametrize("special", SPECIALS)
def test_a_special_manifest_is_a_problem(site: Path, special: str) -> None:
    make_special(site / AGENTTOOLS_DIR / "manifest.json", special)
    kind = "a named pipe" if special == "named-pipe" else "a character device"
    problem = f"manifest.json is {kind}, not a regular file"
    assert problem in agenttools("list", "--path", str(site), expect=0)
    for argv in (
        ("show", "weather-tools"),
        ("deploy", "codex", "weather-tools"),
        ("mcp", "install", "codex", "weather-tools/weather"),
    ):
        printed = agenttools(*argv, "--path", str(site))
        assert printed.count("\n") == 1 and problem in printed, printed


@pytest.mark.parametrize("special", SPECIALS)
@pytest.mark.parametrize("rel", ["SKILL.md", "references/a.md"])
def test_a_special_skill_file_of_a_wheel_is_refused(
    site: Path, home: Path, rel: str, special: str
) -> None:
    make_special(site / AGENTTOOLS_DIR / "skills" / "weather-report" / rel, special)
    printed = agenttools("deploy", "claude-code", "weather-tools", "--path", str(site))
    assert f"weather-report/{rel}" in printed and "not a regular file" in printed, printed
    assert not (home / ".claude" / "skills" / "weather-report").exists()
    # the server needs none of the skill's files
    agenttools("mcp", "install", "codex", "weather-tools/weather", "--path", str(site), expect=0)


# -- a skill folder: skills install ------------------------------------------------------------
@pytest.mark.parametrize("special", SPECIALS)
def test_skills_install_refuses_a_special_skill_md(
    tmp_path: Path, home: Path, special: str
) -> None:
    folder = tmp_path / "my-skill"
    make_special(folder / "SKILL.md", special)
    printed = agenttools("skills", "install", "claude-code", str(folder))
    assert "my-skill/SKILL.md" in printed, printed
    if special == "named-pipe":
        assert SAYS[special] in printed
    assert not (home / ".claude" / "skills" / "my-skill").exists()


def test_skills_install_copies_regular_files_only(tmp_path: Path, home: Path) -> None:
    folder = tmp_path / "my-skill"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: my-skill\ndescription: d\n---\nbody\n")
    os.mkfifo(folder / "pipe.md")
    agenttools("skills", "install", "claude-code", str(folder), expect=0)
    assert sorted(p.name for p in (home / ".claude" / "skills" / "my-skill").iterdir()) == [
        "SKILL.md"
    ]


# -- a client's config file --------------------------------------------------------------------
CONFIGS: dict[str, Callable[[Path], Path]] = {
    "claude-code": lambda home: home / ".claude.json",
    "codex": lambda home: home / ".codex" / "config.toml",
    "goose": lambda home: home / ".config" / "goose" / "config.yaml",
}


@pytest.mark.parametrize("special", SPECIALS)
@pytest.mark.parametrize("client", CONFIGS)
def test_a_special_config_file_is_never_read(
    site: Path, home: Path, client: str, special: str
) -> None:
    config = CONFIGS[client](home)
    make_special(config, special)
    kind = "a named pipe" if special == "named-pipe" else "a character device"
    where = ("--path", str(site))
    for argv in (
        ("mcp", "install", client, "weather-tools/weather", *where),
        ("mcp", "uninstall", client, "weather", *where),
        ("mcp", "list", client),
        ("deploy", client, "weather-tools", "--no-skills", *where),
    ):
        printed = agenttools(*argv)
        assert f"it is {kind}, not a regular file" in printed, (argv, printed)
        assert printed.count("\n") == 1, printed
    assert config.is_symlink() if special == "dev-zero" else config.is_fifo()


# -- the state: journals, records, the registry, the index, receipts -----------------------------
@pytest.fixture
def state(tmp_path: Path, home: Path) -> Path:
    return tmp_path / "agenttools-state"


def test_a_special_deployment_journal_stops_every_command_until_set_aside(state: Path) -> None:
    journal = state / "deployments" / ".journal" / "00000000000000000001-deploy.json"
    make_special(journal, "named-pipe")
    printed = agenttools("deployed")
    # (the journal named once, then what is wrong with it)
    said = "could not be finished: it cannot be read (it is a named pipe, not a regular file)"
    assert said in printed and printed.count(str(journal)) == 1, printed
    printed = agenttools("doctor")
    said = "a journal that cannot be read: it is a named pipe, not a regular file; nothing"
    assert said in printed and printed.count(str(journal)) == 1, printed
    assert "set aside" in agenttools("doctor", "--fix")
    assert (state / "deployments" / ".journal-set-aside" / journal.name).is_fifo()
    assert "No deployments." in agenttools("deployed", expect=0)
    assert "set aside" in agenttools("doctor")  # (read again, without waiting)


def test_a_special_temp_log_in_the_journal_directory_is_not_read(state: Path) -> None:
    make_special(state / "deployments" / ".journal" / "1-000000000000.temps", "named-pipe")
    assert "No deployments." in agenttools("deployed", expect=0)
    agenttools("doctor", "--fix", expect=0)


def test_a_special_environment_journal_is_warned_about_and_kept(state: Path) -> None:
    journal = state / "envs" / ".journal" / "00000000000000000001-install-weather.json"
    make_special(journal, "named-pipe")
    printed = agenttools("deployed", expect=0)
    assert "No deployments." in printed and "Warning: The managed-environment journal" in printed
    said = "cannot be read (it is a named pipe, not a regular file), so nothing"
    assert said in printed and printed.count(str(journal)) == 1, printed
    assert journal.is_fifo()
    assert SAYS["named-pipe"] in agenttools("doctor")
    agenttools("doctor", "--fix")
    assert (state / "envs" / ".journal-set-aside" / journal.name).is_fifo()
    agenttools("doctor", expect=1)  # (the set-aside journal is read again, without waiting)


def make_not_a_directory(path: Path, kind: str) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "named-pipe":
        os.mkfifo(path)
    elif kind == "file":
        path.write_text("the user's\n")
    else:
        path.symlink_to(path.parent / "nowhere")


NOT_A_DIRECTORY = {
    "named-pipe": "a named pipe",
    "file": "a regular file",
    "dangling-link": "a symbolic link to nothing",
}


@pytest.mark.parametrize("kind", NOT_A_DIRECTORY)
def test_a_journal_directory_that_is_no_directory_stops_changes_until_set_aside(
    site: Path, state: Path, kind: str
) -> None:
    """Bug: remove failed with 'Cannot create the directory …/.journal: File exists' (and
    lost the index), doctor said No problems found."""
    deploy = ("deploy", "claude-code", "weather-tools", "--path", str(site))
    agenttools(*deploy, expect=0)
    journals = state / "deployments" / ".journal"
    make_not_a_directory(journals, kind)
    index = (state / "deployments" / ".index" / "index.json").read_bytes()
    said = f"{journals}, where agenttools keeps the journals of its operations, is "
    said += f"{NOT_A_DIRECTORY[kind]}, not a directory: nothing is changed while it is there."
    for argv in (("remove", "--all"), (*deploy, "--upgrade")):
        printed = agenttools(*argv)
        assert said in printed and "'agenttools doctor --fix'" in printed, printed
    assert (state / "deployments" / ".index" / "index.json").read_bytes() == index
    assert "1 ok" in agenttools("deployed", expect=0)
    printed = agenttools("doctor")
    assert f"is {NOT_A_DIRECTORY[kind]}, not the directory of agenttools' journals" in printed
    assert "--fix sets it aside" in printed, printed
    assert "set aside as" in agenttools("doctor", "--fix", expect=0)
    aside = state / "deployments" / ".journal-set-aside" / ".journal"
    assert aside.is_fifo() if kind == "named-pipe" else os.path.lexists(aside)
    if kind == "file":
        assert aside.read_text() == "the user's\n"
    agenttools("remove", "--all", expect=0)
    assert "No deployments." in agenttools("deployed", expect=0)


def test_an_environment_journal_directory_that_is_no_directory_is_set_aside(
    site: Path, state: Path
) -> None:
    agenttools("deploy", "claude-code", "weather-tools", "--path", str(site), expect=0)
    journals = state / "envs" / ".journal"
    make_not_a_directory(journals, "named-pipe")
    assert "a named pipe, not the directory of agenttools' journals" in agenttools("doctor")
    agenttools("doctor", "--fix", expect=0)
    assert (state / "envs" / ".journal-set-aside" / ".journal").is_fifo()
    agenttools("doctor", expect=0)


def test_a_special_receipt_makes_an_incomplete_environment(state: Path) -> None:
    make_special(state / "envs" / "weather" / "agenttools-receipt.json", "named-pipe")
    assert SAYS["named-pipe"] in agenttools("envs", expect=0)
    assert "the managed environment weather is incomplete" in agenttools("doctor")


STATE_FILES = {
    # relative to the deployments directory after one deploy -> the status of deployed,
    # doctor and the same deploy again with it a named pipe (each as for a file not readable)
    ".skill-registry/*": (0, 1, 1),  # no entry: the skill shows drifted, is not overwritten
    ".index/index.json": (0, 1, 0),  # rebuilt; doctor: it cannot be stored
    ".index/index.log": (0, 1, 0),
    ".created/paths.json": (0, 1, 0),  # the ledger: doctor says it cannot be read
    "*/deployment.json": (0, 1, 1),  # a record: deploy says it cannot be read
    ".lock": (0, 0, 0),  # locked, never read
}


@pytest.mark.parametrize("pattern", STATE_FILES)
def test_a_special_state_file_is_never_waited_for(site: Path, state: Path, pattern: str) -> None:
    deploy = ("deploy", "claude-code", "weather-tools", "--path", str(site))
    agenttools(*deploy, expect=0)
    deployments = state / "deployments"
    found = sorted(deployments.glob(pattern)) or [deployments / pattern]  # (no log yet)
    for path in found:
        make_special(path, "named-pipe")
    for argv, status in zip(
        (("deployed",), ("doctor",), deploy), STATE_FILES[pattern], strict=True
    ):
        agenttools(*argv, expect=status)


# -- a project's lock, and what the machine recorded of it ---------------------------------------
@pytest.fixture
def agenttools_project(tmp_path: Path, home: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "agenttools.toml").write_text('[agenttools]\nclients = ["claude-code"]\n')
    return root


def test_a_special_project_lock_is_refused(agenttools_project: Path) -> None:
    make_special(agenttools_project / "agenttools.lock", "named-pipe")
    for argv in (("verify",), ("sync",), ("sync", "--frozen"), ("lock",)):
        printed = agenttools(*argv, cwd=agenttools_project)
        assert f"agenttools.lock: it is {SAYS['named-pipe']}" in printed, (argv, printed)
    assert (agenttools_project / "agenttools.lock").is_fifo()


def test_a_special_machine_record_of_a_project_is_as_if_unreadable(
    agenttools_project: Path, state: Path
) -> None:
    agenttools("sync", cwd=agenttools_project, expect=0)
    (record,) = (state / "projects").iterdir()
    make_special(record, "named-pipe")
    agenttools("sync", cwd=agenttools_project, expect=0)
    assert record.is_file()  # (written anew)
