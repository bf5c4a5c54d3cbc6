"""``agenttools verify`` and ``sync``, and the status views of ``deployed`` and ``remove``:
deployments after their distributions moved (upgraded, uninstalled, the venv deleted) or
their files were edited."""

from __future__ import annotations

import argparse
from collections import Counter
from typing import TYPE_CHECKING, Any

from agenttools_runtime.cli import envs as envs_cli
from agenttools_runtime.cli import project as project_cli
from agenttools_runtime.cli.common import (
    UsageError,
    add_check_arguments,
    add_command,
    add_selection_arguments,
    ask_yes_no,
    columns,
    emit,
    examples,
    finish_interrupted_if_left,
    nonempty,
)

if TYPE_CHECKING:
    from agenttools_runtime.deploy.records import DeploymentRecord
    from agenttools_runtime.deploy.status import DeploymentStatus
    from agenttools_runtime.deploy.sync import SyncItem

STATUS_HELP = (
    "statuses: ok; outdated (the installed distribution has another version or other "
    "content: 'agenttools sync' upgrades it); drifted (a deployed skill file or config entry "
    "was changed: 'agenttools verify' says which); orphaned (its distribution or its "
    "environment is gone: 'agenttools sync --prune' removes it); broken (the record cannot "
    "be read)"
)


def register(subparsers: Any) -> None:
    verify = add_command(
        subparsers,
        "verify",
        run_verify,
        formatter_class=argparse.HelpFormatter,
        help="check deployed skill files and config entries for changes (exit 1 if any)",
        description=(
            "Check deployments against what agenttools wrote and what is installed: every "
            "skill file (hashed) and every MCP config entry, file by file and entry by entry, "
            "and whether the distribution is still installed at the deployed version. Exit "
            "status 0 when every deployment checked is ok, 1 otherwise (a check for CI: the "
            "project's committed deployments are intact). Inside a project (an agenttools.toml "
            "here or above) it checks every file and entry the project's agenttools.lock lists "
            "instead; --global keeps the meaning above there. --format github prints one "
            "GitHub Actions annotation per finding, on its file, either way."
        ),
        epilog=STATUS_HELP,
    )
    verify.add_argument(
        "id", type=nonempty, metavar="ID", nargs="*", help="deployment UUID or unique prefix"
    )
    add_selection_arguments(verify)
    project_cli.add_verify_arguments(verify)

    sync = add_command(
        subparsers,
        "sync",
        run_sync,
        help="upgrade outdated deployments from the installed distributions; --prune orphans",
        description=(
            "Deploy every outdated deployment again from the distribution installed now (in "
            "the environment it was deployed from, to the same target, with the same "
            "options): the --upgrade path, so a skill you modified is kept and reported "
            "unless --force. With --prune, orphaned deployments (their distribution was "
            "uninstalled or their environment deleted) are removed; that asks first on a "
            "terminal, and needs --yes when stdin or stderr is not one. One lock for the "
            "whole run, one summary at the end. Exit status 0 when everything was done. "
            "Inside a project (an agenttools.toml here or above) it makes this machine match "
            "the project's agenttools.lock instead (--locked, --frozen; docs/projects.md); "
            "--global keeps the meaning above there."
        ),
        epilog=examples(
            "pip install -U weather-tools && agenttools sync",
            "agenttools sync --dry-run",
            "agenttools sync --client cursor --bundle weather-tools",
            "pip uninstall weather-tools && agenttools sync --prune --yes",
        ),
    )
    add_selection_arguments(sync)
    sync.add_argument(
        "--dry-run", action="store_true", help="print the plan per deployment; change nothing"
    )
    sync.add_argument("--prune", action="store_true", help="also remove orphaned deployments")
    sync.add_argument(
        "--yes", "-y", action="store_true", help="remove orphaned deployments without asking"
    )
    sync.add_argument(
        "--force",
        action="store_true",
        help="also replace skills you modified (like deploy --force)",
    )
    add_check_arguments(sync)
    envs_cli.add_upgrade_arguments(sync)
    project_cli.add_sync_arguments(sync)


