"""The test suite is a package, so pytest puts the repository root on sys.path, not tests/:
otherwise tests/mcp/ would shadow the real ``mcp`` package (the MCP SDK)."""
