"""The deploy algorithm (the spec's "DeployAgentTools" → "Algorithm").

Before the lock: resolve the tools to a bundle, resolve and hash every server and skill,
compute config keys, resolve the target. Under the lock (which first finishes or rolls back
whatever an interrupted process left): sweep the registry when the state changed behind our
back, find conflicting deployments through the state index, compute every skill's install
decision (preflight: nothing is written if any unforced conflict remains), then hand the
decided changes to :mod:`agenttools_runtime.deploy.apply`, which journals, applies, commits
(publishes the record) and removes the deployments this one replaces without deleting what
it now owns. A redeploy that would change nothing but the record's timestamp changes
nothing (``--upgrade`` over an identical deployment keeps its id and writes at most its
record).

Named points (:func:`agenttools_runtime.fs.checkpoint`) where tests may pause or fail:
``deploy:locked``, ``deploy:swept``, ``deploy:planned``, ``deploy:journal-written``,
``deploy:mcp-written``, ``deploy:skills-written``, ``deploy:entry-written`` (after each
registry entry), ``deploy:registry-written``, ``deploy:record-written``,
``remove:journal-written`` (each replaced deployment), ``deploy:replaced-removed``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agenttools_runtime import fs, paths, signals
from agenttools_runtime.deploy import apply, plan, records, registry, shared
from agenttools_runtime.deploy.lock import deployment_lock
from agenttools_runtime.deploy.plan import Action, Decision, EntryKind, Level, SkillFacts
from agenttools_runtime.deploy.records import DeploymentRecord, InstalledSkill, ServerEntry
from agenttools_runtime.deploy.registry import RegistryEntry
from agenttools_runtime.deploy.removal import sweep_if_needed
from agenttools_runtime.deploy.shared import OtherCopyPlan
from agenttools_runtime.deploy.store import Store
from agenttools_runtime.deploy.targets import DeployTarget
from agenttools_runtime.errors import FORCE as FORCE_HINT
from agenttools_runtime.errors import (
    AgentSkillBackupsLeft,
    AgentSkillConflict,
    AgentSkillDuplicate,
    AgentSkillExists,
    AgentSkillModified,
    AgentSkillNewerVersionKept,
    AgentSkillNotInstalled,
    AgentSkillNotInstalledShadowed,
    AgentSkillsDisabled,
    AgentSkillSeenTwice,
    AgentSkillShadowed,
    AgentSkillShadowedWarning,
    AgentSkillsNotDeployed,
    AgentSkillUpdate,
    AgentToolsEmpty,
    AgentToolsError,
    AgentToolsErrors,
    AgentToolsNothingToDeploy,
    AgentToolsWarning,
    DeploymentConfigKeyTaken,
    DeploymentExists,
    DuplicateAgentSkillName,
    DuplicateBundleConfigKey,
    InvalidAgentSkill,
    InvalidMCPServerNameOption,
    MCPServerEntryReplaced,
    MCPServersNotDeployed,
    NoSkillsLocation,
    UnsupportedMCPClient,
)
from agenttools_runtime.mcp.server import MCPServer
from agenttools_runtime.skills.hashing import DestinationState, destination_state
from agenttools_runtime.skills.hashing import installed_hashes as hash_installed
from agenttools_runtime.skills.source import SkillSource

CONFLICT_ERRORS: Mapping[str, type[AgentToolsError]] = {
    "AgentSkillExists": AgentSkillExists,
    "AgentSkillModified": AgentSkillModified,
    "AgentSkillConflict": AgentSkillConflict,
    "AgentSkillUpdate": AgentSkillUpdate,
}


# -- resolved inputs (before the lock) -------------------------------------------------------


@dataclass(frozen=True)
class ServerPlan:
    """One server of the bundle and the config key it is written under."""

    server: MCPServer
    key: str
    runner: str | None = None  # how a module/script server's command is written (mcp.runners)


@dataclass(frozen=True)
class ResolvedTools:
    """A bundle with every server resolved and every skill hashed: all the slow work,
    done before the lock. ``skill_names`` are the bundle's skill names as stored (what a
    record lists under ``skipped``)."""

    name: str
    toolset_type: str
    builtin: bool
    agent_tools: Mapping[str, Any]
    servers: tuple[ServerPlan, ...]
    skills: tuple[SkillSource, ...]
    skill_names: tuple[str, ...]

    @property
    def has_servers(self) -> bool:
        return bool(self.servers)

    @property
    def has_skills(self) -> bool:
        return bool(self.skill_names)


def resolve(
    tools: Any,
    *,
    search: Any = None,
    mcp_server_name: str | None = None,
    skills_disabled: bool = False,
) -> ResolvedTools:
    """Resolve *tools* (a name, ``AgentTools``, ``MCPServer``, mapping, or None for the
    built-in bundle). Raises the resolution errors, ``AgentToolsEmpty``,
    ``AgentSkillsDisabled`` (skills only, skills disabled), ``InvalidMCPServerNameOption``,
    ``DuplicateBundleConfigKey``, ``DuplicateAgentSkillName`` and the skill source errors."""
    from agenttools_runtime.bundles import resolve_tools
    from agenttools_runtime.discovery import InstalledDistribution

    bundle = resolve_tools(tools, search)
    name = bundle.qualified_name
    if not bundle.mcp_servers and not bundle.skills:
        raise AgentToolsEmpty(name=name)
    if not bundle.mcp_servers and skills_disabled:
        raise AgentSkillsDisabled(name=name)
    servers = bundle.servers()
    if mcp_server_name is not None and len(servers) != 1:
        raise InvalidMCPServerNameOption(name=name, count=len(servers))
    server_plans = tuple(ServerPlan(s, mcp_server_name or s.key) for s in servers)
    by_key: dict[str, list[str]] = {}
    for sp in server_plans:
        by_key.setdefault(sp.key, []).append(sp.server.name)
    for key, names in by_key.items():
        if len(names) > 1:
            raise DuplicateBundleConfigKey(servers=names, name=name, key=key)
    sources: tuple[SkillSource, ...] = ()
    if not skills_disabled:
        sources = tuple(bundle.skill_sources())
        seen: set[str] = set()
        for source in sources:
            if source.name in seen:
                raise DuplicateAgentSkillName(name=source.name)
            seen.add(source.name)
    location = bundle.location
    dist = location if isinstance(location, InstalledDistribution) else None
    agent_tools = {
        "type": bundle.toolset_type,
        "name": name,
        "location": "builtin" if bundle.is_builtin else ("distribution" if dist else None),
        "distribution": dist.name if dist else None,
        "distribution_version": dist.version if dist else None,
    }
    return ResolvedTools(
        name=name,
        toolset_type=bundle.toolset_type,
        builtin=bundle.is_builtin,
        agent_tools=agent_tools,
        servers=server_plans,
        skills=sources,
        skill_names=tuple(bundle.skill_names),
    )


# -- the plan --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SkillPlan:
    """One skill's install decision and what it was based on."""

    source: SkillSource
    directory: Path
    key: str
    entry: RegistryEntry | None
    kept: tuple[str, ...]
    facts: SkillFacts
    decision: Decision
    stats: dict[str, list[int]] | None = None  # the directory's stats, to cache in the entry
    # the copies of the skill in the other roots the client reads (see deploy.shared)
    others: tuple[OtherCopyPlan, ...] = ()
    client_name: str = ""

    @property
    def shadows(self) -> list[OtherCopyPlan]:
        """Different skills of the same name the client also reads."""
        return [o for o in self.others if o.role is plan.CopyRole.SHADOW]

    @property
    def conflict_path(self) -> Path:
        """Where the skill in the way is."""
        if self.decision.conflict == plan.SHADOW_RULE.conflict and self.shadows:
            return self.shadows[0].directory
        return self.directory

    @property
    def conflict(self) -> AgentToolsError | None:
        tag = self.decision.conflict
        if tag is None:
            return None
        name = self.source.name
        if tag == plan.SHADOW_RULE.conflict:
            return AgentSkillShadowed(
                name=name,
                path=self.conflict_path,
                client_name=self.client_name,
                option=FORCE_HINT,
            )
        cls = CONFLICT_ERRORS[tag]
        if cls is AgentSkillExists:
            return cls(name=name, path=self.directory, option=FORCE_HINT)
        return cls(name=name, path=self.directory)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.source.name,
            "directory": str(self.directory),
            "registry_key": self.key,
            "destination": self.facts.destination.value,
            "action": None if self.decision.action is None else self.decision.action.value,
            "conflict": None if self.conflict is None else self.conflict.to_json(),
            "files": sorted(self.source.manifest)
            if self.decision.action is not None and self.decision.action.writes
            else [],
            "other_copies": [o.to_json() for o in self.others],
        }


