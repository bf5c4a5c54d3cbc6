"""``agenttools deploy``, ``deployed`` and ``remove``: tracked, reversible deployments."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agenttools_runtime.cli import envs as envs_cli
from agenttools_runtime.cli.common import (
    BUNDLE_FORMS,
    UsageError,
    add_check_arguments,
    add_command,
    add_environment_arguments,
    add_overwrite_arguments,
    add_selection_arguments,
    add_target_arguments,
    columns,
    emit,
    examples,
    finish_interrupted_if_left,
    nonempty,
    refuse_both,
)
from agenttools_runtime.cli.lifecycle import run_deployed
from agenttools_runtime.cli.setting_args import add_setting_arguments, settings_for
from agenttools_runtime.mcp.runner_names import RUNNERS

if TYPE_CHECKING:
    from agenttools_runtime.clients import Client
    from agenttools_runtime.deploy import AllClientsResult, Deployment
    from agenttools_runtime.deploy.deploy_plan import DeployPlan
    from agenttools_runtime.discovery import SearchPath

TOOLS_HELP = (
    "what to deploy: dist/bundle, a distribution with one bundle, dist/server or a unique "
    "server name; default: the built-in 'agenttools' bundle"
)


def register(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "deploy",
        run_deploy,
        help="deploy a bundle's MCP servers and skills into a client (tracked, reversible)",
        description=(
            "Deploy TOOLS into TARGET as one tracked deployment: each MCP server is written "
            "into the client's config file (other entries, comments and formatting kept) and "
            "each skill is copied into the client's skills directory. Shared skill "
            "directories are reference counted; a skill directory that was modified, or that "
            "belongs to another source, is never replaced without --force. If anything fails, "
            "every change is rolled back. TARGET may name several clients "
            "(claude-code,cursor,codex); --detected takes the clients detected on this "
            "machine, --all-clients every supported one: each client is deployed on its own "
            "(its own deployment, its own lock) and a summary table ends the output. The "
            "output ends with the 'agenttools remove' command that undoes it."
        ),
        epilog=(
            "runners (how a module/script server's command is written):\n"
            "  python  the absolute interpreter of its environment (user scope default;\n"
            "          in a project file: a warning, the file only works on this machine)\n"
            "  script  its console script by name, found on the client's PATH (project\n"
            "          scope default when the distribution has one)\n"
            "  uvx     uvx --from DIST==VERSION SCRIPT (uv installs the release itself)"
        )
        + "\n\n"
        + examples(
            "agenttools deploy claude-code weather-tools",
            "agenttools deploy claude-code,cursor,codex weather-tools",
            "agenttools deploy --detected weather-tools --dry-run",
            "agenttools deploy cursor weather-tools/weather --project .",
            "agenttools deploy claude-code weather-tools --project . --runner uvx",
            "agenttools deploy codex weather-tools --upgrade",
            "agenttools deploy claude-code                 # the built-in agenttools bundle",
            "agenttools deploy --all-clients weather-tools   # every supported client",
            "agenttools deploy --all-clients                 # the built-in bundle everywhere",
            "agenttools deploy claude-desktop --config ~/cfg.json --no-skills",
        ),
        unrecognized_hint=(
            "several clients are one TARGET separated by commas: claude-code,cursor,codex"
        ),
    )
    add_target_arguments(
        parser,
        target="client id, or several separated by commas (claude-code,cursor,codex); see "
        "'agenttools clients'",
        project="project scope: the client's files inside project directory DIR",
        config="an explicit MCP config file instead of the client's own",
        skills_dir="install skills into DIR (a skills root holding skill folders)",
        # with --all-clients / --detected there is no TARGET: the one positional is TOOLS
        optional=True,
    )
    parser.add_argument("tools", metavar="TOOLS", nargs="?", help=TOOLS_HELP)
    parser.add_argument(
        "--no-skills", action="store_true", help="deploy only the MCP servers, no skills"
    )
    add_overwrite_arguments(
        parser,
        upgrade="replace an existing deployment of the same tools and upgrade unmodified "
        "skills from the same source",
        force="like --upgrade, and also replace skill directories that were modified or "
        "belong to another source, and MCP config entries that agenttools did not write or "
        "that the user changed (removing the deployment puts those entries back)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print what would be written, replaced or kept (each entry exactly as it would "
        "be written; one plan per client), and change nothing",
    )
    selection = parser.add_mutually_exclusive_group()
    selection.add_argument(
        "--all-clients",
        action="store_true",
        help="deploy to every supported client (then the one positional argument, if any, "
        "is TOOLS; without it the built-in agenttools bundle)",
    )
    selection.add_argument(
        "--detected",
        action="store_true",
        help="deploy to every client detected on this machine (see 'agenttools clients'; "
        "then the one positional argument, if any, is TOOLS)",
    )
    parser.add_argument(
        "--runner",
        choices=RUNNERS,
        help="how module/script servers are started from the config file (see below; "
        "default: script in project scope when there is one, else python)",
    )
    parser.add_argument(
        "--link",
        action="store_true",
        help="deploy the skills of an editable install (pip install -e) as links to their "
        "live source, so edits show at once (refused for clients known not to follow links)",
    )
    parser.add_argument(
        "--name",
        type=nonempty,
        metavar="KEY",
        help="the key of the server entry in the config file (a bundle with one server only)",
    )
    add_setting_arguments(parser)
    add_check_arguments(parser)
    add_environment_arguments(parser)
    envs_cli.add_install_arguments(parser)

    listing = add_command(
        subparsers,
        "deployed",
        run_deployed,
        help="list the recorded deployments and their status (ok, outdated, drifted, ...)",
        description=(
            "List every recorded deployment (optionally of one CLIENT), one line each: its "
            "id (a prefix), client, scope, bundle, version and status. --long shows each in "
            "full: the MCP config entries it wrote, the skills it references, and what its "
            "status is made of."
        ),
        epilog=(
            "statuses: ok; outdated (the installed distribution has another version or other "
            "content: 'agenttools sync'); drifted (a deployed file or entry was changed: "
            "'agenttools verify'); orphaned (its distribution or environment is gone: "
            "'agenttools sync --prune'); broken (the record cannot be read)"
        )
        + "\n\n"
        + examples("agenttools deployed", "agenttools deployed cursor --long"),
    )
    listing.add_argument(
        "client", type=nonempty, metavar="CLIENT", nargs="?", help="only this client's"
    )
    listing.add_argument(
        "--long", "-l", action="store_true", help="each deployment in full, with its findings"
    )

    remove = add_command(
        subparsers,
        "remove",
        run_remove,
        help="remove deployments: their config entries and the skills nothing else uses",
        description=(
            "Remove the deployment ID (its UUID or a unique prefix, see 'agenttools "
            "deployed'; several IDs remove several), or every deployment of a client "
            "(--client), of a bundle (--bundle), or all of them (--all): its MCP config "
            "entries are removed unless another deployment records them; its skills are "
            "released, and a skill directory is deleted only when no other deployment uses "
            "it and it is unchanged since agenttools wrote it; what agenttools created for "
            "it (a config file, a container key, a skills folder) goes too once nothing uses "
            "it and nobody changed it. A config entry the user changed since agenttools "
            "wrote it is kept (unless --force); one of the user's that the deployment "
            "replaced with --force is put back, byte for byte. Works from the record alone, "
            "even after the distribution was uninstalled. Exit status 1 when anything could "
            "not be removed: the deployment then stays listed, and removing it again "
            "finishes the job."
        ),
        epilog=examples(
            "agenttools remove 3f2a9c1e",
            "agenttools remove --client cursor",
            "agenttools remove --bundle weather-tools --dry-run",
            "agenttools remove --all",
        ),
    )
    remove.add_argument(
        "id", type=nonempty, metavar="ID", nargs="*", help="deployment UUID or unique prefix"
    )
    add_selection_arguments(
        remove,
        client="every deployment of this client",
        bundle=f"every deployment of this bundle {BUNDLE_FORMS}",
    )
    remove.add_argument("--all", action="store_true", help="every deployment")
    remove.add_argument(
        "--dry-run", action="store_true", help="print which deployments would be removed"
    )
    remove.add_argument(
        "--force",
        action="store_true",
        help="also remove the MCP config entries the user changed after agenttools wrote "
        "them (by default they are kept, with a warning); an entry of the user's that the "
        "deployment replaced is put back either way",
    )


def run_deploy(args: argparse.Namespace) -> int:
    from agenttools_runtime.cli.discovery import search_from_args
    from agenttools_runtime.deploy import DEFAULT

    refuse_both(args, "--no-skills", "--skills-dir")
    refuse_both(args, "--project", "--config")
    skills_dir: Any = None if args.no_skills else (args.skills_dir or DEFAULT)
    many = args.all_clients or args.detected
    if not many and args.target is None:
        raise UsageError(
            "TARGET is required (a client id, see 'agenttools clients'), or --detected, or "
            "--all-clients"
        )
    if many and args.tools is not None:
        flag = "--all-clients" if args.all_clients else "--detected"
        raise UsageError(f"with {flag} give only TOOLS (no TARGET)")
    if args.all_clients and (args.project or args.config):
        raise UsageError("with --all-clients give only TOOLS (no TARGET, --project or --config)")
    names = [] if many else [n.strip() for n in args.target.split(",")]
    if len(names) > 1 and args.config:
        raise UsageError("--config names one client's file: give one TARGET")
    if any(not n for n in names):
        raise UsageError(f"an empty client name in TARGET {args.target!r}")
    tools = args.target if many else args.tools
    if envs_cli.takes_over(args, tools):  # not installed here: a managed environment
        _selected_clients(args, names)  # (unknown clients fail before anything is installed)
        return envs_cli.run_deploy(args, tools, lambda s, t: _deploy(args, names, skills_dir, s, t))
    return _deploy(args, names, skills_dir, search_from_args(args), tools)


def _deploy(
    args: argparse.Namespace,
    names: list[str],
    skills_dir: Any,
    search: SearchPath | None,
    tools: str | None,
) -> int:
    """The deploy of *tools* from *search* to the clients *names* (or all, or the detected)."""
    from agenttools_runtime.mcp.settings import terminal_ask
    from agenttools_runtime.settings.given import asked_once

    # (names is empty with --all-clients or --detected)
    clients = None if len(names) == 1 else _selected_clients(args, names)
    options: dict[str, Any] = {
        "overwrite": args.overwrite,
        "skills_dir": skills_dir,
        "mcp_server_name": args.name,
        "project": args.project,
        "search": search,
        "runner": args.runner,
        "link": args.link,
        "settings": settings_for(args, search, tools),
        "check": args.check,
    }
    ask = None if args.dry_run else terminal_ask()
    if clients is None:
        return _deploy_one(args, names[0], tools, config=args.config, ask=ask, **options)
    # a value asked for is asked once, not once per client
    return _deploy_many(args, clients, tools, ask=asked_once(ask), **options)


def _selected_clients(args: argparse.Namespace, names: list[str]) -> dict[str, Client]:
    """The clients TARGET names (unknown names fail before anything is deployed), the
    detected ones, or all."""
    from agenttools_runtime.clients import all_clients, get_client
    from agenttools_runtime.detection import detected_clients
    from agenttools_runtime.errors import NoClientDetected

    if args.all_clients:
        return dict(all_clients())
    if args.detected:
        found = {c.id: c for c in detected_clients()}
        if not found:
            raise NoClientDetected()
        return found
    selected: dict[str, Client] = {}
    for name in names:
        client = get_client(name)
        selected.setdefault(client.id, client)
    return selected


def _deploy_one(args: argparse.Namespace, target: str, tools: str | None, **options: Any) -> int:
    from agenttools_runtime.deploy import deploy

    if args.dry_run:
        from agenttools_runtime.cli.plan_view import plan_json, render_plan

        the_plan = deploy(target, tools, dry_run=True, **options)
        emit(args, plan_json(the_plan), lambda: render_plan(the_plan))
        return 0 if the_plan.ok else 1
    deployment = deploy(target, tools, **options)
    undo = _undo([deployment.uuid])
    data = {"ok": True, "deployment": deployment.to_json(), "undo": undo}
    if deployment.unchanged:
        data["result"] = "unchanged"
        emit(args, data, lambda: _render(deployment))
    else:
        emit(args, data, lambda: f"{_render(deployment)}\nUndo: {undo}")
    return 0


def _deploy_many(
    args: argparse.Namespace, clients: dict[str, Client], tools: str | None, **options: Any
) -> int:
    from agenttools_runtime.deploy import deploy_all
    from agenttools_runtime.deploy.deploy_plan import DeployPlan
    from agenttools_runtime.signals import Interrupted

    try:
        result = deploy_all(
            tools,
            clients=clients,
            dry_run=args.dry_run,
            keep_going=True,
            named=not (args.all_clients or args.detected),
            **options,
        )
    except Interrupted as exc:  # what was done so far, then the interruption's message
        if exc.partial is not None:
            _emit_partial(args, exc.partial, exc.committed)
        raise
    from agenttools_runtime.cli.plan_view import plan_json

    rows = summary_rows(result)
    data = result.to_json()
    for client, item in result.results.items():
        if isinstance(item, DeployPlan):
            data["results"][client] = plan_json(item)
    data["summary"] = rows
    undo = _undo([d.uuid for d in result.deployments])
    if undo:
        data["undo"] = undo
    emit(args, data, lambda: _render_many(result, rows, undo))
    return 0 if result.ok else 1


def _emit_partial(
    args: argparse.Namespace, partial: AllClientsResult, committed: tuple[str, ...]
) -> None:
    """The output of a multi-client deploy a signal stopped: the clients done so far and
    the command undoing every deployment committed (stdout flushed: the exit is near)."""
    rows = summary_rows(partial)
    data = {**partial.to_json(), "ok": False, "interrupted": True, "summary": rows}
    undo = _undo(committed)
    if undo:
        data["undo"] = undo
    verdict = "Interrupted (stderr says what became of the other clients)"
    emit(args, data, lambda: _render_many(partial, rows, undo, verdict))
    sys.stdout.flush()


def summary_rows(result: AllClientsResult) -> list[dict[str, Any]]:
    """One row per client: ``client``, ``result`` (deployed, would deploy, would fail,
    already deployed, not supported, skill conflict, failed), ``ok`` and ``detail``."""
    from agenttools_runtime.deploy import Deployment, Skipped

    rows = []
    for client, item in result.results.items():
        if isinstance(item, Deployment):
            state = "up to date" if item.unchanged else "deployed"
            detail = f"deployment {item.uuid}"
        elif isinstance(item, Skipped):
            state = _SKIPPED[item.reason]
            detail = str(item.error).splitlines()[0]
        elif item.ok and item.unchanged:
            state, detail = "up to date", f"deployment {item.replaced[0].uuid}"
        elif item.ok:
            state, detail = "would deploy", _plan_summary(item)
        else:
            state, detail = "would fail", str(item.errors[0]).splitlines()[0]
        ok = result.succeeded(client)
        if not ok and state == "not supported":
            state = "failed: not supported"
        rows.append({"client": client, "result": state, "ok": ok, "detail": detail})
    return rows


_SKIPPED = {
    "DeploymentExists": "already deployed",
    "Unsupported": "not supported",
    "AgentSkillConflict": "skill conflict",
    "Failed": "failed",
}


def _plan_summary(the_plan: DeployPlan) -> str:
    parts = []
    if the_plan.servers:
        parts.append(f"{len(the_plan.servers)} MCP server(s)")
    if the_plan.skills:
        parts.append(f"{len(the_plan.skills)} skill(s)")
    return ", ".join(parts) or "nothing"


def _render_many(
    result: AllClientsResult,
    rows: list[dict[str, Any]],
    undo: str,
    verdict: str = "",
) -> str:
    from agenttools_runtime.cli.plan_view import render_plan
    from agenttools_runtime.deploy import Deployment, Skipped

    blocks = []
    for item in result.results.values():
        if isinstance(item, Deployment):
            blocks.append(_render(item))
        elif not isinstance(item, Skipped):
            blocks.append(render_plan(item))
    table = [("CLIENT", "RESULT", "DETAIL")] + [
        (r["client"], r["result"], r["detail"]) for r in rows
    ]
    lines = columns(table)
    failed = [r["client"] for r in rows if not r["ok"]]
    done = sum(1 for r in rows if r["ok"])
    verdict = verdict or f"{done} of {len(rows)} client(s) ok"
    lines.append(verdict + (f"; not done: {', '.join(failed)}" if failed else "") + ".")
    if undo:
        lines.append(f"Undo: {undo}")
    return "\n\n".join([*blocks, "\n".join(lines)])


def _undo(uuids: Sequence[str]) -> str:
    """The command that removes the deployments *uuids* ("" for none)."""
    return "agenttools remove " + " ".join(uuids) if uuids else ""


def run_remove(args: argparse.Namespace) -> int:
    """``remove`` of the IDs given, or of a selection (--client, --bundle, --all; with
    --dry-run: the list); each removed on its own, one that fails does not stop the others."""
    from agenttools_runtime.cli.removing import remove_each

    if args.all and (args.id or args.client or args.bundle):
        raise UsageError("--all removes every deployment: give no ID, --client or --bundle")
    if not (args.id or args.client or args.bundle or args.all):
        raise UsageError("give the deployment IDs to remove, or --client, --bundle or --all")
    if not (args.client or args.bundle or args.all or args.dry_run):
        return remove_each(args, args.id, single=len(args.id) == 1)
    from agenttools_runtime.deploy import deployed
    from agenttools_runtime.deploy.selection import select

    finish_interrupted_if_left()  # what is chosen: after what recovery finishes
    pool = [d.record for d in deployed()]
    chosen = select(pool, ids=args.id, client=args.client, bundle=args.bundle)
    if args.dry_run:
        rows = [
            {"uuid": r.uuid, "client": r.client, "bundle": r.toolset_name, "scope": r.scope}
            for r in chosen
        ]
        lines = [
            f'Would remove deployment {r.uuid} ("{r.toolset_name}" from {r.client}).'
            for r in chosen
        ]
        emit(
            args,
            {"ok": True, "dry_run": True, "deployments": rows},
            "\n".join(lines) or "No deployment matches.",
        )
        return 0
    ids = [r.uuid for r in chosen]
    if args.all:  # a record that cannot be read is not removed: said, never passed over
        from agenttools_runtime.deploy.records import iter_records
        from agenttools_runtime.errors import InvalidDeploymentRecord

        broken = (i for i in iter_records() if isinstance(i, InvalidDeploymentRecord))
        ids += [e.path.parent.name for e in broken]
    return remove_each(args, ids)


def _render(d: Deployment) -> str:
    """What was deployed, where (or, when it already was, that there was nothing to do)."""
    where = f" (project {d.scope})" if d.scope not in (None, "user") else ""
    if d.unchanged:
        version = d.record.agent_tools.get("distribution_version")
        what = f'"{d.toolset}"' + (f" {version}" if version else "")
        return (
            f"{what} is already deployed to {d.client_name}{where}, up to date "
            f"(deployment {d.uuid}): nothing to do."
        )
    lines = [f'Deployed "{d.toolset}" to {d.client_name}{where} (deployment {d.uuid}).']
    for entry in d.record.mcp_servers:
        choice = d.launches.get(entry.config_key)
        how = f": {choice.describe()}" if choice is not None else ""
        lines.append(f'  MCP server "{entry.config_key}" in {entry.config_file}{how}')
    for skill in d.record.installed:
        link = skill.extra.get("link")
        how = f" (a link to {link})" if link else ""
        lines.append(f"  skill {skill.name} in {skill.directory}{how}")
    for name in d.not_installed:
        lines.append(f"  skill {name} not installed (a different skill is in the way)")
    if d.skipped:
        lines.append(f"  skills not deployed: {', '.join(d.skipped)}")
    return "\n".join(lines)
