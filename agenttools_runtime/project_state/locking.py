"""``agenttools lock``: a project's ``agenttools.toml`` resolved into an ``agenttools.lock``.

Each ``[[bundle]]`` keeps the version the previous lock pinned while its requirement allows
it (``upgrade`` names the distributions to move to the newest allowed version, or all); a
new or upgraded one gets the newest version the index has. Every deployment's entries and
files are computed from the wheel's manifest, as the deploy will write them, without writing
anything.
"""

from __future__ import annotations

import os
from collections.abc import Collection
from dataclasses import replace
from pathlib import Path

from packaging.utils import canonicalize_name

from agenttools_runtime import clients
from agenttools_runtime.bundles import distribution_bundles
from agenttools_runtime.deploy.resolved import ResolvedTools, resolve
from agenttools_runtime.deploy.target_tools import with_runner
from agenttools_runtime.deploy.targets import DEFAULT, DeployTarget, resolve_target
from agenttools_runtime.discovery import get_distribution
from agenttools_runtime.errors import (
    AgentToolsBundleNameAmbiguous,
    DuplicateProjectConfigKey,
    LockedBundleNotFound,
)
from agenttools_runtime.mcp.entries import build_entry
from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.project_state.lockfile import (
    Lock,
    LockedDeployment,
    LockedDistribution,
    LockedEntry,
    LockedFile,
    entry_digest,
)
from agenttools_runtime.project_state.schema import BundleSpec, ProjectFile
from agenttools_runtime.project_state.sources import Fetched, Sources, entries_from

Upgrade = bool | Collection[str]


def lock_project(
    project: ProjectFile, previous: Lock | None, sources: Sources, *, upgrade: Upgrade = False
) -> Lock:
    """The lock of *project* (see the module docstring). Raises what the index lookups
    raise (no such distribution or version), ``LockedHashMismatch`` (a kept pin whose file
    the index serves changed), ``LockedBundleNotFound``, ``AgentToolsBundleNameAmbiguous``,
    ``DuplicateProjectConfigKey``."""
    distributions: list[LockedDistribution] = []
    deployments: list[LockedDeployment] = []
    for spec in project.bundles:
        fetched = _fetch(spec, previous, sources, upgrade)
        distributions.append(
            LockedDistribution(
                str(spec.requirement),
                fetched.pin,
                fetched.index,
                fetched.dependencies,
                index_kind=fetched.index_kind,
            )
        )
        for bundle in bundle_names(spec, fetched):
            for client in spec.clients:
                deployments.append(_deployment(project.root, spec, fetched, bundle, client))
    _check_keys(deployments)
    return Lock(
        input=project.fingerprint,
        distributions=tuple(distributions),
        deployments=tuple(deployments),
    )


def stale_reason(project: ProjectFile, lock: Lock) -> str | None:
    """Why *lock* is not the lock of *project* now (None: it is)."""
    if lock.input == project.fingerprint:
        return None
    locked = {d.name: d for d in lock.distributions}
    for spec in project.bundles:
        found = locked.pop(spec.distribution, None)
        if found is None:
            return f"{spec.distribution} is not locked"
        if found.requirement != str(spec.requirement):
            return f"the requirement of {spec.distribution} changed"
    if locked:
        return f"{', '.join(sorted(locked))} is locked but no longer listed"
    return "the clients, runners, scopes or index of agenttools.toml changed"


def project_target(root: Path, client: str, scope: str) -> DeployTarget:
    """Where a project's deployment to *client* goes: the project's own files (skills in
    the client's own project folder, so that what is written never depends on what else a
    machine has), or the user's."""
    if scope == "user":
        return resolve_target(client)
    c = clients.get_client(client)
    own = clients.project_skills_location(c, root) if c.project_skills is not None else DEFAULT
    return resolve_target(c, project=root, skills_dir=own)


