"""Cost of adding one MCP entry to a large Codex ``~/.codex/config.toml`` with ``agenttools mcp
install``, as whole processes, against the baseline of the round-trip library alone: a process
that reads the same file with ``tomlkit.parse`` and writes it back with ``tomlkit.dumps``.

    python benchmarks/mcp_toml.py [--keys 20000] [--rounds 5] [--baseline DIR]

Each round runs the install into a fresh copy of the file (a new HOME), then the baseline;
prints the CPU time (user + system) of each, the median of the round-by-round ratios, and how
many times the install parsed a text with ``tomlkit`` and with ``tomllib``. With
``--baseline /path/to/an/earlier/checkout`` the install also runs with ``PYTHONPATH`` set to
it, interleaved (the before and after of a change, in one run).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

SERVER_JSON = {
    "$schema": "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json",
    "name": "io.github.example/docs",
    "description": "Docs.",
    "version": "2025.1",
    "remotes": [{"type": "streamable-http", "url": "https://docs.example.org/mcp"}],
}

# the install, in a process that counts the parses (printed on stderr at exit)
COUNTING = """
import atexit, sys, tomllib, tomlkit
counts = {"tomlkit": 0, "tomllib": 0}
parse, loads = tomlkit.parse, tomllib.loads
def counted_parse(text):
    counts["tomlkit"] += 1
    return parse(text)
def counted_loads(text, **kwargs):
    counts["tomllib"] += 1
    return loads(text, **kwargs)
tomlkit.parse, tomllib.loads = counted_parse, counted_loads
atexit.register(lambda: print("PARSES", counts["tomlkit"], counts["tomllib"], file=sys.stderr))
from agenttools_runtime.cli import main
sys.exit(main(sys.argv[1:]))
"""

ROUND_TRIP = "import sys, tomlkit; p = sys.argv[1]; t = open(p).read(); open(p, 'w').write(tomlkit.dumps(tomlkit.parse(t)))"


def config_toml(keys: int) -> str:
    """A Codex config: a few settings, one big profile table, one server."""
    lines = ['model = "o3"', "", "[profiles.big]"]
    lines += [f"key_{i} = {i}" for i in range(keys)]
    lines += ["", "[mcp_servers.other]", 'command = "other-server"', ""]
    return "\n".join(lines)


def cpu_of(command: list[str], env: dict[str, str]) -> tuple[float, str]:
    """The CPU seconds (user + system) of one whole process, and its stderr."""
    proc = subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=env["HOME"],
    )
    assert proc.stderr is not None
    err = proc.stderr.read().decode()
    _pid, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{command[:4]} exited {code}: {err}")
    return usage.ru_utime + usage.ru_stime, err


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--baseline", help="an earlier checkout, run with PYTHONPATH")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        text = config_toml(args.keys)
        server = tmp / "server.json"
        server.write_text(json.dumps(SERVER_JSON))
        counter = iter(range(1_000_000))

        def fresh_home() -> tuple[Path, dict[str, str]]:
            home = tmp / f"home-{next(counter)}"
            (home / ".codex").mkdir(parents=True)
            (home / ".codex" / "config.toml").write_text(text)
            env = {k: v for k, v in os.environ.items() if k not in ("CODEX_HOME", "VIRTUAL_ENV")}
            env.update(HOME=str(home), AGENTTOOLS_HOME=str(home / "state"))
            env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            return home, env

        install = [
            sys.executable,
            "-c",
            COUNTING,
            "mcp",
            "install",
            "codex",
            "--server-json",
            str(server),
        ]
        sides = {"install": str(REPO)}
        if args.baseline:
            sides["before"] = args.baseline
        times: dict[str, list[float]] = {name: [] for name in (*sides, "round-trip")}
        parses: dict[str, str] = {}
        for round_number in range(args.rounds + 1):  # (the first warms the bytecode cache)
            for name, path in sides.items():
                home, env = fresh_home()
                spent, err = cpu_of(install, {**env, "PYTHONPATH": path})
                parses[name] = err.rsplit("PARSES", 1)[1].strip()
                if round_number:
                    times[name].append(spent)
                shutil.rmtree(home)
            home, env = fresh_home()
            spent, _ = cpu_of(
                [sys.executable, "-c", ROUND_TRIP, str(home / ".codex" / "config.toml")], env
            )
            if round_number:
                times["round-trip"].append(spent)
            shutil.rmtree(home)
    size = len(text.encode())
    print(f"mcp install codex into a config.toml of {args.keys:,} keys ({size / 1e3:.0f} KB)")
    for name, values in times.items():
        extra = ""
        if name in parses:
            tomlkit_count, tomllib_count = parses[name].split()
            extra = f"  (parses: tomlkit {tomlkit_count}, tomllib {tomllib_count})"
        print(f"  {name:<11} median {statistics.median(values):.2f} s CPU{extra}")
    for name in sides:
        ratios = [a / b for a, b in zip(times[name], times["round-trip"], strict=True)]
        print(f"  {name} / round-trip: {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()
