"""``agenttools deployed`` with 1,000 deployments, every status computed, as whole processes,
against ``python -m pip --version`` measured in the same run (the harness of
``benchmarks/startup.py``). Target (issue 22): ``deployed`` ≤ 0.5×; ``deployed --json`` and
``verify`` (which hashes every skill directory) are shown for scale.

The state is real: ``--dists`` fake installed distributions (``tests/helpers/venvs``), each
with one MCP server and one skill, deployed through the library to ``--clients`` clients
until there are ``--deployments`` deployments, under a temporary ``HOME`` and
``AGENTTOOLS_HOME`` (built by this checkout's code, also with ``--code``). The distributions
are installed in the environment of ``benchmarks/startup.py`` — a fresh virtual environment
where pip installed the agenttools measured (this checkout's, or ``--code``'s) — and every
process measured runs with its interpreter.

``--keep DIR`` builds the state in DIR, or uses the one an earlier run built there (building
1,000 deployments takes minutes); the environment is made afresh in DIR on every run, the
same distributions at the same place.

``--instructions`` counts each whole process's instructions with valgrind's callgrind instead
of timing it (one round: the count does not move with the machine's load).

Run: ``python benchmarks/deployed.py [--deployments 1000] [--rounds 10] [--keep DIR]
[--code DIR] [--instructions]``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

from startup import (
    REPO,
    answer,
    baselines,
    cli_variants,
    cpu_seconds,
    instructions,
    measure,
    report,
    site_packages,
    user_environment,
)


def install_dists(site: Path, dists: int) -> list[str]:
    """*dists* distributions installed in *site*, each with one MCP server and one skill:
    their names."""
    from tests.helpers.venvs import fake_distribution, skill_files

    names = [f"tools-{i:03d}" for i in range(dists)]
    for name in names:
        fake_distribution(
            site,
            name,
            "1.0.0",
            servers={f"{name}-server": {"module": f"{name.replace('-', '_')}.server"}},
            skills={f"{name}-skill": skill_files(f"{name}-skill")},
        )
    return names


def build_state(site: Path, names: list[str], deployments: int, clients: int) -> None:
    """*deployments* deployments of the distributions *names* installed in *site*, into the
    HOME and AGENTTOOLS_HOME of this process."""
    from agenttools_runtime.clients import all_clients
    from agenttools_runtime.deploy import deploy
    from agenttools_runtime.discovery import SearchPath

    search = SearchPath.for_paths([site])
    targets = [
        c.id for c in all_clients().values() if c.supports_skills and c.mcp_config is not None
    ][:clients]
    pairs = [(name, client) for name in names for client in targets][:deployments]
    if len(pairs) < deployments:
        raise SystemExit(f"{len(names)} distributions × {len(targets)} clients < {deployments}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, client in pairs:
            deploy(client, name, search=search)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deployments", type=int, default=1000)
    parser.add_argument("--dists", type=int, default=60)
    parser.add_argument("--clients", type=int, default=17)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--code", type=Path, help="a checkout of agenttools to measure")
    parser.add_argument("--keep", type=Path, help="build the state here, or use the one built")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions (callgrind), not time"
    )
    args = parser.parse_args()
    if args.instructions:
        args.rounds = 1 if args.rounds == parser.get_default("rounds") else args.rounds
    with tempfile.TemporaryDirectory(prefix="agenttools-deployed-") as name:
        root = args.keep.resolve() if args.keep else Path(name)
        python, env = user_environment(root, (args.code or REPO).resolve())
        os.environ.update({k: env[k] for k in ("HOME", "USERPROFILE", "AGENTTOOLS_HOME")})
        site = site_packages(python)
        names = install_dists(site, args.dists)
        if not (root / "state").is_dir():
            started = time.perf_counter()
            build_state(site, names, args.deployments, args.clients)
            seconds = time.perf_counter() - started
            print(f"built {args.deployments} deployments in {seconds:.0f} s")
        table = baselines(python)
        targets = {}
        for argv in (["deployed"], ["deployed", "--json"], ["verify"]):
            found = cli_variants(python, argv)
            table.update(found)
            if argv == ["deployed"]:
                targets.update(dict.fromkeys(found, 0.5))
        count = instructions if args.instructions else cpu_seconds
        times = measure(table, env, args.rounds, count, root / "home")
        pip = answer(python, "import pip; print(pip.__version__)")
    what = "instructions (callgrind)" if args.instructions else "CPU time (user + system)"
    print(f"agenttools from {args.code or REPO}; Python {sys.version.split()[0]}, pip {pip}")
    print(f"{args.rounds} rounds; {what}; {args.deployments} deployments")
    report(times, targets, "M" if args.instructions else "ms")


if __name__ == "__main__":
    main()