def bundle_names(spec: BundleSpec, fetched: Fetched) -> list[str]:
    """The bundles of *spec*'s distribution to deploy: those it names, else its only one."""
    dist = get_distribution(spec.distribution, fetched.search)
    known = [b.name for b in distribution_bundles(dist, fetched.search, all_markers=True)]
    if not spec.bundles:
        if len(known) != 1:
            raise AgentToolsBundleNameAmbiguous(
                distribution=dist.display_name, bundles=[f"{dist.name}/{b}" for b in known]
            )
        return known
    for name in spec.bundles:
        if name not in known:
            raise LockedBundleNotFound(
                distribution=spec.distribution,
                version=fetched.pin.version,
                bundle=name,
                known=known,
            )
    return list(spec.bundles)


def resolved_tools(fetched: Fetched, bundle: str) -> ResolvedTools:
    return resolve(f"{fetched.pin.name}/{bundle}", search=fetched.search)


# -- helpers ---------------------------------------------------------------------------------


def _upgrading(upgrade: Upgrade, name: str) -> bool:
    if isinstance(upgrade, bool):
        return upgrade
    return name in {str(canonicalize_name(u)) for u in upgrade}


def _fetch(spec: BundleSpec, previous: Lock | None, sources: Sources, upgrade: Upgrade) -> Fetched:
    kept = None if previous is None else previous.distribution(spec.distribution)
    if (
        kept is not None
        and not _upgrading(upgrade, spec.distribution)
        and spec.requirement.specifier.contains(kept.pin.version, prereleases=True)
    ):
        return sources.exact(
            spec.distribution, kept.pin.version, spec.runner, sha256=kept.pin.sha256
        )
    version = sources.newest(spec.requirement)
    return sources.exact(spec.distribution, version, spec.runner)


def _deployment(
    root: Path, spec: BundleSpec, fetched: Fetched, bundle: str, client: str
) -> LockedDeployment:
    target = project_target(root, client, spec.scope)
    made = LockedDeployment(
        bundle=f"{fetched.pin.name}/{bundle}",
        distribution=fetched.pin.name,
        client=target.client.id,
        scope=spec.scope,
        runner=spec.runner,
    )
    if spec.scope == "user":
        return made  # (machine-local: recorded by each machine's deployment, not here)
    with entries_from(fetched):
        tools, _, _ = with_runner(resolved_tools(fetched, bundle), target, spec.runner)
    base = target.project or root
    entries: list[LockedEntry] = []
    if target.config_file is not None and target.mcp_problem is None:
        for sp in tools.servers:
            entry = build_entry(target.client, sp.server, sp.key)
            entries.append(
                LockedEntry(
                    _relative(target.config_file, base),
                    sp.key,
                    entry_digest(entry),
                    sp.server.qualified_name,
                    _setting_names(sp.server),
                )
            )
    files: list[LockedFile] = []
    if target.skills_root is not None and target.skills_problem is None:
        for source in tools.skills:
            for rel, digest in sorted(source.manifest.items()):
                path = target.skills_root / source.name / rel
                files.append(LockedFile(_relative(path, base), digest))
    entries.sort(key=lambda e: (e.file, e.key))
    files.sort(key=lambda f: f.path)
    return replace(made, entries=tuple(entries), files=tuple(files))


def _check_keys(deployments: list[LockedDeployment]) -> None:
    """Two bundles that write one config key of one file: refused."""
    owners: dict[tuple[str, str], LockedDeployment] = {}
    for d in deployments:
        for e in d.entries:
            first = owners.setdefault((e.file, e.key), d)
            if first.bundle != d.bundle:
                raise DuplicateProjectConfigKey(
                    first=first.bundle, second=d.bundle, key=e.key, file=e.file, client=d.client
                )


def _relative(path: Path, base: Path) -> str:
    return Path(os.path.relpath(path, base)).as_posix()


def _setting_names(server: MCPServer) -> tuple[str, ...]:
    """The names of what a user gives the server (its declared settings: environment
    variables, headers, argument placeholders), never a value; a literal ``env`` is part of
    the entry's digest instead."""
    return tuple(sorted(s.name for s in server.settings))
