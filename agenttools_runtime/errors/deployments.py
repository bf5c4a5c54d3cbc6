"""What goes wrong making, finding, changing or recovering a deployment, and the warnings a
deploy, a redeploy or a removal gives about what it skipped, kept or left."""

from __future__ import annotations

from pathlib import Path

from agenttools_runtime.errors.base import FORCE, UPGRADE, AgentToolsError, AgentToolsWarning

__all__ = [
    "AgentSkillConflictWarning",
    "AgentSkillLinkNotEditable",
    "AgentSkillLinksUnsupported",
    "AgentSkillModifiedKept",
    "AgentSkillNotInstalled",
    "AgentSkillNotInstalledShadowed",
    "AgentSkillsDisabled",
    "AgentSkillsNotDeployed",
    "AgentSkillsNotDeployedWarning",
    "AgentSkillsNotInstalledWarning",
    "AgentToolsEmpty",
    "AgentToolsNothingToDeploy",
    "BrokenDeploymentRecord",
    "DeployError",
    "DeploymentConfigKeyTaken",
    "DeploymentDiffers",
    "DeploymentExists",
    "DeploymentIdAmbiguous",
    "DeploymentLockTimeout",
    "DeploymentMayBeUnreadable",
    "DeploymentNotFinished",
    "DeploymentNotFound",
    "DeploymentNotRemoved",
    "DeploymentRollbackIncomplete",
    "DeploymentsExistWarning",
    "DuplicateBundleConfigKey",
    "InterruptedOperationRecovered",
    "InvalidDeploymentRecord",
    "InvalidMCPServerNameOption",
    "InvalidOverwriteOption",
    "InvalidSkillsDirectoryOption",
    "JournalDirectoryUnusable",
    "MCPServersNotDeployed",
    "RunnerUnavailable",
    "StateDirectoryUnusable",
    "StateRecoveryFailed",
]


class DeployError(AgentToolsError):
    """A deployment that cannot be made, found or changed."""


# -- what a deploy is asked ------------------------------------------------------------------
class AgentToolsEmpty(DeployError):
    template = 'The agent tools "{name}" contain no MCP servers or agent skills to deploy.'


class AgentSkillsDisabled(DeployError):
    template = (
        'The agent tools "{name}" contain only agent skills, but --no-skills (skills_dir=None) '
        "disables installing them."
    )


class AgentToolsNothingToDeploy(DeployError):
    template = 'Nothing from the agent tools "{name}" can be deployed to {target}.'


class InvalidMCPServerNameOption(DeployError):
    template = (
        'A server name override can only be used when deploying a single MCP server; "{name}" '
        "has {count} servers."
    )


class DuplicateBundleConfigKey(DeployError):
    template = (
        'The MCP servers {servers} of "{name}" would all be installed with the configuration '
        'key "{key}".'
    )


class InvalidSkillsDirectoryOption(DeployError):
    template = (
        "Invalid value for the skills directory option: {value!r}. Expected None, a path, or "
        "the default."
    )


class InvalidOverwriteOption(DeployError):
    template = 'Invalid overwrite value {value!r}. Expected "none", "upgrade" or "all".'


class RunnerUnavailable(DeployError):
    template = 'The MCP server "{server}" cannot be written with --runner {runner}: {reason}.'


class AgentSkillLinksUnsupported(DeployError):
    template = (
        "{client_name} is known not to follow symbolic links to skill directories ({source}), "
        "so --link cannot deploy to it; deploy without --link (the skills are copied)."
    )


class AgentSkillLinkNotEditable(DeployError):
    template = (
        'The skills of "{name}" cannot be deployed as links: {reason}. --link deploys the '
        "skills of an editable install (pip install -e) as links to their live source."
    )


# -- a deployment already there --------------------------------------------------------------
class DeploymentExists(DeployError):
    template = (
        'The agent tools "{name}" are already deployed to {target} (deployment {uuid}). '
        f"Use {UPGRADE} to replace the deployment."
    )


class DeploymentMayBeUnreadable(DeployError):
    """A deployment record that cannot be read may be this deployment (it names the same
    bundle and client, or holds one of its skills): deploying anyway would make a second
    deployment of the same files."""

    template = (
        "The deployment record {path} cannot be read ({reason}) and may be the deployment of "
        '"{name}" to {target}, so nothing was deployed. {hint} Or use --force to deploy '
        "beside it."
    )


class DeploymentDiffers(DeploymentExists):
    """The same tools are deployed there already, at another version or with other content
    (a redeploy without an overwrite level)."""

    template = (
        'The agent tools "{name}" are already deployed to {target} (deployment {uuid}) '
        f"{{difference}}. Use {UPGRADE} to replace the deployment, or 'agenttools sync' to "
        "upgrade every outdated one."
    )


