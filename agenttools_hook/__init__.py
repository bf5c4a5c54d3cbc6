"""agenttools at build time: the hatchling build hook (``[tool.hatch.build.hooks.agenttools]``,
:mod:`.plugin`) and the PEP 517 backend that wraps any other backend
(``build-backend = "agenttools_hook.backend"``, :mod:`.backend`)."""
