"""``agenttools deployed`` (the status table) and ``verify`` against ``python -c pass``, as whole
processes, with no deployment and with many (issue 13; the start-up targets of issue 15:
``deployed`` ≤ 2× ``python -c pass``, ≤ 3× with 1,001 deployments).

The state is real: fake installed distributions (``tests/helpers/venvs.fake_distribution``)
of ``--dists`` bundles, each with one MCP server and one skill, deployed through the library
to ``--clients`` clients until there are ``--deployments`` deployments (under a temporary
HOME and AGENTTOOLS_HOME). Then each command runs ``--rounds`` times, interleaved with
``python -c pass`` (one of each per round, after a warm-up), and the medians and the median
of the pairwise ratios are printed.

Run: ``python benchmarks/deployed.py [--deployments 1001] [--rounds 15] [--keep DIR]``
(``--keep``: build the state in DIR and keep it, printing the environment to run
a whole-process timer against it by hand).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def build_state(root: Path, deployments: int, dists: int, clients: int) -> dict[str, str]:
    """HOME, AGENTTOOLS_HOME and a site directory under *root* with *deployments*
    deployments; returns the environment to run agenttools against it."""
    from tests.helpers.venvs import fake_distribution, skill_files

    home, state, site = root / "home", root / "state", root / "site"
    for path in (home, state, site):
        path.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "HOME": str(home), "AGENTTOOLS_HOME": str(state)}
    os.environ.update({"HOME": str(home), "AGENTTOOLS_HOME": str(state)})
    from agenttools_runtime.clients import all_clients
    from agenttools_runtime.deploy import deploy
    from agenttools_runtime.discovery import SearchPath

    names = [f"tools-{i:03d}" for i in range(dists)]
    for name in names:
        fake_distribution(
            site,
            name,
            "1.0.0",
            servers={f"{name}-server": {"module": f"{name.replace('-', '_')}.server"}},
            skills={f"{name}-skill": skill_files(f"{name}-skill")},
        )
    search = SearchPath.for_paths([site])
    targets = [
        c.id for c in all_clients().values() if c.supports_skills and c.mcp_config is not None
    ][:clients]
    done = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in names:
            for client in targets:
                if done == deployments:
                    return env
                deploy(client, name, search=search)
                done += 1
    return env


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deployments", type=int, default=1001)
    parser.add_argument("--dists", type=int, default=60)
    parser.add_argument("--clients", type=int, default=17)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--keep", type=Path)
    args = parser.parse_args(argv)
    python = sys.executable
    with tempfile.TemporaryDirectory(prefix="agenttools-deployed-") as tmp:
        root = args.keep or Path(tmp)
        empty = {
            **os.environ,
            "HOME": str(root / "empty-home"),
            "AGENTTOOLS_HOME": str(root / "empty-state"),
        }
        start = time.perf_counter()
        env = build_state(root, args.deployments, args.dists, args.clients)
        print(f"built {args.deployments} deployments in {time.perf_counter() - start:.1f} s")
        if args.keep:
            print(f"HOME={env['HOME']} AGENTTOOLS_HOME={env['AGENTTOOLS_HOME']}")
        cases = {
            "deployed (none)": ([python, "-m", "agenttools", "deployed"], empty),
            f"deployed ({args.deployments})": ([python, "-m", "agenttools", "deployed"], env),
            f"deployed --json ({args.deployments})": (
                [python, "-m", "agenttools", "deployed", "--json"],
                env,
            ),
            f"verify ({args.deployments})": ([python, "-m", "agenttools", "verify"], env),
        }
        baseline = [python, "-c", "pass"]
        for label, (command, environment) in cases.items():
            ours, base = [], []
            for round_ in range(args.rounds + 1):
                a = _time(command, environment)
                b = _time(baseline, environment)
                if round_:  # (the first is the warm-up)
                    ours.append(a)
                    base.append(b)
            ratios = [x / y for x, y in zip(ours, base, strict=True)]
            print(
                f"{label:<28} {statistics.median(ours) * 1000:8.1f} ms   python -c pass "
                f"{statistics.median(base) * 1000:6.1f} ms   ratio {statistics.median(ratios):5.2f}x"
                f" (min {min(ratios):.2f}, max {max(ratios):.2f})"
            )


def _time(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if done.returncode not in (0, 1):  # (verify exits 1 when something differs)
        raise SystemExit(f"{command} failed: {done.stderr.decode()}")
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
