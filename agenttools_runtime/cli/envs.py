"""Managed environments on the command line: ``agenttools envs``, and the parts of ``deploy``
(``--install`` and the index options), ``show --index``, ``list --index``, ``sync --upgrade``
and ``doctor`` that are about distributions that are not installed. The other command modules
call in here with one line each; the work is the library's (``agenttools_runtime/envs``)."""

from __future__ import annotations

import argparse
import contextlib
import difflib
import os
from typing import TYPE_CHECKING

from agenttools_runtime.cli.common import (
    UsageError,
    add_command,
    announce,
    ask_yes_no,
    emit,
    finish_interrupted_if_left,
    warn_all,
)
from agenttools_runtime.cli.index_options import (
    SPECIFIER,
    add_index_arguments,
    options_from_args,
    split_tools,
)
from agenttools_runtime.envs.installer_names import INSTALLERS

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any


def register(subparsers: Any) -> None:
    add_command(
        subparsers,
        "envs",
        run_envs,
        formatter_class=argparse.HelpFormatter,
        help="list the managed environments 'deploy --install' made, and who uses each",
        description=(
            "List the managed environments: the virtual environments agenttools made for "
            "'deploy DIST --install' under its state directory, one per distribution and "
            "version, each with what it was made from (the requirement, the index, the "
            "installer, the interpreter), its size and the deployments that use it. An "
            "environment goes with the last deployment that uses it; 'agenttools doctor "
            "--fix' removes any that none uses and rebuilds broken ones from their receipts."
        ),
    )


def add_install_arguments(parser: argparse.ArgumentParser) -> None:
    """``deploy``'s options for what is not installed."""
    parser.add_argument(
        "--install",
        action="store_true",
        help="when TOOLS names a distribution that is not installed (a PEP 508 requirement "
        "such as 'weather-tools==1.2.0', a wheel file or a project directory), install it "
        "into a managed environment of its own and deploy from there",
    )
    parser.add_argument(
        "--installer",
        choices=INSTALLERS,
        help="the installer of managed environments (default: uv when available, else pip)",
    )
    add_index_arguments(parser)


# -- deploy --------------------------------------------------------------------------------


def takes_over(args: argparse.Namespace, tools: str | None) -> bool:
    """Whether ``deploy``'s TOOLS is for this module: ``--install``, a requirement with a
    specifier, a path, or a distribution not installed where discovery looks."""
    if tools is None:
        return bool(args.install)
    if args.install or SPECIFIER.intersection(tools):
        return True
    if tools.endswith(".whl") or os.sep in tools.split("/", 1)[0] or tools.startswith("."):
        return True
    from agenttools_runtime.cli.discovery import search_from_args
    from agenttools_runtime.discovery import SearchPath, is_installed

    search = search_from_args(args, quiet=True) or SearchPath.current()
    first = tools.split("/", 1)[0]
    if first == "agenttools" or is_installed(first, search):
        return False
    return _managed_or_absent(first, search) and not _close_to_installed(first, search)


def _close_to_installed(name: str, search: Any) -> bool:
    """Whether *name* looks like a typo of an installed distribution's (then the ordinary
    error, with its "did you mean", says more than an offer to install it)."""
    from agenttools_runtime.discovery import find_distributions

    names = [d.name for d in find_distributions(search)]
    return bool(difflib.get_close_matches(name, names, n=1, cutoff=0.8))


def _managed_or_absent(name: str, search: Any) -> bool:
    """Whether *name* is no server name of the environment *search* either (a unique server
    name deploys that server, and one that several distributions declare is said to be
    ambiguous: the normal path)."""
    from agenttools_runtime.bundles import resolve_tools
    from agenttools_runtime.errors import AgentToolsError, MCPServerNameAmbiguous

    try:
        resolve_tools(name, search)
    except MCPServerNameAmbiguous:
        return False
    except AgentToolsError:
        return True
    return False


