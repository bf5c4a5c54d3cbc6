"""What goes wrong with a client (unknown, unsupported, no location for a request) and with a
client's MCP config file (unparseable, invalid, changed, an entry in the way), and the
warnings about config entries."""

from __future__ import annotations

from agenttools_runtime.errors.base import FORCE, AgentToolsError, AgentToolsWarning

__all__ = [
    "ClientError",
    "ConfigFileChanged",
    "ConfigFileError",
    "ConfigFileInvalid",
    "ConfigFileUnparseable",
    "InvalidProjectDirectory",
    "MCPEntryMachineSpecific",
    "MCPServerCannotStart",
    "MCPServerEntryEdited",
    "MCPServerEntryExists",
    "MCPServerEntryModified",
    "MCPServerEntryNotRestored",
    "MCPServerEntryUnproven",
    "MCPServerNotRemoved",
    "NoClientDetected",
    "UnknownClient",
    "UnknownInstallLocation",
    "UnknownSkillsLocation",
    "UnsupportedMCPClient",
    "UnsupportedMCPClientProject",
    "UnsupportedSkillsClient",
    "UnsupportedSkillsClientProject",
    "UnsupportedTransport",
]


class ClientError(AgentToolsError):
    """A client, or a location of one, that agenttools cannot use for this request."""


class UnknownClient(ClientError):
    template = 'Unknown client "{client}".{hint} Known clients: {known}.'


class NoClientDetected(ClientError):
    template = (
        "No AI client was detected on this machine. Name the clients to deploy to (TARGET, "
        "e.g. claude-code,cursor; see 'agenttools clients'), or use --all-clients."
    )


class UnsupportedSkillsClient(ClientError):
    template = "No automatic agent skill installation support for client {client_name}."


class UnsupportedSkillsClientProject(ClientError):
    template = (
        "No automatic project-level agent skill installation support for client {client_name}."
    )


class UnknownSkillsLocation(ClientError):
    template = (
        "Unable to determine the skills location for {client_name} on {os_name}. "
        "Use --skills-dir (skills_dir=) to specify a custom location."
    )


class UnsupportedMCPClient(ClientError):
    template = "No automatic MCP server installation support for client {client_name}."


class UnsupportedMCPClientProject(ClientError):
    template = (
        "No automatic project-level MCP server installation support for client {client_name}."
    )


class UnknownInstallLocation(ClientError):
    template = (
        "Unable to determine the MCP configuration file of {client_name} on {os_name}. "
        "Use --config FILE to specify it."
    )


class InvalidProjectDirectory(ClientError):
    template = "Invalid project directory: {directory}. Expected an existing directory."


class UnsupportedTransport(ClientError):
    template = (
        'The MCP server "{server}" uses the {transport} transport, which {client_name} does not '
        "support."
    )


class ConfigFileError(AgentToolsError):
    """A client's config file that cannot be read or edited; it is left unchanged."""


class ConfigFileUnparseable(ConfigFileError):
    template = "Cannot parse {file} ({reason}); it was not changed. Fix the file and try again."


class ConfigFileInvalid(ConfigFileError):
    template = "Cannot edit {file}: {reason}; it was not changed."


class ConfigFileChanged(ConfigFileError):
    template = (
        "{file} was changed by another program while agenttools was editing it; "
        "nothing was written. Try again."
    )


class MCPServerCannotStart(ClientError):
    template = (
        'The MCP server "{server}" would not start from its entry for {client_name}: {reason}. '
        "Nothing was written (--no-check writes it unchecked)."
    )


class MCPServerEntryExists(ConfigFileError):
    """An entry of the key to write that no deployment wrote (the user's own): replaced only
    with ``--force``, like a foreign skill directory."""

    template = (
        'The MCP server configuration "{key}" in {config_file} was not written by an agenttools '
        "deployment. Use {option} to replace it{then}.{note}"
    )


class MCPServerEntryEdited(ConfigFileError):
    """An entry a deployment wrote that the user changed since: replaced only with
    ``--force``, like a modified skill directory."""

    template = (
        'The MCP server configuration "{key}" in {config_file} was changed after deployment '
        f"{{uuid}} wrote it. Use {FORCE} to replace it (removing the deployment puts the changed "
        "entry back)."
    )


# -- warnings ----------------------------------------------------------------------------------
class MCPServerNotRemoved(AgentToolsWarning):
    template = 'The MCP server configuration "{key}" could not be removed from {config_file}.'


class MCPServerEntryModified(AgentToolsWarning):
    template = (
        'Warning: The MCP server configuration "{key}" in {config_file} was changed after '
        "agenttools wrote it, so it was not removed{origin}. {hint}"
    )


class MCPServerEntryNotRestored(AgentToolsWarning):
    template = (
        'Warning: The MCP server configuration "{key}" in {config_file} was removed after '
        "agenttools wrote it, so the entry it had replaced was not put back."
    )


class MCPServerEntryUnproven(AgentToolsWarning):
    template = (
        'Warning: The MCP server configuration "{key}" in {config_file} was not removed: the '
        "deployment's record does not say what agenttools wrote there, so nothing proves it is "
        "agenttools'. {hint}"
    )


class MCPEntryMachineSpecific(AgentToolsWarning):
    template = (
        'Warning: The MCP server entry "{key}" in {config_file} runs {command}, a path on this '
        "machine only: the file is machine-specific (a teammate's checkout cannot start the "
        "server). {hint}"
    )
