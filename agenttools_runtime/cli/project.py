"""A project's agent tools on the command line: ``add``, ``drop``, ``lock``, and the project
meaning of ``sync`` and ``verify`` inside a project (``cli/lifecycle.py`` hands them over
with one line; ``--global`` keeps their machine-wide meaning). The work is the library's
(``agenttools_runtime/project_state``)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttools_runtime.cli.common import (
    UsageError,
    add_check_arguments,
    add_command,
    announce,
    emit,
    examples,
    finish_interrupted_if_left,
    nonempty,
    warn_all,
)

if TYPE_CHECKING:
    from agenttools_runtime.project_state.freshness import SyncReport
    from agenttools_runtime.project_state.schema import ProjectFile


def register(subparsers: Any) -> None:
    add = add_command(
        subparsers,
        "add",
        run_add,
        help="add a distribution's bundle to this project's agenttools.toml, then lock and sync",
        description=(
            "Add a [[bundle]] to the agenttools.toml of the project you are in (made here "
            "when there is none), keeping the file's comments and order; then lock and sync. "
            "Nothing is changed when the requirement cannot be locked."
        ),
        epilog=examples(
            "agenttools add weather-tools --client claude-code --client cursor",
            "agenttools add 'weather-tools>=1.2' --bundle weather-tools",
        ),
    )
    add.add_argument(
        "requirement",
        type=nonempty,
        metavar="DIST",
        help="a PEP 508 requirement ('weather-tools', 'weather-tools>=1.2')",
    )
    add.add_argument(
        "--client",
        action="append",
        type=nonempty,
        default=[],
        help="a client to deploy to (repeatable; default: [agenttools] clients)",
    )
    add.add_argument(
        "--bundle",
        action="append",
        type=nonempty,
        default=[],
        dest="bundles",
        help="a bundle of the distribution (repeatable; default: its only one)",
    )
    add.add_argument(
        "--runner",
        choices=("uvx", "script", "python"),
        help="how its servers are written (default uvx: portable)",
    )
    add.add_argument("--scope", choices=("project", "user"), help="default project")
    add_check_arguments(add)

    drop = add_command(
        subparsers,
        "drop",
        run_drop,
        formatter_class=argparse.HelpFormatter,
        help="take a distribution out of this project's agenttools.toml, then lock and sync",
        description=(
            "Remove the [[bundle]] of DIST from the project's agenttools.toml, lock, and "
            "sync: the deployments this project's syncs made of it are removed (a skill or "
            "entry you changed is kept, and said so)."
        ),
    )
    drop.add_argument("name", type=nonempty, metavar="DIST", help="the distribution's name")
    add_check_arguments(drop)

    lock = add_command(
        subparsers,
        "lock",
        run_lock,
        help="resolve agenttools.toml into agenttools.lock (versions, wheel hashes, files)",
        description=(
            "Resolve the project's agenttools.toml against the index and write "
            "agenttools.lock: every distribution's exact version, wheel file and SHA-256, and "
            "every file and config entry a sync writes, with their digests. Versions already "
            "locked are kept while the requirement allows them; --upgrade moves them (all, or "
            "the distributions named) to the newest allowed. The same inputs give the same "
            "bytes."
        ),
        epilog=examples(
            "agenttools lock",
            "agenttools lock --upgrade",
            "agenttools lock --upgrade weather-tools",
        ),
    )
    lock.add_argument(
        "--upgrade",
        nargs="*",
        metavar="DIST",
        default=None,
        help="upgrade every distribution, or those named, to the newest allowed version",
    )
    lock.add_argument(
        "--dry-run", action="store_true", help="print what would change; write nothing"
    )


def add_sync_arguments(parser: argparse.ArgumentParser) -> None:
    """``sync``'s options for projects (its ``--check``/``--no-check`` serve both)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--locked",
        action="store_true",
        help="in a project: fail when agenttools.lock is out of date with agenttools.toml (CI)",
    )
    group.add_argument(
        "--frozen",
        action="store_true",
        help="in a project: install from agenttools.lock as it is, without checking it",
    )
    _add_global(parser)


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    """``verify``'s options for projects."""
    parser.add_argument(
        "--format",
        choices=("text", "github"),
        default="text",
        help="github: one GitHub Actions annotation per finding, on its file",
    )
    _add_global(parser)


