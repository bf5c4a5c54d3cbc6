"""What getting a distribution that is not installed can run into: a package index that cannot
be reached or does not have it, an installer that fails, a managed environment that cannot be
made, used or trusted. Every URL in a field has its credentials removed before it gets here
(:func:`agenttools_runtime.envs.index.redact`)."""

from __future__ import annotations

from agenttools_runtime.errors.base import AgentToolsError, AgentToolsWarning

__all__ = [
    "DistributionNotInstalledHere",
    "EnvironmentJournalUnreadable",
    "EnvironmentsLockTimeout",
    "IndexAuthenticationFailed",
    "IndexFileInvalid",
    "IndexNotListable",
    "IndexUnreachable",
    "InstallerFailed",
    "InstallerUnavailable",
    "InterruptedInstallRecovered",
    "InvalidReceipt",
    "InvalidRequirement",
    "ManagedEnvironmentError",
    "ManagedEnvironmentKept",
    "ManagedEnvironmentNotFound",
    "ManagedEnvironmentRemoved",
    "NoAgentTools",
    "PackageIndexError",
    "ReceiptNotReproducible",
    "RemoteDistributionNotFound",
    "RemoteHashMismatch",
    "RemoteVersionNotFound",
    "RemoteWheelNotFound",
    "RemoteWheelUnreadable",
    "UnsupportedRequirement",
]


# -- families ----------------------------------------------------------------------------------
class PackageIndexError(AgentToolsError):
    """A package index (or ``--find-links`` location) that cannot answer what was asked."""


class ManagedEnvironmentError(AgentToolsError):
    """A managed environment that cannot be created, used, upgraded or repaired."""


# -- the index ---------------------------------------------------------------------------------
class IndexUnreachable(PackageIndexError):
    template = "Cannot reach the package index {index}: {reason}"


class IndexAuthenticationFailed(PackageIndexError):
    template = (
        "The package index {index} refused the request ({status}): give its credentials in "
        "the URL, in ~/.netrc, or as the installer's configuration supports them"
    )


class IndexNotListable(PackageIndexError):
    template = (
        "The package index {index} cannot be listed (it holds too many projects): name the "
        "distributions, e.g. agenttools show DIST --index"
    )


class RemoteDistributionNotFound(PackageIndexError):
    template = "No distribution named {distribution} on {index}"


class RemoteVersionNotFound(PackageIndexError):
    template = (
        "No version of {distribution} on {index} satisfies {requirement} (it has: {versions})"
    )


class RemoteWheelNotFound(PackageIndexError):
    template = (
        "{distribution} {version} on {index} has no wheel (only {files}): agent tools are read "
        "from a wheel's manifest"
    )


class RemoteHashMismatch(PackageIndexError):
    template = (
        "The file {file} from {index} does not match its published hash (sha256 {expected}, got "
        "{actual}): nothing was installed"
    )


class RemoteWheelUnreadable(PackageIndexError):
    template = "Cannot read the wheel {file} from {index}: {reason}"


class IndexFileInvalid(PackageIndexError):
    """A file the index lists with a name or a published hash that no real index gives: the
    file is never fetched, and nothing is written under that name or hash."""

    template = "The package index {index} lists the file {file!r} with {problem}"


# -- requirements and installers ---------------------------------------------------------------
class InvalidRequirement(ManagedEnvironmentError):
    template = (
        "{requirement!r} is not a requirement (PEP 508, e.g. weather-tools or "
        "'weather-tools==1.2.0'), a wheel file or a project directory: {reason}"
    )


class UnsupportedRequirement(ManagedEnvironmentError):
    template = "{requirement} cannot be installed into a managed environment: {reason}"


class InstallerUnavailable(ManagedEnvironmentError):
    template = "The installer {installer} cannot be used: {reason}"


class InstallerFailed(ManagedEnvironmentError):
    template = "{installer} could not {action} {requirement}: {reason}"


class NoAgentTools(ManagedEnvironmentError):
    template = (
        "{distribution} {version} ships no agent tools: nothing to deploy (no environment was kept)"
    )


class DistributionNotInstalledHere(ManagedEnvironmentError):
    template = (
        "{requirement} is not installed in {where}. Install it into a managed environment and "
        "deploy it: {command}"
    )


# -- managed environments ----------------------------------------------------------------------
class ManagedEnvironmentNotFound(ManagedEnvironmentError):
    template = "No managed environment {name} (see 'agenttools envs')"


class InvalidReceipt(ManagedEnvironmentError):
    template = "The receipt of the managed environment {path} cannot be used: {reason}"


class ReceiptNotReproducible(ManagedEnvironmentError):
    template = "The managed environment {name} cannot be rebuilt from its receipt: {reason}"


class EnvironmentsLockTimeout(ManagedEnvironmentError):
    template = (
        "Another agenttools process is creating a managed environment (the lock {lock_file} was "
        "held for {timeout} seconds); try again when it has finished"
    )


# -- warnings ----------------------------------------------------------------------------------
class ManagedEnvironmentRemoved(AgentToolsWarning):
    template = "Removed the managed environment {name}: {reason}"


class ManagedEnvironmentKept(AgentToolsWarning):
    template = "Kept the managed environment {name}: {reason}"


class InterruptedInstallRecovered(AgentToolsWarning):
    template = "An interrupted {operation} of {name} was {outcome}"


class EnvironmentJournalUnreadable(AgentToolsWarning):
    template = (
        "The managed-environment journal {journal} cannot be read ({reason}), so nothing is "
        "done from it and {kept}; 'agenttools doctor --fix' sets it aside"
    )
