"""Every error and warning of agenttools and their families; the one table of message texts is
``errors/messages.py``, how a tag and its fields make an exception ``errors/base.py``.

Names follow the behaviour spec (``AgentSkillExists``, ``DeploymentLockTimeout`` …). An error's
``str()`` is the sentence a user reads; the CLI prints it and nothing else. Warnings are
``warnings.warn`` categories whose instances carry the same formatted text.

Errors are built from keyword fields only (``InvalidAgentSkillName(name="Bad")``): the fields fill
the template's ``{name}`` placeholders *and* are the machine-readable data of ``--json``, so no
value is passed twice. A list field reads as its items joined by ", ". Leaves sit under domain
families (``ManifestError``, ``SkillError``, ``ClientError`` …) so a caller catches a family and a
test asserts a leaf. ``--force`` is the CLI spelling of ``overwrite="all"``, ``--upgrade`` of
``overwrite="upgrade"``.
"""

from __future__ import annotations

from agenttools_runtime.errors.base import AgentToolsError as AgentToolsError
from agenttools_runtime.errors.base import AgentToolsErrors as AgentToolsErrors
from agenttools_runtime.errors.base import AgentToolsWarning as AgentToolsWarning
from agenttools_runtime.errors.base import format_message as format_message
from agenttools_runtime.errors.messages import FORCE as FORCE
from agenttools_runtime.errors.messages import MESSAGES as MESSAGES
from agenttools_runtime.errors.messages import UPGRADE as UPGRADE


# -- failures: families first, then their leaves ---------------------------------------------
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


class ProjectError(AgentToolsError):
    """A project whose ``[tool.agenttools]`` does not pass validation (hook and ``validate``)."""


class BuildError(AgentToolsError):
    """A wheel or sdist that agenttools cannot add its files to, or a wrapped build backend
    that cannot be loaded."""


# ProjectError
class InvalidProject(ProjectError): ...


# BuildError
class InvalidWheel(BuildError): ...


class InvalidSdist(BuildError): ...


class WheelAlreadyBundled(BuildError): ...


class WheelProjectMismatch(BuildError): ...


class BuildBackendUnavailable(BuildError): ...


# What reading an installed distribution raises (discovery.py imports these when a deploy,
# list or show starts: defined here, they spare such a command errors/leaves.py)
class DistributionNotInstalled(DistributionError): ...


class EditableSourceMissing(DistributionError): ...


class BundledFileMismatch(DistributionError): ...


class BundledFileMissing(DistributionError): ...


class BundledFileNotRegular(DistributionError): ...


class InvalidManifest(ManifestError): ...


class DistributionSkillNotFound(BundleError): ...


class DistributionServerNotFound(BundleError): ...


class InvalidDistributionSkillDefinition(SkillError): ...


# What looking up a client's locations raises: a deploy asks every client for the skills
# roots it reads, and one without any says so by raising (defined here for that reason)
class UnsupportedMCPClient(ClientError): ...


class UnsupportedMCPClientProject(ClientError): ...


class UnknownInstallLocation(ClientError): ...


class UnsupportedSkillsClient(ClientError): ...


class UnsupportedSkillsClientProject(ClientError): ...


class UnknownSkillsLocation(ClientError): ...


class InvalidProjectDirectory(ClientError): ...


# What writing a skill folder raises (skills/fsops.py imports these when a deploy starts)
class InvalidAgentSkill(SkillError): ...


class AgentSkillWriteFailed(SkillError): ...


class AgentSkillRemoveFailed(SkillError): ...


class AgentSkillBackupNotRemoved(AgentToolsWarning): ...


