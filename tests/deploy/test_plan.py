"""The install and release decision tables, checked exhaustively against an independent
transcription of the spec's tables (written as plain if-chains, the way the spec reads)."""

from __future__ import annotations

import itertools

import pytest

from agenttools_runtime.deploy import plan
from agenttools_runtime.deploy.plan import (
    INSTALL_RULES,
    RELEASE_RULES,
    Action,
    EntryKind,
    Level,
    ReleaseState,
    SkillFacts,
    decide_install,
    release_state,
)
from agenttools_runtime.errors import InvalidOverwriteOption
from agenttools_runtime.skills.hashing import DestinationState as D

BOOL_FACTS = (
    "disk_unmodified",
    "incoming_is_baseline",
    "disk_is_incoming",
    "live_empty",
    "same_identifier",
    "incoming_older",
    "builtin",
    "same_directory",
)


def all_facts() -> list[SkillFacts]:
    out = []
    for destination, entry in itertools.product(D, EntryKind):
        for values in itertools.product((False, True), repeat=len(BOOL_FACTS)):
            out.append(SkillFacts(destination, entry, **dict(zip(BOOL_FACTS, values, strict=True))))
    return out


def oracle(f: SkillFacts, level: Level) -> tuple[Action | None, str | None]:
    """The spec's "Install decision" table, transcribed independently."""

    def need(action: Action, required: Level, tag: str) -> tuple[Action | None, str | None]:
        return (action, None) if level >= required else (None, tag)

    if f.same_directory:
        if f.entry is EntryKind.NONE:
            return Action.ADOPT_EXTERNAL, None
        return Action.ADD_REFERENCE, None
    if f.destination is D.MISSING:
        return Action.CREATE, None
    if f.destination in (D.DANGLING, D.FILE, D.LINK):
        return need(Action.REPLACE, Level.ALL, "AgentSkillExists")
    # a directory
    if f.entry is EntryKind.OWNED:
        if f.disk_unmodified:
            if f.incoming_is_baseline:
                return Action.ADD_REFERENCE, None
            if f.live_empty:
                return Action.REPLACE, None
            if f.incoming_older:
                return Action.KEEP_NEWER, None
            if f.same_identifier:
                if f.builtin:
                    return Action.REPLACE, None
                return need(Action.REPLACE, Level.UPGRADE, "AgentSkillUpdate")
            return need(Action.REPLACE, Level.ALL, "AgentSkillConflict")
        if f.disk_is_incoming:
            return Action.ADOPT_BASELINE, None
        return need(Action.REPLACE, Level.ALL, "AgentSkillModified")
    if f.entry is EntryKind.EXTERNAL:
        if f.disk_is_incoming:
            return Action.ADD_REFERENCE, None
        return need(Action.REPLACE, Level.ALL, "AgentSkillExists")
    if f.disk_is_incoming:
        return Action.ADOPT_EXTERNAL, None
    return need(Action.REPLACE, Level.ALL, "AgentSkillExists")


@pytest.mark.parametrize("level", list(Level))
def test_install_table_matches_the_spec_for_every_combination_of_facts(level: Level) -> None:
    facts = all_facts()
    assert len(facts) == len(D) * len(EntryKind) * 2 ** len(BOOL_FACTS)
    for f in facts:
        decision = decide_install(f, level)
        assert (decision.action, decision.conflict) == oracle(f, level), f


def test_every_install_rule_is_reachable() -> None:
    def first_match(f: SkillFacts) -> int:
        rows = enumerate(INSTALL_RULES)
        return next(i for i, r in rows if all(getattr(f, k) == v for k, v in r.when.items()))

    used = {first_match(f) for f in all_facts()}
    assert used == set(range(len(INSTALL_RULES)))


def test_a_conflict_is_always_resolved_at_force_level() -> None:
    for f in all_facts():
        assert decide_install(f, Level.ALL).action is not None


