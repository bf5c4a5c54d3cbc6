"""``agenttools skill URI [ARGS…]`` (load a skill by ``skill://`` URI, or ``--list`` them) and
``agenttools serve`` (the built-in MCP server of installed skills)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from agenttools_runtime.cli.common import (
    UsageError,
    add_command,
    add_environment_arguments,
    emit,
    examples,
    nonempty,
    warning_line,
)
from agenttools_runtime.cli.discovery import search_from_args

if TYPE_CHECKING:
    from agenttools_runtime.skilluri.resolver import SkillResolver


def register(subparsers: Any) -> None:
    skill = add_command(
        subparsers,
        "skill",
        run_skill,
        help="load a skill (or one of its files) by skill:// URI or name; --list them",
        description=(
            "Print the skill a URI names: skill://PROVIDER/SKILL[/PATH], or a bare SKILL "
            "name looked up in priority order (local client skill directories, then installed "
            "distributions, then --mcp servers). SKILL.md is printed with ARGS substituted "
            "($1 $2 ... $ARGUMENTS $@; --convention claude: $0 $1 ... $ARGUMENTS[N]); "
            "PATH prints that file verbatim; _manifest prints the FastMCP file manifest."
        ),
        epilog=examples(
            "agenttools skill weather-report Paris metric",
            "agenttools skill skill://weather-tools/weather-report/references/units.md",
            "agenttools skill --list --mcp docs='uvx docs-mcp'",
        ),
    )
    skill.add_argument("uri", metavar="URI", nargs="?", help="skill:// URI or bare skill name")
    skill.add_argument(
        "arguments",
        metavar="ARGS",
        nargs="*",
        help="arguments for the skill (one ARG is used as the argument string verbatim)",
    )
    skill.add_argument("--list", action="store_true", help="list every provider's skills instead")
    skill.add_argument(
        "--mcp",
        metavar="NAME=COMMAND",
        action="append",
        default=[],
        help="also read skills from this MCP server (a stdio command line or an http(s) URL), "
        "as provider NAME; repeatable, lower priority in the order given",
    )
    skill.add_argument(
        "--convention",
        choices=("seed", "claude"),
        default="seed",
        help="argument placeholders: seed ($1 is the first, whitespace split; default) or "
        "claude ($0 is the first, $ARGUMENTS[N], shell-style quoting)",
    )
    skill.add_argument(
        "--project",
        type=nonempty,
        metavar="DIR",
        help="project directory whose client skill folders are searched (default: here)",
    )
    skill.add_argument(
        "--no-local", action="store_true", help="leave out the local client skill directories"
    )
    add_environment_arguments(skill)

    serve = add_command(
        subparsers,
        "serve",
        run_serve,
        help="serve installed skills over MCP (stdio)",
        description=(
            "Run the agenttools MCP server on stdin/stdout: every skill of the installed "
            "distributions as FastMCP skills-provider resources (skill://NAME/SKILL.md, every "
            "file, skill://NAME/_manifest, and the same as prompts) plus the MCP Skills "
            "extension (skills/list, skills/get). skills/list and skills/get answer only "
            "clients that negotiate the newest MCP protocol version (2026-07-28); today's "
            "clients see the skills as resources and prompts. Same-named different skills "
            "are served as skill://SOURCE/NAME/... and reported on stderr. Needs: pip install "
            "'agenttools[serve]'."
        ),
        epilog=examples(
            "agenttools serve --list",
            "agenttools serve --include-local --project .",
            "agenttools deploy claude-code agenttools   # a client that starts it for you",
        ),
    )
    serve.add_argument(
        "--include-local",
        action="store_true",
        help="also serve the skills in the client skill directories of this machine",
    )
    serve.add_argument(
        "--project",
        type=nonempty,
        metavar="DIR",
        help="with --include-local: the project directory (default: here)",
    )
    serve.add_argument("--list", action="store_true", help="print what would be served and exit")
    add_environment_arguments(serve)


def _project(args: argparse.Namespace) -> str | None:
    """``--project DIR``, which must exist (``InvalidProjectDirectory``)."""
    if args.project is not None and not os.path.isdir(args.project):
        from agenttools_runtime.errors import InvalidProjectDirectory

        raise InvalidProjectDirectory(directory=args.project)
    return str(args.project) if args.project is not None else None


def _mcp_servers(specs: list[str]) -> list[tuple[str, str]]:
    servers = []
    for spec in specs:
        name, sep, command = spec.partition("=")
        if not sep or not name or not command.strip():
            raise UsageError(f"--mcp needs NAME=COMMAND, got {spec!r}")
        servers.append((name, command))
    return servers


def run_skill(args: argparse.Namespace) -> int:
    from agenttools_runtime.skilluri.resolver import SkillResolver

    if not args.list and args.uri is None:
        raise UsageError("give a skill URI or name, or --list")
    if args.list and args.uri is not None:
        raise UsageError("--list takes no URI")
    resolver = SkillResolver.default(
        search=search_from_args(args),
        project_dir=_project(args),
        mcp_servers=_mcp_servers(args.mcp),
        local=not args.no_local,
    )
    # only MCP servers (--mcp) log: their log records become warnings
    log_lines = _mcp_log_lines() if args.mcp else contextlib.nullcontext()
    with resolver, log_lines:
        return _run_skill(args, resolver)


@contextlib.contextmanager
def _mcp_log_lines() -> Iterator[None]:
    """While it runs, the MCP SDK's log records (a broken server's output, with tracebacks)
    are one ``Warning: MCP: …`` line each on stderr, like every other problem."""
    import logging

    class OneLine(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            return f"Warning: MCP: {record.getMessage()}"

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(OneLine())
    handler.setLevel(logging.WARNING)
    logger = logging.getLogger("mcp")
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate


def _run_skill(args: argparse.Namespace, resolver: SkillResolver) -> int:
    """Print what ``skill`` shows (``--list``, a URI; ``--json``): text, or a file's bytes."""
    if args.list:
        listing = resolver.list_skills()
        emit(args, {"ok": True, **listing.to_json()}, listing.render)
        return 0
    arguments: str | list[str] | None = None
    if len(args.arguments) == 1:
        arguments = args.arguments[0]
    elif args.arguments:
        arguments = list(args.arguments)
    resolved = resolver.resolve(args.uri, arguments, convention=args.convention)
    text = resolved.text
    if args.json:
        emit(args, {"ok": True, **resolved.to_json()}, "")
    elif text is None or resolved.kind == "reference":  # a file: its bytes, verbatim
        sys.stdout.flush()
        sys.stdout.buffer.write(resolved.content)
        sys.stdout.buffer.flush()
    else:
        sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    return 0


def run_serve(args: argparse.Namespace) -> int:
    from agenttools_runtime.errors import AgentToolsWarning
    from agenttools_runtime.serve import build_server, collect_skills

    # The server runs until the client disconnects: report problems now, not at exit.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AgentToolsWarning)
        skills = collect_skills(
            search_from_args(args), include_local=args.include_local, project_dir=_project(args)
        )
    for item in caught:
        if issubclass(item.category, AgentToolsWarning):
            print(warning_line(item.message), file=sys.stderr)
    if args.list:
        rows = [
            {"uri": s.uri, "name": s.name, "origin": s.origin, "files": len(s.files)}
            for s in skills
        ]
        lines = [
            f"{r['uri']}  ({r['origin']}, {r['files']} file{'' if r['files'] == 1 else 's'})"
            for r in rows
        ]
        emit(args, {"ok": True, "skills": rows}, "\n".join(lines) or "No skills to serve")
        return 0
    server = build_server(skills)
    print(f"agenttools serve: serving {len(skills)} skills over stdio", file=sys.stderr)
    server.run()
    return 0
