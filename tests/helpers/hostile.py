"""The hostile-input corpus runner (``tests/hostile/``): cases, their expected messages, the
CLI run as a real process, and a snapshot of everything on disk.

A case is a file or a folder in ``tests/hostile/<kind>/``; next to it (or inside the folder),
``<case>.expected`` (``expected.txt`` in a folder) holds the commands to run and what each
prints::

    $ agenttools mcp install claude-code weather-tools/weather --config {config} --path {site}
    agenttools: Cannot parse {config} (line 1, column 1001: nested more than 100 levels ...

Each ``$`` line is one command (split like a shell would, after the placeholders are filled);
the lines up to the next ``$`` are its output — stdout, then stderr — exactly. Every command
must exit 1, print no traceback and leave every file it could reach (the temporary home, the
state directory, the case's copy) byte-for-byte as it was. Placeholders: ``{home}``,
``{state}``, ``{site}`` (a site-packages directory holding the ``weather-tools`` test
distribution), ``{case}`` (the case's copy) and whatever the kind's test adds.
"""

from __future__ import annotations

import os
import shlex
import stat
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tests.helpers.venvs import fake_distribution, skill_files

HOSTILE = Path(__file__).resolve().parent.parent / "hostile"


@dataclass(frozen=True)
class Command:
    argv: str  # after "$ agenttools ", placeholders unfilled
    output: str


@dataclass(frozen=True)
class Case:
    kind: str
    name: str
    path: Path  # the file or folder
    commands: tuple[Command, ...]

    @property
    def id(self) -> str:
        return self.name


def cases(kind: str) -> list[Case]:
    """Every case of ``tests/hostile/<kind>`` (a file with ``<name>.expected`` beside it, or a
    folder holding ``expected.txt``), sorted by name."""
    root = HOSTILE / kind
    found = []
    for path in sorted(root.iterdir()):
        if path.name.startswith((".", "__")) or path.suffix in (".expected", ".py"):
            continue
        expected = path / "expected.txt" if path.is_dir() else Path(f"{path}.expected")
        if not expected.is_file():
            raise AssertionError(f"{path} has no {expected.name}")
        found.append(Case(kind, path.name, path, parse_expected(expected)))
    return found


def parse_expected(path: Path) -> tuple[Command, ...]:
    commands: list[Command] = []
    argv: str | None = None
    output: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("$ agenttools "):
            if argv is not None:
                commands.append(Command(argv, "\n".join(output)))
            argv, output = line.removeprefix("$ agenttools "), []
        elif argv is not None:
            output.append(line)
        elif line.strip() and not line.startswith("#"):
            raise AssertionError(f"{path}: output before the first '$ agenttools' line")
    if argv is not None:
        commands.append(Command(argv, "\n".join(output)))
    if not commands:
        raise AssertionError(f"{path} names no command")
    return tuple(commands)


def fill(template: str, places: Mapping[str, object]) -> str:
    for name, value in places.items():
        template = template.replace("{" + name + "}", str(value))
    return template


def run_agenttools(argv: list[str], env: Mapping[str, str], cwd: Path) -> tuple[int, str, str]:
    """``python -m agenttools ARGV`` in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-m", "agenttools", *argv],
        capture_output=True,
        text=True,
        errors="surrogateescape",
        env={**os.environ, **env},
        cwd=cwd,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def snapshot(*roots: Path) -> dict[str, object]:
    """Everything under *roots* (and the roots themselves), as it is on disk: per path, its
    type and mode, and a file's bytes or a link's target. The state lock file is left out:
    taking the lock creates it, empty, and it is never removed."""
    seen: dict[str, object] = {}
    for root in roots:
        pending = [root]
        while pending:
            path = pending.pop()
            try:
                info = path.lstat()
            except FileNotFoundError:
                seen[str(path)] = None
                continue
            if path.name == ".lock" and path.parent.name == "deployments":
                continue
            mode = stat.S_IMODE(info.st_mode)
            if stat.S_ISLNK(info.st_mode):
                seen[str(path)] = ("link", os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                seen[str(path)] = ("dir", mode)
                pending.extend(path.iterdir())
            elif stat.S_ISREG(info.st_mode):
                seen[str(path)] = ("file", mode, path.read_bytes())
            else:  # a FIFO, a device: never read (it may block or never end)
                seen[str(path)] = ("special", stat.S_IFMT(info.st_mode), mode)
    return seen


def make_site(root: Path) -> Path:
    """A site-packages directory holding ``weather-tools`` 1.0.0: server ``weather``
    (module ``weather_tools.server``), skill ``weather-report``."""
    site = root / "site-packages"
    if not site.is_dir():
        fake_distribution(
            site,
            "weather-tools",
            "1.0.0",
            servers={"weather": {"module": "weather_tools.server"}},
            skills={"weather-report": skill_files("weather-report", "Weather reports.")},
        )
    return site


def check_case(case: Case, places: Mapping[str, object], cwd: Path, *watched: Path) -> None:
    """Run every command of *case*: exit 1, exactly the expected output, no traceback,
    nothing under *watched* changed."""
    env = {
        "HOME": str(places["home"]),
        "USERPROFILE": str(places["home"]),
        "AGENTTOOLS_HOME": str(places["state"]),
        "COLUMNS": "100",
        "NO_COLOR": "1",
    }
    for command in case.commands:
        before = snapshot(*watched)
        argv = [fill(arg, places) for arg in shlex.split(command.argv)]
        status, stdout, stderr = run_agenttools(argv, env, cwd)
        shown = f"$ agenttools {shlex.join(argv)}\n--- stdout\n{stdout}--- stderr\n{stderr}"
        assert "Traceback" not in stderr, shown
        assert status == 1, shown
        expected = fill(command.output, places)
        assert (stdout + stderr).rstrip("\n") == expected.rstrip("\n"), shown
        after = snapshot(*watched)
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        assert not changed, f"{shown}\nchanged on disk: {changed}"
