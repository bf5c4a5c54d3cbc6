"""The error families but a build's, their leaves and every warning, created when one is
first used: the package ``agenttools_runtime.errors`` re-exports each of them (see its
``__getattr__``); the bases are ``errors/base.py``'s, a build's failures ``errors/builds.py``'s."""

from __future__ import annotations

from agenttools_runtime.errors.base import AgentToolsError, AgentToolsWarning


# -- families ----------------------------------------------------------------------------------
class DistributionError(AgentToolsError):
    """An installed distribution or Python environment that cannot be used."""


class ManifestError(DistributionError):
    """An installed distribution's ``manifest.json`` that cannot be read or trusted."""


class BundleError(AgentToolsError):
    """A bundle specification, or a bundle or server name that does not resolve to one thing."""


class SkillError(AgentToolsError):
    """An agent skill that cannot be read, found, named or written."""


class SkillConflictError(SkillError):
    """A skill directory in the way that the overwrite level in force may not replace."""


class ClientError(AgentToolsError):
    """A client, or a location of one, that agenttools cannot use for this request."""


class ConfigFileError(AgentToolsError):
    """A client's config file that cannot be read or edited; it is left unchanged."""


class DeployError(AgentToolsError):
    """A deployment that cannot be made, found or changed."""


class URIError(AgentToolsError):
    """A ``skill://`` URI that is unsafe or does not resolve, or a provider that failed."""


# -- their leaves -----------------------------------------------------------------------------
# DistributionError
class DistributionNotInstalled(DistributionError): ...


class InvalidPythonEnvironment(DistributionError): ...


class EditableSourceMissing(DistributionError): ...


class BundledFileMismatch(DistributionError): ...


class BundledFileMissing(DistributionError): ...


class BundledFileNotRegular(DistributionError): ...


# ManifestError
class InvalidManifest(ManifestError): ...


class ManifestSchemaTooNew(ManifestError): ...


# BundleError
class InvalidAgentToolsObject(BundleError): ...


class AgentToolsNotFound(BundleError): ...


class AgentToolsBundleNameAmbiguous(BundleError): ...


class DistributionAgentToolsNotFound(BundleError): ...


class DistributionSkillNotFound(BundleError): ...


class DistributionServerNotFound(BundleError): ...


class MCPServerNotFound(BundleError): ...


class MCPServerNameAmbiguous(BundleError): ...


class AgentToolsNotForEnvironment(DistributionAgentToolsNotFound):
    """A bundle named explicitly whose marker is false in the environment."""


# SkillError
class InvalidDistributionSkillDefinition(SkillError): ...


class AgentSkillNotFound(SkillError): ...


class BuiltInAgentSkillMissing(SkillError): ...


class InvalidAgentSkill(SkillError): ...


class InvalidAgentSkillName(SkillError): ...


class InvalidAgentSkillDescription(SkillError): ...


class InvalidSkillFrontmatter(SkillError): ...


class DuplicateAgentSkillName(SkillError): ...


class InvalidSkillsDirectory(SkillError): ...


class NoSkillsLocation(SkillError): ...


class AgentSkillUnreadable(SkillError): ...


class AgentSkillUnsafeLink(SkillError): ...


class AgentSkillWriteFailed(SkillError): ...


class AgentSkillRemoveFailed(SkillError): ...


# SkillConflictError
class AgentSkillExists(SkillConflictError): ...


class AgentSkillModified(SkillConflictError): ...


class AgentSkillConflict(SkillConflictError): ...


class AgentSkillUpdate(SkillConflictError): ...


class AgentSkillShadowed(SkillConflictError):
    """A different skill of the same name in another skills root the client reads."""


# ClientError
class UnknownClient(ClientError): ...


class NoClientDetected(ClientError): ...


class UnsupportedSkillsClient(ClientError): ...


class UnsupportedSkillsClientProject(ClientError): ...


class UnknownSkillsLocation(ClientError): ...


