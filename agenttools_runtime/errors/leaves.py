"""Every leaf error and warning but those of ``errors/families.py`` and ``errors/builds.py``,
created when one is first used: the package ``agenttools_runtime.errors`` re-exports each of
them (see its ``__getattr__``)."""

from __future__ import annotations

from agenttools_runtime.errors.base import AgentToolsError, AgentToolsWarning
from agenttools_runtime.errors.families import (
    BundleError,
    ClientError,
    ConfigFileError,
    DeployError,
    DistributionError,
    ManifestError,
    SkillConflictError,
    SkillError,
    URIError,
)


# DistributionError
class InvalidPythonEnvironment(DistributionError): ...


# ManifestError
class ManifestSchemaTooNew(ManifestError): ...


# BundleError
class InvalidAgentToolsObject(BundleError): ...


class AgentToolsNotFound(BundleError): ...


class AgentToolsBundleNameAmbiguous(BundleError): ...


class DistributionAgentToolsNotFound(BundleError): ...


class MCPServerNotFound(BundleError): ...


class MCPServerNameAmbiguous(BundleError): ...


class AgentToolsNotForEnvironment(DistributionAgentToolsNotFound):
    """A bundle named explicitly whose marker is false in the environment."""


# SkillError
class AgentSkillNotFound(SkillError): ...


class BuiltInAgentSkillMissing(SkillError): ...


class InvalidAgentSkillName(SkillError): ...


class InvalidAgentSkillDescription(SkillError): ...


class InvalidSkillFrontmatter(SkillError): ...


class DuplicateAgentSkillName(SkillError): ...


class InvalidSkillsDirectory(SkillError): ...


class NoSkillsLocation(SkillError): ...


class AgentSkillUnreadable(SkillError): ...


class AgentSkillUnsafeLink(SkillError): ...


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


class AgentSkillUnproven(AgentToolsWarning): ...


class AgentSkillNameDiffers(AgentToolsWarning): ...


class AgentSkillReplacedKept(AgentToolsWarning): ...


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


class MCPServerEntryUnproven(AgentToolsWarning): ...


class MCPEntryMachineSpecific(AgentToolsWarning): ...


class InterruptedOperationRecovered(AgentToolsWarning): ...


class DeploymentNotFinished(AgentToolsWarning): ...


class FileOperationFailed(AgentToolsError):
    """A file operation the system refused (permissions, a read-only or full file system, a
    file-size limit, a name too long, a file where a directory should be …): the operation,
    the path and the system's reason; the CLI turns every ``OSError`` that reaches it into one."""
