"""``agenttools doctor``: check the deployment state, and repair what is provably safe."""

from __future__ import annotations

import argparse
from typing import Any

from agenttools_runtime.cli.common import add_command, emit, examples


def register(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "doctor",
        run_doctor,
        help="check agenttools' state for what interrupted operations left; --fix repairs it",
        description=(
            "Look for what interrupted or foreign changes left in agenttools' state: "
            "operations a process did not finish (their intent journals), a missing or "
            "stale state index, registry references to deployments that are gone, registry "
            "entries whose skill directory is gone, skill directories a deployment lists "
            "without a registry entry, half-built copies, temp files, backups of skill "
            "directories, and recorded MCP entries missing from their config file. Exit "
            "status 0 when nothing is left to repair. With --fix, repair what the journals, "
            "the registry and the records prove safe; anything that may be someone's only "
            "copy (a backup nothing accounts for) is only reported."
        ),
        epilog=examples("agenttools doctor", "agenttools doctor --fix --json"),
    )
    parser.add_argument(
        "--fix", action="store_true", help="repair what can be repaired safely (see above)"
    )


def run_doctor(args: argparse.Namespace) -> int:
    from agenttools_runtime.deploy.doctor import diagnose

    report = diagnose(fix=args.fix)
    from agenttools_runtime.cli.envs import doctor_environments

    # (their recovery finishes the deployments' first: it would stop on the same journal)
    fix_environments = args.fix and report.recovered
    environments, said, environments_ok = doctor_environments(fix_environments)
    if said and args.fix and not fix_environments:
        said += "\n  -> not repaired until the deployments' journal above is handled"
    ok = report.ok and environments_ok  # (the JSON's "ok" too: the whole answer)
    emit(
        args,
        {**report.to_json(), "ok": ok, "environments": environments},
        lambda: "\n".join(t for t in (report.render(more=bool(said)), said) if t),
    )
    return 0 if ok else 1
