"""``remove`` of several deployments: each on its own, warnings about what is still true at
the end only, and a signal that stops the loop accounted for id by id."""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from typing import Any

from agenttools_runtime.cli import emit
from agenttools_runtime.deploy import remove_deployment
from agenttools_runtime.errors import AgentToolsError, AgentToolsWarning
from agenttools_runtime.signals import Interrupted


def remove_each(args: argparse.Namespace, ids: list[str]) -> int:
    """Remove each of *ids* on its own (one that fails does not stop the others). A warning
    that a later removal of the same command made untrue (a skill kept for another
    deployment that was removed next) is left out. A signal stops the loop: what was
    removed so far is printed (stdout flushed), and the interruption's message names every
    deployment removed, the one it stopped at and those not reached."""
    caught: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", AgentToolsWarning)
            return _remove_all(args, ids)
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
    return path is not None and not os.path.lexists(path)


def _remove_all(args: argparse.Namespace, ids: list[str]) -> int:
    results: list[dict[str, Any]] = []
    found: list[list[AgentToolsWarning]] = []  # each result's warnings
    lines = []
    removed: list[str] = []
    try:
        for uid in ids:
            try:
                result = remove_deployment(uid)
            except AgentToolsError as exc:
                results.append({"ok": False, "id": uid, "error": exc.to_json()})
                found.append([])
                lines.append(f"Not removed {uid}: {exc}")
                continue
            results.append(result.to_json())
            found.append(result.warnings)
            removed.append(result.uuid)
            lines.append(
                f'Removed deployment {result.uuid} ("{result.toolset}" from {result.client}).'
            )
    except KeyboardInterrupt as exc:
        data = {"ok": False, "interrupted": True, "results": _current(results, found)}
        emit(args, data, "\n".join(lines))
        sys.stdout.flush()
        raise _interrupted(exc, removed, ids[len(results) :]) from None
    ok = all(r["ok"] for r in results)
    data = {"ok": ok, "results": _current(results, found)}
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
