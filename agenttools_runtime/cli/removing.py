"""``remove`` of several deployments: each on its own, warnings about what is still true at
the end only, and a signal that stops the loop accounted for id by id."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import warnings
from typing import TYPE_CHECKING, Any

from agenttools_runtime.cli.common import emit
from agenttools_runtime.deploy import remove_deployment
from agenttools_runtime.deploy.lock import deployment_lock
from agenttools_runtime.deploy.records import has_deployments
from agenttools_runtime.errors import AgentToolsError, AgentToolsWarning
from agenttools_runtime.signals import Interrupted

if TYPE_CHECKING:
    from agenttools_runtime.deploy import RemovalResult


def remove_each(args: argparse.Namespace, ids: list[str], *, single: bool = False) -> int:
    """Remove each of *ids* on its own (one that fails does not stop the others; *single*:
    the one ID given, whose failure is the command's error and whose result is the JSON
    output). Exit status 1 unless every one was removed completely. A warning
    that a later removal of the same command made untrue (a skill kept for another
    deployment that was removed next) is left out. A signal stops the loop: what was
    removed so far is printed (stdout flushed), and the interruption's message names every
    deployment removed, the one it stopped at and those not reached."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", AgentToolsWarning)
            # one lock for them all: what its recovery finished (a removal killed before)
            # counts as removed for each ID it was (and no ID is looked up before it ran)
            with deployment_lock() if ids and has_deployments() else contextlib.nullcontext():
                return _remove_all(args, ids, single)
    finally:
        for item in caught:
            if not stale(item.message):
                warnings.warn(item.message, stacklevel=2)


def stale(warning: Warning | str) -> bool:
    """Whether *warning* no longer holds: a skill directory "still used by other
    deployments" that is gone since."""
    if not isinstance(warning, AgentToolsWarning) or warning.tag != "AgentSkillInUse":
        return False
    path = warning.data.get("path")
    return path is not None and not os.path.lexists(str(path))


def _remove_all(args: argparse.Namespace, ids: list[str], single: bool) -> int:
    results: list[dict[str, Any]] = []
    found: list[list[AgentToolsWarning]] = []  # each result's warnings
    lines = []
    removed: list[str] = []
    try:
        for uid in ids:
            try:
                result = remove_deployment(uid, force=args.force)
            except AgentToolsError as exc:
                if single:
                    raise
                results.append({"ok": False, "id": uid, "error": exc.to_json()})
                found.append([])
                lines.append(f"Not removed {uid}: {exc}")
                continue
            results.append(result.to_json())
            found.append(result.warnings)
            if result.removed:
                removed.append(result.uuid)
            lines.extend(render_removal(result))
    except KeyboardInterrupt as exc:
        data = {"ok": False, "interrupted": True, "results": _current(results, found)}
        emit(args, data, "\n".join(lines))
        sys.stdout.flush()
        raise _interrupted(exc, removed, ids[len(results) :]) from None
    ok = all(r["ok"] for r in results)
    _current(results, found)
    data = results[0] if single else {"ok": ok, "results": results}
    emit(args, data, "\n".join(lines) or "No deployment matches.")
    return 0 if ok else 1


def _interrupted(exc: KeyboardInterrupt, removed: list[str], rest: list[str]) -> Interrupted:
    """The interruption of the loop with the ids *rest* not done (the first one: where it
    stopped): every id removed, what became of the one it stopped at, those not reached."""
    committed = getattr(exc, "committed", ())
    done = [*removed, *committed]
    parts = [f"removed {', '.join(done)}"] if done else []
    if rest and not committed:
        parts.append(getattr(exc, "outcome", "") or f"the deployment {rest[0]} was not removed")
    if rest[1:]:
        parts.append(f"not reached: {' '.join(rest[1:])}")
    return Interrupted.from_interrupt(exc, "; ".join(parts), tuple(done))


def _current(
    results: list[dict[str, Any]], found: list[list[AgentToolsWarning]]
) -> list[dict[str, Any]]:
    """*results* with each one's warnings as they stand now (the stale ones left out)."""
    for result, warned in zip(results, found, strict=True):
        if "warnings" in result:
            result["warnings"] = [w.to_json() for w in warned if not stale(w)]
    return results


_ENTRY_OUTCOMES = {
    "removed": "removed",
    "restored": "put back the entry it had replaced, as it was",
    "kept": "kept: changed after agenttools wrote it (see the warning)",
    "absent": "already gone from the file",
    "shared": "kept: another deployment records it",
}


def render_removal(result: RemovalResult) -> list[str]:
    """The removal's lines: "Removed" only for what was removed; a removal that left
    something says what, and why."""
    head = f"deployment {result.uuid}"
    if result.toolset:  # (a removal's journal left by a kill may not name them)
        head += f' ("{result.toolset}" from {result.client or "its client"})'
    if not result.removed:
        lines = [f"Not removed completely: {head}. Left (the deployment stays listed):"]
        for entry in result.left:
            lines.append(f'  MCP server "{entry.key}" in {entry.config_file}: {entry.reason}')
        lines.append(f"Fix what is named above, then run 'agenttools remove {result.uuid}' again.")
        return lines
    lines = [f"Removed {head}."]
    for entry in result.entries:
        if entry.outcome != "removed":
            what = _ENTRY_OUTCOMES.get(entry.outcome, entry.outcome)
            lines.append(f'  MCP server "{entry.key}" in {entry.config_file}: {what}')
    return lines
