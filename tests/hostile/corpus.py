"""The runner of the hostile-input corpus: ``tests/hostile/<kind>/`` for the kinds manifest,
skill_md, pyproject, config/json, config/toml, config/yaml, uri and state.

A case is a file (or a folder: a state directory, a directory where a config file belongs);
``<case>.expected`` beside it holds the commands to run and what each prints::

    $ agenttools show hostile --path {site}
    agenttools: The agenttools manifest of "hostile" cannot be used: it is nested more ...

Each ``$`` line is one command (split like a shell would, then the placeholders filled in);
the lines up to the next ``$`` are its output, stdout then stderr, exactly (a line ``...``
stands for any lines, ``{...}`` in a line for any text: a hash of a temporary path). A command exits 1 unless a line ``? N`` right after it says otherwise.
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
    """Every case of ``tests/hostile/<kind>`` (files or folders ending in *suffix*), sorted
    by name."""
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


def run(
    case: Case,
    places: Mapping[str, object],
    env: Mapping[str, str],
    *roots: Path,
    cwd: Path | None = None,
) -> None:
    """Run every command of *case* (in *cwd*); assert its status, output and that *roots*
    are unchanged."""
    before = snapshot(*roots)
    for command in case.commands:
        # split first: a filled-in value (a path, a URI with backslashes) is one argument
        argv = [_fill(arg, places) for arg in shlex.split(command.argv)]
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
        printed = (done.stdout + done.stderr).rstrip("\n")
        assert "Traceback" not in printed, printed
        expected = _fill(command.output, places)
        pattern = "\n".join(
            r"(?:.*\n)*?.*" if line == "..." else re.escape(line).replace(r"\{\.\.\.\}", ".*?")
            for line in expected.split("\n")
        )
        assert re.fullmatch(pattern, printed), f"$ agenttools {command.argv}\n{printed}"
        assert done.returncode == command.status, (command.argv, done.returncode, printed)
        after = snapshot(*roots)
        changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
        assert not changed, f"$ agenttools {command.argv} changed on disk: {changed}"


def _fill(template: str, places: Mapping[str, object]) -> str:
    for name, value in places.items():
        template = template.replace("{" + name + "}", str(value))
    return template


def snapshot(*roots: Path) -> dict[str, object]:
    """Everything under *roots*: per path its type and mode, a file's bytes, a link's target.
    The state lock file is left out (taking the lock creates it, empty, for good), and so are
    the state index (a cache of the records), the cache of verified wheel files and the journal
    directory (not what is in it)."""
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
            # the state's own bookkeeping: the index is a cache of the records, rebuilt on use;
            # the journal directory stays (a journal left in it is a change)
            if path.parent.name == "deployments" and path.name in (".index", ".verified"):
                continue  # (.verified: the stat cache of verified wheel files, also a cache)
            if path.parent.name == "deployments" and path.name == ".journal":
                pending.extend(path.iterdir() if path.is_dir() else ())
                continue
            if stat.S_ISLNK(info.st_mode):
                seen[str(path)] = ("link", os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                seen[str(path)] = ("dir", stat.S_IMODE(info.st_mode))
                pending.extend(path.iterdir())
            elif stat.S_ISREG(info.st_mode):
                seen[str(path)] = ("file", stat.S_IMODE(info.st_mode), path.read_bytes())
            else:  # a FIFO, a device: never read (it may block, or never end)
                seen[str(path)] = ("special", info.st_mode)
    return seen


def weather_site(root: Path) -> Path:
    """A site-packages directory under *root* holding ``weather-tools`` 1.0.0: server
    ``weather`` (module ``weather_tools.server``), skill ``weather-report``."""
    from tests.helpers.venvs import fake_distribution, fake_site, skill_files, venv_at

    site = venv_at(root / "venv").site_packages
    if not site.is_dir():
        fake_site(root / "venv")
        fake_distribution(
            site,
            "weather-tools",
            "1.0.0",
            servers={"weather": {"module": "weather_tools.server"}},
            skills={"weather-report": skill_files("weather-report", "Weather reports.")},
        )
    return site