@dataclass
class DeployPlan:
    """Everything a deploy would do: the config entries to write, each skill's decision,
    the deployments it replaces, the skills it skips, and the errors that would stop it."""

    uuid: str
    tools: ResolvedTools
    target: DeployTarget
    level: Level
    servers: tuple[ServerPlan, ...]
    skills: list[SkillPlan]
    skipped: tuple[str, ...]
    replaced: list[DeploymentRecord]
    not_installed: list[SkillPlan] = field(default_factory=list)
    errors: list[AgentToolsError] = field(default_factory=list)
    warnings: list[AgentToolsWarning] = field(default_factory=list)
    # what each config key holds now (see EXISTING_ENTRY)
    existing_entries: dict[str, str] = field(default_factory=dict)
    # config key -> the runner choice behind its entry (set by deploy(); mcp.runners)
    launches: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, Any]:
        config = self.target.config_file
        return {
            "ok": self.ok,
            "dry_run": True,
            "agent_tools": dict(self.tools.agent_tools),
            "client": self.target.client.id,
            "scope": self.target.scope,
            "location_key": self.target.location_key,
            "config_file": None if config is None else str(config),
            "config_file_exists": None if config is None else config.exists(),
            "mcp_servers": [
                {
                    "name": s.server.name,
                    "config_key": s.key,
                    "config_file": str(config),
                    "existing": self.existing_entries.get(s.key),
                }
                for s in self.servers
            ],
            "skills_directory": _str_or_none(self.target.skills_root),
            "skills": [s.to_json() for s in self.skills],
            "skipped": list(self.skipped),
            "not_installed": [s.source.name for s in self.not_installed],
            "replaces": [r.uuid for r in self.replaced],
            "errors": [e.to_json() for e in self.errors],
            "warnings": [w.to_json() for w in self.warnings],
        }

    def render(self) -> str:
        """The human-readable plan of ``--dry-run``."""
        t = self.target
        lines = [f'Dry run: deploy "{self.tools.name}" to {t.describe()} (nothing is changed)']
        if self.servers:
            state = "exists" if t.config_file and t.config_file.exists() else "would be created"
            lines.append(f"  config file {t.config_file} ({state}):")
            for s in self.servers:
                existing = EXISTING_ENTRY.get(self.existing_entries.get(s.key, ""), "")
                lines.append(
                    f'    write entry "{s.key}" (server {s.server.qualified_name}){existing}'
                )
        if self.skills or self.not_installed:
            lines.append(f"  skills root {t.skills_root}:")
            for sp in self.skills + self.not_installed:
                left_out = "left out (the rest is deployed): " if sp in self.not_installed else ""
                lines.append(f"    {sp.source.name}: {left_out}{_describe_decision(sp)}")
                if sp.directory.parent != t.skills_root:
                    lines.append(
                        f"      (the copy in {sp.directory.parent}, which "
                        f"{t.client.display_name} also reads: nothing is written to its own folder)"
                    )
                if sp.decision.action is not None and sp.decision.action.writes:
                    verb = "write" if sp.decision.action is Action.CREATE else "replace with"
                    for rel in sorted(sp.source.files):
                        lines.append(f"      {verb} {sp.directory / rel}")
                for other in sp.others:
                    if other.role is not plan.CopyRole.USED:
                        lines.append(
                            f"      also read: {other.directory} ({_ROLE_TEXT[other.role]})"
                        )
        if self.skipped:
            lines.append(f"  skills not deployed (unsupported here): {', '.join(self.skipped)}")
        for record in self.replaced:
            lines.append(f"  replaces deployment {record.uuid} ({record.toolset_name})")
        for warning in self.warnings:
            lines.append(f"  {warning}")
        for error in self.errors:
            lines.append(f"  would fail: {error}")
        return "\n".join(lines)


