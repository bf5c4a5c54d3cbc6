"""The package index options as pip spells them, for every command that reads an index
(``deploy --install``, ``show --index``, ``list --index``, ``sync --upgrade``)."""

from __future__ import annotations

from agenttools_runtime.cli.common import nonempty

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    import argparse


def add_index_arguments(parser: argparse.ArgumentParser) -> None:
    """``--index-url``, ``--extra-index-url``, ``--find-links``, ``--no-index``."""
    group = parser.add_argument_group(
        "package index (as pip spells it; default: the PIP_*/UV_* variables, then the "
        "installer's own configuration)"
    )
    group.add_argument(
        "--index-url", "-i", type=nonempty, metavar="URL",
        help="the package index (PEP 503/691 simple API)",
    )  # fmt: skip
    group.add_argument(
        "--extra-index-url", type=nonempty, metavar="URL", action="append",
        help="another index to look in (repeatable)",
    )  # fmt: skip
    group.add_argument(
        "--find-links", "-f", type=nonempty, metavar="DIR|URL", action="append",
        help="a directory of wheels or an HTML page of links (repeatable)",
    )  # fmt: skip
    group.add_argument("--no-index", action="store_true", help="use only --find-links locations")
