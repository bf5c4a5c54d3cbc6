"""The low-level ``install_skills`` / ``uninstall_skills``: copy skills into a skills root, or
remove them, with no registry and no reference counting (the user is responsible).

A *target* names the skills root:

- a client (id, CamelCase name or alias, or a :class:`~agenttools_runtime.clients.Client`):
  its user-scope skills root (``skills_location``), or its project-scope root inside
  ``project=`` (``project_skills_location``);
- a ``(client, project_dir)`` tuple: the project-scope root;
- a ``Path`` (``os.PathLike``): that directory, which holds skill folders. It must not be a
  skill directory itself (``InvalidSkillsDirectory``).

``skills_dir=`` overrides the root of any target while keeping the client for messages.
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, overload

from agenttools_runtime.bundles import AgentTools
from agenttools_runtime.clients import (
    Client,
    check_skills_root,
    get_client,
    project_skills_location,
    skills_location,
)
from agenttools_runtime.discovery import get_distribution
from agenttools_runtime.errors import (
    FORCE,
    AgentSkillBackupsLeft,
    AgentSkillExists,
    AgentSkillWriteFailed,
    AgentToolsError,
    AgentToolsErrors,
    DuplicateAgentSkillName,
    InvalidAgentSkill,
    InvalidAgentSkillName,
    InvalidOverwriteOption,
    InvalidSkillsDirectory,
    format_message,
)
from agenttools_runtime.lock import state_lock
from agenttools_runtime.names import (
    SKILL_FILE,
    check_skill_name,
    is_skill_name,
    qualified_skill_reference,
)
from agenttools_runtime.paths import absolute_path
from agenttools_runtime.skill_sources import (
    builtin_skill_source,
    distribution_skill_source,
    skill_sources,
)
from agenttools_runtime.skills import fsops
from agenttools_runtime.skills.hashing import DirectoryState, directory_state
from agenttools_runtime.skills.source import skill_from_directory, to_source
from agenttools_runtime.skills.spec import Skill, SkillSource, SkillSpec

Overwrite = Literal["none", "upgrade", "all"]
OVERWRITE_VALUES: tuple[Overwrite, ...] = ("none", "upgrade", "all")

SkillsTarget = str | Client | os.PathLike[str] | tuple[str | Client, str | os.PathLike[str]]
"""A client, ``(client, project_dir)``, or a skills root path."""


@dataclass(frozen=True)
class SkillsRoot:
    """A resolved target: the skills root directory and the client it belongs to (if any)."""

    path: Path
    client: Client | None = None

    @property
    def client_display_name(self) -> str | None:
        return None if self.client is None else self.client.display_name


@dataclass(frozen=True)
class SkillInstallResult:
    """One installed skill (the spec's ``Success["InstallAgentSkills", …]``).

    ``action`` is ``"created"``, ``"replaced"`` or ``"unchanged"`` (identical content, or the
    source already is the destination).
    """

    name: str
    location: Path
    client: str | None
    client_display_name: str | None
    action: fsops.WriteAction

    @property
    def message(self) -> str:
        if self.client_display_name is None:
            return format_message("InstallAgentSkill", name=self.name)
        return format_message(
            "InstallAgentSkillNamed", name=self.name, client_name=self.client_display_name
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "location": str(self.location),
            "client": self.client,
            "action": self.action,
            "message": self.message,
        }


@dataclass(frozen=True)
class SkillUninstallResult:
    """One uninstall request: ``removed`` is False when no skill was installed at
    ``location`` (the spec's ``Missing["NotInstalled", …]``); nothing was touched then."""

    name: str
    location: Path
    client: str | None
    client_display_name: str | None
    removed: bool

    @property
    def message(self) -> str:
        if not self.removed:
            return format_message("AgentSkillNotInstalledAt", name=self.name, path=self.location)
        if self.client_display_name is None:
            return format_message("UninstallAgentSkill", name=self.name)
        return format_message(
            "UninstallAgentSkillNamed", name=self.name, client_name=self.client_display_name
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "location": str(self.location),
            "client": self.client,
            "removed": self.removed,
            "message": self.message,
        }


# -- install ---------------------------------------------------------------------------------


@overload
def install_skills(
    target: SkillsTarget,
    skills: SkillSpec | SkillSource,
    overwrite: Overwrite = ...,
    *,
    project: Path | str | None = ...,
    skills_dir: Path | str | None = ...,
) -> SkillInstallResult: ...


@overload
def install_skills(
    target: SkillsTarget,
    skills: list[Any] | tuple[Any, ...],
    overwrite: Overwrite = ...,
    *,
    project: Path | str | None = ...,
    skills_dir: Path | str | None = ...,
) -> list[SkillInstallResult]: ...


@overload
def install_skills(
    target: SkillsTarget,
    skills: Any,
    overwrite: Overwrite = ...,
    *,
    project: Path | str | None = ...,
    skills_dir: Path | str | None = ...,
) -> SkillInstallResult | list[SkillInstallResult]: ...


def install_skills(
    target: SkillsTarget,
    skills: Any,
    overwrite: Overwrite = "none",
    *,
    project: Path | str | None = None,
    skills_dir: Path | str | None = None,
) -> SkillInstallResult | list[SkillInstallResult]:
    """Copy skills into the target's skills root.

    *skills* is one skill specification (a skill directory, :class:`Skill`, inline mapping,
    or :class:`SkillSource`) — then one result is returned — or a list of them, or a bundle
    (an ``AgentTools``, or an object with ``skill_sources()``) — then a list.

    *overwrite*: ``"none"`` fails with ``AgentSkillExists`` when any entry of the same name
    holds different content (checked for every skill before anything is written);
    ``"upgrade"`` and ``"all"`` replace such entries. Identical content is a no-op success
    for every value. If writing a later skill fails, the skills this call already wrote are
    rolled back (replaced entries restored) and the error raised.

    Raises ``InvalidOverwriteOption``, the target errors (``UnknownClient``,
    ``UnsupportedSkillsClient``, ``UnknownSkillsLocation``, ``UnsupportedSkillsClientProject``,
    ``InvalidProjectDirectory``, ``InvalidSkillsDirectory``), the skill specification errors
    of :func:`~agenttools_runtime.skills.source.to_source`, ``DuplicateAgentSkillName``,
    ``AgentSkillExists`` (several at once as ``AgentToolsErrors``), ``InvalidAgentSkill``
    (source and destination contain each other) and ``AgentSkillWriteFailed``.
    """
    if overwrite not in OVERWRITE_VALUES:
        raise InvalidOverwriteOption(value=overwrite)
    single, specs = _split_specs(skills)
    root = resolve_skills_root(target, project=project, skills_dir=skills_dir)
    # the slow part (reading and hashing every source) before the lock
    sources = [_to_source(spec) for spec in specs]
    _check_duplicates(source.name for source in sources)
    with state_lock():
        warn_stale_backups(root.path)
        fsops.remove_stale_staging(root.path)
        plan = _preflight(root.path, sources, overwrite)
        results = _apply(root, plan)
    return results[0] if single else results


@dataclass(frozen=True)
class _Step:
    source: SkillSource
    write: bool  # False: identical content or the source is the destination


def _preflight(root: Path, sources: Sequence[SkillSource], overwrite: Overwrite) -> list[_Step]:
    """Classify every destination before anything is written."""
    steps: list[_Step] = []
    conflicts: list[AgentToolsError] = []
    for source in sources:
        fsops.check_file_paths(source)
        path = root / source.name
        if fsops.same_as_source(path, source):  # the source is the destination: unmodified
            state = DirectoryState.UNMODIFIED
        else:
            state = directory_state(path, source.manifest)
        if state is DirectoryState.MODIFIED and overwrite == "none":
            conflicts.append(AgentSkillExists(name=source.name, path=path, option=FORCE))
        else:
            steps.append(_Step(source, write=state is not DirectoryState.UNMODIFIED))
    if len(conflicts) == 1:
        raise conflicts[0]
    if conflicts:
        raise AgentToolsErrors(conflicts)
    return steps


def _apply(root: SkillsRoot, steps: Sequence[_Step]) -> list[SkillInstallResult]:
    created_dirs: list[Path] = []
    outcomes: list[fsops.WriteOutcome] = []
    actions: list[fsops.WriteAction] = []
    writes = [step for step in steps if step.write]
    if writes:
        try:
            created_dirs = fsops.ensure_root(root.path)
        except OSError as exc:
            name = writes[0].source.name
            raise AgentSkillWriteFailed(
                name=name, path=root.path / name, reason=exc.strerror or str(exc)
            ) from exc
    try:
        for step in steps:
            if step.write:
                outcome = fsops.write_skill(root.path, step.source)
                outcomes.append(outcome)
                actions.append(outcome.action)
            else:
                actions.append("unchanged")
    except BaseException:
        _roll_back(outcomes)
        with contextlib.suppress(OSError):
            fsops.remove_created_dirs(created_dirs)
        raise
    for outcome in outcomes:
        outcome.commit()
    return [
        SkillInstallResult(
            name=step.source.name,
            location=root.path / step.source.name,
            client=None if root.client is None else root.client.id,
            client_display_name=root.client_display_name,
            action=action,
        )
        for step, action in zip(steps, actions, strict=True)
    ]


def _roll_back(done: Sequence[fsops.WriteOutcome | fsops.Removal]) -> None:
    """Undo written skills or staged removals, newest first. One undo failing does not stop
    the others (its backup then stays next to the root, where the user can find it)."""
    for step in reversed(done):
        try:
            step.rollback()
        except OSError:
            continue


# -- uninstall -------------------------------------------------------------------------------


@overload
def uninstall_skills(
    target: SkillsTarget,
    names: str | Skill | SkillSource | os.PathLike[str] | Mapping[str, Any],
    *,
    project: Path | str | None = ...,
    skills_dir: Path | str | None = ...,
) -> SkillUninstallResult: ...


@overload
def uninstall_skills(
    target: SkillsTarget,
    names: list[Any] | tuple[Any, ...],
    *,
    project: Path | str | None = ...,
    skills_dir: Path | str | None = ...,
) -> list[SkillUninstallResult]: ...


@overload
def uninstall_skills(
    target: SkillsTarget,
    names: Any,
    *,
    project: Path | str | None = ...,
    skills_dir: Path | str | None = ...,
) -> SkillUninstallResult | list[SkillUninstallResult]: ...


def uninstall_skills(
    target: SkillsTarget,
    names: Any,
    *,
    project: Path | str | None = None,
    skills_dir: Path | str | None = None,
) -> SkillUninstallResult | list[SkillUninstallResult]:
    """Remove skills from the target's skills root, whether or not they were modified.

    *names* is a skill name, or anything that has one (a :class:`Skill`, a skill directory
    ``Path``, an inline mapping, a qualified ``"dist/skill"`` name — its item name is used),
    a list of those (then a list of results), or a bundle (an object with ``skill_names``).
    A ``str`` that is a skill directory names that directory's skill even when it also looks
    like a name, as for :func:`install_skills`, so the same argument undoes the install.
    Every name is validated before any path is built (``InvalidAgentSkillName``), so the
    root itself or anything outside it can never be removed.

    ``root/name`` is removed only when it is a directory holding ``SKILL.md`` or a link to
    one; a link is removed as a link (its target untouched). Anything else — nothing, a
    file, a dangling link, a directory without ``SKILL.md`` — is left alone and reported
    with ``removed=False``. Every removal is staged first; if one fails, the others are put
    back and ``AgentSkillRemoveFailed`` is raised. There is no "all skills" form: skills
    roots are shared with skills from other sources.
    """
    single, items = _split_names(names)
    root = resolve_skills_root(target, project=project, skills_dir=skills_dir)
    resolved = [_name_of(item) for item in items]
    with state_lock():
        warn_stale_backups(root.path)
        removed = _remove_all(root.path, resolved)
    results = [
        SkillUninstallResult(
            name=name,
            location=root.path / name,
            client=None if root.client is None else root.client.id,
            client_display_name=root.client_display_name,
            removed=was_removed,
        )
        for name, was_removed in zip(resolved, removed, strict=True)
    ]
    return results[0] if single else results


def _remove_all(root: Path, names: Sequence[str]) -> list[bool]:
    """Stage every removal, then commit them all; a failure puts the staged ones back."""
    staged: list[fsops.Removal] = []
    removed: list[bool] = []
    try:
        for name in names:
            # a directory holding SKILL.md, or a link to one (never a file or a dangling link)
            if (root / name / SKILL_FILE).is_file():
                staged.append(fsops.stage_removal(root, name))
                removed.append(True)
            else:
                removed.append(False)
    except BaseException:
        _roll_back(staged)
        raise
    for removal in staged:
        removal.commit()
    return removed


def warn_stale_backups(root: Path) -> None:
    """Warn ``AgentSkillBackupsLeft`` when an interrupted operation left backups of skill
    directories next to (or in) *root*: the user's only way to learn that a skill they had
    is sitting in a hidden directory. Nothing is restored or deleted automatically (whether
    the interrupted operation meant to remove it cannot be known)."""
    found = fsops.stale_backups(root)
    if found:
        warnings.warn(
            AgentSkillBackupsLeft(backups=[str(p) for p in found], root=root),
            stacklevel=3,
        )


# -- targets ---------------------------------------------------------------------------------


def resolve_skills_root(
    target: SkillsTarget,
    *,
    project: Path | str | None = None,
    skills_dir: Path | str | None = None,
) -> SkillsRoot:
    """Resolve a target (see the module docstring) to its skills root.

    Raises the client-table errors for client targets and ``InvalidSkillsDirectory`` when
    the root is a skill directory itself (holds ``SKILL.md``) or exists but is not a
    directory.
    """
    client: Client | None = None
    root: Path | None = None
    if isinstance(target, tuple):
        if len(target) != 2:
            raise InvalidSkillsDirectory(path=repr(target))
        if project is not None:
            raise InvalidSkillsDirectory(
                path=f"{target!r} (a project is given both in the target and as project=)"
            )
        client = get_client(target[0])
        project = Path(target[1])
    elif isinstance(target, os.PathLike):
        if project is not None:
            raise InvalidSkillsDirectory(
                path=f"{os.fspath(target)} (a path target takes no project)"
            )
        root = Path(os.fspath(target))
    elif isinstance(target, (str, Client)):
        client = get_client(target)
    else:
        raise InvalidSkillsDirectory(path=repr(target))

    if skills_dir is not None:
        root = Path(skills_dir)
    elif client is not None and project is not None:
        root = project_skills_location(client, Path(project))
    elif client is not None:
        root = skills_location(client)
    assert root is not None
    root = absolute_path(root)
    check_skills_root(root)
    return SkillsRoot(root, client)


# -- specs and names -------------------------------------------------------------------------


def _split_specs(skills: Any) -> tuple[bool, list[Any]]:
    """``(single, specs)``: a bundle or list gives many, anything else one."""
    # bundles (``AgentTools`` and look-alikes): their resolved sources
    if isinstance(skills, AgentTools):
        return False, skill_sources(skills)
    sources_of = getattr(skills, "skill_sources", None)
    if callable(sources_of):
        return False, list(sources_of())
    if isinstance(skills, (list, tuple)):
        return False, list(skills)
    return True, [skills]


def _is_skill_directory(text: str) -> bool:
    """Whether a ``str`` argument is a skill directory (or its ``SKILL.md``): then it is one
    for install and uninstall alike, whatever name it also looks like."""
    path = os.path.expanduser(text)
    return os.path.isfile(os.path.join(path, SKILL_FILE)) or (
        os.path.basename(path) == SKILL_FILE and os.path.isfile(path)
    )


def _to_source(spec: Any) -> SkillSource:
    """Normalize one install spec. A ``str`` is a skill directory when it is one; otherwise a
    bare valid name is a built-in skill and a non-existing ``dist/skill`` a distribution's."""
    if isinstance(spec, str) and not _is_skill_directory(spec):
        path = os.path.expanduser(spec)
        if is_skill_name(spec) or (qualified_skill_reference(spec) and not os.path.lexists(path)):
            return _resolve_named_skill(spec)
    return to_source(spec)


def _resolve_named_skill(spec: str) -> SkillSource:
    """``"dist/skill"``: a skill of an installed distribution of this environment; a bare
    name: a built-in skill (``AgentSkillNotFound`` for others)."""
    if "/" in spec:
        dist_name, _, item = spec.rpartition("/")
        return distribution_skill_source(get_distribution(dist_name), check_skill_name(item))
    return builtin_skill_source(spec)


def _check_duplicates(names: Iterable[str]) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise DuplicateAgentSkillName(name=name)
        seen.add(name)


def _split_names(names: Any) -> tuple[bool, list[Any]]:
    skill_names = getattr(names, "skill_names", None)
    if skill_names is not None and not isinstance(names, (str, Mapping)):
        return False, list(skill_names)
    if isinstance(names, (list, tuple)):
        return False, list(names)
    return True, [names]


def _name_of(item: Any) -> str:
    """The skill name an uninstall request refers to, validated before any path is built."""
    if isinstance(item, (Skill, SkillSource)):
        return check_skill_name(item.name)
    if isinstance(item, Mapping):
        return check_skill_name(item.get("name"))
    if isinstance(item, os.PathLike):
        return check_skill_name(skill_from_directory(item).name)
    if isinstance(item, str):
        # a skill directory first, as install_skills reads the same argument
        if _is_skill_directory(item):
            return check_skill_name(skill_from_directory(item).name)
        if is_skill_name(item):
            return item
        if qualified_skill_reference(item):
            return check_skill_name(item.rpartition("/")[2])
        raise InvalidAgentSkillName(name=item)
    raise InvalidAgentSkill(reason=repr(item))