def _add_global(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--global",
        action="store_true",
        dest="global_",
        help="the machine-wide meaning, inside a project too",
    )


def project_here(args: argparse.Namespace) -> Path | None:
    """The ``agenttools.toml`` a ``sync``/``verify`` acts on: the nearest one, unless
    ``--global`` or selection options say the machine (``--locked``/``--frozen`` outside a
    project are a usage error)."""
    from agenttools_runtime.project_state.finding import find_project_file

    found = None if args.global_ else find_project_file()
    wants_project = getattr(args, "locked", False) or getattr(args, "frozen", False)
    if found is None and wants_project:
        raise UsageError("--locked and --frozen act on a project: no agenttools.toml here or above")
    return found


# -- handlers --------------------------------------------------------------------------------


def run_add(args: argparse.Namespace) -> int:
    from agenttools_runtime.project_state.editing import added
    from agenttools_runtime.project_state.finding import PROJECT_FILE, find_project_file

    path = find_project_file()
    if path is None:
        if not args.client:
            raise UsageError(
                "no agenttools.toml here or above: name the clients with --client to make one"
            )
        path = Path.cwd() / PROJECT_FILE
    project = added(
        path,
        args.requirement,
        clients=args.client,
        bundles=args.bundles,
        runner=args.runner,
        scope=args.scope,
    )
    return _sync(args, project, f"Adding {args.requirement} to", write_project=True)


def run_drop(args: argparse.Namespace) -> int:
    from agenttools_runtime.project_state.editing import dropped

    project = dropped(_require_project(), args.name)
    return _sync(args, project, f"Dropping {args.name} from", write_project=True)


def run_lock(args: argparse.Namespace) -> int:
    from agenttools_runtime.project_state import schema
    from agenttools_runtime.project_state.syncing import lock_only

    project = schema.load(_require_project())
    upgrade: bool | list[str] = False if args.upgrade is None else (args.upgrade or True)
    if isinstance(upgrade, list):
        from packaging.utils import canonicalize_name

        from agenttools_runtime.errors import BundleNotInProject

        listed = [b.distribution for b in project.bundles]
        for name in upgrade:
            if canonicalize_name(name) not in listed:
                raise BundleNotInProject(
                    path=str(project.path), name=name, listed=listed or ["nothing"]
                )
    announce(args, f"Locking project {project.root} ({project.path.name})")
    lock, changed = lock_only(project, upgrade=upgrade, dry_run=args.dry_run)
    pins = [f"{d.name} {d.pin.version}" for d in lock.distributions]
    verb = ("would change" if args.dry_run else "written") if changed else "up to date"
    data = {
        "ok": True,
        "project": str(project.root),
        "lock": verb,
        "distributions": [d.to_data() for d in lock.distributions],
        "deployments": len(lock.deployments),
    }
    locked = ", ".join(pins) or "nothing locked"
    emit(args, data, f"agenttools.lock {verb}: {locked}; {len(lock.deployments)} deployment(s)")
    return 0


def run_project_sync(args: argparse.Namespace, path: Path) -> int:
    """``sync`` inside the project of *path*: with nothing to do, said from the facts alone
    (:mod:`agenttools_runtime.project_state.freshness`), else the whole sync."""
    from agenttools_runtime.project_state import schema
    from agenttools_runtime.project_state.freshness import up_to_date

    if args.prune or args.client or args.bundle:
        raise UsageError(
            "--prune, --client and --bundle are machine-wide: add --global "
            "(a project sync does all it lists)"
        )
    if args.dry_run or args.upgrade or args.force:
        return _sync(args, schema.load(path), "Syncing")
    announce(args, f"Syncing project {path.parent} ({path.name})")
    report = up_to_date(path, frozen=args.frozen)
    if report is not None:
        emit(args, _sync_json(path.parent, report), lambda: _sync_text(report))
        return 0
    return _sync(args, schema.load(path), "Syncing", said=True)