# what a config key holds before a deploy (dry runs): nothing, an entry a recorded
# deployment wrote, or an entry agenttools did not write (replaced, and removed with the
# deployment — the behaviour spec's upsert)
EXISTING_ENTRY = {
    "none": "",
    "deployed": ": replaces the entry of a recorded deployment",
    "foreign": ": replaces an existing entry that agenttools did not write",
}

_ACTION_TEXT = {
    Action.CREATE: "write {files} (new directory)",
    Action.REPLACE: "replace the directory ({files}; the old one is backed up until done)",
    Action.ADD_REFERENCE: "keep the installed directory (identical), add a reference",
    Action.ADOPT_BASELINE: "keep the installed directory (edited to match), add a reference",
    Action.ADOPT_EXTERNAL: "keep the existing directory (identical, not ours: never deleted)",
    Action.KEEP_NEWER: "keep the newer installed version, add a reference",
}


_ROLE_TEXT = {
    plan.CopyRole.LEAVING: "goes with the deployment this one replaces",
    plan.CopyRole.DUPLICATE: "an identical copy: the client finds the skill twice",
    plan.CopyRole.SHADOW: "a different skill of the same name",
}


def _describe_decision(sp: SkillPlan) -> str:
    if sp.decision.action is None:
        return f"conflict: {sp.conflict}"
    n = len(sp.source.files)
    return _ACTION_TEXT[sp.decision.action].format(files=f"{n} file{'' if n == 1 else 's'}")


