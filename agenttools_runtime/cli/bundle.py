"""``agenttools bundle WHEEL``: add a project's skills and MCP servers to a finished wheel."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttools_runtime.cli.common import UsageError, add_command, emit, nonempty, warn_all
from agenttools_runtime.names import SKILL_FILE

if TYPE_CHECKING:
    from agenttools_runtime.project.bundle import BundleResult

OUTCOMES = {
    "added": "added the agenttools files",
    "replaced": "replaced its agenttools files with those",
    "unchanged": "already carries the agenttools files",
}


def register(subparsers: Any) -> None:
    parser = add_command(
        subparsers,
        "bundle",
        run,
        formatter_class=argparse.HelpFormatter,
        help="add a project's skills and MCP servers to a wheel built by any tool",
        description=(
            "Add the skills and MCP servers that a project's [tool.agenttools] declares to a "
            "wheel built by any tool (setuptools, maturin, scikit-build-core, cibuildwheel, a "
            "CI pipeline), as the agenttools build hook or build backend would have: the "
            "manifest and every skill file, with their RECORD lines, in the wheel's .dist-info "
            "(extra_metadata/agenttools/). The project is checked first (as 'agenttools validate' does) "
            "and nothing is written when it has errors. Every other member of the wheel keeps "
            "its bytes, timestamp and permissions. A wheel that already carries other "
            "agenttools files is refused unless --force."
        ),
        epilog="Exit status: 0 done (or nothing to do), 1 failure, 2 usage.",
    )
    parser.add_argument(
        "wheel", type=nonempty, metavar="WHEEL", help="the .whl file to add the files to"
    )
    parser.add_argument(
        "--project",
        type=nonempty,
        metavar="DIR",
        help="the project directory holding pyproject.toml (default: the current directory)",
    )
    parser.add_argument(
        "-o",
        "--outdir",
        type=nonempty,
        metavar="OUTDIR",
        help="write the wheel into OUTDIR, leaving WHEEL as it is (default: rewrite WHEEL)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace agenttools files the wheel already carries when they differ",
    )


def run(args: argparse.Namespace) -> int:
    from agenttools_runtime.project.bundle import bundle_wheel

    wheel = Path(args.wheel)
    project = Path(args.project) if args.project else Path.cwd()
    if not wheel.is_file():
        raise UsageError(f"no such file: {wheel}")
    if not project.is_dir():
        raise UsageError(f"no such directory: {project}")
    result = bundle_wheel(
        wheel, project, Path(args.outdir) if args.outdir else None, force=args.force
    )
    warn_all(result.warnings)
    emit(args, {"ok": True, **result.to_json()}, lambda: _render(result))
    return 0


def _render(result: BundleResult) -> str:
    skills = sum(1 for f in result.files if f.endswith(f"/{SKILL_FILE}"))
    return (
        f"{result.wheel}: {OUTCOMES[result.outcome]} of {result.distribution} {result.version} "
        f"({len(result.files)} files: the manifest and {skills} skills)"
    )