# Every other leaf and the warnings are defined in errors/leaves.py and created on first use
# (PEP 562): a build through agenttools_hook.backend raises none of them when it succeeds and
# would spend a tenth of its own time creating a hundred classes; nor does a deploy that
# succeeds (the modules on its path name them ``errors.X`` where they raise them). ``from
# agenttools_runtime.errors import X`` works for every X; type checkers read the imports below.
TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from agenttools_runtime.errors.leaves import AgentSkillBackupsLeft as AgentSkillBackupsLeft
    from agenttools_runtime.errors.leaves import AgentSkillConflict as AgentSkillConflict
    from agenttools_runtime.errors.leaves import (
        AgentSkillConflictWarning as AgentSkillConflictWarning,
    )
    from agenttools_runtime.errors.leaves import AgentSkillDuplicate as AgentSkillDuplicate
    from agenttools_runtime.errors.leaves import AgentSkillExists as AgentSkillExists
    from agenttools_runtime.errors.leaves import AgentSkillInUse as AgentSkillInUse
    from agenttools_runtime.errors.leaves import (
        AgentSkillLinkNotEditable as AgentSkillLinkNotEditable,
    )
    from agenttools_runtime.errors.leaves import (
        AgentSkillLinksUnsupported as AgentSkillLinksUnsupported,
    )
    from agenttools_runtime.errors.leaves import AgentSkillModified as AgentSkillModified
    from agenttools_runtime.errors.leaves import AgentSkillModifiedKept as AgentSkillModifiedKept
    from agenttools_runtime.errors.leaves import (
        AgentSkillNewerVersionKept as AgentSkillNewerVersionKept,
    )
    from agenttools_runtime.errors.leaves import AgentSkillNotFound as AgentSkillNotFound
    from agenttools_runtime.errors.leaves import AgentSkillNotInstalled as AgentSkillNotInstalled
    from agenttools_runtime.errors.leaves import (
        AgentSkillNotInstalledShadowed as AgentSkillNotInstalledShadowed,
    )
    from agenttools_runtime.errors.leaves import AgentSkillNotRemoved as AgentSkillNotRemoved
    from agenttools_runtime.errors.leaves import (
        AgentSkillRemoveFailedWarning as AgentSkillRemoveFailedWarning,
    )
    from agenttools_runtime.errors.leaves import (
        AgentSkillReplacedNotRemoved as AgentSkillReplacedNotRemoved,
    )
    from agenttools_runtime.errors.leaves import AgentSkillsDisabled as AgentSkillsDisabled
    from agenttools_runtime.errors.leaves import AgentSkillSeenTwice as AgentSkillSeenTwice
    from agenttools_runtime.errors.leaves import AgentSkillShadowed as AgentSkillShadowed
    from agenttools_runtime.errors.leaves import (
        AgentSkillShadowedWarning as AgentSkillShadowedWarning,
    )
    from agenttools_runtime.errors.leaves import AgentSkillsNotDeployed as AgentSkillsNotDeployed
    from agenttools_runtime.errors.leaves import (
        AgentSkillsNotDeployedWarning as AgentSkillsNotDeployedWarning,
    )
    from agenttools_runtime.errors.leaves import (
        AgentSkillsNotInstalledWarning as AgentSkillsNotInstalledWarning,
    )
    from agenttools_runtime.errors.leaves import AgentSkillUnreadable as AgentSkillUnreadable
    from agenttools_runtime.errors.leaves import AgentSkillUnsafeLink as AgentSkillUnsafeLink
    from agenttools_runtime.errors.leaves import AgentSkillUpdate as AgentSkillUpdate
    from agenttools_runtime.errors.leaves import (
        AgentToolsBundleNameAmbiguous as AgentToolsBundleNameAmbiguous,
    )
    from agenttools_runtime.errors.leaves import AgentToolsEmpty as AgentToolsEmpty
    from agenttools_runtime.errors.leaves import (
        AgentToolsNotForEnvironment as AgentToolsNotForEnvironment,
    )
    from agenttools_runtime.errors.leaves import AgentToolsNotFound as AgentToolsNotFound
    from agenttools_runtime.errors.leaves import (
        AgentToolsNothingToDeploy as AgentToolsNothingToDeploy,
    )
    from agenttools_runtime.errors.leaves import BrokenDeploymentRecord as BrokenDeploymentRecord
    from agenttools_runtime.errors.leaves import (
        BuiltInAgentSkillMissing as BuiltInAgentSkillMissing,
    )
    from agenttools_runtime.errors.leaves import ConfigFileChanged as ConfigFileChanged
    from agenttools_runtime.errors.leaves import ConfigFileInvalid as ConfigFileInvalid
    from agenttools_runtime.errors.leaves import ConfigFileUnparseable as ConfigFileUnparseable
    from agenttools_runtime.errors.leaves import (
        DeploymentConfigKeyTaken as DeploymentConfigKeyTaken,
    )
    from agenttools_runtime.errors.leaves import DeploymentDiffers as DeploymentDiffers
    from agenttools_runtime.errors.leaves import DeploymentExists as DeploymentExists
    from agenttools_runtime.errors.leaves import DeploymentIdAmbiguous as DeploymentIdAmbiguous
    from agenttools_runtime.errors.leaves import DeploymentLockTimeout as DeploymentLockTimeout
    from agenttools_runtime.errors.leaves import DeploymentNotFinished as DeploymentNotFinished
    from agenttools_runtime.errors.leaves import DeploymentNotFound as DeploymentNotFound
    from agenttools_runtime.errors.leaves import DeploymentNotRemoved as DeploymentNotRemoved
    from agenttools_runtime.errors.leaves import (
        DeploymentRollbackIncomplete as DeploymentRollbackIncomplete,
    )
    from agenttools_runtime.errors.leaves import DeploymentsExistWarning as DeploymentsExistWarning
    from agenttools_runtime.errors.leaves import (
        DistributionAgentToolsNotFound as DistributionAgentToolsNotFound,
    )
    from agenttools_runtime.errors.leaves import DuplicateAgentSkillName as DuplicateAgentSkillName
    from agenttools_runtime.errors.leaves import (
        DuplicateBundleConfigKey as DuplicateBundleConfigKey,
    )
    from agenttools_runtime.errors.leaves import FileOperationFailed as FileOperationFailed
    from agenttools_runtime.errors.leaves import (
        InterruptedOperationRecovered as InterruptedOperationRecovered,
    )
    from agenttools_runtime.errors.leaves import (
        InvalidAgentSkillDescription as InvalidAgentSkillDescription,
    )
    from agenttools_runtime.errors.leaves import InvalidAgentSkillName as InvalidAgentSkillName
    from agenttools_runtime.errors.leaves import InvalidAgentToolsObject as InvalidAgentToolsObject
    from agenttools_runtime.errors.leaves import InvalidDeploymentRecord as InvalidDeploymentRecord
    from agenttools_runtime.errors.leaves import (
        InvalidMCPServerNameOption as InvalidMCPServerNameOption,
    )
    from agenttools_runtime.errors.leaves import InvalidOverwriteOption as InvalidOverwriteOption
    from agenttools_runtime.errors.leaves import (
        InvalidPythonEnvironment as InvalidPythonEnvironment,
    )
    from agenttools_runtime.errors.leaves import InvalidSkillFrontmatter as InvalidSkillFrontmatter
    from agenttools_runtime.errors.leaves import (
        InvalidSkillProviderName as InvalidSkillProviderName,
    )
    from agenttools_runtime.errors.leaves import InvalidSkillsDirectory as InvalidSkillsDirectory
    from agenttools_runtime.errors.leaves import (
        InvalidSkillsDirectoryOption as InvalidSkillsDirectoryOption,
    )
    from agenttools_runtime.errors.leaves import InvalidSkillURI as InvalidSkillURI
    from agenttools_runtime.errors.leaves import ManifestSchemaTooNew as ManifestSchemaTooNew
    from agenttools_runtime.errors.leaves import MCPEntryMachineSpecific as MCPEntryMachineSpecific
    from agenttools_runtime.errors.leaves import MCPSDKMissing as MCPSDKMissing
    from agenttools_runtime.errors.leaves import MCPServerEntryEdited as MCPServerEntryEdited
    from agenttools_runtime.errors.leaves import MCPServerEntryExists as MCPServerEntryExists
    from agenttools_runtime.errors.leaves import MCPServerEntryModified as MCPServerEntryModified
    from agenttools_runtime.errors.leaves import (
        MCPServerEntryNotRestored as MCPServerEntryNotRestored,
    )
    from agenttools_runtime.errors.leaves import MCPServerNameAmbiguous as MCPServerNameAmbiguous
    from agenttools_runtime.errors.leaves import MCPServerNotFound as MCPServerNotFound
    from agenttools_runtime.errors.leaves import MCPServerNotRemoved as MCPServerNotRemoved
    from agenttools_runtime.errors.leaves import MCPServersNotDeployed as MCPServersNotDeployed
    from agenttools_runtime.errors.leaves import NoClientDetected as NoClientDetected
    from agenttools_runtime.errors.leaves import NoSkillsLocation as NoSkillsLocation
    from agenttools_runtime.errors.leaves import RunnerUnavailable as RunnerUnavailable
    from agenttools_runtime.errors.leaves import ServedSkillsNamespaced as ServedSkillsNamespaced
    from agenttools_runtime.errors.leaves import SkillNameCollision as SkillNameCollision
    from agenttools_runtime.errors.leaves import SkillNotFound as SkillNotFound
    from agenttools_runtime.errors.leaves import SkillNotServed as SkillNotServed
    from agenttools_runtime.errors.leaves import SkillNullByte as SkillNullByte
    from agenttools_runtime.errors.leaves import SkillPathTraversal as SkillPathTraversal
    from agenttools_runtime.errors.leaves import SkillProviderExists as SkillProviderExists
    from agenttools_runtime.errors.leaves import SkillProviderFailed as SkillProviderFailed
    from agenttools_runtime.errors.leaves import SkillProviderNotFound as SkillProviderNotFound
    from agenttools_runtime.errors.leaves import SkillProviderSkipped as SkillProviderSkipped
    from agenttools_runtime.errors.leaves import SkillReferenceNotFound as SkillReferenceNotFound
    from agenttools_runtime.errors.leaves import SkillURISecurityError as SkillURISecurityError
    from agenttools_runtime.errors.leaves import StateRecoveryFailed as StateRecoveryFailed
    from agenttools_runtime.errors.leaves import UnknownClient as UnknownClient
    from agenttools_runtime.errors.leaves import UnsupportedTransport as UnsupportedTransport


def __getattr__(name: str) -> type:
    if name != "leaves" and not name.startswith("_"):  # (the submodule, while it loads)
        from agenttools_runtime.errors import leaves

        value = getattr(leaves, name, None)
        if isinstance(value, type):
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    from agenttools_runtime.errors import leaves

    return sorted({*globals(), *(n for n, v in vars(leaves).items() if isinstance(v, type))})
