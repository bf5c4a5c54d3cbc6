"""CLI start-up: ``--help``, ``list``, ``show BUNDLE`` and ``clients`` as whole processes,
against ``python -m pip --version`` (the tool a user runs just before) measured in the same run.

Each command runs both as the console script ``agenttools`` (pip's script beside this
interpreter) and as ``python -m agenttools``. All commands of a round run once each, in a
shuffled order (seeded), after a warm-up run of each; a round's ratio is a command's CPU time
(user + system of the finished child) over the baseline's in the same round, and the figure
is the median over the rounds. Target (issue 22): each ≤ 0.35×.

For scale, two floors are measured too: ``python -c pass`` (the interpreter) and a process
that only imports ``argparse, dataclasses, typing, hashlib, json, pathlib,
importlib.metadata`` (what a plain Python CLI imports before any code of its own).

The environment is this interpreter's plus one small distribution (one MCP server, two
skills) in a temporary site directory on ``PYTHONPATH``, under a temporary ``HOME`` and
``AGENTTOOLS_HOME``; bytecode is cached (in a temporary directory), as for an installed
package.

``--code DIR`` measures the agenttools of another checkout (an earlier commit: ``git archive
COMMIT | tar -x -C DIR``) with this harness.

Run: ``python benchmarks/startup.py [--rounds R] [--code DIR]``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.helpers.venvs import fake_distribution  # noqa: E402

BASELINE = "python -m pip --version"
STDLIB = "argparse, dataclasses, typing, hashlib, json, pathlib, importlib.metadata"
TARGET = 0.35
SCRIPT = " [script]"  # the console script's entry of a command: its name and this


def cli_variants(argv: Sequence[str]) -> dict[str, list[str]]:
    """*argv* run by ``python -m agenttools`` and (when installed) by the console script."""
    found = {" ".join(argv): [sys.executable, "-m", "agenttools", *argv]}
    script = Path(sys.executable).parent / ("agenttools.exe" if os.name == "nt" else "agenttools")
    if script.is_file():
        found[" ".join(argv) + SCRIPT] = [str(script), *argv]
    return found


def baselines() -> dict[str, list[str]]:
    return {
        BASELINE: [sys.executable, "-m", "pip", "--version"],
        "python -c pass": [sys.executable, "-c", "pass"],
        "import the stdlib modules": [sys.executable, "-c", f"import {STDLIB}"],
    }


def cpu_seconds(command: Sequence[str], env: Mapping[str, str]) -> float:
    """User + system CPU seconds of one whole process (which must succeed)."""
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    assert proc.stderr is not None
    errors = proc.stderr.read()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) not in (0, 1):  # (verify: 1 when something differs)
        raise SystemExit(f"{' '.join(command)} failed: {errors.decode()}")
    return usage.ru_utime + usage.ru_stime


def measure(
    table: Mapping[str, Sequence[str]], env: Mapping[str, str], rounds: int
) -> dict[str, list[float]]:
    """Each command of *table* (with the baseline) once per round, shuffled; CPU seconds."""
    for command in table.values():  # warm-up: bytecode written, files in the page cache
        cpu_seconds(command, env)
    times: dict[str, list[float]] = {name: [] for name in table}
    order = list(table)
    shuffle = random.Random(22)
    for _ in range(rounds):
        shuffle.shuffle(order)
        for name in order:
            times[name].append(cpu_seconds(table[name], env))
    return times


def report(times: Mapping[str, list[float]], targets: Mapping[str, float]) -> None:
    """Median CPU time of each command and the median of its per-round ratio to the baseline;
    *targets*: the commands with a target, and that target."""
    base = times[BASELINE]
    print(f"  {'':36s} {'CPU median':>10s}  {'ratio to ' + BASELINE:>34s}")
    for name, values in times.items():
        ratio = statistics.median(a / b for a, b in zip(values, base, strict=True))
        target = targets.get(name)
        verdict = (
            ""
            if target is None
            else f"  (target ≤ {target}×: {'met' if ratio <= target else 'NOT met'})"
        )
        print(f"  {name:36s} {statistics.median(values) * 1000:7.1f} ms  {ratio:33.2f}×{verdict}")


def test_environment(tmp: Path, code: Path | None = None) -> dict[str, str]:
    """This process's environment with the small distribution (and the agenttools of *code*)
    on ``PYTHONPATH`` and a temporary ``HOME`` and ``AGENTTOOLS_HOME``; bytecode cached in
    *tmp*."""
    site = tmp / "site"
    skill = "---\nname: {0}\ndescription: A benchmark skill.\n---\n\nBody.\n"
    fake_distribution(
        site,
        "bench-tools",
        servers={"bench": {"module": "bench_tools.server", "description": "A server."}},
        skills={
            name: {"description": "A benchmark skill.", "files": {"SKILL.md": skill.format(name)}}
            for name in ("bench-one", "bench-two")
        },
        bundles=[{"name": "bench", "mcp-servers": ["bench"], "skills": ["bench-one", "bench-two"]}],
    )
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV")
    }
    home = tmp / "home"
    home.mkdir()
    env.update(
        HOME=str(home),
        USERPROFILE=str(home),
        AGENTTOOLS_HOME=str(tmp / "state"),
        PYTHONPYCACHEPREFIX=str(tmp / "pycache"),
        PYTHONPATH=os.pathsep.join(
            p for p in (str(site), str(code or ""), env.get("PYTHONPATH", "")) if p
        ),
    )
    return env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--code", type=Path, help="a checkout of agenttools to measure")
    args = parser.parse_args()
    table = baselines()
    targets = {}
    for argv in (["--help"], ["list"], ["show", "bench-tools/bench"], ["clients"]):
        found = cli_variants(argv)
        table.update(found)
        targets.update(dict.fromkeys(found, TARGET))
    with tempfile.TemporaryDirectory(prefix="agenttools-startup-") as name:
        env = test_environment(Path(name), args.code and args.code.resolve())
        times = measure(table, env, args.rounds)
    print(f"agenttools from {args.code or REPO}; Python {sys.version.split()[0]}")
    print(f"{args.rounds} rounds; CPU time (user + system); the stdlib modules: {STDLIB}")
    report(times, targets)


if __name__ == "__main__":
    main()
