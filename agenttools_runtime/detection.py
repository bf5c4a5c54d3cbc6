"""Which AI clients are installed here, told by their own traces — and why.

A client is detected by any of:

- ``executable``: one of its commands (``claude``, ``codex``, ``code`` …) found on ``PATH``;
- ``folder``: a folder the client itself creates (its configuration home: ``~/.claude``,
  ``~/.config/goose``, VS Code's user directory …, the client table's ``traces``);
- ``config``: its user-scope MCP config file;
- ``skills``: its user skills root, when no other client writes to the same one
  (``~/.agents/skills`` is written for Codex, Goose and Zed alike: it tells none of them).

A path that agenttools created (the ledger of :mod:`agenttools_runtime.deploy.litter`: a
deploy that made ``~/.codex/config.toml`` and ``~/.codex``) is not a trace of the client —
unless something else has been put in it since (a directory holding a file agenttools did
not write, such as the ``auth.json`` the client wrote on its first start). Such paths are
reported as ``ignored``, so ``agenttools clients`` can say why a client is *not* detected
too. Nothing is written and no lock is taken.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from agenttools_runtime import jsonform, paths
from agenttools_runtime.clients import (
    Client,
    all_clients,
    located,
    mcp_config_location,
    skills_location,
    trace_folders,
)
from agenttools_runtime.errors import AgentToolsError
from agenttools_runtime.fs import TEMP_MARK
from agenttools_runtime.paths import registry_key

EXECUTABLE, FOLDER, CONFIG, SKILLS = "executable", "folder", "config", "skills"
_WHAT = {
    EXECUTABLE: "the executable {name} on PATH ({path})",
    FOLDER: "its folder {path}",
    CONFIG: "its MCP config file {path}",
    SKILLS: "its skills folder {path}",
}


@dataclass(frozen=True, slots=True)
class Trace(jsonform.Form):
    """One sign of a client: its ``kind`` (executable, folder, config, skills) and
    ``path`` (for an executable, where ``PATH`` found it; ``name`` its command)."""

    kind: str
    path: str
    name: str = field(default="", metadata=jsonform.key(omit=""))

    def describe(self) -> str:
        return _WHAT[self.kind].format(name=self.name, path=self.path)


@dataclass(eq=False)
class Detection:
    """Whether *client* is installed here: the ``traces`` found, and the ``ignored`` paths
    that exist but only because agenttools created them."""

    client: Client
    traces: list[Trace] = field(default_factory=list)
    ignored: list[Trace] = field(default_factory=list)

    @property
    def detected(self) -> bool:
        return bool(self.traces)

    def reason(self) -> str:
        """Why it is detected (or not), in one line."""
        if self.traces:
            return "; ".join(t.describe() for t in self.traces)
        if self.ignored:
            paths = ", ".join(t.path for t in self.ignored)
            return f"only paths agenttools created exist ({paths})"
        return "no trace of it here"

    def to_json(self) -> dict[str, Any]:
        return {
            "detected": self.detected,
            "detected_by": [t.to_json() for t in self.traces],
            "ignored": [t.to_json() for t in self.ignored],
            "reason": self.reason(),
        }


def detect_all() -> list[Detection]:
    """A :class:`Detection` for every client, in table order."""
    table = all_clients()
    ours = _Ours.load()
    shared = _shared_roots(table)
    return [detect(c, ours=ours, shared_roots=shared) for c in table.values()]


def detected_clients() -> list[Client]:
    """Clients installed here, told by their own traces: an executable on ``PATH``, a folder
    or config file of theirs that agenttools did not create (:func:`detect_all` also says
    why)."""
    return [d.client for d in detect_all() if d.detected]


def detect(
    client: Client, *, ours: _Ours | None = None, shared_roots: Collection[str] = ()
) -> Detection:
    """Look for *client*'s traces (see the module docstring)."""
    ours = ours or _Ours.load()
    found = Detection(client)
    for name in (client.traces or {}).get("executables", ()):
        where = shutil.which(name)
        if where is not None:
            found.traces.append(Trace(EXECUTABLE, where, name))
    candidates = [(FOLDER, p) for p in trace_folders(client)]
    config = located(partial(mcp_config_location, client))
    if config is not None:
        candidates.append((CONFIG, config))
    root = located(partial(skills_location, client))
    if root is not None and str(root) not in shared_roots:
        candidates.append((SKILLS, root))
    for kind, path in candidates:
        if not os.path.lexists(path):
            continue
        trace = Trace(kind, str(path))
        (found.ignored if ours.only_ours(path) else found.traces).append(trace)
    return found


class _Ours:
    """What agenttools created (the ledger of ``deploy/litter.py``, read here without the
    deploy package: ``clients`` stays light) and where its skill registry is."""

    def __init__(self, created: Collection[str], registry: Path | None) -> None:
        self.created = set(created)
        self.registry = registry

    @classmethod
    def load(cls) -> _Ours:
        try:
            state = paths.state_paths()
            with open(state.created, "rb") as f:
                ledger = json.load(f)["paths"]
        except (AgentToolsError, OSError, ValueError, KeyError, TypeError):
            return cls((), None)
        created = []
        for path, claim in ledger.items():
            inode = claim.get("inode") if isinstance(claim, Mapping) else None
            try:
                if inode is not None and os.lstat(path).st_ino != inode:
                    continue  # deleted and made again since: not ours
            except OSError:
                continue
            created.append(os.path.realpath(path))
        return cls(created, state.registry)

    def only_ours(self, path: Path) -> bool:
        """Whether *path* exists only because agenttools created it: it is in the ledger,
        and (a directory) holds nothing but what agenttools created or tracks."""
        real = os.path.realpath(path)
        if real not in self.created:
            return False
        if not os.path.isdir(real) or os.path.islink(path):
            return True
        try:
            with os.scandir(real) as children:
                names = [c.name for c in children]
        except OSError:
            return True
        for name in names:
            child = os.path.join(real, name)
            if name.startswith(TEMP_MARK):
                continue  # a staging or backup directory of an operation
            if child in self.created:
                if not self.only_ours(Path(child)):
                    return False
                continue
            if self._tracked_skill(real, name):
                continue
            return False
        return True

    def _tracked_skill(self, root: str, name: str) -> bool:
        """Whether ``root/name`` is a skill directory the registry tracks."""
        if self.registry is None:
            return False
        return (self.registry / f"{registry_key(root, name)}.json").is_file()


def _shared_roots(clients: Mapping[str, Client]) -> set[str]:
    """User skills roots that several clients write to."""
    roots = [located(partial(skills_location, client)) for client in clients.values()]
    counts = Counter(str(root) for root in roots if root is not None)
    return {root for root, n in counts.items() if n > 1}
