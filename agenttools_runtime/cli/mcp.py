"""``agenttools mcp install|uninstall|list``: the low-level MCP config commands (untracked)."""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttools_runtime.cli.common import (
    UsageError,
    add_check_arguments,
    add_command,
    add_command_group,
    add_environment_arguments,
    add_target_arguments,
    emit,
    examples,
    nonempty,
    refuse_both,
)
from agenttools_runtime.cli.setting_args import env_assignments
from agenttools_runtime.mcp.runner_names import RUNNERS

if TYPE_CHECKING:
    from agenttools_runtime.discovery import InstalledDistribution, SearchPath
    from agenttools_runtime.mcp.install import MCPTarget
    from agenttools_runtime.mcp.server import MCPServer

_TARGET_HELP = (
    "client id, name or alias (claude-code, cursor, codex, ...; see 'agenttools clients')"
)


def register(subparsers: Any) -> None:
    commands = add_command_group(
        subparsers,
        "mcp",
        help="write or remove MCP server entries in a client's config file directly (untracked)",
        description=(
            "Add, remove or list MCP server entries in an AI client's config file. Only the "
            "one entry changes: every other key, comment and the file's formatting stay as "
            "they were, and a file that does not parse is never rewritten. These are the "
            "low-level commands: nothing is recorded. Use 'agenttools deploy' for tracked, "
            "reversible deployments."
        ),
    )
    install = add_command(
        commands,
        "install",
        run_install,
        help="write a server's entry into a client's config file",
        description=(
            "Write the entry for SERVER into the MCP config file of TARGET, in the shape that "
            "client expects. An entry of the same key that holds something else is replaced "
            "only with --force when no agenttools deployment wrote it (it is the user's; "
            "nothing records it, so nothing puts it back). module/script servers run "
            "with the absolute interpreter / console script of the environment the "
            "distribution is installed in; in a project's file (--project) with the "
            "distribution's console script by name when there is one, so the file works on "
            "a teammate's machine (--runner chooses: python, script, uvx)."
        ),
        epilog=examples(
            "agenttools mcp install claude-code weather-tools/weather",
            "agenttools mcp install cursor weather --name wx",
            "agenttools mcp install codex weather-tools/weather --project .",
            "agenttools mcp install vscode weather --config ~/.config/Code/User/settings.json",
        ),
    )
    _target_arguments(install)
    install.add_argument(
        "server",
        nargs="*",
        type=nonempty,
        metavar="SERVER",
        help="DIST/SERVER of an installed distribution, or a server name declared by exactly "
        "one; with --server-json: more TARGETs instead",
    )
    install.add_argument(
        "--server-json",
        type=nonempty,
        metavar="FILE",
        help="install the server an MCP registry server.json describes (pypi: a pinned uvx "
        "entry; npm: npx; else its remote) into every TARGET",
    )
    install.add_argument(
        "--env",
        action="append",
        default=[],
        type=nonempty,
        metavar="NAME=VALUE",
        help="the value of one of the server's settings (with --server-json: of its inputs, "
        "environment variable, header, argument); required ones not given are asked for on "
        "a terminal",
    )
    install.add_argument(
        "--install",
        action="store_true",
        help="with --server-json: install the package into a managed environment (not yet "
        "available: the entry runs the pinned uvx or npx command)",
    )
    install.add_argument(
        "--name",
        type=nonempty,
        metavar="KEY",
        help="the key to write the entry under (default: the server's config-key, else its name)",
    )
    install.add_argument(
        "--runner",
        choices=RUNNERS,
        help="how a module/script server is started: the absolute interpreter (python), its "
        "console script by name (script), or uvx --from DIST==VERSION SCRIPT (uvx); "
        "default: script in project scope when there is one, else python",
    )
    install.add_argument(
        "--force",
        action="store_true",
        help="replace an entry of the same key that no agenttools deployment wrote",
    )
    add_check_arguments(install)
    add_environment_arguments(install)

    uninstall = add_command(
        commands,
        "uninstall",
        run_uninstall,
        help="remove a server's entry from a client's config file",
        description=(
            "Remove the entry of SERVER from the MCP config file of TARGET; nothing else in "
            "the file changes, and the last entry agenttools wrote there takes with it what "
            "writing it added (the file as it was, or no file if there was none). A missing "
            "entry is "
            "reported as not installed and is not an error. An entry an agenttools "
            "deployment wrote goes as 'agenttools remove' would take it: the user's own "
            "entry it replaced is put back instead, one the user changed since is kept "
            "unless --force (exit status 1), and the deployment no longer lists it."
        ),
        epilog=examples(
            "agenttools mcp uninstall claude-code weather",
            "agenttools mcp uninstall cursor weather-tools/weather --project .",
        ),
    )
    _target_arguments(uninstall)
    uninstall.add_argument(
        "server",
        type=nonempty,
        metavar="SERVER",
        help="the entry's key, or DIST/SERVER (its key is the server's config-key or name)",
    )
    uninstall.add_argument(
        "--name", type=nonempty, metavar="KEY", help="the key to remove (overrides SERVER's)"
    )
    uninstall.add_argument(
        "--force",
        action="store_true",
        help="also remove an entry a deployment wrote that the user changed since",
    )
    add_environment_arguments(uninstall)

    listing = add_command(
        commands,
        "list",
        run_list,
        formatter_class=argparse.HelpFormatter,
        help="list the MCP server entries in a client's config file",
        description="List every MCP server entry in the MCP config file of TARGET.",
    )
    _target_arguments(listing)


