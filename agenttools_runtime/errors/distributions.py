"""What goes wrong reading an installed distribution, its manifest, or resolving a bundle or
server name among the installed ones."""

from __future__ import annotations

from agenttools_runtime.errors.base import AgentToolsError

__all__ = [
    "AgentToolsBundleNameAmbiguous",
    "AgentToolsNotForEnvironment",
    "AgentToolsNotFound",
    "BundleError",
    "BundledFileMismatch",
    "BundledFileMissing",
    "BundledFileNotRegular",
    "DistributionAgentToolsNotFound",
    "DistributionError",
    "DistributionNotInstalled",
    "DistributionServerNotFound",
    "DistributionSkillNotFound",
    "EditableSourceMissing",
    "InvalidAgentToolsObject",
    "InvalidManifest",
    "InvalidPythonEnvironment",
    "MCPServerNameAmbiguous",
    "MCPServerNotFound",
    "ManifestError",
    "ManifestSchemaTooNew",
]


class DistributionError(AgentToolsError):
    """An installed distribution or Python environment that cannot be used."""


class DistributionNotInstalled(DistributionError):
    template = (
        'The distribution "{name}" is not installed in {environment}. Install it with: {command}'
    )


class EditableSourceMissing(DistributionError):
    template = (
        'The editable install of "{distribution}" takes its skill files from {path}, which does '
        "not exist (moved or deleted?). Reinstall it: {command}"
    )


class BundledFileMismatch(DistributionError):
    template = (
        'The file {path} of "{distribution}" does not match the hash recorded when it was built '
        "(tampered with or half uninstalled). Reinstall it: pip install --force-reinstall "
        "{distribution}"
    )


class BundledFileNotRegular(DistributionError):
    template = (
        'The file {path} of "{distribution}" is a symbolic link or not a regular file; '
        "agenttools copies only the regular files a wheel installed. "
        "Reinstall it: pip install --force-reinstall {distribution}"
    )


class BundledFileMissing(DistributionError):
    template = (
        'The file {path} of "{distribution}" is missing. Reinstall it: '
        "pip install --force-reinstall {distribution}"
    )


class InvalidPythonEnvironment(DistributionError):
    template = "Cannot discover the distributions of the Python interpreter {python}: {reason}"


class ManifestError(DistributionError):
    """An installed distribution's ``manifest.json`` that cannot be read or trusted."""


class InvalidManifest(ManifestError):
    template = 'The agenttools manifest of "{distribution}" cannot be used: {reason}'


class ManifestSchemaTooNew(ManifestError):
    template = (
        'The agenttools manifest of "{distribution}" has schema {schema}: it was built by a '
        "newer agenttools, and this one reads schema {supported} and older. Upgrade "
        "agenttools: pip install --upgrade agenttools"
    )


class BundleError(AgentToolsError):
    """A bundle specification, or a bundle or server name that does not resolve to one thing."""


class InvalidAgentToolsObject(BundleError):
    template = "Invalid agent tools bundle specification: {reason}."


class AgentToolsNotFound(BundleError):
    template = 'No agent tools bundle found for name "{name}" in {environment}.'


class AgentToolsBundleNameAmbiguous(BundleError):
    template = (
        'The distribution "{distribution}" defines several agent tools bundles: {bundles}. '
        "Specify one of these names."
    )


class DistributionAgentToolsNotFound(BundleError):
    template = 'Agent tools "{name}" not found in distribution "{distribution}".'


class AgentToolsNotForEnvironment(DistributionAgentToolsNotFound):
    """A bundle named explicitly whose marker is false in the environment."""

    template = (
        'The agent tools bundle "{name}" of "{distribution}" is not offered in {environment}: '
        "its marker {marker} is false there."
    )


class DistributionSkillNotFound(BundleError):
    template = 'Agent skill "{name}" not found in distribution "{distribution}".'


class DistributionServerNotFound(BundleError):
    template = 'MCP server "{name}" not found in distribution "{distribution}".'


class MCPServerNotFound(BundleError):
    template = 'No MCP server found for name "{name}".'


class MCPServerNameAmbiguous(BundleError):
    template = (
        'Several installed distributions declare an MCP server named "{name}": {names}. '
        "Specify one of these names."
    )
