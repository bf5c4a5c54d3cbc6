"""``agenttools skills install|uninstall``: the low-level skill commands (no tracking)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from agenttools_runtime.cli.common import (
    add_command,
    add_command_group,
    add_overwrite_arguments,
    add_target_arguments,
    emit,
    examples,
    finish_interrupted_if_left,
    nonempty,
)

_TARGET_HELP = (
    "client id, name or alias (claude-code, cursor, codex, ...; see 'agenttools clients'), "
    "or a path to a skills root directory (anything containing a path separator or starting "
    "with '.' or '~')"
)


def register(subparsers: Any) -> None:
    commands = add_command_group(
        subparsers,
        "skills",
        help="install or uninstall skill folders directly (untracked)",
        description=(
            "Copy skill folders into a client's skills directory, or remove them. These are "
            "the low-level commands: nothing is recorded, no reference counting. Use "
            "'agenttools deploy' for tracked, reversible deployments."
        ),
    )
    install = add_command(
        commands,
        "install",
        run_install,
        help="copy skills into a client's skills directory",
        description=(
            "Copy each SKILL (a folder containing SKILL.md) into the skills directory of "
            "TARGET. Every skill is checked before anything is written: an existing "
            "different skill of the same name fails the whole command unless --upgrade or "
            "--force is given; an identical one is left as it is. If writing one skill "
            "fails, the skills already written by this command are rolled back."
        ),
        epilog=examples(
            "agenttools skills install claude-code ./skills/commit-message",
            "agenttools skills install cursor ./skills/a ./skills/b --project .",
            "agenttools skills install claude-code ./skills/a --skills-dir /tmp/skills",
            "agenttools skills install ./my-skills-root ./skills/a --force",
        ),
    )
    _target_arguments(install)
    install.add_argument(
        "skills",
        type=nonempty,
        metavar="SKILL",
        nargs="+",
        help=(
            "a skill folder (containing SKILL.md), DIST/NAME for a skill of an installed "
            "distribution, or the name of a built-in skill"
        ),
    )
    add_overwrite_arguments(
        install,
        upgrade="replace an existing different skill of the same name",
        force="replace an existing different skill of the same name (same as --upgrade here)",
    )

    uninstall = add_command(
        commands,
        "uninstall",
        run_uninstall,
        formatter_class=argparse.HelpFormatter,
        help="remove skills from a client's skills directory",
        description=(
            "Remove each NAME from the skills directory of TARGET, whether or not it was "
            "modified. Only a folder containing SKILL.md (or a link to one, removed as a "
            "link) is removed; anything else is left alone and reported as not installed. "
            "The skills directory itself is never removed."
        ),
    )
    _target_arguments(uninstall)
    uninstall.add_argument(
        "names",
        type=nonempty,
        metavar="NAME",
        nargs="+",
        help="a skill name (or dist/name, or a skill folder whose name is used)",
    )


def _target_arguments(parser: argparse.ArgumentParser) -> None:
    add_target_arguments(
        parser,
        target=_TARGET_HELP,
        project="project scope: the client's skills directory inside project directory DIR",
        skills_dir="use DIR as the skills directory instead of TARGET's (TARGET still names the "
        "client)",
    )


def _target(text: str) -> Any:
    """A client id, or a skills root path when *text* looks like a path."""
    if os.sep in text or "/" in text or text.startswith((".", "~")):
        return Path(os.path.expanduser(text))
    return text


def run_install(args: argparse.Namespace) -> int:
    from agenttools_runtime.skills.install import install_skills

    finish_interrupted_if_left()
    results = install_skills(
        _target(args.target),
        list(args.skills),
        args.overwrite,
        project=args.project,
        skills_dir=args.skills_dir,
    )
    data = {"ok": True, "results": [r.to_json() for r in results]}
    emit(args, data, lambda: "\n".join(_install_line(r) for r in results))
    return 0


def run_uninstall(args: argparse.Namespace) -> int:
    from agenttools_runtime.skills.install import uninstall_skills

    finish_interrupted_if_left()
    results = uninstall_skills(
        _target(args.target), list(args.names), project=args.project, skills_dir=args.skills_dir
    )
    data = {"ok": True, "results": [r.to_json() for r in results]}
    emit(args, data, lambda: "\n".join(r.message for r in results))
    return 0


def _install_line(result: Any) -> str:
    suffix = {"created": "", "replaced": " (replaced)", "unchanged": " (already installed)"}
    return f"{result.message[:-1]}{suffix[result.action]}: {result.location}"
