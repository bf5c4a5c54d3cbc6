"""The ``local`` provider: the skill directories of every AI client on this machine (project
scope of the current directory first, then user scope)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from agenttools_runtime.clients import (
    Client,
    all_clients,
    project_skill_read_locations,
    skill_read_locations,
)
from agenttools_runtime.errors import AgentToolsError
from agenttools_runtime.skilluri.providers.directory import (
    DirectorySkillProvider,
    SkillFolder,
    skill_folders,
)

LOCAL_PROVIDER = "local"


def local_skill_roots(project_dir: Path | str | None = None) -> list[Path]:
    """The skills roots every client reads: project scope of *project_dir* (default: the
    current directory) first, then user scope; clients in table order, each client's own root
    before the others it reads, shared roots once."""
    project = Path.cwd() if project_dir is None else Path(project_dir)
    roots: list[Path] = []
    seen: set[str] = set()
    clients = list(all_clients().values())
    candidates: list[tuple[Client, bool]] = [
        *((c, True) for c in clients if c.supports_project_skills),
        *((c, False) for c in clients if c.supports_skills),
    ]
    for client, project_scope in candidates:
        try:
            read = (
                project_skill_read_locations(client, project)
                if project_scope
                else skill_read_locations(client)
            )
        except AgentToolsError:  # no location on this OS, no such project directory
            continue
        for root in read:
            key = os.path.normcase(os.path.realpath(root))
            if key not in seen:
                seen.add(key)
                roots.append(root)
    return roots


class LocalSkillProvider(DirectorySkillProvider):
    """``local``: skill folders under the given roots (default: :func:`local_skill_roots`),
    in order; the first folder of a name wins (a different second one is reported)."""

    kind = "local"

    def __init__(
        self,
        roots: Sequence[Path | str] | None = None,
        *,
        project_dir: Path | str | None = None,
        name: str = LOCAL_PROVIDER,
    ) -> None:
        super().__init__(name)
        self.roots = local_skill_roots(project_dir) if roots is None else [Path(r) for r in roots]

    def _scan(self) -> Iterable[tuple[str, SkillFolder]]:
        for root in self.roots:
            yield from skill_folders(root)