def _str_or_none(path: Path | None) -> str | None:
    return None if path is None else str(path)


# -- the algorithm ---------------------------------------------------------------------------


def check_target(
    tools: ResolvedTools, target: DeployTarget
) -> tuple[bool, bool, list[AgentToolsWarning]]:
    """Which components can be deployed: ``(mcp, skills, warnings)``. Raises the target's
    failure when nothing can (the MCP failure when the bundle has servers, else the skills
    failure, else ``AgentToolsNothingToDeploy``), and ``UnsupportedTransport`` when a server
    cannot be written for this client."""
    deploy_mcp = tools.has_servers and target.config_file is not None
    deploy_skills = tools.has_skills and target.skills_root is not None
    name, client = tools.name, target.client
    if not deploy_mcp and not deploy_skills:
        if tools.has_servers:
            raise target.mcp_problem or UnsupportedMCPClient(
                client_name=client.display_name, client=client.id
            )
        if tools.has_skills and not target.skills_disabled:
            raise target.skills_problem or NoSkillsLocation(target=target.describe())
        raise AgentToolsNothingToDeploy(name=name, target=target.describe(), client=client.id)
    if deploy_mcp:
        # the MCP preflight: every entry can be built for this client (e.g. its transport)
        from agenttools_runtime.mcp.entries import build_entry

        for sp in tools.servers:
            build_entry(client, sp.server, sp.key)
    found: list[AgentToolsWarning] = []
    if tools.has_servers and not deploy_mcp:
        found.append(
            MCPServersNotDeployed(name=name, client_name=client.display_name, client=client.id)
        )
    if tools.has_skills and not deploy_skills and not tools.builtin and not target.skills_disabled:
        found.append(
            AgentSkillsNotDeployed(name=name, client_name=client.display_name, client=client.id)
        )
    return deploy_mcp, deploy_skills, found


def make_plan(
    tools: ResolvedTools,
    target: DeployTarget,
    level: Level,
    *,
    dry_run: bool = False,
    store: Store | None = None,
) -> DeployPlan:
    """Compute the plan (read-only). Outside a dry run, blocking errors raise: conflicting
    deployments (``DeploymentExists``) and unforced skill conflicts (one error, or
    ``AgentToolsErrors`` for several); in a dry run they are collected in ``errors``.
    *store* is the locked operation's (a dry run reads the state unlocked)."""
    store = store or Store.open()
    deploy_mcp, deploy_skills, found = check_target(tools, target)
    uid = records.new_uuid()
    servers = tools.servers if deploy_mcp else ()
    skipped = () if deploy_skills else tools.skill_names
    result = DeployPlan(uid, tools, target, level, servers, [], skipped, [], warnings=found)
    probe = plan.ConflictProbe(
        tools.toolset_type,
        tools.name,
        target.client.id,
        target.location_key,
        frozenset(
            (s.key, paths.canonical_path_key(target.config_file))
            for s in servers
            if target.config_file is not None
        ),
    )
    identity = (probe.toolset_type, probe.toolset_name, probe.client, probe.location_key)
    candidates = store.records(store.index.records_for_probe(identity, probe.config_entries))
    by_id = {r.uuid: r for r in candidates}
    conflicting = plan.find_conflicts(probe, ((r.uuid, conflict_probe(r)) for r in candidates))
    if conflicting and level is Level.NONE:
        result.errors.append(_conflict_error(probe, by_id[conflicting[0]], tools, target))
        if not dry_run:
            raise result.errors[0]
    result.replaced = [by_id[u] for u in conflicting]
    if servers and target.config_file is not None:
        _inspect_config(result, store)
        if result.errors and not dry_run:
            raise result.errors[-1]
    if deploy_skills:
        assert target.skills_root is not None
        replaced_ids = tuple(r.uuid for r in result.replaced)
        reads = target.skill_reads
        name = target.client.display_name
        for source in tools.skills:
            result.skills.append(
                skill_plan(
                    source,
                    target.skills_root,
                    replaced_ids,
                    level,
                    store,
                    reads=reads,
                    client_name=name,
                )
            )
    conflicts = [sp for sp in result.skills if sp.decision.action is None]
    if conflicts and tools.builtin:
        remaining = [sp for sp in result.skills if sp.decision.action is not None]
        if servers or remaining:
            result.not_installed = conflicts
            result.skills = remaining
            conflicts = []
    for sp in conflicts:
        conflict = sp.conflict
        assert conflict is not None
        result.errors.append(conflict)
    if conflicts and not dry_run:
        errors = [e for e in result.errors]
        raise errors[0] if len(errors) == 1 else AgentToolsErrors(errors)
    for sp in result.not_installed:
        if sp.decision.conflict == plan.SHADOW_RULE.conflict:
            left_out: AgentToolsWarning = AgentSkillNotInstalledShadowed(
                name=sp.source.name, path=sp.conflict_path, client_name=sp.client_name
            )
        else:
            left_out = AgentSkillNotInstalled(name=sp.source.name, path=sp.directory)
        result.warnings.append(left_out)
    result.warnings.extend(_other_copy_warnings(result, store))
    return result


