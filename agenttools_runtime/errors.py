"""Every error and warning of agenttools, and the one table of their message texts.

Names follow the behaviour spec (``AgentSkillExists``, ``DeploymentLockTimeout`` …). An error's
``str()`` is the sentence a user reads; the CLI prints it and nothing else. Warnings are
``warnings.warn`` categories whose instances carry the same formatted text.

Placeholders are ``str.format`` positions: ``{0}`` is the first parameter. ``--force`` is the
CLI spelling of ``overwrite="all"``, ``--upgrade`` of ``overwrite="upgrade"``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any, ClassVar


FORCE = '--force (overwrite="all")'
UPGRADE = '--upgrade (overwrite="upgrade")'

# tag -> template. Data, not code: tests and docs read this table.
MESSAGES: dict[str, str] = {
    # -- bundles and names ------------------------------------------------------------------
    "AgentToolsNotFound": 'No agent tools bundle found for name "{0}".',
    "InvalidAgentToolsObject": "Invalid agent tools bundle specification: {0}.",
    "AgentToolsEmpty": 'The agent tools "{0}" contain no MCP servers or agent skills to deploy.',
    "AgentToolsBundleNameAmbiguous": (
        'The distribution "{0}" defines several agent tools bundles: {1}. '
        "Specify one of these names."
    ),
    "DistributionAgentToolsNotFound": 'Agent tools "{0}" not found in distribution "{1}".',
    "AgentToolsNotForEnvironment": (
        'The agent tools bundle "{0}" of "{1}" is not offered in {2}: its marker {3} is false there.'
    ),
    "EditableSourceMissing": (
        'The editable install of "{0}" takes its skill files from {1}, which does not exist '
        "(moved or deleted?). Reinstall it: {2}"
    ),
    "DistributionNotInstalled": (
        'The distribution "{0}" is not installed in {1}. Install it with: {2}'
    ),
    "DistributionSkillNotFound": 'Agent skill "{0}" not found in distribution "{1}".',
    "DistributionServerNotFound": 'MCP server "{0}" not found in distribution "{1}".',
    "MCPServerNotFound": 'No MCP server found for name "{0}".',
    "MCPServerNameAmbiguous": (
        'Several installed distributions declare an MCP server named "{0}": {1}. '
        "Specify one of these names."
    ),
    "InvalidManifest": 'The agenttools manifest of "{0}" cannot be used: {1}',
    "ManifestSchemaTooNew": (
        'The agenttools manifest of "{0}" has schema {1}; this agenttools understands up to '
        "schema {2}. Upgrade agenttools: pip install --upgrade agenttools"
    ),
    "InvalidPythonEnvironment": (
        "Cannot discover the distributions of the Python interpreter {0}: {1}"
    ),
    "BundledFileMismatch": (
        'The file {0} of "{1}" does not match the hash recorded when it was built '
        "(tampered with or half uninstalled). Reinstall it: pip install --force-reinstall {1}"
    ),
    "BundledFileMissing": (
        'The file {0} of "{1}" is missing. Reinstall it: pip install --force-reinstall {1}'
    ),
    # -- skills -----------------------------------------------------------------------------
    "InvalidDistributionSkillDefinition": "Invalid agent skill definition in {0}.",
    "AgentSkillNotFound": 'No agent skill found for "{0}".',
    "BuiltInAgentSkillMissing": (
        'The built-in agent skill "{0}" is missing from the installed agenttools package. '
        "Reinstall it with: pip install --force-reinstall agenttools"
    ),
    "InvalidAgentSkill": "Invalid agent skill specification: {0}.",
    "InvalidAgentSkillName": (
        'Invalid agent skill name "{0}". Skill names must be 1 to 64 lowercase letters, '
        "digits, and hyphens, without leading, trailing, or consecutive hyphens."
    ),
    "InvalidAgentSkillDescription": (
        'The agent skill "{0}" needs a description of 1 to 1024 characters.'
    ),
    "InvalidSkillFrontmatter": "Invalid SKILL.md {0}: {1}",
    "DuplicateAgentSkillName": 'Several skills named "{0}" were given.',
    "InvalidSkillsDirectory": (
        "Invalid skills directory: {0}. Expected a directory that contains skill folders."
    ),
    "NoSkillsLocation": (
        "Unable to determine where to install agent skills for {0}. "
        "Use --skills-dir (skills_dir=) to specify a directory."
    ),
    "AgentSkillExists": 'A different skill named "{0}" already exists at {1}. Use {2} to replace it.',
    "AgentSkillModified": (
        'The skill "{0}" at {1} has been modified since it was installed. '
        f"Use {FORCE} to replace it."
    ),
    "AgentSkillConflict": (
        f'A different skill named "{{0}}" is already installed at {{1}}. Use {FORCE} to replace it.'
    ),
    "AgentSkillUpdate": (
        f'A different version of the skill "{{0}}" is installed at {{1}}. Use {UPGRADE} to update it.'
    ),
    "AgentSkillNewerVersionKept": (
        'The skill "{0}" at {1} was not replaced because the installed version ({2}) '
        "is newer than {3}."
    ),
    "AgentSkillInUse": (
        'The skill "{0}" at {1} was not removed because other agent tools deployments still use it.'
    ),
    "AgentSkillNotRemoved": (
        'The skill "{0}" at {1} was modified after it was installed, so it was not removed. '
        "Run {2} to remove it."
    ),
    "AgentSkillReplacedNotRemoved": (
        'The skill "{0}" at {1} was replaced by something that is not a skill directory, '
        "so it was not removed."
    ),
    "InstallAgentSkill": 'Successfully installed agent skill "{0}".',
    "InstallAgentSkillNamed": 'Successfully installed agent skill "{0}" for {1}.',
    "UninstallAgentSkill": 'Successfully uninstalled agent skill "{0}".',
    "UninstallAgentSkillNamed": 'Successfully uninstalled agent skill "{0}" for {1}.',
    "AgentSkillNotInstalledAt": 'The agent skill "{0}" is not installed at {1}.',
    "AgentSkillUnreadable": "Unable to read the agent skill file {0}.",
    "AgentSkillUnsafeLink": (
        "The symbolic link {0} points outside its skill directory ({1}); "
        "skills may only link to files inside themselves."
    ),
    "AgentSkillWriteFailed": 'Writing the agent skill "{0}" to {1} failed ({2}); it was rolled back.',
    "AgentSkillRemoveFailed": (
        'Removing the agent skill "{0}" at {1} failed ({2}); it was left in place.'
    ),
    "AgentSkillBackupNotRemoved": (
        'The agent skill "{0}" was removed, but its backup at {1} could not be deleted '
        "completely. Delete it manually."
    ),
    "AgentSkillBackupsLeft": (
        "Backups left by an interrupted agenttools operation were found at {0}: each holds a "
        "skill directory that was being replaced or removed in {1}. Move back what you want "
        "to keep, then delete them."
    ),
    # -- clients and locations --------------------------------------------------------------
    "UnknownClient": 'Unknown client "{0}". Known clients: {1}.',
    "UnsupportedSkillsClient": "No automatic agent skill installation support for client {0}.",
    "UnsupportedSkillsClientProject": (
        "No automatic project-level agent skill installation support for client {0}."
    ),
    "UnknownSkillsLocation": (
        "Unable to determine the skills location for {0} on {1}. "
        "Use --skills-dir (skills_dir=) to specify a custom location."
    ),
    "UnsupportedMCPClient": "No automatic MCP server installation support for client {0}.",
    "UnsupportedMCPClientProject": (
        "No automatic project-level MCP server installation support for client {0}."
    ),
    "UnknownInstallLocation": (
        "Unable to determine the MCP configuration file of {0} on {1}. "
        "Use --config FILE to specify it."
    ),
    "InvalidProjectDirectory": "Invalid project directory: {0}. Expected an existing directory.",
    # -- MCP config files -------------------------------------------------------------------
    "ConfigFileUnparseable": (
        "Cannot parse {0} ({1}); it was not changed. Fix the file and try again."
    ),
    "ConfigFileInvalid": "Cannot edit {0}: {1}; it was not changed.",
    "ConfigFileChanged": (
        "{0} was changed by another program while agenttools was editing it; "
        "nothing was written. Try again."
    ),
    "UnsupportedTransport": (
        'The MCP server "{0}" uses the {1} transport, which {2} does not support.'
    ),
    "MCPServerNotInstalled": 'The MCP server configuration "{0}" is not present in {1}.',
    "InstallMCPServer": 'Successfully installed MCP server "{0}" into {1}.',
    "UninstallMCPServer": 'Successfully removed MCP server "{0}" from {1}.',
    "MCPServerNotRemoved": 'The MCP server configuration "{0}" could not be removed from {1}.',
    "MCPServerEntryReplaced": (
        'Warning: The MCP server configuration "{0}" in {1} was not written by an agenttools '
        "deployment; it was replaced, and removing this deployment removes it."
    ),
    "InvalidMCPServerNameOption": (
        'A server name override can only be used when deploying a single MCP server; "{0}" '
        "has {1} servers."
    ),
    "DuplicateBundleConfigKey": (
        'The MCP servers {0} of "{1}" would all be installed with the configuration key "{2}".'
    ),
    # -- deployments ------------------------------------------------------------------------
    "DeploymentExists": (
        'The agent tools "{0}" are already deployed to {1} (deployment {2}). '
        f"Use {UPGRADE} to replace the deployment."
    ),
    "DeploymentsExistWarning": (
        "Warning: Some deployments were skipped because they already exist: {0}. "
        f"Use {UPGRADE} to replace them."
    ),
    "DeploymentNotFound": 'No deployment found for "{0}".',
    "DeploymentIdAmbiguous": 'The deployment id prefix "{0}" matches several deployments: {1}.',
    "AgentSkillsNotDeployed": (
        'Warning: The agent skills of "{0}" were not installed because {1} does not support '
        "agent skills for this target."
    ),
    "MCPServersNotDeployed": (
        'Warning: The MCP servers of "{0}" were not installed because {1} does not support '
        "MCP servers for this target."
    ),
    "AgentSkillsNotDeployedWarning": (
        "Warning: Agent skills were not installed for these clients, which do not support "
        "them: {0}."
    ),
    "AgentSkillConflictWarning": (
        "Warning: Some deployments were skipped because of conflicting agent skills. "
        f"Use {FORCE} to replace them."
    ),
    "AgentSkillNotInstalled": (
        'Warning: The agent skill "{0}" was not installed because a different or modified skill '
        f"with that name already exists at {{1}}. Use {FORCE} to replace it."
    ),
    "AgentSkillsNotInstalledWarning": (
        "Warning: Some agent skills were not installed for these clients because different or "
        f"modified skills with the same names already exist: {{0}}. Use {FORCE} to replace them."
    ),
    "InvalidSkillsDirectoryOption": (
        "Invalid value for the skills directory option: {0}. Expected None, a path, or the default."
    ),
    "InvalidOverwriteOption": 'Invalid overwrite value {0}. Expected "none", "upgrade" or "all".',
    "AgentToolsNothingToDeploy": 'Nothing from the agent tools "{0}" can be deployed to {1}.',
    "AgentSkillsDisabled": (
        'The agent tools "{0}" contain only agent skills, but --no-skills (skills_dir=None) '
        "disables installing them."
    ),
    "DeploymentNotRemoved": 'Warning: The replaced deployment "{0}" could not be removed completely.',
    "DeploymentLockTimeout": (
        "Timed out waiting for another process to finish modifying agent tools deployments."
    ),
    "InvalidDeploymentRecord": "The deployment record {0} cannot be read: {1}",
    "DeploymentRollbackIncomplete": (
        'Warning: The failed deployment of "{0}" could not be rolled back completely: {1}'
    ),
    # -- skill:// URIs and serving (texts of the skill:// scheme document) -----------------
    "SkillNotFound": "Skill not found: '{0}'. Available: {1}",
    "SkillReferenceNotFound": "Reference not found: '{0}' in skill '{1}'",
    "SkillURISecurityError": "Security error: {0}",
    "SkillPathTraversal": "Security error: Path traversal detected in URI",
    "SkillNullByte": "Security error: Null byte detected in URI",
    "InvalidSkillProviderName": (
        "Security error: Invalid provider name '{0}'. Provider names start with a letter or "
        "digit, contain only letters, digits, hyphens and underscores, and have at most 63 "
        "characters."
    ),
    "InvalidSkillURI": "Invalid skill URI '{0}': {1}",
    "SkillProviderNotFound": "Provider not found: '{0}'. Available providers: {1}",
    "SkillProviderExists": "A skill provider named '{0}' is already registered.",
    "SkillProviderFailed": "The skill provider '{0}' failed: {1}",
    "MCPSDKMissing": (
        "{0} needs the MCP Python SDK (mcp>=2.3), which is not installed. "
        "Install it with: pip install 'agenttools[serve]'"
    ),
    "SkillNameCollision": (
        "The skill '{0}' is provided by {1}; using {2}. Use a full URI "
        "(skill://PROVIDER/{0}) to choose another."
    ),
    "ServedSkillsNamespaced": (
        "Several sources have a skill named '{0}' ({1}); each is served under its own "
        "prefix instead: {2}"
    ),
    "SkillNotServed": "The skill '{0}' at {1} is not served: {2}",
    "SkillProviderSkipped": "The skill provider '{0}' was skipped: {1}",
    # -- project validation (hook and `agenttools validate`) --------------------------------
    "InvalidProject": "{0}",
    # -- the file system (the CLI's one line for an OSError) --------------------------------
    "FileOperationFailed": "Cannot {0} {1}: {2}.",
}


class _Message(Exception):
    """What errors and warnings share: a tag naming the template in ``MESSAGES``, the
    ``params`` that fill it, and ``data`` with machine-readable details for ``--json``."""

    tag: ClassVar[str] = "AgentToolsError"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # a class may share another's message text (an error and a warning of one event)
        cls.tag = cls.__dict__.get("message_tag", cls.__name__)

    def __init__(self, *params: object, **data: Any) -> None:
        # args are the params, so pickling and pytest-xdist rebuild the same object
        super().__init__(*params)
        self.params = params
        self.data = data

    def __str__(self) -> str:
        return format_message(self.tag, self.params)

    def __reduce__(self) -> Any:
        return (_rebuild, (type(self), self.params, self.data))

    @property
    def message(self) -> str:
        return str(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "tag": self.tag,
            "message": self.message,
            "params": [str(p) for p in self.params],
            **{k: _jsonable(v) for k, v in self.data.items()},
        }


class AgentToolsError(_Message):
    """Base of every expected failure. ``str(err)`` is the message a user reads."""


class AgentToolsErrors(AgentToolsError):
    """Several failures found together (e.g. every skill conflict of one deployment).

    ``str()`` lists every message, one per line; ``errors`` holds them.
    """

    def __init__(self, errors: list[AgentToolsError]) -> None:
        Exception.__init__(self, list(errors))
        self.errors = list(errors)
        self.params = ()
        self.data = {}

    def __str__(self) -> str:
        return "\n".join(e.message for e in self.errors)

    def __reduce__(self) -> Any:
        return (type(self), (self.errors,))

    def to_json(self) -> dict[str, Any]:
        return {
            "tag": self.tag,
            "message": self.message,
            "errors": [e.to_json() for e in self.errors],
        }


class AgentToolsWarning(_Message, UserWarning):
    """Base of every warning category; instances carry the formatted message."""


def format_message(tag: str, params: tuple[object, ...]) -> str:
    template = MESSAGES.get(tag)
    if template is None:
        return " ".join(str(p) for p in params) or tag
    texts = [str(p) for p in params]
    try:
        return template.format(*texts)
    except IndexError:  # too few parameters: show the template's fields unfilled
        texts += [f"{{{i}}}" for i in range(len(texts), template.count("{") + 1)]
        return template.format(*texts)


def _rebuild(cls: type[Any], params: tuple[object, ...], data: dict[str, Any]) -> Any:
    return cls(*params, **data)


def _jsonable(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    return str(value)


# -- failures --------------------------------------------------------------------------------
class AgentToolsNotFound(AgentToolsError): ...


class InvalidAgentToolsObject(AgentToolsError): ...


class AgentToolsEmpty(AgentToolsError): ...


class AgentToolsBundleNameAmbiguous(AgentToolsError): ...


class DistributionAgentToolsNotFound(AgentToolsError): ...


class DistributionNotInstalled(AgentToolsError): ...


class DistributionSkillNotFound(AgentToolsError): ...


class DistributionServerNotFound(AgentToolsError): ...


class MCPServerNotFound(AgentToolsError): ...


class MCPServerNameAmbiguous(AgentToolsError): ...


class InvalidManifest(AgentToolsError): ...


class ManifestSchemaTooNew(AgentToolsError): ...


class BundledFileMismatch(AgentToolsError): ...


class BundledFileMissing(AgentToolsError): ...


class InvalidDistributionSkillDefinition(AgentToolsError): ...


class AgentSkillNotFound(AgentToolsError): ...


class BuiltInAgentSkillMissing(AgentToolsError): ...


class InvalidAgentSkill(AgentToolsError): ...


class InvalidAgentSkillName(AgentToolsError): ...


class InvalidAgentSkillDescription(AgentToolsError): ...


class InvalidSkillFrontmatter(AgentToolsError): ...


class DuplicateAgentSkillName(AgentToolsError): ...


class InvalidSkillsDirectory(AgentToolsError): ...


class NoSkillsLocation(AgentToolsError): ...


class AgentSkillExists(AgentToolsError): ...


class AgentSkillModified(AgentToolsError): ...


class AgentSkillConflict(AgentToolsError): ...


class AgentSkillUpdate(AgentToolsError): ...


class AgentSkillUnreadable(AgentToolsError): ...


class AgentSkillUnsafeLink(AgentToolsError): ...


class AgentSkillWriteFailed(AgentToolsError): ...


class AgentSkillRemoveFailed(AgentToolsError): ...


class UnknownClient(AgentToolsError): ...


class UnsupportedSkillsClient(AgentToolsError): ...


class UnsupportedSkillsClientProject(AgentToolsError): ...


class UnknownSkillsLocation(AgentToolsError): ...


class UnsupportedMCPClient(AgentToolsError): ...


class UnsupportedMCPClientProject(AgentToolsError): ...


class UnknownInstallLocation(AgentToolsError): ...


class InvalidProjectDirectory(AgentToolsError): ...


class ConfigFileUnparseable(AgentToolsError): ...


class ConfigFileInvalid(AgentToolsError): ...


class ConfigFileChanged(AgentToolsError): ...


class UnsupportedTransport(AgentToolsError): ...


class InvalidMCPServerNameOption(AgentToolsError): ...


class DuplicateBundleConfigKey(AgentToolsError): ...


class DeploymentExists(AgentToolsError): ...


class DeploymentNotFound(AgentToolsError): ...


class DeploymentIdAmbiguous(AgentToolsError): ...


class InvalidSkillsDirectoryOption(AgentToolsError): ...


class InvalidOverwriteOption(AgentToolsError): ...


class AgentToolsNothingToDeploy(AgentToolsError): ...


class AgentSkillsDisabled(AgentToolsError): ...


class DeploymentLockTimeout(AgentToolsError): ...


class InvalidDeploymentRecord(AgentToolsError): ...


class InvalidProject(AgentToolsError): ...


class InvalidPythonEnvironment(AgentToolsError): ...


class SkillNotFound(AgentToolsError): ...


class SkillReferenceNotFound(AgentToolsError): ...


class SkillURISecurityError(AgentToolsError):
    """A ``skill://`` URI rejected for safety (traversal, NUL, a bad provider name)."""


