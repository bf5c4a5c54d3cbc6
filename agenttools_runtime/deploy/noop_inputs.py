"""What an identical redeploy's answer ("already deployed, up to date") was computed from: the
paths whose stat signatures a ticket of :mod:`agenttools_runtime.uptodate` keeps.

A deploy that changed nothing read: the state (every record, through the deployments
directory's listing and each record directory's; the index; the registry's listing and its
entries for these skills; the journal directory; the ledger of created paths), the target
(each config file written; the skills root, every skill folder deployed and every file and
folder in it; every skills root any client reads at that scope, and a copy of one of these
skills there; the markers the client table's locations depend on), and the source (the
directories the distribution was looked up in, the ``.dist-info`` and everything in it, the
interpreter; with ``--path``, where the virtual environment around each directory is looked
for: its servers start with that interpreter). A deployment whose answer depends on more than paths can tell has no inputs
(None): the built-in bundle, an editable install's live source, another interpreter's path.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from agenttools_runtime import clients, paths
from agenttools_runtime.deploy import registry
from agenttools_runtime.deploy.drift import tree
from agenttools_runtime.deploy.records import DeploymentRecord, record_path
from agenttools_runtime.deploy.targets import read_roots_by_client
from agenttools_runtime.search_path import environment_candidates
from agenttools_runtime.wheel import layout

# beside the records: caches (not what an answer is computed from) and the lock
_NOT_INPUTS = frozenset({".index", ".lock", ".verified"})


def inputs(record: DeploymentRecord, search_paths: list[str] | None) -> list[str] | None:
    """The paths the answer for *record* (a deployment found unchanged) depends on, the
    distribution looked up in *search_paths* (None: this interpreter's ``sys.path``); None
    when they cannot tell (see the module's docstring)."""
    at = record.agent_tools
    dist_info = at.get("dist_info")
    if at.get("location") != "distribution" or not dist_info or _editable(dist_info):
        return None
    state = paths.state_paths()
    found: list[str] = [*_state(state, record), *_target(record)]
    found += _linked_tree(str(dist_info))
    if search_paths is None:
        search_paths = [p or os.curdir for p in sys.path]
    else:  # (--path: servers start with the interpreter of the environment around it)
        for first in search_paths:
            site = Path(os.path.abspath(os.path.expanduser(first)))
            found += [str(p) for pair in environment_candidates(site) for p in pair]
    found += [os.path.abspath(p) for p in search_paths]
    found.append(sys.executable)
    return found


def _linked_tree(directory: str) -> list[str]:
    """:func:`~agenttools_runtime.deploy.drift.tree` of *directory*, and of where every link
    in it leads (a ``.dist-info`` in a symlink forest: its files are where the links lead,
    and a file rewritten there changes neither a link nor the folder holding it)."""
    found: list[str] = []
    seen: set[str] = set()
    stack = [directory]
    while stack:
        here = stack.pop()
        for path in tree(Path(here)):
            found.append(path)
            if os.path.islink(path):
                real = os.path.realpath(path)
                if real not in seen and os.path.isdir(real):
                    seen.add(real)
                    stack.append(real)
    return found


def clean_directories(record: DeploymentRecord) -> list[str]:
    """Where a backup or staging copy an interrupted write left would make the engine warn:
    beside the skills root (its real location) and inside it."""
    if not record.skills_directory:
        return []
    real = paths.canonical_path(record.skills_directory)
    return [str(real.parent), str(real)]


def _editable(dist_info: str) -> bool:
    """Whether the distribution's skills come from a live source tree (or it has no readable
    manifest: then nothing is certain)."""
    try:
        with open(dist_info + layout.MANIFEST_SUFFIX, "rb") as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        return True
    return not isinstance(manifest, dict) or bool(manifest.get("source-root"))


def _state(state: paths.StatePaths, record: DeploymentRecord) -> Iterator[str]:
    deployments = state.deployments
    yield str(deployments)
    try:
        names = os.listdir(deployments)
    except OSError:
        names = []
    for name in sorted(names):  # every record's directory (a record rewritten: a rename)
        if name not in _NOT_INPUTS:
            yield str(deployments / name)
    yield str(record_path(record.uuid, deployments))
    yield str(state.index)
    yield str(state.index_log)
    yield str(state.created)
    for skill in record.installed:
        yield str(registry.entry_path(skill.registry_key, state))


def _target(record: DeploymentRecord) -> Iterator[str]:
    for server in record.mcp_servers:
        yield str(server.config_file)
    names = [s.name for s in record.installed]
    for skill in record.installed:
        yield from tree(Path(skill.directory))
    roots = {Path(record.skills_directory)} if record.skills_directory else set()
    if record.scope is not None:
        for found in read_roots_by_client(record.scope).values():
            roots.update(found)
    for root in sorted(roots):
        yield str(root)
        try:  # (a file system may ignore case: any spelling of a name is that name)
            there = {n.casefold(): n for n in os.listdir(root)}
        except OSError:
            continue  # (missing: its creation changes the signature kept above)
        for name in names:
            if name.casefold() in there:  # a copy of one of these skills, or this one's own
                yield from tree(root / there[name.casefold()])
    yield from _markers()


def _markers() -> Iterator[str]:
    """The paths whose existence picks a client's location (``if_exists`` in the table)."""
    with open(os.path.join(os.path.dirname(clients.__file__), "clients.json"), "rb") as f:
        stack: list[Any] = [json.load(f)]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if "if_exists" in item and isinstance(item["if_exists"], list):
                yield str(Path.home().joinpath(*map(str, item["if_exists"])))
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