def _other_copy_warnings(result: DeployPlan, store: Store) -> list[AgentToolsWarning]:
    """What the client will see twice: an identical copy in another root it reads, a
    different one deployed over with --force, and, for each new copy, another deployment's
    client that reads its root and has the skill from another one."""
    from agenttools_runtime.clients import get_client
    from agenttools_runtime.deploy.targets import read_roots_by_client

    target = result.target
    found: list[AgentToolsWarning] = []
    behaviour = _duplicates_text(target.client)
    for sp in result.skills:
        for other in sp.others:
            fields = {"name": sp.source.name, "path": other.directory}
            fields.update(client_name=sp.client_name, duplicates=behaviour)
            if other.role is plan.CopyRole.DUPLICATE:
                found.append(AgentSkillDuplicate(**fields))
            elif other.role is plan.CopyRole.SHADOW and sp.decision.action is not None:
                found.append(AgentSkillShadowedWarning(**fields))  # (deployed with --force)
    created = [sp.directory for sp in result.skills if sp.decision.action is Action.CREATE]
    if not created or target.scope is None or target.skills_dir is not None:
        return found
    scope_reads = read_roots_by_client(target.scope)
    for seen in shared.seen_twice(
        created, scope_reads, target.location_key, target.client.id, store
    ):
        client = get_client(seen.client)
        found.append(
            AgentSkillSeenTwice(
                name=seen.name,
                path=seen.path,
                other=seen.other,
                uuid=seen.uuid,
                client_name=client.display_name,
                duplicates=_duplicates_text(client),
            )
        )
    return found


def _duplicates_text(client: Any) -> str:
    reads = client.skill_reads
    if reads is not None and reads.duplicates:
        return f"{client.display_name} {reads.duplicates}"
    return f"which one {client.display_name} uses is up to it"


def _conflict_error(
    probe: plan.ConflictProbe, first: DeploymentRecord, tools: ResolvedTools, target: DeployTarget
) -> DeploymentExists:
    """What the conflict with the recorded deployment *first* is: the same bundle deployed to
    the same place, else a config key both write (named, with the file and the bundle of
    that deployment)."""
    other = conflict_probe(first)
    same_bundle = replace(other, config_entries=frozenset()) == replace(
        probe, config_entries=frozenset()
    )
    shared = frozenset() if same_bundle else probe.config_entries & other.config_entries
    for entry in first.mcp_servers:
        if (entry.config_key, paths.canonical_path_key(entry.config_file)) in shared:
            rename = (
                ", or --name KEY to write it under another key" if len(tools.servers) == 1 else ""
            )
            return DeploymentConfigKeyTaken(
                key=entry.config_key,
                config_file=entry.config_file,
                uuid=first.uuid,
                bundle=first.toolset_name,
                rename=rename,
                client=target.client.id,
            )
    return DeploymentExists(
        name=first.toolset_name, target=target.describe(), uuid=first.uuid, client=target.client.id
    )


def _inspect_config(result: DeployPlan, store: Store) -> None:
    """What each key holds now (an entry no deployment recorded is replaced with a
    ``MCPServerEntryReplaced`` warning), and a config file that cannot be edited (an error
    now, before anything is written)."""
    from agenttools_runtime.mcp.install import read_server_entries

    config_file = result.target.config_file
    assert config_file is not None
    try:
        current = read_server_entries(config_file, result.target.client)
    except AgentToolsError as exc:  # the deploy would fail the same way, changing nothing
        result.errors.append(exc)
        return
    file_key = paths.canonical_path_key(config_file)
    for sp in result.servers:
        if sp.key not in current:
            result.existing_entries[sp.key] = "none"
        elif _recorded(store, sp.key, file_key):
            result.existing_entries[sp.key] = "deployed"
        else:
            result.existing_entries[sp.key] = "foreign"
            result.warnings.append(MCPServerEntryReplaced(key=sp.key, config_file=config_file))