class DeploymentConfigKeyTaken(DeploymentExists):
    """A deployment conflict through a config key another deployment wrote in the same file."""

    template = (
        'The MCP server key "{key}" in {config_file} is already written by deployment {uuid} of '
        f'"{{bundle}}". Use {UPGRADE} to replace that deployment{{rename}}.'
    )


# -- finding, reading and recovering deployments --------------------------------------------
class DeploymentNotFound(DeployError):
    template = 'No deployment found for "{id}".'


class DeploymentIdAmbiguous(DeployError):
    template = 'The deployment id prefix "{id}" matches several deployments: {ids}.'


class DeploymentLockTimeout(DeployError):
    template = "Timed out waiting for another process to finish modifying agent tools deployments."


class InvalidDeploymentRecord(DeployError):
    template = "The deployment record {path} cannot be read: {reason}"

    @property
    def path(self) -> Path:
        """The record file; its directory is named after the deployment's uuid."""
        return Path(str(self.data["path"]))

    @property
    def reason(self) -> str:
        """Why it cannot be read."""
        return str(self.data["reason"])


class BrokenDeploymentRecord(InvalidDeploymentRecord):
    """A removal asked for a deployment whose record cannot be read: nothing is removed, and
    the message says what can be done (``hint``: the text ``BrokenDeploymentRecordHint``)."""

    template = "The deployment record {path} cannot be read: {reason}. Nothing was removed. {hint}"


class StateRecoveryFailed(DeployError):
    template = (
        "An interrupted agenttools operation ({journal}) could not be finished: {reason}. Fix "
        "the cause and run the command again; 'agenttools doctor' shows what is left."
    )


class JournalDirectoryUnusable(StateRecoveryFailed):
    template = (
        "{path}, where agenttools keeps the journals of its operations, is {what}, not a "
        "directory: nothing is changed while it is there. Run 'agenttools doctor --fix' to "
        "move it to {set_aside}, or move it away yourself."
    )


class StateDirectoryUnusable(DeployError):
    """Something else than a directory (*what*: a regular file, a named pipe, a symbolic
    link to nothing) where a directory of the state goes (``state_directories.py``)."""

    template = (
        "{path} is {what}, not the directory of agenttools' {holding}: nothing is changed "
        "while it is there. Run 'agenttools doctor --fix' to set it aside (it moves it to "
        "{set_aside}), or move it away yourself."
    )


# -- warnings ----------------------------------------------------------------------------------
class AgentSkillsNotDeployed(AgentToolsWarning):
    template = (
        'Warning: The agent skills of "{name}" were not installed because {client_name} does '
        "not support agent skills for this target."
    )


class MCPServersNotDeployed(AgentToolsWarning):
    template = (
        'Warning: The MCP servers of "{name}" were not installed because {client_name} does not '
        "support MCP servers for this target."
    )


class AgentSkillsNotDeployedWarning(AgentToolsWarning):
    template = (
        "Warning: Agent skills were not installed for these clients, which do not support "
        "them: {clients}."
    )


class AgentSkillNotInstalled(AgentToolsWarning):
    template = (
        'Warning: The agent skill "{name}" was not installed because a different or modified '
        f"skill with that name already exists at {{path}}. Use {FORCE} to replace it."
    )


class AgentSkillNotInstalledShadowed(AgentSkillNotInstalled):
    template = (
        'Warning: The agent skill "{name}" was not installed because {client_name} also reads '
        f"{{path}}, a different skill of that name. Use {FORCE} to deploy it anyway (that copy "
        "is left as it is)."
    )


class AgentSkillsNotInstalledWarning(AgentToolsWarning):
    template = (
        "Warning: Some agent skills were not installed for these clients because different or "
        "modified skills with the same names already exist: {clients}. "
        f"Use {FORCE} to replace them."
    )


class AgentSkillConflictWarning(AgentToolsWarning):
    template = (
        "Warning: Some deployments were skipped because of conflicting agent skills. "
        f"Use {FORCE} to replace them."
    )


class DeploymentsExistWarning(AgentToolsWarning):
    template = (
        "Warning: Some deployments were skipped because they already exist: {clients}. "
        f"Use {UPGRADE} to replace them."
    )


class AgentSkillModifiedKept(AgentToolsWarning):
    template = (
        'Warning: The skill "{name}" at {path} was modified since agenttools wrote it, so it '
        f"was kept as it is, not replaced with {{version}}. Use {FORCE} to replace it."
    )


class DeploymentNotRemoved(AgentToolsWarning):
    template = 'Warning: The replaced deployment "{uuid}" could not be removed completely.'


class DeploymentRollbackIncomplete(AgentToolsWarning):
    template = (
        'Warning: The failed deployment of "{name}" could not be rolled back completely: {reason}'
    )


class DeploymentNotFinished(AgentToolsWarning):
    template = (
        "Warning: The deployment {uuid} was committed, but finishing it failed ({reason}); "
        "the next agenttools command finishes it."
    )


class InterruptedOperationRecovered(AgentToolsWarning):
    template = "An interrupted {operation} was {outcome}."
