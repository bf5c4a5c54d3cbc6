"""CLI start-up time: ``python -m agenttools …`` against ``python -c pass``.

Runs each command in a subprocess with this interpreter, interleaved (one of each per round, so
a machine loaded by something else slows all of them alike), R rounds after one warm-up run
each, and prints the minimum, the median and the median's ratio to ``python -c pass``:

- ``python -c pass``                          the interpreter alone (the baseline);
- ``python -c "import argparse, json, pathlib"`` the floor of any argparse CLI that prints JSON
                                              and touches paths;
- the floor plus ``dataclasses`` (which imports ``inspect``): what ``list`` and ``clients``
  import besides our own modules;
- ``agenttools --version``, ``--help``, ``clients``, ``list``, ``skill --list``, and
  ``skill agenttools`` (loading the built-in skill).

``list`` runs against this interpreter's environment (its number of distributions is printed);
every command under an empty temporary HOME, so the numbers measure the start-up, not the
user's skill folders. Run it from any directory: ``python -m`` puts the current one first on
``sys.path``.

Target (issue 4): ``list`` ≤ 2× ``python -c pass``. Run: ``python benchmarks/startup.py [R]``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

ROUNDS = 25


def commands(python: str) -> dict[str, list[str]]:
    cli = [python, "-m", "agenttools"]
    return {
        "python -c pass": [python, "-c", "pass"],
        "floor": [python, "-c", "import argparse, json, pathlib"],
        "floor+dataclasses": [python, "-c", "import argparse, json, pathlib, dataclasses"],
        "--version": [*cli, "--version"],
        "--help": [*cli, "--help"],
        "clients": [*cli, "clients"],
        "list": [*cli, "list"],
        "skill --list": [*cli, "skill", "--list", "--no-local"],
        "skill agenttools": [*cli, "skill", "agenttools", "--no-local"],
    }


def run_rounds(
    commands: dict[str, list[str]], rounds: int, env: dict[str, str]
) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in commands}
    for command in commands.values():  # warm-up: bytecode written, files in the page cache
        subprocess.run(command, stdout=subprocess.DEVNULL, env=env, check=True)
    for _ in range(rounds):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, env=env, check=True)
            times[name].append(time.perf_counter() - start)
    return times


def main() -> None:
    import importlib.metadata

    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else ROUNDS
    installed = sum(1 for _ in importlib.metadata.distributions())
    with tempfile.TemporaryDirectory(prefix="agenttools-startup-") as home:
        # An installed wheel has its bytecode compiled by pip: measure with .pyc files written,
        # whatever PYTHONDONTWRITEBYTECODE says in this shell.
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(HOME=home, USERPROFILE=home, AGENTTOOLS_HOME=os.path.join(home, "state"))
        times = run_rounds(commands(sys.executable), rounds, env)
    print(
        f"Python {sys.version.split()[0]}; {rounds} rounds, interleaved; "
        f"this environment: {installed} distributions"
    )
    # the minimum is the run least disturbed by other load; the median the typical one
    base_min, base = min(times["python -c pass"]), statistics.median(times["python -c pass"])
    print(f"  {'':18s} {'min':>9s} {'median':>9s}   ratio to python -c pass (min, median)")
    for name, values in times.items():
        low, median = min(values), statistics.median(values)
        print(
            f"  {name:18s} {low * 1000:6.1f} ms {median * 1000:6.1f} ms"
            f"   {low / base_min:5.2f}x {median / base:5.2f}x"
        )
    ratio = statistics.median(times["list"]) / base
    floor = statistics.median(times["floor"]) / base
    print(f"  list / python -c pass = {ratio:.2f} (target <= 2; floor {floor:.2f})")


if __name__ == "__main__":
    main()