def _recorded(store: Store, key: str, file_key: str) -> bool:
    """Whether a record (confirmed by reading it) holds config entry *key* of that file."""
    for record in store.records(store.index.records_with_config_entry((key, file_key))):
        for s in record.mcp_servers:
            if s.config_key == key and paths.canonical_path_key(s.config_file) == file_key:
                return True
    return False


def skill_plan(
    source: SkillSource,
    root: Path,
    replaced: tuple[str, ...],
    level: Level,
    store: Store | None = None,
    *,
    reads: tuple[Path, ...] = (),
    client_name: str = "",
) -> SkillPlan:
    """Gather the facts about one skill's destination and decide (the install decision).

    *reads* are the skills roots the client reads besides *root*: when *root* has nothing
    of the skill's name and one of them has a copy the plan tables say to use
    (:func:`plan.choose_copy`), that copy is the destination; the other copies get their
    roles, and a different skill of the same name blocks the decision below --force."""
    store = store or Store.open()
    found = shared.other_copies(source, root, reads, replaced, store)
    own_exists = destination_state(root, source.name) is not DestinationState.MISSING
    used = plan.choose_copy(own_exists, [c.facts for c in found])
    destination = root if used is None else found[used].directory.parent
    sp = _plan_at(source, destination, replaced, level, store)
    others = shared.roles(used, found)
    decision = plan.decide_shadows(sp.decision, [o.role for o in others], level)
    return replace(sp, decision=decision, others=tuple(others), client_name=client_name)


def _plan_at(
    source: SkillSource,
    root: Path,
    replaced: tuple[str, ...],
    level: Level,
    store: Store,
) -> SkillPlan:
    """The install decision for *source* in *root*."""
    directory = root / source.name
    root_keys = store.root(root)
    key = paths.registry_key_for(root_keys.canonical, source.name)
    entry = store.find_entry(root, source.name, key)
    destination = destination_state(root, source.name)
    same_directory = builtin = False
    if source.directory is not None:
        source_key = paths.canonical_path_key(source.directory)
        # (the destination resolved through every link: a per-skill link to the source too)
        destination_key = paths.canonical_path_key(directory)
        same_directory = _same_or_nested(source_key, destination_key, source.directory, directory)
        builtin = _is_within_key(source_key, store.root(_builtin_dir()).canonical)
    if same_directory and entry is None:
        # the source reached through a per-skill link joins the entry of the physical dir
        entry = store.find_physical_entry(directory)
    if entry is not None:
        key = entry.key
    kept = store.live_references(entry) if entry is not None else ()
    live = tuple(r for r in kept if r not in replaced)
    kind = EntryKind.NONE
    if entry is not None:
        kind = EntryKind.EXTERNAL if entry.external else EntryKind.OWNED
    same_identifier = bool(
        entry is not None and source.identifier and entry.identifier == source.identifier
    )
    facts = SkillFacts(
        destination=destination,
        entry=kind,
        incoming_is_baseline=entry is not None and dict(source.manifest) == dict(entry.hashes),
        live_empty=not live,
        same_identifier=same_identifier,
        incoming_older=same_identifier
        and entry is not None
        and plan.version_older(source.version, entry.version),
        builtin=builtin,
        same_directory=same_directory,
    )
    stats = None
    if destination is DestinationState.DIRECTORY and not same_directory:
        quick = entry is not None and registry.unmodified_by_stats(entry, directory)
        facts, stats = _disk_facts(facts, source, entry, directory, quick)
        decision = plan.decide_install(facts, level)
        if quick and decision.action is not None and decision.action.writes:
            # about to replace what is there: look at every byte of it first
            facts, stats = _disk_facts(facts, source, entry, directory, False)
    decision = plan.decide_install(facts, level)
    return SkillPlan(source, directory, key, entry, kept, facts, decision, stats)


def _disk_facts(
    facts: SkillFacts,
    source: SkillSource,
    entry: RegistryEntry | None,
    directory: Path,
    quick: bool,
) -> tuple[SkillFacts, dict[str, list[int]] | None]:
    """The facts about the installed directory: from the entry's stat cache (*quick*), or by
    hashing it. Also the stats to cache when hashing found it holding the baseline."""
    if quick:
        assert entry is not None
        disk, clean = dict(entry.hashes), True
    else:
        disk, clean = hash_installed(directory)
    unmodified = entry is not None and clean and disk == dict(entry.hashes)
    stats = registry.file_stats(directory) if unmodified and not quick else None
    return replace(
        facts,
        disk_unmodified=unmodified,
        disk_is_incoming=clean and disk == dict(source.manifest),
    ), stats


