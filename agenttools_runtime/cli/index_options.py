"""The package index options as pip spells them, for every command that reads an index
(``deploy --install``, ``show --index``, ``list --index``, ``sync --upgrade``)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from agenttools_runtime.cli.common import nonempty

if TYPE_CHECKING:
    import argparse
    from typing import Any

# characters that make TOOLS a requirement rather than a bundle name
SPECIFIER = frozenset("<>=!~;[ @")


def add_index_arguments(parser: argparse.ArgumentParser) -> None:
    """``--index-url``, ``--extra-index-url``, ``--find-links``, ``--no-index``."""
    group = parser.add_argument_group(
        "package index (as pip spells it; default: the PIP_*/UV_* variables, then the "
        "installer's own configuration)"
    )
    group.add_argument(
        "--index-url",
        "-i",
        type=nonempty,
        metavar="URL",
        help="the package index (PEP 503/691 simple API), or a local tree of one (a file: URL "
        "or a path)",
    )
    group.add_argument(
        "--extra-index-url",
        type=nonempty,
        metavar="URL",
        action="append",
        help="another index to look in (repeatable)",
    )
    group.add_argument(
        "--find-links",
        "-f",
        type=nonempty,
        metavar="DIR|URL",
        action="append",
        help="a directory of wheels or an HTML page of links (repeatable)",
    )
    group.add_argument("--no-index", action="store_true", help="use only --find-links locations")


def options_from_args(args: argparse.Namespace) -> Any:
    from agenttools_runtime.envs.index import IndexOptions

    return IndexOptions.from_sources(
        index_url=args.index_url,
        extra_index_urls=args.extra_index_url or (),
        find_links=args.find_links or (),
        no_index=args.no_index,
    )


def split_tools(tools: str) -> tuple[str, str | None]:
    """``dist[spec]/bundle`` -> (requirement, bundle); a path stays whole."""
    if tools.endswith(".whl") or os.path.exists(os.path.expanduser(tools)):
        return tools, None
    head, slash, tail = tools.partition("/")
    if slash and tail and "/" not in tail and not SPECIFIER.intersection(tail):
        return head, tail
    return tools, None