class SkillPathTraversal(SkillURISecurityError): ...


class SkillNullByte(SkillURISecurityError): ...


class InvalidSkillProviderName(SkillURISecurityError): ...


class InvalidSkillURI(AgentToolsError): ...


class SkillProviderNotFound(AgentToolsError): ...


class SkillProviderExists(AgentToolsError): ...


class SkillProviderFailed(AgentToolsError): ...


class MCPSDKMissing(AgentToolsError): ...


class AgentToolsNotForEnvironment(DistributionAgentToolsNotFound):
    """A bundle named explicitly whose marker is false in the environment."""


class EditableSourceMissing(AgentToolsError): ...


# -- warnings --------------------------------------------------------------------------------
class AgentSkillNewerVersionKept(AgentToolsWarning): ...


class AgentSkillInUse(AgentToolsWarning): ...


class AgentSkillNotRemoved(AgentToolsWarning): ...


class AgentSkillReplacedNotRemoved(AgentToolsWarning): ...


class AgentSkillBackupNotRemoved(AgentToolsWarning): ...


class AgentSkillRemoveFailedWarning(AgentToolsWarning):
    message_tag = "AgentSkillRemoveFailed"


class AgentSkillsNotDeployed(AgentToolsWarning): ...


class MCPServersNotDeployed(AgentToolsWarning): ...


class AgentSkillsNotDeployedWarning(AgentToolsWarning): ...


class AgentSkillConflictWarning(AgentToolsWarning): ...


class AgentSkillNotInstalled(AgentToolsWarning): ...


class AgentSkillsNotInstalledWarning(AgentToolsWarning): ...


class DeploymentsExistWarning(AgentToolsWarning): ...


class DeploymentNotRemoved(AgentToolsWarning): ...


class MCPServerNotRemoved(AgentToolsWarning): ...


class SkillNameCollision(AgentToolsWarning): ...


class ServedSkillsNamespaced(AgentToolsWarning): ...


class SkillNotServed(AgentToolsWarning): ...


class SkillProviderSkipped(AgentToolsWarning): ...


class DeploymentRollbackIncomplete(AgentToolsWarning): ...


class AgentSkillBackupsLeft(AgentToolsWarning): ...


class MCPServerEntryReplaced(AgentToolsWarning): ...


class FileOperationFailed(AgentToolsError):
    """A file operation the system refused (permissions, a read-only or full file system, a
    file-size limit, a name too long, a file where a directory should be …): the operation,
    the path and the system's reason; the CLI turns every ``OSError`` that reaches it into one."""