def _builtin_dir() -> Path:
    from agenttools_runtime.bundles import BUILTIN_SKILLS_DIR

    return Path(BUILTIN_SKILLS_DIR)


def conflict_probe(record: DeploymentRecord) -> plan.ConflictProbe:
    """A recorded deployment's occupancy, from recorded data only."""
    return plan.ConflictProbe(
        record.toolset_type,
        record.toolset_name,
        record.client,
        record.location_key,
        frozenset(
            (s.config_key, paths.canonical_path_key(s.config_file)) for s in record.mcp_servers
        ),
    )


def execute(
    tools: ResolvedTools, target: DeployTarget, level: Level
) -> tuple[DeploymentRecord, list[AgentToolsWarning]]:
    """Steps 4–8 under the lock. Returns the new record and the warnings to issue (not yet
    issued). Any failure before the record is published rolls everything back."""
    check_target(tools, target)  # a target that can take nothing fails before the lock
    done: list[DeploymentRecord] = []
    try:
        with deployment_lock() as store:
            return _execute_locked(store, tools, target, level, done)
    except KeyboardInterrupt as exc:
        if not done or (isinstance(exc, signals.Interrupted) and exc.outcome):
            raise
        uid = done[0].uuid  # the signal waited for the end of the lock: all was done
        raise signals.Interrupted.from_interrupt(
            exc, f"the deployment {uid} was committed ('agenttools remove {uid}' undoes it)"
        ) from None


def _execute_locked(
    store: Store,
    tools: ResolvedTools,
    target: DeployTarget,
    level: Level,
    done: list[DeploymentRecord],
) -> tuple[DeploymentRecord, list[AgentToolsWarning]]:
    try:
        fs.checkpoint("deploy:locked")
        swept = sweep_if_needed(store)
        fs.checkpoint("deploy:swept")
        the_plan = make_plan(tools, target, level, store=store)
        fs.checkpoint("deploy:planned")
        changes = decide(the_plan, store)
    except KeyboardInterrupt as exc:
        raise signals.Interrupted.from_interrupt(exc, "nothing was deployed") from None
    found = swept + list(the_plan.warnings)
    unchanged = _unchanged(the_plan, changes)
    if unchanged is not None:
        record = _refresh(store, unchanged, changes.record)
    else:
        record = changes.record
        found.extend(apply.run(store, changes))
    done.append(record)
    found.extend(_stale_backup_warnings(the_plan))
    found.extend(_newer_kept_warnings(the_plan))
    return record, found


def decide(the_plan: DeployPlan, store: Store) -> apply.DeployChanges:
    """Everything the plan changes: the config edit (read now, under the lock), the skill
    directories to write, the registry entries after the change, and the record."""
    from agenttools_runtime.mcp.install import plan_server_entries

    target, uid = the_plan.target, the_plan.uuid
    config: apply.ConfigWrite | None = None
    server_entries: list[ServerEntry] = []
    if the_plan.servers:
        config_file = target.config_file
        assert config_file is not None
        servers = tuple((sp.key, sp.server) for sp in the_plan.servers)
        config = apply.ConfigWrite(
            config_file,
            target.client,
            servers,
            plan_server_entries(config_file, target.client, servers),
        )
        server_entries = [
            ServerEntry(sp.server.qualified_name, sp.key, str(config_file), runner=sp.runner)
            for sp in the_plan.servers
        ]
    root = target.skills_root
    writes = tuple(
        apply.SkillWrite(sp.directory.parent, sp.source)
        for sp in the_plan.skills
        if sp.decision.action is not None and sp.decision.action.writes
    )
    entries = tuple(new_entry(sp, uid) for sp in the_plan.skills)
    installed = tuple(
        InstalledSkill(sp.source.name, str(sp.directory), e.key, e.identifier, e.version)
        for sp, e in zip(the_plan.skills, entries, strict=True)
    )
    record = DeploymentRecord(
        uuid=uid,
        client=target.client.id,
        agent_tools=dict(the_plan.tools.agent_tools),
        target=target.to_json(),
        scope=target.scope,
        location_key=target.location_key,
        mcp_servers=tuple(server_entries),
        skills_directory=_str_or_none(root) if the_plan.tools.has_skills else None,
        installed=installed,
        skipped=tuple(the_plan.skipped),
        not_installed=tuple(sp.source.name for sp in the_plan.not_installed),
        timestamp=records.now_timestamp(),
        agenttools_version=_version(),
    )
    return apply.DeployChanges(
        record=record,
        config=config,
        skills_root=root,
        writes=writes,
        entries=entries,
        replaces=tuple(r.uuid for r in the_plan.replaced),
    )


