"""``DeployPlan``: everything one deploy would do (the config entries, each skill's decision,
the deployments it replaces, what it skips, the errors that would stop it), as data, as the
JSON of ``--dry-run --json`` and as the text of ``--dry-run``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agenttools_runtime.deploy import plan
from agenttools_runtime.deploy.plan import Action, Level
from agenttools_runtime.deploy.records import DeploymentRecord
from agenttools_runtime.deploy.resolved import ResolvedTools, ServerPlan
from agenttools_runtime.deploy.skill_decision import SkillPlan
from agenttools_runtime.deploy.targets import DeployTarget
from agenttools_runtime.errors import AgentToolsError, AgentToolsWarning
from agenttools_runtime.mcp.runners import RunnerChoice


@dataclass(slots=True)
class DeployPlan:
    """Everything a deploy would do: the config entries to write, each skill's decision,
    the deployments it replaces, the skills it skips, and the errors that would stop it."""

    uuid: str
    tools: ResolvedTools
    target: DeployTarget
    level: Level
    servers: tuple[ServerPlan, ...]
    skipped: tuple[str, ...]
    skills: list[SkillPlan] = field(default_factory=list)
    replaced: list[DeploymentRecord] = field(default_factory=list)
    not_installed: list[SkillPlan] = field(default_factory=list)
    errors: list[AgentToolsError] = field(default_factory=list)
    warnings: list[AgentToolsWarning] = field(default_factory=list)
    # what each config key holds now (see EXISTING_ENTRY)
    existing_entries: dict[str, str] = field(default_factory=dict)
    # config key -> the runner choice behind its entry (set by deploy(); mcp.runners)
    launches: dict[str, RunnerChoice] = field(default_factory=dict)
    # skills the user modified that are kept as they are (make_plan's keep_modified)
    kept_modified: list[str] = field(default_factory=list)
    # the same tools with the same content are deployed there already: nothing would change
    unchanged: bool = False

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, Any]:
        config, skills = self.target.config_file, self.target.skills_root
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
            "skills_directory": None if skills is None else str(skills),
            "skills": [s.to_json() for s in self.skills],
            "skipped": list(self.skipped),
            "not_installed": [s.source.name for s in self.not_installed],
            "replaces": [r.uuid for r in self.replaced],
            "kept_modified": list(self.kept_modified),
            "unchanged": self.unchanged,
            "errors": [e.to_json() for e in self.errors],
            "warnings": [w.to_json() for w in self.warnings],
        }

    def render(self) -> str:
        """The human-readable plan of ``--dry-run``."""
        t = self.target
        lines = [f'Dry run: deploy "{self.tools.name}" to {t.describe()} (nothing is changed)']
        if self.unchanged:
            uid = self.replaced[0].uuid if self.replaced else ""
            lines.append(f"  already deployed, up to date (deployment {uid}): nothing would change")
            return "\n".join(lines)
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
                what = _describe_decision(sp)
                if sp.source.name in self.kept_modified:
                    what = "keep the directory as the user modified it (--force replaces it)"
                lines.append(f"    {sp.source.name}: {left_out}{what}")
                if sp.directory.parent != t.skills_root:
                    lines.append(
                        f"      (the copy in {sp.directory.parent}, which "
                        f"{t.client.display_name} also reads: nothing is written to its own folder)"
                    )
                if sp.decision.writes:
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
        lines.extend(f"  replaces deployment {r.uuid} ({r.toolset_name})" for r in self.replaced)
        lines.extend(f"  {warning}" for warning in self.warnings)
        lines.extend(f"  would fail: {error}" for error in self.errors)
        return "\n".join(lines)


# what a config key holds before a deploy (dry runs; deploy.ownership.EntryState)
EXISTING_ENTRY = {
    "none": "",
    "deployed": ": replaces the entry of a recorded deployment",
    "modified": ": replaces an entry a recorded deployment wrote and the user changed since "
    "(only with --force; removing the deployment puts it back)",
    "identical": ": already there, identical, not written by agenttools (kept as it is; "
    "removing the deployment leaves it)",
    "foreign": ": replaces an entry agenttools did not write (only with --force; removing "
    "the deployment puts it back)",
}

_ACTION_TEXT = {
    Action.CREATE: "write {files} (new directory)",
    Action.REPLACE: "replace the directory ({files}; the old one is backed up until done)",
    Action.ADD_REFERENCE: "keep the installed directory (identical), add a reference",
    Action.ADOPT_BASELINE: "keep the installed directory (edited to match), add a reference",
    Action.ADOPT_EXTERNAL: "keep the existing directory (identical, not ours: never deleted)",
    Action.KEEP_NEWER: "keep the newer installed version, add a reference",
    Action.LINK: "link to the live source {source} (what is there is backed up until done)",
}


_ROLE_TEXT = {
    plan.CopyRole.LEAVING: "goes with the deployment this one replaces",
    plan.CopyRole.DUPLICATE: "an identical copy: the client finds the skill twice",
    plan.CopyRole.OTHER_VERSION: "another version, another deployment's: the client finds both",
    plan.CopyRole.SHADOW: "a different skill of the same name",
}


def _describe_decision(sp: SkillPlan) -> str:
    if sp.decision.action is None:
        return f"conflict: {sp.conflict}"
    n = len(sp.source.files)
    return _ACTION_TEXT[sp.decision.action].format(
        files=f"{n} file{'' if n == 1 else 's'}", source=sp.source.directory
    )
