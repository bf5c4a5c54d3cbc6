"""The cost of the start check every deploy makes by default: ``agenttools deploy`` as a whole
process with the default check against the same deploy with ``--no-check``, in the same run.

The bundle is one distribution in the site-packages of a fresh virtual environment where pip
installed this checkout (that of ``benchmarks/startup.py``, whose interpreter runs every
process measured, in the temporary ``HOME``): S skills and four stdio servers
— two ``module`` servers (each a spec lookup along the environment's ``sys.path``), a
``script`` server (its console script in the environment's ``bin``) and a ``command`` by
absolute path — deployed to Claude Code under a temporary ``HOME`` and ``AGENTTOOLS_HOME``.
Each round runs both modes once, in a shuffled order (seeded), each a deploy that writes
(the deployment is removed, unmeasured, after each); the figure is the median over the rounds
of a round's ratio (default / ``--no-check``), CPU time (user + system) of the finished
process — or, with ``--instructions``, the instructions it executed (callgrind: does not move
with the machine's load). ``python -m pip --version`` is measured in the same rounds, for
scale.

Run: ``python benchmarks/preflight.py [--rounds R] [--skills S] [--instructions]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.startup import (  # noqa: E402
    cpu_seconds,
    instructions,
    site_packages,
    user_environment,
)
from tests.helpers.venvs import fake_distribution, skill_files  # noqa: E402

BASELINE = "python -m pip --version"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--skills", type=int, default=5)
    parser.add_argument("--instructions", action="store_true")
    options = parser.parse_args()
    count = instructions if options.instructions else cpu_seconds
    rounds = 1 if options.instructions else options.rounds
    with tempfile.TemporaryDirectory(prefix="agenttools-preflight-") as name:
        tmp = Path(name)
        python, env = user_environment(tmp, REPO)
        home = Path(env["HOME"])
        site = site_packages(python)
        server = tmp / "server.py"
        server.write_text("import sys\nsys.stdin.read()\n")
        fake_distribution(
            site,
            "bench-tools",
            "1.0.0",
            servers={
                "forecast": {"module": "bench_tools.forecast"},
                "alerts": {"module": "bench_tools.alerts.server"},
                "radar": {"script": "bench-radar"},
                "local": {"command": sys.executable, "args": [str(server)]},
            },
            skills={f"skill-{i}": skill_files(f"skill-{i}") for i in range(options.skills)},
        )
        deploy = [str(python), "-m", "agenttools", "deploy", "claude-code", "bench-tools",
                  "--path", str(site)]  # fmt: skip
        table = {
            "deploy (default check)": deploy,
            "deploy --no-check": [*deploy, "--no-check"],
            BASELINE: [str(python), "-m", "pip", "--version"],
        }
        remove = [str(python), "-m", "agenttools", "remove", "--all"]

        def once(command: list[str]) -> float:
            figure = count(command, env, home)
            if command[3:4] == ["deploy"]:
                done = subprocess.run(remove, env=env, cwd=home, capture_output=True, check=False)
                if done.returncode != 0:
                    raise SystemExit(f"remove --all failed: {done.stderr.decode()}")
            return figure

        for command in table.values():  # warm-up: bytecode written, files in the page cache
            once(command)
        done = subprocess.run(deploy, env=env, cwd=home, capture_output=True, check=False)
        if done.returncode != 0:  # (a refused deploy would be measured as one that wrote)
            raise SystemExit(f"the deploy failed: {done.stderr.decode()}")
        subprocess.run(remove, env=env, cwd=home, capture_output=True, check=True)
        times: dict[str, list[float]] = {label: [] for label in table}
        order = list(table)
        shuffle = random.Random(26)
        for _ in range(rounds):
            shuffle.shuffle(order)
            for label in order:
                times[label].append(once(table[label]))
    unit = "instructions" if options.instructions else "s CPU"
    for label, values in times.items():
        print(f"{label:28} {statistics.median(values):14.4g} {unit}")
    checked, unchecked = times["deploy (default check)"], times["deploy --no-check"]
    ratios = [a / b for a, b in zip(checked, unchecked, strict=True)]
    print(f"default check / --no-check: {statistics.median(ratios):.3f}x "
          f"(median of {rounds} round(s), 4 servers, {options.skills} skills)")  # fmt: skip
    base = [a / b for a, b in zip(unchecked, times[BASELINE], strict=True)]
    print(f"deploy --no-check / {BASELINE}: {statistics.median(base):.2f}x")


if __name__ == "__main__":
    main()