def run_project_verify(args: argparse.Namespace, path: Path) -> int:
    """``verify`` inside the project of *path*."""
    import hashlib

    from agenttools_runtime import regular_files
    from agenttools_runtime.errors import LockMissing
    from agenttools_runtime.project_state import freshness, lockfile, machine, rawfile

    if args.id or args.client or args.bundle:
        raise UsageError("deployment ids, --client and --bundle are machine-wide: add --global")
    rawfile.read(path)  # (TOML, else FILE:LINE; what it means is the lock's business here)
    # what a killed deploy left (a sync's, say) first: the files as they now stay
    finish_interrupted_if_left()
    root = path.parent
    lock_path = root / lockfile.LOCK_FILE
    raw = regular_files.read_bytes_if_present(lock_path)
    if raw is None:
        raise LockMissing(project=str(path), lock=str(lock_path))
    lock = lockfile.loads_bytes(raw, lock_path)
    announce(args, f"Verifying project {root} against {lock_path.name}")
    record = machine.read(root)
    checked = None
    if record.lock_sha256 == hashlib.sha256(raw).hexdigest():
        checked = freshness.checked_by_record(root, lock, record)
    if checked is None:  # (the entries themselves, read with the config formats)
        from agenttools_runtime.project_state.verifying import verify_project

        checked = verify_project(root, lock)
    if args.format == "github" and not args.json:
        from agenttools_runtime.cli.annotations import error

        for f in checked.findings:
            print(error(f.message, file=f.path, line=f.line))
        print(_verify_summary(checked))
        return 0 if checked.ok else 1
    data = {
        "ok": checked.ok,
        "project": str(root),
        "deployments": checked.deployments,
        "files": checked.files,
        "entries": checked.entries,
        "findings": [f.to_json() for f in checked.findings],
    }
    lines = [f"{f.problem}: {f.message}" for f in checked.findings]
    emit(args, data, "\n".join([*lines, _verify_summary(checked)]))
    return 0 if checked.ok else 1


# -- helpers ---------------------------------------------------------------------------------


def _sync(
    args: argparse.Namespace,
    project: ProjectFile,
    doing: str,
    *,
    write_project: bool = False,
    said: bool = False,
) -> int:
    from agenttools_runtime.project_state.syncing import FROZEN, LOCKED, NORMAL, sync_project

    # (add and drop have none of sync's --frozen, --locked, --dry-run, --force, --upgrade)
    frozen, locked = getattr(args, "frozen", False), getattr(args, "locked", False)
    dry_run = getattr(args, "dry_run", False)
    if not said:
        dry_text = ", dry run" if dry_run else ""
        announce(args, f"{doing} project {project.root} ({project.path.name}{dry_text})")
    report = sync_project(
        project,
        mode=FROZEN if frozen else LOCKED if locked else NORMAL,
        dry_run=dry_run,
        force=getattr(args, "force", False),
        upgrade=getattr(args, "upgrade", False),
        write_project=write_project,
        check=args.check,
    )
    warn_all(report.warnings)
    emit(args, _sync_json(project.root, report), lambda: _sync_text(report))
    return 0 if report.ok else 1


def _sync_json(root: Path, report: SyncReport) -> dict[str, Any]:
    checked = report.checked
    return {
        "ok": report.ok,
        "project": str(root),
        "lock": report.lock_action,
        "distributions": [d.to_data() for d in report.lock.distributions],
        "actions": [a.to_json() for a in report.actions],
        "findings": [] if checked is None else [f.to_json() for f in checked.findings],
    }


def _sync_text(report: SyncReport) -> str:
    pins = ", ".join(f"{d.name} {d.pin.version}" for d in report.lock.distributions) or "nothing"
    lines = [f"agenttools.lock {report.lock_action}: {pins}"]
    lines += [f"{a.identity}: {a.action}" for a in report.actions]
    if report.checked is not None:
        lines += [f"{f.problem}: {f.message}" for f in report.checked.findings]
    done = sum(a.action in ("deployed", "removed") for a in report.actions)
    lines.append(f"{done} change(s); {len(report.lock.deployments)} deployment(s) locked.")
    return "\n".join(lines)


def _verify_summary(checked: Any) -> str:
    if checked.ok:
        return (
            f"ok: {checked.deployments} deployment(s), {checked.files} file(s), "
            f"{checked.entries} entr{'y' if checked.entries == 1 else 'ies'} as locked"
        )
    return f"{len(checked.findings)} finding(s): run 'agenttools sync' (--force replaces what you changed)"


def _require_project() -> Path:
    from agenttools_runtime.errors import NotInProject
    from agenttools_runtime.project_state.finding import find_project_file

    found = find_project_file()
    if found is None:
        raise NotInProject(start=os.getcwd())
    return found