def run_deploy(
    args: argparse.Namespace, tools: str | None, deploy: Callable[[Any, str], int]
) -> int:
    """``deploy … TOOLS`` where TOOLS is not installed where discovery looks (see
    :func:`takes_over`): from a managed environment that holds it, else installed into a new
    one (``--install``, or yes on a terminal), else the error that names the command.
    *deploy(search, tools)* runs the ordinary deploy from that environment."""
    from agenttools_runtime.envs.deploying import (
        deploy_from_managed,
        find_managed,
        install_and_deploy,
    )
    from agenttools_runtime.envs.requirement import parse_request

    if tools is None:
        raise UsageError(
            "--install needs TOOLS: the distribution to install (a requirement, a wheel or a directory)"
        )
    text, bundle = split_tools(tools)
    request = parse_request(text)
    name = request.name if bundle is None else f"{request.name}/{bundle}"
    if args.dry_run:
        return _dry_run(args, request)
    if not args.install:
        existing = find_managed(request)
        if existing is not None:
            status, said = deploy_from_managed(existing, lambda search: deploy(search, name))
            warn_all(said)
            return status
        if not _ask(request):
            from agenttools_runtime.cli.discovery import search_from_args
            from agenttools_runtime.discovery import SearchPath
            from agenttools_runtime.errors import DistributionNotInstalledHere

            search = search_from_args(args, quiet=True) or SearchPath.current()
            raise DistributionNotInstalledHere(
                requirement=request.describe(),
                where=f"{search.describe()} nor in a managed environment",
                command=_install_command(args),
            )
    status, said = install_and_deploy(
        request,
        lambda search: _announced(args, search, name, deploy),
        options=options_from_args(args),
        installer=args.installer,
        metadata_only=args.runner == "uvx",
    )
    warn_all(said)
    return status


def _announced(
    args: argparse.Namespace, search: Any, name: str, deploy: Callable[[Any, str], int]
) -> int:
    from agenttools_runtime.envs.layout import environment_of, envs_dir, load

    env_name = environment_of(search.paths[0]) if search.paths else None
    env = load(envs_dir() / env_name) if env_name else None
    if env is not None and env.receipt is not None:
        r = env.receipt
        what = "metadata of" if r.layout == "metadata" else "managed environment for"
        line = (
            f"Using the {what} {r.distribution} {r.version}: {env.path} "
            f"({r.installer} {r.installer_version}, {len(r.resolved)} distribution(s))."
        )
        announce(args, line)
        from agenttools_runtime.mcp.runners import uvx_sources

        with uvx_sources(tuple(r.index.installer_arguments("uv"))):
            return deploy(search, name)
    return deploy(search, name)


def _ask(request: Any) -> bool:
    return bool(
        ask_yes_no(
            f"{request.describe()} is not installed. Install it into a managed environment "
            "and deploy it from there?"
        )
    )


def _install_command(args: argparse.Namespace) -> str:
    """The command line of this deploy with ``--install``: credentials out of the URLs, and
    each ``--env`` masked whole (whether one is a secret is for the bundle, not installed,
    to say; and a secret typed without its name, ``c2Vj…==``, reads as a name)."""
    import shlex

    from agenttools_runtime.cli.setting_args import env_assignments
    from agenttools_runtime.envs.index import redact
    from agenttools_runtime.settings.secrets import MARK

    words = ["agenttools", "deploy"]
    if args.all_clients:
        words.append("--all-clients")
    elif args.detected:
        words.append("--detected")
    words += [value for value in (args.target, args.tools) if value is not None]
    for option in (
        "project",
        "config",
        "skills_dir",
        "runner",
        "name",
        "python",
        "index_url",
        "installer",
    ):
        value = getattr(args, option)
        if value:
            words += [f"--{option.replace('_', '-')}", redact(value)]
    for option in ("extra_index_url", "find_links", "env_file"):
        for value in getattr(args, option) or ():
            words += [f"--{option.replace('_', '-')}", redact(value)]
    for _ in env_assignments(args):  # (a malformed one is refused, never shown)
        words += ["--env", MARK]
    for flag in ("no_skills", "no_index", "link", "json"):
        if getattr(args, flag):
            words.append(f"--{flag.replace('_', '-')}")
    if args.overwrite == "upgrade":
        words.append("--upgrade")
    elif args.overwrite == "all":
        words.append("--force")
    if args.check != "start":
        words.append("--check" if args.check == "connect" else "--no-check")
    words.append("--install")
    return shlex.join(words)


def _dry_run(args: argparse.Namespace, request: Any) -> int:
    """What ``--install`` would install (the installer resolves; nothing is created)."""
    from agenttools_runtime.envs import provision
    from agenttools_runtime.envs.deploying import find_managed
    from agenttools_runtime.envs.envlock import environments_lock
    from agenttools_runtime.envs.installer import find_installer

    existing = None if args.install else find_managed(request)
    if existing is not None and existing.receipt is not None:
        data = {"ok": True, "dry_run": True, "environment": existing.name}
        text = f"Would deploy {request.describe()} from the managed environment {existing.path}."
        emit(args, data, text)
        return 0
    installer = find_installer(args.installer)
    with environments_lock():
        version, resolved = provision.resolve_only(request, options_from_args(args), installer)
    data = {
        "ok": True,
        "dry_run": True,
        "distribution": request.name,
        "version": version,
        "resolved": [d.to_json() for d in resolved],
    }
    text = (
        f"Would install {request.name} {version} ({len(resolved)} distributions, "
        f"{installer.describe()}) into a managed environment and deploy it from there."
    )
    emit(args, data, text)
    return 0


