"""The runner of the installed-manifest and SKILL.md kinds of the hostile-input corpus
(``tests/hostile/manifest/``, ``tests/hostile/skill_md/``).

A case is a file; ``<case>.expected`` beside it holds the commands to run and what each prints::

    $ agenttools show hostile --path {site}
    agenttools: The agenttools manifest of "hostile" cannot be used: it is nested more ...

Each ``$`` line is one command (split like a shell would, after the placeholders are filled);
the lines up to the next ``$`` are its output, stdout then stderr, exactly (a line ``...``
stands for any lines). A command exits 1 unless a line ``? N`` right after it says otherwise.
Every command runs as a real ``python -m agenttools`` process, prints no traceback, and leaves
every file it could reach (the temporary home, the state directory, the site and the case's
copies) byte-for-byte as it was.
"""

from __future__ import annotations

import os
import re
import shlex
import stat
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

HOSTILE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Command:
    argv: str  # after "$ agenttools ", placeholders unfilled
    status: int
    output: str


@dataclass(frozen=True)
class Case:
    name: str
    path: Path
    commands: tuple[Command, ...]


def cases(kind: str, suffix: str) -> list[Case]:
    """Every case of ``tests/hostile/<kind>`` (files ending in *suffix*), sorted by name."""
    found = []
    for path in sorted((HOSTILE / kind).glob(f"*{suffix}")):
        expected = Path(f"{path}.expected")
        if not expected.is_file():
            raise AssertionError(f"{path} has no {expected.name}")
        found.append(Case(path.name.removesuffix(suffix), path, _parse(expected)))
    return found


def _parse(path: Path) -> tuple[Command, ...]:
    commands: list[Command] = []
    argv: str | None = None
    status = 1
    output: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("$ agenttools "):
            if argv is not None:
                commands.append(Command(argv, status, "\n".join(output)))
            argv, status, output = line.removeprefix("$ agenttools "), 1, []
        elif argv is not None and not output and re.fullmatch(r"\? \d+", line):
            status = int(line[2:])
        elif argv is not None:
            output.append(line)
    if argv is not None:
        commands.append(Command(argv, status, "\n".join(output)))
    if not commands:
        raise AssertionError(f"{path} names no command")
    return tuple(commands)


def run(case: Case, places: Mapping[str, object], env: Mapping[str, str], *roots: Path) -> None:
    """Run every command of *case*; assert its status, output and that *roots* are
    unchanged."""
    before = snapshot(*roots)
    for command in case.commands:
        argv = shlex.split(_fill(command.argv, places))
        done = subprocess.run(
            [sys.executable, "-m", "agenttools", *argv],
            capture_output=True,
            text=True,
            errors="surrogateescape",
            env={**os.environ, **env},
            timeout=120,
            check=False,
        )
        printed = (done.stdout + done.stderr).rstrip("\n")
        assert "Traceback" not in printed, printed
        expected = _fill(command.output, places)
        pattern = "\n".join(
            r"(?:.*\n)*?.*" if line == "..." else re.escape(line) for line in expected.split("\n")
        )
        assert re.fullmatch(pattern, printed), f"$ agenttools {command.argv}\n{printed}"
        assert done.returncode == command.status, (command.argv, done.returncode, printed)
        assert snapshot(*roots) == before, f"$ agenttools {command.argv} changed files"


def _fill(template: str, places: Mapping[str, object]) -> str:
    for name, value in places.items():
        template = template.replace("{" + name + "}", str(value))
    return template


def snapshot(*roots: Path) -> dict[str, object]:
    """Everything under *roots*: per path its type and mode, a file's bytes, a link's target.
    The state lock file is left out (taking the lock creates it, empty, for good)."""
    seen: dict[str, object] = {}
    for root in roots:
        pending = [root]
        while pending:
            path = pending.pop()
            try:
                info = path.lstat()
            except FileNotFoundError:
                continue
            if path.name == ".lock":
                continue
            if stat.S_ISLNK(info.st_mode):
                seen[str(path)] = ("link", os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                seen[str(path)] = ("dir", stat.S_IMODE(info.st_mode))
                pending.extend(path.iterdir())
            else:
                seen[str(path)] = ("file", stat.S_IMODE(info.st_mode), path.read_bytes())
    return seen
