"""agenttools: ship Agent Skills and MCP servers in Python wheels; deploy them into AI clients.

The public API. Names are imported lazily from ``agenttools_runtime`` on first use, so
``import agenttools`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

from agenttools_runtime import __version__

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    # errors and warnings
    "AgentToolsError": "agenttools_runtime.errors",
    "AgentToolsWarning": "agenttools_runtime.errors",
    "DistributionError": "agenttools_runtime.errors",
    "ManifestError": "agenttools_runtime.errors",
    "BundleError": "agenttools_runtime.errors",
    "SkillError": "agenttools_runtime.errors",
    "SkillConflictError": "agenttools_runtime.errors",
    "ClientError": "agenttools_runtime.errors",
    "ConfigFileError": "agenttools_runtime.errors",
    "DeployError": "agenttools_runtime.errors",
    "URIError": "agenttools_runtime.errors",
    "ProjectError": "agenttools_runtime.errors",
    "ExportError": "agenttools_runtime.errors",
    "ServerJsonError": "agenttools_runtime.errors",
    # clients
    "SUPPORTED_CLIENTS": "agenttools_runtime.clients",
    "SUPPORTED_MCP_CLIENTS": "agenttools_runtime.clients",
    "Client": "agenttools_runtime.clients",
    "get_client": "agenttools_runtime.clients",
    "skills_location": "agenttools_runtime.clients",
    "project_skills_location": "agenttools_runtime.clients",
    "mcp_config_location": "agenttools_runtime.clients",
    "project_mcp_config_location": "agenttools_runtime.clients",
    "detected_clients": "agenttools_runtime.detection",
    # skills
    "Skill": "agenttools_runtime.skills.spec",
    "skill_from_directory": "agenttools_runtime.skills.source",
    "install_skills": "agenttools_runtime.skills.install",
    "uninstall_skills": "agenttools_runtime.skills.install",
    "SkillSource": "agenttools_runtime.skills.spec",
    "to_source": "agenttools_runtime.skills.source",
    "SkillInstallResult": "agenttools_runtime.skills.install",
    "SkillUninstallResult": "agenttools_runtime.skills.install",
    # bundles and discovery
    "AgentTools": "agenttools_runtime.bundles",
    "DEFAULT_AGENT_TOOLS": "agenttools_runtime.bundles",
    "agent_tools_objects": "agenttools_runtime.bundles",
    "resolve_tools": "agenttools_runtime.bundles",
    "skill_sources": "agenttools_runtime.skill_sources",
    "SearchPath": "agenttools_runtime.discovery",
    "find_distributions": "agenttools_runtime.discovery",
    # MCP servers
    "MCPServer": "agenttools_runtime.mcp.server",
    "Environment": "agenttools_runtime.mcp.server",
    "install_mcp_server": "agenttools_runtime.mcp.install",
    "uninstall_mcp_server": "agenttools_runtime.mcp.install",
    # deployments
    "deploy": "agenttools_runtime.deploy",
    "deploy_all": "agenttools_runtime.deploy",
    "Deployment": "agenttools_runtime.deploy",
    "deployed": "agenttools_runtime.deploy",
    "remove_deployment": "agenttools_runtime.deploy",
    # skill:// URIs and the MCP skills server
    "SkillURI": "agenttools_runtime.skilluri.parse",
    "parse_skill_uri": "agenttools_runtime.skilluri.parse",
    "substitute_arguments": "agenttools_runtime.skilluri.arguments",
    "SkillResolver": "agenttools_runtime.skilluri.resolver",
    "SkillProvider": "agenttools_runtime.skilluri.providers.base",
    "LocalSkillProvider": "agenttools_runtime.skilluri.providers.local",
    "DistributionSkillProvider": "agenttools_runtime.skilluri.providers.distribution",
    "MCPSkillProvider": "agenttools_runtime.skilluri.providers.mcp",
    "BuiltinSkillProvider": "agenttools_runtime.skilluri.providers.builtin",
    "ProvidedSkill": "agenttools_runtime.skilluri.providers.base",
    "ResolvedSkill": "agenttools_runtime.skilluri.resolver",
    "SkillListing": "agenttools_runtime.skilluri.resolver",
    "resolve_skill": "agenttools_runtime.skilluri.resolver",
    "list_skills": "agenttools_runtime.skilluri.resolver",
    "serve": "agenttools_runtime.serve",
    "collect_skills": "agenttools_runtime.serve",
    "build_server": "agenttools_runtime.serve",
    # other packaging formats (agenttools export)
    "export": "agenttools_runtime.export",
    # project validation (the build hook's checks)
    "validate_project": "agenttools_runtime.project",
    "Problem": "agenttools_runtime.project",
}

__all__ = ["__version__", *sorted(_EXPORTS)]


def __getattr__(name: str) -> Any:
    module_name = _EXPORTS.get(name)
    if module_name is None:
        raise AttributeError(f"module 'agenttools' has no attribute {name!r}")
    value = getattr(importlib.import_module(module_name), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
