"""``agenttools add`` / ``drop``: ``agenttools.toml`` edited losslessly (tomlkit: the user's
comments, order and formatting stay), the new text validated before anything is written. The
caller locks and syncs, and writes the text only once the lock is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import tomlkit
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from agenttools_runtime.errors import BundleAlreadyInProject, BundleNotInProject, ProjectFileInvalid
from agenttools_runtime.project_state.schema import ProjectFile, parse


def added(
    path: Path,
    requirement: str,
    *,
    clients: Sequence[str] = (),
    bundles: Sequence[str] = (),
    runner: str | None = None,
    scope: str | None = None,
) -> ProjectFile:
    """*path*'s project with one more ``[[bundle]]`` (the file made when there is none:
    *clients* become its ``[agenttools] clients``). Raises ``ProjectFileInvalid`` (the file
    as it is, or the requirement), ``BundleAlreadyInProject``."""
    try:
        wanted = Requirement(requirement)
    except InvalidRequirement as exc:
        raise ProjectFileInvalid(
            report=f"{requirement}: not a PEP 508 requirement: {exc}"
        ) from None
    name = str(canonicalize_name(wanted.name))
    text = path.read_text(encoding="utf-8") if path.is_file() else None
    if text is None:
        doc = tomlkit.document()
        top = tomlkit.table()
        top.add("clients", list(clients))
        doc.add("agenttools", top)
        clients = ()
    else:
        current = parse(text, path)
        for spec in current.bundles:
            if spec.distribution == name:
                raise BundleAlreadyInProject(
                    path=str(path), name=name, requirement=str(spec.requirement)
                )
        doc = tomlkit.parse(text)
    table = tomlkit.table()
    table.add("requirement", str(wanted))
    for key, value in (("bundles", list(bundles)), ("clients", list(clients))):
        if value:
            table.add(key, value)
    for key, given in (("runner", runner), ("scope", scope)):
        if given is not None:
            table.add(key, given)
    if "bundle" in doc:
        doc["bundle"][-1].add(tomlkit.nl())  # (a blank line before the new table)
        doc["bundle"].append(table)
    else:
        array = tomlkit.aot()
        array.append(table)
        doc.add("bundle", array)
    return parse(tomlkit.dumps(doc), path)


def dropped(path: Path, name: str) -> ProjectFile:
    """*path*'s project without the ``[[bundle]]`` of distribution *name*. Raises
    ``ProjectFileInvalid``, ``BundleNotInProject``."""
    text = path.read_text(encoding="utf-8")
    current = parse(text, path)
    wanted = str(canonicalize_name(name))
    index = next((i for i, s in enumerate(current.bundles) if s.distribution == wanted), None)
    if index is None:
        listed = [s.distribution for s in current.bundles] or ["nothing"]
        raise BundleNotInProject(path=str(path), name=name, listed=listed)
    doc = tomlkit.parse(text)
    array = doc["bundle"]
    del array[index]
    if not len(array):
        del doc["bundle"]
    return parse(tomlkit.dumps(doc), path)
