"""The error families (but a build's, ``errors/builds.py``) and the leaves a deploy, ``list``
or ``show`` imports when it starts (they raise as control flow): created on first use like
every error, and without ``errors/leaves.py``, which holds the rest."""

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


# -- leaves imported when a command starts ----------------------------------------------------
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
