"""The start check of every command that writes MCP server entries (``deploy``, ``sync``,
``configure``, ``mcp install``, ``add``, ``drop``): one definition, three modes — ``start``
(the default: each entry can start), ``--check`` (it starts and answers MCP ``initialize``),
``--no-check`` (nothing checked)."""

from __future__ import annotations

import argparse


def add_check_arguments(parser: argparse.ArgumentParser) -> None:
    """``--check`` / ``--no-check`` (mutually exclusive) into ``args.check``: ``"connect"``,
    ``"none"``, else ``"start"``."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--check",
        dest="check",
        action="store_const",
        const="connect",
        help="go further than the default check that each stdio server can start: start it "
        "as the client would and wait for its answer to MCP initialize "
        "(AGENTTOOLS_CHECK_TIMEOUT seconds, default 30); a server that does not answer is "
        "refused",
    )
    group.add_argument(
        "--no-check",
        dest="check",
        action="store_const",
        const="none",
        help="skip the check made by default, before anything is written, that each stdio "
        "server's entry can start: its interpreter exists and finds the module (looked up "
        "along that environment's sys.path, not imported), its script exists and is "
        "executable, its command is an absolute path or on the PATH (with the uvx runner: "
        "uvx, all a portable entry needs here); URL servers have nothing to start. A "
        "server that cannot start is refused in one line saying why, and nothing is written "
        "(of a deploy: neither the bundle's other servers nor its skills)",
    )
    parser.set_defaults(check="start")
