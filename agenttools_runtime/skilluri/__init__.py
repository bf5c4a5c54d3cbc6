"""``skill://`` URIs: load any skill on this machine, or from an MCP server, by name.

A URI is ``skill://{provider}/{skill-name}/{reference-path}`` (the scheme document in
``docs/skill-uri.md``); a bare ``skill-name`` (optionally followed by ``/reference``) is looked
up across every provider. The package, one module a concern:

- :mod:`.parse`: the URI syntax and the security rules every provider keeps (no NUL, no
  ``..``, provider names, a reference resolved inside its skill directory);
- :mod:`.arguments`: argument substitution (``seed`` and ``claude`` conventions);
- :mod:`.providers`: where skills come from, in priority order: ``local`` (every client's
  skill directories), one per installed distribution, ``agenttools`` (the built-in skills),
  MCP servers (through :mod:`.mcp_client`, the MCP session and its asyncio bridge); the
  provider interface includes FastMCP's ``_manifest`` of a skill;
- :mod:`.resolver`: a URI resolved against the providers, and the listing of every skill.

The MCP skills server (``agenttools serve``) is :mod:`agenttools_runtime.serve`.
"""
