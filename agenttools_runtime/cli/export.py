"""``agenttools export`` (a bundle as a plugin, extension or marketplace of another format) and
``agenttools server-json`` (the MCP registry's description of a project's server)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttools_runtime.cli.common import (
    UsageError,
    add_command,
    add_environment_arguments,
    emit,
    examples,
    nonempty,
    warn_all,
)

if TYPE_CHECKING:
    from agenttools_runtime.export import ExportResult

# each format --format takes (in the order --help lists them), and what to do next with it
NEXT_STEP = {
    "agent-plugin": "",
    "claude-plugin": "claude plugin validate {dir}",
    "codex-plugin": "list it in a marketplace: agenttools export --format codex-marketplace",
    "gemini-extension": "gemini extensions validate {dir}; gemini extensions link {dir}",
    "claude-marketplace": "claude plugin marketplace add {dir}",
    "codex-marketplace": "codex plugin marketplace add {dir}",
}


def register(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "export",
        run_export,
        help="write a bundle as an Agent Plugins plugin, a Claude Code or Codex plugin or "
        "marketplace, or a Gemini CLI extension",
        description=(
            "Render the skills and MCP servers of a bundle in another packaging format and "
            "write them into DIR: the format's manifest, every skill under skills/, and the "
            "servers, which run the distribution as published, pinned, through uvx (uvx --from "
            "DIST==VERSION SCRIPT). SOURCE is an installed distribution or bundle (DIST or "
            "DIST/BUNDLE), a wheel file, or a project directory (SOURCE#BUNDLE picks one bundle of a "
            "wheel or project with several). Every document is checked "
            "against the format's published schema, and the names against its rules, before "
            "anything is written; the same SOURCE gives the same bytes. DIR is created whole, "
            "or, when it exists, only the export's files change in it: a file there that the "
            "previous export did not write (or that changed since) stops the export unless "
            "--force. Marketplaces take several SOURCEs, each plugin in plugins/NAME/."
        ),
        epilog=examples(
            "agenttools export --format claude-plugin weather-tools -o dist/claude",
            "agenttools export --format gemini-extension dist/weather_tools-1.2.0-py3-none-any.whl -o ext",
            "agenttools export --format agent-plugin . -o plugin --spec-version 1.1.0",
            "agenttools export --format claude-marketplace weather-tools skills-only -o market",
            "agenttools export --format codex-marketplace . ../toolkit#toolkit -o market",
        )
        + "\n\nExit status: 0 written, 1 failure, 2 usage.",
    )
    parser.add_argument(
        "--format",
        required=True,
        choices=tuple(NEXT_STEP),
        help="the format to write",
    )
    parser.add_argument(
        "sources",
        nargs="+",
        type=nonempty,
        metavar="SOURCE",
        help="an installed distribution or bundle (DIST, DIST/BUNDLE), a .whl file, or a "
        "project directory (several for a marketplace)",
    )
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        type=nonempty,
        metavar="DIR",
        help="the directory to write (created when missing)",
    )
    parser.add_argument(
        "--name",
        type=nonempty,
        help="the plugin's (or marketplace's) name (default: the bundle's; a marketplace's: "
        "DIR's name)",
    )
    parser.add_argument(
        "--bundle",
        type=nonempty,
        metavar="NAME",
        help="which bundle of a SOURCE with several (or SOURCE#BUNDLE, DIST/BUNDLE)",
    )
    parser.add_argument(
        "--owner",
        type=nonempty,
        metavar="NAME",
        help="a Claude Code marketplace's owner (default: the plugins' author)",
    )
    parser.add_argument(
        "--spec-version",
        choices=("1.0.0", "1.1.0"),
        help="the Agent Plugins version to write (default: 1.0.0, the published release)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace files in DIR that this export did not write, or that changed since",
    )
    add_environment_arguments(parser)

    server = add_command(
        subparsers,
        "server-json",
        run_server_json,
        help="print (or write) the MCP registry's server.json of a project's server",
        description=(
            "Print the server.json that the MCP registry (registry.modelcontextprotocol.io) "
            "takes for the server of PROJECT that declares "
            "[tool.agenttools.mcp-servers.NAME.registry]: the PyPI package of the "
            "distribution at its exact version, run with uvx, its transport, arguments and "
            "environment variables. The project is checked first as 'agenttools validate' "
            "does (the README's mcp-name line, the console script uvx runs). The build hook "
            "and the wrapping backend write the same file into the sdist."
        ),
        epilog=examples(
            "agenttools server-json",
            "agenttools server-json path/to/project -o server.json",
            "agenttools server-json --version 1.3.0   # a dynamic version",
        ),
    )
    server.add_argument(
        "project",
        nargs="?",
        type=nonempty,
        metavar="PROJECT",
        help="the project directory (default: the current directory)",
    )
    server.add_argument(
        "-o",
        "--output",
        type=nonempty,
        metavar="FILE",
        help="write the file instead of printing it",
    )
    server.add_argument(
        "--version",
        dest="project_version",
        type=nonempty,
        metavar="VERSION",
        help="the version to describe (default: [project].version; needed when it is dynamic)",
    )


def run_export(args: argparse.Namespace) -> int:
    from agenttools_runtime.cli.discovery import search_from_args
    from agenttools_runtime.export import FORMATS, export

    if not FORMATS[args.format].marketplace and len(args.sources) != 1:
        raise UsageError(f"--format {args.format} takes one SOURCE (a marketplace takes several)")
    if args.spec_version and args.format != "agent-plugin":
        raise UsageError("--spec-version is for --format agent-plugin")
    if args.owner and args.format != "claude-marketplace":
        raise UsageError("--owner is for --format claude-marketplace")
    names_only = not any(s.endswith(".whl") or os.path.exists(s) for s in args.sources)
    search = search_from_args(args, quiet=not names_only)
    result = export(
        args.format,
        args.sources,
        Path(args.output),
        name=args.name,
        owner=args.owner,
        bundle=args.bundle,
        spec_version=args.spec_version,
        force=args.force,
        search=search,
    )
    emit(args, {"ok": True, **result.to_json()}, lambda: _render(result))
    return 0


def _render(result: ExportResult) -> str:
    from agenttools_runtime.export import FORMATS

    written = result.written
    plugins = ", ".join(f"{p.name} {p.version}" for p in result.packages)
    counts = f"{len(written.written)} written, {len(written.unchanged)} unchanged"
    if written.removed:
        counts += f", {len(written.removed)} removed"
    lines = [f"{FORMATS[result.format].title} of {plugins} in {written.directory} ({counts})"]
    step = NEXT_STEP[result.format].format(dir=written.directory)
    if step:
        lines.append(f"  next: {step}")
    return "\n".join(lines)


def run_server_json(args: argparse.Namespace) -> int:
    from agenttools_runtime import errors, fs
    from agenttools_runtime.export.output import json_bytes
    from agenttools_runtime.export.server_json import server_json
    from agenttools_runtime.export.source import project_version
    from agenttools_runtime.project import PYPROJECT, ProjectInvalid, build_manifest, load_project
    from agenttools_runtime.project.problems import Problem

    root = Path(args.project or ".").resolve()
    if not (root / PYPROJECT).is_file():
        raise UsageError(f"no {PYPROJECT} in {root}")
    project = load_project(root)
    if isinstance(project, Problem):
        raise ProjectInvalid([project], root)
    version = args.project_version or project_version(project, str(root))
    plan = build_manifest(project, version)
    warn_all(errors.ProjectWarning(problem=p.format(root)) for p in plan.warnings)
    document = server_json(plan, project.data.get("project") or {})
    if document is None:
        raise errors.ServerJsonUnavailable(project=str(root / PYPROJECT))
    data = json_bytes(document)
    if args.output:
        output = Path(args.output)
        fs.mkdir(output.parent)
        fs.write_bytes_atomic(output, data, 0o644)
        emit(args, {"ok": True, "file": str(output), "server": document}, f"wrote {output}")
    elif args.json:
        emit(args, {"ok": True, "server": document}, "")
    else:
        sys.stdout.write(data.decode("utf-8"))
    return 0