def _target_arguments(parser: argparse.ArgumentParser) -> None:
    add_target_arguments(
        parser,
        target=_TARGET_HELP,
        project="project scope: the client's project config file inside DIR",
        config="edit FILE instead of the client's own config file (TARGET decides the entry shape)",
    )


def _resolve_target(args: argparse.Namespace) -> MCPTarget:
    from agenttools_runtime.mcp.install import resolve_mcp_target

    refuse_both(args, "--project", "--config")
    return resolve_mcp_target(args.target, project=args.project, config=args.config)


def resolve_server(spec: str, search: SearchPath | None) -> tuple[InstalledDistribution, MCPServer]:
    """The installed distribution and its server: ``dist/server``, or a bare name declared
    by exactly one distribution. Raises ``DistributionNotInstalled``, ``DistributionServerNotFound``,
    ``MCPServerNameAmbiguous``, ``MCPServerNotFound``."""
    from agenttools_runtime.bundles import server_owner
    from agenttools_runtime.discovery import get_distribution
    from agenttools_runtime.errors import MCPServerNotFound

    if "/" in spec:
        dist_name, _, name = spec.partition("/")
        dist = get_distribution(dist_name, search)
        return dist, dist.server(name)
    owner = server_owner(spec, search)
    if owner is None:
        raise MCPServerNotFound(name=spec)
    return owner, owner.server(spec)


def run_install(args: argparse.Namespace) -> int:
    from agenttools_runtime.cli.discovery import search_from_args
    from agenttools_runtime.deploy.mcp_entry import install_entry
    from agenttools_runtime.mcp.runners import choose_runner, machine_specific_warning

    if args.server_json is not None:
        return run_install_server_json(args)
    if args.install:
        raise UsageError("--install goes with --server-json")
    if len(args.server) != 1:
        raise UsageError("give one TARGET and one SERVER (several TARGETs go with --server-json)")
    target = _resolve_target(args)
    search = search_from_args(args)
    dist, server = resolve_server(args.server[0], search)
    project = target.scope not in ("user", None)
    given = _env_values(args, server.key, [s.name for s in server.settings])
    server = _with_settings(server, given, project, target.config_file)
    choice = choose_runner(server, args.runner, project=project)
    key = args.name or server.key
    probed = [] if search is None else [str(p) for p in search.paths]
    _refuse_if_cannot_start(
        choice.server,
        key,
        target,
        probed,
        args.check,
        dist_info=str(dist.dist_info),
        by_script=choice.runner == "script",
    )
    result = install_entry(target, choice.server, key, force=args.force)
    warning = machine_specific_warning(choice, key, target.config_file) if project else None
    if warning is not None:
        warnings.warn(warning, stacklevel=1)
    text = f"{_installed(result)}\n  runs: {choice.describe()}"
    data = {
        "ok": True,
        **result.to_json(),
        "scope": target.to_json()["scope"],
        "launch": choice.to_json(),
    }
    emit(args, data, text)
    return 0


