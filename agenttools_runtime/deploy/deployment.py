"""``Deployment`` objects, ``deployed()`` and removal (the spec's ``AgentToolsDeployment``,
``DeployedAgentTools`` and ``DeleteObject``).

Removal uses only the record: config keys and files, skill registry keys. It never resolves
a bundle or server by name and works after the bundle's distribution was uninstalled.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttools_runtime import errors, signals
from agenttools_runtime.bundles import resolve_tools
from agenttools_runtime.clients import all_clients, get_client
from agenttools_runtime.deploy import records
from agenttools_runtime.deploy.journal import Journal, Kind
from agenttools_runtime.deploy.lock import deployment_lock
from agenttools_runtime.deploy.ownership import EntryOutcome
from agenttools_runtime.deploy.records import DeploymentRecord
from agenttools_runtime.deploy.removal import remove_recorded, sweep_if_needed, warnings_of
from agenttools_runtime.deploy.store import Store
from agenttools_runtime.errors import AgentToolsWarning, broken_record_hint

if TYPE_CHECKING:
    from agenttools_runtime.bundles import AgentTools
    from agenttools_runtime.discovery import SearchPath
    from agenttools_runtime.mcp.runners import RunnerChoice


@dataclass(slots=True)
class Deployment:
    """One deployment: a tracked, reversible unit of MCP config entries and skill
    directories. Properties read the record (the spec's property table, where it has a
    Python meaning); ``warnings`` are those issued when it was created by ``deploy()``."""

    record: DeploymentRecord
    warnings: list[AgentToolsWarning] = field(default_factory=list)
    # config key -> what was written for that server and why (set by deploy(), not recorded)
    launches: dict[str, RunnerChoice] = field(default_factory=dict, compare=False)
    # deploy() found it deployed already, identical: nothing was written (not recorded)
    unchanged: bool = field(default=False, compare=False)

    # -- identity and target ---------------------------------------------------------------
    @property
    def uuid(self) -> str:
        return self.record.uuid

    @property
    def client(self) -> str:
        """The client id (``claude-code``)."""
        return self.record.client

    @property
    def client_name(self) -> str:
        """The client's display name (the id when the client is no longer known)."""
        found = all_clients().get(self.record.client)
        return found.display_name if found else self.record.client

    @property
    def target(self) -> dict[str, Any]:
        """How the target was given: ``{"client", "project", "config", "skills_dir"}``."""
        return dict(self.record.target)

    @property
    def scope(self) -> str | None:
        """``"user"``, the project directory, or None (an explicit config file)."""
        return self.record.scope

    @property
    def location_key(self) -> str:
        return self.record.location_key

    @property
    def timestamp(self) -> str:
        return self.record.timestamp

    # -- what was deployed -----------------------------------------------------------------
    @property
    def toolset(self) -> str:
        """The bundle (or wrapped server) name, qualified (``dist/bundle``)."""
        return self.record.toolset_name

    @property
    def toolset_type(self) -> str:
        """``"AgentTools"`` or ``"MCPServer"`` (a single server wrapped as a bundle)."""
        return self.record.toolset_type

    @property
    def location(self) -> str | None:
        """Where the bundle came from: ``"builtin"``, ``"distribution"`` or None (ad hoc)."""
        value = self.record.agent_tools.get("location")
        return None if value is None else str(value)

    @property
    def distribution(self) -> str | None:
        value = self.record.agent_tools.get("distribution")
        return None if value is None else str(value)

    @property
    def server(self) -> str | None:
        """The primary (first) server's name; None without servers."""
        return self.record.toolset

    @property
    def mcp_server_names(self) -> list[str]:
        return [s.name for s in self.record.mcp_servers]

    @property
    def config_keys(self) -> list[str]:
        return [s.config_key for s in self.record.mcp_servers]

    @property
    def config_file(self) -> Path | None:
        """The primary server's config file (None without servers)."""
        servers = self.record.mcp_servers
        return Path(servers[0].config_file) if servers else None

    @property
    def config_files(self) -> list[Path]:
        return sorted({Path(s.config_file) for s in self.record.mcp_servers})

    @property
    def agent_skills(self) -> list[str]:
        """Names of the skills this deployment references."""
        return [s.name for s in self.record.installed]

    @property
    def skills_directory(self) -> Path | None:
        d = self.record.skills_directory
        return None if d is None else Path(d)

    @property
    def skills(self) -> dict[str, Any]:
        """The recorded skills component: directory, installed, skipped, not_installed."""
        return dict(self.record.to_json()["skills"])

    @property
    def skipped(self) -> list[str]:
        return list(self.record.skipped)

    @property
    def not_installed(self) -> list[str]:
        return list(self.record.not_installed)

    def agent_tools(self, search: SearchPath | None = None) -> AgentTools | None:
        """The deployed bundle resolved by name now (None for ad hoc bundles and ad hoc
        servers, whose names could resolve to something else). Raises the resolution errors
        when it is no longer installed."""
        if self.location is None:
            return None
        return resolve_tools(self.toolset, search)

    # -- actions ---------------------------------------------------------------------------
    def remove(self, *, force: bool = False) -> RemovalResult:
        """Remove this deployment (see :func:`remove_deployment`)."""
        return remove_deployment(self.uuid, force=force)

    def to_json(self) -> dict[str, Any]:
        data = self.record.to_json()
        data["client_name"] = self.client_name
        data["warnings"] = [w.to_json() for w in self.warnings]
        if self.launches:
            data["launches"] = {key: c.to_json() for key, c in self.launches.items()}
        if self.unchanged:
            data["unchanged"] = True
        return data

    def summary(self) -> str:
        """One line for listings."""
        parts = []
        if self.record.mcp_servers:
            parts.append(f"{len(self.record.mcp_servers)} MCP server(s)")
        if self.record.installed:
            parts.append(f"{len(self.record.installed)} skill(s)")
        where = self.scope if self.scope not in (None, "user") else ""
        if self.scope is None and self.config_file is not None:
            where = str(self.config_file)
        what = ", ".join(parts) or "nothing"
        return f"{self.uuid}  {self.client:<16} {self.toolset}  ({what})" + (
            f"  {where}" if where else ""
        )