# -- deployed --------------------------------------------------------------------------------


def run_deployed(args: argparse.Namespace) -> int:
    """``agenttools deployed``: one line per deployment with its status (``--long``: each in
    full, with what its status is made of; ``--json``: its record and status in full), after
    what an interrupted operation left is finished."""
    from agenttools_runtime.clients import get_client
    from agenttools_runtime.deploy import Deployment, status

    finish_interrupted_if_left()
    client = None if args.client is None else get_client(args.client).id
    found = status.statuses(status.load_all(client))
    if args.json:
        shown = [
            {**(Deployment(i.record).to_json() if i.record else {}), **i.to_json()} for i in found
        ]
        emit(args, {"ok": True, "deployments": shown, "summary": _counts(found)}, "")
    elif not found:
        print("No deployments.")
    else:
        print(_render_long(found) if args.long else _render_table(found))
    return 0


def _render_table(found: list[DeploymentStatus]) -> str:
    table = [("ID", "CLIENT", "SCOPE", "BUNDLE", "VERSION", "STATUS", "")]
    for item in found:
        record = item.record
        about = ("?",) * 4
        if record is not None:
            about = (record.client, _scope(record), record.toolset_name, _version(record))
        table.append((item.uuid[:8], *about, item.status, _first(item)))
    aligned = columns([line[:6] for line in table])  # the findings follow, not aligned
    lines = [
        row + (f"  {line[6]}" if line[6] else "") for row, line in zip(aligned, table, strict=True)
    ]
    lines += ["", _summary_line(found)]
    return "\n".join(lines)


def _render_long(found: list[DeploymentStatus]) -> str:
    from agenttools_runtime.deploy import Deployment

    blocks = []
    for item in found:
        if item.record is None:
            blocks.append(f"{item.uuid}  broken\n  {item.findings[0].message}")
            continue
        d = Deployment(item.record)
        lines = [f'{d.uuid}  {d.client_name}: "{d.toolset}" ({d.timestamp})']
        version = _version(item.record)
        if version != "-":
            lines.append(f"  version {version}" + _installed_note(item))
        if d.scope not in (None, "user"):
            lines.append(f"  project {d.scope}")
        for entry in d.record.mcp_servers:
            lines.append(f'  MCP server "{entry.config_key}" in {entry.config_file}')
        for skill in d.record.installed:
            lines.append(f"  skill {skill.name} in {skill.directory}")
        lines.append(f"  status: {item.status}")
        lines.extend(f"    {f.state}: {f.message}" for f in item.findings)
        blocks.append("\n".join(lines))
    return "\n".join(blocks) + "\n\n" + _summary_line(found)


def _installed_note(item: DeploymentStatus) -> str:
    deployed = item.record.agent_tools.get("distribution_version") if item.record else None
    installed = item.installed_version
    if installed and deployed and installed != deployed:
        return f" ({installed} installed)"
    return ""


def _summary_line(found: list[DeploymentStatus], *, repairs: bool = False) -> str:
    """The counts, and what to run next (*repairs*: the commands that repair, for verify,
    which has shown what changed already)."""
    counts = _counts(found)
    parts = [f"{n} {word}" for word, n in counts.items() if n]
    line = f"{len(found)} deployment(s): " + ", ".join(parts) + "."
    hints = []
    if counts.get("outdated"):
        hints.append("'agenttools sync' upgrades the outdated")
    if counts.get("orphaned"):
        hints.append("'agenttools sync --prune' removes the orphaned")
    if (counts.get("drifted") or counts.get("broken")) and not repairs:
        hints.append("'agenttools verify' shows what changed")
    if counts.get("drifted") and repairs:
        hints.append(
            "deploying a drifted one again with --upgrade writes what is missing (with "
            "--force, also the files changed since)"
        )
    if counts.get("broken") and repairs:
        hints.append("'agenttools doctor --fix' repairs what it can of the broken")
    return line + (" " + "; ".join(hints) + "." if hints else "")


