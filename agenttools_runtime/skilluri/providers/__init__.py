"""Where ``skill://`` skills come from: the provider interface (:mod:`.base`), skills that are
folders (:mod:`.directory`: :mod:`.local`, :mod:`.distribution`, :mod:`.builtin`) and skills an
MCP server serves (:mod:`.mcp`)."""