def _refuse_if_cannot_start(
    server: MCPServer,
    key: str,
    target: MCPTarget,
    probed: list[str],
    check: Any,
    secrets: list[str] | None = None,
    *,
    dist_info: str | None = None,
    by_script: bool = False,
) -> None:
    """``MCPServerCannotStart`` when the entry to write would not start (``--check``: or
    not answer ``initialize``), before anything is written; *secrets*: values to mask
    (default: the server's declared secret settings); *dist_info*, *by_script*: as for
    :func:`~agenttools_runtime.deploy.server_checks.entry_problem`. Interrupted, it says
    that nothing was changed."""
    from agenttools_runtime import errors, signals
    from agenttools_runtime.deploy.server_checks import entry_problem

    if secrets is None:
        secrets = [server.env[s.name] for s in server.settings if s.secret and s.name in server.env]
    try:
        reason = entry_problem(
            server, probed, check, dist_info=dist_info, secrets=secrets, by_script=by_script
        )
    except KeyboardInterrupt as exc:  # (--check waits for the server's answer)
        raise signals.Interrupted.from_interrupt(exc, "nothing was changed") from None
    if reason is not None:
        raise errors.MCPServerCannotStart(
            server=key,
            client_name=target.client.display_name,
            reason=reason,
            client=target.client.id,
        )


def _with_settings(server: Any, given: dict[str, str], project: bool, config_file: Any) -> Any:
    """*server* with the values of its declared settings (``--env NAME=VALUE``, asked on a
    terminal); a secret is refused in project scope (``mcp install`` writes no reference:
    ``deploy`` does)."""
    from agenttools_runtime import errors
    from agenttools_runtime.mcp.settings import resolve_values, terminal_ask

    secrets = [s.name for s in server.settings if s.secret]
    if project and secrets:
        raise errors.SecretNotForProject(server=server.key, names=secrets, config_file=config_file)
    return server.configured(resolve_values(server.key, server.settings, given, terminal_ask()))


def _env_values(args: argparse.Namespace, key: str, declared: list[str]) -> dict[str, str]:
    """The ``--env NAME=VALUE`` values by name, read as every command reads them
    (:func:`env_assignments`: a malformed one is a usage error that never shows its text, it
    may be a secret), each for one of the *declared* settings of the server *key* (else
    ``SettingNotDeclared``, by its position); a later one wins."""
    from agenttools_runtime.settings.given import of_server

    return of_server(env_assignments(args), key, declared)


