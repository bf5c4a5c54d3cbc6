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

# Every error and warning is defined in a submodule and created on first use (PEP 562): the
# bases in errors/base.py, a build's failures in errors/builds.py, the other families and the
# leaves a deploy, list or show imports when it starts in errors/families.py, every other leaf
# and warning in errors/leaves.py; the message table is read from errors/messages.py when a
# message is. A build through agenttools_hook.backend that succeeds creates none of them (nor
# does a module that imports the package to raise one), a deploy that succeeds none of
# errors/leaves.py (the modules on its path name them ``errors.X`` where they raise them). ``from agenttools_runtime.errors
# import X`` works for every X; type checkers read the imports below.
TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (start-up time)
if TYPE_CHECKING:
    from typing import Any

    from agenttools_runtime.errors.base import AgentToolsError as AgentToolsError
    from agenttools_runtime.errors.base import AgentToolsErrors as AgentToolsErrors
    from agenttools_runtime.errors.base import AgentToolsWarning as AgentToolsWarning
    from agenttools_runtime.errors.base import format_message as format_message
    from agenttools_runtime.errors.builds import BuildBackendUnavailable as BuildBackendUnavailable
    from agenttools_runtime.errors.builds import BuildError as BuildError
    from agenttools_runtime.errors.builds import InvalidProject as InvalidProject
    from agenttools_runtime.errors.builds import InvalidSdist as InvalidSdist
    from agenttools_runtime.errors.builds import InvalidWheel as InvalidWheel
    from agenttools_runtime.errors.builds import ProjectError as ProjectError
    from agenttools_runtime.errors.builds import WheelAlreadyBundled as WheelAlreadyBundled
    from agenttools_runtime.errors.builds import WheelProjectMismatch as WheelProjectMismatch
    from agenttools_runtime.errors.families import (
        AgentSkillBackupNotRemoved as AgentSkillBackupNotRemoved,
    )
    from agenttools_runtime.errors.families import AgentSkillRemoveFailed as AgentSkillRemoveFailed
    from agenttools_runtime.errors.families import AgentSkillWriteFailed as AgentSkillWriteFailed
    from agenttools_runtime.errors.families import BundledFileMismatch as BundledFileMismatch
    from agenttools_runtime.errors.families import BundledFileMissing as BundledFileMissing
    from agenttools_runtime.errors.families import BundledFileNotRegular as BundledFileNotRegular
    from agenttools_runtime.errors.families import BundleError as BundleError
    from agenttools_runtime.errors.families import ClientError as ClientError
    from agenttools_runtime.errors.families import ConfigFileError as ConfigFileError
    from agenttools_runtime.errors.families import DeployError as DeployError
    from agenttools_runtime.errors.families import DistributionError as DistributionError
    from agenttools_runtime.errors.families import (
        DistributionNotInstalled as DistributionNotInstalled,
    )
    from agenttools_runtime.errors.families import (
        DistributionServerNotFound as DistributionServerNotFound,
    )
    from agenttools_runtime.errors.families import (
        DistributionSkillNotFound as DistributionSkillNotFound,
    )
    from agenttools_runtime.errors.families import EditableSourceMissing as EditableSourceMissing
    from agenttools_runtime.errors.families import InvalidAgentSkill as InvalidAgentSkill
    from agenttools_runtime.errors.families import (
        InvalidDistributionSkillDefinition as InvalidDistributionSkillDefinition,
    )
    from agenttools_runtime.errors.families import InvalidManifest as InvalidManifest
    from agenttools_runtime.errors.families import (
        InvalidProjectDirectory as InvalidProjectDirectory,
    )
    from agenttools_runtime.errors.families import ManifestError as ManifestError
    from agenttools_runtime.errors.families import SkillConflictError as SkillConflictError
    from agenttools_runtime.errors.families import SkillError as SkillError
    from agenttools_runtime.errors.families import UnknownInstallLocation as UnknownInstallLocation
    from agenttools_runtime.errors.families import UnknownSkillsLocation as UnknownSkillsLocation
    from agenttools_runtime.errors.families import UnsupportedMCPClient as UnsupportedMCPClient
    from agenttools_runtime.errors.families import (
        UnsupportedMCPClientProject as UnsupportedMCPClientProject,
    )
    from agenttools_runtime.errors.families import (
        UnsupportedSkillsClient as UnsupportedSkillsClient,
    )
    from agenttools_runtime.errors.families import (
        UnsupportedSkillsClientProject as UnsupportedSkillsClientProject,
    )
    from agenttools_runtime.errors.families import URIError as URIError
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
    from agenttools_runtime.errors.leaves import AgentSkillNameDiffers as AgentSkillNameDiffers
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
    from agenttools_runtime.errors.leaves import AgentSkillReplacedKept as AgentSkillReplacedKept
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
    from agenttools_runtime.errors.leaves import AgentSkillUnproven as AgentSkillUnproven
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
    from agenttools_runtime.errors.leaves import MCPServerEntryUnproven as MCPServerEntryUnproven
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
    from agenttools_runtime.errors.messages import FORCE as FORCE
    from agenttools_runtime.errors.messages import MESSAGES as MESSAGES
    from agenttools_runtime.errors.messages import UPGRADE as UPGRADE


# where each name is defined (any other: errors/families.py, else errors/leaves.py)
_HOMES = {
    **dict.fromkeys(("AgentToolsError", "AgentToolsErrors", "AgentToolsWarning"), "base"),
    "format_message": "base",
    **dict.fromkeys(("FORCE", "MESSAGES", "UPGRADE"), "messages"),
    **dict.fromkeys(
        (
            "ProjectError",
            "BuildError",
            "InvalidProject",
            "InvalidWheel",
            "InvalidSdist",
            "WheelAlreadyBundled",
            "WheelProjectMismatch",
            "BuildBackendUnavailable",
        ),
        "builds",
    ),
}
_SUBMODULES = frozenset({"base", "builds", "families", "leaves", "messages"})
_NOT_EXPORTED = _SUBMODULES | {"annotations", "TYPE_CHECKING"}


def __getattr__(name: str) -> Any:
    if name == "__all__":  # (`from agenttools_runtime.errors import *`: every name, now)
        return [n for n in __dir__() if not n.startswith("_") and n not in _NOT_EXPORTED]
    # (a submodule's own name: the import system asks while it loads it)
    if not name.startswith("_") and name not in _SUBMODULES:
        import importlib

        homes = [_HOMES[name]] if name in _HOMES else ["families", "leaves"]
        for home in homes:  # (a deploy's start-up finds its leaves without leaves.py)
            value = getattr(importlib.import_module(f"{__name__}.{home}"), name, None)
            if value is not None and (name in _HOMES or isinstance(value, type)):
                # kept here: the next `errors.X` is a plain attribute, not this call (modules
                # raise `errors.X` as control flow, in loops over clients)
                globals()[name] = value
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    from agenttools_runtime.errors import families, leaves

    defined = (n for m in (families, leaves) for n, v in vars(m).items() if isinstance(v, type))
    return sorted({*globals(), *_HOMES, *defined})
