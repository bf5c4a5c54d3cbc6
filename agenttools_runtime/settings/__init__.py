"""Settings a user gives to the MCP servers of a deployment: the values of the settings a server
declares (``[tool.agenttools.mcp-servers.NAME.env.VAR]``, ``headers``), given with ``deploy
--env`` / ``--env-file`` or ``configure``, asked on a terminal, kept across upgrades; and
secrets, whose values live only where the client reads them.

- :mod:`~agenttools_runtime.settings.given`: ``NAME.VAR=VALUE`` assignments and env files;
- :mod:`~agenttools_runtime.settings.secrets`: salted digests, record redaction, masking;
- :mod:`~agenttools_runtime.settings.configure`: the values of one deploy's servers, from
  what was given, what the deployment it replaces had, defaults and prompts.
"""
