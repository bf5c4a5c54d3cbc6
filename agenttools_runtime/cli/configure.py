"""``agenttools configure DEPLOYMENT [SERVER.VAR=VALUE …]``: change the values of the settings a
deployment's servers declare (the deployment is deployed again with them, everything else as
it was); without values, list them (a secret as ``*****``)."""

from __future__ import annotations

import argparse
from typing import Any

from agenttools_runtime.cli.common import (
    add_check_arguments,
    add_command,
    emit,
    examples,
    finish_interrupted_if_left,
    nonempty,
)
from agenttools_runtime.cli.setting_args import add_setting_arguments


def register(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "configure",
        run_configure,
        help="change the values of a deployment's server settings (API keys, options)",
        description=(
            "Give new values to the settings the servers of the deployment DEPLOYMENT (its "
            "id or a unique prefix, see 'agenttools deployed') declare: it is deployed again "
            "from what is installed, with the values given and every other value as it was "
            "(a secret's from the user-scope entry that holds it). Without values, list each "
            "setting and its value (secrets as *****). See docs/settings.md."
        ),
        epilog=examples(
            "agenttools configure 3f2a9c1e",
            "agenttools configure 3f2a9c1e forecast.FORECAST_UNITS=imperial",
            "agenttools configure 3f2a9c1e --env-file .env",
        ),
    )
    parser.add_argument("deployment", type=nonempty, metavar="DEPLOYMENT", help="deployment id")
    parser.add_argument(
        "values",
        nargs="*",
        metavar="SERVER.VAR=VALUE",
        help="new values (plain VAR=VALUE for a deployment of one server)",
    )
    add_setting_arguments(parser)
    add_check_arguments(parser)


def run_configure(args: argparse.Namespace) -> int:
    from agenttools_runtime.cli.setting_args import given_as_usage_error, given_settings
    from agenttools_runtime.deploy.deployment import Deployment, find_deployment
    from agenttools_runtime.deploy.sync import redeploy, resolved_again
    from agenttools_runtime.settings.given import by_server, parse_pairs

    finish_interrupted_if_left()
    record = find_deployment(args.deployment)
    with given_as_usage_error():
        assignments = [*given_settings(args), *parse_pairs(args.values, "value")]
    if not assignments:
        rows = _current(record)
        lines = [f"{r['server']}.{r['name']} = {r['value']}" for r in rows]
        data = {"ok": True, "uuid": record.uuid, "settings": rows}
        emit(args, data, "\n".join(lines) or f"Deployment {record.uuid} has no settings.")
        return 0
    resolved = resolved_again(record)  # (what is installed now declares the settings)
    declared = {sp.server.name: [s.name for s in sp.server.settings] for sp in resolved.servers}
    with given_as_usage_error():
        given = by_server(assignments, declared)
    outcome = redeploy(record, settings=given, check=args.check, resolved=resolved)
    assert isinstance(outcome, Deployment)
    changed = [f"{s}.{n}" for s, values in given.items() for n in values]
    state = "unchanged (the values were already these)" if outcome.unchanged else "configured"
    text = f"Deployment {outcome.uuid} {state}: {', '.join(changed)}."
    emit(args, {"ok": True, "deployment": outcome.to_json(), "set": changed}, text)
    return 0


def _current(record: Any) -> list[dict[str, Any]]:
    """Each setting value the record keeps (a secret as ``*****``, a reference by name)."""
    from agenttools_runtime.settings.configure import SETTINGS
    from agenttools_runtime.settings.secrets import MARK

    rows = []
    for entry in record.mcp_servers:
        values = entry.extra.get(SETTINGS)
        for name, value in (values or {}).items():
            if isinstance(value, dict) and "reference" in value:
                shown = f"(from the environment variable {value['reference']})"
            else:
                shown = value if isinstance(value, str) else MARK
            rows.append({"server": entry.name.rpartition("/")[2], "name": name, "value": shown})
    return rows
