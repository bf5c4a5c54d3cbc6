"""``agenttools list`` and ``agenttools show NAME``: the bundles installed distributions offer."""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial
from typing import TYPE_CHECKING, Any

from agenttools_runtime.cli.common import (
    add_command,
    add_environment_arguments,
    columns,
    emit,
    examples,
    nonempty,
    refuse_both,
)
from agenttools_runtime.cli.index_options import add_index_arguments
from agenttools_runtime.cli.setting_args import add_setting_arguments

if TYPE_CHECKING:
    from agenttools_runtime.discovery import SearchPath

NAME_HELP = (
    "a bundle: dist/bundle, a distribution with one bundle, dist/server or a unique server "
    "name (that server on its own), or the built-in 'agenttools'"
)


def register(subparsers: Any) -> None:
    list_parser = add_command(
        subparsers,
        "list",
        run_list,
        help="list the agent tools bundles of the installed distributions",
        description=(
            "List every agent tools bundle that the installed distributions offer: its name "
            "(dist/bundle, what 'agenttools deploy' takes), the distribution's version, its "
            "MCP servers and its skills. Distributions whose agenttools manifest cannot be "
            "used are listed with the problem. Nothing is imported; only the manifests are "
            "read."
        ),
        epilog=examples(
            "agenttools list",
            "agenttools list --all --json",
            "agenttools list --python ~/.venvs/tools/bin/python",
        ),
    )
    list_parser.add_argument(
        "--all", action="store_true", help="include the built-in bundle (agenttools)"
    )
    add_environment_arguments(list_parser)
    _add_index_option(
        list_parser,
        "list the distributions of a package index or --find-links location that ship agent "
        "tools (nothing is installed)",
    )

    show_parser = add_command(
        subparsers,
        "show",
        run_show,
        help="show one bundle in full: skills, their files, server command lines",
        description=(
            "Show one bundle in full: each skill's description, version and files (verified "
            "against the hashes recorded in the wheel), and each MCP server's command line as "
            "it would be written into a client's configuration for this environment. Exit "
            "status 1 when an item cannot be resolved (the problem is shown)."
        ),
        epilog=examples(
            "agenttools show weather-tools",
            "agenttools show weather-tools/weather      # one server on its own",
            "agenttools show agenttools                 # the built-in bundle",
        ),
    )
    show_parser.add_argument("name", type=nonempty, metavar="NAME", help=NAME_HELP)
    show_parser.add_argument(
        "--tools",
        action="store_true",
        help="start each stdio server as a client would (30 s at most) and list the tools, "
        "prompts and resources it offers; the values of its settings with --env",
    )
    add_setting_arguments(show_parser)
    add_environment_arguments(show_parser)
    _add_index_option(
        show_parser,
        "show NAME (a distribution, 'dist==X', or a wheel file) as the newest wheel on the "
        "package index has it (nothing is installed)",
    )


def _add_index_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument("--index", action="store_true", dest="from_index", help=help_text)
    add_index_arguments(parser)


def search_from_args(args: argparse.Namespace, *, quiet: bool = False) -> SearchPath | None:
    """The environment ``--python`` / ``--path`` select; without them the active virtual
    environment (``VIRTUAL_ENV``, said on stderr unless *quiet*) when it is not the one
    agenttools runs in (installed with pipx or ``uv tool``); None: this interpreter's."""
    from agenttools_runtime.discovery import SearchPath
    from agenttools_runtime.search_path import venv_python

    refuse_both(args, "--python", "--path")
    python = getattr(args, "python", None)
    paths = getattr(args, "path", None)
    if python:
        return SearchPath.for_python(python)
    if paths:
        return SearchPath.for_paths(paths)
    venv = os.environ.get("VIRTUAL_ENV")
    if not venv or os.path.realpath(venv) == os.path.realpath(sys.prefix):
        return None
    interpreter = venv_python(venv)
    if interpreter is None:  # (a venv without an interpreter: this one's, quietly)
        return None
    if not quiet:
        print(
            f"agenttools: using the active virtual environment {venv} "
            "(VIRTUAL_ENV); --python PATH chooses another",
            file=sys.stderr,
        )
    return SearchPath.for_python(interpreter)


# -- list ------------------------------------------------------------------------------------
def run_list(args: argparse.Namespace) -> int:
    if args.from_index:
        from agenttools_runtime.cli.remote_view import run_list_index

        return run_list_index(args)
    from agenttools_runtime import __version__
    from agenttools_runtime.bundles import DEFAULT_AGENT_TOOLS, distribution_bundles
    from agenttools_runtime.discovery import SearchPath, find_distributions

    search = search_from_args(args) or SearchPath.current()
    rows: list[dict[str, Any]] = []
    if args.all:
        rows.extend({**b.to_json(), "version": __version__} for b in DEFAULT_AGENT_TOOLS)
    problems = []
    for dist in find_distributions(search):
        if dist.problem is not None:
            problems.append(dist.to_json())
            continue
        rows.extend(
            {**b.to_json(), "version": dist.version} for b in distribution_bundles(dist, search)
        )
    data = {
        "ok": True,
        "python": str(search.environment.python),
        "bundles": rows,
        "problems": problems,
    }
    emit(args, data, lambda: _render_list(rows, problems, str(search.environment.python)))
    return 0


def _render_list(rows: list[dict[str, Any]], problems: list[dict[str, Any]], python: str) -> str:
    if not rows and not problems:
        return (
            f"No agent tools bundles found in the environment of {python}.\n"
            "Installed them in another environment? Point at it: agenttools list --python "
            "PATH (or activate it: VIRTUAL_ENV is used when set). Built-in bundles: "
            "agenttools list --all"
        )
    table = [("BUNDLE", "VERSION", "MCP SERVERS", "SKILLS")]
    for row in rows:
        prefix = f"{row['location']['distribution']}/" if isinstance(row["location"], dict) else ""
        name = row["qualified_name"] + (" (built-in)" if row["location"] == "builtin" else "")
        servers, skills = _short(row["mcp_servers"], prefix), _short(row["skills"], prefix)
        table.append((name, row["version"] or "", servers, skills))
    lines = columns(table) if rows else []
    if problems:
        lines += ["", "Distributions with problems:"]
        lines.extend(f"  {p['display_name']} {p['version']}: {p['problem']}" for p in problems)
    return "\n".join(lines)


def _short(names: list[str], prefix: str) -> str:
    """Items of the bundle's own distribution without the ``dist/`` prefix."""
    shown = [n[len(prefix) :] if prefix and n.startswith(prefix) else n for n in names]
    return ", ".join(shown) or "-"


# -- show ------------------------------------------------------------------------------------
def run_show(args: argparse.Namespace) -> int:
    if args.from_index:
        from agenttools_runtime.cli.remote_view import run_show_index

        return run_show_index(args)
    from agenttools_runtime.bundles import resolve_tools
    from agenttools_runtime.cli.show_view import bundle_details, render_show

    search = search_from_args(args)
    bundle = resolve_tools(args.name, search)
    details = bundle_details(bundle)
    failed = any(item.get("problem") for item in (*details["mcp_servers"], *details["skills"]))
    text = partial(render_show, details)
    if args.tools:
        from agenttools_runtime.cli.setting_args import settings_for
        from agenttools_runtime.cli.show_view import offered, render_offered

        offers = offered(bundle, settings_for(args, search, args.name))
        details["offered"] = offers
        failed = failed or any(o.get("problem") for o in offers)
        text = partial(render_offered, offers)
    emit(args, {"ok": not failed, "bundle": details}, text)
    return 1 if failed else 0
