"""The decisions of a deployment, as tables over explicit facts.

Nothing here touches the filesystem: the engine gathers the facts (what is at the skill
destination, what the registry says, what the incoming source is) and these functions say
what to do. The tables transcribe the behaviour spec's "Install decision" and "Release
decision" row by row, first match wins, so a reader can check them against the spec.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import Enum, IntEnum

from agenttools_runtime import errors
from agenttools_runtime.skills.hashing import DestinationState

D = DestinationState


class Level(IntEnum):
    """How much a deploy may overwrite: ``overwrite="none" | "upgrade" | "all"``."""

    NONE = 0
    UPGRADE = 1
    ALL = 2

    @classmethod
    def parse(cls, value: str) -> Level:
        try:
            return _LEVEL_NAMES[value]
        except (KeyError, TypeError):
            raise errors.InvalidOverwriteOption(value=value) from None


_LEVEL_NAMES = {"none": Level.NONE, "upgrade": Level.UPGRADE, "all": Level.ALL}


# -- install decision ------------------------------------------------------------------------


class EntryKind(str, Enum):
    """The registry entry of the destination directory, if any."""

    NONE = "none"  # no entry: the directory (if any) is foreign
    OWNED = "owned"  # a deployment wrote it
    EXTERNAL = "external"  # it existed before any deployment referenced it


class Action(str, Enum):
    """What the apply step does for one skill."""

    CREATE = "create"  # write the source into a missing destination
    REPLACE = "replace"  # move what is there to a backup, then write the source
    ADD_REFERENCE = "reference"  # nothing written; the deployment references the directory
    ADOPT_BASELINE = "adopt"  # nothing written; the on-disk content becomes the baseline
    ADOPT_EXTERNAL = "external"  # nothing written; a new entry marks the directory external
    KEEP_NEWER = "keep-newer"  # nothing written; the installed copy is newer than the source
    LINK = "link"  # a symbolic link to the live source (deploy --link; what was there backed up)


@dataclass(frozen=True, slots=True)
class SkillFacts:
    """Everything the install decision depends on, for one incoming skill source ``S``
    (manifest ``Min``) at destination ``D`` with registry entry ``E``.

    ``disk_unmodified``: D's files equal ``E.hashes`` (owned entries only).
    ``incoming_is_baseline``: ``Min == E.hashes``.
    ``disk_is_incoming``: D's (clean) manifest equals ``Min``.
    ``live_empty``: no deployment other than the ones being replaced references E.
    ``same_identifier``: S and E have the same (non-empty) source identifier.
    ``incoming_older``: same identifier, both versions known, S's version is older.
    ``builtin``: S is a built-in skill (upgrades need no overwrite level).
    ``same_directory``: the source directory *is* the destination.
    """

    destination: DestinationState
    entry: EntryKind = EntryKind.NONE
    disk_unmodified: bool = False
    incoming_is_baseline: bool = False
    disk_is_incoming: bool = False
    live_empty: bool = False
    same_identifier: bool = False
    incoming_older: bool = False
    builtin: bool = False
    same_directory: bool = False


@dataclass(frozen=True, slots=True)
class Rule:
    """One row: when every fact in ``when`` has the given value, take ``action`` if the
    overwrite level is at least ``level``, else fail with the ``conflict`` error tag."""

    when: Mapping[str, object]
    action: Action
    level: Level = Level.NONE
    conflict: str | None = None


def _matches(when: Mapping[str, object], facts: object) -> bool:
    """Whether every fact named in *when* has the value given there (a table row's test)."""
    return all(getattr(facts, name) == value for name, value in when.items())


_DIR = {"destination": D.DIRECTORY}
_OWNED_CLEAN = {**_DIR, "entry": EntryKind.OWNED, "disk_unmodified": True}
_OWNED_DIRTY = {**_DIR, "entry": EntryKind.OWNED, "disk_unmodified": False}

INSTALL_RULES: tuple[Rule, ...] = (
    # The source is the destination: nothing to write. No entry → adopted as external;
    # an entry just gains the reference and keeps its baseline (the user's edits are never
    # adopted as removable, because the source is the only copy).
    Rule({"same_directory": True, "entry": EntryKind.NONE}, Action.ADOPT_EXTERNAL),
    Rule({"same_directory": True}, Action.ADD_REFERENCE),
    Rule({"destination": D.MISSING}, Action.CREATE),
    Rule({"destination": D.DANGLING}, Action.REPLACE, Level.ALL, "AgentSkillExists"),
    Rule({"destination": D.FILE}, Action.REPLACE, Level.ALL, "AgentSkillExists"),
    Rule({"destination": D.LINK}, Action.REPLACE, Level.ALL, "AgentSkillExists"),
    Rule({**_OWNED_CLEAN, "incoming_is_baseline": True}, Action.ADD_REFERENCE),
    # only the deployments being replaced used it: it belongs to the replacement
    Rule({**_OWNED_CLEAN, "live_empty": True}, Action.REPLACE),
    # never downgrade a directory other deployments use
    Rule({**_OWNED_CLEAN, "incoming_older": True}, Action.KEEP_NEWER),
    # built-in skills only change with agenttools itself: upgrading needs no level
    Rule({**_OWNED_CLEAN, "same_identifier": True, "builtin": True}, Action.REPLACE),
    Rule(
        {**_OWNED_CLEAN, "same_identifier": True}, Action.REPLACE, Level.UPGRADE, "AgentSkillUpdate"
    ),
    Rule(_OWNED_CLEAN, Action.REPLACE, Level.ALL, "AgentSkillConflict"),
    Rule({**_OWNED_DIRTY, "disk_is_incoming": True}, Action.ADOPT_BASELINE),
    Rule(_OWNED_DIRTY, Action.REPLACE, Level.ALL, "AgentSkillModified"),
    Rule({**_DIR, "entry": EntryKind.EXTERNAL, "disk_is_incoming": True}, Action.ADD_REFERENCE),
    Rule({**_DIR, "entry": EntryKind.EXTERNAL}, Action.REPLACE, Level.ALL, "AgentSkillExists"),
    # foreign directory (the user's, another tool's, a low-level install): adopt when equal
    Rule({**_DIR, "entry": EntryKind.NONE, "disk_is_incoming": True}, Action.ADOPT_EXTERNAL),
    Rule({**_DIR, "entry": EntryKind.NONE}, Action.REPLACE, Level.ALL, "AgentSkillExists"),
)


@dataclass(frozen=True, slots=True)
class Decision:
    """The outcome for one skill: an ``action`` to take, or the ``conflict`` tag that
    blocks it at this overwrite level."""

    action: Action | None
    conflict: str | None

    @property
    def writes(self) -> bool:
        """Whether the source is written into the destination (a copy, not a link)."""
        return self.action in (Action.CREATE, Action.REPLACE)


def decide_install(facts: SkillFacts, level: Level) -> Decision:
    """Apply :data:`INSTALL_RULES` (first match wins) at overwrite *level*."""
    for rule in INSTALL_RULES:
        if _matches(rule.when, facts):
            if level >= rule.level:
                return Decision(rule.action, None)
            return Decision(None, rule.conflict)
    raise AssertionError(f"no install rule matches {facts}")  # the table is exhaustive


# -- the other skills roots a client reads -----------------------------------------------------
#
# A client may read skills from several roots (Gemini CLI reads ~/.agents/skills and
# ~/.gemini/skills; OpenCode its own, ~/.claude/skills and ~/.agents/skills …). A skill name
# found in one of them besides the root a deployment writes is "another copy". When the
# deployment's own root has nothing of that name, an identical or agenttools-deployed other
# copy is used instead of writing a second one; every other copy the client would see too is
# reported, and a different skill of the same name blocks the deployment below --force.


class CopyKind(str, Enum):
    """Who a copy in another root belongs to, by the registry."""

    OURS = "ours"  # a registry entry agenttools owns: a deployment wrote it
    EXTERNAL = "external"  # a registry entry for a directory that was there before
    FOREIGN = "foreign"  # no entry: the user's, another tool's


@dataclass(frozen=True, slots=True)
class OtherCopy:
    """What is known of a skill directory of the incoming name in another root the client
    reads: ``directory`` it is a real directory (not a link to one); ``identical`` it is a
    clean skill directory holding exactly the incoming files; ``leaving`` it is ours and
    only the deployments this one replaces reference it (it goes with them); ``held`` a
    deployment this one replaces references it (a redeploy keeps using that copy);
    ``same_source`` it is ours, deployed from the same skill source (maybe another version)."""

    kind: CopyKind
    identical: bool
    directory: bool = True
    leaving: bool = False
    held: bool = False
    same_source: bool = False


class CopyRole(str, Enum):
    """What another copy is to the deployment."""

    USED = "used"  # referenced (and decided on) instead of writing into the client's own root
    LEAVING = "leaving"  # released with the deployments this one replaces
    DUPLICATE = "duplicate"  # the same skill, seen by the client in two roots: a warning
    # the same skill at another version, another deployment's (``sync`` brings it up to date):
    # a warning, as nothing of the user's is hidden
    OTHER_VERSION = "other-version"
    SHADOW = "shadow"  # a different skill of the same name: a conflict below --force


# Which other copy a deployment uses when the client's own root has nothing of that name:
# the first row any copy matches, and of those the copy that the deployments this one replaces
# use (so that an identical redeploy is identical whatever copies appeared since), else the
# copy in the root the client reads first.
# Another deployment's copy is decided on exactly as if it were in the own root (shared when
# identical, upgraded with --upgrade, refused when modified); an identical copy agenttools
# did not write is referenced as external (never deleted). A link is never used: writing
# through it would change what it points to.
USE_OTHER_COPY: tuple[Mapping[str, object], ...] = (
    {"kind": CopyKind.OURS, "leaving": False, "directory": True},
    {"kind": CopyKind.EXTERNAL, "identical": True, "directory": True},
    {"kind": CopyKind.FOREIGN, "identical": True, "directory": True},
)

# The role of every other copy but the one used (first match wins).
OTHER_COPY_ROLES: tuple[tuple[Mapping[str, object], CopyRole], ...] = (
    ({"leaving": True}, CopyRole.LEAVING),
    ({"identical": True}, CopyRole.DUPLICATE),
    ({"kind": CopyKind.OURS, "same_source": True}, CopyRole.OTHER_VERSION),
    ({}, CopyRole.SHADOW),
)

# A different skill of the same name that the client also reads: the deployment would hide
# it from the client, or be hidden by it (which one depends on the client). Nothing of it is
# changed either way, so --force deploys anyway (with a warning) instead of replacing it.
SHADOW_RULE = Rule({}, Action.CREATE, Level.ALL, "AgentSkillShadowed")


def choose_copy(own_exists: bool, others: Sequence[OtherCopy]) -> int | None:
    """The index of the other copy the deployment uses (None: the client's own root), given
    whether anything of that name is in the own root and the other copies in the client's
    order of roots."""
    if own_exists:
        return None
    for when in USE_OTHER_COPY:
        matches = [i for i, copy in enumerate(others) if _matches(when, copy)]
        if matches:
            return next((i for i in matches if others[i].held), matches[0])
    return None


def copy_roles(used: int | None, others: Sequence[OtherCopy]) -> tuple[CopyRole, ...]:
    """The role of each other copy (:data:`OTHER_COPY_ROLES`) once *used* is chosen."""
    roles = [next(r for when, r in OTHER_COPY_ROLES if _matches(when, c)) for c in others]
    if used is not None:
        roles[used] = CopyRole.USED
    return tuple(roles)


def decide_shadows(decision: Decision, roles: Sequence[CopyRole], level: Level) -> Decision:
    """The install decision once the other copies are known: a shadowed or shadowing
    different skill blocks it below :data:`SHADOW_RULE`'s level (a conflict it already has
    comes first)."""
    if decision.action is None or CopyRole.SHADOW not in roles or level >= SHADOW_RULE.level:
        return decision
    return Decision(None, SHADOW_RULE.conflict)


# -- release decision ------------------------------------------------------------------------


class ReleaseState(str, Enum):
    """A skill directory at release time, after our reference was dropped."""

    IN_USE = "in-use"  # references remain
    EXTERNAL = "external"
    MISSING = "missing"
    LINK = "link"
    DANGLING = "dangling"
    FILE = "file"
    UNMODIFIED = "unmodified"
    MODIFIED = "modified"
    # unmodified, but the entry is not confirmed as agenttools' (see removal.release)
    UNPROVEN = "unproven"


@dataclass(frozen=True, slots=True)
class ReleaseAction:
    """What to do with the directory and the registry entry; ``warning`` is the tag of the
    warning to issue (None: none)."""

    remove_directory: bool
    delete_entry: bool
    warning: str | None = None


RELEASE_RULES: Mapping[ReleaseState, ReleaseAction] = {
    ReleaseState.IN_USE: ReleaseAction(False, False, "AgentSkillInUse"),
    ReleaseState.EXTERNAL: ReleaseAction(False, True),
    ReleaseState.MISSING: ReleaseAction(False, True),
    ReleaseState.LINK: ReleaseAction(False, True, "AgentSkillNotRemoved"),
    ReleaseState.DANGLING: ReleaseAction(False, True, "AgentSkillReplacedNotRemoved"),
    ReleaseState.FILE: ReleaseAction(False, True, "AgentSkillReplacedNotRemoved"),
    # the entry is deleted only after the directory is gone (see engine)
    ReleaseState.UNMODIFIED: ReleaseAction(True, True),
    ReleaseState.MODIFIED: ReleaseAction(False, True, "AgentSkillNotRemoved"),
    ReleaseState.UNPROVEN: ReleaseAction(False, True, "AgentSkillUnproven"),
}

_DESTINATION_RELEASE = {
    D.MISSING: ReleaseState.MISSING,
    D.LINK: ReleaseState.LINK,
    D.DANGLING: ReleaseState.DANGLING,
    D.FILE: ReleaseState.FILE,
}


def release_state(
    references_remain: bool,
    external: bool,
    destination: DestinationState,
    disk_unmodified: bool,
) -> ReleaseState:
    """Classify a directory for :data:`RELEASE_RULES`, in the spec's order."""
    if references_remain:
        return ReleaseState.IN_USE
    if external:
        return ReleaseState.EXTERNAL
    if destination in _DESTINATION_RELEASE:
        return _DESTINATION_RELEASE[destination]
    return ReleaseState.UNMODIFIED if disk_unmodified else ReleaseState.MODIFIED


# -- versions and conflicts ------------------------------------------------------------------


def version_older(incoming: str | None, installed: str | None) -> bool:
    """True when both versions are known and *incoming* sorts before *installed* in
    numeric dotted-version order (PEP 440 where both parse)."""
    if not incoming or not installed:
        return False
    from packaging.version import InvalidVersion, Version  # (heavy: only to compare versions)

    try:
        return Version(incoming) < Version(installed)
    except InvalidVersion:
        return _dotted(incoming) < _dotted(installed)


def _dotted(version: str) -> tuple[int, ...]:
    digits = ("".join(ch for ch in piece if ch.isdigit()) for piece in version.split("."))
    return tuple(int(d) if d else 0 for d in digits)


@dataclass(frozen=True, slots=True)
class ConflictProbe:
    """What a new deployment would occupy: its toolset, client, location key, and the
    ``(config key, canonical config file key)`` pairs it writes."""

    toolset_type: str
    toolset_name: str
    client: str
    location_key: str
    config_entries: frozenset[tuple[str, str]]

    @property
    def place(self) -> tuple[str, str, str, str]:
        """The toolset (type and name), the client and the location key."""
        return (self.toolset_type, self.toolset_name, self.client, self.location_key)


def conflicts_with(probe: ConflictProbe, other: ConflictProbe) -> bool:
    """The spec's "Conflicts": the same config key in the same canonical file, or the same
    toolset (type and name) deployed to the same client and location key."""
    return bool(probe.config_entries & other.config_entries) or probe.place == other.place