def _counts(found: list[DeploymentStatus]) -> dict[str, int]:
    from agenttools_runtime.deploy.drift import STATUSES

    counts = dict.fromkeys(STATUSES, 0)
    for item in found:
        counts[item.status] += 1
    return counts


def _first(item: DeploymentStatus) -> str:
    if not item.findings:
        return ""
    more = len(item.findings) - 1
    # (a broken record's message is its path, the reason and what can be done: all of it)
    return item.findings[0].message + (f" (+{more} more)" if more else "")


def _scope(record: DeploymentRecord) -> str:
    if record.scope == "user":
        return "user"
    if record.scope is not None:
        return record.scope
    return f"file {record.mcp_servers[0].config_file}" if record.mcp_servers else "-"


def _version(record: DeploymentRecord) -> str:
    at = record.agent_tools
    if at.get("distribution_version"):
        return str(at["distribution_version"])
    if at.get("location") == "builtin":
        return record.agenttools_version or "-"
    return "-"


# -- verify ----------------------------------------------------------------------------------


def run_verify(args: argparse.Namespace) -> int:
    project = project_cli.project_here(args)
    if project is not None:  # inside a project: its lock, not the machine's deployments
        return project_cli.run_project_verify(args, project)
    from agenttools_runtime.deploy import status
    from agenttools_runtime.deploy.records import DeploymentRecord
    from agenttools_runtime.deploy.selection import select

    finish_interrupted_if_left()
    items = status.load_all()
    readable = [r for r in items if isinstance(r, DeploymentRecord)]
    chosen: list[Any] = select(readable, ids=args.id, client=args.client, bundle=args.bundle)
    if not (args.id or args.client or args.bundle):
        chosen += [r for r in items if not isinstance(r, DeploymentRecord)]  # broken ones too
    found = status.statuses(chosen, deep=True)
    ok = all(i.ok for i in found)
    if args.format == "github" and not args.json:
        print(_github_verify(found))
        return 0 if ok else 1
    data = {"ok": ok, "deployments": [i.to_json() for i in found], "summary": _counts(found)}
    emit(args, data, lambda: _render_verify(found))
    return 0 if ok else 1


def _github_verify(found: list[DeploymentStatus]) -> str:
    """``--format github``: an annotation per finding (on its file), then the summary."""
    from agenttools_runtime.cli.annotations import error

    lines = []
    for item in found:
        what = _what(item)
        for f in item.findings:
            where = f.path if f.path is not None else item.path
            lines.append(error(f"{f.message} ({what}, {item.uuid})", file=where))
    lines.append(_summary_line(found, repairs=True) if found else "No deployments to verify.")
    return "\n".join(lines)


def _what(item: DeploymentStatus) -> str:
    record = item.record
    return f"{record.client} {record.toolset_name}" if record is not None else "(unreadable)"


def _render_verify(found: list[DeploymentStatus]) -> str:
    if not found:
        return "No deployments to verify."
    lines = []
    for item in found:
        what = _what(item)
        lines.append(f"{item.uuid}  {what}: {item.status}")
        lines.extend(f"  {f.state}: {f.message}" for f in item.findings)
    lines.append(_summary_line(found, repairs=True))
    return "\n".join(lines)


# -- sync ------------------------------------------------------------------------------------