# -- envs ----------------------------------------------------------------------------------


def run_envs(args: argparse.Namespace) -> int:
    from agenttools_runtime.envs.listing import human_size, rows
    from agenttools_runtime.envs.recovery import recover_if_free

    # the deployment state first: what its records say decides an interrupted install
    finish_interrupted_if_left()
    warn_all(recover_if_free())
    found = rows()

    def text() -> str:
        if not found:
            return "No managed environments ('agenttools deploy CLIENT DIST --install' makes one)."
        lines = []
        for row in found:
            if row["distribution"] is None:
                lines.append(f"{row['name']}: {row['problem']}")
                continue
            index = row["index"] or {}
            where = index.get("index_url") or (
                "find-links " + ", ".join(index.get("find_links") or [])
                if index.get("find_links")
                else "default index"
            )
            used = (
                ", ".join(u[:8] for u in row["deployments"])
                or "none ('agenttools doctor --fix' removes it)"
            )
            lines.append(
                f"{row['name']}  {row['distribution']} {row['version']}  "
                f"requirement {row['requirement']}  index {where}  {human_size(row['size'])}\n"
                f"  {row['installer']}, Python {row['python']}, {row['distributions']} distributions; "
                f"deployments: {used}"
            )
        return "\n".join(lines)

    emit(args, {"ok": True, "environments": found}, text)
    return 0


# -- sync --upgrade ------------------------------------------------------------------------


def add_upgrade_arguments(parser: argparse.ArgumentParser) -> None:
    """``sync``'s options for managed environments."""
    parser.add_argument(
        "--upgrade",
        action="store_true",
        help="first upgrade each managed environment a deployment uses to the newest version "
        "its requirement allows on its index (built beside the old one, the deployments "
        "deployed again from it, then the old one removed)",
    )
    add_index_arguments(parser)


def sync_upgrades(args: argparse.Namespace) -> tuple[list[dict[str, Any]], list[str], bool]:
    """``sync --upgrade``'s upgrades of managed environments, before the ordinary sync: JSON
    rows, text lines (one per deployment: ``weather-tools 1.2.0 → 1.3.0``), all ok."""
    if not args.upgrade:
        return [], [], True
    from agenttools_runtime.envs.upgrade import upgrade_all

    items = upgrade_all(
        options_from_args(args), dry_run=args.dry_run, force=bool(args.force), check=args.check
    )
    lines = [
        f"{record.client} {record.toolset_name}: {item.result}: {item.detail}"
        for item in items
        for record in item.deployments
    ]
    if items:
        lines.append("")
    warn_all([w for i in items for w in i.warnings])
    return [i.to_json() for i in items], lines, all(i.ok for i in items)


# -- doctor ----------------------------------------------------------------------------------


def doctor_environments(fix: bool) -> tuple[dict[str, Any], str, bool]:
    """The managed environments' part of ``doctor``: JSON, text, whether all is well."""
    from agenttools_runtime.envs import health
    from agenttools_runtime.envs.envlock import environments_lock
    from agenttools_runtime.envs.layout import envs_dir
    from agenttools_runtime.state_directories import directory_problem

    if not os.path.lexists(envs_dir()):  # no environment ever made: nothing to check or create
        return {"findings": [], "fixed": [], "remaining": []}, "", True
    # Something else than a directory there holds no lock file: no command can change the
    # environments while it is, and health.check finds only it.
    usable = directory_problem(envs_dir()) is None
    with environments_lock() if usable else contextlib.nullcontext():
        if fix and usable:
            from agenttools_runtime.envs.deploying import recover_environments

            warn_all(recover_environments())
        findings = health.check()
        done = health.fix(findings) if fix else []
        remaining = health.check() if fix else findings
    data = {
        "findings": [f.to_json() for f in findings],
        "fixed": [{**f.to_json(), "done": what} for f, what in done],
        "remaining": [f.to_json() for f in remaining],
    }
    lines = [
        f"managed environment: {f.message}" + ("" if f.fixable else " (not fixable)")
        for f in findings
    ]
    lines += [f"  -> {what}: {f.path.name}" for f, what in done]
    return data, "\n".join(lines), not remaining
