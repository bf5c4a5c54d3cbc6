"""What a dry run prints of a deploy plan (``deploy --dry-run``, ``sync --dry-run``): the plan
as data (``--json``) and as text, each MCP server entry as it would be written into its file.
Shared by ``cli/deploy.py`` and ``cli/lifecycle.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agenttools_runtime.deploy.deploy_plan import DeployPlan


def plan_json(the_plan: DeployPlan) -> dict[str, Any]:
    """A dry run's JSON: the plan, each server entry as it would be written (a secret's
    value as ``*****``)."""
    from agenttools_runtime.settings.secrets import mask

    data = the_plan.to_json()
    for item, sp in zip(data["mcp_servers"], the_plan.servers, strict=True):
        choice = the_plan.launches.get(sp.key)
        item["runner"] = sp.runner
        item["entry"] = _entry(the_plan, sp)
        item["command"] = None if choice is None else choice.command_line
    return dict(mask(data, _secret_values(the_plan)))


def render_plan(the_plan: DeployPlan) -> str:
    """The plan, then each server entry as it would be written into its file, inside its
    container as a new file would hold it (a secret's value as ``*****``)."""
    from agenttools_runtime.mcp.entries import container_for
    from agenttools_runtime.mcp.formats import get_format
    from agenttools_runtime.settings.secrets import mask

    lines = [the_plan.render()]
    client, config = the_plan.target.client, the_plan.target.config_file
    for sp in the_plan.servers:
        choice = the_plan.launches.get(sp.key)
        how = f": {choice.describe()}" if choice is not None else ""
        lines.append(f'  entry "{sp.key}" as written into {config}{how}')
        fmt = get_format(client.config_format)
        text, _ = fmt.set_entry("", container_for(client, config), sp.key, _entry(the_plan, sp), {})
        lines.extend("    " + line for line in text.rstrip("\n").splitlines())
    return str(mask("\n".join(lines), _secret_values(the_plan)))


def _secret_values(the_plan: DeployPlan) -> list[str]:
    return [v for sp in the_plan.servers for v in sp.secrets]


def _entry(the_plan: DeployPlan, sp: Any) -> dict[str, Any]:
    from agenttools_runtime.mcp.entries import build_entry

    return build_entry(the_plan.target.client, sp.server, sp.key)
