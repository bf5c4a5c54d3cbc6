"""The deploy engine: ``deploy()``, ``Deployment``, ``deployed()``, ``remove_deployment()``.

A deployment puts a bundle's MCP servers into a client's config file and its skills into the
client's skills directory, as one tracked, reversible unit (see docs/deploy.md). Modules:

- ``one_client`` ``deploy()``: one bundle into one client;
- ``all_clients`` ``deploy_all()``: one bundle into every client, warnings summarized;
- ``target_tools`` the resolved tools as one target gets them (runners, links);
- ``targets``  where a deployment goes (client, project, config file, skills root);
- ``plan``     the install/release decision tables and conflict rules (pure);
- ``apply``    a deploy applied under its intent journal, and undone;
- ``removal``  removal, the release decision and the sweep;
- ``registry`` the reference-counted skill registry;
- ``records``  deployment records;
- ``lock``     the cross-process deployment lock, with interrupted operations recovered;
- ``resolved`` the tools of a deploy, resolved and hashed before the lock;
- ``skill_decision`` one skill's install decision and its registry entry after it;
- ``deploy_plan`` ``DeployPlan``, everything a deploy would do (and its ``--dry-run`` text);
- ``engine``   the algorithm that combines them;
- ``deployment`` ``Deployment`` objects, listing and removal;
- ``mcp_entry`` ``mcp install|uninstall`` of one entry, under the lock.
"""

from agenttools_runtime.deploy.all_clients import AllClientsResult, Skipped, deploy_all
from agenttools_runtime.deploy.deployment import (
    Deployment,
    RemovalResult,
    deployed,
    find_deployment,
    remove_deployment,
)
from agenttools_runtime.deploy.one_client import deploy
from agenttools_runtime.deploy.targets import DEFAULT

__all__ = [
    "DEFAULT",
    "AllClientsResult",
    "Deployment",
    "RemovalResult",
    "Skipped",
    "deploy",
    "deploy_all",
    "deployed",
    "find_deployment",
    "remove_deployment",
]
