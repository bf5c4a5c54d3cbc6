"""The wrapping backend's name and the form of a backend reference: data that both the hook
processes (``wheel/pep517.py``) and the schema (which validates ``[tool.agenttools] backend``)
read, in a module that imports nothing, so neither depends on the other."""

from __future__ import annotations

# ``build-backend`` of a project built through this backend, which reads the backend it
# wraps from ``[tool.agenttools] backend`` (and ``backend-path``).
WRAPPING_BACKEND = "agenttools_hook.backend"

# A PEP 517 backend reference, as build-backend takes it: "module.path" or "module:object".
BACKEND_REFERENCE = r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*(:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*)?$"
