"""One skill's install decision: the facts about its destination gathered (the registry
entry, what is on disk, hashed or from the entry's stat cache), the decision table of
:mod:`agenttools_runtime.deploy.plan` applied, and the registry entry after the action."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agenttools_runtime import errors, paths
from agenttools_runtime.bundles import BUILTIN_SKILLS_DIR
from agenttools_runtime.deploy import content, plan, records, registry, shared
from agenttools_runtime.deploy.plan import Action, Decision, EntryKind, Level, SkillFacts
from agenttools_runtime.deploy.registry import RegistryEntry
from agenttools_runtime.deploy.shared import OtherCopyPlan
from agenttools_runtime.deploy.store import Store
from agenttools_runtime.errors import FORCE as FORCE_HINT
from agenttools_runtime.errors import AgentToolsError
from agenttools_runtime.skills.hashing import DestinationState, destination_state
from agenttools_runtime.skills.hashing import installed_hashes as hash_installed
from agenttools_runtime.skills.spec import SkillSource

# The errors a decision's conflict tag names, by tag (the shadow's is built apart)
CONFLICT_ERRORS: dict[str, type[AgentToolsError]] = {
    cls.tag: cls
    for cls in (errors.AgentSkillModified, errors.AgentSkillConflict, errors.AgentSkillUpdate)
}


@dataclass(frozen=True, slots=True)
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
    def conflict_path(self) -> Path:
        """Where the skill in the way is: for a shadow, the different skill of the same name
        the client also reads."""
        if self.decision.conflict == plan.SHADOW_RULE.conflict:
            shadows = (o.directory for o in self.others if o.role is plan.CopyRole.SHADOW)
            return next(shadows, self.directory)
        return self.directory

    @property
    def conflict(self) -> AgentToolsError | None:
        tag, name = self.decision.conflict, self.source.name
        if tag is None:
            return None
        if tag == plan.SHADOW_RULE.conflict:
            return errors.AgentSkillShadowed(
                name=name, path=self.conflict_path, client_name=self.client_name, option=FORCE_HINT
            )
        if tag == errors.AgentSkillExists.tag:
            return errors.AgentSkillExists(name=name, path=self.directory, option=FORCE_HINT)
        return CONFLICT_ERRORS[tag](name=name, path=self.directory)  # (KeyError for another)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.source.name,
            "directory": str(self.directory),
            "registry_key": self.key,
            "destination": self.facts.destination.value,
            "action": None if self.decision.action is None else self.decision.action.value,
            "conflict": None if self.conflict is None else self.conflict.to_json(),
            "files": sorted(self.source.manifest) if self.decision.writes else [],
            "other_copies": [o.to_json() for o in self.others],
        }


def skill_plan(
    source: SkillSource,
    root: Path,
    replaced: tuple[str, ...],
    level: Level,
    store: Store,
    *,
    reads: tuple[Path, ...] = (),
    client_name: str = "",
    link: bool = False,
) -> SkillPlan:
    """Gather the facts about one skill's destination and decide (the install decision).

    *reads* are the skills roots the client reads besides *root*: when *root* has nothing
    of the skill's name and one of them has a copy the plan tables say to use
    (:func:`plan.choose_copy`), that copy is the destination; the other copies get their
    roles, and a different skill of the same name blocks the decision below --force.
    *link*: what would be written is a link to the source directory instead (``--link``)."""
    found = shared.other_copies(source, root, reads, replaced, store)
    facts = [f for _directory, f in found]
    own_exists = destination_state(root, source.name) is not DestinationState.MISSING
    used = plan.choose_copy(own_exists, facts)
    destination = root if used is None else found[used][0].parent
    sp = _plan_at(source, destination, replaced, level, store)
    roles = plan.copy_roles(used, facts)
    others = tuple(OtherCopyPlan(d, f, r) for (d, f), r in zip(found, roles, strict=True))
    decision = plan.decide_shadows(sp.decision, roles, level)
    if link and decision.writes:
        decision = replace(decision, action=Action.LINK)  # (what is there goes to a backup)
    return replace(sp, decision=decision, others=others, client_name=client_name)


def _directory_key(store: Store, directory: Path) -> str:
    """``paths.canonical_path_key(directory)``: from its parent's keys, which the store keeps
    for the operation, unless *directory* is a link (two ``realpath`` walks per skill were
    a twentieth of a fresh deploy's own work)."""
    try:
        is_link = stat.S_ISLNK(os.lstat(directory).st_mode)
    except OSError:
        is_link = False  # missing: canonical as its parent is, joined with its name
    if is_link or directory.name in ("", "..") or directory.parent == directory:
        return paths.canonical_path_key(directory)
    return store.root(directory.parent).skill(directory.name).canonical


def _plan_at(
    source: SkillSource,
    root: Path,
    replaced: tuple[str, ...],
    level: Level,
    store: Store,
) -> SkillPlan:
    """The install decision for *source* in *root*."""
    directory = root / source.name
    entry = store.entry_at(root, source.name)
    destination = destination_state(root, source.name)
    same_directory = builtin = False
    if source.directory is not None:
        source_key = _directory_key(store, source.directory)
        # (the destination resolved through every link: a per-skill link to the source too)
        destination_key = _directory_key(store, directory)
        same_directory = _same_or_nested(source_key, destination_key, source.directory, directory)
        builtin = _is_within_key(source_key, store.root(Path(BUILTIN_SKILLS_DIR)).canonical)
    if same_directory and entry is None:
        # the source reached through a per-skill link joins the entry of the physical dir
        entry = store.find_physical_entry(directory)
    key = store.entry_key(root, source.name) if entry is None else entry.key
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
        if quick and plan.decide_install(facts, level).writes:
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


def new_entry(sp: SkillPlan, uid: str) -> RegistryEntry:
    """The registry entry after *sp*'s action, referencing deployment *uid* (every "add
    reference" writes ``kept ∪ {uid}``)."""
    source, entry, action = sp.source, sp.entry, sp.decision.action
    refs = tuple(sp.kept) if uid in sp.kept else (*sp.kept, uid)
    now = records.now_timestamp()
    if entry is None or action in _FRESH_ENTRY:
        extra = {} if entry is None else entry.extra
        if action is Action.LINK:
            assert source.directory is not None
            extra = {**extra, content.LINK: str(source.directory)}
        if _replaces_foreign(sp):  # (--force: the user's, kept for the removal to put back)
            extra = {**extra, registry.REPLACED: registry.replaced_backup_name(sp.key)}
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
            extra=extra,
        )
    if action is Action.ADOPT_BASELINE:  # (the stats cached were of the old baseline)
        return replace(
            entry, hashes=dict(source.manifest), references=refs, timestamp=now, stats={}
        )
    updated = replace(entry, references=refs, timestamp=now)
    if source.directory is not None and entry.extra.get(content.LINK) == str(source.directory):
        # a link shows its live source: it is at the version deployed now
        updated = replace(updated, version=source.version, identifier=source.identifier)
    return registry.with_stats(updated, sp.stats) if sp.stats else updated


