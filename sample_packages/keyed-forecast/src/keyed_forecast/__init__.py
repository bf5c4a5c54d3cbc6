"""keyed-forecast: an agenttools sample whose MCP server needs an API key."""