def run_install_server_json(args: argparse.Namespace) -> int:
    """``mcp install TARGET… --server-json FILE``: every input resolved and every entry built
    before the first file is written, so a bad file or a missing value changes nothing."""
    from agenttools_runtime import errors
    from agenttools_runtime.deploy.mcp_entry import install_entry
    from agenttools_runtime.export.server_json_in import read_server_json
    from agenttools_runtime.mcp.entries import build_entry
    from agenttools_runtime.mcp.install import resolve_mcp_target
    from agenttools_runtime.mcp.runners import RunnerChoice
    from agenttools_runtime.mcp.settings import resolve_values, terminal_ask

    if args.install:
        raise UsageError(
            "--install with --server-json is not available yet (managed environments); "
            "without it the entry runs the package's pinned uvx or npx command"
        )
    refuse_both(args, "--project", "--config")
    targets = [t for spec in (args.target, *args.server) for t in spec.split(",") if t]
    described = read_server_json(Path(args.server_json))
    key = args.name or described.key
    given = _env_values(args, key, [s.name for s in described.settings])
    resolved = [resolve_mcp_target(t, project=args.project, config=args.config) for t in targets]
    values = resolve_values(key, described.settings, given, terminal_ask())
    server = described.server(values)
    secrets = [n for n in described.secrets if n in values]
    for target in resolved:
        if secrets and target.scope not in ("user", None):
            raise errors.SecretNotForProject(
                server=key, names=secrets, config_file=target.config_file
            )
        build_entry(target.client, server, key)  # UnsupportedTransport before any write
    if resolved:  # (its uvx or npx on the PATH; --check: it answers, started once)
        _refuse_if_cannot_start(
            server, key, resolved[0], [], args.check, [values[n] for n in secrets]
        )
    # what is printed: a secret's value never (an argument may hold one)
    shown = described.server({**values, **{n: "*****" for n in secrets}})
    choice = RunnerChoice(shown, None)
    results = []
    for target in resolved:
        results.append(install_entry(target, server, key, force=args.force))
    lines = [*map(_installed, results), f"  runs: {choice.describe()}"]
    data = {
        "ok": True,
        "server": {"name": described.name, "version": described.version, "kind": described.kind},
        "installed": [r.to_json() for r in results],
        "launch": choice.to_json(),
    }
    emit(args, data, "\n".join(lines))
    return 0


def _installed(result: Any) -> str:
    from agenttools_runtime.errors import format_message

    text = format_message("InstallMCPServer", key=result.key, config_file=result.config_file)
    return text if result.changed else f"{text} (it was already there)"


def run_uninstall(args: argparse.Namespace) -> int:
    from agenttools_runtime.cli.discovery import search_from_args
    from agenttools_runtime.deploy.mcp_entry import uninstall_entry
    from agenttools_runtime.errors import format_message

    target = _resolve_target(args)
    key = args.name or args.server
    if args.name is None and "/" in args.server:
        key = resolve_server(args.server, search_from_args(args))[1].key
    result = uninstall_entry(target, key, force=args.force)
    if result.warning is not None:
        warnings.warn(result.warning, stacklevel=1)
    # (a kept entry is not printed: the warning says it)
    removed = result.outcome in ("removed", "restored")
    tag = "UninstallMCPServer" if removed else "MCPServerNotInstalled"
    text = format_message(tag, key=result.key, config_file=result.config_file)
    if result.outcome == "restored":
        text += " The entry it had replaced is back as it was."
    if result.deployments and result.done:
        text += f" (deployment {', '.join(result.deployments)} no longer lists it)"
    emit(args, {"ok": result.done, **result.to_json()}, "" if not result.done else text)
    return 0 if result.done else 1


def run_list(args: argparse.Namespace) -> int:
    from agenttools_runtime.mcp.install import read_server_entries

    target = _resolve_target(args)
    entries = read_server_entries(target.config_file, target.client)
    data = {"ok": True, **target.to_json(), "entries": entries}
    emit(args, data, lambda: _render_list(target, entries))
    return 0


def _render_list(target: MCPTarget, entries: dict[str, dict[str, Any]]) -> str:
    lines = [f"{target.client.display_name}: {target.config_file}"]
    if not entries:
        lines.append("  (no MCP servers)")
    width = max((len(k) for k in entries), default=0)
    for key, entry in entries.items():
        lines.append(f"  {key.ljust(width)}  {_describe(entry)}")
    return "\n".join(lines)


def _describe(entry: Any) -> str:
    if not isinstance(entry, dict):
        return repr(entry)
    for url_key in ("url", "httpUrl", "serverUrl", "uri"):
        if isinstance(entry.get(url_key), str):
            return str(entry[url_key])
    command = entry.get("command", entry.get("cmd"))
    args = entry.get("args") or []
    if isinstance(command, list):
        command, args = (command[0] if command else ""), command[1:]
    return " ".join(str(part) for part in [command, *args] if part is not None)
