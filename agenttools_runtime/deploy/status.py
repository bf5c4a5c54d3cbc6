"""The status of each deployment, from its record, the registry, the installed distribution
and the disk — and the audit behind it (``agenttools deployed``, ``agenttools verify``).

One word per deployment, the first that applies:

``broken``
    the record cannot be read;
``orphaned``
    the distribution is no longer installed in the environment the record names, that
    environment's interpreter is gone (the venv was deleted), or a server's script is gone;
``drifted``
    a deployed skill file or config entry differs from what agenttools wrote (the user or
    another tool changed it), or is gone;
``outdated``
    the installed distribution has another version, or other content (the digests the
    record holds of each server declaration and skill), than was deployed;
``ok``
    none of these.

Each word comes with its *findings*, one per difference: which file, which entry, what it
was and what it is. Every state a deployment is in is listed (a deployment can be drifted and
outdated at once: ``sync`` upgrades it and keeps the user's edit).

What it costs: records are read once; each distinct distribution is looked at once (a stat
and its manifest's digest while its ``.dist-info`` is the one deployed, else one scan of its
environment's path); each distinct config file is parsed once; each skill directory's
registry entry is read, and the directory hashed only when the entry's cached file stats no
longer match (``deep``, for ``verify``, always hashes, and compares config entries with the
entry the record's server would give today when the record does not hold the entry it
wrote). Nothing is written and no lock is taken.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agenttools_runtime import paths
from agenttools_runtime.bundles import BUILTIN_SERVERS, BUILTIN_SKILL_NAMES
from agenttools_runtime.clients import Client, all_clients
from agenttools_runtime.deploy import content, drift, records
from agenttools_runtime.deploy.drift import BROKEN, DRIFTED, OK, ORPHANED, OUTDATED, Finding
from agenttools_runtime.deploy.plan import version_older
from agenttools_runtime.deploy.records import DeploymentRecord, InstalledSkill, ServerEntry
from agenttools_runtime.deploy.targets import USER_SCOPE
from agenttools_runtime.discovery import SearchPath, try_get_distribution
from agenttools_runtime.errors import AgentToolsError, InvalidDeploymentRecord, broken_record_hint
from agenttools_runtime.mcp.entries import build_entry
from agenttools_runtime.mcp.formats import plain
from agenttools_runtime.mcp.install import read_server_entries
from agenttools_runtime.mcp.runners import choose_runner
from agenttools_runtime.mcp.server import Environment
from agenttools_runtime.names import canonical_dist_name
from agenttools_runtime.skill_sources import builtin_skill_source, distribution_skill_source

if TYPE_CHECKING:
    from agenttools_runtime.discovery import InstalledDistribution

# the word shown when several apply: the first of these
PRIORITY = (BROKEN, ORPHANED, DRIFTED, OUTDATED)


@dataclass(slots=True)
class DeploymentStatus:
    """A deployment's findings; ``record`` is None for a broken one (then ``path`` is its
    file). ``installed_version`` is the version of its distribution installed now (None:
    not installed, or not a distribution's bundle)."""

    uuid: str
    record: DeploymentRecord | None
    findings: list[Finding] = field(default_factory=list)
    installed_version: str | None = None
    path: str | None = None

    @property
    def states(self) -> list[str]:
        found = {f.state for f in self.findings}
        return [s for s in PRIORITY if s in found]

    @property
    def status(self) -> str:
        states = self.states
        return states[0] if states else OK

    @property
    def ok(self) -> bool:
        return not self.findings

    def to_json(self) -> dict[str, Any]:
        return {
            "uuid": self.uuid,
            "status": self.status,
            "states": self.states,
            "installed_version": self.installed_version,
            "findings": [f.to_json() for f in self.findings],
            **({"path": self.path} if self.path is not None else {}),
        }


def statuses(
    items: Iterable[DeploymentRecord | InvalidDeploymentRecord],
    *,
    deep: bool = False,
    state: paths.StatePaths | None = None,
) -> list[DeploymentStatus]:
    """The status of each record (an unreadable one, given as its error, is ``broken``).
    *deep*: hash every skill directory and compare config entries in full (``verify``)."""
    checker = _Checker(state or paths.state_paths(), deep)
    found = []
    for item in items:
        if isinstance(item, InvalidDeploymentRecord):
            where = str(item.path)
            # what can be done about it (the same advice as remove's and doctor's)
            hint = broken_record_hint(item.path)
            found.append(
                DeploymentStatus(
                    item.path.parent.name,
                    None,
                    [Finding(BROKEN, "record", f"{item}. {hint}", where)],
                    path=where,
                )
            )
        else:
            found.append(checker.check(item))
    return found


# -- the checks ------------------------------------------------------------------------------


class _Checker:
    """One run's checks, with what several deployments share looked at once."""

    def __init__(self, state: paths.StatePaths, deep: bool) -> None:
        self.state = state
        self.deep = deep
        self._manifests: dict[str, str | None] = {}
        self._dists: dict[tuple[str, tuple[str, ...], str], InstalledDistribution | None] = {}
        self._configs: dict[tuple[str, str], dict[str, Any] | AgentToolsError] = {}
        self._skills: dict[str, list[Finding]] = {}
        self._sources: dict[str, str | None] = {}

    def check(self, record: DeploymentRecord) -> DeploymentStatus:
        result = DeploymentStatus(record.uuid, record)
        self._distribution(record, result)
        for skill in record.installed:
            result.findings.extend(self._skill(skill))
        for server in record.mcp_servers:
            result.findings.extend(self._entry(record, server, result))
        return result

    def _command_gone(self, server: ServerEntry, current: Any) -> list[Finding]:
        """An entry whose command is an absolute path that no longer exists (the server's
        interpreter or script went with its environment)."""
        command = drift.command_path(current)
        if command is None or os.path.exists(command):
            return []
        message = f'the MCP server entry "{server.config_key}" runs {command}, which is gone'
        detail = {"key": server.config_key, "command": command}
        return [Finding(ORPHANED, "server", message, server.config_file, detail)]

    # -- where it came from --------------------------------------------------------------

    def _distribution(self, record: DeploymentRecord, result: DeploymentStatus) -> None:
        at = record.agent_tools
        environment = at.get(content.ENVIRONMENT) or {}
        python = environment.get("python")
        if python and not os.path.exists(python):
            message = f"the interpreter {python} it was deployed from is gone"
            result.findings.append(Finding(ORPHANED, "environment", message, python))
            return
        location = at.get("location")
        if location == "builtin":
            self._builtin(record, result)
            return
        name = at.get("distribution")
        if location != "distribution" or not name:
            return  # an ad hoc bundle: nothing installed to compare with
        deployed_version = at.get("distribution_version")
        dist_info, digest = at.get(content.DIST_INFO), at.get(content.MANIFEST_SHA256)
        if dist_info and digest and self._manifest(dist_info) == digest:
            result.installed_version = deployed_version  # the very files it came from
            dist = self._installed(str(name), environment, dist_info)
            result.findings.extend(self._older_skills(record, dist, str(name), deployed_version))
            if dist is not None and dist.source_root is not None:
                self._compare_items(record, dist, result)  # editable: the files are live
            return
        dist = self._installed(str(name), environment, None)
        if dist is None:
            where = f"the environment of {python}" if python else "this environment"
            message = f'the distribution "{name}" is no longer installed in {where}'
            detail = {"distribution": name, "python": python}
            result.findings.append(Finding(ORPHANED, "distribution", message, detail=detail))
            return
        result.installed_version = dist.version
        if dist.version != deployed_version:
            message = f"{name} {dist.version} is installed, {deployed_version} is deployed"
            detail = {"deployed": deployed_version, "installed": dist.version}
            finding = Finding(OUTDATED, "distribution", message, str(dist.dist_info), detail)
            result.findings.append(finding)
            return
        result.findings.extend(self._older_skills(record, dist, str(name), dist.version))
        self._compare_items(record, dist, result)

    def _compare_items(
        self, record: DeploymentRecord, dist: InstalledDistribution, result: DeploymentStatus
    ) -> None:
        """Same version, other content (a rebuild, an editable install): item by item."""
        for server in record.mcp_servers:
            recorded = server.extra.get(content.DECLARATION)
            short = server.name.rpartition("/")[2]
            try:
                now = content.server_digest(dist.server(short))
            except AgentToolsError:
                now = None
            if recorded is not None and now != recorded:
                message = f'the declaration of the MCP server "{server.name}" changed'
                detail = {"server": server.name}
                result.findings.append(
                    Finding(OUTDATED, "server", message, server.config_file, detail)
                )
        for skill in record.installed:
            recorded = skill.extra.get(content.CONTENT)
            if recorded is None or not skill.identifier or skill.extra.get(content.LINK):
                continue  # (a link shows the live source: never out of date)
            owner, _, short = skill.identifier.rpartition("/")
            if owner != dist.name:
                continue
            now = self._source_digest(dist, short)
            if now is not None and now != recorded:
                message = (
                    f'the skill "{skill.name}" of {dist.name} {dist.version} has other files '
                    "than were deployed"
                )
                result.findings.append(_outdated_skill(skill, message))

    def _older_skills(
        self,
        record: DeploymentRecord,
        dist: InstalledDistribution | None,
        name: str,
        version: str | None,
    ) -> list[Finding]:
        """Skills of the deployed distribution left at an older version with other files
        than that version's (a modified skill that ``sync`` kept): the deployment is not up
        to date with its own version. (A skill whose files did not change between versions
        keeps the version it was first written at: that is no difference.)"""
        found = []
        for skill in record.installed:
            owner, _, short = (skill.identifier or "").rpartition("/")
            if not owner or canonical_dist_name(owner) != canonical_dist_name(name):
                continue
            if skill.extra.get(content.LINK) or not version_older(skill.version, version):
                continue
            recorded = skill.extra.get(content.CONTENT)
            if (
                dist is not None
                and recorded is not None
                and self._source_digest(dist, short) == recorded
            ):
                continue  # the same files at another version
            found.append(
                Finding(
                    OUTDATED,
                    "skill",
                    f'the skill "{skill.name}" is at {skill.version}, not {version} (it was '
                    "kept: modified since agenttools wrote it)",
                    skill.directory,
                    {"skill": skill.name, "deployed": skill.version, "installed": version},
                )
            )
        return found

    def _builtin(self, record: DeploymentRecord, result: DeploymentStatus) -> None:
        for skill in record.installed:
            recorded = skill.extra.get(content.CONTENT)
            if recorded is None or skill.name not in BUILTIN_SKILL_NAMES:
                continue
            try:
                now = content.files_digest(builtin_skill_source(skill.name).manifest)
            except AgentToolsError:
                continue
            if now != recorded:
                message = (
                    f'this agenttools ships another version of the built-in skill "{skill.name}"'
                )
                result.findings.append(_outdated_skill(skill, message))

    def _source_digest(self, dist: InstalledDistribution, name: str) -> str | None:
        key = f"{dist.dist_info}/{name}"
        if key not in self._sources:
            try:
                if dist.source_root is not None:
                    self._sources[key] = content.files_digest(
                        distribution_skill_source(dist, name).manifest
                    )
                else:
                    entry = dist.manifest.skills[name] if dist.manifest is not None else None
                    self._sources[key] = (
                        None if entry is None else content.files_digest(entry.files)
                    )
            except (AgentToolsError, KeyError, OSError):
                self._sources[key] = None
        return self._sources[key]

    def _manifest(self, dist_info: str) -> str | None:
        if dist_info not in self._manifests:
            self._manifests[dist_info] = content.manifest_digest(Path(dist_info))
        return self._manifests[dist_info]

    def _installed(
        self, name: str, environment: Mapping[str, Any], dist_info: str | None
    ) -> InstalledDistribution | None:
        search_paths = tuple(str(p) for p in environment.get("paths") or ())
        if dist_info is not None:  # the deployed .dist-info is still there: look only there
            search_paths = (str(Path(dist_info).parent),)
        key = (name, search_paths, str(environment.get("python") or ""))
        if key not in self._dists:
            search = environment_search(environment, search_paths)
            try:
                self._dists[key] = try_get_distribution(name, search)
            except AgentToolsError:
                self._dists[key] = None
        return self._dists[key]

    # -- what is on disk -----------------------------------------------------------------

    def _skill(self, skill: InstalledSkill) -> list[Finding]:
        key = skill.registry_key
        if key not in self._skills:
            self._skills[key] = drift.skill_findings(self.state, skill, self.deep)
        return self._skills[key]

    def _entry(
        self, record: DeploymentRecord, server: ServerEntry, result: DeploymentStatus
    ) -> list[Finding]:
        client = all_clients().get(record.client)
        if client is None:
            return [Finding(DRIFTED, "config-file", f"unknown client {record.client}")]
        current = self._config(server.config_file, client)
        if isinstance(current, AgentToolsError):
            return [Finding(DRIFTED, "config-file", str(current), server.config_file)]
        key = server.config_key
        if key not in current:
            message = f'the MCP server entry "{key}" is missing from {server.config_file}'
            detail = {"key": key, "change": "missing"}
            return [Finding(DRIFTED, "config-entry", message, server.config_file, detail)]
        found = self._command_gone(server, current[key])
        expected = server.written
        source = "as written"
        if expected is None and self.deep:
            expected = self._entry_today(record, server, client)
            source = "as the record's server would be written today"
        if expected is None:
            return found

        differences = drift.diff(expected, plain(current[key]))
        if not differences:
            return found
        return [
            *found,
            Finding(
                DRIFTED,
                "config-entry",
                f'the MCP server entry "{key}" in {server.config_file} differs from the '
                f"entry {source}: " + "; ".join(d["message"] for d in differences),
                server.config_file,
                {"key": key, "change": "modified", "differences": differences},
            ),
        ]

    def _config(self, config_file: str, client: Client) -> dict[str, Any] | AgentToolsError:
        key = (config_file, client.id)
        if key not in self._configs:
            try:
                self._configs[key] = read_server_entries(Path(config_file), client)
            except AgentToolsError as exc:
                self._configs[key] = exc
        return self._configs[key]

    def _entry_today(
        self, record: DeploymentRecord, server: ServerEntry, client: Client
    ) -> Any | None:
        """The entry the record's server would be written as today (the distribution
        installed now, the runner recorded), for records that do not hold the entry they
        wrote."""
        at = record.agent_tools
        try:
            if at.get("location") == "builtin":
                declared = BUILTIN_SERVERS.get(server.name)
            elif at.get("location") == "distribution" and at.get("distribution"):
                environment = at.get(content.ENVIRONMENT) or {}
                dist = self._installed(str(at["distribution"]), environment, None)
                if dist is None or dist.version != at.get("distribution_version"):
                    return None
                declared = dist.server(server.name.rpartition("/")[2])
            else:
                return None
            if declared is None:
                return None
            project = record.scope not in (USER_SCOPE, None)
            choice = choose_runner(declared, server.runner, project=project)
            return plain(build_entry(client, choice.server, server.config_key))
        except (AgentToolsError, ValueError):
            return None


def _outdated_skill(skill: InstalledSkill, message: str) -> Finding:
    return Finding(OUTDATED, "skill", message, skill.directory, {"skill": skill.name})


def environment_search(
    environment: Mapping[str, Any], search_paths: tuple[str, ...] | None = None
) -> SearchPath:
    """Where discovery looks for what a record's ``environment`` (:mod:`.content`) names:
    *search_paths* (by default the paths it lists, else this interpreter's) with its
    interpreter and scripts (else this interpreter's)."""
    if search_paths is None:
        search_paths = tuple(str(p) for p in environment.get("paths") or ())
    python, scripts = environment.get("python"), environment.get("scripts")
    env = Environment(Path(python), Path(scripts)) if python and scripts else None
    if env is not None and search_paths:  # (the common case: this interpreter not asked)
        return SearchPath(tuple(Path(p) for p in search_paths), env)
    current = SearchPath.current()
    where = tuple(Path(p) for p in search_paths) if search_paths else current.paths
    return SearchPath(where, current.environment if env is None else env)


def load_all(client: str | None = None) -> list[DeploymentRecord | InvalidDeploymentRecord]:
    """Every record (unreadable ones as their error), oldest first; with *client* only that
    client's (unreadable ones are everyone's)."""
    items = list(records.iter_records())
    readable = records.oldest_first(items)
    broken = [r for r in items if isinstance(r, InvalidDeploymentRecord)]
    if client is not None:
        readable = [r for r in readable if r.client == client]
    return [*readable, *broken]
