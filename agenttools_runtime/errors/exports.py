"""What goes wrong rendering a bundle in another packaging format (Agent Plugins, Claude Code and
Codex plugins and marketplaces, Gemini CLI extensions, the MCP registry's ``server.json``), and
reading a ``server.json`` to install the server it describes."""

from __future__ import annotations

from agenttools_runtime.errors.base import AgentToolsError, AgentToolsWarning

__all__ = [
    "ExportError",
    "ExportNameInvalid",
    "ExportOutputConflict",
    "ExportSchemaViolation",
    "ExportSettingNotExported",
    "ExportSourceInvalid",
    "ExportSourceNotFound",
    "ExportUnsupported",
    "RequiredSettingsMissing",
    "SecretHasNoReference",
    "SecretNotForProject",
    "SecretsFromEnvironment",
    "ServerJsonError",
    "ServerJsonInvalid",
    "ServerJsonUnavailable",
    "ServerJsonUnsupported",
    "SettingNotDeclared",
    "SettingValueInvalid",
    "SettingsDropped",
]


class ExportError(AgentToolsError):
    """A bundle that cannot be written in another format, or an output in the way."""


class ExportSourceNotFound(ExportError):
    template = (
        'No installed distribution or bundle, wheel file or project directory is named "{source}"'
        "{reason}."
    )


class ExportSourceInvalid(ExportError):
    template = "Cannot export {source}: {reason}"


class ExportNameInvalid(ExportError):
    template = (
        'The name "{name}" is not a {format_name} name: {reason}. Use --name {suggestion} (or '
        "rename the bundle)."
    )


class ExportUnsupported(ExportError):
    template = 'The MCP server "{server}" cannot be exported as {format_name}: {reason}'


class ExportSchemaViolation(ExportError):
    template = (
        "The {format_name} output does not validate against {schema}, so nothing was written: "
        "{problems}"
    )


class ExportOutputConflict(ExportError):
    template = (
        "Not writing into {directory}: {paths} would be replaced, and this export did not "
        "write them (or they changed since). Choose an empty directory, or use --force to "
        "replace them."
    )


class ServerJsonError(AgentToolsError):
    """A ``server.json`` (the MCP registry's description of a server) that cannot be made or
    used, and the settings a server needs that were not given."""


class ServerJsonUnavailable(ServerJsonError):
    template = (
        "{project} declares no MCP server for the MCP registry: add "
        '[tool.agenttools.mcp-servers.NAME.registry] name = "io.github.OWNER/NAME" to a '
        "module, script or url server."
    )


class ServerJsonInvalid(ServerJsonError):
    template = "{file} is not a server.json agenttools can use: {reason}"


class ServerJsonUnsupported(ServerJsonError):
    template = "{file}: {reason}"


class RequiredSettingsMissing(ServerJsonError):
    template = (
        'The MCP server "{server}" needs values for {names}. Give them with --env NAME=VALUE '
        "(or run on a terminal to be asked)."
    )


class SettingValueInvalid(ServerJsonError):
    template = 'The value of {name} for the MCP server "{server}" {reason}.'


class SettingNotDeclared(ServerJsonError):
    """A value given for a setting the server does not declare: named by where it was given
    (``--env #2``, ``FILE:LINE``), never by its text (a secret typed without its name)."""

    template = (
        '{given} names no setting of the MCP server "{server}" (its text is not shown: it '
        "may hold a secret); its settings are: {settings}."
    )


class SecretNotForProject(ServerJsonError):
    template = (
        'The MCP server "{server}" needs the secret {names}, which would end up in {config_file}, '
        "a project file that is committed. Install it in user scope (without --project), or "
        "set it in the client's environment by hand."
    )


class SecretHasNoReference(ServerJsonError):
    template = (
        'The MCP server "{server}" needs the secret {names}, and {client_name} has no way for '
        "its project file {config_file} to refer to an environment variable instead of "
        "holding the value (a committed file). Deploy it in user scope (without --project), "
        "or to a client that refers to variables in project files ({clients}), or add the "
        "value to the entry by hand after deploying."
    )


class SecretsFromEnvironment(AgentToolsWarning):
    template = (
        "{config_file} refers to the environment variable(s) {names} for the secret(s) of the "
        'MCP server "{server}" (a project file holds no secret): set them in the environment '
        "{client_name} runs in."
    )


class SettingsDropped(AgentToolsWarning):
    template = (
        'The MCP server "{server}" no longer declares {names} in {version}: the value(s) '
        "given before are dropped."
    )


class ExportSettingNotExported(AgentToolsWarning):
    template = (
        "The {format_name} format has no place for the setting {name} of the MCP server "
        '"{server}" ({reason}); it is left out: tell your users to set it in the environment '
        "their client runs in."
    )