class UnsupportedMCPClient(ClientError): ...


class UnsupportedMCPClientProject(ClientError): ...


class UnknownInstallLocation(ClientError): ...


class InvalidProjectDirectory(ClientError): ...


class UnsupportedTransport(ClientError): ...


# ConfigFileError
class ConfigFileUnparseable(ConfigFileError): ...


class ConfigFileInvalid(ConfigFileError): ...


class ConfigFileChanged(ConfigFileError): ...


class MCPServerEntryExists(ConfigFileError):
    """An entry of the key to write that no deployment wrote (the user's own): replaced only
    with ``--force``, like a foreign skill directory."""


class MCPServerEntryEdited(ConfigFileError):
    """An entry a deployment wrote that the user changed since: replaced only with
    ``--force``, like a modified skill directory."""


# DeployError
class AgentToolsEmpty(DeployError): ...


class AgentSkillsDisabled(DeployError): ...


class AgentToolsNothingToDeploy(DeployError): ...


class InvalidMCPServerNameOption(DeployError): ...


class DuplicateBundleConfigKey(DeployError): ...


class InvalidSkillsDirectoryOption(DeployError): ...


class InvalidOverwriteOption(DeployError): ...


class DeploymentExists(DeployError): ...


class DeploymentDiffers(DeploymentExists):
    """The same tools are deployed there already, at another version or with other content
    (a redeploy without an overwrite level)."""


class AgentSkillLinksUnsupported(DeployError): ...


class AgentSkillLinkNotEditable(DeployError): ...


class DeploymentConfigKeyTaken(DeploymentExists):
    """A deployment conflict through a config key another deployment wrote in the same file."""


class RunnerUnavailable(DeployError): ...


class DeploymentNotFound(DeployError): ...


class DeploymentIdAmbiguous(DeployError): ...


class DeploymentLockTimeout(DeployError): ...


class InvalidDeploymentRecord(DeployError): ...


class BrokenDeploymentRecord(InvalidDeploymentRecord):
    """A removal asked for a deployment whose record cannot be read: nothing is removed, and
    the message says what can be done."""


class StateRecoveryFailed(DeployError): ...


# URIError
class InvalidSkillURI(URIError): ...


class SkillNotFound(URIError): ...


class SkillReferenceNotFound(URIError): ...


class SkillProviderNotFound(URIError): ...


class SkillProviderExists(URIError): ...


class SkillProviderFailed(URIError): ...


class SkillURISecurityError(URIError):
    """A ``skill://`` URI rejected for safety (traversal, NUL, a bad provider name)."""


class SkillPathTraversal(SkillURISecurityError): ...


class SkillNullByte(SkillURISecurityError): ...


class InvalidSkillProviderName(SkillURISecurityError): ...


class MCPSDKMissing(AgentToolsError):
    """An optional dependency (the MCP Python SDK) that a command needs is not installed."""


# -- warnings --------------------------------------------------------------------------------
class AgentSkillNewerVersionKept(AgentToolsWarning): ...


class AgentSkillModifiedKept(AgentToolsWarning): ...


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


class AgentSkillShadowedWarning(AgentToolsWarning): ...


class AgentSkillNotInstalledShadowed(AgentSkillNotInstalled): ...


class AgentSkillDuplicate(AgentToolsWarning): ...


class AgentSkillSeenTwice(AgentToolsWarning): ...


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


class MCPServerEntryModified(AgentToolsWarning): ...


class MCPServerEntryNotRestored(AgentToolsWarning): ...


class MCPEntryMachineSpecific(AgentToolsWarning): ...


class InterruptedOperationRecovered(AgentToolsWarning): ...


class DeploymentNotFinished(AgentToolsWarning): ...


class FileOperationFailed(AgentToolsError):
    """A file operation the system refused (permissions, a read-only or full file system, a
    file-size limit, a name too long, a file where a directory should be …): the operation,
    the path and the system's reason; the CLI turns every ``OSError`` that reaches it into one."""
