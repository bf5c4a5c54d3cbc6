"""``agenttools deploy``, ``deployed`` and ``remove``: tracked, reversible deployments."""

from __future__ import annotations

import argparse
import textwrap

from agenttools_runtime.cli import (
    COMMAND_HELP,
    UsageError,
    add_environment_arguments,
    add_target_arguments,
    emit,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any

    from agenttools_runtime.deploy import AllClientsResult, Deployment

TOOLS_HELP = (
    "what to deploy: dist/bundle, a distribution with one bundle, dist/server or a unique "
    "server name; default: the built-in 'agenttools' bundle"
)


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser(
        "deploy",
        parents=[common],
        help=COMMAND_HELP["deploy"],
        description=textwrap.fill(
            "Deploy TOOLS into TARGET as one tracked deployment: each MCP server is written "
            "into the client's config file (other entries, comments and formatting kept) and "
            "each skill is copied into the client's skills directory. Shared skill "
            "directories are reference counted; a skill directory that was modified, or that "
            "belongs to another source, is never replaced without --force. If anything fails, "
            "every change is rolled back. Remove it again with 'agenttools remove ID'.",
            width=78,
        ),
        epilog=(
            "examples:\n"
            "  agenttools deploy claude-code weather-tools\n"
            "  agenttools deploy cursor weather-tools/weather --project .\n"
            "  agenttools deploy codex weather-tools --upgrade\n"
            "  agenttools deploy claude-code                 # the built-in agenttools bundle\n"
            "  agenttools deploy --all-clients weather-tools   # every supported client\n"
            "  agenttools deploy --all-clients                 # the built-in bundle everywhere\n"
            "  agenttools deploy claude-desktop --config ~/cfg.json --no-skills"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_target_arguments(parser)
    # with --all-clients there is no TARGET: the one positional given is TOOLS
    _positional(parser, "target").nargs = "?"
    parser.add_argument("tools", metavar="TOOLS", nargs="?", help=TOOLS_HELP)
    parser.add_argument(
        "--no-skills", action="store_true", help="deploy only the MCP servers, no skills"
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--upgrade",
        action="store_const",
        dest="overwrite",
        const="upgrade",
        help="replace an existing deployment of the same tools and upgrade unmodified skills "
        "from the same source",
    )
    mode.add_argument(
        "--force",
        action="store_const",
        dest="overwrite",
        const="all",
        help="like --upgrade, and also replace skill directories that were modified or "
        "belong to another source",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="print what would be written, replaced or kept, and change nothing",
    )
    parser.add_argument(
        "--all-clients",
        action="store_true",
        help="deploy to every supported client (then the one positional argument, if any, "
        "is TOOLS; without it the built-in agenttools bundle)",
    )
    parser.add_argument(
        "--name",
        metavar="KEY",
        help="the key of the server entry in the config file (a bundle with one server only)",
    )
    add_environment_arguments(parser)
    parser.set_defaults(handler=run_deploy, overwrite="none")

    listing = subparsers.add_parser(
        "deployed",
        parents=[common],
        help=COMMAND_HELP["deployed"],
        description=(
            "List every recorded deployment (optionally of one CLIENT): its id, client, "
            "tools, the MCP config entries it wrote and the skills it references."
        ),
    )
    listing.add_argument("client", metavar="CLIENT", nargs="?", help="only this client's")
    listing.set_defaults(handler=run_deployed)

    remove = subparsers.add_parser(
        "remove",
        parents=[common],
        help=COMMAND_HELP["remove"],
        description=textwrap.fill(
            "Remove the deployment ID (its UUID or a unique prefix, see 'agenttools "
            "deployed'): its MCP config entries are removed unless another deployment "
            "records them; its skills are released, and a skill directory is deleted only "
            "when no other deployment uses it and it is unchanged since agenttools wrote it. "
            "Works from the record alone, even after the distribution was uninstalled.",
            width=78,
        ),
    )
    remove.add_argument("id", metavar="ID", help="deployment UUID or unique prefix")
    remove.set_defaults(handler=run_remove)


def _positional(parser: argparse.ArgumentParser, dest: str) -> argparse.Action:
    return next(a for a in parser._actions if a.dest == dest)


def run_deploy(args: argparse.Namespace) -> int:
    from agenttools_runtime.cli.discovery import search_from_args
    from agenttools_runtime.deploy import DEFAULT, deploy, deploy_all

    if args.no_skills and args.skills_dir:
        raise UsageError("use either --no-skills or --skills-dir, not both")
    if args.project and args.config:
        raise UsageError("use either --project or --config, not both")
    skills_dir: Any = None if args.no_skills else (args.skills_dir or DEFAULT)
    search = search_from_args(args)
    if not args.all_clients and args.target is None:
        raise UsageError(
            "TARGET is required (a client id, see 'agenttools clients'), or --all-clients"
        )
    if args.all_clients:
        if args.tools is not None or args.project or args.config:
            raise UsageError(
                "with --all-clients give only TOOLS (no TARGET, --project or --config)"
            )
        if args.dry_run:
            raise UsageError("--dry-run needs one TARGET; it cannot be combined with --all-clients")
        result = deploy_all(
            args.target,
            overwrite=args.overwrite,
            skills_dir=skills_dir,
            mcp_server_name=args.name,
            search=search,
        )
        emit(args, result.to_json(), lambda: _render_all(result))
        return 0
    common: dict[str, Any] = {
        "overwrite": args.overwrite,
        "skills_dir": skills_dir,
        "mcp_server_name": args.name,
        "project": args.project,
        "config": args.config,
        "search": search,
    }
    if args.dry_run:
        the_plan = deploy(args.target, args.tools, dry_run=True, **common)
        emit(args, the_plan.to_json(), the_plan.render)
        return 0 if the_plan.ok else 1
    deployment = deploy(args.target, args.tools, **common)
    emit(args, {"ok": True, "deployment": deployment.to_json()}, lambda: _render(deployment))
    return 0


def run_deployed(args: argparse.Namespace) -> int:
    from agenttools_runtime.deploy import deployed
    from agenttools_runtime.deploy.lock import finish_interrupted

    finish_interrupted()
    found = deployed(args.client)
    emit(
        args,
        {"ok": True, "deployments": [d.to_json() for d in found]},
        lambda: "\n".join(_render_listing(d) for d in found) or "No deployments.",
    )
    return 0


def run_remove(args: argparse.Namespace) -> int:
    from agenttools_runtime.deploy import remove_deployment

    result = remove_deployment(args.id)
    emit(
        args,
        result.to_json(),
        f'Removed deployment {result.uuid} ("{result.toolset}" from {result.client}).',
    )
    return 0


def _render(d: Deployment) -> str:
    lines = [f'Deployed "{d.toolset}" to {d.client_name} (deployment {d.uuid}).']
    for entry in d.record.mcp_servers:
        lines.append(f'  MCP server "{entry.config_key}" in {entry.config_file}')
    for skill in d.record.installed:
        lines.append(f"  skill {skill.name} in {skill.directory}")
    for name in d.not_installed:
        lines.append(f"  skill {name} not installed (a different skill is in the way)")
    if d.skipped:
        lines.append(f"  skills not deployed: {', '.join(d.skipped)}")
    return "\n".join(lines)


def _render_listing(d: Deployment) -> str:
    lines = [f'{d.uuid}  {d.client_name}: "{d.toolset}" ({d.timestamp})']
    if d.scope not in (None, "user"):
        lines.append(f"  project {d.scope}")
    for entry in d.record.mcp_servers:
        lines.append(f'  MCP server "{entry.config_key}" in {entry.config_file}')
    for skill in d.record.installed:
        lines.append(f"  skill {skill.name} in {skill.directory}")
    return "\n".join(lines)


def _render_all(result: AllClientsResult) -> str:
    from agenttools_runtime.deploy import Deployment

    lines = []
    for client, item in result.results.items():
        if isinstance(item, Deployment):
            lines.append(f"{client}: deployed ({item.uuid})")
        else:
            lines.append(f"{client}: skipped ({item.reason}): {item.error}")
    return "\n".join(lines)