@pytest.mark.parametrize(
    ("facts", "level", "expected"),
    [
        (SkillFacts(D.MISSING), Level.NONE, (Action.CREATE, None)),
        (SkillFacts(D.LINK), Level.UPGRADE, (None, "AgentSkillExists")),
        (SkillFacts(D.LINK), Level.ALL, (Action.REPLACE, None)),
        # upgrade of the same source needs --upgrade, except built-in skills
        (
            SkillFacts(D.DIRECTORY, EntryKind.OWNED, disk_unmodified=True, same_identifier=True),
            Level.NONE,
            (None, "AgentSkillUpdate"),
        ),
        (
            SkillFacts(D.DIRECTORY, EntryKind.OWNED, disk_unmodified=True, same_identifier=True),
            Level.UPGRADE,
            (Action.REPLACE, None),
        ),
        (
            SkillFacts(
                D.DIRECTORY,
                EntryKind.OWNED,
                disk_unmodified=True,
                same_identifier=True,
                builtin=True,
            ),
            Level.NONE,
            (Action.REPLACE, None),
        ),
        # an older source never downgrades, even for built-in skills
        (
            SkillFacts(
                D.DIRECTORY,
                EntryKind.OWNED,
                disk_unmodified=True,
                same_identifier=True,
                incoming_older=True,
                builtin=True,
            ),
            Level.ALL,
            (Action.KEEP_NEWER, None),
        ),
        # a different source needs --force; --upgrade is not enough
        (
            SkillFacts(D.DIRECTORY, EntryKind.OWNED, disk_unmodified=True),
            Level.UPGRADE,
            (None, "AgentSkillConflict"),
        ),
        # modified: --upgrade never clobbers
        (
            SkillFacts(D.DIRECTORY, EntryKind.OWNED),
            Level.UPGRADE,
            (None, "AgentSkillModified"),
        ),
        (
            SkillFacts(D.DIRECTORY, EntryKind.NONE, disk_is_incoming=True),
            Level.NONE,
            (Action.ADOPT_EXTERNAL, None),
        ),
    ],
)
def test_install_rows(facts: SkillFacts, level: Level, expected: tuple[object, object]) -> None:
    decision = decide_install(facts, level)
    assert (decision.action, decision.conflict) == expected


# -- release ---------------------------------------------------------------------------------


def release_oracle(
    refs: bool, external: bool, dest: D, unmodified: bool
) -> tuple[bool, bool, str | None]:
    """The spec's "Release decision", transcribed: (remove dir, delete entry, warning)."""
    if refs:
        return False, False, "AgentSkillInUse"
    if external:
        return False, True, None
    if dest is D.MISSING:
        return False, True, None
    if dest is D.LINK:
        return False, True, "AgentSkillNotRemoved"
    if dest in (D.DANGLING, D.FILE):
        return False, True, "AgentSkillReplacedNotRemoved"
    if unmodified:
        return True, True, None
    return False, True, "AgentSkillNotRemoved"


def test_release_table_matches_the_spec_for_every_combination() -> None:
    for refs, external, dest, unmodified in itertools.product(
        (False, True), (False, True), D, (False, True)
    ):
        action = RELEASE_RULES[release_state(refs, external, dest, unmodified)]
        expected = release_oracle(refs, external, dest, unmodified)
        assert (action.remove_directory, action.delete_entry, action.warning) == expected


def test_every_release_state_has_a_rule() -> None:
    assert set(plan.RELEASE_RULES) == set(ReleaseState)


# -- levels, versions, conflicts ---------------------------------------------------------------


def test_level_parse() -> None:
    assert Level.parse("none") is Level.NONE
    assert Level.parse("upgrade") is Level.UPGRADE
    assert Level.parse("all") is Level.ALL
    with pytest.raises(InvalidOverwriteOption, match="Expected"):
        Level.parse("yes")


@pytest.mark.parametrize(
    ("incoming", "installed", "older"),
    [
        ("1.2.0", "1.10.0", True),
        ("1.10.0", "1.2.0", False),
        ("1.0", "1.0.0", False),
        (None, "1.0", False),
        ("1.0", None, False),
        ("2.0rc1", "2.0", True),
        ("weird.3", "weird.10", True),
    ],
)
def test_version_older(incoming: str | None, installed: str | None, older: bool) -> None:
    assert plan.version_older(incoming, installed) is older


def probe(
    name: str,
    *,
    key: str = "k",
    file: str = "/c.json",
    loc: str = "user",
    ttype: str = "AgentTools",
    client: str = "cursor",
) -> plan.ConflictProbe:
    return plan.ConflictProbe(ttype, name, client, loc, frozenset({(key, file)}))


def test_conflicts() -> None:
    a = probe("a", key="ka")
    # same config key in the same file
    assert plan.conflicts_with(a, probe("b", key="ka"))
    # different key, different bundle: side by side
    assert not plan.conflicts_with(a, probe("b", key="kb"))
    # same toolset, same client and location key
    assert plan.conflicts_with(a, probe("a", key="other", file="/d.json"))
    # same toolset in another location (e.g. another custom config file)
    assert not plan.conflicts_with(a, probe("a", key="ka", file="/d.json", loc="/d.json"))
    # same toolset, other client
    assert not plan.conflicts_with(a, probe("a", key="ka", file="/e.json", client="zed"))
