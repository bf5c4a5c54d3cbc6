"""The sentences agenttools prints in its errors' voice that are not errors: a skill or MCP
server installed or removed, and the advice for a deployment record that cannot be read."""

from __future__ import annotations

from pathlib import Path

from agenttools_runtime.errors.base import fill

__all__ = ["TEXTS", "broken_record_hint", "format_message"]

# name -> template, filled by format_message
TEXTS: dict[str, str] = {
    "InstallAgentSkill": 'Successfully installed agent skill "{name}".',
    "InstallAgentSkillNamed": 'Successfully installed agent skill "{name}" for {client_name}.',
    "UninstallAgentSkill": 'Successfully uninstalled agent skill "{name}".',
    "UninstallAgentSkillNamed": 'Successfully uninstalled agent skill "{name}" for {client_name}.',
    "AgentSkillNotInstalledAt": 'The agent skill "{name}" is not installed at {path}.',
    "InstallMCPServer": 'Successfully installed MCP server "{key}" into {config_file}.',
    "UninstallMCPServer": 'Successfully removed MCP server "{key}" from {config_file}.',
    "MCPServerNotInstalled": 'The MCP server configuration "{key}" is not present in {config_file}.',
    # the hint of BrokenDeploymentRecord, which doctor and status give too (broken_record_hint)
    "BrokenDeploymentRecordHint": (
        "Repair the file, or delete the directory {directory} to forget the deployment "
        "('agenttools doctor --fix' then releases its skills; its MCP config entries stay in "
        "their files)."
    ),
}


def format_message(text: str, /, **data: object) -> str:
    """The text named *text* in ``TEXTS`` filled from *data* (a missing field stays
    ``{field}``)."""
    return fill(TEXTS[text], data)


def broken_record_hint(record: Path) -> str:
    """What can be done about the deployment record file *record* that cannot be read."""
    return format_message("BrokenDeploymentRecordHint", directory=record.parent)