def _replaces_foreign(sp: SkillPlan) -> bool:
    """Whether *sp* writes over something that is the user's, which only ``--force``
    replaces: what is not agenttools' (no entry, or one marking it external: a folder, file
    or link of theirs), or a deployed folder the user changed since (theirs again)."""
    action = sp.decision.action
    if action not in (Action.REPLACE, Action.LINK):
        return False
    if sp.facts.destination is DestinationState.MISSING:
        return False
    if sp.facts.entry is EntryKind.OWNED:
        return sp.facts.destination is DestinationState.DIRECTORY and not sp.facts.disk_unmodified
    return sp.facts.entry in (EntryKind.NONE, EntryKind.EXTERNAL)


# the actions after which the entry describes the source anew (what was there is replaced)
_FRESH_ENTRY = (Action.LINK, Action.CREATE, Action.REPLACE, Action.ADOPT_EXTERNAL)


def _same_or_nested(
    source_key: str, destination_key: str, source_dir: Path, destination: Path
) -> bool:
    """True when the source directory is the destination (by canonical keys);
    ``InvalidAgentSkill`` when one contains the other."""
    if source_key == destination_key:
        return True
    if _is_within_key(source_key, destination_key) or _is_within_key(destination_key, source_key):
        raise errors.InvalidAgentSkill(
            reason=f"the source {source_dir} and the destination {destination} contain each other"
        )
    return False


def _is_within_key(key: str, root_key: str) -> bool:
    return key == root_key or key.startswith(root_key.rstrip("/") + "/")