@dataclass(slots=True)
class RemovalResult:
    """What removing a deployment did; ``warnings`` were issued too. ``entries`` says what
    became of each config entry (removed, restored, kept, absent, shared, failed);
    ``removed`` is False when something could not be removed: the record stays, listing
    what is ``left``, and removing it again finishes the job."""

    uuid: str
    toolset: str
    client: str
    warnings: list[AgentToolsWarning] = field(default_factory=list)
    entries: list[EntryOutcome] = field(default_factory=list)

    @property
    def left(self) -> list[EntryOutcome]:
        return [e for e in self.entries if e.left]

    @property
    def removed(self) -> bool:
        return not self.left

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.removed,
            "removed": self.uuid if self.removed else None,
            "uuid": self.uuid,
            "toolset": self.toolset,
            "client": self.client,
            "mcp_servers": [e.to_json() for e in self.entries],
            "left": [e.to_json() for e in self.left],
            "warnings": [w.to_json() for w in self.warnings],
        }


def deployed(client: str | None = None) -> list[Deployment]:
    """Every recorded deployment, oldest first; with *client* (id, name or alias) only that
    client's. Unreadable records are left out. Raises ``UnknownClient``."""
    client_id = None if client is None else get_client(client).id
    return [
        Deployment(r) for r in records.load_records() if client_id is None or r.client == client_id
    ]


def _find(store: Store, ident: str) -> DeploymentRecord:
    """``find_deployment`` through the index: only the matching record is read."""
    names = _by_prefix(ident, store.index.record_names)
    record = store.record(names[0]) if len(names) == 1 else None
    if record is not None:
        return record
    return find_deployment(ident)  # its errors: not found, ambiguous, unreadable


def _by_prefix(ident: str, uids: Iterable[str]) -> list[str]:
    """The ids of *uids* that are *ident* (a UUID or a prefix of one), else that start with it:
    in any case (UUIDs are case-insensitive on input)."""
    wanted = ident.strip().lower()
    found = [u for u in uids if wanted and u.lower().startswith(wanted)]
    return [u for u in found if u.lower() == wanted] or found


