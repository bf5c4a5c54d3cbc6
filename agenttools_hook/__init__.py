"""The agenttools hatchling build hook. Enable it with ``[tool.hatch.build.hooks.agenttools]``."""
