"""What differs from what a deployment wrote: a skill directory's files against its registry
entry's hashes, a skill deployed as a link, and a config entry field by field (the findings
behind ``status.py``)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agenttools_runtime import jsonform, paths
from agenttools_runtime.deploy import content, registry
from agenttools_runtime.deploy.records import InstalledSkill
from agenttools_runtime.mcp.formats import same_data
from agenttools_runtime.settings.secrets import MARK, is_digest
from agenttools_runtime.skills.hashing import installed_hashes

# the states a finding puts a deployment in (status.py says what each means), in the order
# the summary of ``agenttools deployed`` counts them
OK, OUTDATED, DRIFTED, ORPHANED, BROKEN = "ok", "outdated", "drifted", "orphaned", "broken"
STATUSES = (OK, OUTDATED, DRIFTED, ORPHANED, BROKEN)


@dataclass(frozen=True, slots=True)
class Finding(jsonform.Form):
    """One difference: the ``state`` it puts the deployment in, its ``kind`` (``record``,
    ``environment``, ``distribution``, ``server``, ``skill``, ``skill-file``,
    ``config-entry``, ``config-file``), a sentence, the ``path`` concerned, and data."""

    state: str
    kind: str
    message: str
    path: str | None = None
    detail: Mapping[str, Any] = field(default_factory=dict, metadata=jsonform.key(omit={}))


def command_path(entry: Any) -> str | None:
    """The absolute command an entry runs, if it names one."""
    command = entry.get("command") if isinstance(entry, Mapping) else None
    if isinstance(command, list):
        command = command[0] if command else None
    if isinstance(command, Mapping):
        command = command.get("path")
    return command if isinstance(command, str) and os.path.isabs(command) else None


def skill_findings(state: paths.StatePaths, skill: InstalledSkill, deep: bool) -> list[Finding]:
    """How the skill's directory differs from what its registry entry says agenttools wrote
    (*deep*: hash its files even when their stats are as the entry cached them)."""
    directory = Path(skill.directory)
    entry = registry.load_entry(skill.registry_key, state)
    if entry is None:
        message = f'the skill "{skill.name}" has no registry entry (see agenttools doctor)'
        return [Finding(DRIFTED, "skill", message, str(directory))]
    link = entry.extra.get(content.LINK)
    if link is not None:
        return link_findings(skill, Path(entry.directory), str(link))
    path = Path(entry.directory)
    if not os.path.lexists(path):
        return [_skill(skill, f"the skill directory {path} is gone", path, "missing")]
    if path.is_symlink() or not path.is_dir():
        message = (
            f"{path} was replaced by something that is not the skill directory agenttools wrote"
        )
        return [_skill(skill, message, path, "replaced")]
    if not deep and registry.unmodified_by_stats(entry, path):
        return []
    disk, clean = installed_hashes(path)
    baseline = dict(entry.hashes)
    if clean and disk == baseline:
        return []
    found = []
    for rel in sorted(set(disk) | set(baseline)):
        if disk.get(rel) == baseline.get(rel):
            continue
        change = "added" if rel not in baseline else "removed" if rel not in disk else "modified"
        found.append(
            Finding(
                DRIFTED,
                "skill-file",
                f"{path / rel}: {change} since agenttools wrote it",
                str(path / rel),
                {"skill": skill.name, "file": rel, "change": change},
            )
        )
    if not clean:
        message = (
            f"{path} holds version-control metadata, an unreadable file or a link leading out of it"
        )
        found.append(_skill(skill, message, path, "unclean"))
    return found


def link_findings(skill: InstalledSkill, path: Path, target: str) -> list[Finding]:
    """A skill deployed as a link to its live source: the link must still be there and lead
    to that source (the files behind it are the author's, never compared)."""
    try:
        now = os.readlink(path)
    except OSError:
        message = f"the link {path} to {target} is gone or no longer a link"
        return [_skill(skill, message, path, "missing", link=target)]
    if os.path.realpath(path) != os.path.realpath(target):
        message = f"the link {path} leads to {now}, not to {target}"
        return [_skill(skill, message, path, "relinked", link=target)]
    if not os.path.isdir(path):
        message = f"the source {target} that {path} links to is gone"
        return [_skill(skill, message, path, "dangling", ORPHANED, link=target)]
    return []


def _skill(
    skill: InstalledSkill, message: str, path: Path, change: str, state: str = DRIFTED, **more: str
) -> Finding:
    """A finding about the skill's directory (or link) as a whole."""
    return Finding(
        state, "skill", message, str(path), {"skill": skill.name, "change": change, **more}
    )


def diff(expected: Any, actual: Any, where: str = "") -> list[dict[str, Any]]:
    """The differences between two config values, field by field: ``{"field", "expected",
    "actual", "message"}`` (``field`` a dotted path; a missing side is None)."""
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        found: list[dict[str, Any]] = []
        for key in sorted(set(expected) | set(actual), key=str):
            field_name = f"{where}.{key}" if where else str(key)
            if key not in actual:
                found.append(_difference(field_name, expected[key], None, "removed"))
            elif key not in expected:
                found.append(_difference(field_name, None, actual[key], "added"))
            else:
                found.extend(diff(expected[key], actual[key], field_name))
        return found
    if same_data(expected, actual):
        return []
    return [_difference(where or "(entry)", expected, actual, "changed")]


def _difference(name: str, expected: Any, actual: Any, change: str) -> dict[str, Any]:
    if is_digest(expected):  # a secret: that it changed is all that is said
        expected, actual = MARK, None if actual is None else MARK

    def show(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    if change == "removed":
        message = f"{name} removed (was {show(expected)})"
    elif change == "added":
        message = f"{name} added ({show(actual)})"
    else:
        message = f"{name} is {show(actual)}, was {show(expected)}"
    return {"field": name, "expected": expected, "actual": actual, "message": message}