def find_deployment(
    ident: str, candidates: Sequence[DeploymentRecord] | None = None
) -> DeploymentRecord:
    """A record by UUID or unique UUID prefix. Raises ``DeploymentNotFound``,
    ``DeploymentIdAmbiguous``, or ``InvalidDeploymentRecord`` when the only match cannot be
    read."""
    ident = ident.strip()
    pool = records.load_records() if candidates is None else list(candidates)
    ids = _by_prefix(ident, [r.uuid for r in pool])
    matches = [r for r in pool if r.uuid in ids]
    if not matches:
        if candidates is None:
            for item in records.iter_records():
                # a record that exists but cannot be read: say so, rather than "not found"
                if isinstance(item, errors.InvalidDeploymentRecord) and _by_prefix(
                    ident, [item.path.parent.name]
                ):
                    raise item
        raise errors.DeploymentNotFound(id=ident)
    if len(matches) > 1:
        raise errors.DeploymentIdAmbiguous(id=ident, ids=ids)
    return matches[0]


def _removal_recovered(store: Store, ident: str) -> Journal | None:
    """The interrupted removal of the deployment *ident* (a UUID or unique prefix) that
    recovery finished under this lock, if it did."""
    removals = [j for j in store.recovered if j.kind is Kind.REMOVE and j.uuid]
    ids = _by_prefix(ident, [j.uuid for j in removals])
    found = [j for j in removals if j.uuid in ids]
    return found[0] if len(found) == 1 else None


def _broken(exc: errors.InvalidDeploymentRecord) -> errors.BrokenDeploymentRecord:
    hint = broken_record_hint(exc.path)
    return errors.BrokenDeploymentRecord(path=exc.path, reason=exc.reason, hint=hint)


def remove_deployment(ident: str | Deployment, *, force: bool = False) -> RemovalResult:
    """Remove a deployment (by ``Deployment``, UUID or unique prefix), under the lock: sweep
    the registry; take each recorded config key out of its file, except keys another
    deployment records for the same file — by the ownership rules: an entry still as the
    deployment wrote it is deleted, or the user's entry it replaced (``--force``) put back
    byte-for-byte; one the user changed since is kept (``MCPServerEntryModified``) unless
    *force*; an entry that cannot be edited is ``MCPServerNotRemoved`` and keeps the record
    (``RemovalResult.removed`` False); an absent key is fine. Release each skill reference
    (``AgentSkillInUse`` when other deployments still use it, ``AgentSkillNotRemoved``
    when it was modified, external and foreign directories kept); delete the record.
    Raises ``DeploymentNotFound``, ``DeploymentIdAmbiguous``, ``InvalidDeploymentRecord``
    (a record that cannot be read: nothing is removed), ``DeploymentLockTimeout``."""
    uid = ident.uuid if isinstance(ident, Deployment) else ident
    if not records.has_deployments():
        find_deployment(uid, [])  # nothing recorded: fail without creating the state dir
    removed = False
    try:
        with deployment_lock() as store:
            try:
                record = _find(store, uid)
            except errors.InvalidDeploymentRecord as exc:
                raise _broken(exc) from exc
            except errors.DeploymentNotFound:
                finished = _removal_recovered(store, uid)
                if finished is None:
                    raise
                # a removal of it was killed, and the recovery of this lock finished it
                return RemovalResult(finished.uuid, finished.name, finished.client)
            found = sweep_if_needed(store)
            done = remove_recorded(store, record, force=force)  # signals wait for its end
            removed = True
            found.extend(warnings_of(done))
            found.extend(sweep_if_needed(store))
    except KeyboardInterrupt as exc:
        what = "was removed" if removed else "was not removed"
        committed = (record.uuid,) if removed else ()
        raise signals.with_outcome(exc, f"the deployment {uid} {what}", committed) from None
    from agenttools_runtime.envs.refs import release_record  # its managed environment, if last

    found.extend(release_record(record.agent_tools))
    for warning in found:
        warnings.warn(warning, stacklevel=2)
    entries = [o for o in done if isinstance(o, EntryOutcome)]
    return RemovalResult(record.uuid, record.toolset_name, record.client, found, entries)
