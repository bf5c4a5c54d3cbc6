"""Where a deployment goes: the client, its MCP config file, its skills root, the scope.

The spec's "Targets, scope, and partial support":

=========================  ==============================  ===========================  ========
target                     MCP config file                  skills root (default)        scope
=========================  ==============================  ===========================  ========
client                     the client's user config         the client's user root       user
client + ``project=dir``   the client's project config      the client's project root    dir
client + ``config=file``   that file                        only for exact matches:      user /
                                                            the client's user file →     dir /
                                                            user root; a path ending in  unknown
                                                            the client's project config
                                                            path → project root
=========================  ==============================  ===========================  ========

``skills_dir=`` overrides the skills root (a path) or disables skills (None). A component the
target does not support is not an error here: the failure is kept in the target
(``mcp_problem`` / ``skills_problem``) and the deploy decides — warn when something else can
still be deployed, raise when nothing can.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agenttools_runtime import clients, errors, paths
from agenttools_runtime.clients import Client
from agenttools_runtime.errors import (
    AgentToolsError,
    UnknownInstallLocation,
    UnknownSkillsLocation,
    UnsupportedMCPClient,
    UnsupportedMCPClientProject,
    UnsupportedSkillsClient,
    UnsupportedSkillsClientProject,
)


class _Default(enum.Enum):
    TOKEN = "default"

    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT = _Default.TOKEN
"""``skills_dir=DEFAULT``: derive the skills root from the target (the spec's Automatic)."""

SkillsDirOption = Path | str | None | _Default

USER_SCOPE = "user"


@dataclass(frozen=True, slots=True)
class DeployTarget:
    """A resolved target. ``scope`` is ``"user"``, a project directory (as given, absolute),
    or None when unknown (an explicit config file that is no client's own);
    ``location_key`` is what conflict detection compares: ``"user"``, or the canonical key
    of the project directory, or of the config file when the scope is unknown."""

    client: Client
    scope: str | None
    location_key: str
    config_file: Path | None
    skills_root: Path | None
    skills_disabled: bool = False
    project: Path | None = None
    config: Path | None = None
    skills_dir: Path | None = None
    mcp_problem: AgentToolsError | None = None
    skills_problem: AgentToolsError | None = None
    # every skills root the client reads at this scope, ``skills_root`` first (only that one
    # when --skills-dir names the root: then the user chose where the skills go)
    skill_reads: tuple[Path, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The record's ``target``: how the caller named it (``no_skills`` only when skills
        were disabled, so that ``sync`` deploys again the same way)."""
        data: dict[str, Any] = {
            "client": self.client.id,
            "project": None if self.project is None else str(self.project),
            "config": None if self.config is None else str(self.config),
            "skills_dir": None if self.skills_dir is None else str(self.skills_dir),
        }
        if self.skills_disabled:
            data["no_skills"] = True
        return data

    def describe(self) -> str:
        """The client, and where, for messages."""
        if self.config is not None:
            return f"{self.client.display_name} ({self.config})"
        if self.project is not None:
            return f"{self.client.display_name} (project {self.project})"
        return self.client.display_name


def resolve_target(
    client: str | Client,
    *,
    project: Path | str | None = None,
    config: Path | str | None = None,
    skills_dir: SkillsDirOption = DEFAULT,
) -> DeployTarget:
    """Resolve a deploy target. Raises ``UnknownClient``, ``InvalidProjectDirectory`` (a
    project that is not a directory), ``InvalidSkillsDirectory`` (a ``skills_dir`` that is
    itself a skill or a file) or ``InvalidSkillsDirectoryOption``; unsupported components
    become ``mcp_problem`` / ``skills_problem``."""
    c = clients.get_client(client)
    if project is not None and config is not None:
        raise ValueError("project= and config= cannot be combined")
    mcp_problem: AgentToolsError | None = None
    skills_problem: AgentToolsError | None = None
    config_file: Path | None = None
    skills_root: Path | None = None
    project_dir: Path | None = None
    config_path: Path | None = None

    if config is not None:
        config_path = Path(os.path.abspath(os.path.expanduser(os.fspath(config))))
        config_file = config_path
        scope, skills_root, skills_problem = _config_file_scope(c, config_path)
        if scope is not None and scope != USER_SCOPE:
            project_dir = Path(scope)
    elif project is not None:
        project_dir = clients.project_directory(project)
        scope = str(project_dir)
        try:
            config_file = clients.project_mcp_config_location(c, project_dir)
        except UnsupportedMCPClientProject as exc:
            mcp_problem = exc
        try:
            skills_root = clients.project_skills_location(c, project_dir)
        except UnsupportedSkillsClientProject as exc:
            skills_problem = exc
    else:
        scope = USER_SCOPE
        try:
            config_file = clients.mcp_config_location(c)
        except (UnsupportedMCPClient, UnknownInstallLocation) as exc:
            mcp_problem = exc
        try:
            skills_root = clients.skills_location(c)
        except (UnsupportedSkillsClient, UnknownSkillsLocation) as exc:
            skills_problem = exc

    skills_disabled = False
    override: Path | None = None
    if skills_dir is None:
        skills_root, skills_problem, skills_disabled = None, None, True
    elif skills_dir is not DEFAULT:
        if not isinstance(skills_dir, (str, os.PathLike)):
            raise errors.InvalidSkillsDirectoryOption(value=skills_dir)
        override = Path(os.path.abspath(os.path.expanduser(os.fspath(skills_dir))))
        clients.check_skills_root(override)
        skills_root, skills_problem = override, None

    skill_reads: tuple[Path, ...] = ()
    if skills_root is not None:
        skill_reads = (skills_root,)
        if override is None:
            skill_reads = _read_roots(c, scope) or skill_reads
    if scope == USER_SCOPE:
        location_key = USER_SCOPE
    elif scope is not None:
        location_key = paths.canonical_path_key(scope)
    else:
        assert config_file is not None
        location_key = paths.canonical_path_key(config_file)
    return DeployTarget(
        client=c,
        scope=scope,
        location_key=location_key,
        config_file=config_file,
        skills_root=skills_root,
        skills_disabled=skills_disabled,
        project=project_dir,
        config=config_path,
        skills_dir=override,
        mcp_problem=mcp_problem,
        skills_problem=skills_problem,
        skill_reads=skill_reads,
    )


def read_roots_by_client(scope: str) -> dict[str, tuple[Path, ...]]:
    """Every client's skills roots at *scope* (``"user"`` or a project directory), by id
    (clients without skills there are left out)."""
    every = {c.id: _read_roots(c, scope) for c in clients.all_clients().values()}
    return {client: roots for client, roots in every.items() if roots}


def _read_roots(c: Client, scope: str | None) -> tuple[Path, ...]:
    """The skills roots *c* reads at *scope* (the client table's ``skill_reads``)."""
    try:
        if scope == USER_SCOPE:
            return tuple(clients.skill_read_locations(c))
        if scope is not None:
            return tuple(clients.project_skill_read_locations(c, scope))
    except AgentToolsError:
        pass
    return ()


def _config_file_scope(
    c: Client, config_file: Path
) -> tuple[str | None, Path | None, AgentToolsError | None]:
    """Scope and skills root of an explicit config file: exact matches only, never guessed
    from the file's format."""
    key = paths.canonical_path_key(config_file)
    try:
        if paths.canonical_path_key(clients.mcp_config_location(c)) == key:
            try:
                return USER_SCOPE, clients.skills_location(c), None
            except (UnsupportedSkillsClient, UnknownSkillsLocation) as exc:
                return USER_SCOPE, None, exc
    except (UnsupportedMCPClient, UnknownInstallLocation):
        pass
    rel = c.project_mcp_config
    if (
        rel is not None
        and len(config_file.parts) > len(rel)
        and tuple(config_file.parts[-len(rel) :]) == rel
    ):
        project_dir = config_file.parents[len(rel) - 1]
        if c.project_skills is None:
            return (
                str(project_dir),
                None,
                UnsupportedSkillsClientProject(client_name=c.display_name, client=c.id),
            )
        return str(project_dir), project_dir.joinpath(*c.project_skills), None
    return None, None, errors.NoSkillsLocation(target=config_file)