def run_sync(args: argparse.Namespace) -> int:
    if args.yes and not args.prune:  # (a project sync asks nothing: nor there)
        raise UsageError("--yes confirms --prune; give --prune too")
    project = project_cli.project_here(args)
    if project is not None:  # inside a project: make the machine match its lock
        return project_cli.run_project_sync(args, project)
    from agenttools_runtime.deploy.sync import PRUNE, run_sync

    if not args.dry_run:
        finish_interrupted_if_left()
    # Every question before any change: the orphans are asked about before the upgrades.
    items = _plan_sync(args)
    orphans = [i for i in items if i.action == PRUNE]
    confirmed, refusal = True, ""
    if orphans and not args.dry_run and not args.yes:
        confirmed, refusal = _confirm(orphans)
    upgrades, upgraded, upgrades_ok = envs_cli.sync_upgrades(args)  # managed environments
    if args.upgrade and not args.dry_run:  # (deployed again from new environments: new records)
        asked = None if args.yes else {i.record.uuid for i in orphans}
        items = _plan_sync(args, asked=asked)
    run_sync(
        items, dry_run=args.dry_run, force=args.force, remove_orphans=confirmed, check=args.check
    )
    ok = all(i.ok for i in items) and upgrades_ok
    data: dict[str, Any] = {
        "ok": ok,
        "dry_run": args.dry_run,
        "results": [i.to_json() for i in items],
    }
    if args.upgrade:
        data["upgrades"] = upgrades
    if refusal:
        data["not_removed"] = refusal
    if args.dry_run:
        from agenttools_runtime.cli.plan_view import plan_json

        for row, item in zip(data["results"], items, strict=True):
            if item.plan is not None:
                row["plan"] = plan_json(item.plan)
    emit(args, data, lambda: "\n".join([*upgraded, _render_sync(items, args.dry_run, refusal)]))
    return 0 if ok else 1


def _plan_sync(args: argparse.Namespace, asked: set[str] | None = None) -> list[SyncItem]:
    """What ``sync`` does with the deployments chosen; *asked*: the orphans the user was
    asked about — one orphaned since is left (the next sync asks about it)."""
    from agenttools_runtime.deploy import status
    from agenttools_runtime.deploy.records import DeploymentRecord
    from agenttools_runtime.deploy.selection import select
    from agenttools_runtime.deploy.sync import PRUNE, SKIP, plan_sync

    pool = [r for r in status.load_all() if isinstance(r, DeploymentRecord)]
    items = plan_sync(select(pool, client=args.client, bundle=args.bundle), prune=args.prune)
    for item in items:
        if asked is not None and item.action == PRUNE and item.record.uuid not in asked:
            item.action = SKIP
    return items


def _confirm(orphans: list[SyncItem]) -> tuple[bool, str]:
    """Ask on a terminal whether to remove the orphaned deployments; never when stdin or
    stderr is not one (then they are not removed, and the reason says how to confirm)."""
    listed = "".join(
        f"\n  {item.record.uuid}  {item.record.client} {item.record.toolset_name}"
        for item in orphans
    )
    answer = ask_yes_no(
        f"{len(orphans)} orphaned deployment(s) would be removed:{listed}\nRemove them?"
    )
    if answer is None:
        return False, "stdin or stderr is not a terminal, so nothing was asked: confirm with --yes"
    if answer:
        return True, ""
    return False, "not confirmed"


def _render_sync(items: list[SyncItem], dry_run: bool, refusal: str) -> str:
    if not items:
        return "No deployments."
    blocks = []
    if dry_run:
        from agenttools_runtime.cli.plan_view import render_plan

        blocks = [render_plan(i.plan) for i in items if i.plan is not None and not i.plan.unchanged]
    table = [("ID", "CLIENT", "BUNDLE", "RESULT", "DETAIL")]
    for item in items:
        record = item.record
        table.append(
            (record.uuid[:8], record.client, record.toolset_name, item.result, item.detail)
        )
    lines = columns(table)
    done = Counter(item.result for item in items)  # (in the order first met)
    verdict = ", ".join(f"{n} {result}" for result, n in done.items())
    lines.append(f"{len(items)} deployment(s): {verdict}.")
    if refusal:
        lines.append(f"Orphaned deployments were not removed: {refusal}.")
    return "\n\n".join([*blocks, "\n".join(lines)])
