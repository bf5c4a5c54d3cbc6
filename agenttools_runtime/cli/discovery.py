"""``agenttools list`` and ``agenttools show NAME``: the bundles installed distributions offer."""

from __future__ import annotations

import os
import sys

from agenttools_runtime.cli import (
    COMMAND_HELP,
    Quick,
    UsageError,
    add_environment_arguments,
    emit,
    nonempty,
)
from agenttools_runtime.cli.active_venv import active_venv_python

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    import argparse  # the parser's module: not imported when quick_arguments reads the line
    from typing import Any

    from agenttools_runtime.discovery import SearchPath

NAME_HELP = (
    "a bundle: dist/bundle, a distribution with one bundle, dist/server or a unique server "
    "name (that server on its own), or the built-in 'agenttools'"
)


def register(subparsers: Any, common: argparse.ArgumentParser) -> None:
    list_parser = subparsers.add_parser(
        "list",
        parents=[common],
        help=COMMAND_HELP["list"],
        description=(
            "List every agent tools bundle that the installed distributions offer on this "
            "machine: its name (dist/bundle), the distribution's version, its MCP servers and "
            "its skills. Distributions whose agenttools manifest cannot be used are listed "
            "with the problem. Nothing is imported; only the manifests are read."
        ),
    )
    list_parser.add_argument(
        "--all", action="store_true", help="include the built-in bundle (agenttools)"
    )
    add_environment_arguments(list_parser)
    _add_index_option(list_parser, "list the distributions of a package index or --find-links "
                      "location that ship agent tools (nothing is installed)")  # fmt: skip
    list_parser.set_defaults(handler=run_list)

    show_parser = subparsers.add_parser(
        "show",
        parents=[common],
        help=COMMAND_HELP["show"],
        description=(
            "Show one bundle in full: each skill's description, version and files (verified "
            "against the hashes recorded in the wheel), and each MCP server's command line as "
            "it would be written into a client's configuration for this environment. Exit "
            "status 1 when an item cannot be resolved (the problem is shown)."
        ),
    )
    show_parser.add_argument("name", type=nonempty, metavar="NAME", help=NAME_HELP)
    add_environment_arguments(show_parser)
    _add_index_option(show_parser, "show NAME (a distribution, 'dist==X', or a wheel file) as "
                      "the newest wheel on the package index has it (nothing is installed)")  # fmt: skip
    show_parser.set_defaults(handler=run_show)


def _add_index_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    from agenttools_runtime.cli.index_options import add_index_arguments

    parser.add_argument("--index", action="store_true", dest="from_index", help=help_text)
    add_index_arguments(parser)


def search_from_args(args: argparse.Namespace, *, quiet: bool = False) -> SearchPath | None:
    """The environment ``--python`` / ``--path`` select; without them the active virtual
    environment (``VIRTUAL_ENV``, said on stderr unless *quiet*) when it is not the one
    agenttools runs in (installed with pipx or ``uv tool``); None: this interpreter's."""
    from agenttools_runtime.discovery import SearchPath

    python = getattr(args, "python", None)
    paths = getattr(args, "path", None)
    if python and paths:
        raise UsageError("use either --python or --path, not both")
    if python:
        return SearchPath.for_python(python)
    if paths:
        return SearchPath.for_paths(paths)
    venv_python = active_venv_python()
    if venv_python is not None:
        if not quiet:
            print(
                f"agenttools: using the active virtual environment {os.environ['VIRTUAL_ENV']} "
                "(VIRTUAL_ENV); --python PATH chooses another",
                file=sys.stderr,
            )
        return SearchPath.for_python(venv_python)
    return None


# -- list ------------------------------------------------------------------------------------
def lean_list(args: argparse.Namespace) -> int | None:
    """``list`` of this interpreter's environment on strings (``cli/quick_list.py``); None:
    ``run_list`` answers."""
    from agenttools_runtime.cli.quick_list import list_data

    data = None if args.all or args.python or args.path or active_venv_python() else list_data()
    if data is None:
        return None
    rows, problems, python = data["bundles"], data["problems"], data["python"]
    emit(args, data, lambda: _render_list(rows, problems, python))
    return 0


def run_list(args: argparse.Namespace) -> int:
    if getattr(args, "from_index", False):
        from agenttools_runtime.cli.envs import run_list_index

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


def _render_list(
    rows: list[dict[str, Any]], problems: list[dict[str, Any]], python: str = ""
) -> str:
    if not rows and not problems:
        return (
            f"No agent tools bundles found in the environment of {python or sys.executable}.\n"
            "Installed them in another environment? Point at it: agenttools list --python "
            "PATH (or activate it: VIRTUAL_ENV is used when set). Built-in bundles: "
            "agenttools list --all"
        )
    table = [("BUNDLE", "VERSION", "MCP SERVERS", "SKILLS")]
    for row in rows:
        prefix = f"{row['location']['distribution']}/" if isinstance(row["location"], dict) else ""
        name = row["qualified_name"] + (" (built-in)" if row["location"] == "builtin" else "")
        table.append(
            (
                name,
                row["version"] or "",
                _short(row["mcp_servers"], prefix),
                _short(row["skills"], prefix),
            )
        )
    lines = []
    if rows:
        widths = [max(len(r[i]) for r in table) for i in range(3)]
        lines = [
            "  ".join([*(c.ljust(w) for c, w in zip(r[:3], widths, strict=True)), r[3]]).rstrip()
            for r in table
        ]
    if problems:
        lines.append("")
        lines.append("Distributions with problems:")
        lines.extend(f"  {p['display_name']} {p['version']}: {p['problem']}" for p in problems)
    return "\n".join(lines)


def _short(names: list[str], prefix: str) -> str:
    """Items of the bundle's own distribution without the ``dist/`` prefix."""
    shown = [n[len(prefix) :] if prefix and n.startswith(prefix) else n for n in names]
    return ", ".join(shown) or "-"


# -- show ------------------------------------------------------------------------------------
def lean_show(args: argparse.Namespace) -> int | None:
    """``show DIST/ITEM`` of this interpreter's environment from its cache
    (``cli/quick_show.py``); None: ``run_show`` answers."""
    if args.python or args.path or active_venv_python():
        return None
    from agenttools_runtime.cli.quick_show import show_output

    shown = show_output(args.name, args.json)
    if shown is None:
        return None
    print(shown)
    return 0


def run_show(args: argparse.Namespace) -> int:
    if getattr(args, "from_index", False):
        from agenttools_runtime.cli.envs import run_show_index

        return run_show_index(args)
    from agenttools_runtime.bundles import resolve_tools

    search = search_from_args(args)
    from agenttools_runtime.cli.show_view import bundle_details, render_show

    bundle = resolve_tools(args.name, search)
    details = bundle_details(bundle)
    failed = any(item.get("problem") for item in (*details["mcp_servers"], *details["skills"]))
    emit(args, {"ok": not failed, "bundle": details}, lambda: render_show(details))
    return 1 if failed else 0


_QUICK_DEFAULTS = {
    "python": None, "path": None, "from_index": False, "index_url": None,
    "extra_index_url": None, "find_links": None, "no_index": False,
}  # fmt: skip
# `list` and `show NAME` with no option but these: read without argparse (cli.quick_arguments)
QUICK = {
    "list": Quick(run_list, ("--json", "--all"), defaults=_QUICK_DEFAULTS),
    "show": Quick(run_show, positionals=(("name", True),), defaults=_QUICK_DEFAULTS),
}
# what main() tries first for a line quick_arguments read (cli.lean_handler)
LEAN = {"list": lean_list, "show": lean_show}