def _unchanged(the_plan: DeployPlan, changes: apply.DeployChanges) -> DeploymentRecord | None:
    """The deployment this one would replace without changing anything, if that is so: one
    replaced deployment of the same tools and target, no config entry to write, no skill
    directory to write, every registry entry already referencing it as it would, and the
    same record but for its id, time and agenttools version."""
    if len(the_plan.replaced) != 1 or changes.writes:
        return None
    old = the_plan.replaced[0]
    if changes.config is not None and changes.config.plan.edit.changes:
        return None
    for sp in the_plan.skills:
        if sp.entry is None or sp.decision.action not in (Action.ADD_REFERENCE, Action.KEEP_NEWER):
            return None
        if old.uuid not in sp.kept or sp.entry.key != sp.key:
            return None
    same = replace(changes.record, uuid=old.uuid, timestamp=old.timestamp)
    ignored = {"agenttools_version"}
    mine = {k: v for k, v in same.to_json().items() if k not in ignored}
    theirs = {k: v for k, v in old.to_json().items() if k not in ignored}
    return old if mine == theirs else None


def _refresh(store: Store, old: DeploymentRecord, new: DeploymentRecord) -> DeploymentRecord:
    """The no-op redeploy: at most the record is rewritten (a newer agenttools version)."""
    if old.agenttools_version == new.agenttools_version:
        return old
    refreshed = replace(old, agenttools_version=new.agenttools_version)
    store.rewrite_record(refreshed)
    return refreshed


def _stale_backup_warnings(the_plan: DeployPlan) -> list[AgentToolsWarning]:
    """Backups an interrupted operation left beside the skills root that no journal accounts
    for (an older agenttools, a killed low-level ``skills install``): possibly the only copy
    of a user's skill, so they are reported (never restored or deleted automatically)."""
    from agenttools_runtime.skills.fsops import stale_backups

    root = the_plan.target.skills_root
    if root is None or not the_plan.skills:
        return []
    left = stale_backups(root)
    if not left:
        return []
    names = [str(p) for p in left]
    return [AgentSkillBackupsLeft(backups=names, root=root)]


def new_entry(sp: SkillPlan, uid: str) -> RegistryEntry:
    """The registry entry after *sp*'s action, referencing deployment *uid* (every "add
    reference" writes ``kept ∪ {uid}``)."""
    action = sp.decision.action
    refs = tuple(sp.kept) if uid in sp.kept else (*sp.kept, uid)
    now = records.now_timestamp()
    source, entry = sp.source, sp.entry
    if entry is None or action in (Action.CREATE, Action.REPLACE, Action.ADOPT_EXTERNAL):
        return RegistryEntry(
            key=sp.key,
            directory=str(sp.directory),
            name=source.name,
            identifier=source.identifier,
            version=source.version,
            hashes=dict(source.manifest),
            external=action is Action.ADOPT_EXTERNAL,
            references=refs,
            timestamp=now,
            extra={} if entry is None else entry.extra,
        )
    if action is Action.ADOPT_BASELINE:  # (the stats cached were of the old baseline)
        return replace(
            entry, hashes=dict(source.manifest), references=refs, timestamp=now, stats={}
        )
    updated = replace(entry, references=refs, timestamp=now)
    return registry.with_stats(updated, sp.stats) if sp.stats else updated


def _newer_kept_warnings(the_plan: DeployPlan) -> list[AgentToolsWarning]:
    found: list[AgentToolsWarning] = []
    for sp in the_plan.skills:
        if sp.decision.action is Action.KEEP_NEWER and sp.entry is not None:
            found.append(
                AgentSkillNewerVersionKept(
                    name=sp.source.name,
                    path=sp.directory,
                    installed_version=sp.entry.version,
                    version=sp.source.version,
                )
            )
    return found


def _same_or_nested(
    source_key: str, destination_key: str, source_dir: Path, destination: Path
) -> bool:
    """True when the source directory is the destination (by canonical keys);
    ``InvalidAgentSkill`` when one contains the other."""
    if source_key == destination_key:
        return True
    if _is_within_key(source_key, destination_key) or _is_within_key(destination_key, source_key):
        raise InvalidAgentSkill(
            reason=f"the source {source_dir} and the destination {destination} contain each other"
        )
    return False


def _is_within_key(key: str, root_key: str) -> bool:
    return key == root_key or key.startswith(root_key.rstrip("/") + "/")


def _version() -> str:
    from agenttools_runtime import __version__

    return __version__
