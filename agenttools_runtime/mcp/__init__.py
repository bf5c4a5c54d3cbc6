"""MCP server declarations and the entries they become in each client's config file."""
