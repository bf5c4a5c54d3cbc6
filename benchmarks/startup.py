"""CLI start-up time: each command people type often, as a whole process — run as the
console script ``agenttools`` (what users type: pip's script beside this interpreter, which
imports ``re`` and ``sys``, then calls ``agenttools_runtime.cli.main``) and as ``python -m
agenttools`` — against ``python -c pass`` and ``python -I -S -c pass`` measured in the same run.

Every command runs once per round, all interleaved (one of each per round, so load from
elsewhere slows all of them alike), R rounds after a warm-up run each. For each command it
prints the median CPU time (user + system, the kernel's accounting of the finished child) and
wall time, and the median over rounds of the ratio to the baselines of the same round
(pairwise: a drift of the machine's speed during the run does not bias it):

- ``python -c pass``: the interpreter with its site-packages (the issue's baseline);
  ``python -I -S -c pass``: the bare interpreter, no ``site`` (what no Python CLI goes under);
- floors, what no command can go under: ``floor: script`` (``python -c "import re"``: pip's
  console script imports ``re`` before it calls any code of ours) and ``floor: -m``
  (``import runpy``, what ``python -m`` runs a module with); ``floor: script, json, pathlib``
  and ``floor: -m, json, pathlib``: what a command that reads JSON and builds ``pathlib``
  paths pays on top before any code of its own (``clients``, ``show``, ``skill`` still do;
  ``list``, ``deployed`` and ``--help`` do without);
- ``--version``, ``--help``, ``clients``, ``list``, ``show DIST/BUNDLE``, ``deployed`` with one
  deployment and with 1,001 (also ``--json``), ``skill --list`` and ``skill agenttools``
  (``--no-local``), ``skill --list`` with the clients' local skill folders too,
  each as ``python -m agenttools`` and (``[script]``) as the console script; the last table
  puts the two side by side.

The environment is this interpreter's plus one small distribution (a bundle of one MCP server
and two skills) in a temporary site directory on ``PYTHONPATH``, under a temporary ``HOME`` and
``AGENTTOOLS_HOME``; the states for ``deployed`` are built first, in-process (ad hoc bundles of
one skill and one server spread over seven clients; fsync skipped while building). Bytecode is
cached in a temporary directory, as an installed package has it. Target (issue 15): ≤ 2× ``python
-c pass`` for each command on the small environment, ``deployed`` ≤ 3× with 1,001.

``--code DIR`` measures the agenttools of another checkout (an earlier commit: ``git archive
COMMIT | tar -x -C DIR``), its states built by that code, with this harness.

Run: ``python benchmarks/startup.py [--rounds R] [--deployments N] [--only NAME]... [--code DIR]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
if "--code" in sys.argv:  # the agenttools measured: that checkout's, here and in the children
    CODE = Path(sys.argv[sys.argv.index("--code") + 1]).resolve()
    sys.path.insert(0, str(CODE))
else:
    CODE = REPO

from tests.helpers.venvs import fake_distribution  # noqa: E402

BASELINES = ("python -c pass", "python -I -S -c pass")
CLIENTS = ("cursor", "codex", "windsurf", "kiro", "cline", "gemini-cli", "qwen-code")


SCRIPT = " [script]"  # the console script's entry of a command: its name and this


def console_script(python: str) -> Path | None:
    """The ``agenttools`` script pip wrote beside *python* (None: not installed there)."""
    found = Path(python).parent / ("agenttools.exe" if os.name == "nt" else "agenttools")
    return found if found.is_file() else None


def commands(python: str, homes: dict[str, Path]) -> dict[str, tuple[list[str], Path]]:
    """Name -> (command line, the HOME it runs under)."""
    small = homes["small"]
    table = {
        "python -c pass": ([python, "-c", "pass"], small),
        "python -I -S -c pass": ([python, "-I", "-S", "-c", "pass"], small),
        "floor: script": ([python, "-c", "import re"], small),
        "floor: -m": ([python, "-c", "import runpy"], small),
        "floor: script, json, pathlib": ([python, "-c", "import re, json, pathlib"], small),
        "floor: -m, json, pathlib": ([python, "-c", "import runpy, json, pathlib"], small),
    }
    table.update(cli_commands([python, "-m", "agenttools"], homes))
    script = console_script(python)
    if script is not None:
        found = cli_commands([str(script)], homes)
        table.update({name + SCRIPT: line for name, line in found.items()})
    return table


def cli_commands(cli: list[str], homes: dict[str, Path]) -> dict[str, tuple[list[str], Path]]:
    """The commands measured, each run by *cli*."""
    small, large = homes["small"], homes["large"]
    return {
        "--version": ([*cli, "--version"], small),
        "--help": ([*cli, "--help"], small),
        "clients": ([*cli, "clients"], small),
        "list": ([*cli, "list"], small),
        "show": ([*cli, "show", "bench-tools/bench"], small),
        "deployed (1)": ([*cli, "deployed"], small),
        "deployed (1,001)": ([*cli, "deployed"], large),
        "deployed --json (1,001)": ([*cli, "deployed", "--json"], large),
        "skill --list": ([*cli, "skill", "--list", "--no-local"], small),
        "skill --list, local too": ([*cli, "skill", "--list"], small),
        "skill agenttools": ([*cli, "skill", "agenttools", "--no-local"], small),
    }


# -- the environment ---------------------------------------------------------------------------
def write_site(site: Path) -> None:
    """One distribution with one bundle: a server and two small skills."""
    skill = {
        "description": "A benchmark skill.",
        "files": {"SKILL.md": "---\nname: {}\ndescription: A benchmark skill.\n---\n\nBody.\n"},
    }
    fake_distribution(
        site,
        "bench-tools",
        servers={"bench": {"module": "bench_tools.server", "description": "A server."}},
        skills={
            name: {**skill, "files": {"SKILL.md": skill["files"]["SKILL.md"].format(name)}}  # type: ignore[index]
            for name in ("bench-one", "bench-two")
        },
        bundles=[{"name": "bench", "mcp-servers": ["bench"], "skills": ["bench-one", "bench-two"]}],
    )


@contextlib.contextmanager
def state_home(home: Path) -> Iterator[None]:
    """HOME and AGENTTOOLS_HOME of this process under *home*, and fsync skipped (building a
    state to measure, not what is measured)."""
    saved = {k: os.environ.get(k) for k in ("HOME", "USERPROFILE", "AGENTTOOLS_HOME")}
    os.environ.update(HOME=str(home), USERPROFILE=str(home), AGENTTOOLS_HOME=str(home / "state"))
    real_fsync = os.fsync
    os.fsync = lambda fd: None  # type: ignore[assignment]
    try:
        yield
    finally:
        os.fsync = real_fsync
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def deploy_many(home: Path, count: int) -> float:
    """*count* deployments of ad hoc bundles (one skill, one server) into *home*; seconds."""
    from agenttools_runtime.bundles import AgentTools
    from agenttools_runtime.deploy import deploy
    from agenttools_runtime.mcp.server import MCPServer

    home.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with state_home(home), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(count):
            skill = {"name": f"b{i}-skill", "description": f"Skill {i}.", "body": "Do it.\n"}
            tools = AgentTools(
                name=f"b{i}",
                skills=(skill,),
                mcp_servers=(MCPServer(name=f"b{i}-srv", command="srv", args=(str(i),)),),
            )
            deploy(CLIENTS[i % len(CLIENTS)], tools)
    return time.perf_counter() - start


# -- measuring ---------------------------------------------------------------------------------
def run_once(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one whole process."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    assert proc.stderr is not None
    errors = proc.stderr.read()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed: {errors.decode()}")
    return usage.ru_utime + usage.ru_stime, wall


def measure(
    table: dict[str, tuple[list[str], Path]], env: dict[str, str], rounds: int
) -> dict[str, list[tuple[float, float]]]:
    def env_for(home: Path) -> dict[str, str]:
        return {**env, "HOME": str(home), "USERPROFILE": str(home), "AGENTTOOLS_HOME": str(home / "state")}  # fmt: skip

    times: dict[str, list[tuple[float, float]]] = {name: [] for name in table}
    for command, home in table.values():  # warm-up: bytecode written, files in the page cache
        run_once(command, env_for(home))
    # each round in its own order (seeded: a run can be repeated): a command measured right
    # after a heavy one (`deployed --json` prints 2.4 MB) reads ~0.1x slower, which a fixed
    # order charges to the same command every round
    shuffled = random.Random(15)
    names = list(table)
    for _ in range(rounds):
        shuffled.shuffle(names)
        for name in names:
            command, home = table[name]
            times[name].append(run_once(command, env_for(home)))
    return times


def report(times: dict[str, list[tuple[float, float]]]) -> None:
    def ratio(name: str, base: str, which: int) -> float:
        pairs = zip(times[name], times[base], strict=True)
        return statistics.median(a[which] / b[which] for a, b in pairs)

    print(
        f"  {'':33s} {'CPU':>8s} {'wall':>8s}   CPU ratio to      wall ratio to\n"
        f"  {'':33s} {'median':>8s} {'median':>8s}   -c pass  -I -S    -c pass  -I -S"
    )
    for name, values in times.items():
        cpu = statistics.median(v[0] for v in values) * 1000
        wall = statistics.median(v[1] for v in values) * 1000
        print(
            f"  {name:33s} {cpu:5.1f} ms {wall:5.1f} ms"
            f"   {ratio(name, BASELINES[0], 0):5.2f}x {ratio(name, BASELINES[1], 0):5.2f}x"
            f"   {ratio(name, BASELINES[0], 1):5.2f}x {ratio(name, BASELINES[1], 1):5.2f}x"
        )
    pairs = [name for name in times if name + SCRIPT in times]
    if pairs:
        print(f"\n  CPU ratio to python -c pass   {'agenttools':>10s}  {'python -m':>10s}")
        for name in pairs:
            script, module = ratio(name + SCRIPT, BASELINES[0], 0), ratio(name, BASELINES[0], 0)
            print(f"  {name:28s} {script:10.2f}x  {module:9.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--deployments", type=int, default=1001)
    parser.add_argument(
        "--only", action="append", help="a command's name (repeatable; baselines always run)"
    )
    parser.add_argument("--code", type=Path, help="a checkout of agenttools to measure")
    args = parser.parse_args()
    import importlib.metadata

    installed = sum(1 for _ in importlib.metadata.distributions())
    with tempfile.TemporaryDirectory(prefix="agenttools-startup-") as name:
        tmp = Path(name)
        site = tmp / "site"
        write_site(site)
        homes = {"small": tmp / "small", "large": tmp / "large"}
        table = commands(sys.executable, homes)
        if args.only:
            wanted = set(args.only) | set(BASELINES)
            table = {k: v for k, v in table.items() if k.removesuffix(SCRIPT) in wanted}
        deploy_many(homes["small"], 1)
        if any(home == homes["large"] for _, home in table.values()):
            seconds = deploy_many(homes["large"], args.deployments)
            print(f"(set up {args.deployments} deployments in {seconds:.0f} s)")
        # bytecode cached as an installed package has it, whatever PYTHONDONTWRITEBYTECODE
        # says in this shell; run from an empty directory (python -m puts it first on sys.path)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
        front = [str(site), str(CODE), env.get("PYTHONPATH", "")]
        env["PYTHONPATH"] = os.pathsep.join(front).rstrip(os.pathsep)
        cwd = Path.cwd()
        os.chdir(tmp)
        try:
            times = measure(table, env, args.rounds)
        finally:
            os.chdir(cwd)
    print(f"agenttools from {CODE}")
    print(
        f"Python {sys.version.split()[0]}; {args.rounds} rounds, interleaved; this environment: "
        f"{installed} distributions (+1 on PYTHONPATH); deployed (1,001): "
        f"{args.deployments} deployments"
    )
    report(times)


if __name__ == "__main__":
    main()
