"""How an exported server starts on any machine: ``module`` and ``script`` servers run from
their distribution as published, pinned, through ``uvx`` (``uvx --from weather-tools==1.2.0
weather-mcp``, or ``uvx --from weather-tools==1.2.0 python -m weather_tools.server`` for a
module no console script runs); ``command`` and ``url`` servers are written as declared.

Nothing of the distribution is copied into the plugin, so the plugin-root variables of the
formats (``${PLUGIN_ROOT}``, ``${CLAUDE_PLUGIN_ROOT}``, ``${extensionPath}``) have nothing to
point at: an exported entry works wherever ``uvx`` is on the client's ``PATH``.
"""

from __future__ import annotations

from dataclasses import replace

from agenttools_runtime import errors
from agenttools_runtime.mcp.runners import choose_runner, console_script, pinned_requirement
from agenttools_runtime.mcp.server import MCPServer


def portable(server: MCPServer, format_name: str) -> MCPServer:
    """*server* as a ``command`` (``uvx …``) or ``url`` server. Raises ``ExportUnsupported``
    for a ``module``/``script`` server that comes from no distribution (an ad hoc value)."""
    if server.kind in ("command", "url"):
        return server
    origin = server.origin
    if origin is None:
        raise errors.ExportUnsupported(
            server=server.qualified_name,
            format_name=format_name,
            reason="it comes from no distribution that uvx could install from a package index",
        )
    if console_script(server) is not None:
        return choose_runner(server, "uvx", project=True).server
    assert server.module is not None  # a script server has its console script
    args = ("--from", pinned_requirement(origin), "python", "-m", server.module)
    return replace(server, module=None, script=None, command="uvx", args=(*args, *server.args))
